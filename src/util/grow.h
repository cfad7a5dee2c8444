/* The library's one growth rule for arrays built by appending: capacity
 * doubles from `first`, with overflow checked. Internal. */
#ifndef GCHEAP_GROW_H
#define GCHEAP_GROW_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/alloc.h"

/* Grows *p (elements of elem bytes, capacity *cap) to hold at least need.
 * Returns 1, or 0 when the allocation fails or the size would overflow
 * (then *p and *cap are unchanged). */
static inline int gch_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 1;
    size_t ncap = *cap ? *cap : first;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return 0;
        ncap *= 2;
    }
    void *np = gch_reallocarray(*p, ncap, elem);
    if (!np)
        return 0;
    *p = np;
    *cap = ncap;
    return 1;
}

#endif
