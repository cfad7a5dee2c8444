/* The library's one radix sort (internal): 64-bit keys in increasing order,
 * stable, each carrying a 32-bit value along when there are values. Least
 * significant byte first, skipping the bytes every key shares (the high
 * bytes of addresses), so a sort costs a pass per byte that differs; no
 * comparisons (qsort's took longer than the walks they served: the roots
 * checked against the ids seen, the candidates of `waste`'s duplicates). */
#ifndef GCHEAP_RADIX_SORT_H
#define GCHEAP_RADIX_SORT_H

#include <stddef.h>
#include <stdint.h>

/* Sorts key[0..n) and, when val is not NULL, moves val[i] with key[i].
 * key_tmp (and val_tmp with val) are n entries of scratch. */
void gch_radix_sort_u64(uint64_t *key, uint32_t *val, size_t n, uint64_t *key_tmp,
                        uint32_t *val_tmp);

#endif
