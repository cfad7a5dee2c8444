/* v8_devtools.c - DevTools' view of a V8 heap snapshot: what the heap
 * snapshot worker of Chrome DevTools computes in JSHeapSnapshot.initialize
 * (front_end/entrypoints/heap_snapshot_worker/HeapSnapshot.ts, npm
 * chrome-devtools-frontend 1.0.1705227), step by step and in its order, on
 * the graph the reader kept. Line numbers below are that file's. No
 * recursion: every walk has an explicit stack or queue. */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/builder.h"
#include "gcheap/utf8.h"
#include "grow.h"
#include "str_table.h"
#include "threading.h"
#include "u64_map.h"
#include "v8_devtools.h"

#define BASE_SYSTEM_DISTANCE 100000000 /* HeapSnapshotModel.baseSystemDistance */
#define MAX_INTERFACE_NAME_LENGTH 120  /* HeapSnapshot.ts:901 */
#define MIN_INTERFACE_PROPERTY_COUNT 1 /* :896 */
#define MIN_OBJECT_COUNT_PER_INTERFACE 2
#define MIN_OBJECT_PROPORTION_PER_INTERFACE 1000

#define BIT_GET(a, i) ((a)[(i) >> 3] >> ((i)&7) & 1)
#define BIT_SET(a, i) ((a)[(i) >> 3] |= (uint8_t)(1u << ((i)&7)))

static gch_status oom(gch_error *err) { return gch_error_set(err, GCH_ENOMEM, "out of memory"); }

static uint8_t nrole(const v8_graph *g, size_t i) { return g->node_role[g->type[i]]; }
static uint8_t erole(const v8_graph *g, uint64_t e) { return g->edge_role[g->etype[e]]; }
static const char *raw_name(const v8_graph *g, size_t i) { return g->str(g->str_ctx, g->name[i]); }
static uint8_t name_class(const v8_graph *g, uint32_t nm);
static int string_named(uint8_t role) { return role != ET_ELEMENT && role != ET_HIDDEN; }

/* What the steps below ask of a node's name, found once per node (and the
 * strings compared once per distinct name, not per node). */
enum node_flag {
    FL_PLAIN_OBJECT = 1,    /* an object named "Object" */
    FL_EXTERNAL_STRING = 2, /* a native named "system / ExternalStringData" (not Detached ...) */
    FL_ARRAY_BUFFER = 4,    /* a native named "system / JSArrayBufferData" (not Detached ...) */
    FL_ARRAY = 8,           /* named "Array": neither hidden, native, code nor a string */
    FL_NATIVE_CONTEXT = 16, /* a hidden node named "system / NativeContext" */
    FL_MAP_DESCRIPTORS = 32 /* an array named "(map descriptors)" */
};
#define FL_KNOWN 128        /* in the memo by name: the flags above are set */

static uint8_t name_flags(const char *s)
{
    static const char *const known[] = { "Object", "system / ExternalStringData", "system / JSArrayBufferData",
                                         "Array", "system / NativeContext", "(map descriptors)" };
    for (unsigned k = 0; k < sizeof known / sizeof *known; k++)
        if (strcmp(s, known[k]) == 0)
            return (uint8_t)(FL_KNOWN | 1u << k);
    return FL_KNOWN;
}

/* The flags of node i (renamed: it is Detached NAME now). */
static uint8_t node_flags(const v8_graph *g, size_t i, uint8_t *memo, int renamed)
{
    uint8_t mask;
    switch (nrole(g, i)) {
    case NT_OBJECT: mask = FL_PLAIN_OBJECT | FL_ARRAY; break;
    case NT_NATIVE: mask = renamed ? 0 : FL_EXTERNAL_STRING | FL_ARRAY_BUFFER; break;
    case NT_HIDDEN: mask = FL_NATIVE_CONTEXT; break;
    case NT_ARRAY: mask = FL_MAP_DESCRIPTORS | FL_ARRAY; break;
    case NT_CODE:
    case NT_STRING:
    case NT_CONS_STRING:
    case NT_SLICED_STRING: mask = 0; break;
    default: mask = FL_ARRAY;
    }
    if (!mask) /* strings (most names, each its own) are never looked up */
        return 0;
    uint8_t *m = &memo[g->name[i]];
    if (!*m)
        *m = name_flags(raw_name(g, i));
    return *m & mask;
}

/* ------------------------------------------------------------------------ */
/* Names to dense numbers, in the order first seen (class names, interface
 * names): the library's string table. */

/* The number of s (len bytes), added when new; GCH_NONE when out of memory. */
static uint32_t name_id(gch_str_table *t, const char *s, size_t len)
{
    uint32_t k;
    int added;
    return gch_str_table_put(t, s, len, &k, &added) ? k : GCH_NONE;
}

/* A growable text. */
typedef struct text {
    char *s;
    size_t len, cap;
} text;

static int text_add(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 128;
        while (nc < t->len + n + 1)
            nc *= 2;
        char *p = gch_realloc(t->s, nc);
        if (!p)
            return 0;
        t->s = p;
        t->cap = nc;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
    return 1;
}

/* ------------------------------------------------------------------------ */
/* WeakMap ephemeron edge names (tryParseWeakMapEdgeName, :2026-2040):
 * /^\d+(?<duplicatedPart> \/ part of key \(.*? @\d+\) -> value \(.*? @\d+\)
 * pair in WeakMap \(table @(?<tableId>\d+)\))$/ (the last ")" closes the group:
 * the name ends "(table @ID)"). */

static size_t digits_back(const char *s, size_t end)
{
    size_t k = end;
    while (k > 0 && s[k - 1] >= '0' && s[k - 1] <= '9')
        k--;
    return end - k;
}

/* Whether name matches; then *dup is where duplicatedPart starts and *table
 * the table id. */
static int weakmap_edge(const char *s, size_t *dup, uint64_t *table)
{
    static const char key_open[] = " / part of key (", arrow[] = ") -> value (",
                      tail[] = ") pair in WeakMap (table @";
    size_t n = strlen(s), d = 0;
    while (d < n && s[d] >= '0' && s[d] <= '9')
        d++;
    if (d == 0 || s[d] != key_open[0] || strncmp(s + d, key_open, sizeof key_open - 1) != 0)
        return 0;
    size_t kstart = d + sizeof key_open - 1;
    /* the end: "table @" digits ")" */
    if (n < 1 || s[n - 1] != ')')
        return 0;
    size_t td = digits_back(s, n - 1);
    if (td == 0 || n - 1 - td < sizeof tail - 1)
        return 0;
    size_t tpos = n - 1 - td - (sizeof tail - 1);
    if (strncmp(s + tpos, tail, sizeof tail - 1) != 0)
        return 0;
    /* before it: " @" digits (the value's id) */
    size_t vd = digits_back(s, tpos);
    if (vd == 0 || tpos - vd < 2 || s[tpos - vd - 1] != '@' || s[tpos - vd - 2] != ' ')
        return 0;
    size_t vend = tpos - vd - 2; /* the value's text ends here */
    /* somewhere between: " @" digits ") -> value (" */
    for (size_t a = kstart; a + sizeof arrow - 1 <= vend; a++) {
        if (strncmp(s + a, arrow, sizeof arrow - 1) != 0)
            continue;
        size_t kd = digits_back(s, a);
        if (kd && a - kd >= kstart + 2 && s[a - kd - 1] == '@' && s[a - kd - 2] == ' ') {
            uint64_t t = 0;
            for (size_t k = n - 1 - td; k < n - 1; k++)
                t = t * 10 + (uint64_t)(s[k] - '0');
            *dup = d;
            *table = td > 19 ? UINT64_MAX : t;
            return 1;
        }
    }
    return 0;
}

