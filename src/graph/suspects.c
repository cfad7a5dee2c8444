/* Leak suspects (Eclipse MAT's algorithm): see include/gcheap/leaks.h and
 * docs/graph-algorithms.md.
 *
 * Everything works on the dominator tree in preorder positions (p = 0..N-1,
 * every object after its immediate dominator): pre_idom[p] is the position of
 * the dominator, so one forward pass sees a parent before its children, and
 * "the objects below a suspect" are found by carrying a label down. */
#include "gcheap/leaks.h"

#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/dominators.h"
#include "graph_internal.h"
#include "threading.h"

enum { AHEAD = 16 };

void gch_suspects_free(gch_suspects *s)
{
    if (!s)
        return;
    gch_free(s->items);
    gch_free(s->path);
    gch_free(s->holds);
    memset(s, 0, sizeof *s);
}

uint32_t gch_ref_label(const gch_heap *heap, uint32_t from, uint32_t to)
{
    if (!heap->out_label || from >= heap->object_count)
        return GCH_NONE;
    for (uint32_t e = heap->out_start[from]; e < heap->out_start[from + 1]; e++)
        if (heap->out_target[e] == to)
            return heap->out_label[e];
    return GCH_NONE;
}

/* The state of one search, freed together. */
typedef struct finder {
    const gch_heap *h;
    const gch_suspects_options *o;
    gch_domtree t;        /* the analysis's tree (a copy of its fields; not freed here) */
    uint32_t *label;      /* per position: suspect number + 1 above it, 0 for none */
    uint32_t *walk_pos;   /* per suspect: position of the walk's current node */
    uint32_t *start_pos;  /* per suspect: its position (a group: its biggest instance's) */
    uint64_t *group_count, *group_bytes; /* per type, top-level objects below the threshold */
    uint32_t *group_best; /* per type: position of its biggest such object */
    uint32_t *top_type;   /* type of each top-level object, in position order */
    uint8_t *top;         /* per position, V8 with pseudo-nodes only: 1 top-level (its
                             dominators up to the virtual root are all pseudo-nodes),
                             2 a pseudo-node (never a suspect); NULL: idom == VROOT */
    size_t top_count;
    gch_suspect *items;
    size_t count;
} finder;

static int is_big(uint64_t retained, double threshold, uint64_t live)
{
    return (double)retained * 100.0 > threshold * (double)live;
}

/* A new zeroed suspect at the end of f->items (room for *cap, doubled when
 * full); NULL when that memory cannot be had. */
static gch_suspect *add_suspect(finder *f, size_t *cap)
{
    if (f->count == *cap) {
        void *g = gch_reallocarray(f->items, *cap * 2, sizeof *f->items);
        if (!g)
            return NULL;
        f->items = g;
        *cap *= 2;
    }
    gch_suspect *s = &f->items[f->count++];
    memset(s, 0, sizeof *s);
    return s;
}

/* Object-suspects, and per-type totals of the other top-level objects. */
/* V8 pseudo-nodes ("(GC roots)", the synthetic root) are not suspects:
 * MAT-style suspects start below them (issue 29). */
static gch_status mark_top(finder *f, gch_error *err)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count, *pid = f->t.preorder_idom, *pre = f->t.preorder;
    if (!h->v8_pseudo)
        return GCH_OK;
    if (!(f->top = gch_reallocarray(NULL, N ? N : 1, 1)))
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    for (uint32_t p = 0; p < N; p++) {
        int above_pseudo = pid[p] == GCH_DOM_VROOT || f->top[pid[p]] == 2;
        f->top[p] = !above_pseudo ? 0 : h->v8_pseudo[pre[p]] ? 2 : 1;
    }
    return GCH_OK;
}

static int is_top(const finder *f, uint32_t p)
{
    return f->top ? f->top[p] == 1 : f->t.preorder_idom[p] == GCH_DOM_VROOT;
}

