/* The V8 heap snapshot reader (.heapsnapshot JSON: Chrome, Node.js, Deno, Electron).
 *
 * The format and how it maps onto the heap model are described in
 * docs/v8-format.md. The file is one JSON object: "snapshot" (with "meta",
 * which declares the node and edge fields and their type enumerations),
 * then flat integer arrays "nodes" and "edges", other sections, and the
 * "strings" table last. The input is streamed through v8_json.c. The nodes
 * are kept compactly (id, size, edge count, class); each node goes to the
 * builder as soon as its edges have been read, with its references' labels
 * given as keys of (edge type, name) pairs, since names are only known at the
 * end. Only the strings that name a class or a label are kept; once they are
 * read, the classes are declared and the label keys mapped to the names.
 * That is the careful path; a snapshot in memory first tries the bulk path
 * (below: both arrays at once, the objects handed over whole with references
 * as node positions), which falls back to it on anything unusual.
 *
 * Semantics follow DevTools (front_end/entrypoints/heap_snapshot_worker/
 * HeapSnapshot.ts): node 0 (snapshot.root_index) is the synthetic root and is
 * the one strong root; weak edges hold nothing; a shortcut edge holds only when
 * it leaves the root; types are DevTools' class names (JSHeapSnapshotNode.className).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/builder.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "hash.h"
#include "search.h"
#include "builder_internal.h"
#include "grow.h"
#include "threading.h"
#include "v8_bulk.h"
#include "json_tokenizer.h"
#include "u64_map.h"
#include "v8_devtools.h"
#include "v8_prescan.h"

#define MAX_FIELDS 64        /* node or edge fields declared by snapshot.meta */
#define MAX_TYPES 255        /* entries of a type enumeration */
#define BATCH 4096           /* integers parsed at a time */
#define TYPE_RAW_NAMED 256   /* raw type id of an object/native class: this + name index */
#define MAX_LABEL_NAME 1024  /* longer property names are cut in reference labels */
#define REF_CHUNK 4096       /* references handed to the builder at a time */
#define HUNG_ROLE 255        /* label key role of the root's edges to the nodes DevTools hangs there */

enum node_field { NF_TYPE, NF_NAME, NF_ID, NF_SELF_SIZE, NF_EDGE_COUNT, NF_DETACHEDNESS, NF_OTHER };
enum edge_field { EF_TYPE, EF_NAME, EF_TO, EF_OTHER };

/* A list of names from snapshot.meta (fields, or one type enumeration). */
typedef struct name_list {
    gch_json_text pool;               /* names, each NUL-terminated */
    uint32_t off[MAX_TYPES + 1];
    unsigned count;
    int present;
} name_list;

/* Distinct 64-bit keys numbered densely in order of arrival: the classes of
 * nodes and the (edge type, name) pairs of labels. The lookup table holds
 * ids only (the key is keys[id]). */
typedef struct key_set {
    uint32_t *slot;       /* open addressing: dense id, or UINT32_MAX when empty */
    size_t cap;
    size_t hashed;        /* ids in the slots */
    uint64_t *keys;       /* by dense id */
    size_t len, keys_cap;
    gch_hash_key hash;    /* keyed: the keys come from the input (src/util/hash.h) */
} key_set;

/* A per-node 64-bit value (id, size) held in 32 bits until one needs more:
 * V8's ids and sizes fit, and this halves their memory. */
typedef struct wide32 {
    uint32_t *narrow;
    uint64_t *wide;       /* used instead of narrow once set */
} wide32;

static inline uint64_t w_get(const wide32 *a, size_t i)
{
    return a->wide ? a->wide[i] : a->narrow[i];
}

static int w_grow(wide32 *a, size_t old_cap, size_t need)
{
    size_t cap = old_cap;
    return a->wide ? gch_grow((void **)&a->wide, &cap, need, 8, 1024)
                   : gch_grow((void **)&a->narrow, &cap, need, 4, 1024);
}

/* Sets a[i] (count values are set, cap allocated); 0 when out of memory. */
static int w_set(wide32 *a, size_t i, uint64_t v, size_t count, size_t cap)
{
    if (!a->wide && v > UINT32_MAX) {
        uint64_t *w = gch_reallocarray(NULL, cap ? cap : 1, sizeof *w);
        if (!w)
            return 0;
        for (size_t k = 0; k < count; k++)
            w[k] = a->narrow[k];
        gch_free(a->narrow);
        a->narrow = NULL;
        a->wide = w;
    }
    if (a->wide)
        a->wide[i] = v;
    else
        a->narrow[i] = (uint32_t)v;
    return 1;
}

static void w_free(wide32 *a)
{
    gch_free(a->narrow);
    gch_free(a->wide);
    a->narrow = NULL;
    a->wide = NULL;
}

/* What the bulk path made: the builder's arrays until they are handed over. */
typedef struct bulk_heap {
    uint64_t *ids, *sizes;
    uint32_t *types, *starts, *targets, *labels;
    size_t n;
} bulk_heap;

typedef struct v8_reader {
    gch_json_in in;
    const gch_load_options *opts;
    gch_error *err;
    gch_json_text key;                /* scratch: the current object key */
    gch_builder *b;

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
    gch_json_text title;

    /* nodes, struct of arrays: class is a dense id of `classes` */
    size_t node_n, node_cap, root;
    uint32_t *n_class, *n_edges;
    wide32 n_id, n_size;
    uint64_t edge_sum;
    int nodes_done;
    key_set classes;            /* type index (< 256) or TYPE_RAW_NAMED + name index */

    /* edges: streamed to the builder node by node */
    uint64_t edge_n;
    uint8_t *held;              /* per node: an essential edge points at it */
    key_set labels;             /* role << 32 | name_or_index */
    uint32_t *direct[3];        /* label key of element [i], hidden {i}, internal name i;
                                   GCH_NONE when none yet */
    size_t direct_cap[3];
    struct label_memo {         /* direct-mapped, in front of `labels` (names repeat) */
        uint64_t key;
        uint32_t id;
    } memo[1024], class_memo[256]; /* and in front of `classes` */
    uint64_t *refs;             /* REF_CHUNK references of the node being read */
    uint32_t *label_keys;
    int edges_done;

    /* the largest string index used, and where, checked once strings are known */
    uint64_t max_string, max_string_at;
    int any_string;

    /* strings: only those in `wanted` (sorted) are kept, when it is set */
    gch_json_text pool;
    uint64_t *str_off;          /* pool offsets: by string index, or by position
                                   in wanted when it is set; UINT64_MAX: not read */
    size_t str_n, str_cap;
    uint32_t *wanted;
    size_t wanted_n;
    /* DevTools' view: edge names are classified as they are read (by string
     * index below eclass_n: v8_edge_name_class), their texts not kept
     * unless wanted or WeakMap names (wm_index, wm_off: those, by index) */
    uint8_t *eclass;
    size_t eclass_n;
    uint32_t *wm_index;
    uint64_t *wm_off;
    size_t wm_n, wm_cap;
    int strings_done;

    /* counts for info */
    uint64_t weak_edges, dropped_shortcuts, weak_only_nodes, det_count[3];

    /* The whole graph for DevTools' view (v8_devtools.c), unless v8_raw:
     * per node its type, name and detachedness; per edge its type, name and
     * target position. */
    int devtools;
    int keep_text;              /* keep_payloads: the texts of string nodes (GCH_PAYLOAD_TEXT) */
    int node_graph;             /* devtools or keep_text: g_type, g_name, g_det are kept */
    uint8_t *g_type, *g_det, *g_etype;
    uint32_t *g_name, *g_ename, *g_eto;
    size_t g_ecap;
    uint64_t extra_native_bytes;
    /* The bulk path with DevTools' view: the heap waits here until the view
     * says which edges it keeps (its starts are the edges' of every node,
     * g_eto is the edges' values array, turned into targets in place). */
    bulk_heap pending;
    int has_pending;
    int ids_unique;             /* pending's ids are unique (checked before the view) */
    /* keep_text: a GCH_PAYLOAD_TEXT entry per string node (id: its position
     * until the heap is finished) */
    gch_payload *texts;
    size_t texts_n;

    /* The bulk path (a snapshot in memory): the arrays parsed at once, the
     * objects handed to the builder whole, with references as indices. */
    gch_parallel par;
    int bulk;                   /* nodes and edges went that way */
    const unsigned char *bulk_nodes, *bulk_edges; /* the bytes after each '[' */
    const unsigned char *bulk_edges_close;        /* the edges' ']' */
    int max_string_in_edges;    /* bulk: max_string_at is a value index of nodes or edges */

    /* Lean edges (the bulk path, DevTools' view without references: stat):
     * the strings are looked at before the edges (v8_prescan), and of the
     * edges only those the view asks about are kept in the g_e arrays
     * (lean_keep); retainers are counted as the edges pass. */
    int no_lean;                /* this read may not (a lean read failed: read again) */
    int lean;                   /* the edges were read lean */
    int lean_tried;             /* lean edges were begun (even if the bulk path then gave up) */
    v8_prescan ps;              /* flags until the edges are read; then where the strings are */
    uint8_t *lean_node;         /* per node: LN_ bits (while the edges are read) */
    uint8_t *retainers;         /* per node: 0, 1 or 2 (more) edges point at it */
    uint64_t g_m;               /* edges in the g_e arrays: edge_n, or the kept ones */
} v8_reader;

static gch_status oom(v8_reader *r)
{
    return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
}

/* ------------------------------------------------------------------------ */
/* snapshot.meta */

/* A list or object that closes at once: consumes the closing bracket. */
static inline int closes_empty(gch_json_in *in, int close)
{
    if (gch_json_peek(in) != close)
        return 0;
    in->p++;
    return 1;
}

/* After an element or member: consumes the ',' (*more = 1) or the closing bracket
 * (*more = 0); anything else is an error. */
static inline gch_status after_item(gch_json_in *in, int close, int *more)
{
    int c = gch_json_peek(in);
    in->p += c == ',' || c == close;
    *more = c == ',';
    if (c == ',' || c == close)
        return GCH_OK;
    return gch_json_expect(in, ',', close == ']' ? "',' or ']'" : "',' or '}'");
}

static gch_status name_list_read_one(v8_reader *r, name_list *l)
{
    if (l->count >= MAX_TYPES)
        return gch_json_fail(&r->in, "snapshot.meta: more than %d names in a list", MAX_TYPES);
    l->off[l->count++] = (uint32_t)l->pool.len;
    gch_status st = gch_json_string(&r->in, &l->pool);
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
    gch_status st = gch_json_expect(&r->in, '[', "'[' (a list of names)");
    if (st != GCH_OK)
        return st;
    l->present = 1;
    l->count = 0;
    l->pool.len = 0;
    if (closes_empty(&r->in, ']'))
        return GCH_OK;
    for (;;) {
        if ((st = name_list_read_one(r, l)) != GCH_OK)
            return st;
        int more;
        if ((st = after_item(&r->in, ']', &more)) != GCH_OK || !more)
            return st;
    }
}

/* Reads node_types / edge_types: per field, an enumeration (a list of names) or
 * a description string; the enumerations are kept per position. */
