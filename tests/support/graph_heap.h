/* Test helpers for the graph algorithms: heaps made directly (no builder, so
 * that 10-million-object shapes build in milliseconds) and an allocator that
 * counts, measures and fails on demand. */
#ifndef GCHEAP_TEST_GRAPH_HEAP_H
#define GCHEAP_TEST_GRAPH_HEAP_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/heap.h"

/* A dump with one heap of n objects (ids i+1, type 0, size 0), `types` types
 * named "T0", "T1", ..., `roots` root records (all GCH_NONE, kind 0, flags 0)
 * and room for `refs` references: out_start is all zero, out_target has refs
 * slots (fill both, or use th_set_edges). Aborts on allocation failure. Free
 * with gch_dump_free. */
gch_dump *th_dump_new(uint32_t n, uint32_t types, uint32_t roots, uint64_t refs);

/* Sets the size of object i of a heap made by th_dump_new (sizes of 2^32 - 1
 * and more go to the heap's big sizes, as the builder keeps them). */
void th_set_size(gch_heap *h, uint32_t i, uint64_t size);

/* Replaces the references of h with the m edges src[k] -> dst[k], keeping for
 * each source the order of the list. */
void th_set_edges(gch_heap *h, const uint32_t *src, const uint32_t *dst, size_t m);

/* Counting allocator (installed with gch_set_allocator). fail_at: the index
 * (0-based) of the allocation that fails, or -1 for none. */
void th_alloc_install(long fail_at);
void th_alloc_uninstall(void);
long th_alloc_calls(void);         /* allocations (malloc and realloc) since install */
size_t th_alloc_live_blocks(void); /* blocks currently allocated through it */
size_t th_alloc_live_bytes(void);
size_t th_alloc_peak_bytes(void);  /* highest live_bytes since install or reset */
void th_alloc_reset_peak(void);

/* Deterministic PRNG (xorshift64*). */
typedef struct th_rng {
    uint64_t s;
} th_rng;
uint64_t th_rand(th_rng *r);
uint32_t th_below(th_rng *r, uint32_t bound); /* uniform-ish in [0, bound) */

/* A random heap for oracle tests: 1..max_n objects, 1..4 types, sizes 0..99,
 * up to 3 references per object on average (self-references, cycles, repeated
 * edges, shared subgraphs), 0..6 root records (some naming GCH_NONE, some
 * weak, repeated objects, random kinds). Free with gch_dump_free. */
gch_dump *th_random_dump(th_rng *r, uint32_t max_n);

#endif