/* The top-level objects: single suspects, and per type the totals of the
 * others. best_r and best_o (per type): the retained size and object of
 * group_best; NULL, as any of f's tables, when it could not be had. */
static gch_status top_scan(finder *f, uint64_t *best_r, uint32_t *best_o, gch_error *err)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count, T = h->type_count;
    const uint32_t *pid = f->t.preorder_idom, *pre = f->t.preorder;
    const uint64_t *r = f->t.preorder_retained;
    size_t cap = 16; /* f->items' */
    if (!f->group_count || !f->group_bytes || !f->group_best || !f->items || !best_r || !best_o)
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    /* Room for every live object (the pages past the top-level ones are
     * never touched): no copying as it fills. An index's tree has the
     * types in preorder: then none is kept. */
    const uint16_t *pty = f->t.preorder_type16;
    if (!pty && !(f->top_type = gch_reallocarray(NULL, N ? N : 1, sizeof *f->top_type)))
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    for (uint32_t p = 0; p < N; p++) {
        /* The types of top-level objects (half the live objects of the
         * benchmark dump) are random reads: fetched well ahead. */
        if (!pty && p + 4 * AHEAD < N && pid[p + 4 * AHEAD] == GCH_DOM_VROOT)
            __builtin_prefetch(&h->object_type[pre[p + 4 * AHEAD]]);
        if (!is_top(f, p))
            continue;
        uint32_t o = pre[p], ty = pty ? pty[p] : h->object_type[o];
        if (!pty)
            f->top_type[f->top_count++] = ty;
        if (is_big(r[p], f->o->threshold, f->t.live_bytes)) {
            gch_suspect *s = add_suspect(f, &cap);
            if (!s)
                return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
            s->object = o;
            s->type = ty;
            s->instances = 1;
            s->retained = r[p];
            s->accumulation = p; /* a position until resolve_positions */
            continue;
        }
        /* The best's retained size and object by type (a small table that
         * stays in cache), not read back at its position. */
        if (f->group_count[ty] == 0 || r[p] > best_r[ty] || (r[p] == best_r[ty] && o < best_o[ty])) {
            f->group_best[ty] = p;
            best_r[ty] = r[p];
            best_o[ty] = o;
        }
        f->group_count[ty]++;
        f->group_bytes[ty] += r[p];
    }
    for (uint32_t ty = 0; ty < T; ty++) {
        if (!f->group_count[ty] || !is_big(f->group_bytes[ty], f->o->threshold, f->t.live_bytes))
            continue;
        gch_suspect *s = add_suspect(f, &cap);
        if (!s)
            return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
        s->group = 1;
        s->object = pre[f->group_best[ty]];
        s->type = ty;
        s->instances = f->group_count[ty];
        s->retained = f->group_bytes[ty];
        s->accumulation = f->group_best[ty];
    }
    return GCH_OK;
}

static gch_status top_level(finder *f, gch_error *err)
{
    const uint32_t T = f->h->type_count;
    f->group_count = gch_calloc(T ? T : 1, sizeof *f->group_count);
    f->group_bytes = gch_calloc(T ? T : 1, sizeof *f->group_bytes);
    f->group_best = gch_reallocarray(NULL, T ? T : 1, sizeof *f->group_best);
    f->items = gch_reallocarray(NULL, 16, sizeof *f->items);
    uint64_t *best_r = gch_reallocarray(NULL, T ? T : 1, sizeof *best_r);
    uint32_t *best_o = gch_reallocarray(NULL, T ? T : 1, sizeof *best_o);
    gch_status st = top_scan(f, best_r, best_o, err);
    gch_free(best_r);
    gch_free(best_o);
    return st;
}


/* Every walk to an accumulation point, in one forward pass: the child that
 * keeps big_drop of its parent is unique (big_drop > 0.5) and comes after
 * its parent in preorder, so the walk's next node is always ahead of the
 * scan. A bit set marks where walks are; label[] (not yet filled) says whose
 * walk is at a marked position. Leaves the suspects' starting positions in
 * start_pos and where each walk stopped in walk_pos. */