/* Per string index of internal edges: 0 not yet looked at, 1 not a WeakMap
 * edge, 2 a WeakMap edge, whose duplicatedPart number and table id a small
 * hash table by string index holds (such names are few: a byte per name
 * instead of twelve). */
typedef struct weakmaps {
    uint8_t *state;      /* by string index, up to max_name */
    uint32_t max_name;
    gch_u64_map at;      /* string index -> position in part and table */
    uint32_t *part;      /* the duplicatedPart's number */
    uint64_t *table;     /* the table id */
    size_t n, part_cap, table_cap;
    gch_str_table parts;
} weakmaps;

/* Whether the name of an internal edge is a WeakMap edge's; then its
 * duplicatedPart number and table id. */
static int weakmap_name(const weakmaps *w, uint32_t nm, uint32_t *part, uint64_t *table)
{
    if (nm >= w->max_name || w->state[nm] != 2)
        return 0;
    uint32_t k = gch_u64_map_get(&w->at, nm);
    *part = w->part[k];
    *table = w->table[k];
    return 1;
}

static int weakmap_add(weakmaps *w, uint32_t nm, uint32_t part, uint64_t table)
{
    int found;
    if (!gch_grow((void **)&w->part, &w->part_cap, w->n + 1, sizeof *w->part, 16) ||
        !gch_grow((void **)&w->table, &w->table_cap, w->n + 1, sizeof *w->table, 16) ||
        !gch_u64_map_put(&w->at, nm, (uint32_t)w->n, &found))
        return 0;
    w->part[w->n] = part;
    w->table[w->n++] = table;
    return 1;
}

/* Name nm of an internal edge, when it is a WeakMap's: its parts noted and
 * its state 2. Returns 0 when out of memory. */
static int weakmap_note(const v8_graph *g, weakmaps *w, uint32_t nm)
{
    const char *s = g->str(g->str_ctx, nm);
    size_t dup;
    uint64_t table;
    if (!weakmap_edge(s, &dup, &table))
        return 1;
    uint32_t k = name_id(&w->parts, s + dup, strlen(s + dup));
    if (k == GCH_NONE || !weakmap_add(w, nm, k, table))
        return 0;
    w->state[nm] = 2;
    return 1;
}

/* With the names classified as read (g->eclass: every string-named
 * edge's), the WeakMap names are those classified so: no pass over the
 * edges. A name no internal edge has then has state 2 too, which nobody
 * asks (weakmap_name is asked of internal edges only). */
static gch_status weakmaps_by_class(const v8_graph *g, weakmaps *w, gch_error *err)
{
    w->max_name = (uint32_t)g->eclass_n;
    if (!(w->state = gch_calloc(w->max_name ? w->max_name : 1, 1)))
        return oom(err);
    for (uint32_t nm = 0; nm < w->max_name; nm++)
        if ((g->eclass[nm] & EC_WEAKMAP) && !weakmap_note(g, w, nm))
            return oom(err);
    return GCH_OK;
}

static gch_status weakmaps_init(const v8_graph *g, weakmaps *w, gch_error *err)
{
    memset(w, 0, sizeof *w);
    gch_str_table_init(&w->parts);
    if (g->eclass && g->eclass_n < UINT32_MAX)
        return weakmaps_by_class(g, w, err);
    for (uint64_t e = 0; e < g->m; e++)
        if (erole(g, e) == ET_INTERNAL && g->ename[e] >= w->max_name)
            w->max_name = g->ename[e] + 1;
    w->state = gch_calloc(w->max_name ? w->max_name : 1, 1);
    if (!w->state)
        return oom(err);
    for (uint64_t e = 0; e < g->m; e++) {
        uint32_t nm = g->ename[e];
        if (erole(g, e) != ET_INTERNAL || w->state[nm])
            continue;
        w->state[nm] = 1;
        if (!(name_class(g, nm) & EC_WEAKMAP))
            continue;
        if (!weakmap_note(g, w, nm))
            return oom(err);
    }
    return GCH_OK;
}

static void weakmaps_free(weakmaps *w)
{
    gch_free(w->state);
    gch_u64_map_free(&w->at);
    gch_free(w->part);
    gch_free(w->table);
    gch_str_table_free(&w->parts);
}

/* ------------------------------------------------------------------------ */
/* propagateDOMState (:3052-3150): attached and detached states flow from
 * natives that know theirs to native children (not through hidden, invisible
 * or weak edges); a native that ends detached is named "Detached NAME". */
