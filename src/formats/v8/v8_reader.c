/* The V8 heap snapshot reader (.heapsnapshot JSON: Chrome, Node.js, Deno, Electron).
 *
 * The format and how it maps onto the heap model are described in
 * docs/v8-format.md. The file is one JSON object: "snapshot" (with "meta",
 * which declares the node and edge fields and their type enumerations),
 * then flat integer arrays "nodes" and "edges", other sections, and the
 * "strings" table last. Names are only known at the end, so the reader keeps
 * the arrays compactly (struct of arrays, string indices unresolved) while it
 * streams the input through v8_json.c, and feeds the builder once the whole
 * file has been checked.
 *
 * Semantics follow DevTools (front_end/entrypoints/heap_snapshot_worker/
 * HeapSnapshot.ts): node 0 (snapshot.root_index) is the synthetic root and is
 * the one strong root; weak edges hold nothing; a shortcut edge holds only when
 * it leaves the root; types are DevTools' class names (JSHeapSnapshotNode.className).
 */
#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/builder.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "grow.h"
#include "v8_json.h"

#define MAX_FIELDS 64        /* node or edge fields declared by snapshot.meta */
#define MAX_TYPES 255        /* entries of a type enumeration */
#define BATCH 4096           /* integers parsed at a time */
#define TYPE_RAW_NAMED 256   /* raw type id of an object/native class: this + name index */
#define MAX_LABEL_NAME 1024  /* longer property names are cut in reference labels */

enum node_field { NF_TYPE, NF_NAME, NF_ID, NF_SELF_SIZE, NF_EDGE_COUNT, NF_DETACHEDNESS, NF_OTHER };
enum edge_field { EF_TYPE, EF_NAME, EF_TO, EF_OTHER };
enum node_role { NT_OTHER, NT_HIDDEN, NT_OBJECT, NT_NATIVE, NT_CODE };
enum edge_role { ET_OTHER, ET_CONTEXT, ET_ELEMENT, ET_PROPERTY, ET_INTERNAL, ET_HIDDEN, ET_SHORTCUT,
                 ET_WEAK, ET_INVISIBLE };

/* A list of names from snapshot.meta (fields, or one type enumeration). */
typedef struct name_list {
    v8_text pool;               /* names, each NUL-terminated */
    uint32_t off[MAX_TYPES + 1];
    unsigned count;
    int present;
} name_list;

typedef struct v8_reader {
    v8_in in;
    const gch_load_options *opts;
    gch_error *err;
    v8_text key;                /* scratch: the current object key */

    /* snapshot */
    int have_snapshot, have_meta;
    name_list node_fields, edge_fields;
    name_list node_enum[MAX_FIELDS], edge_enum[MAX_FIELDS]; /* per field position */
    unsigned nfields, efields;
    uint8_t node_field[MAX_FIELDS], edge_field[MAX_FIELDS];
    unsigned ntypes, etypes;
    uint8_t node_role[MAX_TYPES], edge_role[MAX_TYPES];
    const name_list *node_types;
    uint64_t node_count_decl, edge_count_decl, root_index;
    int have_node_count, have_edge_count, has_detachedness;
    v8_text title;

    /* nodes, struct of arrays */
    size_t node_n, node_cap;
    uint8_t *n_type, *n_det;
    uint32_t *n_name, *n_edges;
    uint64_t *n_id, *n_size;
    uint64_t edge_sum;
    int nodes_done;

    /* edges */
    size_t edge_n, edge_cap;
    uint8_t *e_type;
    uint32_t *e_name, *e_to;
    int edges_done;

    /* the largest string index used, and where, checked once strings are known */
    uint64_t max_string, max_string_at;
    int any_string;

    /* strings */
    v8_text pool;
    uint64_t *str_off;
    size_t str_n, str_cap;
    int strings_done;

    /* counts for info */
    uint64_t weak_edges, dropped_shortcuts, weak_only_nodes, det_count[3];
} v8_reader;

static gch_status oom(v8_reader *r)
{
    return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
}

/* ------------------------------------------------------------------------ */
/* snapshot.meta */

static gch_status name_list_read_one(v8_reader *r, name_list *l)
{
    if (l->count >= MAX_TYPES)
        return v8_fail(&r->in, "snapshot.meta: more than %d names in a list", MAX_TYPES);
    l->off[l->count++] = (uint32_t)l->pool.len;
    gch_status st = v8_string(&r->in, &l->pool);
    if (st == GCH_OK) {
        size_t len = l->pool.len;
        /* keep the terminating NUL as part of the pool */
        if (!gch_grow((void **)&l->pool.s, &l->pool.cap, len + 2, 1, 64))
            return oom(r);
        l->pool.s[len] = '\0';
        l->pool.len = len + 1;
    }
    return st;
}