static gch_status walk(finder *f, gch_error *err)
{
    const uint32_t N = (uint32_t)f->t.live_count;
    const uint32_t *pid = f->t.preorder_idom;
    const uint64_t *r = f->t.preorder_retained;
    const double drop = f->o->big_drop;
    f->label = gch_reallocarray(NULL, N ? N : 1, sizeof *f->label);
    f->walk_pos = gch_reallocarray(NULL, f->count ? f->count : 1, sizeof *f->walk_pos);
    f->start_pos = gch_reallocarray(NULL, f->count ? f->count : 1, sizeof *f->start_pos);
    uint64_t *walking = gch_calloc((size_t)N / 64 + 1, sizeof *walking);
    if (!f->label || !f->walk_pos || !f->start_pos || !walking) {
        gch_free(walking);
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    }
    for (size_t k = 0; k < f->count; k++) {
        uint32_t p = f->items[k].accumulation; /* the position top_level found */
        f->start_pos[k] = f->walk_pos[k] = p;
        f->label[p] = (uint32_t)k;
        walking[p >> 6] |= 1ull << (p & 63);
    }
    for (uint32_t p = 0; p < N; p++) {
        uint32_t d = pid[p];
        if (d == GCH_DOM_VROOT || !((walking[d >> 6] >> (d & 63)) & 1) ||
            (double)r[p] < drop * (double)r[d])
            continue;
        uint32_t k = f->label[d];
        walking[d >> 6] &= ~(1ull << (d & 63));
        walking[p >> 6] |= 1ull << (p & 63);
        f->label[p] = k;
        f->walk_pos[k] = p;
        f->items[k].accumulation_depth++;
    }
    gch_free(walking);
    return GCH_OK;
}

/* Labels every position with the suspect above it, number + 1 (0: none):
 * suspects are top-level, so a label comes from the top-level ancestor, and
 * a dominator comes before the objects it dominates. */
static gch_status label(finder *f, gch_error *err)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count;
    const uint32_t *pid = f->t.preorder_idom;
    /* Top-level positions: single suspects, and every instance of a group's
     * type that is not a single suspect. */
    uint32_t *type_group = gch_calloc(h->type_count ? h->type_count : 1, sizeof *type_group);
    if (!type_group)
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    for (size_t k = 0; k < f->count; k++)
        if (f->items[k].group)
            type_group[f->items[k].type] = (uint32_t)k + 1;
    /* Single suspects were found in position order, before the groups. */
    size_t next_single = 0, top = 0;
    for (uint32_t p = 0; p < N; p++) {
        uint32_t d = pid[p];
        if (!is_top(f, p)) {
            f->label[p] = d == GCH_DOM_VROOT || (f->top && f->top[p] == 2) ? 0 : f->label[d];
            continue;
        }
        uint32_t ty = f->t.preorder_type16 ? f->t.preorder_type16[p] : f->top_type[top++];
        if (next_single < f->count && !f->items[next_single].group &&
            f->start_pos[next_single] == p)
            f->label[p] = (uint32_t)++next_single;
        else
            f->label[p] = type_group[ty];
    }
    gch_free(type_group);
    return GCH_OK;
}

/* holds: per suspect, count and bytes per type of the objects labelled with
 * it, the top holds_top kept. Suspects are counted in batches so that the
 * per-type tables stay within about 64 MiB. */
