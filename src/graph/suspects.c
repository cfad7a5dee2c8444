/* Leak suspects (Eclipse MAT's algorithm): see include/gcheap/leaks.h and
 * docs/graph-algorithms.md.
 *
 * Everything works on the dominator tree in preorder positions (p = 0..N-1,
 * every object after its immediate dominator): pre_idom[p] is the position of
 * the dominator, so one forward pass sees a parent before its children, and
 * "the objects below a suspect" are found by carrying a label down. */
#include "gcheap/leaks.h"

#include <inttypes.h>
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
    void *label;          /* per position (and one more, 0): suspect number + 1 above it, 0
                             for none; bytes with fewer than 255 suspects, else uint32_t */
    int label_wide;
    uint32_t *walk_pos;   /* per suspect: position of the walk's current node */
    uint32_t *start_pos;  /* per suspect: its position (a group: its biggest instance's) */
    uint32_t *type_group; /* per type: number + 1 of its group suspect, 0 for none */
    uint8_t *top;         /* per position, V8 with pseudo-nodes only: 1 top-level (its
                             dominators up to the virtual root are all pseudo-nodes),
                             2 a pseudo-node (never a suspect); NULL: idom == VROOT */
    size_t singles;       /* items[0 .. singles): the single suspects, in position order */
    gch_suspect *items;
    size_t count;
    unsigned workers;     /* 2: the passes run in two halves on two threads */
} finder;

static int is_big(uint64_t retained, double threshold, uint64_t live)
{
    return (double)retained * 100.0 > threshold * (double)live;
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

static uint32_t type_at(const finder *f, uint32_t p)
{
    return f->t.preorder_type16 ? f->t.preorder_type16[p] : f->h->object_type[f->t.preorder[p]];
}

/* One half of the positions [from, to), for the passes that may run on two
 * threads; what each finds is merged in position order. */
typedef struct half {
    const finder *f;
    uint32_t from, to;
    /* scan_top: per type, the totals of top-level objects below the
     * threshold and the biggest one (its retained size, object, position);
     * the single suspects' positions, rising. */
    uint64_t *group_count, *group_bytes, *best_r;
    uint32_t *best_o, *best_p;
    uint32_t *singles;
    size_t nsingles, singles_cap;
    int oom;
} half;

static int half_alloc(half *s, uint32_t types)
{
    s->group_count = gch_calloc(types, sizeof *s->group_count);
    s->group_bytes = gch_calloc(types, sizeof *s->group_bytes);
    s->best_r = gch_reallocarray(NULL, types, sizeof *s->best_r);
    s->best_o = gch_reallocarray(NULL, types, sizeof *s->best_o);
    s->best_p = gch_reallocarray(NULL, types, sizeof *s->best_p);
    s->singles_cap = 16;
    s->singles = gch_reallocarray(NULL, s->singles_cap, sizeof *s->singles);
    return s->group_count && s->group_bytes && s->best_r && s->best_o && s->best_p && s->singles;
}

static void half_free(half *s)
{
    gch_free(s->group_count);
    gch_free(s->group_bytes);
    gch_free(s->best_r);
    gch_free(s->best_o);
    gch_free(s->best_p);
    gch_free(s->singles);
}

/* The top-level objects of one half: single suspects, and per type the
 * totals of the others. The top-level positions of each block are gathered
 * first without a branch (about half the objects are top-level, at random:
 * a branch per position would guess wrong half the time). */
static int scan_top(void *arg)
{
    half *s = arg;
    const finder *f = s->f;
    const uint32_t *pid = f->t.preorder_idom, *pre = f->t.preorder;
    const uint64_t *r = f->t.preorder_retained;
    const uint16_t *pty = f->t.preorder_type16;
    const uint8_t *top = f->top;
    const double big = f->o->threshold * (double)f->t.live_bytes;
    uint64_t *count = s->group_count, *bytes = s->group_bytes, *best_r = s->best_r;
    uint32_t *best_o = s->best_o, *best_p = s->best_p;
    uint32_t at[1024];
    for (uint32_t base = s->from; base < s->to; base += 1024) {
        uint32_t end = s->to - base < 1024 ? s->to : base + 1024, n = 0;
        for (uint32_t p = base; p < end; p++) {
            at[n] = p;
            n += top ? top[p] == 1 : pid[p] == GCH_DOM_VROOT;
        }
        /* Without the index's types in preorder they are random reads:
         * fetched for the whole block first. */
        for (uint32_t i = 0; !pty && i < n; i++)
            __builtin_prefetch(&f->h->object_type[pre[at[i]]]);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t p = at[i];
            uint64_t rp = r[p];
            if ((double)rp * 100.0 > big) { /* is_big */
                if (s->nsingles == s->singles_cap) {
                    uint32_t *g = gch_reallocarray(s->singles, s->singles_cap * 2, sizeof *g);
                    if (!g) {
                        s->oom = 1;
                        return 0;
                    }
                    s->singles = g;
                    s->singles_cap *= 2;
                }
                s->singles[s->nsingles++] = p;
                continue;
            }
            uint32_t o = pre[p], ty = pty ? pty[p] : f->h->object_type[o];
            /* The best by type in a small table that stays in cache. */
            if (count[ty] == 0 || rp > best_r[ty] || (rp == best_r[ty] && o < best_o[ty])) {
                best_p[ty] = p;
                best_r[ty] = rp;
                best_o[ty] = o;
            }
            count[ty]++;
            bytes[ty] += rp;
        }
    }
    return 0;
}