static gch_status propagate_dom_state(const v8_graph *g, uint8_t *det, gch_error *err)
{
    size_t n = g->n;
    uint8_t *visited = gch_calloc(n ? n : 1, 1);
    uint32_t *attached = gch_reallocarray(NULL, n ? n : 1, sizeof *attached);
    uint32_t *detached = gch_reallocarray(NULL, n ? n : 1, sizeof *detached);
    if (!visited || !attached || !detached) {
        gch_free(visited);
        gch_free(attached);
        gch_free(detached);
        return oom(err);
    }
    size_t na = 0, nd = 0;
#define PROCESS(o, state)                                                                                        \
    do {                                                                                                         \
        size_t o_ = (o);                                                                                         \
        if (!visited[o_]) {                                                                                      \
            visited[o_] = 1;                                                                                     \
            if (nrole(g, o_) == NT_NATIVE) {                                                                     \
                det[o_] = (state);                                                                               \
                if ((state) == 1)                                                                                \
                    attached[na++] = (uint32_t)o_;                                                               \
                else if ((state) == 2)                                                                           \
                    detached[nd++] = (uint32_t)o_;                                                               \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)
    for (size_t i = 0; i < n; i++)
        if (det[i] != 0)
            PROCESS(i, det[i]);
    for (int phase = 1; phase <= 2; phase++) {
        uint32_t *list = phase == 1 ? attached : detached;
        size_t *len = phase == 1 ? &na : &nd;
        while (*len) {
            size_t i = list[--*len];
            if (phase == 2 && det[i] == 1)
                continue;
            for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
                uint8_t r = erole(g, e);
                if (r == ET_HIDDEN || r == ET_INVISIBLE || r == ET_WEAK)
                    continue;
                PROCESS(g->eto[e], (uint8_t)phase);
            }
        }
    }
#undef PROCESS
    gch_free(visited);
    gch_free(attached);
    gch_free(detached);
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* markPageOwnedNodes (:4458-4516): everything reachable (not through weak
 * edges) from the root's shortcut edges (user globals) and from its element
 * edges to "(Document DOM trees)". */
static int is_dom_trees_root(const v8_graph *g, size_t i)
{
    return nrole(g, i) == NT_SYNTHETIC && strcmp(raw_name(g, i), "(Document DOM trees)") == 0;
}

static gch_status mark_page_owned(const v8_graph *g, uint8_t *page, gch_error *err)
{
    uint32_t *stack = gch_reallocarray(NULL, g->n ? g->n : 1, sizeof *stack);
    if (!stack)
        return oom(err);
    size_t sp = 0, r = g->root;
    for (uint64_t e = g->estart[r]; e < g->estart[r + 1]; e++) {
        uint8_t role = erole(g, e);
        uint32_t t = g->eto[e];
        if (role == ET_ELEMENT ? !is_dom_trees_root(g, t) : role != ET_SHORTCUT)
            continue;
        if (!page[t]) /* DevTools pushes repeats too; marking once is the same set */
            stack[sp++] = t;
        page[t] = 1;
    }
    while (sp) {
        size_t i = stack[--sp];
        for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
            uint32_t t = g->eto[e];
            if (page[t] || erole(g, e) == ET_WEAK)
                continue;
            page[t] = 1;
            stack[sp++] = t;
        }
    }
    gch_free(stack);
    return GCH_OK;
}

/* computeIsEssentialEdge (:2042-2091). */
static void essential_edges(const v8_graph *g, const uint8_t *page, const weakmaps *w, uint8_t *bits)
{
    for (size_t i = 0; i < g->n; i++) {
        for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
            uint8_t role = erole(g, e);
            uint32_t t = g->eto[e];
            uint32_t part;
            uint64_t table;
            if (role == ET_INTERNAL && weakmap_name(w, g->ename[e], &part, &table) && table == g->id[i])
                continue; /* the WeakMap table's edge: the key's edge holds the value */
            if (role == ET_WEAK || t == i)
                continue;
            if (i != g->root && (role == ET_SHORTCUT || (page[t] && !page[i])))
                continue;
            BIT_SET(bits, e);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* calculateShallowSizes (:4227-4325): when the snapshot has user roots, the
 * size of a hidden or array node, or a "system / ExternalStringData" native,
 * that one owner reaches (not through weak edges, only through such nodes)
 * moves to that owner, unless the owner is synthetic or the root. */
static int is_user_root(const v8_graph *g, size_t i)
{
    return nrole(g, i) != NT_SYNTHETIC || is_dom_trees_root(g, i);
}

static gch_status shallow_sizes(const v8_graph *g, const uint8_t *flags, v8_devtools *d, int *wide, gch_error *err)
{
    size_t n = g->n, r = g->root;
    d->size = g->size; /* folded in place */
    int user = 0;
    for (uint64_t e = g->estart[r]; e < g->estart[r + 1] && !user; e++)
        user = is_user_root(g, g->eto[e]);
    if (!user)
        return GCH_OK;
    const uint32_t unvisited = UINT32_MAX, multiple = UINT32_MAX - 1;
    uint32_t *owner = gch_reallocarray(NULL, n ? n : 1, sizeof *owner);
    uint8_t *owned = gch_calloc(n / 8 + 1, 1); /* bit per node: hidden, array or ExternalStringData */
    if (!owner || !owned) {
        gch_free(owner);
        gch_free(owned);
        return oom(err);
    }
    size_t nowned = 0;
    for (size_t i = 0; i < n; i++) {
        if (d->size[i] >= UINT32_MAX) { /* sizes of 4 GiB: left as written (never seen in a snapshot) */
            gch_free(owner);
            gch_free(owned);
            return GCH_OK;
        }
        uint8_t role = nrole(g, i);
        if (role == NT_HIDDEN || role == NT_ARRAY || (flags[i] & FL_EXTERNAL_STRING)) {
            owner[i] = unvisited;
            BIT_SET(owned, i);
            nowned++;
        } else {
            owner[i] = (uint32_t)i;
        }
    }
    d->folded = 1;
    /* From each owner in turn, through the nodes it may own: the owners
     * that reach a node form a set, whatever the order of the walk, so this
     * gives what DevTools' one worklist of every owner gives. Each owned
     * node enters the stack at most twice (reached, then shared): 2 slots
     * each and one for the owner. */
    uint32_t *work = gch_reallocarray(NULL, 2 * nowned + 1, sizeof *work);
    if (!work) {
        gch_free(owner);
        gch_free(owned);
        return oom(err);
    }
    for (size_t i = 0; i < n; i++) {
        if (BIT_GET(owned, i))
            continue;
        size_t wl = 0;
        work[wl++] = (uint32_t)i;
        while (wl) {
            uint32_t id = work[--wl], own = owner[id];
            for (uint64_t e = g->estart[id]; e < g->estart[id + 1]; e++) {
                uint32_t t = g->eto[e];
                if (!BIT_GET(owned, t) || erole(g, e) == ET_WEAK)
                    continue; /* an owner is nobody's to own */
                if (owner[t] == unvisited) {
                    owner[t] = own;
                    work[wl++] = t;
                } else if (owner[t] != own && owner[t] != multiple) {
                    owner[t] = multiple;
                    work[wl++] = t;
                }
            }
        }
    }
    gch_free(owned);
    for (size_t i = 0; i < n; i++) {
        uint32_t o = owner[i];
        if (o == unvisited || o == multiple || o == i || nrole(g, o) == NT_SYNTHETIC || o == r)
            continue;
        d->size[o] += d->size[i];
        d->size[i] = 0;
        *wide |= d->size[o] > UINT32_MAX;
    }
    gch_free(owner);
    gch_free(work);
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* calculateDistances (:1829-1917, JSHeapSnapshot :4327-4370): a BFS from the
 * user roots, then one from the root for the rest (from baseSystemDistance
 * when there were user roots), not through weak edges nor the edges the
 * filter drops. */

/* parseInt(name, 10) of an edge name, as the (map descriptors) filter reads
 * it; 0 when NaN (*nan set). */
static int64_t parse_int(const char *s, int *nan)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v')
        s++;
    int neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (*s < '0' || *s > '9') {
        *nan = 1;
        return 0;
    }
    int64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++)
        v = v < INT64_MAX / 10 - 10 ? v * 10 + (*s - '0') : v;
    *nan = 0;
    return neg ? -v : v;
}

uint8_t v8_edge_name_class(const char *s)
{
    uint8_t c = EC_KNOWN;
    if (*s == 'e' || *s == 's') { /* neither a number nor a WeakMap name */
        if (strcmp(s, "elements") == 0)
            c |= EC_ELEMENTS;
        else if (strcmp(s, "sloppy_function_map") == 0)
            c |= EC_SLOPPY;
        return c;
    }
    size_t dup;
    uint64_t table;
    int nan = 0;
    int64_t index = parse_int(s, &nan);
    if (!nan && !(index < 2 || index % 3 != 1))
        c |= EC_MD_DROP;
    if (*s >= '0' && *s <= '9' && weakmap_edge(s, &dup, &table))
        c |= EC_WEAKMAP;
    return c;
}

/* The class of string nm as an edge name. */
static uint8_t name_class(const v8_graph *g, uint32_t nm)
{
    if (g->eclass)
        return nm < g->eclass_n ? g->eclass[nm] : 0;
    return v8_edge_name_class(g->str(g->str_ctx, nm));
}

typedef struct dist_filter {
    const v8_graph *g;
    const weakmaps *w;
    uint8_t *pending; /* bit per duplicatedPart */
    const uint8_t *flags; /* per node (FL_NATIVE_CONTEXT and FL_MAP_DESCRIPTORS matter here) */
} dist_filter;

static int dist_keep(dist_filter *f, size_t i, uint64_t e)
{
    const v8_graph *g = f->g;
    uint8_t special = f->flags[i], role = erole(g, e);
    if ((special & FL_NATIVE_CONTEXT) && string_named(role) && (name_class(g, g->ename[e]) & EC_SLOPPY))
        return 0;
    if (special & FL_MAP_DESCRIPTORS) {
        if (string_named(role)) /* parseInt's NaN: NaN < 2 and NaN % 3 !== 1: kept */
            return !(name_class(g, g->ename[e]) & EC_MD_DROP);
        int64_t index = g->ename[e];
        return index < 2 || index % 3 != 1;
    }
    uint32_t k;
    uint64_t table;
    if (role == ET_INTERNAL && weakmap_name(f->w, g->ename[e], &k, &table)) {
        if (!BIT_GET(f->pending, k)) {
            BIT_SET(f->pending, k);
            return 0;
        }
        f->pending[k >> 3] &= (uint8_t) ~(1u << (k & 7));
    }
    return 1;
}

static void bfs(const v8_graph *g, dist_filter *f, int32_t *dist, uint32_t *queue, size_t len)
{
    for (size_t q = 0; q < len; q++) {
        size_t i = queue[q];
        int32_t next = dist[i] + 1;
        for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
            if (erole(g, e) == ET_WEAK)
                continue;
            uint32_t t = g->eto[e];
            if (dist[t] != V8_NO_DISTANCE || !dist_keep(f, i, e))
                continue;
            dist[t] = next;
            queue[len++] = t;
        }
    }
}

static gch_status distances(const v8_graph *g, const weakmaps *w, const uint8_t *flags, int32_t *dist,
                            gch_error *err)
{
    size_t n = g->n, r = g->root;
    uint32_t *queue = gch_reallocarray(NULL, n ? n : 1, sizeof *queue);
    dist_filter f = { g, w, gch_calloc(w->parts.n / 8 + 1, 1), flags };
    if (!queue || !f.pending) {
        gch_free(queue);
        gch_free(f.pending);
        return oom(err);
    }
    for (size_t i = 0; i < n; i++)
        dist[i] = V8_NO_DISTANCE;
    size_t len = 0;
    for (uint64_t e = g->estart[r]; e < g->estart[r + 1]; e++) {
        uint32_t t = g->eto[e];
        if (is_user_root(g, t)) {
            if (dist[t] == V8_NO_DISTANCE) /* DevTools queues a repeat twice: its edges then change nothing */
                queue[len++] = t;
            dist[t] = 1;
        }
    }
    bfs(g, &f, dist, queue, len);
    dist[r] = len > 0 ? BASE_SYSTEM_DISTANCE : 0;
    queue[0] = (uint32_t)r;
    bfs(g, &f, dist, queue, 1);
    gch_free(queue);
    gch_free(f.pending);
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* Class names: calculateObjectNames (:2392-2471), then
 * inferInterfaceDefinitions and applyInterfaceDefinitions (:2773-2977) for
 * plain objects. */

/* formatPropertyName (:4743-4752): a name with , ' " { or } is written as a
 * JSON string. */
static int format_property(text *t, const char *s)
{
    if (!strpbrk(s, ",'\"{}"))
        return text_add(t, s, strlen(s));
    if (!text_add(t, "\"", 1))
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char buf[8];
        const char *o = buf;
        size_t len = 2;
        switch (*p) {
        case '"': o = "\\\""; break;
        case '\\': o = "\\\\"; break;
        case '\b': o = "\\b"; break;
        case '\f': o = "\\f"; break;
        case '\n': o = "\\n"; break;
        case '\r': o = "\\r"; break;
        case '\t': o = "\\t"; break;
        default:
            if (*p < 0x20) {
                static const char hex[] = "0123456789abcdef";
                memcpy(buf, "\\u00", 4);
                buf[4] = hex[*p >> 4];
                buf[5] = hex[*p & 15];
                len = 6;
            } else {
                buf[0] = (char)*p;
                len = 1;
            }
        }
        if (!text_add(t, o, len))
            return 0;
    }
    return text_add(t, "\"", 1);
}

/* getNodeClassIndex's name for a node, into t ("" for an object or native
 * named ""). det_name is the node's name after propagateDOMState. */
static int class_name(const v8_graph *g, size_t i, const char *name, text *t)
{
    t->len = 0;
    switch (nrole(g, i)) {
    case NT_HIDDEN: return text_add(t, "(system)", 8);
    case NT_CODE: return text_add(t, "(compiled code)", 15);
    case NT_CLOSURE: return text_add(t, "Function", 8);
    case NT_REGEXP: return text_add(t, "RegExp", 6);
    case NT_OBJECT:
    case NT_NATIVE: {
        size_t len = strlen(name);
        const char *sp = NULL;
        if (name[0] == '<')
            sp = strchr(name, ' ');
        else if (strncmp(name, "Detached <", 10) == 0)
            sp = strchr(name + 10, ' ');
        if (sp)
            return text_add(t, name, (size_t)(sp - name)) && text_add(t, ">", 1);
        if (len == 0) /* DevTools: "" */
            return text_add(t, "(no name)", 9);
        return text_add(t, name, len);
    }
    case NT_SYNTHETIC: /* gcheap: the pseudo-node's own name ("(GC roots)"); DevTools: (synthetic) */
        if (name[0])
            return text_add(t, name, strlen(name));
        /* fall through */
    default: {
        const char *tn = g->node_type_name[g->type[i]];
        return text_add(t, "(", 1) && text_add(t, tn, strlen(tn)) && text_add(t, ")", 1);
    }
    }
}

typedef struct iface_tree {
    /* per tree node */
    uint32_t *match_name;  /* interface number + 1, 0 none */
    uint32_t *match_props, *match_index;
    uint32_t *greatest;    /* string index of the greatest next property + 1, 0 none */
    uint32_t n, cap;
    gch_u64_map children; /* (node << 32 | property string index) -> child */
} iface_tree;

static uint32_t tree_child(const iface_tree *t, uint32_t node, uint32_t prop)
{
    return gch_u64_map_get(&t->children, (uint64_t)node << 32 | prop); /* GCH_NONE when absent */
}

static int tree_node(iface_tree *t)
{
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 64;
        uint32_t **arrays[] = { &t->match_name, &t->match_props, &t->match_index, &t->greatest };
        for (size_t k = 0; k < 4; k++) {
            uint32_t *p = gch_reallocarray(*arrays[k], nc, sizeof *p);
            if (!p)
                return 0;
            *arrays[k] = p;
        }
        t->cap = nc;
    }
    t->match_name[t->n] = t->greatest[t->n] = 0;
    t->n++;
    return 1;
}