static gch_status count_holds(finder *f, gch_suspects *out, gch_error *err)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count, T = h->type_count ? h->type_count : 1;
    const uint32_t *pre = f->t.preorder, *psz = f->t.preorder_size32;
    /* Both or neither (an index's tree has both). */
    const uint16_t *pty = psz ? f->t.preorder_type16 : NULL;
    size_t per = (64u << 20) / ((size_t)T * 16);
    if (per == 0)
        per = 1;
    size_t keep = f->o->holds_top;
    out->holds = gch_reallocarray(NULL, f->count * (keep ? keep : 1) + 1, sizeof *out->holds);
    if (!out->holds)
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    size_t used = 0;
    for (size_t first = 0; first < f->count; first += per) {
        size_t batch = f->count - first < per ? f->count - first : per;
        uint64_t *cnt = gch_calloc(batch * T, sizeof *cnt);
        uint64_t *byt = gch_calloc(batch * T, sizeof *byt);
        if (!cnt || !byt) {
            gch_free(cnt);
            gch_free(byt);
            return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
        }
        for (uint32_t p = 0; p < N; p++) {
            /* An index's tree has the types and sizes in preorder: read in
             * order. Otherwise they are random reads, fetched ahead. */
            if (!pty && p + AHEAD < N && f->label[p + AHEAD]) {
                uint32_t a = pre[p + AHEAD];
                __builtin_prefetch(&h->object_type[a]);
                __builtin_prefetch(&h->object_size32[a]);
            }
            uint32_t lab = f->label[p];
            if (!lab || lab - 1 < first || lab - 1 >= first + batch)
                continue;
            uint32_t o = pre[p];
            size_t at = (lab - 1 - first) * T + (pty ? pty[p] : h->object_type[o]);
            cnt[at]++;
            byt[at] += pty && psz[p] != GCH_SIZE_BIG ? psz[p] : gch_object_size(h, o);
        }
        for (size_t k = 0; k < batch; k++) {
            gch_suspect *s = &f->items[first + k];
            uint64_t *c = cnt + k * T, *b = byt + k * T;
            s->holds_start = used;
            for (uint32_t ty = 0; ty < h->type_count; ty++)
                s->retained_objects += c[ty];
            /* Selection of the top `keep` by bytes: small keep, so insertion. */
            for (uint32_t ty = 0; ty < h->type_count && keep; ty++) {
                if (!c[ty])
                    continue;
                size_t n = s->holds_count, i = n < keep ? n : keep - 1;
                if (n == keep && b[ty] <= out->holds[used + i].bytes)
                    continue;
                while (i > 0 && out->holds[used + i - 1].bytes < b[ty]) {
                    out->holds[used + i] = out->holds[used + i - 1];
                    i--;
                }
                out->holds[used + i] = (gch_type_row){ ty, c[ty], b[ty] };
                if (n < keep)
                    s->holds_count++;
            }
            used += s->holds_count;
        }
        gch_free(cnt);
        gch_free(byt);
    }
    return GCH_OK;
}

static int path_target(const uint64_t *bits, uint32_t o)
{
    return (bits[o >> 6] >> (o & 63)) & 1;
}

/* The BFS towards the accumulation points: what it reads and fills. All
 * allocated on the calling thread (bfs_start); bfs_run allocates nothing, so
 * it may run on a second thread while the labels and holds are counted. */
typedef struct bfs_job {
    const gch_heap *h;
    const gch_suspect *items; /* reads only .accumulation (objects by now) */
    size_t count;
    int weak;
    uint32_t *from, *queue, *at;
    uint64_t *seen, *want;
} bfs_job;

static void bfs_free(bfs_job *j)
{
    gch_free(j->from);
    gch_free(j->queue);
    gch_free(j->at);
    gch_free(j->seen);
    gch_free(j->want);
}

static gch_status bfs_start(const finder *f, bfs_job *j, gch_error *err)
{
    const uint32_t n = f->h->object_count;
    memset(j, 0, sizeof *j);
    j->h = f->h;
    j->items = f->items;
    j->count = f->count;
    j->weak = f->o->include_weak;
    j->from = gch_reallocarray(NULL, n ? n : 1, sizeof *j->from);
    j->queue = gch_reallocarray(NULL, n ? n : 1, sizeof *j->queue);
    j->at = gch_reallocarray(NULL, f->count ? f->count : 1, sizeof *j->at);
    j->seen = gch_calloc((size_t)n / 64 + 1, sizeof *j->seen);
    j->want = gch_calloc((size_t)n / 64 + 1, sizeof *j->want);
    if (!j->from || !j->queue || !j->at || !j->seen || !j->want) {
        bfs_free(j);
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    }
    return GCH_OK;
}