/* The positions in two halves when two workers run (else all in a). */
static int split_halves(const finder *f, unsigned workers, half *a, half *b)
{
    uint32_t N = (uint32_t)f->t.live_count;
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    a->f = b->f = f;
    a->to = N;
    if (workers < 2)
        return 0;
    a->to = b->from = N / 2;
    b->to = N;
    return 1;
}

/* Half b's per-type totals folded into a's (the best: the bigger, ties the
 * lower object, as one pass in position order keeps). */
static void merge_types(half *a, const half *b, uint32_t types)
{
    for (uint32_t ty = 0; ty < types; ty++) {
        if (!b->group_count[ty])
            continue;
        if (!a->group_count[ty] || b->best_r[ty] > a->best_r[ty] ||
            (b->best_r[ty] == a->best_r[ty] && b->best_o[ty] < a->best_o[ty])) {
            a->best_p[ty] = b->best_p[ty];
            a->best_r[ty] = b->best_r[ty];
            a->best_o[ty] = b->best_o[ty];
        }
        a->group_count[ty] += b->group_count[ty];
        a->group_bytes[ty] += b->group_bytes[ty];
    }
}

/* The suspects, singles first in position order, then the groups by type;
 * each one's position (a group: its biggest instance's) in start_pos. */
static gch_status make_suspects(finder *f, const half *a, const half *b, uint32_t types,
                                gch_error *err)
{
    const uint32_t *pre = f->t.preorder;
    const uint64_t *r = f->t.preorder_retained;
    size_t n = a->nsingles + b->nsingles;
    for (uint32_t ty = 0; ty < types; ty++)
        n += a->group_count[ty] && is_big(a->group_bytes[ty], f->o->threshold, f->t.live_bytes);
    f->items = gch_calloc(n ? n : 1, sizeof *f->items);
    f->start_pos = gch_reallocarray(NULL, n ? n : 1, sizeof *f->start_pos);
    f->walk_pos = gch_reallocarray(NULL, n ? n : 1, sizeof *f->walk_pos);
    f->type_group = gch_calloc(types, sizeof *f->type_group);
    if (!f->items || !f->start_pos || !f->walk_pos || !f->type_group)
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    for (size_t i = 0; i < a->nsingles + b->nsingles; i++) {
        uint32_t p = i < a->nsingles ? a->singles[i] : b->singles[i - a->nsingles];
        gch_suspect *s = &f->items[f->count];
        s->object = pre[p];
        s->type = type_at(f, p);
        s->instances = 1;
        s->retained = r[p];
        f->start_pos[f->count++] = p;
    }
    f->singles = f->count;
    for (uint32_t ty = 0; ty < types; ty++) {
        if (!a->group_count[ty] || !is_big(a->group_bytes[ty], f->o->threshold, f->t.live_bytes))
            continue;
        gch_suspect *s = &f->items[f->count];
        s->group = 1;
        s->object = pre[a->best_p[ty]];
        s->type = ty;
        s->instances = a->group_count[ty];
        s->retained = a->group_bytes[ty];
        f->start_pos[f->count++] = a->best_p[ty];
        f->type_group[ty] = (uint32_t)f->count;
    }
    return GCH_OK;
}

