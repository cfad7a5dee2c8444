/* Sorted-id directory: see id_index.h. */
#include "id_index.h"

#include "gcheap/alloc.h"

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
    ix->first = gch_reallocarray(NULL, (size_t)buckets + 1, sizeof *ix->first);
    if (!ix->first)
        return gch_error_set(err, GCH_ENOMEM, "out of memory indexing object ids");
    if ((uint64_t)buckets * 32 < count) {
        /* Sparse directory: binary-search each bucket's start instead of
         * walking every id. */
        for (uint32_t b = 0; b <= buckets; b++) {
            uint32_t lo = 0, hi = count;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (((ids[mid] - ix->min) >> shift) < b)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            ix->first[b] = lo;
        }
        return GCH_OK;
    }
    uint32_t i = 0;
    for (uint32_t b = 0; b <= buckets; b++) {
        while (i < count && ((ids[i] - ix->min) >> shift) < b)
            i++;
        ix->first[b] = i;
    }
    return GCH_OK;
}

void id_index_free(id_index *ix)
{
    gch_free(ix->first);
    ix->first = NULL;
}
