/* Shortest paths from the roots: see include/gcheap/paths.h and
 * docs/graph-algorithms.md. Every traversal is an iterative BFS with an
 * explicit queue. */
#include "gcheap/paths.h"

#include <string.h>

#include "gcheap/alloc.h"
#include "graph_internal.h"
#include "search.h"
#include "hash.h"

/* ---------------------------------------------------------------- BFS tree */

void gch_paths_free(gch_paths *p)
{
    if (!p)
        return;
    gch_free(p->parent);
    gch_free(p->root_objects);
    gch_free(p->root_records);
    memset(p, 0, sizeof *p);
}

uint32_t gch_paths_root_record(const gch_paths *p, uint32_t object)
{
    size_t lo = GCH_LOWER_BOUND(p->root_objects, 0, p->root_object_count, object);
    return lo < p->root_object_count && p->root_objects[lo] == object ? p->root_records[lo]
                                                                        : GCH_NONE;
}

gch_status gch_paths_build(const gch_heap *heap, int include_weak, gch_paths *out,
                           gch_error *err)
{
    gch_paths_options opts = { include_weak, NULL, NULL, NULL, NULL };
    return gch_paths_build_ex(heap, &opts, out, err);
}

/* How far ahead of the object it expands the BFS prefetches: the reference
 * range of queue[head + AHEAD], the parents of queue[head + AHEAD / 2]'s
 * targets (random reads that would otherwise each wait for memory). */
enum { AHEAD = 16 };

static void prefetch_targets(const gch_heap *heap, const uint32_t *parent, uint32_t o)
{
    for (uint32_t e = heap->out_start[o], end = heap->out_start[o + 1]; e < end; e++)
        __builtin_prefetch(&parent[heap->out_target[e]]);
}

/* The BFS of gch_paths_build_ex from the objects in queue[*head .. *tail-1]:
 * every object it reaches gets its parent (and its depth, when depth is not
 * NULL) and joins the queue. */
static void bfs_tree(const gch_heap *heap, const gch_paths_options *opts, uint32_t *parent,
                     uint32_t *depth, uint32_t *queue, uint32_t *head_io, uint32_t *tail_io)
{
    const uint32_t n = heap->object_count;
    uint32_t head = *head_io, tail = *tail_io;
    while (head < tail) {
        if (head + AHEAD < tail)
            __builtin_prefetch(&heap->out_start[queue[head + AHEAD]]);
        if (head + AHEAD / 2 < tail)
            prefetch_targets(heap, parent, queue[head + AHEAD / 2]);
        uint32_t o = queue[head++];
        if (opts->progress && (head & 0xfffff) == 0)
            opts->progress(opts->progress_ctx, (unsigned)((uint64_t)tail * 100 / n));
        uint32_t d = depth ? depth[o] + 1 : 0;
        for (uint32_t e = heap->out_start[o]; e < heap->out_start[o + 1]; e++) {
            uint32_t t = heap->out_target[e];
            if (parent[t] == GCH_NONE) {
                parent[t] = o;
                if (depth)
                    depth[t] = d;
                queue[tail++] = t;
            }
        }
    }
    *head_io = head;
    *tail_io = tail;
}

/* The distances from the roots, from the tree's depths in dist (see
 * gch_paths_options.dist). The depths are the distances from the first
 * tier's roots where that tier reached, and exact for what only the second
 * tier (the stack roots) reaches, queue[tier1 .. tail-1] in BFS order: nothing
 * else reaches those. So what is left is what the second tier brings closer
 * among the first tier's objects: a BFS that lowers a distance only when it
 * drops, taking objects in nondecreasing distance from two lists, the second
 * tier's objects (already in that order) and its own queue in
 * queue[0 .. tier1-1] (no longer needed), where the stack roots the first tier
 * reached go first at 0. An object's first lowering is then its last, so
 * each of the first tier's objects enters the queue at most once: it fits. */
