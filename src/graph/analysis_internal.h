/* The analysis's state (src/graph/analysis.c), shared with the builder of
 * both views on two threads (analysis_views.c). Internal. */
#ifndef GCHEAP_ANALYSIS_INTERNAL_H
#define GCHEAP_ANALYSIS_INTERNAL_H

#include "gcheap/analysis.h"

#define ALL_PARTS (GCH_TREE_BY_OBJECT | GCH_TREE_CHILDREN | GCH_TREE_PREORDER | GCH_TREE_PREORDER_IDOM)

/* What one view (strong roots, or with weak roots) of one heap has computed. */
typedef struct view {
    gch_domtree tree;
    unsigned parts;        /* GCH_TREE_* bits tree has; 0: none built */
    uint64_t *type_ret;    /* retained size per type, or NULL */
    gch_paths paths;
    int has_paths;
    uint8_t *live;         /* the live mask, or NULL */
    int has_totals;
    uint64_t live_count, live_bytes;
    /* The tree's or the paths' arrays are the source's (not freed). */
    int tree_borrowed, paths_borrowed;
    int tree_asked;        /* the source has no tree (or a damaged one) */
    int paths_asked;       /* the source was asked (once) */
    gch_paths parents;     /* the source's paths without their witness (borrowed) */
    int has_parents, parents_asked;
    uint32_t *dist;        /* distances from the roots, or NULL */
    int dist_borrowed, dist_asked;
    int reached_asked;       /* the source asked for the reached mask (gch_analysis_live) */
    uint8_t *depth8;       /* path depths in a byte (gch_analysis_path_depths), or NULL */
} view;

typedef struct heap_state {
    gch_heap *h;
    view v[2];
    int lookup_done;       /* ids_increasing or sorted is set */
    int ids_increasing;    /* object_id strictly increasing: search it directly */
    uint32_t *sorted;      /* else object indices in id order */
    int sorted_borrowed;   /* sorted is the source's */
    int reverse_asked;
} heap_state;

struct gch_analysis {
    gch_dump *dump;
    int owns_dump;
    gch_dump wrapper;      /* gch_analysis_of_heap: a dump of the caller's heap */
    gch_heap *wrapped;
    gch_analysis_options o;
    heap_state *hs;
    unsigned long counts[GCH_STEP_COUNT];
    const gch_analysis_source *src; /* the dump's, or NULL */
    gch_error src_err;     /* the first error the source gave */
    int src_failed;
};

/* The state of heap h, or NULL (err set) when h is not one of the dump's. */
heap_state *gch__analysis_state(gch_analysis *a, const gch_heap *h, gch_error *err);

/* The tree parts asked for with those they imply (children: by object;
 * preorder idoms: the preorder). */
unsigned gch__analysis_normal_parts(unsigned parts);

/* The domtree builder's options for the tree parts asked for (normalized);
 * returns the parts the build gives. */
unsigned gch__analysis_tree_options(unsigned parts, gch_domtree_options *o);

/* A view's path tree with, from the same search, its depths in a byte
 * (*depth8) and the distances from the roots (*dist), all allocated here. */
gch_status gch__paths_depths_dist(const gch_heap *heap, int include_weak, gch_paths *paths,
                                  uint8_t **depth8, uint32_t **dist, gch_error *err);

#endif
