/* gcheap/dominators.h - dominator tree, retained sizes, dominator chains.
 *
 * The dominator tree is computed over a virtual root whose children are the
 * objects named by the strong roots (root records without GCH_ROOT_WEAK; with
 * include_weak every root record counts; records whose root_object is GCH_NONE
 * are ignored; several records may name the same object). Object d dominates v
 * when every path from the virtual root to v passes through d. Objects not
 * reachable from the virtual root are outside the tree: their idom is GCH_NONE
 * and their retained size is 0; they are never reported as retained by
 * anything.
 *
 * Retained size of an object: the sum of the shallow sizes of its dominator
 * subtree, itself included. Retained size of a type: the size of the union of
 * the subtrees of its instances (an instance dominated by another instance of
 * the same type is not counted twice).
 *
 * Algorithm: iterative DFS renumbering in preorder, then Semi-NCA with path
 * compression by pointer reversal (no recursion, no stack), then retained sizes
 * accumulated in reverse preorder. See docs/graph-algorithms.md for costs.
 *
 * Ownership: every array in a gch_domtree belongs to it; free it with
 * gch_domtree_free(). The tree does not reference the heap after it is built.
 *
 * Callers that only need idom and the retained sizes (e.g. a "top retainers"
 * list, or dominator chains) can skip the children lists with
 * gch_domtree_build_ex(): less time and less memory, but then
 * gch_domtree_children() finds no children and gch_type_retained() refuses
 * the tree.
 */
#ifndef GCHEAP_DOMINATORS_H
#define GCHEAP_DOMINATORS_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"

/* The virtual root, as an idom value and as a node for gch_domtree_children().
 * The heap builder never hands out this index to an object. */
#define GCH_DOM_VROOT (UINT32_MAX - 1)

typedef struct gch_domtree {
    uint32_t object_count;  /* the heap's object_count */
    /* Per object: its immediate dominator (an object index), GCH_DOM_VROOT when
     * only the virtual root dominates it (e.g. a root object), or GCH_NONE when
     * it is not reachable from the strong roots. */
    uint32_t *idom;
    /* Per object: retained size in bytes; 0 when not reachable. */
    uint64_t *retained;
    /* Children in the dominator tree, CSR: the children of object o are
     * children[child_start[o] .. child_start[o+1]-1]; those of the virtual root
     * are children[child_start[object_count] .. child_start[object_count+1]-1].
     * child_start has object_count+2 entries. Each list is sorted by retained
     * size, biggest first, ties by ascending object index. Both are NULL when
     * the tree was built without children (gch_domtree_options.children = 0). */
    uint32_t *child_start;
    uint32_t *children;     /* live_count entries */
    uint64_t live_count;    /* objects reachable from the strong roots */
    uint64_t live_bytes;    /* their total shallow size (= retained size of the virtual root) */
    /* Only when built with gch_domtree_options.preorder_only (NULL otherwise):
     * the live objects in DFS preorder (live_count entries; every object comes
     * after its immediate dominator) and, at the same positions, their
     * retained sizes. */
    uint32_t *preorder;
    uint64_t *preorder_retained;
    /* Only when built with gch_domtree_options.preorder_idom (NULL otherwise):
     * at each position of preorder, the position of the immediate dominator
     * (always smaller), or GCH_DOM_VROOT for a child of the virtual root. */
    uint32_t *preorder_idom;
    /* Only from an index (gcheap/index.h), NULL otherwise; borrowed from it,
     * never freed by gch_domtree_free: at each position of preorder, the
     * object's type (when the heap has at most 65,536 types) and its 32-bit
     * size (as gch_heap.object_size32: GCH_SIZE_BIG for a big one). Read in
     * order, they spare a walk in preorder (`gcheap suspects`) the random
     * reads of the per-object arrays. */
    const uint16_t *preorder_type16;
    const uint32_t *preorder_size32;
} gch_domtree;

