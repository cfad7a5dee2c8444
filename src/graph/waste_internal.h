/* Shared state of the waste sections (waste.c, waste_dups.c,
 * waste_fields.c). Internal. */
#ifndef GCHEAP_WASTE_INTERNAL_H
#define GCHEAP_WASTE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/heap.h"
#include "gcheap/waste.h"

#define WASTE_WINDOW ((size_t)1 << 20) /* bytes read at a time, in offset order */

typedef struct wctx {
    gch_heap *h;
    const gch_waste_options *o;
    gch_error *err;
    uint64_t min_count;
    double fill_below;
    uint64_t hash_mask;      /* tuning.h waste_hash_mask, or all ones */
    uint32_t *pidx;          /* payload index -> object index (GCH_NONE: not an object) */
    gch_waste_row *rows;
    size_t count, cap;
    /* The read window: buf holds len bytes of the file from off. */
    unsigned char *buf;
    uint64_t off;
    size_t len;
    uint64_t limit;          /* no read goes past this (the last payload's end) */
} wctx;

/* Whether object o (an index, GCH_NONE allowed) is one the caller asked about. */
static inline int waste_wanted(const wctx *w, uint32_t o)
{
    return o != GCH_NONE && (!w->o->mask || w->o->mask[o]);
}

/* The object of payload entry p (GCH_NONE when no object holds its id). */
static inline uint32_t waste_object_of(const wctx *w, const gch_payload *p)
{
    return p ? w->pidx[p - w->h->payloads] : GCH_NONE;
}

/* Points *p at the file's bytes [pos, pos + n) (n <= WASTE_WINDOW), reading
 * a window from pos when they are not in the current one. GCH_OK, or GCH_EIO
 * with the error set. */
gch_status waste_window(wctx *w, uint64_t pos, size_t n, const unsigned char **p);
/* Reads n bytes at pos directly (random access). */
gch_status waste_read(wctx *w, uint64_t pos, void *buf, size_t n);

/* Appends a row (zeroed but for kind); NULL when out of memory (error set). */
gch_waste_row *waste_row(wctx *w, unsigned kind);

/* The sections. */
gch_status waste_duplicates(wctx *w);
gch_status waste_fields(wctx *w, gch_waste *out);
gch_status waste_js_collections(wctx *w);
/* How the texts of a format are grouped (waste_text.c). */
typedef struct waste_text_rule {
    int utf16_length;    /* a row's length in UTF-16 code units (V8, Dart), else bytes (Ruby) */
    uint64_t max_units;  /* texts of this many UTF-16 code units or more are not grouped
                            (V8: it may have cut them); 0: no limit */
} waste_text_rule;
/* Duplicate strings from the texts kept in the heap's pool (GCH_PAYLOAD_TEXT
 * entries without GCH_TEXT_* flags; pidx mapped): Ruby, V8, Dart. */
gch_status waste_text_groups(wctx *w, const waste_text_rule *rule);
/* Dart: empty and under-filled lists, maps and sets and zero-length arrays
 * from the recorded lengths (GCH_PAYLOAD_LENGTH; pidx mapped). */
gch_status waste_dart_lengths(wctx *w);
/* Each empty-collection row's most frequent (holder type, field), from the
 * referrers of the empty collections empties[0..n-1]. */
gch_status waste_find_holders(wctx *w, const uint32_t *empties, size_t n);

/* A big-endian value of n (<= 8) bytes. */
static inline uint64_t waste_be(const unsigned char *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v = v << 8 | p[i];
    return v;
}

#endif
