/* Reading a JavaScriptCore heap snapshot's JSON into flat arrays.
 *
 * The layout is WebKit's (Source/JavaScriptCore/heap/HeapSnapshotBuilder.cpp,
 * the comment above dumpToStream, and docs/jsc-format.md): one object with
 * "version", "type", "nodes" (rows of id, size, class name index, flags;
 * GCDebugging rows add a label index and two address strings),
 * "nodeClassNames", "edges" (rows of from id, to id, edge type index, data),
 * "edgeTypes", "edgeNames", and in GCDebugging snapshots "roots" (rows of
 * node id, root reason, reachability reason) and "labels". Members are
 * found by name in any order; unknown ones are skipped. Indexes into tables
 * that come later in the file are checked once the tables are read: the
 * largest index used and where it was is kept (jsc_maxref).
 *
 * Nothing here trusts a count: JSC writes none, and every array grows with
 * what the input holds (a row is at least 8 bytes of input).
 */
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "jsc_internal.h"

#define BATCH 4096 /* integers parsed at a time */

static gch_status oom(jsc_snapshot *s)
{
    return gch_error_set(s->err, GCH_ENOMEM, "out of memory");
}

static void note_max(jsc_maxref *m, uint64_t v, uint64_t at)
{
    if (!m->any || v > m->max) {
        m->max = v;
        m->at = at;
        m->any = 1;
    }
}

/* An array of strings: ["a", "b", ...]. */
static gch_status parse_strings(jsc_snapshot *s, jsc_strings *l, const char *member)
{
    gch_json_in *in = &s->in;
    gch_status st = gch_json_expect(in, '[', "'[' opening a list of strings");
    if (st != GCH_OK)
        return st;
    l->present = 1;
    if (gch_json_peek(in) == ']') {
        in->p++;
        return GCH_OK;
    }
    for (;;) {
        if (!gch_grow((void **)&l->off, &l->cap, l->n + 1, sizeof *l->off, 64))
            return oom(s);
        l->off[l->n++] = l->pool.len;
        if ((st = gch_json_string(in, &l->pool)) != GCH_OK)
            return st;
        if (!l->pool.s && !gch_grow((void **)&l->pool.s, &l->pool.cap, 1, 1, 64))
            return oom(s);
        l->pool.len++; /* keep the NUL the tokenizer wrote after the string */
        int c = gch_json_peek(in);
        if (c == ']') {
            in->p++;
            return GCH_OK;
        }
        if (c != ',')
            return gch_json_expect(in, ',', member);
        in->p++;
    }
}

static int grow_nodes(jsc_snapshot *s)
{
    size_t cap = s->node_cap, need = s->node_n + 1;
    if (need <= cap)
        return 1;
    size_t c1 = cap, c2 = cap, c3 = cap, c4 = cap;
    if (!gch_grow((void **)&s->n_id, &c1, need, sizeof *s->n_id, 1024) ||
        !gch_grow((void **)&s->n_size, &c2, need, sizeof *s->n_size, 1024) ||
        !gch_grow((void **)&s->n_class, &c3, need, sizeof *s->n_class, 1024) ||
        !gch_grow((void **)&s->n_flags, &c4, need, sizeof *s->n_flags, 1024))
        return 0;
    s->node_cap = c1;
    return 1;
}

/* Appends the node row (id, size, class, flags[, label]) read at offset at. */
static gch_status add_node(jsc_snapshot *s, const uint64_t *row, uint64_t at)
{
    if (row[2] > UINT32_MAX)
        return gch_json_fail_at(&s->in, at, "node %llu: class name index %llu is out of range",
                                (unsigned long long)row[0], (unsigned long long)row[2]);
    if (row[3] > 0xff)
        return gch_json_fail_at(&s->in, at, "node %llu: flags %llu are not a flag set",
                                (unsigned long long)row[0], (unsigned long long)row[3]);
    if (!grow_nodes(s))
        return oom(s);
    s->n_id[s->node_n] = row[0];
    s->n_size[s->node_n] = row[1];
    s->n_class[s->node_n] = (uint32_t)row[2];
    s->n_flags[s->node_n] = (uint8_t)row[3];
    s->node_n++;
    note_max(&s->max_class, row[2], at);
    return GCH_OK;
}

/* Reads a flat array of integers whose '[' was consumed, in rows of width
 * values, calling row_fn for each row. */
static gch_status parse_rows(jsc_snapshot *s, unsigned width, const char *what,
                             gch_status (*row_fn)(jsc_snapshot *, const uint64_t *, uint64_t))
{
    uint64_t *vals = gch_reallocarray(NULL, BATCH, sizeof *vals);
    if (!vals)
        return oom(s);
    uint64_t row[8], count = 0;
    unsigned col = 0;
    int state = 0, closed = 0;
    gch_status st = GCH_OK;
    while (st == GCH_OK && !closed) {
        size_t n = 0;
        uint64_t at = gch_json_offset(&s->in);
        st = gch_json_uint_batch(&s->in, &state, vals, BATCH, &n, &closed, what);
        for (size_t k = 0; st == GCH_OK && k < n; k++) {
            row[col++] = vals[k];
            count++;
            if (col == width) {
                col = 0;
                st = row_fn(s, row, at);
            }
        }
    }
    gch_free(vals);
    if (st == GCH_OK && col != 0)
        st = gch_json_fail(&s->in, "%llu numbers, not a multiple of the %u fields of a row",
                           (unsigned long long)count, width);
    return st;
}

