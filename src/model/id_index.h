/* Lookup of object ids that arrive in strictly increasing order (dumps list
 * objects by address): a bucket directory over the id range, then a binary
 * search inside one bucket. Built in one sequential pass, 4 bytes per bucket;
 * O(1) expected, O(log n) worst case whatever the spread of the ids. */
#ifndef GCHEAP_ID_INDEX_H
#define GCHEAP_ID_INDEX_H

#include <stdint.h>
#include "gcheap/error.h"
#include "threading.h"

typedef struct id_index {
    const uint64_t *ids;   /* strictly increasing, not owned */
    uint32_t count;
    uint64_t min, max;
    unsigned shift;
    uint32_t bucket_count;
    uint32_t *first;       /* bucket_count + 2 entries: first index of each bucket; the
                              last two are count (bucket_count is empty: see resolve.c) */
} id_index;

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
    uint64_t b = (id - ix->min) >> ix->shift;
    uint32_t lo = ix->first[b], hi = ix->first[b + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ix->ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
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
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < ix->count && ids[lo] == id ? lo : UINT32_MAX;
}

#endif
