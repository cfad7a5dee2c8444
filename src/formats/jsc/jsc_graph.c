/* From the parsed arrays of a JavaScriptCore heap snapshot to the heap model.
 *
 * Semantics follow Web Inspector (Source/WebInspectorUI/UserInterface/
 * Workers/HeapSnapshot/HeapSnapshot.js; docs/jsc-format.md):
 * - the node with id 0 is <root>; its edges name the GC roots (HeapSnapshot.js
 *   marks the root's children _nodeOrdinalIsGCRoot). <root> is not an
 *   object here: each of its edges becomes a strong root, so that the
 *   dominator tree is Web Inspector's with the virtual root standing for
 *   <root>.
 * - every other edge is a reference: Web Inspector's dominator and
 *   retained-size passes ignore no edge type (no weak edges in the format).
 * - nodes no root reaches (Web Inspector hangs them directly under <root>)
 *   become weak roots: not live by default, and with --include-weak each is
 *   dominated by the virtual root, as in Web Inspector.
 * - a class every instance of which carries the internal flag is what Web
 *   Inspector's Summary hides (HeapSnapshotDataGridTree.js, count ===
 *   internalCount): its type gets the module "internal".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "builder_internal.h"
#include "grow.h"
#include "jsc_internal.h"
#include "search.h"

typedef struct id_ord {
    uint64_t id;
    uint32_t ord;
} id_ord;

typedef struct graph {
    jsc_snapshot *s;
    gch_builder *b;
    id_ord *by_id;           /* nodes sorted by id, then position (sparse ids) */
    uint32_t *direct;        /* id -> position of its first node (dense ids), GCH_NONE: none */
    uint64_t direct_n;
    uint32_t *obj_of;        /* node position -> object index, GCH_NONE for <root> */
    uint32_t n_obj;
    uint32_t *root_targets;  /* objects the <root> node's edges name, in order */
    uint64_t *root_ids;      /* and their ids */
    uint32_t *listed;        /* objects of GCDebugging's roots list (GCH_NONE: absent) */
    size_t root_edge_n;
    uint32_t *starts, *targets, *labels;
    uint8_t *reached;
    uint32_t *name_label[2]; /* property / variable name index -> label offset */
    uint32_t small_index[256], internal_label, other_label[JSC_MAX_EDGE_TYPES];
    uint8_t kind[JSC_MAX_EDGE_TYPES]; /* jsc_edge_kind of each edge type index */
    uint64_t from_unknown, to_unknown, to_root, unreachable, internal_objects, listed_absent,
             internal_only_classes, classes_used;
} graph;

static gch_status oom(jsc_snapshot *s)
{
    return gch_error_set(s->err, GCH_ENOMEM, "out of memory");
}

enum jsc_edge_kind jsc_edge_kind_of(const jsc_snapshot *s, uint64_t t)
{
    static const char *const names[] = { "Internal", "Property", "Index", "Variable" };
    const char *n = jsc_string(&s->edge_types, (size_t)t);
    for (int k = 0; k < 4; k++)
        if (strcmp(n, names[k]) == 0)
            return (enum jsc_edge_kind)k;
    return JSC_EDGE_OTHER;
}

/* Every index a row used names an entry of its table. */
static gch_status check_indexes(jsc_snapshot *s)
{
    gch_json_in *in = &s->in;
    if (s->max_class.any && s->max_class.max >= s->class_names.n)
        return gch_json_fail_at(in, s->max_class.at, "node class name index %llu: nodeClassNames has %zu names",
                                (unsigned long long)s->max_class.max, s->class_names.n);
    size_t nlabels = s->labels.present ? s->labels.n : 1; /* label 0 is "no label" */
    if (s->max_label.any && s->max_label.max >= nlabels)
        return gch_json_fail_at(in, s->max_label.at, "node label index %llu: labels has %zu entries",
                                (unsigned long long)s->max_label.max, s->labels.n);
    if (s->max_root_label.any && s->max_root_label.max >= s->labels.n)
        return gch_json_fail_at(in, s->max_root_label.at, "root reason index %llu: labels has %zu entries",
                                (unsigned long long)s->max_root_label.max, s->labels.n);
    for (unsigned t = 0; t < JSC_MAX_EDGE_TYPES; t++) {
        const jsc_maxref *m = &s->max_edge_data[t];
        if (!m->any)
            continue;
        if (t >= s->edge_types.n)
            return gch_json_fail_at(in, m->at, "edge type index %u: edgeTypes has %zu types", t,
                                    s->edge_types.n);
        enum jsc_edge_kind k = jsc_edge_kind_of(s, t);
        if ((k == JSC_EDGE_PROPERTY || k == JSC_EDGE_VARIABLE) && m->max >= s->edge_names.n)
            return gch_json_fail_at(in, m->at, "%s edge name index %llu: edgeNames has %zu names",
                                    jsc_string(&s->edge_types, t), (unsigned long long)m->max,
                                    s->edge_names.n);
    }
    return GCH_OK;
}