static gch_status read_type_lists(v8_reader *r, name_list *per_field)
{
    gch_status st = gch_json_expect(&r->in, '[', "'[' (snapshot.meta types)");
    if (st != GCH_OK)
        return st;
    if (closes_empty(&r->in, ']'))
        return GCH_OK;
    for (unsigned k = 0;; k++) {
        if (k >= MAX_FIELDS)
            return gch_json_fail(&r->in, "snapshot.meta: more than %d field types", MAX_FIELDS);
        st = gch_json_peek(&r->in) == '[' ? read_name_list(r, &per_field[k]) : gch_json_skip_value(&r->in);
        if (st != GCH_OK)
            return st;
        int more;
        if ((st = after_item(&r->in, ']', &more)) != GCH_OK || !more)
            return st;
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
    gch_status st = gch_json_expect(&r->in, '{', what);
    if (st != GCH_OK)
        return st;
    if (closes_empty(&r->in, '}'))
        return GCH_OK;
    for (;;) {
        r->key.len = 0;
        if (r->key.s)
            r->key.s[0] = '\0';
        if ((st = gch_json_string(&r->in, &r->key)) != GCH_OK || (st = gch_json_expect(&r->in, ':', "':'")) != GCH_OK ||
            (st = fn(r)) != GCH_OK)
            return st;
        int more;
        if ((st = after_item(&r->in, '}', &more)) != GCH_OK || !more)
            return st;
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
    return gch_json_skip_value(&r->in);
}

static gch_status snapshot_member(v8_reader *r)
{
    if (key_is(r, "meta")) {
        r->have_meta = 1;
        return read_object(r, meta_member, "'{' (snapshot.meta)");
    }
    if (key_is(r, "node_count")) {
        r->have_node_count = 1;
        return gch_json_uint(&r->in, &r->node_count_decl, "snapshot.node_count");
    }
    if (key_is(r, "edge_count")) {
        r->have_edge_count = 1;
        return gch_json_uint(&r->in, &r->edge_count_decl, "snapshot.edge_count");
    }
    if (key_is(r, "root_index"))
        return gch_json_uint(&r->in, &r->root_index, "snapshot.root_index");
    if (key_is(r, "extra_native_bytes") && gch_json_peek(&r->in) >= '0' && gch_json_peek(&r->in) <= '9')
        return gch_json_uint(&r->in, &r->extra_native_bytes, "snapshot.extra_native_bytes");
    if (key_is(r, "title") && gch_json_peek(&r->in) == '"') {
        r->title.len = 0;
        return gch_json_string(&r->in, &r->title);
    }
    return gch_json_skip_value(&r->in);
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
        return gch_json_fail_at(&r->in, at, "snapshot.meta with node_fields and edge_fields must come before the arrays");
    r->nfields = r->node_fields.count;
    r->efields = r->edge_fields.count;
    if (r->nfields > MAX_FIELDS || r->efields > MAX_FIELDS)
        return gch_json_fail_at(&r->in, at, "snapshot.meta declares more than %d fields", MAX_FIELDS);
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
            return gch_json_fail_at(&r->in, at, "snapshot.meta.node_fields has no \"%s\"", nf_names[f]);
    for (unsigned k = 0; k < r->efields; k++) {
        const char *n = list_name(&r->edge_fields, k);
        r->edge_field[k] = EF_OTHER;
        for (unsigned f = 0; f < 3; f++)
            if (strcmp(n, ef_names[f]) == 0)
                r->edge_field[k] = (uint8_t)f;
    }
    for (unsigned f = 0; f < 3; f++)
        if (field_index(&r->edge_fields, ef_names[f]) < 0)
            return gch_json_fail_at(&r->in, at, "snapshot.meta.edge_fields has no \"%s\"", ef_names[f]);

    const name_list *nt = &r->node_enum[field_index(&r->node_fields, "type")];
    const name_list *et = &r->edge_enum[field_index(&r->edge_fields, "type")];
    if (!nt->present || !et->present)
        return gch_json_fail_at(&r->in, at, "snapshot.meta: no enumeration of node or edge types");
    r->node_types = nt;
    r->ntypes = nt->count;
    for (unsigned k = 0; k < nt->count; k++) {
        const char *n = list_name(nt, k);
        static const char *const nt_names[] = { "", "hidden", "object", "native", "code", "array", "synthetic",
                                                "closure", "regexp", "string", "concatenated string",
                                                "sliced string" };
        r->node_role[k] = NT_OTHER;
        for (unsigned e = 1; e < sizeof nt_names / sizeof *nt_names; e++)
            if (strcmp(n, nt_names[e]) == 0)
                r->node_role[k] = (uint8_t)e;
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


/* The dense id of key (added when new). Returns 0 when out of memory. */
static int key_set_id(key_set *s, uint64_t key, uint32_t *id)
{
    if (gch_table_grows(s->hashed, s->cap)) { /* a subset of the ids is hashed: rebuilt here */
        if (!s->cap)
            s->hash = gch_hash_key_get();
        size_t cap = gch_table_next(s->cap, 1024);
        uint32_t *slot = gch_reallocarray(NULL, cap, sizeof *slot);
        if (!slot)
            return 0;
        memset(slot, 0xff, cap * sizeof *slot);
        for (size_t i = 0; i < s->cap; i++) {
            if (s->slot[i] == UINT32_MAX)
                continue;
            size_t j = (size_t)gch_hash_u64(s->keys[s->slot[i]], &s->hash) & (cap - 1);
            while (slot[j] != UINT32_MAX)
                j = (j + 1) & (cap - 1);
            slot[j] = s->slot[i];
        }
        gch_free(s->slot);
        s->slot = slot;
        s->cap = cap;
    }
    size_t j = (size_t)gch_hash_u64(key, &s->hash) & (s->cap - 1);
    while (s->slot[j] != UINT32_MAX) {
        if (s->keys[s->slot[j]] == key) {
            *id = s->slot[j];
            return 1;
        }
        j = (j + 1) & (s->cap - 1);
    }
    if (!gch_grow((void **)&s->keys, &s->keys_cap, s->len + 1, sizeof *s->keys, 256))
        return 0;
    s->keys[s->len] = key;
    s->slot[j] = (uint32_t)s->len;
    s->hashed++;
    *id = (uint32_t)s->len++;
    return 1;
}

/* Keeps the keys by id, drops the lookup (no more keys will come). */
static void key_set_drop_slots(key_set *s)
{
    gch_free(s->slot);
    s->slot = NULL;
    s->cap = s->hashed = 0;
}

static void key_set_free(key_set *s)
{
    gch_free(s->slot);
    gch_free(s->keys);
    memset(s, 0, sizeof *s);
}

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
    size_t c1 = r->node_cap, c2 = c1;
    if (!gch_grow((void **)&r->n_class, &c1, need, 4, 1024) || !gch_grow((void **)&r->n_edges, &c2, need, 4, 1024) ||
        !w_grow(&r->n_id, r->node_cap, need) || !w_grow(&r->n_size, r->node_cap, need))
        return 0;
    if (r->node_graph) {
        size_t c3 = r->node_cap, c4 = c3, c5 = c3;
        if (!gch_grow((void **)&r->g_type, &c3, need, 1, 1024) || !gch_grow((void **)&r->g_det, &c4, need, 1, 1024) ||
            !gch_grow((void **)&r->g_name, &c5, need, 4, 1024))
            return 0;
    }
    /* All grew from the same capacity by the same rule. */
    r->node_cap = c1;
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

/* The class key of a node: DevTools' classIndex (the name for objects and
 * natives, the node type otherwise). */
static uint64_t class_key(const v8_reader *r, uint64_t type, uint64_t name)
{
    uint8_t role = r->node_role[type];
    return role == NT_OBJECT || role == NT_NATIVE ? TYPE_RAW_NAMED + name : type;
}

/* One node row (values in declared field order) into the arrays. */
static gch_status add_node(v8_reader *r, const uint64_t *row, uint64_t at)
{
    size_t i = r->node_n;
    uint64_t type = 0, name = 0, det = 0;
    if (i >= (size_t)UINT32_MAX - 2)
        return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32-3 nodes");
    if (!grow_nodes(r, i + 1))
        return oom(r);
    for (unsigned k = 0; k < r->nfields; k++) {
        uint64_t v = row[k];
        switch (r->node_field[k]) {
        case NF_TYPE:
            if (v >= r->ntypes)
                return gch_json_fail_at(&r->in, at, "node %zu: type %llu is not in snapshot.meta.node_types", i,
                                  (unsigned long long)v);
            type = v;
            break;
        case NF_NAME:
            if (v > UINT32_MAX)
                return gch_json_fail_at(&r->in, at, "node %zu: name index %llu is too large", i, (unsigned long long)v);
            name = v;
            break;
        case NF_ID:
            if (v == 0)
                return gch_json_fail_at(&r->in, at, "node %zu: id 0 (no V8 node has it; gcheap reserves it)", i);
            if (!w_set(&r->n_id, i, v, i, r->node_cap))
                return oom(r);
            break;
        case NF_SELF_SIZE:
            if (!w_set(&r->n_size, i, v, i, r->node_cap))
                return oom(r);
            break;
        case NF_EDGE_COUNT:
            if (v > UINT32_MAX)
                return gch_json_fail_at(&r->in, at, "node %zu: edge_count %llu is too large", i, (unsigned long long)v);
            r->n_edges[i] = (uint32_t)v;
            r->edge_sum += v;
            break;
        case NF_DETACHEDNESS:
            det = v > 2 ? 0 : v;
            break;
        default:
            break;
        }
    }
    note_string_index(r, name, at);
    r->det_count[det]++;
    if (r->node_graph) {
        r->g_type[i] = (uint8_t)type;
        r->g_name[i] = (uint32_t)name;
        r->g_det[i] = (uint8_t)det;
    }
    uint64_t ck = class_key(r, type, name);
    struct label_memo *m = &r->class_memo[(ck * 0x9e3779b97f4a7c15ULL) >> 56];
    if (m->key == ck) {
        r->n_class[i] = m->id;
    } else {
        if (!key_set_id(&r->classes, ck, &r->n_class[i]))
            return oom(r);
        m->key = ck;
        m->id = r->n_class[i];
    }
    r->node_n++;
    return GCH_OK;
}

static gch_status bulk_read(v8_reader *r, int *done);

static gch_status read_nodes(v8_reader *r)
{
    uint64_t at = gch_json_offset(&r->in);
    gch_status st = resolve_meta(r, at);
    if (st != GCH_OK)
        return st;
    if (r->nodes_done)
        return gch_json_fail(&r->in, "a second \"nodes\" array");
    if ((st = gch_json_expect(&r->in, '[', "'[' (nodes)")) != GCH_OK)
        return st;
    int done;
    if ((st = bulk_read(r, &done)) != GCH_OK || done)
        return st;
    for (size_t k = 0; k < sizeof r->class_memo / sizeof *r->class_memo; k++)
        r->class_memo[k].key = UINT64_MAX; /* no class key is that large */
    size_t reserve = backed_count(r, r->node_count_decl, r->nfields);
    if (reserve && !grow_nodes(r, reserve))
        return oom(r);
    uint64_t vals[BATCH], row[MAX_FIELDS];
    int state = 0, closed = 0;
    unsigned col = 0;
    while (!closed) {
        size_t n;
        uint64_t batch_at = gch_json_offset(&r->in);
        if ((st = gch_json_uint_batch(&r->in, &state, vals, BATCH, &n, &closed, "an integer in nodes")) != GCH_OK)
            return st;
        for (size_t k = 0; k < n; k++) {
            row[col++] = vals[k];
            if (col == r->nfields) {
                col = 0;
                if ((st = add_node(r, row, batch_at)) != GCH_OK)
                    return st;
            }
        }
    }
    if (col != 0)
        return gch_json_fail(&r->in, "nodes: %llu numbers, not a multiple of the %u node fields",
                       (unsigned long long)r->node_n * r->nfields + col, r->nfields);
    if (r->have_node_count && r->node_count_decl != r->node_n)
        return gch_json_fail(&r->in, "nodes: %zu nodes, but snapshot.node_count says %llu", r->node_n,
                       (unsigned long long)r->node_count_decl);
    if (r->node_n == 0)
        return gch_json_fail(&r->in, "the snapshot has no nodes (not even the synthetic root)");
    if (r->root_index % r->nfields != 0 || r->root_index / r->nfields >= r->node_n)
        return gch_json_fail(&r->in, "snapshot.root_index %llu is not the start of a node",
                       (unsigned long long)r->root_index);
    r->root = (size_t)(r->root_index / r->nfields);
    r->nodes_done = 1;
    return GCH_OK;
}

/* Keeps edge e for DevTools' view (the arrays grow as edges come, or are
 * reserved as far as the bytes left back them). */
static gch_status keep_edge(v8_reader *r, uint64_t e, uint8_t type, uint32_t name, uint32_t target)
{
    if (e >= r->g_ecap) {
        size_t c1 = r->g_ecap, c2 = c1, c3 = c1;
        if (!gch_grow((void **)&r->g_etype, &c1, (size_t)e + 1, 1, 4096) ||
            !gch_grow((void **)&r->g_ename, &c2, (size_t)e + 1, 4, 4096) ||
            !gch_grow((void **)&r->g_eto, &c3, (size_t)e + 1, 4, 4096))
            return oom(r);
        r->g_ecap = c1;
    }
    r->g_etype[e] = type;
    r->g_ename[e] = name;
    r->g_eto[e] = target;
    return GCH_OK;
}

/* Whether an edge of node `from` holds its target (DevTools' isEssentialEdge). */
static int essential(const v8_reader *r, size_t from, uint8_t etype)
{
    uint8_t role = r->edge_role[etype];
    return role != ET_WEAK && (role != ET_SHORTCUT || from == r->root);
}

/* Opens the heap the nodes go to as their edges are read. */
static gch_status begin_heap(v8_reader *r)
{
    gch_status st = gch_builder_new(&r->b, "v8", r->err);
    if (st == GCH_OK)
        st = gch_builder_begin_heap(r->b, "v8", 2, r->err);
    if (st != GCH_OK)
        return st;
    gch_builder_set_id_radix(r->b, 10);
    for (size_t k = 0; k < sizeof r->memo / sizeof *r->memo; k++)
        r->memo[k].key = UINT64_MAX; /* no key: roles are below 256 */
    int skip = r->opts->skip_refs;
    if (skip)
        gch_builder_set_refs_skipped(r->b);
    if (!(r->held = gch_calloc(r->node_n, 1)) ||
        !(r->refs = gch_reallocarray(NULL, REF_CHUNK, sizeof *r->refs)) ||
        !(r->label_keys = gch_reallocarray(NULL, REF_CHUNK, sizeof *r->label_keys)))
        return oom(r);
    /* The nodes are read; the edges they announce are only reserved when the
     * bytes left can hold them (a pipe's arrays grow instead). */
    return gch_builder_reserve(r->b, r->node_n, skip ? 0 : backed_count(r, r->edge_sum, r->efields),
                               !skip && !r->opts->skip_labels, r->err);
}

/* Where the edge stream is: the node whose edges come next, how many of
 * them are left, how many references of it wait in r->refs, and whether the
 * node was begun in the builder (its first chunk went out). */
typedef struct edge_cursor {
    size_t node;
    uint64_t left;
    size_t nrefs;
    int begun;
} edge_cursor;

/* Hands the waiting references of c->node to the builder (beginning the
 * node first when needed); with last, the node is complete. */
static gch_status emit_node(v8_reader *r, edge_cursor *c, int last)
{
    size_t i = c->node;
    gch_status st = GCH_OK;
    if (r->opts->skip_refs)
        return last ? gch_builder_object_begin(r->b, w_get(&r->n_id, i), r->n_class[i], w_get(&r->n_size, i), r->err)
                    : GCH_OK;
    const uint32_t *labels = r->opts->skip_labels ? NULL : r->label_keys;
    if (!c->begun && last) {
        st = gch_builder_add_object_label_offsets(r->b, w_get(&r->n_id, i), r->n_class[i], w_get(&r->n_size, i),
                                                  r->refs, labels, c->nrefs, r->err);
    } else {
        if (!c->begun)
            st = gch_builder_object_begin(r->b, w_get(&r->n_id, i), r->n_class[i], w_get(&r->n_size, i), r->err);
        c->begun = 1;
        if (st == GCH_OK && c->nrefs)
            st = gch_builder_object_refs_label_offsets(r->b, r->refs, labels, c->nrefs, r->err);
    }
    c->nrefs = 0;
    return st;
}

/* The label key of an edge. Element and hidden indices and internal names
 * (arrays have many: V8 names a FixedArray's slots by index strings) are
 * looked up in direct tables while they stay below the edges read so far (so
 * a table never outgrows the input); the others in the key set. A
 * direct-mapped memo comes first (".map", "{properties}" repeat). */
static gch_status label_key(v8_reader *r, uint8_t role, uint32_t name, uint32_t *out)
{
    uint64_t key = (uint64_t)role << 32 | name;
    struct label_memo *m = &r->memo[(key * 0x9e3779b97f4a7c15ULL) >> 54];
    if (m->key == key) {
        *out = m->id;
        return GCH_OK;
    }
    int slot = role == ET_ELEMENT ? 0 : role == ET_HIDDEN ? 1 : role == ET_INTERNAL ? 2 : -1;
    if (slot >= 0 && name <= r->edge_n) {
        uint32_t **table = &r->direct[slot];
        size_t *cap = &r->direct_cap[slot];
        if (name >= *cap) {
            size_t old = *cap;
            if (!gch_grow((void **)table, cap, (size_t)name + 1, sizeof **table, 1024))
                return oom(r);
            memset(*table + old, 0xff, (*cap - old) * sizeof **table);
        }
        if ((*table)[name] == GCH_NONE) {
            key_set *ks = &r->labels;
            if (!gch_grow((void **)&ks->keys, &ks->keys_cap, ks->len + 1, sizeof *ks->keys, 256))
                return oom(r);
            ks->keys[ks->len] = key; /* numbered, not hashed: the table finds it */
            (*table)[name] = (uint32_t)ks->len++;
        }
        *out = (*table)[name];
    } else if (!key_set_id(&r->labels, key, out)) {
        return oom(r);
    }
    m->key = key;
    m->id = *out;
    return GCH_OK;
}

/* Makes c->node the node whose edges come next, handing the nodes without
 * edges on the way to the builder. */
static gch_status enter_node(v8_reader *r, edge_cursor *c)
{
    for (; c->node < r->node_n; c->node++) {
        c->left = r->n_edges[c->node];
        c->nrefs = 0;
        c->begun = 0;
        if (c->left)
            return GCH_OK;
        gch_status st = emit_node(r, c, 1);
        if (st != GCH_OK)
            return st;
    }
    return GCH_OK;
}

/* All edges of c->node are read: it goes to the builder. */
static gch_status leave_node(v8_reader *r, edge_cursor *c)
{
    gch_status st = emit_node(r, c, 1);
    c->node++;
    return st == GCH_OK ? enter_node(r, c) : st;
}

/* ------------------------------------------------------------------------ */
/* The bulk path: for a snapshot in memory whose nodes array is followed by
 * its edges array, as V8 writes them. Both arrays are parsed at once (two
 * threads when allowed: v8_bulk.c), checked, and the objects go to the
 * builder whole, each edge's target as the node's position (to_node /
 * node_field_count), so that no id is looked up. The first thing that is not
 * exactly as V8 writes it (anything the careful path would report, or a
 * value of 2^32 or more) sends the reader back to the start of the nodes
 * array, to read it the careful way: that path says what is wrong, and
 * where, and its output is the oracle of this one (tests/unit). */

/* The position of each node or edge role among the declared fields, or -1;
 * 0 when a role is declared twice (the careful path reads such rows). */
static int role_positions(const uint8_t *roles, unsigned n, unsigned nroles, int *pos)
{
    for (unsigned f = 0; f < nroles; f++)
        pos[f] = -1;
    for (unsigned k = 0; k < n; k++) {
        if (roles[k] >= nroles)
            continue;
        if (pos[roles[k]] >= 0)
            return 0;
        pos[roles[k]] = (int)k;
    }
    return 1;
}

static const unsigned char *skip_blanks(const unsigned char *p, const unsigned char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* The '[' of an edges array that follows at p (after the nodes' ']'):
 * `, "edges" : [` with blanks between tokens; NULL when something else does. */
static const unsigned char *edges_open_at(const unsigned char *p, const unsigned char *end)
{
    static const char key[] = "\"edges\"";
    p = skip_blanks(p, end);
    if (p == end || *p++ != ',')
        return NULL;
    p = skip_blanks(p, end);
    if ((size_t)(end - p) < sizeof key - 1 || memcmp(p, key, sizeof key - 1) != 0)
        return NULL;
    p = skip_blanks(p + sizeof key - 1, end);
    if (p == end || *p++ != ':')
        return NULL;
    p = skip_blanks(p, end);
    return p < end && *p == '[' ? p : NULL;
}

/* The ']' closing a list of rows * fields values that starts at begin
 * (they take 2 * rows * fields - 1 bytes at least, which the input must
 * hold), or NULL. */
static const unsigned char *list_close(const unsigned char *begin, const unsigned char *end, uint64_t rows,
                                       unsigned fields)
{
    uint64_t room = (uint64_t)(end - begin) / 2;
    if (!fields || rows > room / fields)
        return NULL;
    const unsigned char *from = rows ? begin + 2 * rows * fields - 1 : begin;
    return memchr(from, ']', (size_t)(end - from));
}

static void note_string_bulk(v8_reader *r, uint64_t index, uint64_t value_index, int in_edges)
{
    if (!r->any_string || index > r->max_string) {
        r->max_string = index;
        r->max_string_at = value_index;
        r->max_string_in_edges = in_edges;
        r->any_string = 1;
    }
}

/* The offset the careful path reports for value `vi` of a list: where the
 * batch of BATCH values holding it began (just after the value before it). */
static uint64_t bulk_offset(const v8_reader *r, const unsigned char *begin, uint64_t vi)
{
    uint64_t batch = vi / BATCH;
    const unsigned char *at = batch ? v8_bulk_value_end(begin, (size_t)(batch * BATCH - 1)) : begin;
    return r->in.win_offset + (uint64_t)(at - r->in.win);
}

static void bulk_heap_free(bulk_heap *h)
{
    gch_free(h->ids);
    gch_free(h->sizes);
    gch_free(h->types);
    gch_free(h->starts);
    gch_free(h->targets);
    gch_free(h->labels);
    memset(h, 0, sizeof *h);
}

static void free_graph(v8_reader *r)
{
    gch_free(r->g_type);
    gch_free(r->g_det);
    gch_free(r->g_name);
    gch_free(r->g_etype);
    gch_free(r->g_ename);
    gch_free(r->g_eto);
    r->g_type = r->g_det = r->g_etype = NULL;
    r->g_name = r->g_ename = r->g_eto = NULL;
    r->g_ecap = 0;
    v8_prescan_free(&r->ps);
    gch_free(r->lean_node);
    gch_free(r->retainers);
    r->lean_node = r->retainers = NULL;
    r->lean = 0;
    r->g_m = 0;
}

/* Forgets what a failed bulk attempt counted, for the careful path. */
static void bulk_reset(v8_reader *r)
{
    key_set_free(&r->classes);
    key_set_free(&r->labels);
    for (int k = 0; k < 3; k++) {
        gch_free(r->direct[k]);
        r->direct[k] = NULL;
        r->direct_cap[k] = 0;
    }
    gch_free(r->held);
    r->held = NULL;
    r->node_n = r->edge_n = r->root = 0;
    r->edge_sum = r->weak_edges = r->dropped_shortcuts = 0;
    r->max_string = r->max_string_at = 0;
    r->any_string = r->max_string_in_edges = 0;
    memset(r->det_count, 0, sizeof r->det_count);
    for (size_t k = 0; k < sizeof r->class_memo / sizeof *r->class_memo; k++)
        r->class_memo[k].key = UINT64_MAX;
    for (size_t k = 0; k < sizeof r->memo / sizeof *r->memo; k++)
        r->memo[k].key = UINT64_MAX;
    free_graph(r);
}

/* The node pass, row by row as the nodes are parsed (v8_list.rows): the
 * heap's arrays, classes, counts; starts[i + 1] receives node i's edge count. */
typedef struct node_pass {
    v8_reader *r;
    bulk_heap *h;
    int pos[NF_OTHER];
    size_t i;           /* the next node */
    uint64_t edge_sum;
    int oom;
} node_pass;

/* Lean edges: what the view asks of a node (by its role and, from the
 * strings looked at ahead, its name) when deciding which edges to keep. */
enum {
    LN_OWNABLE = 1, /* hidden, array or a native named system / ExternalStringData:
                       shallow sizes may fold it into an owner */
    LN_NATIVE = 2,  /* DOM states flow between natives */
    LN_PLAIN = 4,   /* an object named Object: its property names make interfaces */
    LN_ARRAY = 8    /* named Array, neither hidden, native, code nor a string: the
                       Statistics count its "elements" */
};

static uint8_t lean_bits(const v8_reader *r, uint32_t type, uint32_t name)
{
    uint8_t role = r->node_role[type], f = name < r->ps.n ? r->ps.flag[name] : 0, b = 0;
    if (role == NT_HIDDEN || role == NT_ARRAY || (role == NT_NATIVE && (f & V8_PS_EXTERNAL)))
        b |= LN_OWNABLE;
    if (role == NT_NATIVE)
        b |= LN_NATIVE;
    if (role == NT_OBJECT && (f & V8_PS_OBJECT))
        b |= LN_PLAIN;
    if ((f & V8_PS_ARRAY) && role != NT_HIDDEN && role != NT_NATIVE && role != NT_CODE && role != NT_STRING &&
        role != NT_CONS_STRING && role != NT_SLICED_STRING)
        b |= LN_ARRAY;
    return b;
}

/* Whether the view without references asks about edge `from` -> `to`: a
 * superset, per step of v8_devtools_run, of the edges that step looks at
 * (each step filters them again): every edge of the root (user roots);
 * the strong edges into nodes shallow sizes may fold; the edges DOM states
 * flow through (natives to natives); the property edges of plain objects
 * (interfaces); the internal "elements" edges of arrays (Statistics). */
static inline int lean_keep(const v8_reader *r, size_t from, uint32_t to, uint8_t erole, uint32_t name)
{
    if (from == r->root)
        return 1;
    uint8_t s = r->lean_node[from], t = r->lean_node[to];
    if (erole != ET_WEAK && (t & LN_OWNABLE))
        return 1;
    if (r->has_detachedness && (s & t & LN_NATIVE) && erole != ET_HIDDEN && erole != ET_INVISIBLE &&
        erole != ET_WEAK)
        return 1;
    if (erole == ET_PROPERTY)
        return (s & LN_PLAIN) != 0;
    return erole == ET_INTERNAL && (s & LN_ARRAY) && name < r->ps.n && (r->ps.flag[name] & V8_PS_ELEMENTS);
}

static int node_rows(void *ctx, const uint32_t *vals, size_t nrows)
{
    node_pass *np = ctx;
    v8_reader *r = np->r;
    bulk_heap *h = np->h;
    const unsigned nf = r->nfields;
    const int *pos = np->pos, fd = pos[NF_DETACHEDNESS];
    if (nrows > h->n - np->i)
        return 0; /* more nodes than node_count says */
    for (size_t k = 0; k < nrows; k++) {
        const uint32_t *row = vals + k * nf;
        size_t i = np->i++;
        uint32_t type = row[pos[NF_TYPE]], name = row[pos[NF_NAME]], id = row[pos[NF_ID]];
        if (type >= r->ntypes || id == 0)
            return 0;
        uint32_t det = fd >= 0 && row[fd] <= 2 ? row[fd] : 0;
        note_string_bulk(r, name, (uint64_t)i * nf + nf - 1, 0);
        r->det_count[det]++;
        if (r->node_graph) {
            r->g_type[i] = (uint8_t)type;
            r->g_name[i] = name;
            r->g_det[i] = (uint8_t)det;
        }
        uint64_t ck = class_key(r, type, name);
        struct label_memo *m = &r->class_memo[(ck * 0x9e3779b97f4a7c15ULL) >> 56];
        if (m->key != ck) {
            if (!key_set_id(&r->classes, ck, &m->id)) {
                np->oom = 1;
                return 0;
            }
            m->key = ck;
        }
        h->types[i] = m->id;
        h->ids[i] = id;
        h->sizes[i] = row[pos[NF_SELF_SIZE]];
        h->starts[i + 1] = row[pos[NF_EDGE_COUNT]];
        np->edge_sum += row[pos[NF_EDGE_COUNT]];
    }
    return 1;
}

/* Ready for the node pass: the heap's arrays allocated; *ok = 0 when the
 * node fields are declared in a way the careful path reads better. */
static gch_status node_pass_begin(v8_reader *r, bulk_heap *h, node_pass *np, int *ok)
{
    memset(np, 0, sizeof *np);
    np->r = r;
    np->h = h;
    *ok = role_positions(r->node_field, r->nfields, NF_OTHER, np->pos);
    if (!*ok)
        return GCH_OK;
    size_t n = h->n;
    if (!(h->ids = gch_reallocarray(NULL, n, sizeof *h->ids)) ||
        !(h->sizes = gch_reallocarray(NULL, n, sizeof *h->sizes)) ||
        !(h->types = gch_reallocarray(NULL, n, sizeof *h->types)) ||
        !(h->starts = gch_reallocarray(NULL, n + 1, sizeof *h->starts)) || !(r->held = gch_calloc(n, 1)))
        return oom(r);
    if (r->node_graph && (!(r->g_type = gch_reallocarray(NULL, n, 1)) || !(r->g_det = gch_reallocarray(NULL, n, 1)) ||
                        !(r->g_name = gch_reallocarray(NULL, n, sizeof *r->g_name))))
        return oom(r);
    h->starts[0] = 0;
    return GCH_OK;
}

/* After the node pass: *ok = 0 unless every node came and agrees with the
 * declared edge count and root index. */
static void node_pass_end(v8_reader *r, const node_pass *np, int *ok)
{
    const unsigned nf = r->nfields;
    r->node_n = np->i;
    r->edge_sum = np->edge_sum;
    *ok = np->i == np->h->n && np->edge_sum == r->edge_count_decl && np->edge_sum < UINT32_MAX &&
          r->root_index % nf == 0 && r->root_index / nf < np->h->n;
    if (*ok)
        r->root = (size_t)(r->root_index / nf);
}

/* Division by a node field count without a divide instruction (it was a
 * third of the edge pass): x is a multiple of d exactly when x times the
 * inverse of d's odd part, rotated right by d's power of two, is at most
 * (2^32 - 1) / d, and that is then x / d (Hacker's Delight, 10-17). */
typedef struct exact_div {
    uint32_t inverse, limit;
    unsigned shift;
} exact_div;

static exact_div exact_div_by(uint32_t d)
{
    exact_div e = { 0, UINT32_MAX / d, 0 };
    while (!(d >> e.shift & 1))
        e.shift++;
    uint32_t odd = d >> e.shift, inv = odd; /* Newton's steps double the bits right */
    for (int k = 0; k < 5; k++)
        inv *= 2 - odd * inv;
    e.inverse = inv;
    return e;
}

/* Whether d divides x; *q receives x / d when it does. */
static inline int exact_quotient(const exact_div *e, uint32_t x, uint32_t *q)
{
    uint32_t y = x * e->inverse;
    if (e->shift)
        y = y >> e->shift | y << (32 - e->shift);
    *q = y;
    return y <= e->limit;
}

/* The graph's edge arrays for n edges (the bulk path: n is the declared
 * count, which the bytes of the edges array back); the targets too unless
 * they are to be written over the edges' values. */
static int bulk_edge_arrays(v8_reader *r, uint64_t n, int with_targets)
{
    size_t m = n ? (size_t)n : 1;
    if (!(r->g_etype = gch_reallocarray(NULL, m, 1)) || !(r->g_ename = gch_reallocarray(NULL, m, sizeof *r->g_ename)) ||
        (with_targets && !(r->g_eto = gch_reallocarray(NULL, m, sizeof *r->g_eto))))
        return 0;
    r->g_ecap = m;
    return 1;
}

/* Edge e (a row of the edges array, of node `node`): its type, name and
 * target (a node position), checked as the careful path checks them (0 when
 * anything is off: the careful path then says what); the string it names
 * and the weak and ignored shortcut edges counted. */
static inline int edge_row(v8_reader *r, const uint32_t *row, const int *pos, const exact_div *by_fields,
                           size_t n, uint64_t e, size_t node, uint32_t *type, uint32_t *name, uint32_t *target)
{
    *type = row[pos[EF_TYPE]];
    *name = row[pos[EF_NAME]];
    /* to_node: the start of a node (a multiple of the field count below n times it) */
    if (*type >= r->etypes || !exact_quotient(by_fields, row[pos[EF_TO]], target) || *target >= n)
        return 0;
    uint8_t erole = r->edge_role[*type];
    if (erole != ET_ELEMENT && erole != ET_HIDDEN)
        note_string_bulk(r, *name, e * r->efields + r->efields - 1, 1);
    r->weak_edges += erole == ET_WEAK;
    r->dropped_shortcuts += erole == ET_SHORTCUT && node != r->root;
    return 1;
}

/* The edges' values, in place, into the targets (positions of nodes) of
 * the essential edges, node by node; labels as keys unless skipped. For
 * DevTools' view (graph): into the targets of every edge (the graph's g_eto,
 * by edge), their types and names beside them, starts the edges' starts;
 * which edges the heap gets is decided once the view is made
 * (devtools_refs). */
static gch_status bulk_edges(v8_reader *r, uint32_t *vals, bulk_heap *h, int *ok)
{
    int pos[EF_OTHER];
    *ok = 0;
    if (!role_positions(r->edge_field, r->efields, EF_OTHER, pos))
        return GCH_OK;
    const unsigned ef = r->efields;
    const exact_div by_fields = exact_div_by(r->nfields);
    const int graph = r->devtools, keep = !r->opts->skip_refs && !graph, labeled = keep && !r->opts->skip_labels;
    if (labeled && !(h->labels = gch_reallocarray(NULL, r->edge_sum ? r->edge_sum : 1, sizeof *h->labels)))
        return oom(r);
    if (graph && !bulk_edge_arrays(r, r->edge_sum, 0))
        return oom(r);
    uint64_t e = 0, w = 0;
    for (size_t i = 0; i < h->n; i++) {
        uint64_t end = e + h->starts[i + 1];
        for (; e < end; e++) {
            uint32_t type, name, target;
            if (!edge_row(r, vals + e * ef, pos, &by_fields, h->n, e, i, &type, &name, &target))
                return GCH_OK;
            if (graph) {
                r->g_etype[e] = (uint8_t)type;
                r->g_ename[e] = name;
                vals[e] = target; /* e <= e * ef: row e is read, the rows ahead are not touched */
                continue;
            }
            if (!essential(r, i, (uint8_t)type))
                continue;
            r->held[target] = 1;
            if (!keep)
                continue;
            vals[w] = target; /* w <= e: the rows still to read lie ahead */
            if (labeled) {
                r->edge_n = e; /* as the careful path numbers labels */
                gch_status st = label_key(r, r->edge_role[type], name, &h->labels[w]);
                if (st != GCH_OK)
                    return st;
            }
            w++;
        }
        h->starts[i + 1] = (uint32_t)(graph ? e : w);
    }
    r->edge_n = e;
    if (graph) {
        uint32_t *to = gch_reallocarray(vals, e ? e : 1, sizeof *to);
        r->g_eto = to ? to : vals;
        r->g_ecap = e ? (size_t)e : 1;
    }
    *ok = 1;
    return GCH_OK;
}

/* Without references (skip_refs) the edges are only checked and counted,
 * row by row as they are parsed, right after the nodes on the same thread:
 * no array of edge values. */
typedef struct edge_pass {
    v8_reader *r;
    const bulk_heap *h;
    const node_pass *np; /* the nodes read before these edges */
    int pos[EF_OTHER];
    exact_div by_fields;
    size_t node;        /* the node whose edges come */
    uint64_t left;      /* how many of them */
    uint64_t e;         /* the next edge */
    int lean;           /* lean edges to begin at the first edge (the strings were looked at) */
} edge_pass;

/* Lean edges, once every node is read (the strings were looked at:
 * lean_strings): the per-node bits and retainer counts the edge pass
 * fills. Without memory for them every edge is kept, as before. */
static void lean_begin(v8_reader *r, size_t n)
{
    if (!(r->lean_node = gch_reallocarray(NULL, n ? n : 1, 1)) || !(r->retainers = gch_calloc(n ? n : 1, 1))) {
        v8_prescan_free(&r->ps);
        gch_free(r->lean_node);
        gch_free(r->retainers);
        r->lean_node = r->retainers = NULL;
        return;
    }
    for (size_t i = 0; i < n; i++)
        r->lean_node[i] = lean_bits(r, r->g_type[i], r->g_name[i]);
    r->lean = r->lean_tried = 1;
}

static int edge_rows(void *ctx, const uint32_t *vals, size_t nrows)
{
    edge_pass *ep = ctx;
    v8_reader *r = ep->r;
    if (ep->np->i != ep->h->n)
        return 0; /* fewer nodes than declared: their edge counts were never read (the careful path says so) */
    if (ep->lean) {
        lean_begin(r, ep->h->n);
        ep->lean = 0;
    }
    const unsigned ef = r->efields;
    for (size_t k = 0; k < nrows; k++) {
        while (ep->left == 0) {
            if (++ep->node >= ep->h->n)
                return 0; /* more edges than the nodes have */
            ep->left = ep->h->starts[ep->node + 1];
            if (r->lean) /* that count is read: starts[node] becomes the kept edges' start */
                ep->h->starts[ep->node] = (uint32_t)r->g_m;
        }
        uint32_t type, name, target;
        if (!edge_row(r, vals + k * ef, ep->pos, &ep->by_fields, ep->h->n, ep->e, ep->node, &type, &name, &target))
            return 0;
        if (r->lean) {
            r->retainers[target] += r->retainers[target] < 2;
            if (r->g_m < r->g_ecap && lean_keep(r, ep->node, target, r->edge_role[type], name)) {
                r->g_etype[r->g_m] = (uint8_t)type;
                r->g_ename[r->g_m] = name;
                r->g_eto[r->g_m++] = target;
            }
        } else if (r->devtools && ep->e < r->g_ecap) {
            r->g_etype[ep->e] = (uint8_t)type;
            r->g_ename[ep->e] = name;
            r->g_eto[ep->e] = target;
        }
        if (essential(r, ep->node, (uint8_t)type))
            r->held[target] = 1;
        ep->e++;
        ep->left--;
    }
    return 1;
}

/* Opens the builder's heap and hands it the bulk heap (which it then owns). */
static gch_status bulk_adopt(v8_reader *r, bulk_heap *h, uint32_t *targets)
{
    gch_status st = gch_builder_new(&r->b, "v8", r->err);
    if (st == GCH_OK)
        st = gch_builder_begin_heap(r->b, "v8", 2, r->err);
    if (st != GCH_OK) {
        gch_free(targets);
        bulk_heap_free(h); /* the heap is the builder's or nobody's: on error, nobody's */
        return st;
    }
    gch_builder_set_id_radix(r->b, 10);
    if (r->opts->skip_refs) {
        gch_builder_set_refs_skipped(r->b);
        gch_free(h->starts);
        gch_free(targets);
        h->starts = targets = NULL;
    } else {
        uint64_t nrefs = h->starts[h->n];
        uint32_t *shrunk = gch_reallocarray(targets, nrefs ? nrefs : 1, sizeof *targets);
        targets = shrunk ? shrunk : targets;
        if (h->labels && (shrunk = gch_reallocarray(h->labels, nrefs ? nrefs : 1, sizeof *shrunk)))
            h->labels = shrunk;
    }
    /* Class c is type c: types are made in the order their objects come,
     * which is the order the classes were numbered in. */
    for (size_t c = 0; c < r->classes.len && st == GCH_OK; c++) {
        uint32_t t;
        st = gch_builder_type_index(r->b, c, &t, r->err);
    }
    if (st != GCH_OK) {
        gch_free(targets);
        bulk_heap_free(h);
        return st;
    }
    st = gch_builder_adopt_indexed(r->b, (uint32_t)h->n, h->ids, h->types, h->sizes, h->starts, targets,
                                   h->labels, r->err);
    memset(h, 0, sizeof *h); /* the builder's now, even on error */
    return st;
}


/* After the lean edge pass: the kept edges' starts for the nodes after the
 * last one with edges (last: that node, (size_t)-1 for none); the arrays cut
 * to the kept edges; the strings' flags are no longer needed. */
static void lean_end(v8_reader *r, bulk_heap *h, size_t last)
{
    for (size_t j = last + 1; j <= h->n; j++)
        h->starts[j] = (uint32_t)r->g_m;
    size_t m = r->g_m ? (size_t)r->g_m : 1;
    uint8_t *t = gch_reallocarray(r->g_etype, m, 1);
    uint32_t *nm = gch_reallocarray(r->g_ename, m, sizeof *nm), *to = gch_reallocarray(r->g_eto, m, sizeof *to);
    r->g_etype = t ? t : r->g_etype; /* a failed shrink keeps the larger array */
    r->g_ename = nm ? nm : r->g_ename;
    r->g_eto = to ? to : r->g_eto;
    gch_free(r->ps.flag);
    r->ps.flag = NULL;
    gch_free(r->lean_node);
    r->lean_node = NULL;
}

/* Lean edges are possible when the strings that end the snapshot can be
 * looked at before the edges are read (v8_prescan). Returns the edges' ']'
 * when it was found back from the strings and the bytes before it back
 * the declared count (as list_close checks), else NULL (list_close finds
 * it). */
static const unsigned char *lean_strings(v8_reader *r, const unsigned char *eopen, const unsigned char *end)
{
    if (!v8_prescan_strings(eopen + 1, end, &r->ps))
        return NULL; /* every edge then, as before */
    const unsigned char *close = r->ps.edges_close;
    uint64_t room = close ? (uint64_t)(close - (eopen + 1)) / 2 + 1 : 0, rows = r->edge_count_decl;
    return close && rows <= room / r->efields ? close : NULL;
}

/* Reads the nodes array (its '[' consumed) and the edges array after it
 * the bulk way, when the input is in memory and declares its counts: *done
 * says it did; otherwise the careful path reads them from the same place. */
static gch_status bulk_read(v8_reader *r, int *done)
{
    *done = 0;
    const unsigned char *nb = r->in.p, *end = r->in.end;
    if (r->in.src || !r->have_node_count || !r->have_edge_count || r->node_count_decl == 0 ||
        r->node_count_decl >= (size_t)UINT32_MAX - 2 || r->edge_count_decl >= UINT32_MAX)
        return GCH_OK;
    /* The lists' ends: the first ']' after the shortest list of their
     * declared counts (two bytes a value but the last). A count too large
     * finds the wrong ']', after which no edges follow, or values, which the
     * parse then refuses. */
    const int counted = r->opts->skip_refs;
    bulk_reset(r);
    const unsigned char *nclose = list_close(nb, end, r->node_count_decl, r->nfields);
    const unsigned char *eopen = nclose ? edges_open_at(nclose + 1, end) : NULL;
    const unsigned char *eclose = NULL;
    if (eopen && counted && r->devtools && !r->no_lean)
        eclose = lean_strings(r, eopen, end);
    if (eopen && !eclose)
        eclose = list_close(eopen + 1, end, r->edge_count_decl, r->efields);
    if (!eclose) {
        bulk_reset(r);
        return GCH_OK;
    }
    bulk_heap h = { .n = (size_t)r->node_count_decl };
    node_pass np;
    v8_list nodes = { nb, nclose, NULL, h.n * r->nfields, node_rows, &np, r->nfields };
    v8_list edges = { eopen + 1, eclose, NULL, (size_t)r->edge_count_decl * r->efields, NULL, NULL, 0 };
    edge_pass ep = { r, &h, &np, { 0 }, exact_div_by(r->nfields), 0, 0, 0, 0 };
    int ok;
    gch_status st = node_pass_begin(r, &h, &np, &ok);
    if (st == GCH_OK && ok && counted) {
        /* The edges come after every node: the root and edge counts are known. */
        ok = role_positions(r->edge_field, r->efields, EF_OTHER, ep.pos) && r->root_index % r->nfields == 0;
        if (ok && r->devtools && !bulk_edge_arrays(r, r->edge_count_decl, 1))
            st = oom(r);
        ep.lean = r->ps.open != NULL;
        r->root = (size_t)(r->root_index / r->nfields);
        ep.node = (size_t)-1; /* edge_rows moves to node 0 first */
        edges.rows = edge_rows;
        edges.rows_ctx = &ep;
        edges.row_len = r->efields;
    } else if (st == GCH_OK && ok &&
               !(edges.out = gch_reallocarray(NULL, edges.count ? edges.count : 1, sizeof *edges.out))) {
        ok = 0; /* the careful path needs less memory */
    }
    if (st == GCH_OK && ok) {
        ok = v8_bulk_parse(&nodes, &edges, &r->par, r->opts);
        if (np.oom)
            st = oom(r);
    }
    if (st == GCH_OK && ok)
        node_pass_end(r, &np, &ok);
    if (st == GCH_OK && ok && counted)
        r->edge_n = ep.e;
    else if (st == GCH_OK && ok)
        st = bulk_edges(r, edges.out, &h, &ok);
    if (st == GCH_OK && ok && r->devtools && !counted)
        edges.out = NULL; /* now the graph's targets (g_eto) */
    if (st != GCH_OK || !ok) {
        gch_free(edges.out);
        bulk_heap_free(&h);
        bulk_reset(r);
        return st;
    }
    if (r->devtools) { /* the heap goes to the builder once DevTools' view is made */
        if (r->lean)
            lean_end(r, &h, ep.node);
        else if (counted)
            for (size_t i = 0; i < h.n; i++)
                h.starts[i + 1] += h.starts[i];
        r->pending = h;
        r->has_pending = 1;
    } else if ((st = bulk_adopt(r, &h, edges.out)) != GCH_OK) {
        return st;
    }
    r->bulk = 1;
    r->bulk_nodes = nb;
    r->bulk_edges = eopen + 1;
    r->bulk_edges_close = eclose;
    r->nodes_done = 1;
    r->in.p = nclose + 1;
    *done = 1;
    return gch_json_fill(&r->in, 1) < 0 ? GCH_EIO : GCH_OK; /* progress, and the parsed bytes released */
}

/* Streams the edges: the edges of node i are the next n_edges[i] rows. */
static gch_status read_edges(v8_reader *r)
{
    gch_status st;
    if (!r->nodes_done)
        return gch_json_fail(&r->in, "\"edges\" before \"nodes\" (V8 writes nodes first)");
    if (r->edges_done)
        return gch_json_fail(&r->in, "a second \"edges\" array");
    if ((st = gch_json_expect(&r->in, '[', "'[' (edges)")) != GCH_OK)
        return st;
    if (r->bulk) { /* read with the nodes (only ever right after them) */
        r->in.p = r->bulk_edges_close + 1;
        r->edges_done = 1;
        return GCH_OK;
    }
    if (r->edge_sum >= UINT32_MAX)
        return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32-2 edges");
    if ((st = begin_heap(r)) != GCH_OK)
        return st;
    int skip = r->opts->skip_refs;
    uint64_t node_len = (uint64_t)r->node_n * r->nfields;
    uint64_t vals[BATCH], row[MAX_FIELDS];
    int state = 0, closed = 0;
    unsigned col = 0;
    edge_cursor c = { 0 };
    if ((st = enter_node(r, &c)) != GCH_OK)
        return st;
    while (!closed) {
        size_t n;
        uint64_t batch_at = gch_json_offset(&r->in);
        if ((st = gch_json_uint_batch(&r->in, &state, vals, BATCH, &n, &closed, "an integer in edges")) != GCH_OK)
            return st;
        for (size_t k = 0; k < n; k++) {
            row[col++] = vals[k];
            if (col < r->efields)
                continue;
            col = 0;
            if (c.node >= r->node_n)
                return gch_json_fail_at(&r->in, batch_at, "edges: more than the %llu edges the nodes' edge_count add up to",
                                  (unsigned long long)r->edge_sum);
            uint64_t type = 0, name = 0, to = 0;
            for (unsigned f = 0; f < r->efields; f++) {
                uint8_t role = r->edge_field[f];
                if (role == EF_TYPE)
                    type = row[f];
                else if (role == EF_NAME)
                    name = row[f];
                else if (role == EF_TO)
                    to = row[f];
            }
            uint64_t e = r->edge_n;
            if (type >= r->etypes)
                return gch_json_fail_at(&r->in, batch_at, "edge %llu: type %llu is not in snapshot.meta.edge_types",
                                  (unsigned long long)e, (unsigned long long)type);
            if (name > UINT32_MAX)
                return gch_json_fail_at(&r->in, batch_at, "edge %llu: name_or_index %llu is too large",
                                  (unsigned long long)e, (unsigned long long)name);
            if (to >= node_len || to % r->nfields != 0)
                return gch_json_fail_at(&r->in, batch_at,
                                  "edge %llu: to_node %llu is not the start of a node (%zu nodes of %u fields)",
                                  (unsigned long long)e, (unsigned long long)to, r->node_n, r->nfields);
            uint8_t erole = r->edge_role[type];
            if (erole != ET_ELEMENT && erole != ET_HIDDEN)
                note_string_index(r, name, batch_at);
            r->weak_edges += erole == ET_WEAK;
            r->dropped_shortcuts += erole == ET_SHORTCUT && c.node != r->root;
            size_t target = (size_t)(to / r->nfields);
            if (r->devtools && (st = keep_edge(r, e, (uint8_t)type, (uint32_t)name, (uint32_t)target)) != GCH_OK)
                return st;
            if (essential(r, c.node, (uint8_t)type))
                r->held[target] = 1;
            if (!skip && essential(r, c.node, (uint8_t)type)) {
                r->refs[c.nrefs] = w_get(&r->n_id, target);
                if (!r->opts->skip_labels &&
                    (st = label_key(r, erole, (uint32_t)name, &r->label_keys[c.nrefs])) != GCH_OK)
                    return st;
                if (++c.nrefs == REF_CHUNK && c.left > 1 && (st = emit_node(r, &c, 0)) != GCH_OK)
                    return st;
            }
            r->edge_n++;
            c.left--;
            if (c.left == 0 && (st = leave_node(r, &c)) != GCH_OK)
                return st;
        }
    }
    if (col != 0)
        return gch_json_fail(&r->in, "edges: %llu numbers, not a multiple of the %u edge fields",
                       (unsigned long long)r->edge_n * r->efields + col, r->efields);
    if (r->edge_n != r->edge_sum)
        return gch_json_fail(&r->in, "edges: %llu edges, but the nodes' edge_count add up to %llu",
                       (unsigned long long)r->edge_n, (unsigned long long)r->edge_sum);
    if (r->have_edge_count && r->edge_count_decl != r->edge_n)
        return gch_json_fail(&r->in, "edges: %llu edges, but snapshot.edge_count says %llu",
                       (unsigned long long)r->edge_n, (unsigned long long)r->edge_count_decl);
    r->edges_done = 1;
    return GCH_OK;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Without references (stat) the view asks only two things of edge names:
 * the property names of plain objects (interface names: objects' property
 * edges, kept) and whether an internal edge of a node the Statistics may
 * count as an Array is "elements" (calculateArraySize: internal edges of
 * nodes neither hidden, native, code nor strings, classified). The other
 * edge names (most of them: element numbers written as strings, the
 * internal edges of hidden nodes) are skipped unread. */
static void stat_names(v8_reader *r, uint8_t *bits)
{
    uint64_t e = 0, m = r->lean ? r->g_m : r->edge_n;
    for (size_t i = 0; i < r->node_n && e < m; i++) {
        uint64_t end = r->has_pending ? r->pending.starts[i + 1] : e + r->n_edges[i];
        uint8_t nrole = r->node_role[r->g_type[i]];
        int object = nrole == NT_OBJECT;
        int array = !(nrole == NT_HIDDEN || nrole == NT_NATIVE || nrole == NT_CODE || nrole == NT_STRING ||
                      nrole == NT_CONS_STRING || nrole == NT_SLICED_STRING);
        if (!object && !array) {
            e = end;
            continue;
        }
        for (; e < end && e < m; e++) {
            uint8_t role = r->edge_role[r->g_etype[e]];
            uint32_t nm = r->g_ename[e];
            if (role == ET_INTERNAL && array)
                r->eclass[nm] = 1; /* to classify */
            else if (role == ET_PROPERTY && object)
                bits[nm >> 3] |= (uint8_t)(1u << (nm & 7));
        }
    }
}

/* DevTools' view reads the names of the nodes that are not strings, numbers
 * or code, the names of property edges (interface names) and, with labels,
 * of every edge named by a string: those strings (and the classes', which
 * are among them) are kept. Of the other edge names it asks a few questions
 * (v8_edge_name_class), answered as each is read: eclass marks those. */
static gch_status collect_wanted_graph(v8_reader *r)
{
    uint64_t top = r->any_string ? r->max_string + 1 : 0;
    int labels = !r->opts->skip_refs && !r->opts->skip_labels;
    uint8_t *bits = gch_calloc((size_t)(top / 8 + 1), 1);
    if (!bits || !(r->eclass = gch_calloc((size_t)(top ? top : 1), 1)))
        return gch_free(bits), oom(r);
    r->eclass_n = (size_t)top;
    for (size_t i = 0; i < r->node_n; i++) {
        /* every name the view may compare (v8_devtools.c node_flags: a
         * closure, regexp or number named "Array" counts as a JS array) */
        uint8_t role = r->node_role[r->g_type[i]];
        int is_text = role == NT_STRING || role == NT_CONS_STRING || role == NT_SLICED_STRING;
        if ((!is_text && role != NT_CODE) || (role == NT_STRING && r->keep_text))
            bits[r->g_name[i] >> 3] |= (uint8_t)(1u << (r->g_name[i] & 7));
    }
    if (r->opts->skip_refs) {
        stat_names(r, bits);
    } else {
        for (uint64_t e = 0; e < r->edge_n; e++) {
            uint8_t role = r->edge_role[r->g_etype[e]];
            if (role == ET_ELEMENT || role == ET_HIDDEN)
                continue;
            uint32_t nm = r->g_ename[e];
            r->eclass[nm] = 1; /* to classify */
            if (labels || role == ET_PROPERTY)
                bits[nm >> 3] |= (uint8_t)(1u << (nm & 7));
        }
    }
    size_t u = 0;
    for (uint64_t k = 0; k < top; k++)
        u += bits[k >> 3] >> (k & 7) & 1;
    r->wanted = gch_reallocarray(NULL, u ? u : 1, sizeof *r->wanted);
    r->str_off = gch_reallocarray(NULL, u ? u : 1, sizeof *r->str_off);
    if (!r->wanted || !r->str_off) {
        gch_free(bits);
        return oom(r);
    }
    u = 0;
    for (uint64_t k = 0; k < top; k++)
        if (bits[k >> 3] >> (k & 7) & 1)
            r->wanted[u++] = (uint32_t)k;
    gch_free(bits);
    r->wanted_n = u;
    for (size_t i = 0; i < u; i++)
        r->str_off[i] = UINT64_MAX;
    return GCH_OK;
}

/* The string indices that name a class or a label, sorted and unique: the
 * only strings worth keeping (the others are the contents of string nodes). */
static gch_status collect_wanted(v8_reader *r)
{
    if (r->devtools)
        return collect_wanted_graph(r);
    size_t n = 0, cap = r->classes.len + r->labels.len + (r->keep_text ? r->node_n : 0);
    uint32_t *w = gch_reallocarray(NULL, cap ? cap : 1, sizeof *w);
    if (!w)
        return oom(r);
    for (size_t i = 0; r->keep_text && i < r->node_n; i++)
        if (r->node_role[r->g_type[i]] == NT_STRING)
            w[n++] = r->g_name[i];
    for (size_t i = 0; i < r->classes.len; i++)
        if (r->classes.keys[i] >= TYPE_RAW_NAMED)
            w[n++] = (uint32_t)(r->classes.keys[i] - TYPE_RAW_NAMED);
    for (size_t i = 0; i < r->labels.len; i++) {
        uint8_t role = (uint8_t)(r->labels.keys[i] >> 32);
        if (role != ET_ELEMENT && role != ET_HIDDEN)
            w[n++] = (uint32_t)r->labels.keys[i];
    }
    qsort(w, n, sizeof *w, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || w[u - 1] != w[i])
            w[u++] = w[i];
    r->wanted = w;
    r->wanted_n = u;
    /* Offsets of the kept strings, by position in wanted; a string never
     * read (index beyond the table) stays "" until the range check fails. */
    r->str_off = gch_reallocarray(NULL, u ? u : 1, sizeof *r->str_off);
    if (!r->str_off)
        return oom(r);
    for (size_t i = 0; i < u; i++)
        r->str_off[i] = UINT64_MAX;
    return GCH_OK;
}

static gch_status table_string(v8_reader *r, int keep);

/* Classifies edge name k from its bytes in the input when it is short and
 * plain (no escape, no control byte: the bytes are the text), and skips
 * it; *pending = 0 then. A WeakMap name is left to be read the usual way
 * and kept (its parts are read later). */
static gch_status classify_plain(v8_reader *r, size_t k, int *pending)
{
    char buf[64];
    if (r->in.src || gch_json_peek(&r->in) != '"')
        return GCH_OK;
    const unsigned char *p = r->in.p, *q = v8_bulk_plain_string(p, r->in.end);
    size_t len = q ? (size_t)(q - p) - 2 : 0;
    if (!q || len >= sizeof buf)
        return GCH_OK;
    memcpy(buf, p + 1, len);
    buf[len] = '\0';
    uint8_t c = v8_edge_name_class(buf);
    if (c & EC_WEAKMAP)
        return GCH_OK; /* read the usual way and kept */
    r->eclass[k] = c;
    r->in.p = q;
    *pending = 0;
    return GCH_OK;
}

/* The strings read are not those looked at ahead (the lean edges were
 * kept by the wrong names): the read fails, and is made again without
 * lean edges (gch_read_v8_buffer). */
static gch_status lean_mismatch(v8_reader *r)
{
    return gch_error_set(r->err, GCH_EFORMAT, "the strings are not where they were looked for");
}

static gch_status read_strings(v8_reader *r)
{
    gch_status st;
    if (r->strings_done)
        return gch_json_fail(&r->in, "a second \"strings\" array");
    /* After the arrays (V8's order), only the strings they name are kept. */
    if (r->nodes_done && r->edges_done && (st = collect_wanted(r)) != GCH_OK)
        return st;
    if ((st = gch_json_expect(&r->in, '[', "'[' (strings)")) != GCH_OK)
        return st;
    r->strings_done = 1;
    if (r->lean && r->in.p != r->ps.open)
        return lean_mismatch(r);
    if (closes_empty(&r->in, ']'))
        return r->lean && r->ps.n != 0 ? lean_mismatch(r) : GCH_OK;
    size_t next_wanted = 0;
    for (;;) {
        if (r->str_n >= UINT32_MAX)
            return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32-1 strings");
        if (!r->wanted && !gch_grow((void **)&r->str_off, &r->str_cap, r->str_n + 1, sizeof *r->str_off, 1024))
            return oom(r);
        int keep = 1;
        if (r->wanted) {
            while (next_wanted < r->wanted_n && r->wanted[next_wanted] < r->str_n)
                next_wanted++;
            keep = next_wanted < r->wanted_n && r->wanted[next_wanted] == r->str_n;
        }
        if (r->wanted && keep)
            r->str_off[next_wanted] = r->pool.len;
        else if (!r->wanted)
            r->str_off[r->str_n] = r->pool.len;
        size_t k = r->str_n++, at = r->pool.len;
        int classify = k < r->eclass_n && r->eclass[k];
        int pending = 1; /* the string is still to read */
        if (classify && !keep && (st = classify_plain(r, k, &pending)) != GCH_OK)
            return st;
        classify = classify && pending;
        if (pending && (st = table_string(r, keep || classify)) != GCH_OK)
            return st;
        if (keep || classify) {
            /* Strings are kept NUL-terminated in the pool. */
            if (!gch_grow((void **)&r->pool.s, &r->pool.cap, r->pool.len + 2, 1, 64))
                return oom(r);
            r->pool.s[r->pool.len++] = '\0';
        }
        if (classify) {
            r->eclass[k] = v8_edge_name_class(r->pool.s + at);
            if (!keep && (r->eclass[k] & EC_WEAKMAP)) {
                if (!gch_grow((void **)&r->wm_index, &r->wm_cap, r->wm_n + 1, sizeof *r->wm_index, 16) ||
                    !(r->wm_off = gch_reallocarray(r->wm_off, r->wm_cap, sizeof *r->wm_off)))
                    return oom(r);
                r->wm_index[r->wm_n] = (uint32_t)k;
                r->wm_off[r->wm_n++] = at;
            } else if (!keep) {
                r->pool.len = at; /* classified: the text is not needed */
            }
        }
        int more;
        if ((st = after_item(&r->in, ']', &more)) != GCH_OK)
            return st;
        if (!more)
            return r->lean && r->str_n != r->ps.n ? lean_mismatch(r) : GCH_OK;
    }
}

/* Skips a member's value. An integer list (locations, samples) of a
 * snapshot in memory is checked the bulk way; anything else, or a list the
 * bulk way does not take, the careful way (which then says what is wrong). */
static gch_status skip_member(v8_reader *r)
{
    if (!r->in.src && gch_json_peek(&r->in) == '[') {
        const unsigned char *b = r->in.p + 1, *e = memchr(b, ']', (size_t)(r->in.end - b));
        if (e && v8_bulk_is_list(b, e)) {
            r->in.p = e + 1;
            return GCH_OK;
        }
    }
    return gch_json_skip_value(&r->in);
}

/* Reads a string of the table into the pool, or skips it (a plain one of a
 * snapshot in memory by its closing quote). */
static gch_status table_string(v8_reader *r, int keep)
{
    if (!keep && !r->in.src && gch_json_peek(&r->in) == '"') {
        const unsigned char *q = v8_bulk_plain_string(r->in.p, r->in.end);
        if (q) {
            r->in.p = q;
            return GCH_OK;
        }
    }
    return gch_json_string(&r->in, keep ? &r->pool : NULL);
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
    return skip_member(r);
}

static gch_status parse(v8_reader *r)
{
    gch_status st = read_object(r, top_member, "'{' (a V8 heap snapshot starts with {\"snapshot\":)");
    if (st != GCH_OK)
        return st;
    int c = gch_json_peek(&r->in);
    if (c == -2)
        return GCH_EIO;
    if (c != -1)
        return gch_json_fail(&r->in, "data after the end of the snapshot object");
    if (!r->have_snapshot)
        return gch_json_fail(&r->in, "no \"snapshot\" member");
    if (!r->nodes_done || !r->edges_done || !r->strings_done)
        return gch_json_fail(&r->in, "the snapshot has no \"%s\" array",
                       !r->nodes_done ? "nodes" : !r->edges_done ? "edges" : "strings");
    if (r->any_string && r->max_string >= r->str_n && r->bulk)
        r->max_string_at = bulk_offset(r, r->max_string_in_edges ? r->bulk_edges : r->bulk_nodes, r->max_string_at);
    if (r->any_string && r->max_string >= r->str_n)
        return gch_json_fail_at(&r->in, r->max_string_at, "string index %llu is out of range (%zu strings)",
                          (unsigned long long)r->max_string, r->str_n);
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* Names, roots, metadata */

/* A kept string (every string the classes and labels name is kept). */
static const char *str_at(const v8_reader *r, uint32_t index)
{
    uint64_t off = UINT64_MAX;
    if (!r->wanted) {
        off = index < r->str_n ? r->str_off[index] : UINT64_MAX;
    } else {
        size_t lo = GCH_LOWER_BOUND(r->wanted, 0, r->wanted_n, index);
        if (lo < r->wanted_n && r->wanted[lo] == index)
            off = r->str_off[lo];
    }
    return off == UINT64_MAX ? "" : r->pool.s + off;
}

/* DevTools' JSHeapSnapshotNode.className: the name for objects and natives,
 * "(system)" for hidden, "(compiled code)" for code, "(TYPE)" otherwise. */
static gch_status declare_types(v8_reader *r)
{
    gch_json_text name = { 0 };
    gch_status st = GCH_OK;
    for (size_t c = 0; c < r->classes.len && st == GCH_OK; c++) {
        uint64_t key = r->classes.keys[c];
        const char *text;
        if (key >= TYPE_RAW_NAMED) {
            text = str_at(r, (uint32_t)(key - TYPE_RAW_NAMED));
            if (!text[0])
                text = "(no name)";
        } else if (r->node_role[key] == NT_HIDDEN) {
            text = "(system)";
        } else if (r->node_role[key] == NT_CODE) {
            text = "(compiled code)";
        } else {
            const char *t = list_name(r->node_types, (unsigned)key);
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
        st = gch_builder_add_type(r->b, c, text, strlen(text), NULL, r->err);
    }
    gch_free(name.s);
    return st;
}

/* Writes the label of an edge (DevTools' JSHeapSnapshotEdge.toString, with
 * "context NAME" for context variables) into t. */
static int format_label(const v8_reader *r, uint8_t role, uint32_t name, gch_json_text *t)
{
    char num[16];
    const char *open = "{", *close = "}", *text;
    size_t len;
    if (role == HUNG_ROLE) {
        open = close = "";
        text = "(no strong retainer)";
        len = strlen(text);
    } else if (role == ET_ELEMENT || role == ET_HIDDEN) {
        char *q = num + sizeof num;
        uint32_t v = name;
        do {
            *--q = (char)('0' + v % 10);
            v /= 10;
        } while (v);
        text = q;
        len = (size_t)(num + sizeof num - q);
        if (role == ET_ELEMENT) {
            open = "[";
            close = "]";
        }
    } else {
        text = str_at(r, name);
        len = strlen(text);
        if (len > MAX_LABEL_NAME)
            len = MAX_LABEL_NAME;
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
    }
    size_t lo = strlen(open), lc = strlen(close);
    if (!gch_grow((void **)&t->s, &t->cap, lo + len + lc + 1, 1, 256))
        return 0;
    memcpy(t->s, open, lo);
    memcpy(t->s + lo, text, len);
    memcpy(t->s + lo + len, close, lc);
    t->len = lo + len + lc;
    t->s[t->len] = '\0';
    return 1;
}

/* Replaces the label keys given with the references by the labels' names.
 * Keys are distinct (edge type, name) pairs, so their names are appended
 * without a lookup; the few that coincide ("{3}" as a hidden index and as an
 * internal name) only cost their bytes. */
static gch_status name_labels(v8_reader *r)
{
    size_t n = r->labels.len;
    uint32_t *map = gch_reallocarray(NULL, n ? n : 1, sizeof *map);
    gch_json_text t = { 0 };
    gch_status st = map ? GCH_OK : oom(r);
    for (size_t k = 0; k < n && st == GCH_OK; k++) {
        uint64_t key = r->labels.keys[k];
        if (!format_label(r, (uint8_t)(key >> 32), (uint32_t)key, &t))
            st = oom(r);
        else
            st = gch_builder_append_label(r->b, t.s, t.len, &map[k], r->err);
    }
    if (st == GCH_OK)
        st = gch_builder_map_labels(r->b, map, n, r->err);
    gch_free(map);
    gch_free(t.s);
    return st;
}

static gch_status add_meta_u64(gch_builder *b, const char *key, uint64_t v, gch_error *err)
{
    return gch_builder_add_metaf(b, err, key, "%llu", (unsigned long long)v);
}

static gch_status emit_meta(v8_reader *r, gch_builder *b)
{
    gch_json_text fields = { 0 };
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
    if (st == GCH_OK)
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

static void free_arrays(v8_reader *r)
{
    gch_free(r->n_class);
    gch_free(r->n_edges);
    w_free(&r->n_id);
    w_free(&r->n_size);
    gch_free(r->held);
    gch_free(r->refs);
    gch_free(r->label_keys);
    gch_free(r->pool.s);
    gch_free(r->str_off);
    gch_free(r->wanted);
    gch_free(r->eclass);
    gch_free(r->wm_index);
    gch_free(r->wm_off);
    r->eclass = NULL;
    r->wm_index = NULL;
    r->wm_off = NULL;
    r->eclass_n = r->wm_n = r->wm_cap = 0;
    r->n_class = r->n_edges = r->label_keys = r->wanted = NULL;
    r->refs = r->str_off = NULL;
    r->held = NULL;
    r->pool.s = NULL;
    for (int k = 0; k < 3; k++) {
        gch_free(r->direct[k]);
        r->direct[k] = NULL;
        r->direct_cap[k] = 0;
    }
    key_set_free(&r->classes);
    key_set_free(&r->labels);
}

/* A root on node i: by position when the builder has the objects whole. */
static gch_status add_node_root(v8_reader *r, size_t i, unsigned flags, const char *label)
{
    if (r->bulk)
        return gch_builder_add_root_at(r->b, (uint32_t)i, GCH_ROOT_INTERNAL, flags, label, r->err);
    return gch_builder_add_root(r->b, w_get(&r->n_id, i), GCH_ROOT_INTERNAL, flags, 0, 0, label, r->err);
}

/* The graph's strings by index in O(1) (str_at searches the kept ones): a
 * table by index when most are kept, else a map from the kept ones' indices
 * to their place in p. */
typedef struct str_table {
    const char **p;  /* by index (n), or by place (the map's) */
    size_t n, kept;
    gch_u64_map at;  /* used when map */
    int map;
} str_table;

static const char *graph_str(const void *ctx, uint32_t index)
{
    const str_table *t = ctx;
    if (t->map) {
        uint32_t k = gch_u64_map_get(&t->at, index);
        return k != UINT32_MAX ? t->p[k] : "";
    }
    return index < t->n && t->p[index] ? t->p[index] : "";
}

static int str_table_put(str_table *t, uint32_t index, const char *s)
{
    if (!t->map) {
        if (index < t->n)
            t->p[index] = s;
        return 1;
    }
    int found;
    uint32_t *v = gch_u64_map_put(&t->at, index, (uint32_t)t->kept, &found);
    if (!v)
        return 0;
    if (!found)
        t->p[t->kept++] = s;
    return 1;
}

/* The kept strings (and the WeakMap names) of the reader into t. */
static gch_status str_table_make(v8_reader *r, str_table *t)
{
    size_t kept = (r->wanted ? r->wanted_n : r->str_n) + r->wm_n;
    t->n = r->str_n;
    t->map = r->wanted && kept < r->str_n / 4;
    if (!(t->p = gch_calloc(t->map ? kept + 1 : (r->str_n ? r->str_n : 1), sizeof *t->p)))
        return oom(r);
    int ok = 1;
    if (r->wanted) {
        for (size_t k = 0; k < r->wanted_n; k++)
            if (r->wanted[k] < r->str_n && r->str_off[k] != UINT64_MAX)
                ok &= str_table_put(t, r->wanted[k], r->pool.s + r->str_off[k]);
    } else {
        for (size_t k = 0; k < r->str_n; k++)
            if (r->str_off[k] != UINT64_MAX)
                ok &= str_table_put(t, (uint32_t)k, r->pool.s + r->str_off[k]);
    }
    for (size_t k = 0; k < r->wm_n; k++)
        ok &= str_table_put(t, r->wm_index[k], r->pool.s + r->wm_off[k]);
    if (!ok)
        return oom(r);
    return GCH_OK;
}

/* DevTools' view being made: the graph, the result, the arrays the graph
 * adds to the reader's. */
typedef struct devtools_run {
    v8_graph g;
    v8_devtools d;
    uint32_t *estart;
    uint64_t *id, *size;
    str_table strs;
    const char *type_names[MAX_TYPES];
    int done;
} devtools_run;

static void devtools_run_free(devtools_run *dr)
{
    gch_free(dr->estart);
    gch_free(dr->strs.p);
    gch_u64_map_free(&dr->strs.at);
    gch_free(dr->id);
    gch_free(dr->size);
    v8_devtools_free(&dr->d);
}

static gch_status build_heap(v8_reader *r, devtools_run *dr, gch_dump **out);

/* DevTools' view of the graph read (v8_devtools.c), before the reader's
 * arrays go. */
static gch_status devtools_view(v8_reader *r, devtools_run *dr)
{
    size_t n = r->node_n;
    const uint32_t *estart = r->pending.starts;
    const uint64_t *id = r->pending.ids;
    uint64_t *size = r->pending.sizes;
    if (r->has_pending) {
        /* Unique ids (V8's): the heap gets DevTools' self sizes, folded in
         * the sizes it adopts. Else it keeps the raw ones (and the view is
         * not applied): the view folds a copy. */
        int unique = gch_ids_unique(r->pending.ids, (uint32_t)n);
        if (unique < 0)
            return oom(r);
        r->ids_unique = unique;
        if (!unique) {
            if (!(dr->size = gch_reallocarray(NULL, n ? n : 1, sizeof *dr->size)))
                return oom(r);
            memcpy(dr->size, size, n * sizeof *size);
            size = dr->size;
        }
    } else { /* the careful path: its own arrays */
        dr->estart = gch_reallocarray(NULL, n + 1, sizeof *dr->estart);
        dr->id = gch_reallocarray(NULL, n ? n : 1, sizeof *dr->id);
        dr->size = gch_reallocarray(NULL, n ? n : 1, sizeof *dr->size);
        if (!dr->estart || !dr->id || !dr->size)
            return oom(r);
        dr->estart[0] = 0;
        for (size_t i = 0; i < n; i++) {
            dr->estart[i + 1] = dr->estart[i] + r->n_edges[i];
            dr->id[i] = w_get(&r->n_id, i);
            dr->size[i] = w_get(&r->n_size, i);
        }
        estart = dr->estart;
        id = dr->id;
        size = dr->size;
    }
    for (unsigned k = 0; k < r->ntypes; k++)
        dr->type_names[k] = list_name(r->node_types, k);
    /* every string index the graph uses is below str_n (parse checked) */
    gch_status st = str_table_make(r, &dr->strs);
    if (st != GCH_OK)
        return st;
    dr->g = (v8_graph){ .n = n, .root = r->root, .m = r->lean ? r->g_m : r->edge_n, .type = r->g_type,
                        .name = r->g_name,
                        .det = r->g_det, .has_det = r->has_detachedness, .id = id, .size = size,
                        .estart = estart, .etype = r->g_etype, .ename = r->g_ename, .eto = r->g_eto,
                        .node_role = r->node_role, .edge_role = r->edge_role, .node_type_name = dr->type_names,
                        .no_refs = r->opts->skip_refs, .eclass = r->eclass, .eclass_n = r->eclass_n,
                        .str = graph_str, .str_ctx = &dr->strs,
                        .extra_native_bytes = r->extra_native_bytes, .retainers = r->retainers };
    st = v8_devtools_run(&dr->g, &dr->d, r->err);
    dr->done = st == GCH_OK;
    return st;
}

/* The bulk heap's references: the edges DevTools' view keeps, in place over
 * the graph's targets and names, and after the root's own one to each node
 * the view hangs under the root; then the heap goes to the builder. Where
 * ids repeat, the edges the reader gives without the view (as the careful
 * path does then). */
static gch_status devtools_refs(v8_reader *r, devtools_run *dr)
{
    bulk_heap *h = &r->pending;
    v8_devtools *d = &dr->d;
    int unique = r->ids_unique, raw = !unique;
    gch_status st = GCH_OK;
    d->refs_given = unique;
    uint32_t *to = r->g_eto, *label = r->opts->skip_labels ? NULL : r->g_ename;
    uint64_t w = 0, e = 0, edges = r->edge_n;
    for (size_t i = 0; i < h->n; i++) {
        uint64_t end = h->starts[i + 1];
        for (; e < end; e++) {
            if (raw ? !essential(r, i, r->g_etype[e]) : !(d->essential[e >> 3] >> (e & 7) & 1))
                continue;
            to[w] = to[e];
            if (label) {
                r->edge_n = e; /* as the careful path numbers labels */
                if ((st = label_key(r, r->edge_role[r->g_etype[e]], r->g_ename[e], &label[w])) != GCH_OK)
                    return st;
            }
            w++;
        }
        h->starts[i + 1] = (uint32_t)w;
    }
    r->edge_n = edges;
    uint64_t hung = raw ? 0 : d->hung_n, at = h->starts[r->root + 1];
    if (w + hung >= UINT32_MAX)
        return gch_error_set(r->err, GCH_ELIMIT, "more than 2^32-1 references");
    uint32_t *to2 = gch_reallocarray(to, w + hung ? w + hung : 1, sizeof *to);
    if (!to2)
        return oom(r);
    r->g_eto = to = to2;
    if (label) {
        uint32_t *l2 = gch_reallocarray(label, w + hung ? w + hung : 1, sizeof *label);
        if (!l2)
            return oom(r);
        r->g_ename = label = l2;
    }
    if (hung) {
        uint32_t key = 0;
        if (label && (st = label_key(r, HUNG_ROLE, 0, &key)) != GCH_OK)
            return st;
        memmove(to + at + hung, to + at, (size_t)(w - at) * sizeof *to);
        if (label)
            memmove(label + at + hung, label + at, (size_t)(w - at) * sizeof *label);
        for (size_t k = 0; k < hung; k++) {
            to[at + k] = d->hung[k];
            if (label)
                label[at + k] = key;
        }
        for (size_t i = r->root + 1; i <= h->n; i++)
            h->starts[i] += (uint32_t)hung;
    }
    r->g_eto = NULL;
    if (label)
        r->g_ename = NULL;
    h->labels = label;
    return bulk_adopt(r, h, to);
}

/* The Statistics view and DevTools' counts, for info. */
static gch_status devtools_meta(v8_reader *r, const v8_devtools *d)
{
    static const char *const keys[] = { "statistics_total", "statistics_code", "statistics_strings",
                                        "statistics_js_arrays", "statistics_typed_arrays",
                                        "statistics_system_objects", "statistics_native" };
    const uint64_t vals[] = { d->st_total, d->st_code, d->st_strings, d->st_js_arrays, d->st_typed_arrays,
                              d->st_system, d->st_native };
    gch_status st = add_meta_u64(r->b, "devtools_detached_nodes", d->detached, r->err);
    for (size_t k = 0; k < sizeof keys / sizeof *keys && st == GCH_OK; k++)
        st = add_meta_u64(r->b, keys[k], vals[k], r->err);
    return st;
}

/* The texts of the string nodes (keep_payloads: waste's duplicate strings,
 * objects --values) into the heap's pool, each distinct one once (V8 keeps
 * one entry a distinct text in its table), and an entry per string node
 * whose id is, for now, the node's position. */
static gch_status keep_texts(v8_reader *r)
{
    size_t count = 0, positions = r->wanted ? r->wanted_n : r->str_n;
    for (size_t i = 0; i < r->node_n; i++)
        count += r->node_role[r->g_type[i]] == NT_STRING;
    if (!count)
        return GCH_OK;
    uint32_t *off = gch_reallocarray(NULL, positions ? positions : 1, sizeof *off);
    if (!off || !(r->texts = gch_calloc(count, sizeof *r->texts))) {
        gch_free(off);
        return oom(r);
    }
    memset(off, 0xff, (positions ? positions : 1) * sizeof *off);
    gch_status st = GCH_OK;
    for (size_t i = 0; i < r->node_n && st == GCH_OK; i++) {
        if (r->node_role[r->g_type[i]] != NT_STRING)
            continue;
        uint32_t name = r->g_name[i];
        size_t pos = name;
        if (r->wanted)
            pos = GCH_LOWER_BOUND(r->wanted, 0, r->wanted_n, name);
        const char *text = str_at(r, name);
        size_t len = strlen(text);
        if (pos < positions && off[pos] == GCH_NONE)
            st = gch_builder_append_label(r->b, text, len, &off[pos], r->err);
        gch_payload *p = &r->texts[r->texts_n++];
        p->id = i;
        p->offset = pos < positions ? off[pos] : GCH_NONE;
        p->length = (uint32_t)len;
        p->kind = GCH_PAYLOAD_TEXT;
    }
    gch_free(off);
    return st;
}

static int cmp_payload_id(const void *a, const void *b)
{
    const gch_payload *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* The entries onto the finished heap, by object id (the objects are the
 * nodes in order unless ids repeated: then none). */
static gch_status attach_texts(v8_reader *r, gch_heap *h)
{
    if (!r->keep_text)
        return GCH_OK;
    h->payloads_kept = 1;
    if (h->object_count != r->node_n || !r->texts_n)
        return GCH_OK;
    for (size_t k = 0; k < r->texts_n; k++)
        r->texts[k].id = h->object_id[r->texts[k].id];
    qsort(r->texts, r->texts_n, sizeof *r->texts, cmp_payload_id);
    h->payloads = r->texts;
    h->payload_count = r->texts_n;
    r->texts = NULL;
    r->texts_n = 0;
    return GCH_OK;
}

/* Names the classes and labels, adds the roots and metadata, closes the heap. */
static gch_status build(v8_reader *r, gch_dump **out)
{
    devtools_run dr = { 0 };
    gch_status st = r->devtools ? devtools_view(r, &dr) : GCH_OK;
    if (st == GCH_OK && r->has_pending) {
        r->has_pending = 0;
        dr.d.refs_given = 1; /* without references: nothing for apply to rewire */
        st = r->opts->skip_refs ? bulk_adopt(r, &r->pending, NULL) : devtools_refs(r, &dr);
        bulk_heap_free(&r->pending);
        if (!dr.size) { /* the heap's sizes were the view's (and are gone with pending) */
            dr.d.sizes_given = 1;
            dr.d.size = NULL;
        }
    }
    if (st != GCH_OK) {
        devtools_run_free(&dr);
        return st;
    }
    st = build_heap(r, &dr, out);
    devtools_run_free(&dr);
    free_graph(r);
    return st;
}

static gch_status build_heap(v8_reader *r, devtools_run *dr, gch_dump **out)
{
    /* Only ids (for the roots) and the key lists are needed from here on. */
    gch_free(r->n_class);
    gch_free(r->n_edges);
    w_free(&r->n_size);
    gch_free(r->refs);
    gch_free(r->label_keys);
    for (int k = 0; k < 3; k++) {
        gch_free(r->direct[k]);
        r->direct[k] = NULL;
        r->direct_cap[k] = 0;
    }
    r->n_class = r->n_edges = r->label_keys = NULL;
    r->refs = NULL;
    key_set_drop_slots(&r->classes);
    key_set_drop_slots(&r->labels);
    gch_status st = declare_types(r);
    if (st == GCH_OK && dr->done)
        st = devtools_meta(r, &dr->d);
    if (st == GCH_OK && !r->opts->skip_refs && !r->opts->skip_labels)
        st = name_labels(r);
    if (st == GCH_OK)
        st = add_node_root(r, r->root, 0, "synthetic root");
    /* DevTools' second pass starts from the nodes no essential edge holds:
     * they become weak roots (not live unless --include-weak); in DevTools'
     * view the root holds them (v8_devtools_apply). */
    if (dr->done && !r->opts->skip_refs)
        r->weak_only_nodes = dr->d.hung_n;
    for (size_t i = 0; dr->done && r->opts->skip_refs && r->held && i < r->node_n; i++)
        r->weak_only_nodes += !r->held[i] && i != r->root; /* without references: no essential edges */
    for (size_t i = 0; r->held && !dr->done && st == GCH_OK && i < r->node_n; i++) {
        if (r->held[i] || i == r->root)
            continue;
        r->weak_only_nodes++;
        st = add_node_root(r, i, GCH_ROOT_WEAK, "only weak retainers");
    }
    if (st == GCH_OK)
        st = emit_meta(r, r->b);
    if (st == GCH_OK && r->keep_text)
        st = keep_texts(r);
    /* The builder has its own copies now: free ours before it resolves ids. */
    free_arrays(r);
    if (st == GCH_OK)
        st = gch_builder_end_heap(r->b, r->err);
    if (st == GCH_OK)
        st = gch_builder_finish(r->b, out, r->err);
    if (st == GCH_OK)
        (*out)->ids_stable = 1; /* V8 node ids survive between snapshots of one process */
    if (st == GCH_OK)
        st = attach_texts(r, (*out)->heaps[0]);
    if (st == GCH_OK && dr->done && (st = v8_devtools_apply(&dr->d, &dr->g, (*out)->heaps[0], r->err)) != GCH_OK) {
        gch_dump_free(*out);
        *out = NULL;
    }
    return st;
}

static void reader_free(v8_reader *r)
{
    bulk_heap_free(&r->pending);
    gch_free(r->texts);
    free_arrays(r);
    free_graph(r);
    gch_builder_free(r->b);
    gch_json_free(&r->in);
    gch_free(r->key.s);
    gch_free(r->title.s);
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

/* A reader for one read, *out NULL until it succeeds; NULL without memory
 * (err says so). */
static v8_reader *reader_new(const gch_load_options *opts, gch_dump **out, gch_error *err)
{
    static const gch_load_options no_options;
    gch_error_clear(err);
    *out = NULL;
    v8_reader *r = gch_calloc(1, sizeof *r);
    if (!r) {
        gch_error_set(err, GCH_ENOMEM, "out of memory");
        return NULL;
    }
    r->opts = opts ? opts : &no_options;
    r->err = err;
    r->devtools = !r->opts->v8_raw;
    r->keep_text = r->opts->keep_payloads;
    r->node_graph = r->devtools || r->keep_text;
    return r;
}

gch_status gch_read_v8_buffer(const void *data, size_t size, const gch_load_options *opts, gch_dump **out,
                              gch_error *err)
{
    v8_reader *r = reader_new(opts, out, err);
    if (!r)
        return GCH_ENOMEM;
    r->par = gch_parallel_for(r->opts->threads);
    gch_json_init_buffer(&r->in, data, size, r->opts, err);
    gch_status st = run(r, out);
    /* A read with lean edges that fails is made again without them: the
     * snapshot's faults are then found and said as without (the bytes stay
     * readable until the load returns: gch_load_options.release). */
    int again = r->lean_tried && st != GCH_OK && st != GCH_ENOMEM && st != GCH_EIO;
    reader_free(r);
    if (!again)
        return st;
    if (!(r = reader_new(opts, out, err)))
        return GCH_ENOMEM;
    r->no_lean = 1;
    r->par = gch_parallel_for(r->opts->threads);
    gch_json_init_buffer(&r->in, data, size, r->opts, err);
    st = run(r, out);
    reader_free(r);
    return st;
}

gch_status gch_read_v8(const gch_source *src, const gch_load_options *opts, gch_dump **out, gch_error *err)
{
    v8_reader *r = reader_new(opts, out, err);
    if (!r)
        return GCH_ENOMEM;
    gch_status st = gch_json_init_source(&r->in, src, r->opts, err);
    if (st == GCH_OK)
        st = run(r, out);
    reader_free(r);
    return st;
}
