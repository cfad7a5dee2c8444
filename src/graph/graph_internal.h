/* Helpers shared by the graph algorithms (dominators.c, retained.c, paths.c,
 * objsize.c, graph_sort.c). Internal: not part of the public headers. */
#ifndef GCHEAP_GRAPH_INTERNAL_H
#define GCHEAP_GRAPH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/alloc.h"
#include "gcheap/heap.h"

/* Whether root record r counts: it names an object and is strong (or weak
 * roots are included). */
static inline int gch__root_counts(const gch_heap *h, uint32_t r, int include_weak)
{
    uint32_t o = h->root_object[r];
    return o != GCH_NONE && o < h->object_count &&
           (include_weak || !(h->root_flags[r] & GCH_ROOT_WEAK));
}

/* Paths start at the roots in two tiers: every root but the stack's first,
 * then stack roots (GCH_ROOT_LOCAL) for what the others do not reach. A
 * stack local is transient: where a static or a global also holds an object,
 * that is the path an engineer can act on (LeakCanary's PathFinder visits
 * java-local roots last for the same reason). 0 or 1. */
static inline int gch__root_tier(const gch_heap *h, uint32_t r)
{
    return h->root_kind[r] == GCH_ROOT_LOCAL;
}

/* Bit sets of (n+7)/8 bytes. */
static inline int gch__bit_get(const uint8_t *bits, uint32_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}

static inline void gch__bit_set(uint8_t *bits, uint32_t i)
{
    bits[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* Room for one more push on a growing stack of sp items out of *cap: doubles
 * it when full. 0 when that memory cannot be had (the stack is kept as it is). */
static inline int gch__stack_room(uint32_t **stack, size_t *cap, size_t sp)
{
    if (sp != *cap)
        return 1;
    uint32_t *ns = gch_reallocarray(*stack, *cap * 2, sizeof **stack);
    if (!ns)
        return 0;
    *stack = ns;
    *cap *= 2;
    return 1;
}

/* Whether a reference's field label names an array element: "[3]" or "3"
 * (paths.c; merged paths and leaks fold such fields). */
int gch__index_label(const char *s);

/* Nonzero when element a must come before element b. Must be a strict total
 * order on the elements sorted (break ties, e.g. by index) so that the result
 * does not depend on the algorithm. */
typedef int (*gch__before_fn)(const void *ctx, uint32_t a, uint32_t b);

/* Sorts a[0..n-1] in place: insertion sort for short arrays, heapsort
 * otherwise. No recursion, no allocation; O(n log n). */
void gch__sort_u32(uint32_t *a, size_t n, gch__before_fn before, const void *ctx);

/* Sorts every list of a CSR, list k being items[start[k] .. start[k+1]-1]
 * (k < lists), by key[item] descending, ties by ascending item. Each list
 * must already be in ascending item order; items are < item_limit.
 * Packs (key, item) into 64 bits and sorts the packed values: insertion sort
 * for short lists, LSD radix sort (8-bit digits, only the bits where the
 * keys differ) otherwise; falls back to gch__sort_u32 for a list whose key
 * range and item width do not fit in 64 bits together. O(total + lists);
 * 16 bytes per item of the longest list, freed before returning.
 * Returns 0, or -1 when that allocation fails (the lists are unchanged). */
int gch__sort_lists_by_key_desc(uint32_t *items, const uint32_t *start, size_t lists,
                                const uint64_t *key, uint32_t item_limit);

/* Test hook: nonzero makes the dominator build record its cross and back
 * edges as plain pairs, as it does on heaps of 2^31 or more live objects
 * (dominators.c). Not thread-safe: set it between builds. */
void gch__domtree_force_wide_pairs(int on);

/* The shortest-path tree of a view when the analysis has it without a
 * search (computed before, or its source's): *out, else NULL. */
struct gch_analysis;
struct gch_paths;
void gch__analysis_paths_ready(struct gch_analysis *a, const gch_heap *heap, int include_weak,
                               const struct gch_paths **out);

/* A shortest-path tree of the view for a few paths read back: the one the
 * analysis has, else its source's parents without the witness of their
 * acyclicity (so a caller bounds each walk up the parents by the object
 * count), else NULL. */
void gch__analysis_parents_ready(struct gch_analysis *a, const gch_heap *heap, int include_weak,
                                 const struct gch_paths **out);

/* The depth of x in p, or GCH_NONE when x is not reached or the walk up
 * its parents does not end at a root within the object count (parents
 * read without the witness of their acyclicity: a damaged index). */
uint32_t gch__paths_bounded_depth(const struct gch_paths *p, uint32_t x);

/* Whether gch__analysis_paths_ready may find that tree (it has it, or its
 * source has not yet been asked), without reading anything. */
int gch__analysis_paths_may_be_ready(struct gch_analysis *a, const gch_heap *heap,
                                     int include_weak);

/* The references of heap, read now when the analysis's source deferred
 * them (an index loaded with GCH_INDEX_REFS_LATER): before a walk of
 * heap->out_start/out_target outside the analysis (the suspects' BFS). */
gch_status gch__analysis_refs(struct gch_analysis *a, const gch_heap *heap, gch_error *err);

#endif
