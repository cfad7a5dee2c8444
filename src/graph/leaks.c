/* Leaks across a series of dumps: see include/gcheap/leaks.h and
 * docs/graph-algorithms.md.
 *
 * Every dump is reduced, as it is added, to what outlives it: per retainer
 * path (a node of a trie keyed by parent path, field name and type name, all
 * names interned across the dumps) and per type name, the live instances and
 * their retained bytes; for the memlab rule, sorted sets of ids. So a series
 * holds one dump's heap at a time. */
#include "gcheap/leaks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/dominators.h"
#include "gcheap/paths.h"
#include "graph_internal.h"
#include "grow.h"
#include "hash.h"
#include "str_table.h"
#include "search.h"

#define OOM "out of memory comparing dumps"

/* ------------------------------------------------------- small containers */

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Interned strings: id -> offset in pool; an open-addressing table of ids. */
/* The id of s[0..n-1] in the series' string table, added when new;
 * GCH_NONE when out of memory. */
static uint32_t intern(gch_str_table *t, const char *s, size_t n)
{
    uint32_t id;
    int added;
    return gch_str_table_put(t, s, n, &id, &added) ? id : GCH_NONE;
}

static const char *interned(const gch_str_table *t, uint32_t id) { return gch_str_table_text(t, id); }

/* ------------------------------------------------------------- the series */

/* A retainer path: its parent path, the field that leads to it (interned, or
 * GCH_NONE) and its type name (interned); a top path's field is the root's
 * description. */
typedef struct path_node {
    uint32_t parent, field, name;
} path_node;

/* Per path or type, per dump: instances and retained bytes. */
typedef struct tally {
    uint64_t *counts, *retained; /* [slot * dumps + k] */
    uint64_t *example;           /* per slot: an instance's id in the latest dump with one */
    size_t cap;
} tally;

struct gch_leak_series {
    size_t dumps, added;
    gch_leaks_options opts;
    int all_stable;
    gch_str_table names;
    path_node *nodes;
    size_t node_count, node_cap;
    uint32_t *node_slots;        /* node + 1, 0 empty */
    size_t node_nslots;
    tally paths, types;
    uint32_t *type_of_name;      /* per interned id: type slot, GCH_NONE */
    size_t type_of_name_cap, type_of_name_filled;
    uint32_t *type_name;         /* per type slot: interned name */
    size_t type_count, type_name_cap;
    /* memlab rule */
    uint64_t *first_ids, *kept;  /* sorted */
    size_t first_count, kept_count;
    int failed;
    /* results of the last dump */
    gch_leak_group *groups;
    size_t group_count;
    uint64_t leaked_objects, leaked_bytes;
};

static int tally_reserve(tally *t, size_t need, size_t dumps)
{
    if (need <= t->cap)
        return 1;
    size_t c = t->cap ? t->cap : 64;
    while (c < need)
        c *= 2;
    uint64_t *a = gch_reallocarray(t->counts, c * dumps, sizeof *a);
    if (!a)
        return 0;
    t->counts = a;
    uint64_t *b = gch_reallocarray(t->retained, c * dumps, sizeof *b);
    if (!b)
        return 0;
    t->retained = b;
    uint64_t *e = gch_reallocarray(t->example, c, sizeof *e);
    if (!e)
        return 0;
    t->example = e;
    memset(t->counts + t->cap * dumps, 0, (c - t->cap) * dumps * sizeof *a);
    memset(t->retained + t->cap * dumps, 0, (c - t->cap) * dumps * sizeof *b);
    t->cap = c;
    return 1;
}

static uint64_t node_hash(uint32_t parent, uint32_t field, uint32_t name)
{
    return mix(((uint64_t)parent << 32 | field) ^ mix(name));
}

static uint64_t path_node_hash(const void *ctx, uint32_t k)
{
    const path_node *p = &((const gch_leak_series *)ctx)->nodes[k];
    return node_hash(p->parent, p->field, p->name);
}

