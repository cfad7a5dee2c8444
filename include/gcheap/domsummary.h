/* gcheap/domsummary.h - a bounded summary of the dominator tree, for pictures.
 *
 * A heap's dominator tree has one node per live object: far too many to draw
 * or to embed in a report. The summary keeps the max_objects live objects that
 * retain the most (ranked by retained size, biggest first, ties by preorder
 * position: since an object retains at least what any object it dominates
 * retains and comes before it in preorder, the kept set is closed upwards, a
 * subtree hanging from the virtual root). Under each kept node, the children
 * that were not kept are merged into one node "(N smaller objects)" carrying
 * their number and total retained size, so every node's retained size is
 * still its own size plus its children's.
 *
 * Built from a tree in preorder only with preorder_idom (gcheap/dominators.h):
 * two passes over the live objects plus O(max_objects log max_objects); no
 * recursion (dominator chains are millions long).
 */
#ifndef GCHEAP_DOMSUMMARY_H
#define GCHEAP_DOMSUMMARY_H

#include <stdint.h>
#include "gcheap/dominators.h"
#include "gcheap/error.h"

typedef struct gch_dom_summary {
    /* Nodes 0..node_count-1. Node 0 is the virtual root. Then the kept
     * objects in preorder, then the merged nodes ordered by their parent;
     * every node comes after its parent. */
    uint32_t node_count;
    uint32_t kept_count;   /* kept objects: nodes 1..kept_count */
    uint32_t *parent;      /* parent node; GCH_NONE for node 0 */
    uint32_t *object;      /* object index; GCH_NONE for node 0 and merged nodes */
    uint64_t *retained;    /* retained bytes; node 0: the live bytes; a merged
                              node: the sum over the objects it stands for */
    uint64_t *merged;      /* a merged node: how many dominator-tree children
                              of its parent it stands for; 0 for the others */
} gch_dom_summary;

/* Summarises t into *out, keeping at most max_objects objects (at most
 * 2 * max_objects + 2 nodes, merged ones included).
 *
 * t: a tree built with preorder_only and preorder_idom; not changed.
 * out: receives arrays allocated with the library's allocator, owned by *out
 *   (free with gch_dom_summary_free).
 *
 * Memory while it runs: 1 bit per live object plus 4 bytes per live object
 * reserved but written only at the kept ones, plus O(max_objects).
 *
 * Returns GCH_OK; GCH_EINVAL when t has no preorder_idom; GCH_ENOMEM. On
 * failure *out is zeroed and nothing stays allocated. */
gch_status gch_dom_summary_build(const gch_domtree *t, uint32_t max_objects,
                                 gch_dom_summary *out, gch_error *err);

/* Frees the arrays of s and zeroes it. NULL and a zeroed summary are allowed. */
void gch_dom_summary_free(gch_dom_summary *s);

#endif