static gch_status top_level(finder *f, gch_error *err)
{
    const uint32_t types = f->h->type_count ? f->h->type_count : 1;
    half a, b;
    int two = split_halves(f, f->workers, &a, &b);
    gch_status st = GCH_OK;
    if (!half_alloc(&a, types) || (two && !half_alloc(&b, types)))
        st = gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    if (st == GCH_OK) {
        gch_run_two(f->workers, 1, scan_top, &a, two ? &b : NULL);
        if (a.oom || b.oom)
            st = gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    }
    if (st == GCH_OK) {
        if (two)
            merge_types(&a, &b, types);
        st = make_suspects(f, &a, &b, types, err);
    }
    half_free(&a);
    half_free(&b);
    return st;
}

/* Every walk to an accumulation point, in one forward pass: the child that
 * keeps big_drop of its parent is unique (big_drop > 0.5) and comes after
 * its parent in preorder, so the walk's next node is always ahead of the
 * scan. A bit set marks where walks are; whose (a byte or uint32_t per
 * position, as the labels) says whose walk is at a marked position. Leaves
 * where each walk stopped in walk_pos. It touches no label: it may run
 * beside count_holds. */
static gch_status walk(finder *f, gch_error *err)
{
    const uint32_t N = (uint32_t)f->t.live_count;
    const uint32_t *pid = f->t.preorder_idom;
    const uint64_t *r = f->t.preorder_retained;
    const double drop = f->o->big_drop;
    if (!f->count)
        return GCH_OK;
    uint64_t *walking = gch_calloc((size_t)N / 64 + 1, sizeof *walking);
    void *whose = gch_reallocarray(NULL, N ? N : 1, f->label_wide ? 4 : 1);
    if (!walking || !whose) {
        gch_free(walking);
        gch_free(whose);
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    }
    uint8_t *w8 = whose;
    uint32_t *w32 = whose;
    for (size_t k = 0; k < f->count; k++) {
        uint32_t p = f->start_pos[k];
        f->walk_pos[k] = p;
        if (f->label_wide)
            w32[p] = (uint32_t)k;
        else
            w8[p] = (uint8_t)k;
        walking[p >> 6] |= 1ull << (p & 63);
    }
    for (uint32_t p = 0; p < N; p++) {
        uint32_t d = pid[p];
        if (d == GCH_DOM_VROOT || !((walking[d >> 6] >> (d & 63)) & 1) ||
            (double)r[p] < drop * (double)r[d])
            continue;
        uint32_t k = f->label_wide ? w32[d] : w8[d];
        walking[d >> 6] &= ~(1ull << (d & 63));
        walking[p >> 6] |= 1ull << (p & 63);
        if (f->label_wide)
            w32[p] = k;
        else
            w8[p] = (uint8_t)k;
        f->walk_pos[k] = p;
        f->items[k].accumulation_depth++;
    }
    gch_free(walking);
    gch_free(whose);
    return GCH_OK;
}

/* One batch of the holds count: suspects [first, first + batch) into cnt
 * and byt (batch * type_count each). The first batch labels every position
 * as it goes: the number + 1 of the suspect above it, 0 for none. Suspects
 * are top-level, so a label comes from the top-level ancestor, and a
 * dominator comes before the objects it dominates; a top-level object is a
 * single suspect (in position order: next is the first not yet passed) or
 * counts for its type's group. The label is chosen without a branch on
 * whether the object is top-level (half are, at random): the virtual root's
 * label is read from the slot after the last position, 0. */