/* The path node (parent, field, name), added when new; GCH_NONE: no memory. */
static uint32_t path_node_of(gch_leak_series *s, uint32_t parent, uint32_t field, uint32_t name)
{
    if (gch_table_grows(s->node_count, s->node_nslots) &&
        !gch_table_grow(&s->node_slots, &s->node_nslots, 1024, (uint32_t)s->node_count, 1,
                        path_node_hash, s))
        return GCH_NONE;
    size_t i = node_hash(parent, field, name) & (s->node_nslots - 1);
    for (; s->node_slots[i]; i = (i + 1) & (s->node_nslots - 1)) {
        const path_node *p = &s->nodes[s->node_slots[i] - 1];
        if (p->parent == parent && p->field == field && p->name == name)
            return s->node_slots[i] - 1;
    }
    if (s->node_count >= UINT32_MAX - 2 ||
        !gch_grow((void **)&s->nodes, &s->node_cap, s->node_count + 1, sizeof *s->nodes, 16) ||
        !tally_reserve(&s->paths, s->node_count + 1, s->dumps))
        return GCH_NONE;
    s->nodes[s->node_count] = (path_node){ parent, field, name };
    s->node_slots[i] = (uint32_t)s->node_count + 1;
    return (uint32_t)s->node_count++;
}

gch_status gch_leaks_new(size_t dump_count, const gch_leaks_options *opts,
                         gch_leak_series **out, gch_error *err)
{
    static const gch_leaks_options defaults = GCH_LEAKS_OPTIONS_INIT;
    *out = NULL;
    if (dump_count < 2)
        return gch_error_set(err, GCH_EINVAL, "comparing dumps needs at least two");
    gch_leak_series *s = gch_calloc(1, sizeof *s);
    if (!s)
        return gch_error_set(err, GCH_ENOMEM, OOM);
    s->dumps = dump_count;
    s->opts = opts ? *opts : defaults;
    s->all_stable = 1;
    gch_str_table_init(&s->names);
    *out = s;
    return GCH_OK;
}

static void group_free(gch_leak_group *g)
{
    gch_free(g->signature);
    gch_free(g->type);
    for (size_t i = 0; i < g->type_count; i++)
        gch_free(g->types[i].type);
    gch_free(g->types);
}

void gch_leaks_free(gch_leak_series *s)
{
    if (!s)
        return;
    gch_str_table_free(&s->names);
    gch_free(s->nodes);
    gch_free(s->node_slots);
    gch_free(s->paths.counts);
    gch_free(s->paths.retained);
    gch_free(s->paths.example);
    gch_free(s->types.counts);
    gch_free(s->types.retained);
    gch_free(s->types.example);
    gch_free(s->type_of_name);
    gch_free(s->type_name);
    gch_free(s->first_ids);
    gch_free(s->kept);
    for (size_t g = 0; g < s->group_count; g++)
        group_free(&s->groups[g]);
    gch_free(s->groups);
    gch_free(s);
}

/* ------------------------------------------------------------- one dump */

/* What one dump's analysis needs, freed together. */
typedef struct dump_work {
    const gch_heap *h;
    gch_domtree t;        /* the analysis's (copies of its fields; not freed here) */
    gch_paths p;
    uint32_t *key;        /* per object: path node, GCH_NONE when not computed */
    uint32_t *type_name;  /* per type index: interned name */
    uint32_t *stack;
    size_t stack_cap;
} dump_work;

static void work_free(dump_work *w)
{
    gch_free(w->key);
    gch_free(w->type_name);
    gch_free(w->stack);
}

/* Interned field name of the reference u -> v (array indices as "[]"). */
static uint32_t field_of(gch_leak_series *s, const gch_heap *h, uint32_t u, uint32_t v, int *oom)
{
    uint32_t off = gch_ref_label(h, u, v);
    if (off == GCH_NONE)
        return GCH_NONE;
    const char *label = gch_heap_string(h, off);
    if (!*label)
        return GCH_NONE;
    if (gch__index_label(label))
        label = "[]";
    uint32_t id = intern(&s->names, label, strlen(label));
    *oom |= id == GCH_NONE;
    return id;
}

/* Interned description of the root record r: its kind, the class holding
 * it (static roots) and its name, when the format gives them. */
