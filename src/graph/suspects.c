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
    gch_domtree t;
    uint32_t *label;      /* per position: suspect number + 1 above it, 0 for none */
    uint32_t *walk_pos;   /* per suspect: position of the walk's current node */
    uint64_t *group_count, *group_bytes; /* per type, top-level objects below the threshold */
    uint32_t *group_best; /* per type: position of its biggest such object */
    gch_suspect *items;
    size_t count;
} finder;

static int is_big(uint64_t retained, double threshold, uint64_t live)
{
    return (double)retained * 100.0 > threshold * (double)live;
}

/* Object-suspects, and per-type totals of the other top-level objects. */
static gch_status top_level(finder *f, gch_error *err)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count, T = h->type_count;
    const uint32_t *pid = f->t.preorder_idom, *pre = f->t.preorder;
    const uint64_t *r = f->t.preorder_retained;
    f->group_count = gch_calloc(T ? T : 1, sizeof *f->group_count);
    f->group_bytes = gch_calloc(T ? T : 1, sizeof *f->group_bytes);
    f->group_best = gch_reallocarray(NULL, T ? T : 1, sizeof *f->group_best);
    size_t cap = 16;
    f->items = gch_reallocarray(NULL, cap, sizeof *f->items);
    if (!f->group_count || !f->group_bytes || !f->group_best || !f->items)
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    for (uint32_t p = 0; p < N; p++) {
        if (pid[p] != GCH_DOM_VROOT)
            continue;
        uint32_t o = pre[p], ty = h->object_type[o];
        if (is_big(r[p], f->o->threshold, f->t.live_bytes)) {
            if (f->count == cap) {
                void *g = gch_reallocarray(f->items, cap * 2, sizeof *f->items);
                if (!g)
                    return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
                f->items = g;
                cap *= 2;
            }
            gch_suspect *s = &f->items[f->count++];
            memset(s, 0, sizeof *s);
            s->object = o;
            s->type = ty;
            s->instances = 1;
            s->retained = r[p];
            s->accumulation = p; /* a position until resolve_positions */
            continue;
        }
        uint32_t b = f->group_best[ty];
        if (f->group_count[ty] == 0 || r[p] > r[b] || (r[p] == r[b] && o < pre[b]))
            f->group_best[ty] = p;
        f->group_count[ty]++;
        f->group_bytes[ty] += r[p];
    }
    for (uint32_t ty = 0; ty < T; ty++) {
        if (!f->group_count[ty] || !is_big(f->group_bytes[ty], f->o->threshold, f->t.live_bytes))
            continue;
        if (f->count == cap) {
            void *g = gch_reallocarray(f->items, cap * 2, sizeof *f->items);
            if (!g)
                return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
            f->items = g;
            cap *= 2;
        }
        gch_suspect *s = &f->items[f->count++];
        memset(s, 0, sizeof *s);
        s->group = 1;
        s->object = pre[f->group_best[ty]];
        s->type = ty;
        s->instances = f->group_count[ty];
        s->retained = f->group_bytes[ty];
        s->accumulation = f->group_best[ty];
    }
    return GCH_OK;
}

/* Labels every position with the suspect above it (suspects are top-level,
 * so a label comes from the top-level ancestor), and does every walk to an
 * accumulation point in the same forward pass: the child that keeps big_drop
 * of its parent is unique (big_drop > 0.5) and comes after its parent, so
 * the walk's next node is always ahead of the scan. */
static gch_status label_and_walk(finder *f, gch_error *err)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count;
    const uint32_t *pid = f->t.preorder_idom, *pre = f->t.preorder;
    const uint64_t *r = f->t.preorder_retained;
    const double drop = f->o->big_drop;
    f->label = gch_reallocarray(NULL, N ? N : 1, sizeof *f->label);
    f->walk_pos = gch_reallocarray(NULL, f->count ? f->count : 1, sizeof *f->walk_pos);
    uint64_t *walking = gch_calloc((size_t)N / 64 + 1, sizeof *walking);
    if (!f->label || !f->walk_pos || !walking) {
        gch_free(walking);
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    }
    /* Top-level positions are labelled here: single suspects, and every
     * instance of a group's type that is not a single suspect. */
    uint32_t *type_group = gch_reallocarray(NULL, h->type_count ? h->type_count : 1,
                                            sizeof *type_group);
    if (!type_group) {
        gch_free(walking);
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    }
    for (uint32_t ty = 0; ty < h->type_count; ty++)
        type_group[ty] = 0;
    for (size_t k = 0; k < f->count; k++) {
        uint32_t p = f->items[k].accumulation;
        if (f->items[k].group)
            type_group[f->items[k].type] = (uint32_t)k + 1;
        f->walk_pos[k] = p;
        walking[p >> 6] |= 1ull << (p & 63);
    }
    /* Single suspects were found in position order, before the groups. */
    size_t next_single = 0;
    for (uint32_t p = 0; p < N; p++) {
        uint32_t d = pid[p];
        if (d == GCH_DOM_VROOT) {
            uint32_t lab;
            if (next_single < f->count && !f->items[next_single].group &&
                f->items[next_single].accumulation == p)
                lab = (uint32_t)++next_single;
            else
                lab = type_group[h->object_type[pre[p]]];
            f->label[p] = lab;
            continue;
        }
        f->label[p] = f->label[d];
        if (!((walking[d >> 6] >> (d & 63)) & 1) || (double)r[p] < drop * (double)r[d])
            continue;
        size_t k = f->label[d] - 1; /* a walking node is below its own suspect */
        walking[d >> 6] &= ~(1ull << (d & 63));
        walking[p >> 6] |= 1ull << (p & 63);
        f->walk_pos[k] = p;
        f->items[k].accumulation_depth++;
    }
    gch_free(type_group);
    gch_free(walking);
    return GCH_OK;
}

