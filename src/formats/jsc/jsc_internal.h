/* Internal to the JavaScriptCore heap snapshot reader (docs/jsc-format.md):
 * what jsc_parse.c reads from the JSON and jsc_graph.c turns into a heap. */
#ifndef GCHEAP_JSC_INTERNAL_H
#define GCHEAP_JSC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/builder.h"
#include "gcheap/load.h"
#include "json_tokenizer.h"

#define JSC_FLAG_INTERNAL 1u       /* NodeFlags::Internal: no structure or no realm */
#define JSC_FLAG_OBJECT_SUBTYPE 2u /* NodeFlags::ObjectSubtype: a plain JSObject named by constructor */
#define JSC_MAX_EDGE_TYPES 16      /* entries of edgeTypes an edge may name */

/* What an edge type means (by its name in edgeTypes). */
enum jsc_edge_kind { JSC_EDGE_INTERNAL, JSC_EDGE_PROPERTY, JSC_EDGE_INDEX, JSC_EDGE_VARIABLE,
                     JSC_EDGE_OTHER };

/* A list of strings (nodeClassNames, edgeNames, edgeTypes, labels). */
typedef struct jsc_strings {
    gch_json_text pool;      /* each NUL-terminated */
    uint64_t *off;
    size_t n, cap;
    int present;
} jsc_strings;

/* The largest index a section used and where: checked once its table is known. */
typedef struct jsc_maxref {
    uint64_t max, at;
    int any;
} jsc_maxref;

typedef struct jsc_snapshot {
    gch_json_in in;
    const gch_load_options *opts;
    gch_error *err;

    uint64_t version;
    int have_version, gc_debugging, have_type;
    unsigned node_fields;    /* 4, or 7 in GCDebugging snapshots */

    /* nodes, struct of arrays */
    size_t node_n, node_cap;
    uint64_t *n_id, *n_size;
    uint32_t *n_class;
    uint8_t *n_flags;
    int have_nodes;

    /* edges, struct of arrays, in file order */
    size_t edge_n, edge_cap;
    uint64_t *e_from, *e_to;
    uint32_t *e_data;
    uint8_t *e_type;
    int have_edges;

    /* roots of GCDebugging snapshots: node id, root reason, reachability reason */
    size_t root_n, root_cap;
    uint64_t *r_node;
    uint32_t *r_reason, *r_reach;
    int have_roots;

    jsc_strings class_names, edge_types, edge_names, labels;

    jsc_maxref max_class, max_label;              /* node class and label indexes */
    jsc_maxref max_edge_data[JSC_MAX_EDGE_TYPES]; /* per edge type index */
    jsc_maxref max_root_label;                    /* roots' reason indexes */
} jsc_snapshot;

/* Reads the whole JSON object into s (jsc_parse.c). */
gch_status jsc_parse(jsc_snapshot *s);
/* Checks the indexes against the tables and builds the dump (jsc_graph.c). */
gch_status jsc_build(jsc_snapshot *s, gch_dump **out);
void jsc_snapshot_free(jsc_snapshot *s);

/* The kind of edge type index t (t < edge_types.n). */
enum jsc_edge_kind jsc_edge_kind_of(const jsc_snapshot *s, uint64_t t);

static inline const char *jsc_string(const jsc_strings *l, size_t i)
{
    return l->pool.s + l->off[i];
}

#endif