static uint32_t root_of(gch_leak_series *s, const gch_heap *h, uint32_t r, int *oom)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "%s", gch_root_kind_name(h->root_kind[r]));
    if (h->root_container && h->root_container[r] != GCH_NONE)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " %s", gch_type_name(h, h->root_container[r]));
    if (h->root_label && h->root_label[r] != GCH_NONE && (size_t)n < sizeof buf)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " %s", gch_heap_string(h, h->root_label[r]));
    size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    uint32_t id = intern(&s->names, buf, len);
    *oom |= id == GCH_NONE;
    return id;
}

/* key[v] for every live object: its path node, from the BFS tree of
 * shortest paths, computed top-down with an explicit stack. */
static gch_status path_keys(gch_leak_series *s, dump_work *w, gch_error *err)
{
    const gch_heap *h = w->h;
    const uint32_t n = h->object_count;
    int oom = 0;
    for (uint32_t v = 0; v < n && !oom; v++) {
        if (w->key[v] != GCH_NONE || w->p.parent[v] == GCH_NONE)
            continue;
        size_t depth = 0;
        uint32_t x = v;
        for (;;) {
            if (!gch_grow((void **)&w->stack, &w->stack_cap, depth + 1, sizeof *w->stack, 16))
                return gch_error_set(err, GCH_ENOMEM, OOM);
            w->stack[depth++] = x;
            uint32_t up = w->p.parent[x];
            if (up == GCH_PATH_ROOT || w->key[up] != GCH_NONE)
                break;
            x = up;
        }
        while (depth && !oom) {
            x = w->stack[--depth];
            uint32_t up = w->p.parent[x], k;
            if (up == GCH_PATH_ROOT)
                k = path_node_of(s, GCH_NONE, root_of(s, h, gch_paths_root_record(&w->p, x), &oom),
                                 w->type_name[h->object_type[x]]);
            else
                k = path_node_of(s, w->key[up], field_of(s, h, up, x, &oom),
                                 w->type_name[h->object_type[x]]);
            oom |= k == GCH_NONE;
            w->key[x] = k;
        }
    }
    return oom ? gch_error_set(err, GCH_ENOMEM, OOM) : GCH_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int has_id(const uint64_t *ids, size_t n, uint64_t id)
{
    size_t lo = GCH_LOWER_BOUND(ids, 0, n, id);
    return lo < n && ids[lo] == id;
}

/* The memlab sets: every id of the first dump; then the live ids of the
 * second absent from the first; then those still live in each later dump. */
static gch_status track_ids(gch_leak_series *s, dump_work *w, gch_error *err)
{
    const gch_heap *h = w->h;
    const uint32_t n = h->object_count;
    const uint32_t *idom = w->t.idom;
    if (s->added == 0) {
        s->first_ids = gch_reallocarray(NULL, n ? n : 1, sizeof *s->first_ids);
        if (!s->first_ids)
            return gch_error_set(err, GCH_ENOMEM, OOM);
        memcpy(s->first_ids, h->object_id, (size_t)n * sizeof *s->first_ids);
        qsort(s->first_ids, n, sizeof *s->first_ids, cmp_u64);
        s->first_count = n;
        return GCH_OK;
    }
    uint64_t *next = gch_reallocarray(NULL, n ? n : 1, sizeof *next);
    if (!next)
        return gch_error_set(err, GCH_ENOMEM, OOM);
    size_t c = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (idom[v] == GCH_NONE)
            continue;
        uint64_t id = h->object_id[v];
        if (s->added == 1 ? !has_id(s->first_ids, s->first_count, id)
                          : has_id(s->kept, s->kept_count, id))
            next[c++] = id;
    }
    qsort(next, c, sizeof *next, cmp_u64);
    gch_free(s->kept);
    s->kept = next;
    s->kept_count = c;
    if (s->added == 1) {
        gch_free(s->first_ids);
        s->first_ids = NULL;
    }
    return GCH_OK;
}

