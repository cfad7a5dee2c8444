/* search.h - the one binary search of the library (internal to the layers).
 *
 * A lower bound over a range sorted by an unsigned integer key: the key of
 * entry p is the 4- or 8-byte integer at base + p * stride + offset, so one
 * loop serves arrays of integers and arrays of records searched by a member.
 * It is inline: with the constant stride, offset and width the macros pass,
 * the compiler emits the loop a hand-written search would have.
 */
#ifndef GCH_SEARCH_H
#define GCH_SEARCH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint64_t gch__search_key(const unsigned char *at, size_t width)
{
    if (width == 4) {
        uint32_t v;
        memcpy(&v, at, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, at, 8);
    return v;
}

/* The first position p in [lo, hi) whose key is not below key (hi when
 * none). The keys of [lo, hi) must not decrease. */
static inline size_t gch_lower_bound(const void *base, size_t stride, size_t offset, size_t width,
                                     size_t lo, size_t hi, uint64_t key)
{
    while (lo < hi) { /* base is read only here: NULL is fine for an empty range */
        size_t mid = lo + (hi - lo) / 2;
        if (gch__search_key((const unsigned char *)base + mid * stride + offset, width) < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Over an array of uint32_t or uint64_t. */
#define GCH_LOWER_BOUND(arr, lo, hi, key)                                                          \
    gch_lower_bound((arr), sizeof *(arr), 0, sizeof *(arr), (lo), (hi), (key))
/* Over an array of records of type T, by its integer member m. */
#define GCH_LOWER_BOUND_BY(arr, T, m, lo, hi, key)                                                 \
    gch_lower_bound((arr), sizeof(T), offsetof(T, m), sizeof(((T *)0)->m), (lo), (hi), (key))

#endif
