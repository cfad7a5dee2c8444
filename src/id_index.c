/* Sorted-id directory: see id_index.h. */
#include "id_index.h"

#include "gcheap/alloc.h"

gch_status id_index_build(id_index *ix, const uint64_t *ids, uint32_t count, gch_error *err)
{
    ix->ids = ids;
    ix->count = count;
    ix->first = NULL;
    ix->min = count ? ids[0] : 0;
    ix->max = count ? ids[count - 1] : 0;
    uint32_t buckets = 2;
    while (buckets < count && buckets < (1u << 31))
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