static int tree_add_child(iface_tree *t, uint32_t node, uint32_t prop, uint32_t child)
{
    int found;
    return gch_u64_map_put(&t->children, (uint64_t)node << 32 | prop, child, &found) != NULL;
}

static void tree_free(iface_tree *t)
{
    gch_free(t->match_name);
    gch_free(t->match_props);
    gch_free(t->match_index);
    gch_free(t->greatest);
    gch_u64_map_free(&t->children);
}

static const v8_graph *sort_graph; /* qsort has no context argument; set around each sort, no thread shares it */

static int cmp_prop(const void *a, const void *b)
{
    const char *x = sort_graph->str(sort_graph->str_ctx, *(const uint32_t *)a);
    const char *y = sort_graph->str(sort_graph->str_ctx, *(const uint32_t *)b);
    return strcmp(x, y);
}

typedef struct candidate {
    uint32_t name;     /* in the names set */
    uint32_t count;
    uint32_t order;    /* first seen: JavaScript's sort is stable */
    uint64_t props_at; /* in the props pool */
    uint32_t props_n;
} candidate;

static int cmp_candidate(const void *a, const void *b)
{
    const candidate *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->order > y->order) - (x->order < y->order);
}

/* Classes of plain objects by the interfaces DevTools infers. cls_of_name:
 * the class number of each interface name is added to d's names. */