static int by_id_cmp(const void *a, const void *b)
{
    const id_ord *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Position of the first node with this id, or GCH_NONE. */
static uint32_t node_of(const graph *g, uint64_t id)
{
    if (g->direct)
        return id < g->direct_n ? g->direct[id] : GCH_NONE;
    size_t lo = GCH_LOWER_BOUND_BY(g->by_id, id_ord, id, 0, g->s->node_n, id);
    return lo < g->s->node_n && g->by_id[lo].id == id ? g->by_id[lo].ord : GCH_NONE;
}

/* Sorts the nodes by id and numbers the objects (every node but <root>). */
static gch_status number_nodes(graph *g)
{
    jsc_snapshot *s = g->s;
    if (s->node_n >= UINT32_MAX)
        return gch_error_set(s->err, GCH_ELIMIT, "%zu nodes: more than a heap holds", s->node_n);
    if (!(g->obj_of = gch_reallocarray(NULL, s->node_n ? s->node_n : 1, sizeof *g->obj_of)))
        return oom(s);
    uint64_t max_id = 0;
    for (size_t i = 0; i < s->node_n; i++) {
        g->obj_of[i] = s->n_id[i] == 0 ? GCH_NONE : g->n_obj++;
        if (s->n_id[i] > max_id)
            max_id = s->n_id[i];
    }
    /* JSC numbers cells from 1 up, so ids are nearly dense: a table by id
     * (at most 8 entries a node, 32 bytes, a constant factor of the input's
     * 8 bytes or more a row) finds them without a search. */
    if (max_id < (uint64_t)s->node_n * 8 + 1024) {
        g->direct_n = max_id + 1;
        if (!(g->direct = gch_reallocarray(NULL, (size_t)g->direct_n, sizeof *g->direct)))
            return oom(s);
        for (uint64_t k = 0; k < g->direct_n; k++)
            g->direct[k] = GCH_NONE;
        for (size_t i = 0; i < s->node_n; i++)
            if (g->direct[s->n_id[i]] == GCH_NONE)
                g->direct[s->n_id[i]] = (uint32_t)i;
        return GCH_OK;
    }
    if (!(g->by_id = gch_reallocarray(NULL, s->node_n ? s->node_n : 1, sizeof *g->by_id)))
        return oom(s);
    for (size_t i = 0; i < s->node_n; i++) {
        g->by_id[i].id = s->n_id[i];
        g->by_id[i].ord = (uint32_t)i;
    }
    qsort(g->by_id, s->node_n, sizeof *g->by_id, by_id_cmp);
    return GCH_OK;
}

static gch_status intern(graph *g, const char *text, size_t len, uint32_t *out)
{
    return gch_builder_intern_label(g->b, text, len, out, g->s->err);
}

/* The label of an edge (docs/jsc-format.md, "Reference labels"). */
static gch_status edge_label(graph *g, size_t e, uint32_t *out)
{
    jsc_snapshot *s = g->s;
    uint32_t data = s->e_data[e];
    char buf[1100];
    enum jsc_edge_kind k = (enum jsc_edge_kind)g->kind[s->e_type[e]];
    if (k == JSC_EDGE_PROPERTY || k == JSC_EDGE_VARIABLE) {
        uint32_t *slot = &g->name_label[k == JSC_EDGE_VARIABLE][data];
        if (*slot == GCH_NONE) {
            const char *name = jsc_string(&s->edge_names, data);
            int n = k == JSC_EDGE_VARIABLE ? snprintf(buf, sizeof buf, "var %.1024s", name)
                  : strchr(name, ' ') || !*name ? snprintf(buf, sizeof buf, "[\"%.1024s\"]", name)
                  : snprintf(buf, sizeof buf, ".%.1024s", name);
            gch_status st = intern(g, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1, slot);
            if (st != GCH_OK)
                return st;
        }
        *out = *slot;
        return GCH_OK;
    }
    if (k == JSC_EDGE_INDEX) {
        if (data < 256 && g->small_index[data] != GCH_NONE) {
            *out = g->small_index[data];
            return GCH_OK;
        }
        int n = snprintf(buf, sizeof buf, "[%u]", (unsigned)data);
        gch_status st = intern(g, buf, (size_t)n, out);
        if (st == GCH_OK && data < 256)
            g->small_index[data] = *out;
        return st;
    }
    uint32_t *slot = k == JSC_EDGE_INTERNAL ? &g->internal_label : &g->other_label[s->e_type[e]];
    if (*slot == GCH_NONE) {
        int n = k == JSC_EDGE_INTERNAL ? snprintf(buf, sizeof buf, "(internal)")
                                       : snprintf(buf, sizeof buf, "(%.64s)", jsc_string(&s->edge_types, s->e_type[e]));
        gch_status st = intern(g, buf, (size_t)n, slot);
        if (st != GCH_OK)
            return st;
    }
    *out = *slot;
    return GCH_OK;
}

/* Resolves the edges: <root>'s to root_targets, the others to a CSR of
 * object indices (with labels unless skipped). */
static gch_status resolve_edges(graph *g)
{
    jsc_snapshot *s = g->s;
    size_t m = s->edge_n;
    uint32_t *from = gch_reallocarray(NULL, m ? m : 1, sizeof *from);
    uint32_t *to = gch_reallocarray(NULL, m ? m : 1, sizeof *to);
    g->starts = gch_calloc((size_t)g->n_obj + 1, sizeof *g->starts);
    g->root_targets = gch_reallocarray(NULL, m ? m : 1, sizeof *g->root_targets);
    g->root_ids = gch_reallocarray(NULL, m ? m : 1, sizeof *g->root_ids);
    gch_status st = GCH_OK;
    if (!from || !to || !g->starts || !g->root_targets || !g->root_ids)
        st = oom(s);
    size_t kept = 0;
    for (size_t e = 0; st == GCH_OK && e < m; e++) {
        uint32_t f = node_of(g, s->e_from[e]), t = node_of(g, s->e_to[e]);
        from[e] = to[e] = GCH_NONE;
        if (f == GCH_NONE) {
            g->from_unknown++;
        } else if (t == GCH_NONE) {
            g->to_unknown++;
        } else if (g->obj_of[t] == GCH_NONE) {
            g->to_root++;
        } else if (g->obj_of[f] == GCH_NONE) {
            g->root_ids[g->root_edge_n] = s->e_to[e];
            g->root_targets[g->root_edge_n++] = g->obj_of[t];
        } else if (kept == UINT32_MAX) {
            st = gch_error_set(s->err, GCH_ELIMIT, "more than %u edges: more than a heap holds", UINT32_MAX);
        } else {
            from[e] = g->obj_of[f];
            to[e] = g->obj_of[t];
            g->starts[from[e] + 1]++;
            kept++;
        }
    }
    for (uint32_t i = 0; st == GCH_OK && i < g->n_obj; i++)
        g->starts[i + 1] += g->starts[i];
    int labeled = !s->opts->skip_labels;
    if (st == GCH_OK && (!(g->targets = gch_reallocarray(NULL, kept ? kept : 1, sizeof *g->targets)) ||
                         (labeled && !(g->labels = gch_reallocarray(NULL, kept ? kept : 1, sizeof *g->labels)))))
        st = oom(s);
    /* Place each edge after those of its node placed before it: file order per node. */
    for (size_t e = 0; st == GCH_OK && e < m; e++) {
        if (from[e] == GCH_NONE)
            continue;
        uint32_t at = g->starts[from[e]]++;
        g->targets[at] = to[e];
        if (labeled)
            st = edge_label(g, e, &g->labels[at]);
    }
    for (uint32_t i = g->n_obj; st == GCH_OK && i > 0; i--)
        g->starts[i] = g->starts[i - 1];
    if (st == GCH_OK)
        g->starts[0] = 0;
    gch_free(from);
    gch_free(to);
    return st;
}

/* Marks what the roots reach (explicit queue: chains are long). */
static gch_status mark_reached(graph *g)
{
    const uint32_t *extra = g->listed;
    size_t extra_n = g->s->root_n;
    uint32_t *queue = gch_reallocarray(NULL, (size_t)g->n_obj + 1, sizeof *queue);
    if (!(g->reached = gch_calloc((size_t)g->n_obj + 1, 1)) || !queue) {
        gch_free(queue);
        return oom(g->s);
    }
    size_t head = 0, tail = 0;
    for (size_t k = 0; k < g->root_edge_n + extra_n; k++) {
        uint32_t o = k < g->root_edge_n ? g->root_targets[k] : extra[k - g->root_edge_n];
        if (o != GCH_NONE && !g->reached[o]) {
            g->reached[o] = 1;
            queue[tail++] = o;
        }
    }
    while (head < tail) {
        uint32_t o = queue[head++];
        for (uint32_t k = g->starts[o]; k < g->starts[o + 1]; k++) {
            uint32_t t = g->targets[k];
            if (!g->reached[t]) {
                g->reached[t] = 1;
                queue[tail++] = t;
            }
        }
    }
    gch_free(queue);
    return GCH_OK;
}

/* Declares the classes objects use; marks the internal-only ones. */
static gch_status declare_types(graph *g, uint32_t **types_out)
{
    jsc_snapshot *s = g->s;
    size_t nc = s->class_names.n;
    uint64_t *count = gch_calloc(nc ? nc : 1, sizeof *count);
    uint64_t *internal = gch_calloc(nc ? nc : 1, sizeof *internal);
    uint32_t *tindex = gch_reallocarray(NULL, nc ? nc : 1, sizeof *tindex);
    uint32_t *types = gch_reallocarray(NULL, g->n_obj ? g->n_obj : 1, sizeof *types);
    gch_status st = count && internal && tindex && types ? GCH_OK : oom(s);
    for (size_t i = 0; st == GCH_OK && i < s->node_n; i++) {
        if (g->obj_of[i] == GCH_NONE)
            continue;
        count[s->n_class[i]]++;
        if (s->n_flags[i] & JSC_FLAG_INTERNAL) {
            internal[s->n_class[i]]++;
            g->internal_objects++;
        }
    }
    for (size_t c = 0; st == GCH_OK && c < nc; c++) {
        if (!count[c])
            continue;
        g->classes_used++;
        const char *name = jsc_string(&s->class_names, c);
        st = gch_builder_add_type(g->b, c, name, strlen(name), &tindex[c], s->err);
        if (st == GCH_OK && internal[c] == count[c]) {
            g->internal_only_classes++;
            st = gch_builder_set_type_module(g->b, tindex[c], "internal", 8, s->err);
        }
    }
    for (size_t i = 0; st == GCH_OK && i < s->node_n; i++)
        if (g->obj_of[i] != GCH_NONE)
            types[g->obj_of[i]] = tindex[s->n_class[i]];
    gch_free(count);
    gch_free(internal);
    gch_free(tindex);
    if (st != GCH_OK) {
        gch_free(types);
        types = NULL;
    }
    *types_out = types;
    return st;
}

/* Root kind from a GCDebugging root reason (RootMarkReason descriptions). */
static unsigned root_kind(const char *reason)
{
    if (strstr(reason, "Conservative") || strstr(reason, "conservative"))
        return GCH_ROOT_LOCAL;
    if (strstr(reason, "Strong") || strstr(reason, "Protect") || strstr(reason, "Handle"))
        return GCH_ROOT_HANDLE;
    return GCH_ROOT_INTERNAL;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The objects of GCDebugging's roots list. */
static gch_status find_listed(graph *g)
{
    jsc_snapshot *s = g->s;
    if (!(g->listed = gch_reallocarray(NULL, s->root_n ? s->root_n : 1, sizeof *g->listed)))
        return oom(s);
    for (size_t k = 0; k < s->root_n; k++) {
        uint32_t n = node_of(g, s->r_node[k]);
        g->listed[k] = n == GCH_NONE ? GCH_NONE : g->obj_of[n];
    }
    return GCH_OK;
}

/* The roots: GCDebugging's list with its reasons, then <root>'s edges to
 * nodes the list does not name, then the unreachable nodes as weak roots. */
static gch_status add_roots(graph *g)
{
    jsc_snapshot *s = g->s;
    uint64_t *ids = gch_reallocarray(NULL, s->root_n ? s->root_n : 1, sizeof *ids);
    char label[600];
    gch_status st = ids ? GCH_OK : oom(s);
    for (size_t k = 0; st == GCH_OK && k < s->root_n; k++) {
        ids[k] = s->r_node[k];
        if (g->listed[k] == GCH_NONE) {
            g->listed_absent++;
            continue;
        }
        const char *reason = jsc_string(&s->labels, s->r_reason[k]);
        if (s->r_reach[k])
            snprintf(label, sizeof label, "%.256s (%.256s)", reason, jsc_string(&s->labels, s->r_reach[k]));
        else
            snprintf(label, sizeof label, "%.256s", reason);
        st = gch_builder_add_root_at(g->b, g->listed[k], root_kind(reason), 0, label, s->err);
    }
    if (st == GCH_OK)
        qsort(ids, s->root_n, sizeof *ids, u64_cmp);
    for (size_t k = 0; st == GCH_OK && k < g->root_edge_n; k++) {
        if (s->root_n && bsearch(&g->root_ids[k], ids, s->root_n, sizeof *ids, u64_cmp))
            continue;
        st = gch_builder_add_root_at(g->b, g->root_targets[k], GCH_ROOT_INTERNAL, 0, NULL, s->err);
    }
    for (uint32_t o = 0; st == GCH_OK && o < g->n_obj; o++) {
        if (g->reached[o])
            continue;
        g->unreachable++;
        st = gch_builder_add_root_at(g->b, o, GCH_ROOT_INTERNAL, GCH_ROOT_WEAK, "unreachable from <root>",
                                     s->err);
    }
    gch_free(ids);
    return st;
}

static gch_status meta_u64(graph *g, const char *key, uint64_t v)
{
    return gch_builder_add_metaf(g->b, g->s->err, key, "%llu", (unsigned long long)v);
}

static gch_status add_meta(graph *g)
{
    jsc_snapshot *s = g->s;
    gch_status st = meta_u64(g, "version", s->version);
    if (st == GCH_OK)
        st = gch_builder_add_meta(g->b, "type", s->gc_debugging ? "GCDebugging"
                                                : s->have_type ? "Inspector" : "(none)", s->err);
    const struct { const char *key; uint64_t v; int show; } rows[] = {
        { "nodes", s->node_n, 1 },
        { "edges", s->edge_n, 1 },
        { "classes", s->class_names.n, 1 },
        { "edge_names", s->edge_names.n, 1 },
        { "root_edges", g->root_edge_n, 1 },
        { "listed_roots", s->root_n, s->have_roots },
        { "listed_roots_absent", g->listed_absent, g->listed_absent != 0 },
        { "internal_objects", g->internal_objects, 1 },
        { "internal_only_classes", g->internal_only_classes, 1 },
        { "unreachable_nodes", g->unreachable, 1 },
        { "edges_from_unknown_nodes", g->from_unknown, g->from_unknown != 0 },
        { "edges_to_unknown_nodes", g->to_unknown, g->to_unknown != 0 },
        { "edges_to_root", g->to_root, g->to_root != 0 },
    };
    for (size_t k = 0; st == GCH_OK && k < sizeof rows / sizeof *rows; k++)
        if (rows[k].show)
            st = meta_u64(g, rows[k].key, rows[k].v);
    return st;
}

/* Hands the objects over whole (ids, sizes, types, the CSR). */
static gch_status adopt(graph *g, uint32_t *types)
{
    jsc_snapshot *s = g->s;
    uint64_t *ids = gch_reallocarray(NULL, g->n_obj ? g->n_obj : 1, sizeof *ids);
    uint64_t *sizes = gch_reallocarray(NULL, g->n_obj ? g->n_obj : 1, sizeof *sizes);
    if (!ids || !sizes) {
        gch_free(ids);
        gch_free(sizes);
        gch_free(types);
        return oom(s);
    }
    for (size_t i = 0; i < s->node_n; i++) {
        uint32_t o = g->obj_of[i];
        if (o != GCH_NONE) {
            ids[o] = s->n_id[i];
            sizes[o] = s->n_size[i];
        }
    }
    uint32_t *starts = g->starts, *targets = g->targets, *labels = g->labels;
    g->starts = g->targets = g->labels = NULL;
    if (s->opts->skip_refs) {
        gch_free(starts);
        gch_free(targets);
        gch_free(labels);
        starts = targets = labels = NULL;
    }
    return gch_builder_adopt_indexed(g->b, g->n_obj, ids, types, sizes, starts, targets, labels, s->err);
}

static void graph_free(graph *g)
{
    gch_free(g->by_id);
    gch_free(g->direct);
    gch_free(g->obj_of);
    gch_free(g->root_targets);
    gch_free(g->root_ids);
    gch_free(g->listed);
    gch_free(g->starts);
    gch_free(g->targets);
    gch_free(g->labels);
    gch_free(g->reached);
    gch_free(g->name_label[0]);
    gch_free(g->name_label[1]);
    gch_builder_free(g->b);
}

static gch_status begin(graph *g)
{
    jsc_snapshot *s = g->s;
    gch_status st = gch_builder_new(&g->b, "jsc", s->err);
    if (st == GCH_OK)
        st = gch_builder_begin_heap(g->b, "jsc", 3, s->err);
    if (st != GCH_OK)
        return st;
    gch_builder_set_threads(g->b, s->opts->threads);
    gch_builder_set_id_radix(g->b, 10);
    if (s->opts->skip_refs)
        gch_builder_set_refs_skipped(g->b);
    size_t nn = s->edge_names.n ? s->edge_names.n : 1;
    if (!(g->name_label[0] = gch_reallocarray(NULL, nn, sizeof *g->name_label[0])) ||
        !(g->name_label[1] = gch_reallocarray(NULL, nn, sizeof *g->name_label[1])))
        return oom(s);
    for (size_t k = 0; k < nn; k++)
        g->name_label[0][k] = g->name_label[1][k] = GCH_NONE;
    for (size_t k = 0; k < 256; k++)
        g->small_index[k] = GCH_NONE;
    for (size_t k = 0; k < JSC_MAX_EDGE_TYPES; k++) {
        g->other_label[k] = GCH_NONE;
        g->kind[k] = k < s->edge_types.n ? (uint8_t)jsc_edge_kind_of(s, k) : JSC_EDGE_OTHER;
    }
    g->internal_label = GCH_NONE;
    return GCH_OK;
}

gch_status jsc_build(jsc_snapshot *s, gch_dump **out)
{
    graph g = { 0 };
    g.s = s;
    uint32_t *types = NULL;
    gch_status st = check_indexes(s);
    if (st == GCH_OK)
        st = number_nodes(&g);
    if (st == GCH_OK)
        st = begin(&g);
    if (st == GCH_OK)
        st = declare_types(&g, &types);
    if (st == GCH_OK)
        st = resolve_edges(&g);
    if (st == GCH_OK)
        st = find_listed(&g);
    if (st == GCH_OK)
        st = mark_reached(&g);
    if (st == GCH_OK) {
        st = adopt(&g, types); /* takes types, also on error */
        types = NULL;
    }
    if (st == GCH_OK)
        st = add_roots(&g);
    if (st == GCH_OK)
        st = add_meta(&g);
    if (st == GCH_OK)
        st = gch_builder_end_heap(g.b, s->err);
    if (st == GCH_OK)
        st = gch_builder_finish(g.b, out, s->err);
    /* ids_stable stays 0: Safari's Web Inspector keeps a cell's node id in
     * the later snapshots of one session, but Bun gives every snapshot new
     * ids, and the file does not say which wrote it (`leaks --stable-ids`
     * opts in). */
    gch_free(types);
    graph_free(&g);
    return st;
}