/* GCDebugging rows: id, size, class, flags, label index, "0xaddress", "0xwrapped". */
static gch_status parse_debug_nodes(jsc_snapshot *s)
{
    gch_json_in *in = &s->in;
    if (gch_json_peek(in) == ']') {
        in->p++;
        return GCH_OK;
    }
    for (;;) {
        uint64_t row[5], at = gch_json_offset(in);
        gch_status st;
        for (unsigned f = 0; f < 7; f++) {
            if (f > 0 && (st = gch_json_expect(in, ',', "',' in a node row")) != GCH_OK)
                return st;
            st = f < 5 ? gch_json_uint(in, &row[f], "an integer in nodes") : gch_json_string(in, NULL);
            if (st != GCH_OK)
                return st;
        }
        if ((st = add_node(s, row, at)) != GCH_OK)
            return st;
        note_max(&s->max_label, row[4], at);
        int c = gch_json_peek(in);
        if (c == ']') {
            in->p++;
            return GCH_OK;
        }
        if ((st = gch_json_expect(in, ',', "',' or ']' in nodes")) != GCH_OK)
            return st;
    }
}

static gch_status add_edge(jsc_snapshot *s, const uint64_t *row, uint64_t at)
{
    if (row[2] >= JSC_MAX_EDGE_TYPES)
        return gch_json_fail_at(&s->in, at, "edge from node %llu: edge type index %llu is out of range",
                                (unsigned long long)row[0], (unsigned long long)row[2]);
    if (row[3] > UINT32_MAX)
        return gch_json_fail_at(&s->in, at, "edge from node %llu: edge data %llu is more than 32 bits",
                                (unsigned long long)row[0], (unsigned long long)row[3]);
    size_t need = s->edge_n + 1;
    if (need > s->edge_cap) {
        size_t c1 = s->edge_cap, c2 = c1, c3 = c1, c4 = c1;
        if (!gch_grow((void **)&s->e_from, &c1, need, sizeof *s->e_from, 1024) ||
            !gch_grow((void **)&s->e_to, &c2, need, sizeof *s->e_to, 1024) ||
            !gch_grow((void **)&s->e_data, &c3, need, sizeof *s->e_data, 1024) ||
            !gch_grow((void **)&s->e_type, &c4, need, sizeof *s->e_type, 1024))
            return oom(s);
        s->edge_cap = c1;
    }
    s->e_from[s->edge_n] = row[0];
    s->e_to[s->edge_n] = row[1];
    s->e_type[s->edge_n] = (uint8_t)row[2];
    s->e_data[s->edge_n] = (uint32_t)row[3];
    s->edge_n++;
    note_max(&s->max_edge_data[row[2]], row[3], at);
    return GCH_OK;
}

static gch_status add_root(jsc_snapshot *s, const uint64_t *row, uint64_t at)
{
    if (row[1] > UINT32_MAX || row[2] > UINT32_MAX)
        return gch_json_fail_at(&s->in, at, "root on node %llu: label index out of range",
                                (unsigned long long)row[0]);
    size_t need = s->root_n + 1;
    if (need > s->root_cap) {
        size_t c1 = s->root_cap, c2 = c1, c3 = c1;
        if (!gch_grow((void **)&s->r_node, &c1, need, sizeof *s->r_node, 64) ||
            !gch_grow((void **)&s->r_reason, &c2, need, sizeof *s->r_reason, 64) ||
            !gch_grow((void **)&s->r_reach, &c3, need, sizeof *s->r_reach, 64))
            return oom(s);
        s->root_cap = c1;
    }
    s->r_node[s->root_n] = row[0];
    s->r_reason[s->root_n] = (uint32_t)row[1];
    s->r_reach[s->root_n] = (uint32_t)row[2];
    s->root_n++;
    note_max(&s->max_root_label, row[1] > row[2] ? row[1] : row[2], at);
    return GCH_OK;
}

static int key_is(const gch_json_text *k, const char *name)
{
    size_t n = strlen(name);
    return k->len == n && memcmp(k->s, name, n) == 0;
}

static gch_status parse_version(jsc_snapshot *s)
{
    uint64_t at = gch_json_offset(&s->in);
    gch_status st = gch_json_uint(&s->in, &s->version, "the version number");
    if (st != GCH_OK)
        return st;
    if (s->version < 1 || s->version > 3)
        return gch_json_fail_at(&s->in, at, "heap snapshot version %llu: only versions 1 to 3 are known",
                                (unsigned long long)s->version);
    s->have_version = 1;
    return GCH_OK;
}