static gch_status interfaces(const v8_graph *g, const uint8_t *flags, v8_devtools *d, gch_str_table *classes,
                             gch_error *err)
{
    gch_str_table names;
    gch_str_table_init(&names);
    candidate *cand = NULL;
    size_t cand_n = 0, cand_cap = 0;
    uint32_t *pool = NULL, *props = NULL, *states = NULL;
    uint8_t *in_set = NULL;
    size_t pool_n = 0, pool_cap = 0, props_cap = 0;
    text t = { 0 };
    iface_tree tree = { 0 };
    gch_status st = GCH_ENOMEM;
    uint64_t total = 0;
    /* candidates (:2788-2827) */
    for (size_t i = 0; i < g->n; i++) {
        if (!(flags[i] & FL_PLAIN_OBJECT))
            continue;
        total++;
        t.len = 0;
        if (!text_add(&t, "{", 1))
            goto done;
        size_t jslen = 1, np = 0, start = pool_n;
        for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
            if (erole(g, e) != ET_PROPERTY)
                continue;
            const char *pn = g->str(g->str_ctx, g->ename[e]);
            if (strcmp(pn, "__proto__") == 0)
                continue;
            size_t before = t.len;
            if (!format_property(&t, pn))
                goto done;
            size_t flen = gch_utf16_units(t.s + before, t.len - before);
            t.len = before;
            if (jslen > MIN_INTERFACE_PROPERTY_COUNT && jslen + flen > MAX_INTERFACE_NAME_LENGTH)
                break;
            if (np && !text_add(&t, ", ", 2))
                goto done;
            if (!format_property(&t, pn))
                goto done;
            jslen = gch_utf16_units(t.s, t.len);
            if (!gch_grow((void **)&pool, &pool_cap, pool_n + 1, sizeof *pool, 1024))
                goto done;
            pool[pool_n++] = g->ename[e];
            np++;
        }
        if (np == 0)
            continue;
        if (!text_add(&t, "}", 1))
            goto done;
        uint32_t before_n = (uint32_t)names.n;
        uint32_t k = name_id(&names, t.s, t.len);
        if (k == GCH_NONE)
            goto done;
        if (k < before_n) {
            cand[k].count++;
            pool_n = start; /* the first object's properties stand for them all */
            continue;
        }
        if (!gch_grow((void **)&cand, &cand_cap, cand_n + 1, sizeof *cand, 64))
            goto done;
        cand[cand_n] = (candidate){ k, 1, (uint32_t)cand_n, start, (uint32_t)np };
        cand_n++;
    }
    /* the most popular (:2829-2845) */
    if (cand_n)
        qsort(cand, cand_n, sizeof *cand, cmp_candidate);
    double min_count = (double)total / MIN_OBJECT_PROPORTION_PER_INTERFACE;
    if (min_count < MIN_OBJECT_COUNT_PER_INTERFACE)
        min_count = MIN_OBJECT_COUNT_PER_INTERFACE;
    size_t defs = 0;
    while (defs < cand_n && (double)cand[defs].count >= min_count)
        defs++;
    /* the property tree (:2897-2929) */
    if (!tree_node(&tree))
        goto done;
    sort_graph = g;
    for (size_t k = 0; k < defs; k++) {
        uint32_t *p = pool + cand[k].props_at, np = cand[k].props_n;
        qsort(p, np, sizeof *p, cmp_prop);
        uint32_t cur = 0;
        for (uint32_t j = 0; j < np; j++) {
            uint32_t next = tree_child(&tree, cur, p[j]);
            if (next == GCH_NONE) {
                next = tree.n;
                if (!tree_node(&tree) || !tree_add_child(&tree, cur, p[j], next))
                    goto done;
                if (!tree.greatest[cur] || strcmp(g->str(g->str_ctx, tree.greatest[cur] - 1),
                                                  g->str(g->str_ctx, p[j])) < 0)
                    tree.greatest[cur] = p[j] + 1;
            }
            cur = next;
        }
        if (!tree.match_name[cur]) {
            uint32_t cls = name_id(classes, gch_str_table_text(&names, cand[k].name),
                                   gch_str_table_len(&names, cand[k].name));
            if (cls == GCH_NONE)
                goto done;
            tree.match_name[cur] = cls + 1;
            tree.match_props[cur] = np;
            tree.match_index[cur] = (uint32_t)k;
        }
    }
    /* each plain object's best match (:2938-2975) */
    /* a round adds at most one state per state: 2 * tree.n slots */
    if (!(in_set = gch_calloc(tree.n, 1)) || !(states = gch_reallocarray(NULL, 2 * (size_t)tree.n + 2, sizeof *states)))
        goto done;
    for (size_t i = 0; i < g->n && defs; i++) {
        if (!(flags[i] & FL_PLAIN_OBJECT))
            continue;
        size_t np = 0;
        for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
            if (erole(g, e) != ET_PROPERTY)
                continue;
            if (!gch_grow((void **)&props, &props_cap, np + 1, sizeof *props, 64))
                goto done;
            props[np++] = g->ename[e];
        }
        if (np > 1)
            qsort(props, np, sizeof *props, cmp_prop);
        /* the set of states in insertion order (a JavaScript Set): ids, with
         * in_set telling which are still in it */
        size_t sl = 0;
        states[sl++] = 0;
        in_set[0] = 1;
        uint32_t best = tree.match_name[0], best_props = tree.match_props[0], best_index = tree.match_index[0];
        if (!best)
            best_props = 0, best_index = UINT32_MAX;
        for (size_t j = 0; j < np; j++) {
            const char *pj = g->str(g->str_ctx, props[j]);
            size_t end = sl;
            for (size_t s = 0; s < end; s++) {
                uint32_t cur = states[s];
                if (cur == GCH_NONE || !in_set[cur])
                    continue;
                if (!tree.greatest[cur] || strcmp(pj, g->str(g->str_ctx, tree.greatest[cur] - 1)) >= 0) {
                    in_set[cur] = 0;
                    states[s] = GCH_NONE;
                }
                uint32_t next = tree_child(&tree, cur, props[j]);
                if (next == GCH_NONE)
                    continue;
                if (!in_set[next]) {
                    in_set[next] = 1;
                    states[sl++] = next;
                }
                if (tree.match_name[next] &&
                    (!best || tree.match_props[next] > best_props ||
                     (tree.match_props[next] == best_props && tree.match_index[next] < best_index))) {
                    best = tree.match_name[next];
                    best_props = tree.match_props[next];
                    best_index = tree.match_index[next];
                }
            }
            /* compact: drop the removed (the order of those left is kept) */
            size_t w = 0;
            for (size_t s = 0; s < sl; s++)
                if (states[s] != GCH_NONE && in_set[states[s]])
                    states[w++] = states[s];
            sl = w;
        }
        for (size_t s = 0; s < sl; s++)
            in_set[states[s]] = 0;
        if (best)
            d->cls[i] = best - 1;
    }
    st = GCH_OK;
