/* Sorted-id directory: see id_index.h. */
#include "id_index.h"

#include <threads.h>

#include "gcheap/alloc.h"
#include "tuning.h"

/* Fills first[b] for the buckets [lo, hi], walking the ids from index i (the
 * first id of bucket lo or later). */
typedef struct fill_job {
    id_index *ix;
    uint32_t lo, hi, i;
} fill_job;

static int fill_buckets(void *arg)
{
    const fill_job *j = arg;
    const uint64_t *ids = j->ix->ids, min = j->ix->min;
    const uint32_t count = j->ix->count;
    const unsigned shift = j->ix->shift;
    uint32_t *first = j->ix->first, i = j->i;
    for (uint32_t b = j->lo;; b++) {
        while (i < count && ((ids[i] - min) >> shift) < b)
            i++;
        first[b] = i;
        if (b == j->hi)
            return 0;
    }
}

/* The index of the first id in bucket b or later, searched from index from
 * on (no id before from is in bucket b or later). It gallops forward before
 * bisecting: filling buckets in order, the answer is near from, in memory the
 * previous search brought into the cache. */
static uint32_t bucket_start(const id_index *ix, uint32_t b, uint32_t from)
{
    uint32_t lo = from, hi = ix->count;
    for (uint64_t step = 1;; step *= 2) {
        uint64_t at = (uint64_t)lo + step - 1;
        if (at >= ix->count)
            break;
        if (((ix->ids[at] - ix->min) >> ix->shift) >= b) {
            hi = (uint32_t)at;
            break;
        }
        lo = (uint32_t)at + 1;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (((ix->ids[mid] - ix->min) >> ix->shift) < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

gch_status id_index_build(id_index *ix, const uint64_t *ids, uint32_t count, uint64_t lookups,
                          gch_error *err)
{
    ix->ids = ids;
    ix->count = count;
    ix->first = NULL;
    ix->min = count ? ids[0] : 0;
    ix->max = count ? ids[count - 1] : 0;
    /* About one bucket per ID_INDEX_IDS_PER_BUCKET ids; fewer when only a few
     * lookups will follow (roots only): then the directory is cheap to build. */
    uint64_t want = count / ID_INDEX_IDS_PER_BUCKET;
    if (lookups < want)
        want = lookups;
    uint32_t buckets = 2;
    while (buckets < want && buckets < (1u << 31))
        buckets <<= 1;
    uint64_t range = ix->max - ix->min;
    unsigned shift = 0;
    while (shift < 64 && (range >> shift) >= buckets)
        shift++;
    ix->shift = shift;
    ix->bucket_count = buckets;
    /* + 2: bucket `buckets` is an empty one, for ids outside [min, max]. */
    ix->first = gch_reallocarray(NULL, (size_t)buckets + 2, sizeof *ix->first);
    if (!ix->first)
        return gch_error_set(err, GCH_ENOMEM, "out of memory indexing object ids");
    ix->first[buckets + 1] = count;
    if ((uint64_t)buckets * 32 < count) {
        /* Sparse directory: binary-search each bucket's start instead of
         * walking every id. */
        uint32_t at = 0;
        for (uint32_t b = 0; b <= buckets; b++)
            ix->first[b] = at = bucket_start(ix, b, at);
        return GCH_OK;
    }
    /* A big directory is filled by two threads, each walking its half of the
     * buckets (and of the new pages). */
    fill_job low = { ix, 0, buckets, 0 };
    if (lookups >= gch_tuning_knobs.parallel_min_refs && buckets >= 4) {
        uint32_t mid = buckets / 2;
        fill_job high = { ix, mid, buckets, bucket_start(ix, mid, 0) };
        low.hi = mid - 1;
        thrd_t t;
        if (thrd_create(&t, fill_buckets, &high) == thrd_success) {
            fill_buckets(&low);
            thrd_join(t, NULL);
            return GCH_OK;
        }
        low.hi = buckets;
    }
    fill_buckets(&low);
    return GCH_OK;
}

void id_index_free(id_index *ix)
{
    gch_free(ix->first);
    ix->first = NULL;
}