/* The text of path node k: "[root] Type -field-> Type -> Type". */
static char *path_text(const gch_leak_series *s, uint32_t k)
{
    size_t len = 0, depth = 0;
    for (uint32_t x = k; x != GCH_NONE; x = s->nodes[x].parent) {
        const path_node *p = &s->nodes[x];
        len += strlen(interned(&s->names, p->name)) + 8;
        if (p->field != GCH_NONE)
            len += strlen(interned(&s->names, p->field));
        depth++;
    }
    uint32_t *chain = gch_reallocarray(NULL, depth ? depth : 1, sizeof *chain);
    char *out = gch_malloc(len + 1);
    if (!chain || !out) {
        gch_free(chain);
        gch_free(out);
        return NULL;
    }
    size_t i = depth;
    for (uint32_t x = k; x != GCH_NONE; x = s->nodes[x].parent)
        chain[--i] = x;
    char *o = out;
    for (i = 0; i < depth; i++) {
        const path_node *p = &s->nodes[chain[i]];
        const char *name = interned(&s->names, p->name);
        if (i == 0)
            o += sprintf(o, "[%s] %s", interned(&s->names, p->field), name);
        else if (p->field != GCH_NONE)
            o += sprintf(o, " -%s-> %s", interned(&s->names, p->field), name);
        else
            o += sprintf(o, " -> %s", name);
    }
    *o = '\0';
    gch_free(chain);
    return out;
}

static char *dup_str(const char *t)
{
    size_t n = strlen(t) + 1;
    char *d = gch_malloc(n);
    if (d)
        memcpy(d, t, n);
    return d;
}

int gch_leak_type_internal(const char *t)
{
    static const char *const names[] = { "(system)",      "(compiled code)", "(code)",
                                         "(object shape)", "(feedback)",     "(feedback vector)" };
    if (!t)
        return 0;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(t, names[i]) == 0)
            return 1;
    return strncmp(t, "system / ", 9) == 0;
}

int gch_leak_backing_store(const char *store_type, const char *field)
{
    static const char *const java[] = { "table", "nextTable", "elementData", "elements", "queue" };
    if (!store_type || !field)
        return 0;
    size_t n = strlen(store_type);
    if (n > 2 && strcmp(store_type + n - 2, "[]") == 0) {
        for (size_t i = 0; i < sizeof java / sizeof *java; i++)
            if (strcmp(field, java[i]) == 0)
                return 1;
        return 0;
    }
    if (strcmp(store_type, "(array)") == 0 || strcmp(store_type, "(object elements)") == 0 ||
        strcmp(store_type, "(system)") == 0 || strncmp(store_type, "system / ", 9) == 0)
        return strcmp(field, "{table}") == 0 || strcmp(field, "{elements}") == 0 ||
               strcmp(field, "table") == 0 || strcmp(field, "elements") == 0;
    return 0;
}

/* What stands for head x in its group: x, or, when x is a backing store
 * reached from its shortest-path parent u, u (u's head when u is leaked). */
static uint32_t lead_of(const dump_work *w, const uint32_t *head, uint32_t x)
{
    const gch_heap *h = w->h;
    uint32_t u = w->p.parent[x];
    if (u == GCH_NONE || u == GCH_PATH_ROOT)
        return x;
    uint32_t off = gch_ref_label(h, u, x);
    if (off == GCH_NONE ||
        !gch_leak_backing_store(gch_type_name(h, h->object_type[x]), gch_heap_string(h, off)))
        return x;
    return head[u] != GCH_NONE ? head[u] : u;
}

/* One leaked object for the count by type: its group, its type's interned
 * name, itself. */
typedef struct leaked_entry {
    uint32_t group, name, v;
} leaked_entry;

static int entry_cmp(const void *a, const void *b)
{
    const leaked_entry *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

static int type_count_cmp(const void *a, const void *b)
{
    const gch_leak_type_count *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->objects != y->objects)
        return x->objects > y->objects ? -1 : 1;
    return strcmp(x->type, y->type);
}

/* The groups' counts by type from entries e[0..n-1] (sorted with entry_cmp
 * here); lead[v] == v marks v as a head. 0 when out of memory. */