/* Marks the queue position of target t for every suspect whose
 * accumulation point it is (few targets: a linear search, once per target). */
static void found_target(const bfs_job *j, uint32_t t, uint32_t pos)
{
    for (size_t k = 0; k < j->count; k++)
        if (j->items[k].accumulation == t)
            j->at[k] = pos;
}

/* Marks o seen and queues it at position pos, discovered by the entry at
 * position via (GCH_NONE for a root); 1 when o is an accumulation point. */
static inline int bfs_push(const bfs_job *j, uint64_t *seen, const uint64_t *want, uint32_t *from,
                           uint32_t *queue, uint32_t pos, uint32_t o, uint32_t via)
{
    seen[o >> 6] |= 1ull << (o & 63);
    from[pos] = via;
    queue[pos] = o;
    if (!path_target(want, o))
        return 0;
    found_target(j, o, pos);
    return 1;
}

/* The BFS of gch_paths_build (roots in two tiers, each in record order,
 * references in stored order, so the same paths), stopped once every accumulation point is
 * reached. Each queue entry keeps the queue position of the entry that
 * discovered it (from[]), written in queue order: no random write per
 * object; a path is read back through from[]. */
static int bfs_run(void *arg)
{
    bfs_job *j = arg;
    const gch_heap *h = j->h;
    uint32_t *from = j->from, *queue = j->queue;
    uint64_t *seen = j->seen, *want = j->want;
    size_t remaining = 0;
    for (size_t k = 0; k < j->count; k++) {
        uint32_t o = j->items[k].accumulation;
        if (!path_target(want, o)) {
            want[o >> 6] |= 1ull << (o & 63);
            remaining++;
        }
    }
    uint32_t head = 0, tail = 0;
    const uint32_t *out_start = h->out_start, *out_target = h->out_target;
    for (int tier = 0; tier < 2 && remaining; tier++) {
    for (uint32_t r = 0; r < h->root_count; r++) {
        if (!gch__root_counts(h, r, j->weak) || gch__root_tier(h, r) != tier)
            continue;
        uint32_t o = h->root_object[r];
        if (path_target(seen, o))
            continue;
        remaining -= bfs_push(j, seen, want, from, queue, tail++, o, GCH_NONE);
    }
    while (head < tail && remaining) {
        /* The queue says which objects come next: their reference lists are
         * fetched ahead (starts first, then the lists they point to). */
        if (head + 2 * AHEAD < tail)
            __builtin_prefetch(&out_start[queue[head + 2 * AHEAD]]);
        if (head + AHEAD < tail)
            __builtin_prefetch(&out_target[out_start[queue[head + AHEAD]]]);
        uint32_t o = queue[head];
        for (uint32_t e = out_start[o]; e < out_start[o + 1]; e++) {
            uint32_t t = out_target[e];
            if (path_target(seen, t))
                continue;
            remaining -= bfs_push(j, seen, want, from, queue, tail++, t, head);
            if (remaining == 0)
                break;
        }
        head++;
    }
    }
    return 0;
}

/* The paths read back from a finished BFS, accumulation point last; frees
 * the job. */
