/* gcheap/graph.h - reachability, dominator tree, retained sizes, paths to roots.
 *
 * The dominator tree lives in gcheap/dominators.h and the paths to roots in
 * gcheap/paths.h; both are included here.
 *
 * All algorithms are iterative (explicit stacks/queues): heaps have reference
 * chains tens of millions long. Strong roots are root records without
 * GCH_ROOT_WEAK; with include_weak every root counts.
 */
#ifndef GCHEAP_GRAPH_H
#define GCHEAP_GRAPH_H

#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"
#include "gcheap/dominators.h"
#include "gcheap/paths.h"

/* Marks every object reachable from the (strong) roots: live[i] = 1 when object i
 * is live, else 0. *live_out is allocated with gch_malloc (free with gch_free);
 * with live_out NULL only the totals are computed (less memory and time).
 * *live_count / *live_bytes (may be NULL) receive the totals. GCH_ENOMEM on failure. */
gch_status gch_live_set(const gch_heap *heap, int include_weak, uint8_t **live_out,
                        uint64_t *live_count, uint64_t *live_bytes, gch_error *err);

/* What gch_live_set_ex() does; a zeroed struct is the default (strong roots
 * only, threads as the machine has). */
typedef struct gch_live_options {
    int include_weak; /* nonzero: weak roots count as roots too */
    /* Threads the marking may use, the caller's included: 0 as many as the
     * machine has processors, at most 2; 1 creates no thread. The result is
     * the same whatever the count. */
    unsigned threads;
} gch_live_options;

/* gch_live_set() with options (NULL: the defaults); same outputs, errors and
 * ownership. */
gch_status gch_live_set_ex(const gch_heap *heap, const gch_live_options *opts, uint8_t **live_out,
                           uint64_t *live_count, uint64_t *live_bytes, gch_error *err);

/* objsize (SOS semantics): the objects reachable from starts[0..start_count-1]
 * by following references, the starts included, each counted once, whatever
 * the roots (liveness plays no part). With several starts (e.g. every instance
 * of a type) the result is the union.
 *
 * *count / *bytes (may be NULL) receive the number and total shallow size of
 * those objects. per_type_count / per_type_bytes (each may be NULL; else
 * heap->type_count entries owned by the caller, overwritten) receive the same
 * broken down by type. Memory: 1 bit per object plus a stack of up to 4 bytes
 * per reached object.
 *
 * Returns GCH_OK, GCH_EINVAL when a start is out of range or the heap's
 * references were not loaded, or GCH_ENOMEM (outputs unspecified, nothing
 * stays allocated). */
gch_status gch_objsize(const gch_heap *heap, const uint32_t *starts, size_t start_count,
                       uint64_t *count, uint64_t *bytes, uint64_t *per_type_count,
                       uint64_t *per_type_bytes, gch_error *err);

#endif