static gch_status parse_type(jsc_snapshot *s)
{
    gch_json_text t = { 0 };
    uint64_t at = gch_json_offset(&s->in);
    gch_status st = gch_json_string(&s->in, &t);
    if (st == GCH_OK) {
        if (key_is(&t, "GCDebugging"))
            s->gc_debugging = 1;
        else if (!key_is(&t, "Inspector"))
            st = gch_json_fail_at(&s->in, at, "snapshot type \"%s\": expected \"Inspector\" or \"GCDebugging\"",
                                  t.s ? t.s : "");
        if (st == GCH_OK && s->have_nodes && s->gc_debugging)
            st = gch_json_fail_at(&s->in, at, "\"type\" comes after \"nodes\": the node rows were read as 4 fields");
    }
    s->have_type = 1;
    gch_free(t.s);
    return st;
}

/* One member's value, by its key. */
static gch_status parse_member(jsc_snapshot *s, const gch_json_text *key)
{
    gch_json_in *in = &s->in;
    gch_status st;
    if (key_is(key, "version"))
        return parse_version(s);
    if (key_is(key, "type"))
        return parse_type(s);
    if (key_is(key, "nodes")) {
        s->have_nodes = 1;
        s->node_fields = s->gc_debugging ? 7 : 4;
        if ((st = gch_json_expect(in, '[', "'[' opening nodes")) != GCH_OK)
            return st;
        return s->gc_debugging ? parse_debug_nodes(s) : parse_rows(s, 4, "an integer in nodes", add_node);
    }
    if (key_is(key, "edges")) {
        s->have_edges = 1;
        if ((st = gch_json_expect(in, '[', "'[' opening edges")) != GCH_OK)
            return st;
        return parse_rows(s, 4, "an integer in edges", add_edge);
    }
    if (key_is(key, "roots")) {
        s->have_roots = 1;
        if ((st = gch_json_expect(in, '[', "'[' opening roots")) != GCH_OK)
            return st;
        return parse_rows(s, 3, "an integer in roots", add_root);
    }
    if (key_is(key, "nodeClassNames"))
        return parse_strings(s, &s->class_names, "',' or ']' in nodeClassNames");
    if (key_is(key, "edgeTypes"))
        return parse_strings(s, &s->edge_types, "',' or ']' in edgeTypes");
    if (key_is(key, "edgeNames"))
        return parse_strings(s, &s->edge_names, "',' or ']' in edgeNames");
    if (key_is(key, "labels"))
        return parse_strings(s, &s->labels, "',' or ']' in labels");
    return gch_json_skip_value(in);
}

/* Whether the member was seen before (each may appear once). */
static int seen_before(jsc_snapshot *s, const gch_json_text *key)
{
    static const char *const names[] = { "version", "type", "nodes", "edges", "roots",
                                         "nodeClassNames", "edgeTypes", "edgeNames", "labels" };
    int flags[] = { s->have_version, s->have_type, s->have_nodes, s->have_edges, s->have_roots,
                    s->class_names.present, s->edge_types.present, s->edge_names.present,
                    s->labels.present };
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        if (key_is(key, names[k]))
            return flags[k];
    return 0;
}

static gch_status check_required(jsc_snapshot *s)
{
    const char *missing = !s->have_version ? "version"
                        : !s->have_nodes ? "nodes"
                        : !s->class_names.present ? "nodeClassNames"
                        : !s->have_edges ? "edges"
                        : !s->edge_types.present ? "edgeTypes" : NULL;
    if (missing)
        return gch_json_fail(&s->in, "the snapshot has no \"%s\" member", missing);
    return GCH_OK;
}

gch_status jsc_parse(jsc_snapshot *s)
{
    gch_json_in *in = &s->in;
    gch_json_text key = { 0 };
    gch_status st = gch_json_expect(in, '{', "'{' opening the heap snapshot");
    int c = st == GCH_OK ? gch_json_peek(in) : 0;
    if (st == GCH_OK && c == '}')
        in->p++;
    while (st == GCH_OK && c != '}') {
        uint64_t at = gch_json_offset(in);
        key.len = 0;
        if ((st = gch_json_string(in, &key)) != GCH_OK)
            break;
        if (seen_before(s, &key)) {
            st = gch_json_fail_at(in, at, "member \"%s\" appears twice", key.s);
            break;
        }
        if ((st = gch_json_expect(in, ':', "':' after a member name")) != GCH_OK ||
            (st = parse_member(s, &key)) != GCH_OK)
            break;
        c = gch_json_peek(in);
        if (c == ',' || c == '}')
            in->p++;
        else
            st = gch_json_expect(in, ',', "',' or '}' after a member");
    }
    gch_free(key.s);
    if (st == GCH_OK && (c = gch_json_peek(in)) != -1)
        st = c == -2 ? GCH_EIO : gch_json_fail(in, "data after the heap snapshot's closing '}'");
    if (st == GCH_OK)
        st = check_required(s);
    return st;
}
