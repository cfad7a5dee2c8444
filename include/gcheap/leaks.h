/* gcheap/leaks.h - what is leaking: leak suspects in one dump and leaks
 * across a series of dumps of one process.
 *
 * Suspects (gch_suspects_find) re-implement Eclipse MAT's Leak Suspects
 * report (help page "Running Leak Suspect Report"; the reimplementation in
 * parttimenerd/hprof-analyzer DESIGN.md section 6): the objects just below
 * the virtual root of the dominator tree that retain more than a threshold of
 * the live heap are suspects; the other top-level objects are grouped by
 * type, and a type whose instances retain more than the threshold together
 * is a suspect too. From each suspect the walk to its accumulation point
 * follows the biggest dominator-tree child while that child retains at least
 * big_drop (0.7) of its parent.
 *
 * Leaks (gch_leaks_*) compare a series of dumps, oldest first: memlab's rule
 * where object ids are stable across dumps (gch_dump.ids_stable), and, for
 * every format, growth of retainer paths and of types in every step.
 *
 * Strong roots, liveness and retained sizes are as in gcheap/dominators.h;
 * paths are the BFS shortest paths of gcheap/paths.h (same tie-breaking).
 * Nothing here recurses over the graph. See docs/graph-algorithms.md for
 * the costs.
 */
#ifndef GCHEAP_LEAKS_H
#define GCHEAP_LEAKS_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"
#include "gcheap/analysis.h"
#include "gcheap/histogram.h"

/* ------------------------------------------------------------- suspects */

typedef struct gch_suspects_options {
    /* Percent of the live bytes a suspect must retain, strictly more than
     * (default 10; 0..100). */
    double threshold;
    /* The walk to the accumulation point goes on to the biggest child while
     * it retains at least this fraction of its parent (default 0.7; must be
     * more than 0.5 and at most 1, so that at most one child qualifies). */
    double big_drop;
    /* Types listed per suspect in holds (default 10; 0: none). */
    uint32_t holds_top;
    /* Nonzero: weak roots count as roots (default 0). */
    int include_weak;
    /* Threads, the caller's included (default 0: as many as the machine has,
     * at most 2; 1: no thread at all). The result is the same either way. */
    unsigned threads;
} gch_suspects_options;

#define GCH_SUSPECTS_OPTIONS_INIT { 10.0, 0.7, 10, 0, 0 }

typedef struct gch_suspect {
    int group;                  /* 0: one object; 1: top-level instances of a type */
    uint32_t object;            /* the object; a group: its biggest instance (ties: lower index) */
    uint32_t type;              /* the object's type (a group: the type) */
    uint64_t instances;         /* 1, or the number of instances in the group */
    uint64_t retained;          /* bytes retained (a group: by all its instances) */
    uint64_t retained_objects;  /* objects retained, the suspect's own included */
    /* The accumulation point: where the walk from object stopped (object
     * itself when no child keeps big_drop of it), its retained size and how
     * many dominator-tree steps below object it is. */
    uint32_t accumulation;
    uint64_t accumulation_retained;
    uint64_t accumulation_depth;
    /* The shortest path from a root to the accumulation point:
     * path[path_start .. path_start+path_len-1] of gch_suspects, root object
     * first; root_record is the first counted root record naming the path's
     * first object. */
    size_t path_start, path_len;
    uint32_t root_record;
    /* What it retains by type: holds[holds_start .. holds_start+holds_count-1]
     * of gch_suspects, most bytes first (ties: lower type index); count and
     * shallow bytes of the retained objects of each type. At most holds_top. */
    size_t holds_start, holds_count;
} gch_suspect;

typedef struct gch_suspects {
    uint64_t live_count, live_bytes;
    size_t count;
    gch_suspect *items;   /* most retained first; ties: objects before groups, lower index */
    uint32_t *path;       /* the suspects' paths, one after another */
    gch_type_row *holds;  /* the suspects' type rows, one list after another */
} gch_suspects;