done:
    sort_graph = NULL;
    gch_str_table_free(&names);
    gch_free(cand);
    gch_free(pool);
    gch_free(props);
    gch_free(states);
    gch_free(in_set);
    gch_free(t.s);
    tree_free(&tree);
    return st == GCH_OK ? GCH_OK : oom(err);
}

/* ------------------------------------------------------------------------ */
/* The nodes no essential path from the root reaches: DevTools' dominator
 * build starts again from those whose retainers are all non-essential, then
 * hangs every node still unvisited under the root (:2240-2268); either way
 * the root becomes their immediate dominator, as if it had an edge to each.
 * Those are the ones an edge from the root must hold here: the nodes with
 * no essential retainer, and one node of each set still unreached. */
static gch_status hang(const v8_graph *g, v8_devtools *d, gch_error *err)
{
    size_t n = g->n;
    uint8_t *seen = gch_calloc(n ? n : 1, 1), *held = gch_calloc(n ? n : 1, 1);
    uint32_t *stack = gch_reallocarray(NULL, n ? n : 1, sizeof *stack);
    uint32_t *hung = gch_reallocarray(NULL, n ? n : 1, sizeof *hung);
    if (!seen || !held || !stack || !hung) {
        gch_free(seen);
        gch_free(held);
        gch_free(stack);
        gch_free(hung);
        return oom(err);
    }
    for (uint64_t e = 0; e < g->m; e++)
        if (BIT_GET(d->essential, e))
            held[g->eto[e]] = 1;
    size_t hn = 0;
    /* pass 0: from the root; 1: from each node without an essential
     * retainer; 2: every node still unreached, hung as it is */
    for (int pass = 0; pass < 3; pass++) {
        for (size_t v = 0; v < n; v++) {
            if (pass == 0 ? v != g->root : seen[v] || (pass == 1 && held[v]))
                continue;
            if (pass > 0)
                hung[hn++] = (uint32_t)v;
            seen[v] = 1;
            if (pass == 2)
                continue;
            size_t sp = 0;
            stack[sp++] = (uint32_t)v;
            while (sp) {
                size_t i = stack[--sp];
                for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
                    uint32_t t = g->eto[e];
                    if (seen[t] || !BIT_GET(d->essential, e))
                        continue;
                    seen[t] = 1;
                    stack[sp++] = t;
                }
            }
        }
    }
    gch_free(seen);
    gch_free(held);
    gch_free(stack);
    d->hung = hung;
    d->hung_n = hn;
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* calculateStatistics (:4518-4602), on the folded sizes. */
static gch_status statistics(const v8_graph *g, const uint8_t *flags, v8_devtools *d, gch_error *err)
{
    uint8_t *counted = NULL; /* 0, 1 or 2 (more) */
    if (!g->retainers) {
        if (!(counted = gch_calloc(g->n ? g->n : 1, 1)))
            return oom(err);
        for (uint64_t e = 0; e < g->m; e++)
            if (counted[g->eto[e]] < 2)
                counted[g->eto[e]]++;
    }
    const uint8_t *retainers = g->retainers ? g->retainers : counted;
    const uint64_t *size = d->size;
    /* sums in locals: d's fields would be stored again at each size read */
    uint64_t total = 0, sys = 0, native = g->extra_native_bytes, typed = 0, code = 0, strings = 0, arrays = 0;
    for (size_t i = 0; i < g->n; i++) {
        uint64_t sz = size[i];
        total += sz;
        switch (nrole(g, i)) {
        case NT_HIDDEN: sys += sz; break;
        case NT_NATIVE:
            native += sz;
            if (flags[i] & FL_ARRAY_BUFFER)
                typed += sz;
            break;
        case NT_CODE: code += sz; break;
        case NT_STRING:
        case NT_CONS_STRING:
        case NT_SLICED_STRING: strings += sz; break;
        default:
            if (flags[i] & FL_ARRAY) {
                uint64_t s = sz; /* calculateArraySize: its elements when only it retains them */
                for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
                    if (erole(g, e) != ET_INTERNAL || !(name_class(g, g->ename[e]) & EC_ELEMENTS))
                        continue;
                    if (retainers[g->eto[e]] == 1)
                        s += size[g->eto[e]];
                    break;
                }
                arrays += s;
            }
        }
    }
    d->st_total = total + g->extra_native_bytes;
    d->st_native = native;
    d->st_system = sys;
    d->st_typed_arrays = typed;
    d->st_code = code;
    d->st_strings = strings;
    d->st_js_arrays = arrays;
    gch_free(counted);
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */

void v8_devtools_free(v8_devtools *d)
{
    gch_free(d->cls);
    gch_str_table_free(&d->names);
    gch_free(d->distance);
    gch_free(d->essential);
    gch_free(d->hung);
    gch_free(d->det);
    memset(d, 0, sizeof *d);
}

/* calculateObjectNames: a class depends on the type, and for objects,
 * natives and synthetic nodes on the name: one lookup per distinct name
 * (not per node). */
