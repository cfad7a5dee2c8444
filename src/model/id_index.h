/* Lookup of object ids that arrive in strictly increasing order (dumps list
 * objects by address). Two forms, chosen when built:
 * - a bucket directory over the id range, then a binary search inside one
 *   bucket. Built in one sequential pass, 4 bytes per bucket; O(1) expected,
 *   O(log n) worst case whatever the spread of the ids.
 * - a rank bitmap, when the ids are dense enough that it is no bigger than the
 *   directory: one bit per possible id ((id - min) >> shift, where every id
 *   has the same low shift bits as min: addresses are aligned), in 64-byte
 *   lines that also hold the number of ids before each word. A lookup reads
 *   one line, so a far reference costs one cache miss where the directory
 *   costs two (its bucket, then the ids), and no search. */
#ifndef GCHEAP_ID_INDEX_H
#define GCHEAP_ID_INDEX_H

#include <stdint.h>
#include "gcheap/error.h"
#include "threading.h"
#include "search.h"

/* A line of the rank bitmap: 384 possible ids, one cache line. */
enum { ID_RANK_WORDS = 6, ID_RANK_BITS = 64 * ID_RANK_WORDS };
typedef struct id_rank_line {
    uint32_t base;                   /* ids in the lines before */
    uint16_t before[ID_RANK_WORDS];  /* ids in this line's words before word k */
    uint64_t word[ID_RANK_WORDS];    /* bit (position % 384) of word (position % 384) / 64 */
} id_rank_line;

typedef struct id_index {
    const uint64_t *ids;   /* strictly increasing, not owned */
    uint32_t count;
    uint64_t min, max;
    unsigned shift;        /* directory: id -> bucket; rank: id -> bit position */
    uint32_t bucket_count;
    uint32_t *first;       /* directory (NULL in the rank form): bucket_count + 2
                              entries: first index of each bucket; the last two
                              are count (bucket_count is empty: see resolve.c) */
    id_rank_line *rank;    /* rank form (NULL in the directory form), 64-byte aligned */
    void *rank_mem;        /* its allocation */
} id_index;

/* The number of set bits of w (portable: no popcount instruction assumed). */
static inline unsigned id_index_popcount(uint64_t w)
{
    w = w - ((w >> 1) & 0x5555555555555555ull);
    w = (w & 0x3333333333333333ull) + ((w >> 2) & 0x3333333333333333ull);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (unsigned)((w * 0x0101010101010101ull) >> 56);
}

/* The rank form's bit position of id, or UINT64_MAX when no id can be there
 * (outside [min, max], or other low bits than min's). */
static inline uint64_t id_rank_position(const id_index *ix, uint64_t id)
{
    uint64_t d = id - ix->min;
    if (id < ix->min || d > ix->max - ix->min || (d & ((((uint64_t)1) << ix->shift) - 1)))
        return UINT64_MAX;
    return d >> ix->shift;
}

/* The index of the id at bit position p (< UINT64_MAX), or UINT32_MAX. */
static inline uint32_t id_rank_index(const id_index *ix, uint64_t p)
{
    const id_rank_line *line = &ix->rank[p / ID_RANK_BITS];
    unsigned off = (unsigned)(p % ID_RANK_BITS), k = off / 64, bit = off % 64;
    uint64_t w = line->word[k];
    if (!((w >> bit) & 1))
        return UINT32_MAX;
    return line->base + line->before[k] + id_index_popcount(w & ((((uint64_t)1) << bit) - 1));
}

/* Target ids per bucket: fewer make a bigger directory with shorter searches. */
#ifndef ID_INDEX_IDS_PER_BUCKET
#define ID_INDEX_IDS_PER_BUCKET 1
#endif

/* lookups: about how many lookups will follow (sizes the directory); par:
 * how many threads may fill it. */
gch_status id_index_build(id_index *ix, const uint64_t *ids, uint32_t count, uint64_t lookups,
                          const gch_parallel *par, gch_error *err);
void id_index_free(id_index *ix);

static inline uint32_t id_index_find(const id_index *ix, uint64_t id)
{
    if (ix->count == 0 || id < ix->min || id > ix->max)
        return UINT32_MAX;
    if (ix->rank) {
        uint64_t p = id_rank_position(ix, id);
        return p == UINT64_MAX ? UINT32_MAX : id_rank_index(ix, p);
    }
    uint64_t b = (id - ix->min) >> ix->shift;
    uint32_t lo = (uint32_t)GCH_LOWER_BOUND(ix->ids, ix->first[b], ix->first[b + 1], id);
    return lo < ix->count && ix->ids[lo] == id ? lo : UINT32_MAX;
}

/* Like id_index_find, but first gallops outward from index hint: references
 * mostly point near their referrer, and those ids sit in cache lines the
 * previous lookups just touched. */
static inline uint32_t id_index_find_near(const id_index *ix, uint32_t hint, uint64_t id)
{
    const uint64_t *ids = ix->ids;
    uint32_t lo, hi; /* the id, if present, is in [lo, hi) */
    if (ids[hint] == id)
        return hint;
    if (ids[hint] < id) {
        uint32_t prev = hint, step = 1;
        for (;;) {
            if (step > 64)
                return id_index_find(ix, id);
            uint64_t probe = (uint64_t)hint + step;
            if (probe >= ix->count) {
                hi = ix->count;
                break;
            }
            if (ids[probe] >= id) {
                hi = (uint32_t)probe + 1;
                break;
            }
            prev = (uint32_t)probe;
            step <<= 1;
        }
        lo = prev + 1;
    } else {
        uint32_t prev = hint, step = 1;
        for (;;) {
            if (step > 64)
                return id_index_find(ix, id);
            if (step > hint) {
                lo = 0;
                break;
            }
            uint32_t probe = hint - step;
            if (ids[probe] <= id) {
                lo = probe;
                break;
            }
            prev = probe;
            step <<= 1;
        }
        hi = prev;
    }
    lo = (uint32_t)GCH_LOWER_BOUND(ids, lo, hi, id);
    return lo < ix->count && ids[lo] == id ? lo : UINT32_MAX;
}

#endif