/* Finds the leak suspects of heap into *out (overwritten).
 *
 * opts: NULL means GCH_SUSPECTS_OPTIONS_INIT.
 * Cost: the dominator tree in preorder (gch_domtree_build_ex with
 * preorder_only and preorder_idom), then passes over the live objects in
 * preorder: one over the top-level objects (in two halves on two threads on
 * big heaps), one forward scan that does every walk to an accumulation point
 * at once (a bit and a byte per live object; 4 bytes with 255 suspects or
 * more), and one that attributes each object to the suspect above it and
 * counts types (the same byte or 4 bytes per live object); and a BFS from
 * the roots that stops when every accumulation point is reached (8 bytes per
 * visited object and 2 bits per object), on big heaps on a second thread
 * beside the last pass. With an index (gch_suspects_find_in on an analysis
 * whose source has the shortest-path tree) there is no BFS: the paths are
 * read up the tree's parents, which are read with the walks on a second
 * thread beside the last pass.
 *
 * Returns GCH_OK (count may be 0); GCH_EINVAL when references were not loaded
 * or an option is out of range; GCH_ENOMEM. On failure *out is zeroed and
 * nothing stays allocated. Free the result with gch_suspects_free(). */
gch_status gch_suspects_find(const gch_heap *heap, const gch_suspects_options *opts,
                             gch_suspects *out, gch_error *err);

/* The same with the dominator tree of the loaded heap an (gcheap/analysis.h):
 * its tree in preorder (with preorder_idom) of the view opts->include_weak,
 * built there on first use and kept, so suspects cost no tree of their own
 * when other questions about an have one. heap is one of an's. */
gch_status gch_suspects_find_in(gch_analysis *an, const gch_heap *heap,
                                const gch_suspects_options *opts, gch_suspects *out,
                                gch_error *err);

/* Frees the arrays of s and zeroes it. NULL and a zeroed struct are allowed. */
void gch_suspects_free(gch_suspects *s);

/* The field name of the first reference from object `from` to object `to`:
 * a string offset in heap's pool, or GCH_NONE when the format names no
 * fields or no such reference exists. O(references of from). */
uint32_t gch_ref_label(const gch_heap *heap, uint32_t from, uint32_t to);

/* --------------------------------------------------------------- leaks */

typedef struct gch_leaks_options {
    int include_weak;     /* nonzero: weak roots count as roots */
    /* -1 (default): the memlab rule runs when every dump says ids_stable;
     * 0: never; 1: always (the caller vouches for the ids). */
    int by_ids;
    /* Threads, the caller's included (default 0: as many as the machine has,
     * at most 2; 1: no thread at all). */
    unsigned threads;
    /* Nonzero: keep rows about V8 engine internals (gch_leak_type_internal);
     * 0 (default): they are left out of the report and counted in
     * gch_leak_report.internal_rows. */
    int internals;
} gch_leaks_options;

#define GCH_LEAKS_OPTIONS_INIT { 0, -1, 0, 0 }

/* Whether a type name is a V8 engine internal that memlab does not report as
 * a leak: "(system)" (hidden nodes; memlab's FilterTrivialNodeRule), code
 * ("(compiled code)", "(code)"), shapes ("(object shape)"), feedback
 * ("(feedback)", "(feedback vector)") and every "system / ..." name (V8's
 * own objects: system / Map, system / WeakArrayList, system /
 * FeedbackVector, ...). No class name of another format has these forms. */
int gch_leak_type_internal(const char *type);

/* Whether object `store` of heap, reached from object `owner` through the
 * field named `field` (as gch_ref_label gives it), is a collection's internal
 * backing store, which is never a leak head but folded into its owner:
 * an array type (name ending in "[]": HashMap$Node[], ConcurrentHashMap$Node[],
 * Object[]) held through table, nextTable, elementData, elements or queue
 * (java.util's HashMap/Hashtable, ConcurrentHashMap, ArrayList/Vector,
 * ArrayDeque, PriorityQueue); a V8 "(array)", "(object elements)",
 * "(system)" or "system / ..." node held through the internal edge table or
 * elements, written "{table}" / "{elements}" by the V8 reader (a JS Map's or
 * Set's hash table, an object's elements), DevTools' ownership. */
int gch_leak_backing_store(const char *store_type, const char *field);

/* Leaked objects of one leak signature (memlab rule). A leaked object is one
 * live in the second dump and in every later one whose id no object of the
 * first dump has. Each leaked object belongs to its head: the top of its
 * chain of leaked immediate dominators (itself when its immediate dominator
 * is not leaked). A group gathers the heads with one signature: the root and
 * the types and field names on the head's shortest path from a root, field
 * names that are numbers (array indices) written [] so that elements merge. */
/* A head that is a collection's backing store (gch_leak_backing_store,
 * reached from its shortest-path parent) is folded into that parent, its
 * owner: the owner (or, when the owner is leaked, the owner's head) stands
 * for it in the signature, type, heads and example; objects and bytes stay
 * those of the leaked objects (an owner that is not leaked adds nothing). */
