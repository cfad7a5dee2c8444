/* v8_writer.h - a test-only writer of V8 heap snapshots (.heapsnapshot JSON).
 *
 * It writes what V8's HeapSnapshotJSONSerializer writes (snapshot.meta with
 * the declared fields and type enumerations, node_count / edge_count, flat
 * nodes and edges arrays, the trailing sections and the strings table), with
 * knobs for the variants a reader must handle: 6 node fields (older V8) or 7
 * (with detachedness), fields declared in another order, non-ASCII names
 * written as \uXXXX escapes (surrogate pairs above U+FFFF), blanks between
 * tokens, and unknown members to skip.
 */
#ifndef GCHEAP_TEST_V8_WRITER_H
#define GCHEAP_TEST_V8_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct v8w_node {
    const char *type;      /* "object", "string", "hidden", "synthetic", ... */
    const char *name;      /* UTF-8 */
    uint64_t id;
    uint64_t self_size;
    unsigned detachedness; /* written with seven fields only */
} v8w_node;

typedef struct v8w_edge {
    unsigned from, to;     /* node positions */
    const char *type;      /* "property", "element", "context", "internal", "hidden", "shortcut", "weak" */
    const char *name;      /* string-named types */
    uint32_t index;        /* element and hidden */
} v8w_edge;

typedef struct v8w_spec {
    const v8w_node *nodes;
    size_t node_count;
    const v8w_edge *edges; /* any order: written grouped by `from`, stable */
    size_t edge_count;
    int seven_fields;      /* add "detachedness" */
    int reordered;         /* declare node and edge fields in another order */
    int escape_unicode;    /* non-ASCII as \uXXXX (else raw UTF-8) */
    int blanks;            /* newlines and spaces between tokens */
    int extra_sections;    /* trace_*, samples, locations and an unknown member */
} v8w_spec;

/* The snapshot text (malloc'd; *len receives its length). NULL when out of memory. */
char *v8w_write(const v8w_spec *spec, size_t *len);

#endif
