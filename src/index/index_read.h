/* The reader's state, shared by the files that use chunks. */
#ifndef GCH_INDEX_READ_H
#define GCH_INDEX_READ_H

#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/index.h"
#include "index_format.h"

struct gch_index {
    const unsigned char *data;
    size_t size;
    uint64_t toc_offset;
    size_t chunk_count;
    const gcx_toc *toc;      /* in data (8-aligned, checked) */
    gcx_dump_rec rec;
    gch_index_stamp stamp;
    const char *dump_name;
    uint32_t heap_count;
    uint32_t *heap_first;    /* the chunks of heap h: by_heap[heap_first[h] .. heap_first[h+1]) */
    uint32_t *by_heap;
    unsigned char *checked;  /* per chunk: 1 checksum verified, 2 values checked */
    unsigned threads;        /* gch_index_set_threads (0: one per core) */
};

#define GCX_SUMMED 1u
#define GCX_VALUES 2u
#define GCX_RISING 4u  /* OIDS: the ids rise in object order (seen on load) */

/* XXH64 (gch_index_hash) in pieces: gcx_hash_stripes takes whole 32-byte
 * stripes (n a multiple of 32), gcx_hash_end the last n % 32 bytes
 * (n: those bytes' count, below 32) and gives the hash of everything. So a
 * chunk's values are checked block by block as it is summed, while the
 * block is in the cache (gcx_get). */
typedef struct gcx_hash {
    uint64_t v[4];
    uint64_t stripes;
} gcx_hash;
void gcx_hash_begin(gcx_hash *s);
void gcx_hash_stripes(gcx_hash *s, const void *data, size_t n);
uint64_t gcx_hash_end(const gcx_hash *s, const void *tail, size_t n);

/* The chunk tag of heap with elem-byte elements, count of them (UINT64_MAX:
 * any count), its checksum verified on first use: *out points at it (NULL
 * when absent and not required: GCH_OK), *pos its table position (may be
 * NULL). Errors name the chunk and its offset. */
gch_status gcx_chunk(gch_index *ix, uint32_t heap, uint32_t tag, unsigned view, uint32_t elem,
                     uint64_t count, int required, const void **out, uint32_t *pos,
                     gch_error *err);

/* gcx_chunk without the checksum when sum is 0 (the caller sums it). */
gch_status gcx_find(gch_index *ix, uint32_t heap, uint32_t tag, unsigned view, uint32_t elem,
                    uint64_t count, int required, int sum, const void **out, uint32_t *pos,
                    gch_error *err);

/* The values of a chunk are checked by a value_check on first use: 1 when
 * all are in bounds, else 0 with *bad_at the first element that is not. */
typedef int (*gcx_value_check)(const void *data, uint64_t count, const void *ctx,
                               uint64_t *bad_at);

/* gcx_chunk, then check (NULL: any value is fine) on the chunk's first use:
 * its data, or NULL with *st set (GCH_OK when absent and not required). */
const void *gcx_get(gch_index *ix, uint32_t heap, uint32_t tag, unsigned view, uint32_t elem,
                    uint64_t count, int required, gcx_value_check check, const void *ctx,
                    gch_status *st, gch_error *err);

/* One gcx_get to run beside the caller's own (gcx_get_beside). */
typedef struct gcx_get_job {
    uint32_t heap, tag, elem;
    unsigned view;
    uint64_t count;
    int required;
    gcx_value_check check;
    const void *ctx;
    const void *out;         /* gcx_get's answer */
    gch_status st;
    gch_error err;
    struct gch_task *task;   /* gcx_get_beside's, until the join */
    void *arg;
    int ran;                 /* it ran in gcx_get_beside (no thread to be had) */
} gcx_get_job;

/* Starts job's gcx_get on a second thread when the index has two threads and
 * the chunk is big enough to pay for one (else it runs in gcx_get_join); the
 * caller checks other chunks meanwhile (ix->checked has a byte per chunk).
 * gcx_get_join waits: the chunk, or NULL with *st and *err from the job. */
void gcx_get_beside(gch_index *ix, gcx_get_job *job);
const void *gcx_get_join(gch_index *ix, gcx_get_job *job, gch_status *st, gch_error *err);

/* A caller's error kept aside and put back (err may be NULL: nothing). */
static inline void gcx_error_keep(gch_error *to, const gch_error *err)
{
    if (err)
        *to = *err;
    else
        gch_error_clear(to);
}
static inline void gcx_error_put(gch_error *err, const gch_error *from)
{
    if (err)
        *err = *from;
}

/* Value checks shared by the model and the derived chunks. */
typedef struct gcx_limit32 {
    uint32_t below;          /* every value < below ... */
    int none_ok;             /* ... or GCH_NONE when set */
} gcx_limit32;
int gcx_below32(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at);
/* Strictly rising values, each below *(const uint32_t *)ctx (the object
 * count): big-size objects, the path tree's root objects. */
int gcx_rising_below32(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at);
/* The id order: every object index of the gch_heap *ctx (whose object_id is
 * loaded), by strictly rising id (so the ids are distinct). */
int gcx_ids_sorted(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at);
/* Path parents: below *(const uint32_t *)ctx, GCH_PATH_ROOT or GCH_NONE. */
int gcx_parents_below(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at);
/* CSR starts: from 0, never falling, ending at refs; ctx a gcx_csr_ctx
 * (written: the check runs in pieces), made with gcx_csr_ctx_of. */
typedef struct gcx_csr_ctx {
    uint64_t refs, total;    /* the reference count; the starts' count */
    uint64_t seen;           /* starts checked so far */
    uint32_t last;           /* the last of them */
} gcx_csr_ctx;
static inline gcx_csr_ctx gcx_csr_ctx_of(uint64_t refs, uint64_t starts)
{
    gcx_csr_ctx c = { refs, starts, 0, 0 };
    return c;
}
int gcx_csr_starts(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at);

/* What a dump loaded from an index keeps until it is freed: the index, the
 * arrays derived from its chunks, the caller's release hook. */
typedef struct gcx_keep gcx_keep;
gcx_keep *gcx_keep_new(gch_index *ix, gch_dump *d, int labels, void (*release)(void *),
                       void *release_ctx);
/* The reference chunks of heap hi, checked, into h (labels: with them). */
gch_status gcx_load_refs(gch_index *ix, uint32_t hi, gch_heap *h, int labels, int reverse,
                         gch_error *err);
void gcx_keep_release(void *keep);
/* Checks every derived chunk of heap hi (as the source would on first use). */
gch_status gcx_check_derived(gch_index *ix, uint32_t hi, const gch_heap *h, gch_error *err);

/* Retained sizes in preorder (index_derived.c) into ret (live + 1 slots,
 * zeroed), from the immediate dominators' positions pid (each below its
 * own, or GCH_DOM_VROOT) and the shallow sizes psz (GCH_SIZE_BIG: h's big
 * size of the object pre[i]); the roots' total in ret[live], returned too
 * (sums wrap modulo 2^64). One pass from the end. */
uint64_t gcx_retained(const uint32_t *pre, const uint32_t *pid, const uint32_t *psz,
                      uint64_t live, const gch_heap *h, uint64_t *ret);

#endif