static gch_status bfs_finish(finder *f, bfs_job *j, gch_suspects *out, gch_error *err)
{
    const gch_heap *h = f->h;
    size_t total = 0;
    for (size_t k = 0; k < f->count; k++) {
        size_t len = 1;
        for (uint32_t q = j->at[k]; j->from[q] != GCH_NONE; q = j->from[q])
            len++;
        f->items[k].path_len = len;
        f->items[k].path_start = total;
        total += len;
    }
    out->path = gch_reallocarray(NULL, total ? total : 1, sizeof *out->path);
    if (!out->path) {
        bfs_free(j);
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    }
    for (size_t k = 0; k < f->count; k++) {
        gch_suspect *s = &f->items[k];
        size_t i = s->path_start + s->path_len;
        uint32_t q = j->at[k];
        for (;;) {
            out->path[--i] = j->queue[q];
            if (j->from[q] == GCH_NONE)
                break;
            q = j->from[q];
        }
        uint32_t x = j->queue[q];
        s->root_record = GCH_NONE;
        for (int tier = 0; tier < 2 && s->root_record == GCH_NONE; tier++)
            for (uint32_t r = 0; r < h->root_count && s->root_record == GCH_NONE; r++)
                if (gch__root_counts(h, r, j->weak) && gch__root_tier(h, r) == tier &&
                    h->root_object[r] == x)
                    s->root_record = r;
    }
    bfs_free(j);
    return GCH_OK;
}

/* The paths read from a shortest-path tree the analysis has (the same BFS
 * as bfs_run's: the same paths, the same root records). 0 when an
 * accumulation point has no path in it (then the BFS runs). */
static int paths_from_tree(finder *f, const gch_paths *p, gch_suspects *out, gch_error *err,
                           gch_status *st)
{
    size_t total = 0;
    *st = GCH_OK;
    for (size_t k = 0; k < f->count; k++) {
        uint32_t d = gch_paths_depth(p, f->items[k].accumulation);
        if (d == GCH_NONE)
            return 0;
        f->items[k].path_len = (size_t)d + 1;
        f->items[k].path_start = total;
        total += (size_t)d + 1;
    }
    out->path = gch_reallocarray(NULL, total ? total : 1, sizeof *out->path);
    if (!out->path) {
        *st = gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
        return 1;
    }
    for (size_t k = 0; k < f->count; k++) {
        gch_suspect *s = &f->items[k];
        size_t i = s->path_start + s->path_len;
        uint32_t x = s->accumulation;
        for (;;) {
            out->path[--i] = x;
            if (p->parent[x] == GCH_PATH_ROOT)
                break;
            x = p->parent[x];
        }
        s->root_record = gch_paths_root_record(p, x);
    }
    return 1;
}

static int suspect_before(const gch_suspect *a, const gch_suspect *b)
{
    if (a->retained != b->retained)
        return a->retained > b->retained;
    if (a->group != b->group)
        return a->group < b->group;
    return a->object < b->object;
}

static void finder_free(finder *f)
{
    gch_free(f->label);
    gch_free(f->walk_pos);
    gch_free(f->start_pos);
    gch_free(f->group_count);
    gch_free(f->group_bytes);
    gch_free(f->group_best);
    gch_free(f->top_type);
    gch_free(f->top);
    gch_free(f->items);
}

gch_status gch_suspects_find(const gch_heap *heap, const gch_suspects_options *opts,
                             gch_suspects *out, gch_error *err)
{
    memset(out, 0, sizeof *out);
    gch_analysis *an;
    gch_analysis_options ao;
    memset(&ao, 0, sizeof ao);
    ao.threads = opts ? opts->threads : 0;
    /* The analysis only reads the heap: it builds no reverse index here. */
    gch_status st = gch_analysis_of_heap((gch_heap *)heap, &ao, &an, err);
    if (st != GCH_OK)
        return st;
    st = gch_suspects_find_in(an, heap, opts, out, err);
    gch_analysis_free(an);
    return st;
}