/* Computes the dominator tree and retained sizes of heap into *out.
 *
 * include_weak: when nonzero, weak roots count as roots too.
 * Uses heap->in_start/in_source when gch_heap_build_reverse() has built them
 * (saving memory); otherwise builds a private predecessor index of the
 * reachable part of the graph, which it frees before returning.
 *
 * Memory above the heap model: a peak of 32 bytes per object (while the
 * retained sizes and the idoms are produced); before that, when the heap has
 * no reverse index, 24 bytes per object plus room for 8 bytes per reference
 * that is not a DFS tree edge, of which only 4 bytes per reachable cross or
 * back edge (a reference to an object numbered earlier by the DFS) and 4 per
 * object with such an edge are written, when that is more; while the children lists are sorted, the result plus 16 bytes per
 * child of the node with most children, when that is more. The result keeps
 * 20 bytes per object. Time O(m log n) worst case, near linear in practice.
 *
 * Returns GCH_OK; GCH_EINVAL when the heap's references were not loaded
 * (skip_refs); GCH_ENOMEM when an allocation fails. On failure *out is zeroed
 * and nothing stays allocated. Free the result with gch_domtree_free().
 *
 * Same as gch_domtree_build_ex() with options { include_weak, 1 }. */
gch_status gch_domtree_build(const gch_heap *heap, int include_weak, gch_domtree *out,
                             gch_error *err);

/* What gch_domtree_build_ex() computes. Start from GCH_DOMTREE_OPTIONS_INIT
 * (the defaults, what gch_domtree_build() does) and change the fields you
 * need: a zeroed struct asks for no children lists. */
typedef struct gch_domtree_options {
    /* Nonzero: weak roots count as roots too (default 0). */
    int include_weak;
    /* Nonzero: build the children lists, child_start and children (default 1).
     * 0: skip them; the tree then has child_start = children = NULL,
     * gch_domtree_children() returns NULL with a count of 0 for every node,
     * and gch_type_retained() returns GCH_EINVAL. idom, retained, live_count,
     * live_bytes and gch_dom_chain() are the same either way. */
    int children;
    /* Nonzero: produce only live_count, live_bytes, preorder and
     * preorder_retained (default 0): idom, retained, child_start and children
     * stay NULL, gch_dom_chain() returns GCH_EINVAL, gch_domtree_children()
     * returns no child. Requires children = 0 (else GCH_EINVAL). For callers
     * that rank live objects by retained size and look up only a few of them
     * (`gcheap top`): the per-object arrays are scattered in object order, a
     * random write per live object, and are skipped. */
    int preorder_only;
    /* Nonzero, with preorder_only: keep the tree itself too, as
     * preorder_idom (default 0). It is computed anyway; keeping it costs 4
     * bytes per live object in the result and one pass over them. For
     * callers that walk the tree in preorder (`gcheap suspects`). */
    int preorder_idom;
    /* Threads the build may use, the caller's included (default 0): 0 as
     * many as the machine has processors, at most 2 (the build splits its
     * steps in two); 1 creates no thread at all. The result is the same
     * whatever the count. */
    unsigned threads;
    /* Called (when not NULL) on the caller's thread as each step of the
     * build ends, with the percent of the build's usual time done so far
     * (increasing, 100 at the end of a successful build), for a progress
     * display; progress_ctx is passed back. */
    void (*progress)(void *ctx, unsigned percent);
    void *progress_ctx;
    /* Nonzero, without preorder_only: keep the preorder arrays too
     * (preorder, preorder_retained, preorder_idom: the same as a build with
     * preorder_only and preorder_idom gives) beside idom, retained and the
     * children lists (default 0): 16 more bytes per live object in the
     * result, so that one build answers every question (gcheap/analysis.h). */
    int keep_preorder;
    /* Nonzero: find the predecessors from the references even when the heap
     * has its reverse index (default 0: use it). Without it the build is
     * faster (docs/performance.md) but peaks 4 bytes per cross or back edge
     * higher; and it does not read heap->in_start/in_source at all, so that
     * another thread may build them meanwhile (gch_analysis_build_views). */
    int ignore_reverse;
} gch_domtree_options;