/* holds: per suspect, count and bytes per type of the objects labelled with
 * it, the top holds_top kept. Suspects are counted in batches so that the
 * per-type tables stay within about 64 MiB. */
static gch_status count_holds(finder *f, gch_suspects *out, gch_error *err)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count, T = h->type_count ? h->type_count : 1;
    const uint32_t *pre = f->t.preorder;
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
            if (p + AHEAD < N && f->label[p + AHEAD]) {
                uint32_t a = pre[p + AHEAD];
                __builtin_prefetch(&h->object_type[a]);
                __builtin_prefetch(&h->object_size[a]);
            }
            uint32_t lab = f->label[p];
            if (!lab || lab - 1 < first || lab - 1 >= first + batch)
                continue;
            uint32_t o = pre[p];
            size_t at = (lab - 1 - first) * T + h->object_type[o];
            cnt[at]++;
            byt[at] += h->object_size[o];
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

/* The BFS of gch_paths_build (roots in record order, references in stored
 * order, so the same paths), stopped once every accumulation point is
 * reached; then each path is read back through parent[]. */
static gch_status find_paths(finder *f, gch_suspects *out, gch_error *err)
{
    const gch_heap *h = f->h;
    const uint32_t n = h->object_count;
    const int weak = f->o->include_weak;
    uint32_t *parent = gch_reallocarray(NULL, n ? n : 1, sizeof *parent);
    uint32_t *queue = gch_reallocarray(NULL, n ? n : 1, sizeof *queue);
    uint64_t *seen = gch_calloc((size_t)n / 64 + 1, sizeof *seen);
    uint64_t *want = gch_calloc((size_t)n / 64 + 1, sizeof *want);
    gch_status st = GCH_OK;
    if (!parent || !queue || !seen || !want)
        goto nomem;
    size_t remaining = 0;
    for (size_t k = 0; k < f->count; k++) {
        uint32_t o = f->items[k].accumulation;
        if (!path_target(want, o)) {
            want[o >> 6] |= 1ull << (o & 63);
            remaining++;
        }
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t r = 0; r < h->root_count; r++) {
        if (!gch__root_counts(h, r, weak))
            continue;
        uint32_t o = h->root_object[r];
        if (path_target(seen, o))
            continue;
        seen[o >> 6] |= 1ull << (o & 63);
        parent[o] = GCH_NONE;
        queue[tail++] = o;
        if (path_target(want, o))
            remaining--;
    }
    while (head < tail && remaining) {
        uint32_t o = queue[head++];
        for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++) {
            uint32_t t = h->out_target[e];
            if (path_target(seen, t))
                continue;
            seen[t >> 6] |= 1ull << (t & 63);
            parent[t] = o;
            queue[tail++] = t;
            if (path_target(want, t) && --remaining == 0)
                break;
        }
    }
    /* Paths, accumulation point last. */
    size_t total = 0;
    for (size_t k = 0; k < f->count; k++) {
        size_t len = 1;
        for (uint32_t x = f->items[k].accumulation; parent[x] != GCH_NONE; x = parent[x])
            len++;
        f->items[k].path_len = len;
        f->items[k].path_start = total;
        total += len;
    }
    out->path = gch_reallocarray(NULL, total ? total : 1, sizeof *out->path);
    if (!out->path)
        goto nomem;
    for (size_t k = 0; k < f->count; k++) {
        gch_suspect *s = &f->items[k];
        size_t i = s->path_start + s->path_len;
        uint32_t x = s->accumulation;
        for (;;) {
            out->path[--i] = x;
            if (parent[x] == GCH_NONE)
                break;
            x = parent[x];
        }
        s->root_record = GCH_NONE;
        for (uint32_t r = 0; r < h->root_count && s->root_record == GCH_NONE; r++)
            if (gch__root_counts(h, r, weak) && h->root_object[r] == x)
                s->root_record = r;
    }
    goto done;
nomem:
    st = gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
done:
    gch_free(parent);
    gch_free(queue);
    gch_free(seen);
    gch_free(want);
    return st;
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
    gch_domtree_free(&f->t);
    gch_free(f->label);
    gch_free(f->walk_pos);
    gch_free(f->group_count);
    gch_free(f->group_bytes);
    gch_free(f->group_best);
    gch_free(f->items);
}

gch_status gch_suspects_find(const gch_heap *heap, const gch_suspects_options *opts,
                             gch_suspects *out, gch_error *err)
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
    gch_domtree_options dopt = { opts->include_weak, 0, 1, 1 };
    gch_status st = gch_domtree_build_ex(heap, &dopt, &f.t, err);
    if (st != GCH_OK)
        return st;
    out->live_count = f.t.live_count;
    out->live_bytes = f.t.live_bytes;
    if ((st = top_level(&f, err)) != GCH_OK || (st = label_and_walk(&f, err)) != GCH_OK ||
        (st = count_holds(&f, out, err)) != GCH_OK)
        goto fail;
    for (size_t k = 0; k < f.count; k++) {
        gch_suspect *s = &f.items[k];
        s->accumulation_retained = f.t.preorder_retained[f.walk_pos[k]];
        s->accumulation = f.t.preorder[f.walk_pos[k]];
    }
    /* The big per-position arrays are not needed by the BFS. */
    gch_domtree_free(&f.t);
    gch_free(f.label);
    f.label = NULL;
    if ((st = find_paths(&f, out, err)) != GCH_OK)
        goto fail;
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