typedef struct gch_leak_type_count {
    char *type;           /* a type of the group's leaked objects */
    uint64_t objects;     /* leaked objects of that type in the group (exact) */
    uint64_t bytes;       /* their shallow sizes in the last dump */
    uint64_t heads;       /* how many of them are heads (after folding) */
    uint64_t example_id;  /* dump id of one (lowest position in the last dump) */
} gch_leak_type_count;

typedef struct gch_leak_group {
    char *signature;      /* "[static Holder] List -> Object[] -> Listener" */
    char *type;           /* type of the heads */
    uint64_t heads;       /* heads in the group */
    uint64_t objects;     /* leaked objects under those heads, the heads included */
    uint64_t bytes;       /* their shallow sizes in the last dump */
    uint64_t example_id;  /* dump id of the first head (lowest position in the last dump) */
    /* The group's leaked objects by type, every type (but those
     * gch_leak_type_internal names, unless gch_leaks_options.internals): most
     * bytes first, ties by more objects, then by name. With internals, their
     * objects add up to objects. */
    size_t type_count;
    gch_leak_type_count *types;
} gch_leak_group;

/* A retainer path or a type that grew in every step. counts and retained
 * have one entry per dump, oldest first (absent: 0). */
typedef struct gch_growth {
    char *key;            /* the retainer path (same notation as signatures) or type name */
    char *type;           /* the path's last type, or the type name */
    uint64_t *counts;     /* live instances per dump */
    uint64_t *retained;   /* their retained bytes per dump */
    uint64_t example_id;  /* an instance in the last dump (lowest position) */
} gch_growth;

typedef struct gch_leak_report {
    size_t dumps;
    int by_ids;                 /* 1 when the memlab rule ran */
    uint64_t leaked_objects;    /* memlab rule: all leaked objects and their bytes */
    uint64_t leaked_bytes;
    size_t group_count;
    gch_leak_group *groups;     /* most bytes first, ties by signature */
    /* Rows left out as V8 internals (gch_leaks_options.internals 0): leak
     * groups whose head type, path rows whose last type and type rows whose
     * type is gch_leak_type_internal. leaked_objects/bytes count all. */
    uint64_t internal_rows;
    /* Retainer paths whose instance count grew in every step and whose parent
     * path's did not (growth of a parent path's count would explain it). */
    size_t path_count;
    gch_growth *paths;          /* most growth of retained bytes first, ties by key */
    /* Types whose live instance count or retained size grew in every step. */
    size_t type_count;
    gch_growth *types;          /* most growth of retained bytes first, ties by name */
} gch_leak_report;

typedef struct gch_leak_series gch_leak_series;

/* Starts a series of dump_count dumps (at least 2). *out is owned by the
 * caller (gch_leaks_free). GCH_EINVAL for fewer than 2 dumps, GCH_ENOMEM. */
gch_status gch_leaks_new(size_t dump_count, const gch_leaks_options *opts,
                         gch_leak_series **out, gch_error *err);

/* Adds the next dump's heap, oldest first; ids_stable: whether this dump's
 * ids name the same objects as in the other dumps (gch_dump.ids_stable).
 * The series keeps no pointer into heap: free the dump after the call.
 * Cost per dump: the dominator tree with children, the BFS shortest paths,
 * the per-type retained sizes, and a hash table of retainer paths (16 bytes
 * per path per dump plus the path's own entry); with the memlab rule, the
 * live ids sorted (8 bytes per live object of the first three dumps).
 * Returns GCH_OK; GCH_EINVAL when references were not loaded or the series
 * is full; GCH_ENOMEM (the series is then unusable: free it). */
gch_status gch_leaks_add(gch_leak_series *s, const gch_heap *heap, int ids_stable,
                         gch_error *err);

/* gch_leaks_add with the trees of the loaded heap an (gcheap/analysis.h):
 * the dominator tree with children lists, the shortest-path tree and the
 * retained sizes by type of the view opts.include_weak, built there on first
 * use and kept. heap is one of an's. */
gch_status gch_leaks_add_in(gch_leak_series *s, gch_analysis *an, const gch_heap *heap,
                            int ids_stable, gch_error *err);

/* After the last gch_leaks_add: the report into *out (owned by the caller,
 * gch_leak_report_free). GCH_EINVAL when dumps are missing; GCH_ENOMEM. */
gch_status gch_leaks_finish(gch_leak_series *s, gch_leak_report *out, gch_error *err);

void gch_leaks_free(gch_leak_series *s);
void gch_leak_report_free(gch_leak_report *r);

#endif