static void stack_roots_nearer(const gch_heap *heap, int include_weak, uint32_t *dist,
                               uint32_t *queue, uint32_t tier1, uint32_t tail)
{
    uint32_t qh = 0, qt = 0, sh = tier1;
    for (uint32_t r = 0; r < heap->root_count; r++) {
        uint32_t o = heap->root_object[r];
        if (gch__root_counts(heap, r, include_weak) && gch__root_tier(heap, r) == 1 && dist[o]) {
            dist[o] = 0;
            queue[qt++] = o;
        }
    }
    while (qh < qt || sh < tail) {
        uint32_t o = sh < tail && (qh == qt || dist[queue[sh]] <= dist[queue[qh]]) ? queue[sh++]
                                                                                 : queue[qh++];
        uint32_t d = dist[o] + 1;
        for (uint32_t e = heap->out_start[o]; e < heap->out_start[o + 1]; e++) {
            uint32_t t = heap->out_target[e];
            if (dist[t] > d) {
                dist[t] = d;
                queue[qt++] = t;
            }
        }
    }
}

gch_status gch_paths_build_ex(const gch_heap *heap, const gch_paths_options *opts, gch_paths *out,
                              gch_error *err)
{
    const int include_weak = opts->include_weak;
    memset(out, 0, sizeof *out);
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL, "paths need references, which were not loaded");
    const uint32_t n = heap->object_count;
    uint32_t *parent = gch_reallocarray(NULL, n ? n : 1, sizeof *parent);
    uint32_t *queue = gch_reallocarray(NULL, n ? n : 1, sizeof *queue);
    /* The depths, when asked for, go where the distances will be. */
    uint32_t *depth = opts->dist;
    if (!depth && opts->depth8)
        depth = gch_reallocarray(NULL, n ? n : 1, sizeof *depth);
    if (!parent || !queue || (opts->depth8 && !depth))
        goto nomem;
    for (uint32_t o = 0; o < n; o++)
        parent[o] = GCH_NONE;

    /* Root objects: mark them, and remember each one's first record in queue[o]
     * (queue is not in use yet): its first record of the first tier (a
     * record that is no stack root, else a stack root). */
    uint32_t roots = 0;
    for (int tier = 0; tier < 2; tier++)
        for (uint32_t r = 0; r < heap->root_count; r++) {
            if (!gch__root_counts(heap, r, include_weak) || gch__root_tier(heap, r) != tier)
                continue;
            uint32_t o = heap->root_object[r];
            if (parent[o] == GCH_NONE) {
                parent[o] = GCH_PATH_ROOT;
                queue[o] = r;
                roots++;
            }
        }
    out->root_objects = gch_reallocarray(NULL, roots ? roots : 1, sizeof *out->root_objects);
    out->root_records = gch_reallocarray(NULL, roots ? roots : 1, sizeof *out->root_records);
    if (!out->root_objects || !out->root_records)
        goto nomem;
    out->root_object_count = roots;
    {
        uint32_t k = 0;
        for (uint32_t o = 0; o < n && k < roots; o++)
            if (parent[o] == GCH_PATH_ROOT) {
                out->root_objects[k] = o;
                out->root_records[k++] = queue[o];
            }
    }

    /* Multi-source BFS in two tiers (gch__root_tier): the roots that are no
     * stack roots in record order, to the end; then the stack roots that
     * nothing reached. A stack root object reached in the first tier gets
     * the first tier's path. */
    for (uint32_t k = 0; k < roots; k++)
        parent[out->root_objects[k]] = GCH_NONE;
    if (depth)
        for (uint32_t o = 0; o < n; o++)
            depth[o] = GCH_NONE;
    uint32_t head = 0, tail = 0, tier1 = 0;
    for (int tier = 0; tier < 2; tier++) {
        tier1 = tail;
        for (uint32_t r = 0; r < heap->root_count; r++) {
            uint32_t o = heap->root_object[r];
            if (gch__root_counts(heap, r, include_weak) && gch__root_tier(heap, r) == tier &&
                parent[o] == GCH_NONE) {
                parent[o] = GCH_PATH_ROOT;
                if (depth)
                    depth[o] = 0;
                queue[tail++] = o;
            }
        }
        bfs_tree(heap, opts, parent, depth, queue, &head, &tail);
    }
    if (opts->depth8)
        for (uint32_t o = 0; o < n; o++)
            opts->depth8[o] = (uint8_t)(depth[o] < 255 ? depth[o] : 255);
    if (opts->dist)
        stack_roots_nearer(heap, include_weak, depth, queue, tier1, tail);
    else
        gch_free(depth);
    if (opts->progress)
        opts->progress(opts->progress_ctx, 100);
    gch_free(queue);
    out->object_count = n;
    out->parent = parent;
    return GCH_OK;