static int group_types(gch_leak_series *s, const dump_work *w, leaked_entry *e, size_t n,
                       const uint32_t *lead, const uint32_t *head)
{
    const gch_heap *h = w->h;
    if (n == 0)
        return 1;
    qsort(e, n, sizeof *e, entry_cmp);
    for (size_t i = 0; i < n;) {
        gch_leak_group *g = &s->groups[e[i].group];
        size_t cap = 0;
        uint32_t grp = e[i].group;
        while (i < n && e[i].group == grp) {
            size_t j = i;
            gch_leak_type_count row = { NULL, 0, 0, 0, h->object_id[e[i].v] };
            for (; j < n && e[j].group == grp && e[j].name == e[i].name; j++) {
                uint32_t v = e[j].v;
                row.objects++;
                row.bytes += gch_object_size(h, v);
                row.heads += head[v] == v && lead[v] == v;
            }
            row.type = dup_str(interned(&s->names, e[i].name));
            if (!row.type || !gch_grow((void **)&g->types, &cap, g->type_count + 1, sizeof *g->types, 16)) {
                gch_free(row.type);
                return 0;
            }
            g->types[g->type_count++] = row;
            i = j;
        }
        if (g->type_count > 1)
            qsort(g->types, g->type_count, sizeof *g->types, type_count_cmp);
    }
    return 1;
}

/* The memlab rule on the last dump: leaked objects, their heads, groups by
 * the path of the head (or of the owner a backing-store head folds into). */
static gch_status leak_groups(gch_leak_series *s, dump_work *w, gch_error *err)
{
    const gch_heap *h = w->h;
    const uint32_t n = h->object_count;
    const uint32_t *idom = w->t.idom;
    uint32_t *head = gch_reallocarray(NULL, n ? n : 1, sizeof *head);
    uint32_t *lead = gch_reallocarray(NULL, n ? n : 1, sizeof *lead);
    unsigned char *counted = gch_calloc(n ? n : 1, 1);
    uint32_t *group_of = gch_reallocarray(NULL, s->node_count ? s->node_count : 1,
                                          sizeof *group_of);
    leaked_entry *entries = NULL;
    size_t cap = 0, entry_count = 0, entry_cap = 0;
    gch_status st = GCH_OK;
    if (!head || !lead || !counted || !group_of)
        goto nomem;
    for (size_t k = 0; k < s->node_count; k++)
        group_of[k] = GCH_NONE;
    /* head[v]: GCH_NONE when v is not leaked; found by climbing the leaked
     * immediate dominators (an explicit stack; memoized). */
    const uint32_t unknown = GCH_NONE - 1;
    for (uint32_t v = 0; v < n; v++)
        head[v] = idom[v] != GCH_NONE && has_id(s->kept, s->kept_count, h->object_id[v]) ? unknown
                                                                                        : GCH_NONE;
    for (uint32_t v = 0; v < n; v++) {
        if (head[v] != unknown)
            continue;
        size_t depth = 0;
        uint32_t x = v, top;
        for (;;) {
            if (!gch_grow((void **)&w->stack, &w->stack_cap, depth + 1, sizeof *w->stack, 16))
                goto nomem;
            w->stack[depth++] = x;
            uint32_t d = idom[x];
            if (d == GCH_DOM_VROOT || head[d] == GCH_NONE) {
                top = x;
                break;
            }
            if (head[d] != unknown) {
                top = head[d];
                break;
            }
            x = d;
        }
        while (depth)
            head[w->stack[--depth]] = top;
    }
    for (uint32_t v = 0; v < n; v++)
        lead[v] = head[v] == v ? lead_of(w, head, v) : GCH_NONE;
    for (uint32_t v = 0; v < n; v++) {
        if (head[v] == GCH_NONE)
            continue;
        uint32_t t = lead[head[v]], k = w->key[t];
        if (group_of[k] == GCH_NONE) {
            if (!gch_grow((void **)&s->groups, &cap, s->group_count + 1, sizeof *s->groups, 16))
                goto nomem;
            gch_leak_group *g = &s->groups[s->group_count];
            memset(g, 0, sizeof *g);
            g->signature = path_text(s, k);
            g->type = dup_str(gch_type_name(h, h->object_type[t]));
            g->example_id = h->object_id[t];
            group_of[k] = (uint32_t)s->group_count++;
            if (!g->signature || !g->type)
                goto nomem;
        }
        gch_leak_group *g = &s->groups[group_of[k]];
        g->objects++;
        g->bytes += gch_object_size(h, v);
        if (!counted[t]) {
            counted[t] = 1;
            g->heads++;
        }
        s->leaked_objects++;
        s->leaked_bytes += gch_object_size(h, v);
        if (!gch_grow((void **)&entries, &entry_cap, entry_count + 1, sizeof *entries, 16))
            goto nomem;
        entries[entry_count++] = (leaked_entry){ group_of[k], w->type_name[h->object_type[v]], v };
    }
    if (!group_types(s, w, entries, entry_count, lead, head))
        goto nomem;
    goto done;
nomem:
    st = gch_error_set(err, GCH_ENOMEM, OOM);
done:
    gch_free(head);
    gch_free(lead);
    gch_free(counted);
    gch_free(group_of);
    gch_free(entries);
    return st;
}