/* Reads ["a", "b", ...] into l. */
static gch_status read_name_list(v8_reader *r, name_list *l)
{
    gch_status st = v8_expect(&r->in, '[', "'[' (a list of names)");
    if (st != GCH_OK)
        return st;
    l->present = 1;
    l->count = 0;
    l->pool.len = 0;
    if (v8_peek(&r->in) == ']') {
        r->in.p++;
        return GCH_OK;
    }
    for (;;) {
        if ((st = name_list_read_one(r, l)) != GCH_OK)
            return st;
        int c = v8_peek(&r->in);
        r->in.p += c == ',' || c == ']';
        if (c == ']')
            return GCH_OK;
        if (c != ',')
            return v8_expect(&r->in, ',', "',' or ']'");
    }
}

/* Reads node_types / edge_types: per field, an enumeration (a list of names) or
 * a description string; the enumerations are kept per position. */
static gch_status read_type_lists(v8_reader *r, name_list *per_field)
{
    gch_status st = v8_expect(&r->in, '[', "'[' (snapshot.meta types)");
    if (st != GCH_OK)
        return st;
    if (v8_peek(&r->in) == ']') {
        r->in.p++;
        return GCH_OK;
    }
    for (unsigned k = 0;; k++) {
        if (k >= MAX_FIELDS)
            return v8_fail(&r->in, "snapshot.meta: more than %d field types", MAX_FIELDS);
        st = v8_peek(&r->in) == '[' ? read_name_list(r, &per_field[k]) : v8_skip_value(&r->in);
        if (st != GCH_OK)
            return st;
        int c = v8_peek(&r->in);
        r->in.p += c == ',' || c == ']';
        if (c == ']')
            return GCH_OK;
        if (c != ',')
            return v8_expect(&r->in, ',', "',' or ']'");
    }
}

static const char *list_name(const name_list *l, unsigned k)
{
    return l->pool.s + l->off[k];
}

/* Calls each member of a JSON object in turn: fn reads the value of r->key. */
typedef gch_status (*member_fn)(v8_reader *r);

static gch_status read_object(v8_reader *r, member_fn fn, const char *what)
{
    gch_status st = v8_expect(&r->in, '{', what);
    if (st != GCH_OK)
        return st;
    if (v8_peek(&r->in) == '}') {
        r->in.p++;
        return GCH_OK;
    }
    for (;;) {
        r->key.len = 0;
        if (r->key.s)
            r->key.s[0] = '\0';
        if ((st = v8_string(&r->in, &r->key)) != GCH_OK || (st = v8_expect(&r->in, ':', "':'")) != GCH_OK ||
            (st = fn(r)) != GCH_OK)
            return st;
        int c = v8_peek(&r->in);
        r->in.p += c == ',' || c == '}';
        if (c == '}')
            return GCH_OK;
        if (c != ',')
            return v8_expect(&r->in, ',', "',' or '}'");
    }
}

static int key_is(const v8_reader *r, const char *name)
{
    return r->key.s && strcmp(r->key.s, name) == 0 && strlen(name) == r->key.len;
}

static gch_status meta_member(v8_reader *r)
{
    if (key_is(r, "node_fields"))
        return read_name_list(r, &r->node_fields);
    if (key_is(r, "edge_fields"))
        return read_name_list(r, &r->edge_fields);
    if (key_is(r, "node_types"))
        return read_type_lists(r, r->node_enum);
    if (key_is(r, "edge_types"))
        return read_type_lists(r, r->edge_enum);
    return v8_skip_value(&r->in);
}

static gch_status snapshot_member(v8_reader *r)
{
    if (key_is(r, "meta")) {
        r->have_meta = 1;
        return read_object(r, meta_member, "'{' (snapshot.meta)");
    }
    if (key_is(r, "node_count")) {
        r->have_node_count = 1;
        return v8_uint(&r->in, &r->node_count_decl, "snapshot.node_count");
    }
    if (key_is(r, "edge_count")) {
        r->have_edge_count = 1;
        return v8_uint(&r->in, &r->edge_count_decl, "snapshot.edge_count");
    }
    if (key_is(r, "root_index"))
        return v8_uint(&r->in, &r->root_index, "snapshot.root_index");
    if (key_is(r, "title") && v8_peek(&r->in) == '"') {
        r->title.len = 0;
        return v8_string(&r->in, &r->title);
    }
    return v8_skip_value(&r->in);
}

static int field_index(const name_list *l, const char *name)
{
    for (unsigned k = 0; k < l->count; k++)
        if (strcmp(list_name(l, k), name) == 0)
            return (int)k;
    return -1;
}