nomem:
    gch_free(parent);
    gch_free(queue);
    if (!opts->dist)
        gch_free(depth);
    gch_paths_free(out);
    return gch_error_set(err, GCH_ENOMEM, "out of memory computing paths to roots");
}

uint32_t gch_paths_depth(const gch_paths *p, uint32_t object)
{
    if (object >= p->object_count || p->parent[object] == GCH_NONE)
        return GCH_NONE;
    uint32_t d = 0;
    for (uint32_t x = object; p->parent[x] != GCH_PATH_ROOT; x = p->parent[x])
        d++;
    return d;
}

/* ---------------------------------------------------------------- distances */

/* Breadth-first from the tail objects already in queue (at distance dist[]),
 * along the lists next[start[o] .. start[o+1]-1]: every object reached gets
 * its distance in dist[] (GCH_NONE: not reached yet). BFS visits objects in
 * order of distance, so each is final when queued. */
static void bfs_distances(const uint32_t *start, const uint32_t *next, uint32_t *dist, uint32_t *queue,
                          uint32_t tail)
{
    uint32_t head = 0;
    while (head < tail) {
        uint32_t o = queue[head++];
        for (uint32_t e = start[o]; e < start[o + 1]; e++) {
            uint32_t t = next[e];
            if (dist[t] == GCH_NONE) {
                dist[t] = dist[o] + 1;
                queue[tail++] = t;
            }
        }
    }
}

gch_status gch_root_distance(const gch_heap *heap, int include_weak, uint32_t **dist_out,
                             gch_error *err)
{
    *dist_out = NULL;
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL, "distances need references, which were not loaded");
    const uint32_t n = heap->object_count;
    uint32_t *dist = gch_reallocarray(NULL, n ? n : 1, sizeof *dist);
    uint32_t *queue = gch_reallocarray(NULL, n ? n : 1, sizeof *queue);
    if (!dist || !queue) {
        gch_free(dist);
        gch_free(queue);
        return gch_error_set(err, GCH_ENOMEM, "out of memory computing distances from roots");
    }
    for (uint32_t o = 0; o < n; o++)
        dist[o] = GCH_NONE;
    uint32_t tail = 0;
    for (uint32_t r = 0; r < heap->root_count; r++) {
        if (!gch__root_counts(heap, r, include_weak))
            continue;
        uint32_t o = heap->root_object[r];
        if (dist[o] == GCH_NONE) {
            dist[o] = 0;
            queue[tail++] = o;
        }
    }
    bfs_distances(heap->out_start, heap->out_target, dist, queue, tail);
    gch_free(queue);
    *dist_out = dist;
    return GCH_OK;
}

/* ---------------------------------------------------------------- path sets */

void gch_path_set_free(gch_path_set *s)
{
    if (!s)
        return;
    gch_free(s->start);
    gch_free(s->objects);
    gch_free(s->root_record);
    memset(s, 0, sizeof *s);
}

/* Allocates a set of count paths holding total objects in all. */
static int path_set_alloc(gch_path_set *s, size_t count, size_t total)
{
    s->start = gch_reallocarray(NULL, count + 1, sizeof *s->start);
    s->objects = gch_reallocarray(NULL, total ? total : 1, sizeof *s->objects);
    s->root_record = gch_reallocarray(NULL, count ? count : 1, sizeof *s->root_record);
    if (!s->start || !s->objects || !s->root_record) {
        gch_path_set_free(s);
        return 0;
    }
    s->count = count;
    s->start[0] = 0;
    return 1;
}

uint32_t gch__paths_bounded_depth(const gch_paths *p, uint32_t x)
{
    if (x >= p->object_count || p->parent[x] == GCH_NONE)
        return GCH_NONE;
    for (uint32_t d = 0;; d++) {
        uint32_t q = p->parent[x];
        if (q == GCH_PATH_ROOT)
            return d;
        if (q >= p->object_count || d + 1 >= p->object_count)
            return GCH_NONE;
        x = q;
    }
}

