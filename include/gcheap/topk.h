/* gcheap/topk.h - the k best of n candidates, with a bounded heap.
 *
 * The one top-k selection of gcheap (the dominator summary, `top`): O(n log k)
 * time, k slots of memory, and most candidates rejected by one comparison
 * with the worst kept. Candidates are the numbers 0..n-1; the caller ranks
 * them.
 */
#ifndef GCHEAP_TOPK_H
#define GCHEAP_TOPK_H

#include <stddef.h>
#include <stdint.h>

/* Whether candidate a ranks before (is better than) candidate b. A strict
 * total order: for a != b exactly one of before(a, b), before(b, a). */
typedef int (*gch_rank_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Selects the best min(k, n) of the candidates 0..n-1 into best[] (room for
 * min(k, n) entries), in heap order: best[0] is the worst kept. Returns how
 * many were kept. */
size_t gch_top_k(uint32_t n, size_t k, gch_rank_fn before, const void *ctx, uint32_t *best);

/* gch_top_k where each candidate c has a key[c] that before() agrees with
 * (key[a] > key[b] means before(a, b); before(a, b) means key[a] >=
 * key[b]): a candidate whose key is below the worst kept's is rejected
 * without a call to before(). The same best[] as gch_top_k. */
size_t gch_top_k_keyed(uint32_t n, size_t k, const uint64_t *key, gch_rank_fn before,
                       const void *ctx, uint32_t *best);

/* Sorts best[0..count), as gch_top_k left it, best first, in place. */
void gch_top_k_sort(uint32_t *best, size_t count, gch_rank_fn before, const void *ctx);

#endif
