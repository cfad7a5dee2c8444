/* The radix sort: see radix_sort.h. */
#include "radix_sort.h"

#include <string.h>

void gch_radix_sort_u64(uint64_t *key, uint32_t *val, size_t n, uint64_t *key_tmp,
                        uint32_t *val_tmp)
{
    uint64_t all_or = 0, all_and = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        all_or |= key[i];
        all_and &= key[i];
    }
    uint64_t *from = key, *to = key_tmp;
    uint32_t *vfrom = val, *vto = val_tmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if ((((all_or ^ all_and) >> shift) & 0xff) == 0)
            continue; /* every key has the same byte here */
        size_t count[256] = { 0 };
        for (size_t i = 0; i < n; i++)
            count[(from[i] >> shift) & 0xff]++;
        size_t at = 0;
        for (unsigned d = 0; d < 256; d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        if (vfrom) {
            for (size_t i = 0; i < n; i++) {
                size_t j = count[(from[i] >> shift) & 0xff]++;
                to[j] = from[i];
                vto[j] = vfrom[i];
            }
        } else {
            for (size_t i = 0; i < n; i++)
                to[count[(from[i] >> shift) & 0xff]++] = from[i];
        }
        uint64_t *t = from;
        from = to;
        to = t;
        uint32_t *vt = vfrom;
        vfrom = vto;
        vto = vt;
    }
    if (from != key) {
        memcpy(key, from, n * sizeof *key);
        if (val)
            memcpy(val, vfrom, n * sizeof *val);
    }
}