static gch_status classes(const v8_graph *g, const uint8_t *det, v8_devtools *d, gch_error *err)
{
    gch_status st = GCH_OK;
    gch_u64_map by_name_map = { 0 };
    text t = { 0 }, dn = { 0 };
    uint32_t by_type[256];
    for (size_t k = 0; k < 256; k++)
        by_type[k] = GCH_NONE;
    uint32_t last_name = GCH_NONE, last_cls = GCH_NONE; /* objects of one class often come in a row */
    for (size_t i = 0; i < g->n; i++) {
        uint8_t role = nrole(g, i);
        int named = role == NT_OBJECT || role == NT_NATIVE;
        int renamed = g->has_det && det[i] == 2 && role == NT_NATIVE; /* Detached ... */
        uint32_t *memo = renamed || named || role == NT_SYNTHETIC ? NULL : &by_type[g->type[i]];
        if (memo && *memo != GCH_NONE) {
            d->cls[i] = *memo;
            continue;
        }
        int by_name = named && !renamed;
        if (by_name) {
            uint32_t c = g->name[i] == last_name ? last_cls : gch_u64_map_get(&by_name_map, g->name[i]);
            if (c != GCH_NONE) {
                d->cls[i] = c;
                last_name = g->name[i];
                last_cls = c;
                continue;
            }
        }
        const char *name = raw_name(g, i);
        dn.len = 0;
        int found;
        if ((renamed && (!text_add(&dn, "Detached ", 9) || !text_add(&dn, name, strlen(name)))) ||
            !class_name(g, i, renamed ? dn.s : name, &t) ||
            (d->cls[i] = name_id(&d->names, t.s, t.len)) == GCH_NONE ||
            (by_name && !gch_u64_map_put(&by_name_map, g->name[i], d->cls[i], &found))) {
            st = oom(err);
            break;
        }
        if (memo)
            *memo = d->cls[i];
    }
    gch_u64_map_free(&by_name_map);
    gch_free(t.s);
    gch_free(dn.s);
    return st;
}

/* The steps after the node flags (and, with references, the WeakMap
 * names), in groups that share only what they read (the graph, the flags,
 * the DOM states, the WeakMap names) and write apart: the sizes (shallow
 * sizes, then the Statistics on them: d->size, d->st_*), the classes
 * (names, then interfaces: d->cls, d->names) and, with references, the
 * dominators' (page-owned nodes, essential edges, hanging: page,
 * d->essential, d->hung) and the distances (d->distance). Two threads take
 * them, when the graph is worth it: each group keeps DevTools' order
 * within, and no group reads what another writes. */
enum { PART_SIZES = 1, PART_CLASSES = 2, PART_REFS = 4, PART_DIST = 8 };

typedef struct run_part {
    const v8_graph *g;
    v8_devtools *d;
    const uint8_t *flags, *det;
    uint8_t *page;
    weakmaps *w;
    unsigned parts;
    int wide;      /* a folded size passed 2^32 - 1 */
    gch_status st;
    gch_error err; /* each thread its own */
} run_part;

static gch_status refs_part(run_part *p)
{
    const v8_graph *g = p->g;
    v8_devtools *d = p->d;
    gch_status st;
    if ((st = mark_page_owned(g, p->page, &p->err)) != GCH_OK)
        return st;
    essential_edges(g, p->page, p->w, d->essential);
    return hang(g, d, &p->err);
}

static int run_part_fn(void *arg)
{
    run_part *p = arg;
    p->st = GCH_OK;
    if (p->parts & PART_REFS)
        p->st = refs_part(p);
    if (p->st == GCH_OK && (p->parts & PART_DIST))
        p->st = distances(p->g, p->w, p->flags, p->d->distance, &p->err);
    if (p->st == GCH_OK && (p->parts & PART_SIZES) && (p->st = shallow_sizes(p->g, p->flags, p->d, &p->wide, &p->err)) == GCH_OK)
        p->st = statistics(p->g, p->flags, p->d, &p->err);
    if (p->st == GCH_OK && (p->parts & PART_CLASSES) && (p->st = classes(p->g, p->det, p->d, &p->err)) == GCH_OK)
        p->st = interfaces(p->g, p->flags, p->d, &p->d->names, &p->err);
    return 0;
}

