/* gcheap/analysis.h - one loaded dump and everything derived from it.
 *
 * A gch_analysis owns a gch_dump and computes, on first use, what questions
 * about its heaps (sections) need: the live set (strong roots, or with weak
 * roots: two views), the dominator tree and retained sizes of each view, the
 * shortest-path tree of each view, retained sizes by type, the reverse
 * references and the id lookup. Each is computed once and kept until
 * gch_analysis_free, so any number of questions over one loaded heap pays for
 * each structure once. It is the only caller of the dominator builder, the
 * path builder and the live-set walk in gcheap (suspects, leaks and the
 * program's commands take their trees from here).
 *
 * Ownership: the analysis owns the dump given to gch_analysis_new (on
 * success) and every structure it hands out; pointers it returns stay valid
 * until gch_analysis_free. Callers must not free them nor write to them.
 *
 * Errors: every call that may compute returns a gch_status and fills err
 * (NULL allowed): GCH_ENOMEM when an allocation fails (nothing is kept of the
 * failed computation; the analysis stays usable and a later call tries
 * again), GCH_EINVAL for a heap that is not one of the dump's or whose
 * references were not loaded.
 *
 * Threads: one analysis is used by one thread at a time. */
#ifndef GCHEAP_ANALYSIS_H
#define GCHEAP_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/dominators.h"
#include "gcheap/error.h"
#include "gcheap/heap.h"
#include "gcheap/paths.h"

typedef struct gch_analysis gch_analysis;

/* How an analysis computes. A zeroed struct is the default. */
typedef struct gch_analysis_options {
    /* Threads each computation may use, the caller's included (as
     * gch_domtree_options.threads): 0 as many as the machine has, at most 2;
     * 1 creates no thread. Results never depend on it. */
    unsigned threads;
    /* Nonzero: a dominator tree is built whole on first use of its view
     * (idom, retained sizes, children lists and the preorder arrays
     * together), so that every later request of that view is served from the
     * one build. 0: a request builds only the parts it asks for (less time and
     * memory for a single question); a later request that needs more parts
     * builds the view again with all of them. */
    int keep_whole_trees;
    /* Called (when not NULL) on the calling thread while a long computation
     * runs: phase names it ("computing the dominator tree", "finding shortest
     * paths from the roots"), percent is its progress; percent 101 says the
     * phase ended. */
    void (*progress)(void *ctx, const char *phase, unsigned percent);
    void *progress_ctx;
} gch_analysis_options;

/* Makes an analysis of dump. On success the analysis owns dump (freed by
 * gch_analysis_free); on failure (GCH_ENOMEM) dump is still the caller's and
 * *out is NULL. opts: NULL means the defaults; copied. */
gch_status gch_analysis_new(gch_dump *dump, const gch_analysis_options *opts, gch_analysis **out,
                            gch_error *err);

/* An analysis of one heap that stays the caller's (not freed by
 * gch_analysis_free; it must outlive the analysis). For the library's own
 * one-question entry points (gch_suspects_find, gch_leaks_add) and tests. */
gch_status gch_analysis_of_heap(gch_heap *heap, const gch_analysis_options *opts,
                                gch_analysis **out, gch_error *err);

/* Frees the analysis, its dump (unless made by gch_analysis_of_heap) and
 * everything computed. NULL is allowed. */
void gch_analysis_free(gch_analysis *a);

/* The dump (owned by the analysis). Its heaps may be handed to the calls
 * below; a heap's reverse references are built in place by
 * gch_analysis_reverse. */
gch_dump *gch_analysis_dump(const gch_analysis *a);

/* Changes the thread count and the progress callback for later computations. */
void gch_analysis_set_options(gch_analysis *a, const gch_analysis_options *opts);

/* The options in force (a copy). */
gch_analysis_options gch_analysis_get_options(const gch_analysis *a);