/* Dump number s->added's live instances and retained bytes per path (from
 * w->key) and per type name (type_ret: the heap's retained size per type). */
static gch_status count_dump(gch_leak_series *s, const dump_work *w, const uint64_t *type_ret,
                             gch_error *err)
{
    const gch_heap *heap = w->h;
    const uint32_t n = heap->object_count, T = heap->type_count;
    const size_t k = s->added, D = s->dumps;
    for (uint32_t v = 0; v < n; v++) {
        if (w->t.idom[v] == GCH_NONE)
            continue;
        uint32_t key = w->key[v];
        uint64_t *c = &s->paths.counts[(size_t)key * D + k];
        if ((*c)++ == 0) /* the latest dump's first instance */
            s->paths.example[key] = heap->object_id[v];
        s->paths.retained[(size_t)key * D + k] += w->t.retained[v];
    }
    for (uint32_t t = 0; t < T; t++) {
        uint32_t name = w->type_name[t], slot = s->type_of_name[name];
        if (slot == GCH_NONE) {
            if (!gch_grow((void **)&s->type_name, &s->type_name_cap, s->type_count + 1,
                          sizeof *s->type_name, 16) ||
                !tally_reserve(&s->types, s->type_count + 1, D))
                return gch_error_set(err, GCH_ENOMEM, OOM);
            slot = (uint32_t)s->type_count++;
            s->type_name[slot] = name;
            s->type_of_name[name] = slot;
            s->types.example[slot] = 0;
        }
        s->types.retained[(size_t)slot * D + k] += type_ret[t];
    }
    for (uint32_t v = 0; v < n; v++) {
        if (w->t.idom[v] == GCH_NONE)
            continue;
        uint32_t slot = s->type_of_name[w->type_name[heap->object_type[v]]];
        if (s->types.counts[(size_t)slot * D + k]++ == 0)
            s->types.example[slot] = heap->object_id[v];
    }
    return GCH_OK;
}

/* w->type_name: the interned name of each of the heap's types, names being
 * matched across dumps; type_of_name covers every interned name. 0 when out
 * of memory. */
static int intern_types(gch_leak_series *s, dump_work *w)
{
    for (uint32_t t = 0; t < w->h->type_count; t++) {
        const char *name = gch_type_name(w->h, t);
        uint32_t id = intern(&s->names, name, strlen(name));
        if (id == GCH_NONE ||
            !gch_grow((void **)&s->type_of_name, &s->type_of_name_cap, s->names.n,
                      sizeof *s->type_of_name, 16))
            return 0;
        w->type_name[t] = id;
    }
    for (size_t i = s->type_of_name_filled; i < s->names.n; i++)
        s->type_of_name[i] = GCH_NONE;
    s->type_of_name_filled = s->names.n;
    return 1;
}

gch_status gch_leaks_add(gch_leak_series *s, const gch_heap *heap, int ids_stable,
                         gch_error *err)
{
    gch_analysis *an;
    gch_analysis_options ao;
    memset(&ao, 0, sizeof ao);
    ao.threads = s->opts.threads;
    gch_status st = gch_analysis_of_heap((gch_heap *)heap, &ao, &an, err);
    if (st != GCH_OK) {
        s->failed = 1;
        return st;
    }
    st = gch_leaks_add_in(s, an, heap, ids_stable, err);
    gch_analysis_free(an);
    return st;
}

