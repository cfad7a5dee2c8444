/* gcheap/paths.h - shortest paths from the roots to objects ("why is it alive").
 *
 * Strong roots are as in gcheap/dominators.h: root records without
 * GCH_ROOT_WEAK (every record with include_weak), records naming GCH_NONE
 * ignored. A path is a list of objects, the root object first and the target
 * last, each holding a reference to the next. When several root records name
 * the path's first object, the path reports the first of them that is no
 * stack root, else the first (lowest record index among the counted records).
 *
 * All traversals are iterative breadth-first searches over the CSR arrays.
 * Ownership: structures filled by these functions own their arrays; free them
 * with the matching *_free function. None of them references the heap after
 * it is built.
 */
#ifndef GCHEAP_PATHS_H
#define GCHEAP_PATHS_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"

/* parent[] value of an object held directly by a root. */
#define GCH_PATH_ROOT (UINT32_MAX - 1)

/* A BFS tree of shortest paths from all strong roots at once. */
typedef struct gch_paths {
    uint32_t object_count;
    /* Per object: the previous object on one shortest path from the roots,
     * GCH_PATH_ROOT when a root names the object itself, GCH_NONE when the
     * object is not reachable from the roots. The search runs in two tiers:
     * from the roots that are no stack roots (GCH_ROOT_LOCAL) first, then
     * from the stack roots for what those did not reach; a path is shortest
     * within its tier. Ties are broken by BFS order: roots in record order,
     * references in their stored order. */
    uint32_t *parent;
    /* The objects named by counted root records, ascending, and for each the
     * first counted record naming it (parallel arrays of root_object_count). */
    uint32_t root_object_count;
    uint32_t *root_objects;
    uint32_t *root_records;
} gch_paths;

/* A list of paths: path k is objects[start[k] .. start[k+1]-1] (root object
 * first, target last), reached from root record root_record[k]. */
typedef struct gch_path_set {
    size_t count;
    size_t *start;          /* count+1 entries (NULL when count is 0) */
    uint32_t *objects;
    uint32_t *root_record;  /* count entries */
} gch_path_set;

/* Runs a multi-source BFS from the strong roots over forward references and
 * fills *out. Memory: 4 bytes per object for the result plus 8 bytes per root
 * object; 4 bytes per object of queue while running.
 *
 * Returns GCH_OK, GCH_EINVAL when the heap's references were not loaded, or
 * GCH_ENOMEM (then *out is zeroed and nothing stays allocated). Free the
 * result with gch_paths_free(). */
gch_status gch_paths_build(const gch_heap *heap, int include_weak, gch_paths *out,
                           gch_error *err);

/* gch_paths_build() with options; a zeroed struct is the default. */
typedef struct gch_paths_options {
    int include_weak; /* nonzero: weak roots count as roots too */
    /* Called (when not NULL) on the caller's thread about every million
     * objects the search takes from its queue, with the percent of the heap's
     * objects reached so far, and with 100 when the search ends; for a
     * progress display. progress_ctx is passed back. */
    void (*progress)(void *ctx, unsigned percent);
    void *progress_ctx;
    /* When not NULL: object_count entries (the caller's) that receive, from
     * the same search, the distances from the roots (gch_root_distance's):
     * the tree's depths, then where a stack root is nearer than the tree's
     * path (the stack roots come second), what it brings closer searched
     * again. */
    uint32_t *dist;
    /* When not NULL: object_count bytes (the caller's) that receive each
     * object's depth in the tree, 255 from 255 on and for an object without
     * a path. */
    uint8_t *depth8;
} gch_paths_options;

gch_status gch_paths_build_ex(const gch_heap *heap, const gch_paths_options *opts, gch_paths *out,
                              gch_error *err);

/* Frees the arrays of p and zeroes it. NULL and a zeroed struct are allowed. */
void gch_paths_free(gch_paths *p);

/* The first counted root record naming object, or GCH_NONE when no counted
 * root names it. O(log root objects). */
uint32_t gch_paths_root_record(const gch_paths *p, uint32_t object);

/* Number of references on the shortest path to object (0 for a root object),
 * or GCH_NONE when it is unreachable or out of range. O(path length). */
uint32_t gch_paths_depth(const gch_paths *p, uint32_t object);

/* The shortest path from the roots to object, as a set of zero paths (object
 * unreachable) or one. *out is owned by the caller (gch_path_set_free).
 * Returns GCH_OK, GCH_EINVAL when object is out of range, or GCH_ENOMEM (then
 * *out is zeroed). */
gch_status gch_paths_path(const gch_paths *p, uint32_t object, gch_path_set *out,
                          gch_error *err);