/* Parts of a dominator tree a caller needs (a bit set). */
#define GCH_TREE_BY_OBJECT     0x1u /* idom[] and retained[] by object, gch_dom_chain */
#define GCH_TREE_CHILDREN      0x2u /* child_start/children (implies BY_OBJECT) */
#define GCH_TREE_PREORDER      0x4u /* preorder[] and preorder_retained[] */
#define GCH_TREE_PREORDER_IDOM 0x8u /* preorder_idom[] (implies PREORDER) */

/* The dominator tree of heap (include_weak: the view with weak roots) with at
 * least the parts asked for; live_count and live_bytes are always set.
 * *out points into the analysis. The tree's preorder arrays, when present,
 * list the live objects so that each comes after its immediate dominator
 * (built whole, they are the build's own DFS preorder, the same as a tree
 * built with preorder_only). */
gch_status gch_analysis_domtree(gch_analysis *a, const gch_heap *heap, int include_weak,
                                unsigned parts, const gch_domtree **out, gch_error *err);

/* gch_analysis_domtree and gch_analysis_paths of one view at once, for a
 * caller that needs both (gcheap report): with two threads or more in the
 * analysis's options, the path tree's breadth-first search runs on a second
 * thread while the dominator tree is built (it reads only the references and
 * roots). The results are the two functions' own, owned by the analysis;
 * an error of either is returned (the dominator tree's first). */
gch_status gch_analysis_domtree_and_paths(gch_analysis *a, const gch_heap *heap, int include_weak,
                                          unsigned parts, const gch_domtree **tree,
                                          const gch_paths **paths, gch_error *err);

/* Retained size of every type (gch_type_retained) of a view: *per_type has
 * heap->type_count entries, owned by the analysis. */
gch_status gch_analysis_type_retained(gch_analysis *a, const gch_heap *heap, int include_weak,
                                      const uint64_t **per_type, gch_error *err);

/* The shortest-path tree (gch_paths_build) of a view, owned by the analysis. */
gch_status gch_analysis_paths(gch_analysis *a, const gch_heap *heap, int include_weak,
                              const gch_paths **out, gch_error *err);

/* The live set of a view: *live (may be NULL when only the totals are
 * wanted) gets one byte per object, 1 when live, owned by the analysis;
 * *count / *bytes (may be NULL) the totals. */
gch_status gch_analysis_live(gch_analysis *a, const gch_heap *heap, int include_weak,
                             const uint8_t **live, uint64_t *count, uint64_t *bytes,
                             gch_error *err);

/* Distances from the roots of a view (gch_root_distance: GCH_NONE for an
 * object no root reaches), heap->object_count entries owned by the analysis. */
gch_status gch_analysis_distance(gch_analysis *a, const gch_heap *heap, int include_weak,
                                 const uint32_t **dist, gch_error *err);

/* The shortest path to object in the view (gch_paths_path on
 * gch_analysis_paths' tree) into *out (the caller's: gch_path_set_free):
 * when the analysis holds no path tree, from its source's path parents
 * read without the witness of their acyclicity (an index: no pass over
 * every object), the walk up bounded by the object count; a walk that does
 * not end at a root asks for the whole tree (then computed, the source's
 * error kept). GCH_EINVAL for an object out of bounds. */
gch_status gch_analysis_path(gch_analysis *a, const gch_heap *heap, int include_weak,
                             uint32_t object, gch_path_set *out, gch_error *err);

/* The distances (as gch_analysis_distance gives them) of n objects, each
 * below heap->object_count, into out (n entries, the caller's): from what
 * the analysis holds, else from its source when that answers for a few
 * objects (an index: no array of every object's distance is built), else
 * from gch_analysis_distance. GCH_EINVAL for an object out of bounds. */
gch_status gch_analysis_distances_of(gch_analysis *a, const gch_heap *heap, int include_weak,
                                     const uint32_t *objects, size_t n, uint32_t *out,
                                     gch_error *err);