gch_status gch_leaks_add_in(gch_leak_series *s, gch_analysis *an, const gch_heap *heap,
                            int ids_stable, gch_error *err)
{
    if (s->failed)
        return gch_error_set(err, GCH_EINVAL, "the series failed before");
    if (s->added >= s->dumps)
        return gch_error_set(err, GCH_EINVAL, "more dumps than the series was made for");
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL, "comparing dumps needs references, which were not loaded");
    dump_work w;
    memset(&w, 0, sizeof w);
    w.h = heap;
    const uint32_t n = heap->object_count, T = heap->type_count;
    const size_t k = s->added, D = s->dumps;
    const int last = k + 1 == D;
    s->all_stable &= ids_stable != 0;
    gch_status st;
    const gch_domtree *tree;
    const gch_paths *paths;
    const uint64_t *type_ret = NULL;
    if ((st = gch_analysis_domtree(an, heap, s->opts.include_weak, GCH_TREE_CHILDREN, &tree, err)) !=
            GCH_OK ||
        (st = gch_analysis_paths(an, heap, s->opts.include_weak, &paths, err)) != GCH_OK ||
        (st = gch_analysis_type_retained(an, heap, s->opts.include_weak, &type_ret, err)) != GCH_OK)
        goto out;
    w.t = *tree;
    w.p = *paths;
    w.key = gch_reallocarray(NULL, n ? n : 1, sizeof *w.key);
    w.type_name = gch_reallocarray(NULL, T ? T : 1, sizeof *w.type_name);
    if (!w.key || !w.type_name)
        goto nomem;
    for (uint32_t v = 0; v < n; v++)
        w.key[v] = GCH_NONE;
    if (!intern_types(s, &w))
        goto nomem;
    if ((st = path_keys(s, &w, err)) != GCH_OK || (st = count_dump(s, &w, type_ret, err)) != GCH_OK)
        goto out;
    int by_ids = s->opts.by_ids < 0 ? s->all_stable : s->opts.by_ids;
    if (by_ids && (st = track_ids(s, &w, err)) != GCH_OK)
        goto out;
    if (by_ids && last && (st = leak_groups(s, &w, err)) != GCH_OK)
        goto out;
    s->added++;
    st = GCH_OK;
    goto out;
nomem:
    st = gch_error_set(err, GCH_ENOMEM, OOM);
out:
    if (st != GCH_OK)
        s->failed = 1;
    work_free(&w);
    return st;
}

/* ------------------------------------------------------------ the report */

static int grew_every_step(const uint64_t *v, size_t dumps)
{
    for (size_t k = 1; k < dumps; k++)
        if (v[k] <= v[k - 1])
            return 0;
    return 1;
}

typedef struct growth_order {
    const gch_growth *rows;
    size_t dumps;
} growth_order;

/* Most growth of retained bytes (last dump minus first) first, ties by key. */
static int growth_before(const void *ctx, uint32_t a, uint32_t b)
{
    const growth_order *o = ctx;
    const gch_growth *x = &o->rows[a], *y = &o->rows[b];
    int64_t gx = (int64_t)(x->retained[o->dumps - 1] - x->retained[0]);
    int64_t gy = (int64_t)(y->retained[o->dumps - 1] - y->retained[0]);
    if (gx != gy)
        return gx > gy;
    return strcmp(x->key, y->key) < 0;
}

/* Sorts rows[0..n-1] with growth_before (through an index array). */
static int sort_growth(gch_growth *rows, size_t n, size_t dumps)
{
    if (n < 2)
        return 1;
    uint32_t *idx = gch_reallocarray(NULL, n, sizeof *idx);
    gch_growth *tmp = gch_reallocarray(NULL, n, sizeof *tmp);
    if (!idx || !tmp) {
        gch_free(idx);
        gch_free(tmp);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    growth_order o = { rows, dumps };
    gch__sort_u32(idx, n, growth_before, &o);
    for (size_t i = 0; i < n; i++)
        tmp[i] = rows[idx[i]];
    memcpy(rows, tmp, n * sizeof *rows);
    gch_free(idx);
    gch_free(tmp);
    return 1;
}

static int group_cmp(const void *a, const void *b)
{
    const gch_leak_group *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->signature, y->signature);
}