/* Checks the declared fields and maps them and the type enumerations to roles. */
static gch_status resolve_meta(v8_reader *r, uint64_t at)
{
    static const char *const nf_names[] = { "type", "name", "id", "self_size", "edge_count" };
    static const char *const ef_names[] = { "type", "name_or_index", "to_node" };
    if (!r->have_meta || !r->node_fields.present || !r->edge_fields.present)
        return v8_fail_at(&r->in, at, "snapshot.meta with node_fields and edge_fields must come before the arrays");
    r->nfields = r->node_fields.count;
    r->efields = r->edge_fields.count;
    if (r->nfields > MAX_FIELDS || r->efields > MAX_FIELDS)
        return v8_fail_at(&r->in, at, "snapshot.meta declares more than %d fields", MAX_FIELDS);
    for (unsigned k = 0; k < r->nfields; k++) {
        const char *n = list_name(&r->node_fields, k);
        r->node_field[k] = NF_OTHER;
        for (unsigned f = 0; f < 5; f++)
            if (strcmp(n, nf_names[f]) == 0)
                r->node_field[k] = (uint8_t)f;
        if (strcmp(n, "detachedness") == 0) {
            r->node_field[k] = NF_DETACHEDNESS;
            r->has_detachedness = 1;
        }
    }
    for (unsigned f = 0; f < 5; f++)
        if (field_index(&r->node_fields, nf_names[f]) < 0)
            return v8_fail_at(&r->in, at, "snapshot.meta.node_fields has no \"%s\"", nf_names[f]);
    for (unsigned k = 0; k < r->efields; k++) {
        const char *n = list_name(&r->edge_fields, k);
        r->edge_field[k] = EF_OTHER;
        for (unsigned f = 0; f < 3; f++)
            if (strcmp(n, ef_names[f]) == 0)
                r->edge_field[k] = (uint8_t)f;
    }
    for (unsigned f = 0; f < 3; f++)
        if (field_index(&r->edge_fields, ef_names[f]) < 0)
            return v8_fail_at(&r->in, at, "snapshot.meta.edge_fields has no \"%s\"", ef_names[f]);

    const name_list *nt = &r->node_enum[field_index(&r->node_fields, "type")];
    const name_list *et = &r->edge_enum[field_index(&r->edge_fields, "type")];
    if (!nt->present || !et->present)
        return v8_fail_at(&r->in, at, "snapshot.meta: no enumeration of node or edge types");
    r->node_types = nt;
    r->ntypes = nt->count;
    for (unsigned k = 0; k < nt->count; k++) {
        const char *n = list_name(nt, k);
        r->node_role[k] = strcmp(n, "hidden") == 0   ? NT_HIDDEN
                          : strcmp(n, "object") == 0 ? NT_OBJECT
                          : strcmp(n, "native") == 0 ? NT_NATIVE
                          : strcmp(n, "code") == 0   ? NT_CODE
                                                     : NT_OTHER;
    }
    static const char *const et_names[] = { "", "context", "element", "property", "internal",
                                            "hidden", "shortcut", "weak", "invisible" };
    r->etypes = et->count;
    for (unsigned k = 0; k < et->count; k++) {
        r->edge_role[k] = ET_OTHER;
        for (unsigned e = 1; e < sizeof et_names / sizeof *et_names; e++)
            if (strcmp(list_name(et, k), et_names[e]) == 0)
                r->edge_role[k] = (uint8_t)e;
    }
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* nodes, edges, strings */

static void note_string_index(v8_reader *r, uint64_t index, uint64_t at)
{
    if (!r->any_string || index > r->max_string) {
        r->max_string = index;
        r->max_string_at = at;
        r->any_string = 1;
    }
}

static int grow_nodes(v8_reader *r, size_t need)
{
    if (need <= r->node_cap)
        return 1;
    size_t cap = r->node_cap;
    size_t c1 = cap, c2 = cap, c3 = cap, c4 = cap, c5 = cap, c6 = cap;
    if (!gch_grow((void **)&r->n_type, &c1, need, 1, 1024) || !gch_grow((void **)&r->n_det, &c2, need, 1, 1024) ||
        !gch_grow((void **)&r->n_name, &c3, need, 4, 1024) || !gch_grow((void **)&r->n_edges, &c4, need, 4, 1024) ||
        !gch_grow((void **)&r->n_id, &c5, need, 8, 1024) || !gch_grow((void **)&r->n_size, &c6, need, 8, 1024))
        return 0;
    /* All grew from the same capacity by the same rule. */
    r->node_cap = c1;
    return 1;
}

static int grow_edges(v8_reader *r, size_t need)
{
    if (need <= r->edge_cap)
        return 1;
    size_t c1 = r->edge_cap, c2 = r->edge_cap, c3 = r->edge_cap;
    if (!gch_grow((void **)&r->e_type, &c1, need, 1, 4096) || !gch_grow((void **)&r->e_name, &c2, need, 4, 4096) ||
        !gch_grow((void **)&r->e_to, &c3, need, 4, 4096))
        return 0;
    r->edge_cap = c1;
    return 1;
}

/* Reserves room for a declared count when the bytes left can hold it (two
 * bytes per number at least); otherwise the arrays grow as rows come. */
static size_t backed_count(const v8_reader *r, uint64_t declared, unsigned fields)
{
    if (r->in.src || fields == 0)
        return 0;
    uint64_t left = (uint64_t)(r->in.end - r->in.p);
    uint64_t fits = left / 2 / fields;
    uint64_t n = declared < fits ? declared : fits;
    return n > SIZE_MAX / 8 ? 0 : (size_t)n;
}

static gch_status read_nodes(v8_reader *r)
{
    uint64_t at = v8_offset(&r->in);
    gch_status st = resolve_meta(r, at);
    if (st != GCH_OK)
        return st;
    if (r->nodes_done)
        return v8_fail(&r->in, "a second \"nodes\" array");
    if ((st = v8_expect(&r->in, '[', "'[' (nodes)")) != GCH_OK)
        return st;
    size_t reserve = backed_count(r, r->node_count_decl, r->nfields);
    if (reserve && !grow_nodes(r, reserve))
        return oom(r);
    uint64_t vals[BATCH];
    int state = 0, closed = 0;
    unsigned col = 0;
    while (!closed) {
        size_t n;
        uint64_t batch_at = v8_offset(&r->in);
        if ((st = v8_uint_batch(&r->in, &state, vals, BATCH, &n, &closed, "nodes")) != GCH_OK)
            return st;
        for (size_t k = 0; k < n; k++) {
            size_t i = r->node_n;
            if (col == 0) {
                if (i >= (size_t)UINT32_MAX - 2)
                    return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32-3 nodes");
                if (!grow_nodes(r, i + 1))
                    return oom(r);
                r->n_det[i] = 0;
            }
            uint64_t v = vals[k];
            switch (r->node_field[col]) {
            case NF_TYPE:
                if (v >= r->ntypes)
                    return v8_fail_at(&r->in, batch_at, "node %zu: type %llu is not in snapshot.meta.node_types",
                                      i, (unsigned long long)v);
                r->n_type[i] = (uint8_t)v;
                break;
            case NF_NAME:
                if (v > UINT32_MAX)
                    return v8_fail_at(&r->in, batch_at, "node %zu: name index %llu is too large", i,
                                      (unsigned long long)v);
                note_string_index(r, v, batch_at);
                r->n_name[i] = (uint32_t)v;
                break;
            case NF_ID:
                if (v == 0)
                    return v8_fail_at(&r->in, batch_at, "node %zu: id 0 (no V8 node has it; gcheap reserves it)", i);
                r->n_id[i] = v;
                break;
            case NF_SELF_SIZE:
                r->n_size[i] = v;
                break;
            case NF_EDGE_COUNT:
                if (v > UINT32_MAX)
                    return v8_fail_at(&r->in, batch_at, "node %zu: edge_count %llu is too large", i,
                                      (unsigned long long)v);
                r->n_edges[i] = (uint32_t)v;
                r->edge_sum += v;
                break;
            case NF_DETACHEDNESS:
                r->n_det[i] = (uint8_t)(v > 2 ? 0 : v);
                break;
            default:
                break;
            }
            if (++col == r->nfields) {
                col = 0;
                r->node_n++;
            }
        }
    }
    if (col != 0)
        return v8_fail(&r->in, "nodes: %llu numbers, not a multiple of the %u node fields",
                       (unsigned long long)r->node_n * r->nfields + col, r->nfields);
    if (r->have_node_count && r->node_count_decl != r->node_n)
        return v8_fail(&r->in, "nodes: %zu nodes, but snapshot.node_count says %llu", r->node_n,
                       (unsigned long long)r->node_count_decl);
    r->nodes_done = 1;
    return GCH_OK;
}

static gch_status read_edges(v8_reader *r)
{
    gch_status st;
    if (!r->nodes_done)
        return v8_fail(&r->in, "\"edges\" before \"nodes\" (V8 writes nodes first)");
    if (r->edges_done)
        return v8_fail(&r->in, "a second \"edges\" array");
    if ((st = v8_expect(&r->in, '[', "'[' (edges)")) != GCH_OK)
        return st;
    if (r->edge_sum >= UINT32_MAX)
        return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32-2 edges");
    size_t reserve = backed_count(r, r->edge_sum, r->efields);
    if (reserve && !grow_edges(r, reserve))
        return oom(r);
    uint64_t node_len = (uint64_t)r->node_n * r->nfields;
    uint64_t vals[BATCH];
    int state = 0, closed = 0;
    unsigned col = 0;
    while (!closed) {
        size_t n;
        uint64_t batch_at = v8_offset(&r->in);
        if ((st = v8_uint_batch(&r->in, &state, vals, BATCH, &n, &closed, "edges")) != GCH_OK)
            return st;
        for (size_t k = 0; k < n; k++) {
            size_t e = r->edge_n;
            if (col == 0) {
                if (e >= r->edge_sum)
                    return v8_fail_at(&r->in, batch_at, "edges: more than the %llu edges the nodes' edge_count add up to",
                                      (unsigned long long)r->edge_sum);
                if (!grow_edges(r, e + 1))
                    return oom(r);
            }
            uint64_t v = vals[k];
            switch (r->edge_field[col]) {
            case EF_TYPE:
                if (v >= r->etypes)
                    return v8_fail_at(&r->in, batch_at, "edge %zu: type %llu is not in snapshot.meta.edge_types", e,
                                      (unsigned long long)v);
                r->e_type[e] = (uint8_t)v;
                break;
            case EF_NAME:
                if (v > UINT32_MAX)
                    return v8_fail_at(&r->in, batch_at, "edge %zu: name_or_index %llu is too large", e,
                                      (unsigned long long)v);
                r->e_name[e] = (uint32_t)v;
                break;
            case EF_TO:
                if (v >= node_len || v % r->nfields != 0)
                    return v8_fail_at(&r->in, batch_at,
                                      "edge %zu: to_node %llu is not the start of a node (%zu nodes of %u fields)",
                                      e, (unsigned long long)v, r->node_n, r->nfields);
                r->e_to[e] = (uint32_t)(v / r->nfields);
                break;
            default:
                break;
            }
            if (++col == r->efields) {
                col = 0;
                uint8_t role = r->edge_role[r->e_type[e]];
                if (role != ET_ELEMENT && role != ET_HIDDEN)
                    note_string_index(r, r->e_name[e], batch_at);
                r->edge_n++;
            }
        }
    }
    if (col != 0)
        return v8_fail(&r->in, "edges: %llu numbers, not a multiple of the %u edge fields",
                       (unsigned long long)r->edge_n * r->efields + col, r->efields);
    if (r->edge_n != r->edge_sum)
        return v8_fail(&r->in, "edges: %zu edges, but the nodes' edge_count add up to %llu", r->edge_n,
                       (unsigned long long)r->edge_sum);
    if (r->have_edge_count && r->edge_count_decl != r->edge_n)
        return v8_fail(&r->in, "edges: %zu edges, but snapshot.edge_count says %llu", r->edge_n,
                       (unsigned long long)r->edge_count_decl);
    r->edges_done = 1;
    return GCH_OK;
}

static gch_status read_strings(v8_reader *r)
{
    gch_status st;
    if (r->strings_done)
        return v8_fail(&r->in, "a second \"strings\" array");
    if ((st = v8_expect(&r->in, '[', "'[' (strings)")) != GCH_OK)
        return st;
    r->strings_done = 1;
    if (v8_peek(&r->in) == ']') {
        r->in.p++;
        return GCH_OK;
    }
    for (;;) {
        if (r->str_n >= UINT32_MAX)
            return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32-1 strings");
        if (!gch_grow((void **)&r->str_off, &r->str_cap, r->str_n + 1, sizeof *r->str_off, 1024))
            return oom(r);
        r->str_off[r->str_n++] = r->pool.len;
        if ((st = v8_string(&r->in, &r->pool)) != GCH_OK)
            return st;
        /* Strings are kept NUL-terminated in the pool. */
        if (!gch_grow((void **)&r->pool.s, &r->pool.cap, r->pool.len + 2, 1, 64))
            return oom(r);
        r->pool.s[r->pool.len++] = '\0';
        int c = v8_peek(&r->in);
        r->in.p += c == ',' || c == ']';
        if (c == ']')
            return GCH_OK;
        if (c != ',')
            return v8_expect(&r->in, ',', "',' or ']'");
    }
}

static gch_status top_member(v8_reader *r)
{
    if (key_is(r, "snapshot")) {
        r->have_snapshot = 1;
        return read_object(r, snapshot_member, "'{' (snapshot)");
    }
    if (key_is(r, "nodes"))
        return read_nodes(r);
    if (key_is(r, "edges"))
        return read_edges(r);
    if (key_is(r, "strings"))
        return read_strings(r);
    return v8_skip_value(&r->in);
}

static gch_status parse(v8_reader *r)
{
    gch_status st = read_object(r, top_member, "'{' (a V8 heap snapshot starts with {\"snapshot\":)");
    if (st != GCH_OK)
        return st;
    int c = v8_peek(&r->in);
    if (c == -2)
        return GCH_EIO;
    if (c != -1)
        return v8_fail(&r->in, "data after the end of the snapshot object");
    if (!r->have_snapshot)
        return v8_fail(&r->in, "no \"snapshot\" member");
    if (!r->nodes_done || !r->edges_done || !r->strings_done)
        return v8_fail(&r->in, "the snapshot has no \"%s\" array",
                       !r->nodes_done ? "nodes" : !r->edges_done ? "edges" : "strings");
    if (r->any_string && r->max_string >= r->str_n)
        return v8_fail_at(&r->in, r->max_string_at, "string index %llu is out of range (%zu strings)",
                          (unsigned long long)r->max_string, r->str_n);
    if (r->node_n == 0)
        return v8_fail(&r->in, "the snapshot has no nodes (not even the synthetic root)");
    if (r->root_index % r->nfields != 0 || r->root_index / r->nfields >= r->node_n)
        return v8_fail(&r->in, "snapshot.root_index %llu is not the start of a node",
                       (unsigned long long)r->root_index);
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* Building the heap */

static const char *str_at(const v8_reader *r, uint32_t index)
{
    return r->pool.s + r->str_off[index];
}

static uint64_t class_raw_id(const v8_reader *r, size_t i)
{
    uint8_t role = r->node_role[r->n_type[i]];
    if (role == NT_OBJECT || role == NT_NATIVE)
        return TYPE_RAW_NAMED + (uint64_t)r->n_name[i];
    return r->n_type[i];
}

/* DevTools' JSHeapSnapshotNode.className: the name for objects and natives,
 * "(system)" for hidden, "(compiled code)" for code, "(TYPE)" otherwise. */
static gch_status declare_types(v8_reader *r, gch_builder *b)
{
    size_t slots = TYPE_RAW_NAMED + r->str_n;
    uint8_t *declared = gch_calloc(slots, 1);
    v8_text name = { 0 };
    gch_status st = GCH_OK;
    if (!declared)
        return oom(r);
    for (size_t i = 0; i < r->node_n && st == GCH_OK; i++) {
        uint64_t raw = class_raw_id(r, i);
        if (declared[raw])
            continue;
        declared[raw] = 1;
        const char *text;
        uint8_t role = r->node_role[r->n_type[i]];
        if (role == NT_OBJECT || role == NT_NATIVE) {
            text = str_at(r, r->n_name[i]);
            if (!text[0])
                text = "(no name)";
        } else if (role == NT_HIDDEN) {
            text = "(system)";
        } else if (role == NT_CODE) {
            text = "(compiled code)";
        } else {
            const char *t = list_name(r->node_types, r->n_type[i]);
            size_t n = strlen(t);
            if (!gch_grow((void **)&name.s, &name.cap, n + 3, 1, 64)) {
                st = oom(r);
                break;
            }
            name.s[0] = '(';
            memcpy(name.s + 1, t, n);
            name.s[n + 1] = ')';
            name.s[n + 2] = '\0';
            text = name.s;
        }
        st = gch_builder_add_type(b, raw, text, strlen(text), NULL, r->err);
    }
    gch_free(name.s);
    gch_free(declared);
    return st;
}

/* Whether an edge of node `from` holds its target (DevTools' isEssentialEdge). */
static int essential(const v8_reader *r, size_t from, uint8_t etype, size_t root)
{
    uint8_t role = r->edge_role[etype];
    return role != ET_WEAK && (role != ET_SHORTCUT || from == root);
}

/* Marks the nodes DevTools visits in its second pass: not reachable from the
 * root through essential edges, and retained by no essential edge at all
 * (only weak or shortcut ones, or none). They become weak roots. */
static gch_status find_weak_only(v8_reader *r, size_t root, uint8_t **out)
{
    size_t n = r->node_n;
    uint8_t *mark = gch_calloc(n, 1); /* 1 reached, 2 has an essential retainer */
    uint32_t *first = gch_reallocarray(NULL, n + 1, sizeof *first);
    uint32_t *queue = gch_reallocarray(NULL, n, sizeof *queue);
    if (!mark || !first || !queue) {
        gch_free(mark);
        gch_free(first);
        gch_free(queue);
        return oom(r);
    }
    uint64_t e = 0;
    for (size_t i = 0; i < n; i++) {
        first[i] = (uint32_t)e;
        e += r->n_edges[i];
    }
    first[n] = (uint32_t)e;
    size_t head = 0, tail = 0;
    queue[tail++] = (uint32_t)root;
    mark[root] = 1;
    while (head < tail) {
        size_t from = queue[head++];
        for (uint32_t k = first[from]; k < first[from + 1]; k++) {
            uint32_t to = r->e_to[k];
            if (!mark[to] && essential(r, from, r->e_type[k], root)) {
                mark[to] = 1;
                queue[tail++] = to;
            }
        }
    }
    for (size_t from = 0; from < n; from++)
        for (uint32_t k = first[from]; k < first[from + 1]; k++)
            if (essential(r, from, r->e_type[k], root))
                mark[r->e_to[k]] |= 2;
    gch_free(first);
    gch_free(queue);
    for (size_t i = 0; i < n; i++) {
        mark[i] = mark[i] == 0 && i != root;
        r->weak_only_nodes += mark[i];
    }
    *out = mark;
    return GCH_OK;
}

typedef struct emit_scratch {
    uint64_t *refs;
    size_t *label_at;
    const char **labels;
    size_t cap;
    v8_text text;
} emit_scratch;

/* Appends the label of edge k (DevTools' JSHeapSnapshotEdge.toString, with
 * "context NAME" for context variables) to s->text. */
static int put_label(const v8_reader *r, emit_scratch *s, size_t k)
{
    char num[32];
    const char *name = NULL;
    size_t len = 0;
    uint8_t role = r->edge_role[r->e_type[k]];
    if (role == ET_ELEMENT || role == ET_HIDDEN) {
        snprintf(num, sizeof num, role == ET_ELEMENT ? "[%lu]" : "{%lu}", (unsigned long)r->e_name[k]);
        name = num;
        len = strlen(num);
    } else {
        const char *text = str_at(r, r->e_name[k]);
        len = strlen(text);
        if (len > MAX_LABEL_NAME)
            len = MAX_LABEL_NAME;
        const char *open = "{", *close = "}";
        int numeric = len > 0 && strspn(text, "0123456789") == len;
        if (role == ET_SHORTCUT && numeric) {
            open = "[";
            close = "]";
        } else if (role == ET_PROPERTY || role == ET_SHORTCUT) {
            int spaced = memchr(text, ' ', len) != NULL;
            open = spaced ? "[\"" : ".";
            close = spaced ? "\"]" : "";
        } else if (role == ET_CONTEXT) {
            open = "context ";
            close = "";
        }
        size_t need = s->text.len + strlen(open) + len + strlen(close) + 1;
        if (!gch_grow((void **)&s->text.s, &s->text.cap, need, 1, 256))
            return 0;
        char *o = s->text.s + s->text.len;
        o += sprintf(o, "%s", open);
        memcpy(o, text, len);
        o += len;
        o += sprintf(o, "%s", close);
        *o++ = '\0';
        s->text.len = (size_t)(o - s->text.s);
        return 1;
    }
    if (!gch_grow((void **)&s->text.s, &s->text.cap, s->text.len + len + 1, 1, 256))
        return 0;
    memcpy(s->text.s + s->text.len, name, len + 1);
    s->text.len += len + 1;
    return 1;
}

static gch_status emit_objects(v8_reader *r, gch_builder *b, size_t root)
{
    emit_scratch s = { 0 };
    gch_status st = GCH_OK;
    uint64_t e = 0;
    for (size_t i = 0; i < r->node_n && st == GCH_OK; i++) {
        uint64_t end = e + r->n_edges[i];
        if (r->opts->skip_refs) {
            st = gch_builder_object_begin(b, r->n_id[i], class_raw_id(r, i), r->n_size[i], r->err);
            e = end;
            continue;
        }
        size_t need = r->n_edges[i];
        if (need > s.cap) {
            size_t c1 = s.cap, c2 = s.cap, c3 = s.cap;
            if (!gch_grow((void **)&s.refs, &c1, need, sizeof *s.refs, 64) ||
                !gch_grow((void **)&s.label_at, &c2, need, sizeof *s.label_at, 64) ||
                !gch_grow((void **)&s.labels, &c3, need, sizeof *s.labels, 64)) {
                st = oom(r);
                break;
            }
            s.cap = c1;
        }
        size_t nrefs = 0;
        s.text.len = 0;
        for (; e < end; e++) {
            if (!essential(r, i, r->e_type[e], root))
                continue;
            s.refs[nrefs] = r->n_id[r->e_to[e]];
            s.label_at[nrefs] = s.text.len;
            if (!put_label(r, &s, e)) {
                st = oom(r);
                break;
            }
            nrefs++;
        }
        if (st != GCH_OK)
            break;
        for (size_t k = 0; k < nrefs; k++)
            s.labels[k] = s.text.s + s.label_at[k];
        st = gch_builder_add_object_labeled(b, r->n_id[i], class_raw_id(r, i), r->n_size[i], s.refs,
                                            s.labels, nrefs, r->err);
    }
    gch_free(s.refs);
    gch_free(s.label_at);
    gch_free(s.labels);
    gch_free(s.text.s);
    return st;
}

static gch_status add_meta_u64(gch_builder *b, const char *key, uint64_t v, gch_error *err)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return gch_builder_add_meta(b, key, buf, err);
}

static gch_status emit_meta(v8_reader *r, gch_builder *b)
{
    v8_text fields = { 0 };
    for (unsigned k = 0; k < r->nfields; k++) {
        const char *n = list_name(&r->node_fields, k);
        size_t len = strlen(n);
        if (!gch_grow((void **)&fields.s, &fields.cap, fields.len + len + 2, 1, 64)) {
            gch_free(fields.s);
            return oom(r);
        }
        if (k)
            fields.s[fields.len++] = ',';
        memcpy(fields.s + fields.len, n, len + 1);
        fields.len += len;
    }
    gch_status st = gch_builder_add_meta(b, "node_fields", fields.s ? fields.s : "", r->err);
    gch_free(fields.s);
    if (st == GCH_OK && r->title.len)
        st = gch_builder_add_meta(b, "title", r->title.s, r->err);
    if (st == GCH_OK)
        st = add_meta_u64(b, "nodes", r->node_n, r->err);
    if (st == GCH_OK)
        st = add_meta_u64(b, "edges", r->edge_n, r->err);
    if (st == GCH_OK)
        st = add_meta_u64(b, "strings", r->str_n, r->err);
    if (st == GCH_OK)
        st = add_meta_u64(b, "weak_edges", r->weak_edges, r->err);
    if (st == GCH_OK)
        st = add_meta_u64(b, "shortcut_edges_ignored", r->dropped_shortcuts, r->err);
    if (st == GCH_OK && !r->opts->skip_refs)
        st = add_meta_u64(b, "weak_only_nodes", r->weak_only_nodes, r->err);
    if (st == GCH_OK && r->has_detachedness) {
        if (st == GCH_OK)
            st = add_meta_u64(b, "detachedness_unknown", r->det_count[0], r->err);
        if (st == GCH_OK)
            st = add_meta_u64(b, "attached_nodes", r->det_count[1], r->err);
        if (st == GCH_OK)
            st = add_meta_u64(b, "detached_nodes", r->det_count[2], r->err);
    }
    return st;
}

static void count_edges_and_states(v8_reader *r, size_t root)
{
    uint64_t e = 0;
    for (size_t i = 0; i < r->node_n; i++) {
        r->det_count[r->n_det[i]]++;
        for (uint64_t end = e + r->n_edges[i]; e < end; e++) {
            uint8_t role = r->edge_role[r->e_type[e]];
            r->weak_edges += role == ET_WEAK;
            r->dropped_shortcuts += role == ET_SHORTCUT && i != root;
        }
    }
}

static void free_arrays(v8_reader *r)
{
    gch_free(r->n_type);
    gch_free(r->n_det);
    gch_free(r->n_name);
    gch_free(r->n_edges);
    gch_free(r->n_id);
    gch_free(r->n_size);
    gch_free(r->e_type);
    gch_free(r->e_name);
    gch_free(r->e_to);
    r->n_type = r->n_det = r->e_type = NULL;
    r->n_name = r->n_edges = r->e_name = r->e_to = NULL;
    r->n_id = r->n_size = NULL;
}

static gch_status build(v8_reader *r, gch_dump **out)
{
    size_t root = (size_t)(r->root_index / r->nfields);
    gch_builder *b = NULL;
    uint8_t *weak_only = NULL;
    count_edges_and_states(r, root);
    gch_status st = gch_builder_new(&b, "v8", r->err);
    if (st == GCH_OK && !r->opts->skip_refs)
        st = find_weak_only(r, root, &weak_only);
    if (st == GCH_OK)
        st = gch_builder_begin_heap(b, "v8", 2, r->err);
    if (st == GCH_OK) {
        gch_builder_set_id_radix(b, 10);
        if (r->opts->skip_refs)
            gch_builder_set_refs_skipped(b);
        st = declare_types(r, b);
    }
    if (st == GCH_OK)
        st = emit_objects(r, b, root);
    if (st == GCH_OK)
        st = gch_builder_add_root(b, r->n_id[root], GCH_ROOT_INTERNAL, 0, 0, 0, "synthetic root", r->err);
    for (size_t i = 0; weak_only && st == GCH_OK && i < r->node_n; i++)
        if (weak_only[i])
            st = gch_builder_add_root(b, r->n_id[i], GCH_ROOT_INTERNAL, GCH_ROOT_WEAK, 0, 0,
                                      "only weak retainers", r->err);
    gch_free(weak_only);
    if (st == GCH_OK)
        st = emit_meta(r, b);
    /* The builder has its own copies now: free ours before it resolves ids. */
    free_arrays(r);
    if (st == GCH_OK)
        st = gch_builder_end_heap(b, r->err);
    if (st == GCH_OK)
        st = gch_builder_finish(b, out, r->err);
    gch_builder_free(b);
    return st;
}

static void reader_free(v8_reader *r)
{
    free_arrays(r);
    v8_in_free(&r->in);
    gch_free(r->key.s);
    gch_free(r->title.s);
    gch_free(r->pool.s);
    gch_free(r->str_off);
    gch_free(r->node_fields.pool.s);
    gch_free(r->edge_fields.pool.s);
    for (unsigned k = 0; k < MAX_FIELDS; k++) {
        gch_free(r->node_enum[k].pool.s);
        gch_free(r->edge_enum[k].pool.s);
    }
    gch_free(r);
}

static gch_status run(v8_reader *r, gch_dump **out)
{
    gch_status st = parse(r);
    if (st == GCH_OK)
        st = build(r, out);
    if (st != GCH_OK && r->err && r->err->status == GCH_OK)
        gch_error_set(r->err, st, "%s", gch_status_string(st));
    return st;
}

static const gch_load_options no_options;

gch_status gch_read_v8_buffer(const void *data, size_t size, const gch_load_options *opts, gch_dump **out,
                              gch_error *err)
{
    *out = NULL;
    v8_reader *r = gch_calloc(1, sizeof *r);
    if (!r)
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    r->opts = opts ? opts : &no_options;
    r->err = err;
    v8_in_init_buffer(&r->in, data, size, r->opts, err);
    gch_status st = run(r, out);
    reader_free(r);
    return st;
}

gch_status gch_read_v8(const gch_source *src, const gch_load_options *opts, gch_dump **out, gch_error *err)
{
    *out = NULL;
    v8_reader *r = gch_calloc(1, sizeof *r);
    if (!r)
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    r->opts = opts ? opts : &no_options;
    r->err = err;
    gch_status st = v8_in_init_source(&r->in, src, r->opts, err);
    if (st == GCH_OK)
        st = run(r, out);
    reader_free(r);
    return st;
}