gch_status gch_paths_path(const gch_paths *p, uint32_t object, gch_path_set *out,
                          gch_error *err)
{
    memset(out, 0, sizeof *out);
    if (object >= p->object_count)
        return gch_error_set(err, GCH_EINVAL, "object index %u out of range", (unsigned)object);
    uint32_t depth = gch_paths_depth(p, object);
    if (depth == GCH_NONE)
        return GCH_OK;
    size_t len = (size_t)depth + 1;
    if (!path_set_alloc(out, 1, len))
        return gch_error_set(err, GCH_ENOMEM, "out of memory listing a path");
    size_t k = len;
    uint32_t x = object;
    for (;;) {
        out->objects[--k] = x;
        if (p->parent[x] == GCH_PATH_ROOT)
            break;
        x = p->parent[x];
    }
    out->start[1] = len;
    out->root_record[0] = gch_paths_root_record(p, x);
    return GCH_OK;
}

/* ---------------------------------------------------------------- --all */

typedef struct candidate_order {
    const uint32_t *dist;    /* per object: distance to the target */
    const uint32_t *object;  /* per candidate */
    const uint32_t *record;  /* per candidate */
} candidate_order;

/* Shorter first, then lower root record index. */
static int candidate_before(const void *ctx, uint32_t a, uint32_t b)
{
    const candidate_order *c = ctx;
    uint32_t da = c->dist[c->object[a]], db = c->dist[c->object[b]];
    if (da != db)
        return da < db;
    return c->record[a] < c->record[b];
}

/* The distinct root objects from which target is reachable (dist[o] known),
 * in root record order, each with its first counting record: stored in
 * object[] and record[] when those are given; returns how many. seen (a bit
 * per object, all clear) is left set for the objects found. */
static uint32_t reaching_roots(const gch_heap *heap, int include_weak, const uint32_t *dist,
                               uint8_t *seen, uint32_t *object, uint32_t *record)
{
    uint32_t k = 0;
    for (uint32_t r = 0; r < heap->root_count; r++) {
        if (!gch__root_counts(heap, r, include_weak))
            continue;
        uint32_t o = heap->root_object[r];
        if (dist[o] != GCH_NONE && !gch__bit_get(seen, o)) {
            gch__bit_set(seen, o);
            if (object) {
                object[k] = o;
                record[k] = r;
            }
            k++;
        }
    }
    return k;
}

gch_status gch_paths_all(const gch_heap *heap, int include_weak, uint32_t target,
                         size_t max_paths, gch_path_set *out, gch_error *err)
{
    memset(out, 0, sizeof *out);
    const uint32_t n = heap->object_count;
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL, "paths need references, which were not loaded");
    if (!heap->in_start || !heap->in_source)
        return gch_error_set(err, GCH_EINVAL, "paths from every root need reverse references");
    if (target >= n)
        return gch_error_set(err, GCH_EINVAL, "object index %u out of range", (unsigned)target);

    uint32_t *dist = gch_reallocarray(NULL, n, sizeof *dist);
    uint32_t *queue = gch_reallocarray(NULL, n, sizeof *queue);
    uint8_t *seen = NULL;
    uint32_t *cobj = NULL, *crec = NULL, *order = NULL;
    if (!dist || !queue)
        goto nomem;

    /* Backward BFS: dist[v] = number of references from v to target. */
    for (uint32_t o = 0; o < n; o++)
        dist[o] = GCH_NONE;
    dist[target] = 0;
    queue[0] = target;
    bfs_distances(heap->in_start, heap->in_source, dist, queue, 1);
    gch_free(queue);
    queue = NULL;

    /* Distinct root objects that reach target, each with its first record:
     * counted, then listed. */
    seen = gch_calloc(((size_t)n + 7) / 8, 1);
    if (!seen)
        goto nomem;
    uint32_t cand = reaching_roots(heap, include_weak, dist, seen, NULL, NULL);
    if (cand == 0 || max_paths == 0)
        goto done;
    cobj = gch_reallocarray(NULL, cand, sizeof *cobj);
    crec = gch_reallocarray(NULL, cand, sizeof *crec);
    order = gch_reallocarray(NULL, cand, sizeof *order);
    if (!cobj || !crec || !order)
        goto nomem;
    memset(seen, 0, ((size_t)n + 7) / 8);
    reaching_roots(heap, include_weak, dist, seen, cobj, crec);
    for (uint32_t k = 0; k < cand; k++)
        order[k] = k;
    candidate_order co = { dist, cobj, crec };
    gch__sort_u32(order, cand, candidate_before, &co);

    size_t count = cand < max_paths ? cand : max_paths;
    size_t total = 0;
    for (size_t k = 0; k < count; k++)
        total += (size_t)dist[cobj[order[k]]] + 1;
    if (!path_set_alloc(out, count, total))
        goto nomem;
    /* Forward walk from each root: step to the first successor one closer. */
    size_t w = 0;
    for (size_t k = 0; k < count; k++) {
        uint32_t x = cobj[order[k]];
        out->root_record[k] = crec[order[k]];
        out->objects[w++] = x;
        while (dist[x]) {
            uint32_t e = heap->out_start[x];
            while (dist[heap->out_target[e]] != dist[x] - 1)
                e++;
            x = heap->out_target[e];
            out->objects[w++] = x;
        }
        out->start[k + 1] = w;
    }