gch_status gch_suspects_find_in(gch_analysis *an, const gch_heap *heap,
                                const gch_suspects_options *opts, gch_suspects *out,
                                gch_error *err)
{
    static const gch_suspects_options defaults = GCH_SUSPECTS_OPTIONS_INIT;
    if (!opts)
        opts = &defaults;
    memset(out, 0, sizeof *out);
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL, "leak suspects need references, which were not loaded");
    if (!(opts->threshold >= 0 && opts->threshold <= 100))
        return gch_error_set(err, GCH_EINVAL, "the suspect threshold must be 0..100 percent");
    if (!(opts->big_drop > 0.5 && opts->big_drop <= 1))
        return gch_error_set(err, GCH_EINVAL, "big_drop must be more than 0.5 and at most 1");
    finder f;
    memset(&f, 0, sizeof f);
    f.h = heap;
    f.o = opts;
    const gch_domtree *tree;
    gch_status st = gch_analysis_domtree(an, heap, opts->include_weak, GCH_TREE_PREORDER_IDOM, &tree, err);
    if (st != GCH_OK)
        return st;
    f.t = *tree;
    out->live_count = f.t.live_count;
    out->live_bytes = f.t.live_bytes;
    if ((st = mark_top(&f, err)) != GCH_OK || (st = top_level(&f, err)) != GCH_OK || (st = walk(&f, err)) != GCH_OK)
        goto fail;
    for (size_t k = 0; k < f.count; k++) {
        gch_suspect *s = &f.items[k];
        s->accumulation_retained = f.t.preorder_retained[f.walk_pos[k]];
        s->accumulation = f.t.preorder[f.walk_pos[k]];
    }
    /* A shortest-path tree the analysis has already (an index's) gives the
     * paths without a search. */
    const gch_paths *ready;
    gch__analysis_paths_ready(an, heap, opts->include_weak, &ready);
    if (ready && f.count) {
        if ((st = label(&f, err)) != GCH_OK || (st = count_holds(&f, out, err)) != GCH_OK)
            goto fail;
        gch_free(f.label);
        f.label = NULL;
        if (paths_from_tree(&f, ready, out, err, &st)) {
            if (st != GCH_OK)
                goto fail;
            goto order;
        }
    }
    /* The BFS needs only the accumulation points: on a big heap it runs on a
     * second thread while the labels and holds are counted (they touch other
     * fields of the suspects). */
    int counted = ready && f.count;
    bfs_job job;
    /* The BFS reads the references: an index may have deferred them. */
    if ((st = gch__analysis_refs(an, heap, err)) != GCH_OK || (st = bfs_start(&f, &job, err)) != GCH_OK)
        goto fail;
    gch_parallel par = gch_parallel_for(opts->threads);
    gch_thread bfs_thread;
    int threaded = f.count && gch_parallel_worth(&par, heap->ref_count) &&
                   gch_thread_start(&bfs_thread, par.workers, bfs_run, &job);
    if (!counted && (st = label(&f, err)) == GCH_OK)
        st = count_holds(&f, out, err);
    if (threaded)
        gch_thread_join(&bfs_thread);
    else if (st == GCH_OK)
        bfs_run(&job);
    if (st != GCH_OK) {
        bfs_free(&job);
        goto fail;
    }
    /* The big per-position array is not needed to read the paths back. */
    gch_free(f.label);
    f.label = NULL;
    if ((st = bfs_finish(&f, &job, out, err)) != GCH_OK)
        goto fail;
order:
    /* Order (few suspects: insertion sort). */
    for (size_t i = 1; i < f.count; i++) {
        gch_suspect s = f.items[i];
        size_t j = i;
        while (j > 0 && suspect_before(&s, &f.items[j - 1])) {
            f.items[j] = f.items[j - 1];
            j--;
        }
        f.items[j] = s;
    }
    out->count = f.count;
    out->items = f.items;
    f.items = NULL;
    if (!out->items) {
        out->items = gch_malloc(sizeof *out->items);
        if (!out->items) {
            st = gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
            goto fail;
        }
    }
    finder_free(&f);
    return GCH_OK;
fail:
    finder_free(&f);
    gch_suspects_free(out);
    return st;
}