/* Whether each of n objects is live (as gch_analysis_live's mask says) into
 * out (n bytes, 0 or 1, the caller's), asking the source for a few
 * objects' distances when the analysis holds neither the mask nor the
 * distances nor a tree (an object is live when a root reaches it). */
gch_status gch_analysis_live_of(gch_analysis *a, const gch_heap *heap, int include_weak,
                                const uint32_t *objects, size_t n, uint8_t *out, gch_error *err);

/* Each object's depth in the view's path tree in a byte (255 for 255 or
 * more and for an object without a path), heap->object_count entries owned
 * by the analysis. Computed with the tree and the distances in one search
 * (gch_paths_options.depth, gch_root_distance_from_depths), which the view
 * keeps too when it has not got them yet. */
gch_status gch_analysis_path_depths(gch_analysis *a, const gch_heap *heap, int include_weak,
                                    const uint8_t **depth, gch_error *err);

/* Computes at once what a caller that wants everything of a heap asks for
 * next (the index's build): the reverse references and, for the views 0 ..
 * views-1 (1: the strong roots only; 2: with weak roots too), the dominator
 * tree with at least `parts`, the path tree, its depths and the distances,
 * each as the calls above give it. With two threads (the analysis's threads
 * option) the independent parts run on both at once; results do not depend
 * on it. A source's structures are not used (nothing is asked of it). */
gch_status gch_analysis_build_views(gch_analysis *a, const gch_heap *heap, int views,
                                    unsigned parts, gch_error *err);

/* What gch_analysis_build_views_then reports as soon as it is built, on the
 * thread that built it (the caller's or the helper's: two callbacks may run
 * at once, for different parts), while the other parts are still being
 * built: a caller (the index's writer) starts using a part meanwhile. The
 * arrays reported are final (the ones the analysis keeps, as the calls above
 * will give them); the callbacks only read them, and read nothing of the
 * analysis. Only what the call builds itself is reported: what was built
 * before, or comes from a source, or failed, is not (the caller asks the
 * calls above for it after the return). Any member may be NULL. */
typedef struct gch_views_ready {
    /* heap->in_start/in_source are built. */
    void (*reverse)(void *ctx, const gch_heap *heap);
    /* View v's dominator tree, with the parts asked for. */
    void (*tree)(void *ctx, const gch_heap *heap, int view, const gch_domtree *tree);
    /* View v's path tree, path depths and distances. */
    void (*paths)(void *ctx, const gch_heap *heap, int view, const gch_paths *paths,
                  const uint8_t *depth, const uint32_t *dist);
    void *ctx;
} gch_views_ready;

/* gch_analysis_build_views, reporting each part through ready (may be NULL)
 * as it is built. The order of the pool's work puts the reverse references
 * first, so that they are reported early. */
gch_status gch_analysis_build_views_then(gch_analysis *a, const gch_heap *heap, int views,
                                         unsigned parts, const gch_views_ready *ready,
                                         gch_error *err);

/* Reads heap->out_start/out_target now when the analysis's source deferred
 * them (an index loaded with GCH_INDEX_REFS_LATER), before code outside the
 * analysis walks them; nothing when they are there. Errors: the source's
 * (a damaged chunk), GCH_EINVAL for a heap not of the analysis's dump. */
gch_status gch_analysis_references(gch_analysis *a, const gch_heap *heap, gch_error *err);

/* Builds heap->in_start/in_source (gch_heap_build_reverse) if not built. */
gch_status gch_analysis_reverse(gch_analysis *a, const gch_heap *heap, gch_error *err);

/* The object of heap with dump id `id` in *index, GCH_NONE when none: O(log
 * n) (a binary search of the ids when they increase, else of a sorted index
 * built on first use, 4 bytes per object). */
gch_status gch_analysis_find(gch_analysis *a, const gch_heap *heap, uint64_t id, uint32_t *index,
                             gch_error *err);