#define GCH_DOMTREE_OPTIONS_INIT { 0, 1, 0, 0, 0, NULL, NULL, 0, 0 }

/* Computes the dominator tree of heap into *out, like gch_domtree_build(),
 * with options.
 *
 * heap: the heap; read only, not referenced by the result. Its reverse index
 *   is used when present, as gch_domtree_build() says.
 * opts: what to compute; NULL means GCH_DOMTREE_OPTIONS_INIT.
 * out: receives the tree (overwritten without being freed first). Every
 *   array in it is allocated with the library's allocator (gcheap/alloc.h) and
 *   owned by *out: release them with gch_domtree_free(), also when
 *   children lists were not built.
 * err: receives the message on failure (NULL allowed).
 *
 * Memory above the heap model: with children, as gch_domtree_build().
 * Without them: a peak of 28 bytes per object (while the retained sizes and
 * the idoms are produced), or, when the heap has no reverse index, 24 bytes
 * per object plus the recorded cross and back edges as above, when that is
 * more; the result keeps 12 bytes per object.
 * Time: the same minus building and sorting the lists (about 0.3 s of the
 * 2.2 s build on the 10M-object benchmark dump). With preorder_only: the
 * same peak; the result keeps 12 bytes per live object (16 with
 * preorder_idom).
 *
 * Returns GCH_OK; GCH_EINVAL when the heap's references were not loaded
 * (skip_refs); GCH_ENOMEM when an allocation fails. On failure *out is zeroed,
 * nothing stays allocated, and err says what failed. */
gch_status gch_domtree_build_ex(const gch_heap *heap, const gch_domtree_options *opts,
                                gch_domtree *out, gch_error *err);

/* Frees the arrays of t and zeroes it. NULL and a zeroed tree are allowed. */
void gch_domtree_free(gch_domtree *t);

/* The dominator-tree children of node (an object index, or GCH_DOM_VROOT for
 * the virtual root), biggest retained size first. Returns a pointer into t
 * (valid until gch_domtree_free) and their number in *count. A node outside the
 * tree or out of range has no children (returns NULL, *count = 0), nor has any
 * node of a tree built without children lists. */
const uint32_t *gch_domtree_children(const gch_domtree *t, uint32_t node, uint32_t *count);

/* Retained size of every type: per_type_out (heap->type_count entries, owned
 * by the caller) receives, for each type, the total size of the union of the
 * dominator subtrees of its live instances, i.e. the sum of the retained sizes
 * of the instances that have no dominator-tree ancestor of the same type.
 * t must have been built from heap, either with children lists or in preorder
 * only with preorder_idom. O(live objects + types); the traversal stack grows
 * with the depth of the dominator tree (4 bytes per level; in preorder, 20
 * bytes per live object instead).
 *
 * Returns GCH_OK, GCH_EINVAL when t does not match heap or has neither
 * children lists nor preorder_idom, or GCH_ENOMEM (then per_type_out is unspecified; nothing
 * stays allocated). */
gch_status gch_type_retained(const gch_heap *heap, const gch_domtree *t, uint64_t *per_type_out,
                             gch_error *err);

/* The chain of immediate dominators of object: (*chain_out)[0] = idom(object),
 * [1] = idom(idom(object)), ... up to the object just below the virtual root
 * (the virtual root itself is not listed). *len_out = 0 when object is a child
 * of the virtual root or not live (tell them apart with t->idom[object]).
 * *chain_out is allocated with gch_malloc (free with gch_free; NULL when the
 * chain is empty).
 *
 * Returns GCH_OK, GCH_EINVAL when object is out of range, or GCH_ENOMEM. */
gch_status gch_dom_chain(const gch_domtree *t, uint32_t object, uint32_t **chain_out,
                         size_t *len_out, gch_error *err);

#endif
