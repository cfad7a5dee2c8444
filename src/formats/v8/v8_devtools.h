/* v8_devtools.h - DevTools' view of a V8 heap snapshot (the heap snapshot
 * worker of Chrome DevTools, front_end/entrypoints/heap_snapshot_worker/
 * HeapSnapshot.ts, npm chrome-devtools-frontend 1.0.1705227): DOM state
 * propagation, page-owned nodes, essential edges, shallow sizes with owned
 * arrays folded into their owners, distances, class names (Function,
 * RegExp, Detached <name>, {a, b} shapes) and the Statistics split.
 * docs/v8-format.md cites the lines each step follows. */
#ifndef GCHEAP_V8_DEVTOOLS_H
#define GCHEAP_V8_DEVTOOLS_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"
#include "gcheap/heap.h"
#include "str_table.h"
#include "threading.h"

/* Node types and edge types by role (the snapshot declares their numbers). */
enum node_role { NT_OTHER, NT_HIDDEN, NT_OBJECT, NT_NATIVE, NT_CODE, NT_ARRAY, NT_SYNTHETIC, NT_CLOSURE,
                 NT_REGEXP, NT_STRING, NT_CONS_STRING, NT_SLICED_STRING };
enum edge_role { ET_OTHER, ET_CONTEXT, ET_ELEMENT, ET_PROPERTY, ET_INTERNAL, ET_HIDDEN, ET_SHORTCUT,
                 ET_WEAK, ET_INVISIBLE };

#define V8_NO_DISTANCE (-5) /* DevTools' #noDistance */

/* What DevTools' steps ask of an edge name (a string of the snapshot),
 * found once per distinct name: the reader classifies the names it does not
 * keep as it reads them (v8_edge_name_class). */
enum edge_name_class {
    EC_KNOWN = 1,    /* classified */
    EC_ELEMENTS = 2, /* "elements" (calculateArraySize) */
    EC_SLOPPY = 4,   /* "sloppy_function_map" (the NativeContext distance filter) */
    EC_MD_DROP = 8,  /* parseInt gives an index >= 2 with index % 3 == 1 (the map
                        descriptors filter drops the edge) */
    EC_WEAKMAP = 16  /* a WeakMap ephemeron edge name: its text is kept */
};
uint8_t v8_edge_name_class(const char *s);

/* The whole snapshot graph as read (every edge, weak ones included). */
typedef struct v8_graph {
    size_t n, root;          /* nodes; the root's position */
    uint64_t m;              /* edges */
    const uint8_t *type;     /* per node: type number */
    const uint32_t *name;    /* per node: name string index */
    const uint8_t *det;      /* per node: detachedness as written (0 without the field) */
    int has_det;             /* the snapshot declares detachedness */
    const uint64_t *id;      /* per node: id */
    uint64_t *size;          /* per node: self size as written; DevTools' self sizes
                                replace them in place (v8_devtools.size) */
    const uint32_t *estart;  /* n + 1: node i's edges are estart[i] .. estart[i + 1] - 1 */
    const uint8_t *etype;    /* per edge: type number */
    const uint32_t *ename;   /* per edge: name string index or index */
    const uint32_t *eto;     /* per edge: target position */
    const uint8_t *node_role, *edge_role; /* by type number */
    const char *const *node_type_name;   /* by type number: "object", ... */
    int no_refs;             /* the heap gets no references: no essential edges, holding
                                of unreached nodes nor distances are needed */
    const uint8_t *eclass;   /* by string index below eclass_n: edge_name_class bits
                                (NULL: found from the texts) */
    size_t eclass_n;
    const char *(*str)(const void *ctx, uint32_t index);
    const void *str_ctx;
    uint64_t extra_native_bytes;
    gch_parallel par;        /* the view's steps may take a second thread (all zero: not) */
    const uint8_t *retainers; /* with no_refs, per node: 0, 1 or 2 (more) edges of the
                                 whole snapshot point at it, when the edges given are
                                 only those the view asks about (the reader's lean
                                 edges); NULL: counted from the edges given */
} v8_graph;

typedef struct v8_devtools {
    uint64_t *size;          /* per node: DevTools' self size (the graph's array, folded
                                in place: not owned) */
    uint32_t *cls;           /* per node: class number (names[cls]) */
    gch_str_table names;     /* class names */
    int32_t *distance;       /* per node: DevTools' distance, V8_NO_DISTANCE when none
                                (NULL with no_refs) */
    uint8_t *essential;      /* bit per edge: holds its target for the dominator tree */
    uint32_t *hung;          /* nodes no essential path reaches: DevTools hangs them under the root */
    size_t hung_n;
    int folded;              /* the snapshot has user roots: owned arrays were folded */
    int refs_given;          /* the reader gave the heap only the essential references
                                and the hung ones: apply leaves them */
    int sizes_given;         /* the reader gave the heap DevTools' self sizes: apply
                                leaves them */
    uint64_t detached;       /* nodes named Detached ... */
    uint8_t *det;            /* per node: DOM state after propagation (0 unknown, 1 attached,
                                2 detached); NULL when no node has one */
    /* Statistics view (JSHeapSnapshot.calculateStatistics) */
    uint64_t st_total, st_code, st_strings, st_js_arrays, st_typed_arrays, st_system, st_native;
} v8_devtools;

/* Computes DevTools' view of g into d; g->size becomes DevTools' self
 * sizes (cut to 32 bits where folding passed them: as the heap keeps them).
 * GCH_ENOMEM; d is freed on error. */
gch_status v8_devtools_run(const v8_graph *g, v8_devtools *d, gch_error *err);

/* Applies d to the finished heap h (objects in node order, with the
 * references the reader gave: every edge but weak ones and shortcuts away
 * from the root, unless d->refs_given): sizes, types, only the essential
 * references plus one from the root to each hung node, and the distances
 * (moved to h->v8_distance). */
gch_status v8_devtools_apply(v8_devtools *d, const v8_graph *g, gch_heap *h, gch_error *err);

void v8_devtools_free(v8_devtools *d);

#endif