/* Where an analysis may find structures already computed instead of
 * computing them (an index, gcheap/index.h): each call returns GCH_OK with
 * *found 1 and the structure filled with arrays the source owns (read-only,
 * valid until the dump is freed), GCH_OK with *found 0 when it has none, or
 * an error when what it has is unusable (a chunk that fails its checks): the
 * analysis then computes the structure from the heap as it would without a
 * source, and keeps the error for gch_analysis_source_error. The dump's
 * `source` (heap.h) is taken by gch_analysis_new. */
typedef struct gch_analysis_source {
    void *ctx;
    /* A tree with at least the preorder arrays (GCH_TREE_PREORDER_IDOM); by
     * object arrays and children when it has them. *parts says which. */
    gch_status (*tree)(void *ctx, const gch_heap *heap, int include_weak, gch_domtree *out,
                       unsigned *parts, int *found, gch_error *err);
    gch_status (*paths)(void *ctx, const gch_heap *heap, int include_weak, gch_paths *out,
                        int *found, gch_error *err);
    /* Sets heap->in_start/in_source (borrowed: GCH_BORROWED_REVERSE). */
    gch_status (*reverse)(void *ctx, gch_heap *heap, int *found, gch_error *err);
    /* The object indices in id order (*sorted), or *increasing 1 when the ids
     * rise already. */
    gch_status (*lookup)(void *ctx, const gch_heap *heap, const uint32_t **sorted,
                         int *increasing, int *found, gch_error *err);
    /* The distances of gch_analysis_distance (object_count entries). */
    gch_status (*distance)(void *ctx, const gch_heap *heap, int include_weak,
                           const uint32_t **dist, int *found, gch_error *err);
    /* A heap whose references are still to be read (refs_loaded set,
     * out_start NULL: gch_index_load's GCH_INDEX_REFS_LATER) gets them here
     * before the analysis computes from them; an error is the analysis
     * call's error (nothing else can answer it). */
    gch_status (*refs)(void *ctx, gch_heap *heap, gch_error *err);
    /* Which objects the roots reach, into mask (object_count bytes, each
     * set to 0 or 1): what the distances say, without building them. May
     * be NULL. */
    gch_status (*reached)(void *ctx, const gch_heap *heap, int include_weak, uint8_t *mask,
                          int *found, gch_error *err);
    /* The shortest-path tree of `paths` without the witness that its
     * parents hold no cycle (each parent is in bounds): for a caller that
     * reads a few paths and bounds each walk itself (leak suspects). May be
     * NULL. */
    gch_status (*parents)(void *ctx, const gch_heap *heap, int include_weak, gch_paths *out,
                          int *found, gch_error *err);
    /* The distances of `distance` for n objects only (each below
     * object_count) into out: for a caller that shows a few rows. May be
     * NULL. */
    gch_status (*distances_of)(void *ctx, const gch_heap *heap, int include_weak,
                               const uint32_t *objects, size_t n, uint32_t *out, int *found,
                               gch_error *err);
} gch_analysis_source;

/* The first error a source gave (its structure was computed instead), or
 * NULL when none. */
const gch_error *gch_analysis_source_error(const gch_analysis *a);

/* Bytes held by the dump and the structures computed so far (an estimate
 * from the arrays' lengths). */
size_t gch_analysis_memory(const gch_analysis *a);

/* What has been computed how often (for tests: a structure is built once per
 * heap and view however many questions use it). */
typedef enum gch_analysis_step {
    GCH_STEP_DOMTREE, GCH_STEP_PATHS, GCH_STEP_LIVE, GCH_STEP_REVERSE, GCH_STEP_LOOKUP,
    GCH_STEP_DISTANCE, GCH_STEP_COUNT
} gch_analysis_step;
unsigned long gch_analysis_count(const gch_analysis *a, gch_analysis_step step);

#endif