done:
    gch_free(dist);
    gch_free(seen);
    gch_free(cobj);
    gch_free(crec);
    gch_free(order);
    return GCH_OK;

nomem:
    gch_free(dist);
    gch_free(queue);
    gch_free(seen);
    gch_free(cobj);
    gch_free(crec);
    gch_free(order);
    gch_path_set_free(out);
    return gch_error_set(err, GCH_ENOMEM, "out of memory computing paths to roots");
}

/* ---------------------------------------------------------------- merged */

void gch_merged_paths_free(gch_merged_paths *m)
{
    if (!m)
        return;
    gch_free(m->nodes);
    gch_free(m->child_start);
    gch_free(m->children);
    memset(m, 0, sizeof *m);
}

typedef struct merge_state {
    gch_merged_node *nodes;
    size_t count, cap;
    uint32_t *table;  /* node indices, GCH_NONE = empty; capacity a power of 2 */
    size_t table_cap;
    gch_hash_key key; /* the graph's shape comes from the input: see hash.h */
} merge_state;

static uint64_t node_hash(const merge_state *s, uint32_t parent, uint32_t type, uint8_t kind)
{
    return gch_hash_u64(((uint64_t)parent << 32) ^ type ^ ((uint64_t)kind << 56), &s->key);
}

static uint64_t node_hash_of(const void *ctx, uint32_t k)
{
    const merge_state *s = ctx;
    const gch_merged_node *nd = &s->nodes[k];
    return node_hash(s, nd->parent, nd->type, nd->root_kind);
}

/* The node (parent, type, kind), created if absent; GCH_NONE when out of memory. */
static uint32_t node_get(merge_state *s, uint32_t parent, uint32_t type, uint8_t kind)
{
    if (gch_table_grows(s->count, s->table_cap) &&
        !gch_table_grow(&s->table, &s->table_cap, 64, (uint32_t)s->count, 0, node_hash_of, s))
        return GCH_NONE;
    size_t mask = s->table_cap - 1;
    size_t i = node_hash(s, parent, type, kind) & mask;
    while (s->table[i] != GCH_NONE) {
        const gch_merged_node *nd = &s->nodes[s->table[i]];
        if (nd->parent == parent && nd->type == type && nd->root_kind == kind)
            return s->table[i];
        i = (i + 1) & mask;
    }
    if (s->count == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 64;
        gch_merged_node *nn = gch_reallocarray(s->nodes, ncap, sizeof *nn);
        if (!nn)
            return GCH_NONE;
        s->nodes = nn;
        s->cap = ncap;
    }
    gch_merged_node *nd = &s->nodes[s->count];
    memset(nd, 0, sizeof *nd);
    nd->parent = parent;
    nd->type = type;
    nd->root_kind = kind;
    s->table[i] = (uint32_t)s->count;
    return (uint32_t)s->count++;
}

/* More paths first, then lower node index. */
static int merged_before(const void *ctx, uint32_t a, uint32_t b)
{
    const gch_merged_node *nodes = ctx;
    if (nodes[a].paths != nodes[b].paths)
        return nodes[a].paths > nodes[b].paths;
    return a < b;
}

int gch__index_label(const char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        s++;
        n -= 2;
    }
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

enum { FIELD_UNSET, FIELD_SAME, FIELD_INDEXES, FIELD_MIXED };