static void count_batch(finder *f, size_t first, size_t batch, uint64_t *cnt, uint64_t *byt)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count, T = h->type_count ? h->type_count : 1;
    const uint32_t *pre = f->t.preorder, *pid = f->t.preorder_idom, *psz = f->t.preorder_size32;
    const uint32_t *start = f->start_pos, *group = f->type_group;
    /* Both or neither (an index's tree has both). */
    const uint16_t *pty = psz ? f->t.preorder_type16 : NULL;
    const uint8_t *top = f->top;
    const int wide = f->label_wide;
    uint8_t *l8 = f->label;
    uint32_t *l32 = f->label;
    size_t next = 0;
    if (first == 0) {
        if (wide)
            l32[N] = 0;
        else
            l8[N] = 0;
    }
    for (uint32_t p = 0; p < N; p++) {
        /* Without the index's types and sizes in preorder they are random
         * reads, fetched ahead. */
        if (!pty && p + AHEAD < N) {
            uint32_t a = pre[p + AHEAD];
            __builtin_prefetch(&h->object_type[a]);
            __builtin_prefetch(&h->object_size32[a]);
        }
        /* A dominator's label lies anywhere before: fetched ahead. */
        if (first == 0 && p + AHEAD < N && pid[p + AHEAD] != GCH_DOM_VROOT)
            __builtin_prefetch(wide ? (const void *)&l32[pid[p + AHEAD]] : &l8[pid[p + AHEAD]]);
        uint32_t d = pid[p], up = d == GCH_DOM_VROOT ? N : d;
        uint32_t ty = pty ? pty[p] : h->object_type[pre[p]], lab;
        if (first == 0) {
            int is_top = top ? top[p] == 1 : d == GCH_DOM_VROOT;
            uint32_t above = wide ? l32[up] : l8[up];
            lab = is_top ? group[ty] : top && top[p] == 2 ? 0 : above;
            if (is_top && next < f->singles && start[next] == p)
                lab = (uint32_t)++next;
            if (wide)
                l32[p] = lab;
            else
                l8[p] = (uint8_t)lab;
        } else {
            lab = wide ? l32[p] : l8[p];
        }
        size_t k = (size_t)lab - 1 - first; /* wraps for 0: not counted */
        if (k >= batch)
            continue;
        size_t at = k * T + ty;
        cnt[at]++;
        byt[at] += pty && psz[p] != GCH_SIZE_BIG ? psz[p] : gch_object_size(h, pre[p]);
    }
}

/* count_batch's common case (the first batch, an index's tree with types
 * and sizes in preorder, a byte per label, no V8 pseudo-nodes), without a
 * branch on what is random (whether an object is top-level, whether it is
 * counted): the label is a choice of two values, an object not counted is
 * counted in one of eight spare slots past the table (eight, so that their
 * sums do not wait for one another). cnt and byt have batch * T + 8 slots. */
static void count_first_bytes(finder *f, size_t batch, uint64_t *cnt, uint64_t *byt)
{
    const gch_heap *h = f->h;
    const uint32_t N = (uint32_t)f->t.live_count, T = h->type_count ? h->type_count : 1;
    const uint32_t *restrict pre = f->t.preorder, *restrict pid = f->t.preorder_idom;
    const uint32_t *restrict psz = f->t.preorder_size32, *restrict start = f->start_pos;
    const uint32_t *restrict group = f->type_group;
    const uint16_t *restrict pty = f->t.preorder_type16;
    uint8_t *restrict l8 = f->label;
    const size_t singles = f->singles, spare = batch * T;
    size_t next = 0;
    l8[N] = 0;
    for (uint32_t p = 0; p < N; p++) {
        /* A dominator's label lies anywhere before: fetched ahead. */
        if (p + AHEAD < N)
            __builtin_prefetch(&l8[pid[p + AHEAD] == GCH_DOM_VROOT ? N : pid[p + AHEAD]]);
        uint32_t d = pid[p], ty = pty[p];
        uint32_t is_top = d == GCH_DOM_VROOT, up = is_top ? N : d;
        uint32_t above = l8[up], g = group[ty];
        uint32_t lab = above ^ ((above ^ g) & (0u - is_top));
        if (next < singles && start[next] == p)
            lab = (uint32_t)++next;
        l8[p] = (uint8_t)lab;
        size_t k = (size_t)lab - 1; /* wraps for 0 */
        size_t at = k < batch ? k * T + ty : spare + (p & 7);
        uint32_t sz = psz[p];
        cnt[at]++;
        byt[at] += sz != GCH_SIZE_BIG ? sz : gch_object_size(h, pre[p]);
    }
}