/* Distance from the roots: (*dist_out)[o] is the number of references on a
 * shortest path from a counted root object to o (0 for an object a root names
 * itself), or GCH_NONE when no counted root reaches o. One BFS over all
 * objects: O(objects + references) time, 8 bytes per object while running.
 * *dist_out is allocated with gch_malloc (free with gch_free). Returns GCH_OK,
 * GCH_EINVAL when references were not loaded, or GCH_ENOMEM (then *dist_out
 * is NULL). */
gch_status gch_root_distance(const gch_heap *heap, int include_weak, uint32_t **dist_out,
                             gch_error *err);

/* Frees the arrays of s and zeroes it. NULL and a zeroed struct are allowed. */
void gch_path_set_free(gch_path_set *s);

/* One shortest path to target from each distinct root object that reaches it
 * (`retainers --all`), at most max_paths of them: the shortest first, ties by
 * the record index of the root. Paths of different roots may share objects;
 * a path may pass through another root object.
 *
 * Method: a BFS backwards from target over the reverse references gives every
 * object's distance to target; each root object with a finite distance then
 * yields a path by stepping forward to any successor one step closer (the first
 * in reference order). Cost O(objects + references) time, 8 bytes per object
 * plus 1 bit per object while running, independent of the number of roots.
 *
 * Requires gch_heap_build_reverse() to have been called on heap (GCH_EINVAL
 * otherwise). Returns GCH_OK (count may be 0), GCH_EINVAL for an out-of-range
 * target or unloaded references, or GCH_ENOMEM (then *out is zeroed and
 * nothing stays allocated). */
gch_status gch_paths_all(const gch_heap *heap, int include_weak, uint32_t target,
                         size_t max_paths, gch_path_set *out, gch_error *err);

/* A node of merged shortest paths: all targets whose shortest path starts at a
 * root object of the same root kind and type, then goes through objects of the
 * same sequence of types, share a node. */
typedef struct gch_merged_node {
    uint32_t parent;     /* parent node index, GCH_NONE for a top node */
    uint32_t type;       /* type of the objects at this step */
    uint8_t root_kind;   /* top nodes: gch_root_kind of the root record; else 0 */
    uint64_t paths;      /* targets whose path passes through (or ends at) this node */
    uint64_t ends;       /* targets whose path ends at this node */
    uint64_t objects;    /* distinct objects merged into this node */
    /* The field of the references into this node's objects (each object's
     * reference from the previous object on its path, as gch_ref_label
     * names it): a string offset in the heap's pool when all of them are
     * held through the same field, else GCH_NONE; then field_indexes is 1
     * when all are array elements (labels "[N]" of different indexes). */
    uint32_t field;
    uint8_t field_indexes;
    /* Top nodes: the root record of the node's first object when every root
     * of the node has the same holder (static container and label, a
     * thread), else GCH_NONE; GCH_NONE below the top. */
    uint32_t root_record;
} gch_merged_node;

/* "Merge shortest paths to GC roots" (Eclipse MAT) for a set of targets: the
 * tree of the BFS-tree paths of every target, keyed by type at each step. */
typedef struct gch_merged_paths {
    size_t node_count;
    gch_merged_node *nodes;  /* every node after its parent */
    /* Children CSR over nodes: children of node k are
     * children[child_start[k] .. child_start[k+1]-1]; the top nodes are
     * children[child_start[node_count] .. child_start[node_count+1]-1].
     * child_start has node_count+2 entries. Lists sorted by paths, biggest
     * first, ties by node index. */
    size_t *child_start;
    uint32_t *children;
    uint64_t targets;      /* targets given (duplicates counted once) */
    uint64_t unreachable;  /* targets with no path from the roots */
} gch_merged_paths;

/* Merges the shortest paths (from paths, built from heap) of the objects in
 * targets[0..target_count-1] (e.g. all instances of a type; duplicates are
 * counted once). Cost O(objects on the union of the paths); memory 4 bytes per
 * heap object while running plus the result.
 *
 * Returns GCH_OK, GCH_EINVAL when a target is out of range or paths does not
 * match heap, or GCH_ENOMEM (then *out is zeroed and nothing stays allocated).
 * Free the result with gch_merged_paths_free(). */
gch_status gch_merged_paths_build(const gch_heap *heap, const gch_paths *paths,
                                  const uint32_t *targets, size_t target_count,
                                  gch_merged_paths *out, gch_error *err);

/* Frees the arrays of m and zeroes it. NULL and a zeroed struct are allowed. */
void gch_merged_paths_free(gch_merged_paths *m);

#endif