static int growth_add(gch_growth **rows, size_t *count, size_t *cap, const tally *t, size_t slot,
                      size_t dumps, char *key, const char *type)
{
    if (!key || !gch_grow((void **)rows, cap, *count + 1, sizeof **rows, 16)) {
        gch_free(key);
        return 0;
    }
    gch_growth *g = &(*rows)[(*count)++];
    memset(g, 0, sizeof *g);
    g->key = key;
    g->type = dup_str(type);
    g->counts = gch_reallocarray(NULL, dumps, sizeof *g->counts);
    g->retained = gch_reallocarray(NULL, dumps, sizeof *g->retained);
    if (!g->type || !g->counts || !g->retained)
        return 0;
    memcpy(g->counts, t->counts + slot * dumps, dumps * sizeof *g->counts);
    memcpy(g->retained, t->retained + slot * dumps, dumps * sizeof *g->retained);
    g->example_id = t->example[slot];
    return 1;
}

gch_status gch_leaks_finish(gch_leak_series *s, gch_leak_report *out, gch_error *err)
{
    memset(out, 0, sizeof *out);
    if (s->failed || s->added != s->dumps)
        return gch_error_set(err, GCH_EINVAL, "the series is missing dumps");
    const size_t D = s->dumps;
    out->dumps = D;
    out->by_ids = s->opts.by_ids < 0 ? s->all_stable : s->opts.by_ids;
    size_t cap = 0;
    for (size_t k = 0; k < s->node_count; k++) {
        const uint64_t *c = s->paths.counts + k * D;
        if (!grew_every_step(c, D))
            continue;
        uint32_t up = s->nodes[k].parent;
        if (up != GCH_NONE && grew_every_step(s->paths.counts + (size_t)up * D, D))
            continue;
        if (!s->opts.internals && gch_leak_type_internal(interned(&s->names, s->nodes[k].name))) {
            out->internal_rows++;
            continue;
        }
        if (!growth_add(&out->paths, &out->path_count, &cap, &s->paths, k, D,
                        path_text(s, (uint32_t)k), interned(&s->names, s->nodes[k].name)))
            goto nomem;
    }
    cap = 0;
    for (size_t t = 0; t < s->type_count; t++) {
        if (!grew_every_step(s->types.counts + t * D, D) &&
            !grew_every_step(s->types.retained + t * D, D))
            continue;
        const char *name = interned(&s->names, s->type_name[t]);
        if (!s->opts.internals && gch_leak_type_internal(name)) {
            out->internal_rows++;
            continue;
        }
        if (!growth_add(&out->types, &out->type_count, &cap, &s->types, t, D, dup_str(name), name))
            goto nomem;
    }
    if (!sort_growth(out->paths, out->path_count, D) || !sort_growth(out->types, out->type_count, D))
        goto nomem;
    if (!s->opts.internals) {
        size_t kept = 0;
        for (size_t g = 0; g < s->group_count; g++) {
            gch_leak_group *grp = &s->groups[g];
            if (gch_leak_type_internal(grp->type)) {
                group_free(grp);
                out->internal_rows++;
                continue;
            }
            size_t tk = 0; /* internals leave the breakdown too */
            for (size_t t = 0; t < grp->type_count; t++) {
                if (gch_leak_type_internal(grp->types[t].type))
                    gch_free(grp->types[t].type);
                else
                    grp->types[tk++] = grp->types[t];
            }
            grp->type_count = tk;
            s->groups[kept++] = *grp;
        }
        s->group_count = kept;
    }
    if (s->group_count)
        qsort(s->groups, s->group_count, sizeof *s->groups, group_cmp);
    /* The groups move to the report. */
    out->groups = s->groups;
    out->group_count = s->group_count;
    out->leaked_objects = s->leaked_objects;
    out->leaked_bytes = s->leaked_bytes;
    s->groups = NULL;
    s->group_count = 0;
    return GCH_OK;
nomem:
    gch_leak_report_free(out);
    return gch_error_set(err, GCH_ENOMEM, OOM);
}

static void growth_free(gch_growth *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        gch_free(rows[i].key);
        gch_free(rows[i].type);
        gch_free(rows[i].counts);
        gch_free(rows[i].retained);
    }
    gch_free(rows);
}

void gch_leak_report_free(gch_leak_report *r)
{
    if (!r)
        return;
    for (size_t g = 0; g < r->group_count; g++)
        group_free(&r->groups[g]);
    gch_free(r->groups);
    growth_free(r->paths, r->path_count);
    growth_free(r->types, r->type_count);
    memset(r, 0, sizeof *r);
}