gch_status v8_devtools_run(const v8_graph *g, v8_devtools *d, gch_error *err)
{
    memset(d, 0, sizeof *d);
    gch_str_table_init(&d->names);
    size_t n = g->n;
    gch_status st = GCH_OK;
    uint8_t *det = gch_reallocarray(NULL, n ? n : 1, 1), *page = g->no_refs ? NULL : gch_calloc(n ? n : 1, 1);
    uint8_t *flags = gch_reallocarray(NULL, n ? n : 1, 1), *memo = NULL;
    uint32_t max_name = 0;
    int any_det = 0; /* some node has a DOM state (propagation only spreads them) */
    weakmaps w = { 0 };
    d->cls = gch_reallocarray(NULL, n ? n : 1, sizeof *d->cls);
    if (!g->no_refs) {
        d->distance = gch_reallocarray(NULL, n ? n : 1, sizeof *d->distance);
        d->essential = gch_calloc(g->m / 8 + 1, 1);
    }
    if (!det || !flags || !d->cls || (!g->no_refs && (!page || !d->distance || !d->essential))) {
        st = oom(err);
        goto done;
    }
    /* initDetachednessAndClassIndex (:3029-3050): without the field, natives
     * named "Detached ..." are detached; with it, propagateDOMState. */
    for (size_t i = 0; i < n; i++) {
        det[i] = g->has_det ? g->det[i] : 0;
        if (!g->has_det && nrole(g, i) == NT_NATIVE && strncmp(raw_name(g, i), "Detached ", 9) == 0)
            det[i] = 2;
        any_det |= det[i] != 0;
        if (g->name[i] >= max_name)
            max_name = g->name[i] + 1;
    }
    if (g->has_det && any_det && (st = propagate_dom_state(g, det, err)) != GCH_OK)
        goto done;
    /* natives that end detached are named "Detached NAME" (with the field) */
    if (!(memo = gch_calloc(max_name ? max_name : 1, 1))) {
        st = oom(err);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        int renamed = g->has_det && det[i] == 2 && nrole(g, i) == NT_NATIVE;
        d->detached += renamed;
        flags[i] = node_flags(g, i, memo, renamed);
    }
    gch_free(memo);
    memo = NULL;
    /* With references the dominators' steps on this thread, the distances,
     * sizes and classes on the other; without, the classes here, the sizes
     * there. */
    if (!g->no_refs && (st = weakmaps_init(g, &w, err)) != GCH_OK)
        goto done;
    run_part mine = { g, d, flags, det, page, &w, g->no_refs ? PART_CLASSES : PART_REFS, 0, GCH_OK, { 0 } };
    run_part other = mine;
    other.parts = g->no_refs ? PART_SIZES : PART_DIST | PART_SIZES | PART_CLASSES;
    gch_run_two(g->par.workers, gch_parallel_worth(&g->par, g->m), run_part_fn, &mine, &other);
    if ((st = mine.st) != GCH_OK || (st = other.st) != GCH_OK) {
        *err = mine.st != GCH_OK ? mine.err : other.err;
        goto done;
    }
    for (size_t i = 0; other.wide && i < n; i++)
        d->size[i] = (uint32_t)d->size[i]; /* a folded size past 2^32 - 1 (the heap's 32 bits) */
done:
    weakmaps_free(&w);
    if (st == GCH_OK && any_det) { /* kept for the detached-dom rule when some node has a DOM state */
        d->det = det;
        det = NULL;
    }
    gch_free(det);
    gch_free(page);
    gch_free(flags);
    gch_free(memo);
    if (st != GCH_OK)
        v8_devtools_free(d);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Onto the finished heap. */

static gch_status retype(const v8_devtools *d, gch_heap *h, gch_error *err)
{
    uint32_t nt = (uint32_t)d->names.n;
    size_t add = 0;
    for (uint32_t k = 0; k < nt; k++)
        add += strlen(gch_str_table_text(&d->names, k)) + 1;
    if (h->strings_size + add >= UINT32_MAX)
        return gch_error_set(err, GCH_ELIMIT, "type names past 4 GiB");
    char *pool = gch_realloc(h->strings, h->strings_size + add);
    if (!pool)
        return oom(err);
    h->strings = pool;
    uint32_t *name = gch_reallocarray(NULL, nt ? nt : 1, sizeof *name);
    uint32_t *module = gch_reallocarray(NULL, nt ? nt : 1, sizeof *module);
    uint64_t *raw = gch_reallocarray(NULL, nt ? nt : 1, sizeof *raw);
    uint8_t *declared = gch_reallocarray(NULL, nt ? nt : 1, 1);
    uint32_t *objects = gch_calloc(nt ? nt : 1, sizeof *objects);
    uint64_t *bytes = gch_calloc(nt ? nt : 1, sizeof *bytes);
    uint32_t *holding = gch_calloc(nt ? nt : 1, sizeof *holding);
    if (!name || !module || !raw || !declared || !objects || !bytes || !holding) {
        gch_free(name);
        gch_free(module);
        gch_free(raw);
        gch_free(declared);
        gch_free(objects);
        gch_free(bytes);
        gch_free(holding);
        return oom(err);
    }
    for (uint32_t k = 0; k < nt; k++) {
        const char *nm = gch_str_table_text(&d->names, k);
        size_t len = strlen(nm) + 1; /* a name with a NUL in it ends there, as it reads */
        name[k] = (uint32_t)h->strings_size;
        memcpy(h->strings + h->strings_size, nm, len);
        h->strings_size += len;
        module[k] = GCH_NONE;
        raw[k] = k;
        declared[k] = 1;
    }
    for (uint32_t o = 0; o < h->object_count; o++) {
        uint32_t c = d->cls[o];
        h->object_type[o] = c;
        holding[c] = 1;
        objects[c]++;
        bytes[c] += gch_object_size(h, o);
    }
    uint32_t reported = 0;
    for (uint32_t k = 0; k < nt; k++)
        reported += holding[k];
    gch_free(holding);
    gch_heap_free_types(h);
    h->type_name = name;
    h->type_module = module;
    h->type_raw_id = raw;
    h->type_declared = declared;
    h->type_objects = objects;
    h->type_bytes = bytes;
    h->type_count = nt;
    h->reported_types = h->reported_declared_types = reported;
    return GCH_OK;
}

/* Whether the reader gave edge e of node i to the builder (its rule before
 * this pass: not weak, and a shortcut only from the root). */
static int given(const v8_graph *g, size_t i, uint64_t e)
{
    uint8_t role = erole(g, e);
    return role != ET_WEAK && (role != ET_SHORTCUT || i == g->root);
}

static gch_status rewire(const v8_devtools *d, const v8_graph *g, gch_heap *h, uint32_t hung_label, gch_error *err)
{
    uint64_t cap = h->ref_count + d->hung_n;
    if (cap >= UINT32_MAX)
        return gch_error_set(err, GCH_ELIMIT, "more than 2^32-1 references");
    uint32_t *start = gch_reallocarray(NULL, (size_t)h->object_count + 1, sizeof *start);
    uint32_t *target = gch_reallocarray(NULL, cap ? cap : 1, sizeof *target);
    uint32_t *label = h->out_label ? gch_reallocarray(NULL, cap ? cap : 1, sizeof *label) : NULL;
    if (!start || !target || (h->out_label && !label)) {
        gch_free(start);
        gch_free(target);
        gch_free(label);
        return oom(err);
    }
    uint64_t w = 0;
    for (size_t i = 0; i < g->n; i++) {
        start[i] = (uint32_t)w;
        uint64_t k = h->out_start[i];
        for (uint64_t e = g->estart[i]; e < g->estart[i + 1]; e++) {
            if (!given(g, i, e))
                continue;
            if (k >= h->out_start[i + 1] || h->out_target[k] != g->eto[e])
                break; /* not the reader's references: left as they are below */
            if (BIT_GET(d->essential, e)) {
                target[w] = h->out_target[k];
                if (label)
                    label[w] = h->out_label[k];
                w++;
            }
            k++;
        }
        if (k != h->out_start[i + 1]) {
            gch_free(start);
            gch_free(target);
            gch_free(label);
            return gch_error_set(err, GCH_EINVAL, "V8 reader: node %zu: the heap's references are not its edges", i);
        }
        if (i == g->root) {
            for (size_t j = 0; j < d->hung_n; j++) {
                target[w] = d->hung[j];
                if (label)
                    label[w] = hung_label;
                w++;
            }
        }
    }
    start[g->n] = (uint32_t)w;
    gch_free(h->out_start);
    gch_free(h->out_target);
    gch_free(h->out_label);
    h->out_start = start;
    h->out_target = target;
    h->out_label = label;
    h->ref_count = w;
    return GCH_OK;
}

gch_status v8_devtools_apply(v8_devtools *d, const v8_graph *g, gch_heap *h, gch_error *err)
{
    if (h->object_count != g->n)
        return GCH_OK; /* duplicate ids (not V8's output): the graph stays as written */
    if (d->folded && !d->sizes_given)
        for (size_t i = 0; i < g->n; i++)
            h->object_size32[i] = (uint32_t)d->size[i]; /* below 2^32 - 1: shallow_sizes checked */
    gch_status st = retype(d, h, err);
    if (st == GCH_OK && h->refs_loaded && !d->refs_given) {
        static const char hung_name[] = "(no strong retainer)";
        uint32_t off = GCH_NONE;
        if (h->out_label) {
            char *pool = gch_realloc(h->strings, h->strings_size + sizeof hung_name);
            if (!pool)
                return oom(err);
            h->strings = pool;
            off = (uint32_t)h->strings_size;
            memcpy(pool + off, hung_name, sizeof hung_name);
            h->strings_size += sizeof hung_name;
        }
        st = rewire(d, g, h, off, err);
    }
    if (st == GCH_OK) {
        if (!(h->v8_pseudo = gch_calloc(g->n ? g->n : 1, 1)))
            return oom(err);
        for (size_t i = 0; i < g->n; i++)
            h->v8_pseudo[i] = nrole(g, i) == NT_SYNTHETIC && gch_object_size(h, (uint32_t)i) == 0;
        h->v8_distance = d->distance;
        d->distance = NULL;
        h->v8_detachedness = d->det;
        d->det = NULL;
    }
    return st;
}