/* The top `keep` types by bytes of suspect s from its counts (few: an
 * insertion), appended to out->holds at *used. */
static void keep_top_types(const finder *f, gch_suspect *s, const uint64_t *c, const uint64_t *b,
                           gch_suspects *out, size_t *used)
{
    size_t keep = f->o->holds_top;
    s->holds_start = *used;
    for (uint32_t ty = 0; ty < f->h->type_count; ty++)
        s->retained_objects += c[ty];
    for (uint32_t ty = 0; ty < f->h->type_count && keep; ty++) {
        if (!c[ty])
            continue;
        size_t n = s->holds_count, i = n < keep ? n : keep - 1;
        if (n == keep && b[ty] <= out->holds[*used + i].bytes)
            continue;
        while (i > 0 && out->holds[*used + i - 1].bytes < b[ty]) {
            out->holds[*used + i] = out->holds[*used + i - 1];
            i--;
        }
        out->holds[*used + i] = (gch_type_row){ ty, c[ty], b[ty] };
        if (n < keep)
            s->holds_count++;
    }
    *used += s->holds_count;
}

/* holds: per suspect, count and bytes per type of the objects it
 * dominates, the top holds_top kept. Suspects are counted in batches so
 * that the per-type tables stay within about 64 MiB. */
static gch_status count_holds(finder *f, gch_suspects *out, gch_error *err)
{
    const uint32_t T = f->h->type_count ? f->h->type_count : 1;
    size_t per = (64u << 20) / ((size_t)T * 16);
    if (per == 0)
        per = 1;
    size_t keep = f->o->holds_top, used = 0;
    out->holds = gch_reallocarray(NULL, f->count * (keep ? keep : 1) + 1, sizeof *out->holds);
    if (!out->holds)
        return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
    for (size_t first = 0; first < f->count; first += per) {
        size_t batch = f->count - first < per ? f->count - first : per;
        uint64_t *cnt = gch_calloc(batch * T + 8, sizeof *cnt);
        uint64_t *byt = gch_calloc(batch * T + 8, sizeof *byt);
        if (!cnt || !byt) {
            gch_free(cnt);
            gch_free(byt);
            return gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
        }
        if (first == 0 && !f->label_wide && !f->top && f->t.preorder_type16 && f->t.preorder_size32)
            count_first_bytes(f, batch, cnt, byt);
        else
            count_batch(f, first, batch, cnt, byt);
        for (size_t k = 0; k < batch; k++)
            keep_top_types(f, &f->items[first + k], cnt + k * T, byt + k * T, out, &used);
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
    for (size_t k = 0; k < f->count; k++)
        j->at[k] = GCH_NONE; /* until the search reaches it */
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
    for (size_t k = 0; k < f->count; k++)
        if (j->at[k] == GCH_NONE) { /* live in the tree, not reached: a damaged index */
            bfs_free(j);
            return gch_error_set(err, GCH_EFORMAT, "leak suspects: an accumulation point of the "
                                 "dominator tree is not reached from the roots (the tree and the "
                                 "references disagree)");
        }
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
        uint32_t d = gch__paths_bounded_depth(p, f->items[k].accumulation);
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

/* The accumulation points from where the walks stopped. */
static void resolve_walks(finder *f)
{
    for (size_t k = 0; k < f->count; k++) {
        gch_suspect *s = &f->items[k];
        s->accumulation_retained = f->t.preorder_retained[f->walk_pos[k]];
        s->accumulation = f->t.preorder[f->walk_pos[k]];
    }
}

/* The walks, then gch__analysis_parents_ready, on a thread of their own
 * while the holds are counted (they touch neither the labels nor the
 * analysis). */
typedef struct walk_job {
    finder *f;
    gch_analysis *an;
    gch_status st;
    gch_error err;
    const gch_paths *out;
} walk_job;

static int walk_and_read_paths(void *arg)
{
    walk_job *j = arg;
    gch_error_clear(&j->err);
    j->st = walk(j->f, &j->err);
    if (j->st == GCH_OK)
        gch__analysis_parents_ready(j->an, j->f->h, j->f->o->include_weak, &j->out);
    return 0;
}

static void finder_free(finder *f)
{
    gch_free(f->label);
    gch_free(f->walk_pos);
    gch_free(f->start_pos);
    gch_free(f->type_group);
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
    gch_parallel par = gch_parallel_for(opts->threads);
    f.workers = gch_parallel_worth(&par, f.t.live_count) ? par.workers : 1;
    if ((st = mark_top(&f, err)) != GCH_OK || (st = top_level(&f, err)) != GCH_OK)
        goto fail;
    f.label_wide = f.count >= 255;
    f.label = gch_reallocarray(NULL, (size_t)f.t.live_count + 1, f.label_wide ? 4 : 1);
    if (!f.label) {
        st = gch_error_set(err, GCH_ENOMEM, "out of memory finding leak suspects");
        goto fail;
    }
    /* A shortest-path tree the analysis may have without a search (an
     * index's) is read with the walks on a second thread while the labels
     * and holds are counted. */
    int counted = 0;
    if (f.count && gch__analysis_paths_may_be_ready(an, heap, opts->include_weak)) {
        walk_job wj = { &f, an, GCH_OK, { 0 }, NULL };
        gch_thread wt;
        int threaded = f.workers > 1 && gch_thread_start(&wt, f.workers, walk_and_read_paths, &wj);
        st = count_holds(&f, out, err);
        if (threaded)
            gch_thread_join(&wt);
        else
            walk_and_read_paths(&wj);
        if (st == GCH_OK && wj.st != GCH_OK) {
            st = wj.st;
            if (err)
                *err = wj.err;
        }
        if (st != GCH_OK)
            goto fail;
        counted = 1;
        const gch_paths *ready = wj.out;
        resolve_walks(&f);
        if (ready && paths_from_tree(&f, ready, out, err, &st)) {
            if (st != GCH_OK)
                goto fail;
            goto order;
        }
        /* A walk up the parents that does not end: the source's tree with
         * its witness, which then fails and is kept as the source's error
         * (gch_analysis_source_error); the search below finds the paths. */
        if (ready)
            gch__analysis_paths_ready(an, heap, opts->include_weak, &ready);
        if (ready && paths_from_tree(&f, ready, out, err, &st)) {
            if (st != GCH_OK)
                goto fail;
            goto order;
        }
    } else if ((st = walk(&f, err)) != GCH_OK) {
        goto fail;
    } else {
        resolve_walks(&f);
    }
    /* The BFS needs only the accumulation points: on a big heap it runs on a
     * second thread while the labels and holds are counted (they touch other
     * fields of the suspects). */
    bfs_job job;
    /* The BFS reads the references: an index may have deferred them. */
    if ((st = gch__analysis_refs(an, heap, err)) != GCH_OK || (st = bfs_start(&f, &job, err)) != GCH_OK)
        goto fail;
    gch_thread bfs_thread;
    int threaded = f.count && gch_parallel_worth(&par, heap->ref_count) &&
                   gch_thread_start(&bfs_thread, par.workers, bfs_run, &job);
    if (!counted)
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