/* Joins the label of one more object's reference into node nd. */
static void join_field(const gch_heap *heap, gch_merged_node *nd, uint8_t *state, uint32_t label)
{
    const char *l = label != GCH_NONE ? gch_heap_string(heap, label) : "";
    switch (*state) {
    case FIELD_UNSET:
        *state = *l ? FIELD_SAME : FIELD_MIXED;
        nd->field = *l ? label : GCH_NONE;
        return;
    case FIELD_SAME:
        if (label == nd->field || strcmp(l, gch_heap_string(heap, nd->field)) == 0)
            return;
        *state = *l && gch__index_label(l) && gch__index_label(gch_heap_string(heap, nd->field))
                     ? FIELD_INDEXES : FIELD_MIXED;
        break;
    case FIELD_INDEXES:
        if (!*l || !gch__index_label(l))
            *state = FIELD_MIXED;
        break;
    default:
        break;
    }
    nd->field = GCH_NONE;
    nd->field_indexes = *state == FIELD_INDEXES;
}

/* Whether root records a and b have the same holder (container and label). */
static int same_holder(const gch_heap *heap, uint32_t a, uint32_t b)
{
    uint32_t ca = heap->root_container ? heap->root_container[a] : GCH_NONE;
    uint32_t cb = heap->root_container ? heap->root_container[b] : GCH_NONE;
    uint32_t la = heap->root_label ? heap->root_label[a] : GCH_NONE;
    uint32_t lb = heap->root_label ? heap->root_label[b] : GCH_NONE;
    if (ca != cb)
        return 0;
    if (la == lb)
        return 1;
    return la != GCH_NONE && lb != GCH_NONE &&
           strcmp(gch_heap_string(heap, la), gch_heap_string(heap, lb)) == 0;
}

/* The words of every node: the field of the references into it (each
 * object's first reference from its BFS parent, as gch_ref_label gives it)
 * and, for top nodes, the roots' holder. Every object on the merged paths
 * reads its own references once: O(their references), not a search per
 * step. seen: a zeroed bit per object. */
static int label_nodes(const gch_heap *heap, const gch_paths *paths, const uint32_t *node_of,
                       gch_merged_node *nodes, size_t count, uint8_t *seen)
{
    uint8_t *state = gch_calloc(count ? count : 1, 1);
    uint8_t *holder_set = gch_calloc(count ? count : 1, 1);
    if (!state || !holder_set) {
        gch_free(state);
        gch_free(holder_set);
        return 0;
    }
    for (size_t k = 0; k < count; k++) {
        nodes[k].field = GCH_NONE;
        nodes[k].root_record = GCH_NONE;
    }
    const uint32_t n = heap->object_count;
    for (uint32_t u = 0; u < n && heap->out_start; u++) {
        uint32_t nd = node_of[u];
        if (nd == GCH_NONE)
            continue;
        if (paths->parent[u] == GCH_PATH_ROOT) {
            uint32_t rec = gch_paths_root_record(paths, u);
            if (!holder_set[nd]) {
                holder_set[nd] = 1;
                nodes[nd].root_record = rec;
            } else if (nodes[nd].root_record != GCH_NONE &&
                       (rec == GCH_NONE || !same_holder(heap, nodes[nd].root_record, rec))) {
                nodes[nd].root_record = GCH_NONE;
            }
        }
        for (uint32_t e = heap->out_start[u]; e < heap->out_start[u + 1]; e++) {
            uint32_t v = heap->out_target[e];
            if (v >= n || paths->parent[v] != u || node_of[v] == GCH_NONE || gch__bit_get(seen, v))
                continue;
            gch__bit_set(seen, v);
            join_field(heap, &nodes[node_of[v]], &state[node_of[v]],
                       heap->out_label ? heap->out_label[e] : GCH_NONE);
        }
    }
    gch_free(state);
    gch_free(holder_set);
    return 1;
}

