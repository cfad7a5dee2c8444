/* gcheap/graph.h - reachability, dominator tree, retained sizes, paths to roots.
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

/* Marks every object reachable from the (strong) roots: live[i] = 1 when object i
 * is live, else 0. *live_out is allocated with gch_malloc (free with gch_free).
 * *live_count / *live_bytes (may be NULL) receive the totals. GCH_ENOMEM on failure. */
gch_status gch_live_set(const gch_heap *heap, int include_weak, uint8_t **live_out,
                        uint64_t *live_count, uint64_t *live_bytes, gch_error *err);

#endif