gch_status gch_merged_paths_build(const gch_heap *heap, const gch_paths *paths,
                                  const uint32_t *targets, size_t target_count,
                                  gch_merged_paths *out, gch_error *err)
{
    memset(out, 0, sizeof *out);
    const uint32_t n = heap->object_count;
    if (paths->object_count != n || !paths->parent)
        return gch_error_set(err, GCH_EINVAL, "the paths do not match the heap");
    for (size_t k = 0; k < target_count; k++)
        if (targets[k] >= n)
            return gch_error_set(err, GCH_EINVAL, "object index %u out of range",
                                 (unsigned)targets[k]);

    merge_state s = { NULL, 0, 0, NULL, 0, gch_hash_key_get() };
    uint32_t *node_of = gch_reallocarray(NULL, n ? n : 1, sizeof *node_of);
    uint8_t *is_target = gch_calloc(((size_t)n + 7) / 8 + 1, 1);
    size_t cap = 64, sp = 0;
    uint32_t *stack = gch_reallocarray(NULL, cap, sizeof *stack);
    if (!node_of || !is_target || !stack)
        goto nomem;
    for (uint32_t o = 0; o < n; o++)
        node_of[o] = GCH_NONE;

    const uint32_t *parent = paths->parent;
    for (size_t k = 0; k < target_count; k++) {
        uint32_t o = targets[k];
        if (gch__bit_get(is_target, o))
            continue;
        gch__bit_set(is_target, o);
        out->targets++;
        if (parent[o] == GCH_NONE) {
            out->unreachable++;
            continue;
        }
        /* Up the BFS tree to the first object that already has a node (or to
         * the root object), stacking the objects that have none. */
        uint32_t x = o, cur = GCH_NONE;
        sp = 0;
        for (;;) {
            if (node_of[x] != GCH_NONE) {
                cur = node_of[x];
                break;
            }
            if (!gch__stack_room(&stack, &cap, sp))
                goto nomem;
            stack[sp++] = x;
            if (parent[x] == GCH_PATH_ROOT)
                break;
            x = parent[x];
        }
        /* Down again, creating or joining a node per object. */
        while (sp) {
            uint32_t y = stack[--sp];
            uint8_t kind = 0;
            if (cur == GCH_NONE) {
                uint32_t rec = gch_paths_root_record(paths, y);
                kind = rec != GCH_NONE ? heap->root_kind[rec] : 0;
            }
            uint32_t nd = node_get(&s, cur, heap->object_type[y], kind);
            if (nd == GCH_NONE)
                goto nomem;
            s.nodes[nd].objects++;
            node_of[y] = nd;
            cur = nd;
        }
        s.nodes[node_of[o]].ends++;
    }
    memset(is_target, 0, ((size_t)n + 7) / 8 + 1);
    if (!label_nodes(heap, paths, node_of, s.nodes, s.count, is_target))
        goto nomem;
    gch_free(node_of);
    gch_free(is_target);
    gch_free(stack);
    gch_free(s.table);
    node_of = NULL;
    is_target = NULL;
    stack = NULL;
    s.table = NULL;

    /* Paths through a node: its ends plus its children's paths (children come
     * after their parent, so one backward pass suffices). */
    for (size_t k = 0; k < s.count; k++)
        s.nodes[k].paths = s.nodes[k].ends;
    for (size_t k = s.count; k-- > 0;)
        if (s.nodes[k].parent != GCH_NONE)
            s.nodes[s.nodes[k].parent].paths += s.nodes[k].paths;

    out->node_count = s.count;
    out->nodes = s.nodes;
    s.nodes = NULL;
    out->child_start = gch_calloc(s.count + 2, sizeof *out->child_start);
    out->children = gch_reallocarray(NULL, s.count ? s.count : 1, sizeof *out->children);
    if (!out->child_start || !out->children)
        goto nomem;
    {
        size_t *cs = out->child_start;
        const size_t m = s.count;
        for (size_t k = 0; k < m; k++) {
            uint32_t p = out->nodes[k].parent;
            cs[(p == GCH_NONE ? m : p) + 1]++;
        }
        for (size_t k = 0; k <= m; k++)
            cs[k + 1] += cs[k];
        for (size_t k = 0; k < m; k++) {
            uint32_t p = out->nodes[k].parent;
            out->children[cs[p == GCH_NONE ? m : p]++] = (uint32_t)k;
        }
        for (size_t k = m + 1; k > 0; k--)
            cs[k] = cs[k - 1];
        cs[0] = 0;
        for (size_t k = 0; k <= m; k++)
            gch__sort_u32(out->children + cs[k], cs[k + 1] - cs[k], merged_before, out->nodes);
    }
    return GCH_OK;

nomem:
    gch_free(node_of);
    gch_free(is_target);
    gch_free(stack);
    gch_free(s.table);
    gch_free(s.nodes);
    gch_merged_paths_free(out);
    return gch_error_set(err, GCH_ENOMEM, "out of memory merging paths to roots");
}
