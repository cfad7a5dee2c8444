/* The index's derived chunks served to the analysis (gch_analysis_source):
 * dominator trees in preorder, shortest-path trees, reverse references, the
 * id order. Each chunk is checked on first use; a chunk that fails is an
 * error the analysis keeps while it computes the structure itself. */
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/index.h"
#include "gcheap/task.h"
#include "index_read.h"

struct gcx_keep {
    gch_index *ix;
    gch_dump *dump;
    gch_analysis_source src;
    void (*release)(void *);
    void *release_ctx;
    void **owned;            /* arrays derived here (by-object trees) */
    size_t nowned;
    int labels;              /* references asked later come with their labels */
};

/* ---- value checks of the derived chunks ---- */

/* The depth witness's context: the parents (checked in bounds) and the
 * index's threads (gch_index_set_threads). */
typedef struct witness_ctx {
    const uint32_t *parent;
    unsigned threads;
} witness_ctx;

/* Preorder: live objects, each once. A bit per object; the loop has no
 * early exit (the first bad element is searched for only when one is
 * bad), so that the bit reads of later elements overlap. */
static int distinct_below(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *v = data;
    uint32_t n = *(const uint32_t *)ctx;
    uint64_t *seen = gch_calloc((size_t)n / 64 + 1, sizeof *seen);
    if (!seen) {
        *bad_at = 0;
        return 0;
    }
    uint64_t bad = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (i + 64 < count && v[i + 64] < n)
            __builtin_prefetch(&seen[v[i + 64] / 64], 1);
        uint32_t o = v[i] < n ? v[i] : n; /* slot n: out of range, caught by bad */
        bad |= (uint64_t)(v[i] >= n) | ((seen[o / 64] >> (o % 64)) & 1);
        seen[o / 64] |= 1ull << (o % 64);
    }
    if (bad) { /* again, to name the first bad element */
        memset(seen, 0, ((size_t)n / 64 + 1) * sizeof *seen);
        for (uint64_t i = 0;; i++) {
            uint32_t o = v[i];
            if (o >= n || ((seen[o / 64] >> (o % 64)) & 1)) {
                *bad_at = i;
                break;
            }
            seen[o / 64] |= 1ull << (o % 64);
        }
    }
    gch_free(seen);
    return !bad;
}

/* An idom's position comes before its object's (or is the virtual root).
 * Positions in 32 bits (a tree has at most the object count) and no branch
 * (about half the idoms are the virtual root, at random): the loop
 * vectorizes. */
static int idom_before(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *v = data;
    (void)ctx;
    if (count > UINT32_MAX) { /* more positions than objects can have */
        *bad_at = UINT32_MAX;
        return 0;
    }
    uint32_t bad = 0;
    for (uint32_t i = 0; i < (uint32_t)count; i++)
        bad |= (uint32_t)(v[i] != GCH_DOM_VROOT) & (uint32_t)(v[i] >= i);
    if (!bad)
        return 1;
    for (uint64_t i = 0;; i++)
        if (v[i] != GCH_DOM_VROOT && v[i] >= i) {
            *bad_at = i;
            return 0;
        }
}

/* Path parents: objects (below *(const uint32_t *)ctx, the object count),
 * GCH_PATH_ROOT or GCH_NONE. Each value alone: checked behind the
 * checksum, block by block (gcx_get). */
int gcx_parents_below(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *p = data;
    uint32_t n = *(const uint32_t *)ctx;
    uint32_t bad = 0;
    for (uint64_t i = 0; i < count; i++)
        bad |= (uint32_t)(p[i] >= n) & (uint32_t)(p[i] < GCH_PATH_ROOT);
    if (!bad)
        return 1;
    for (uint64_t i = 0;; i++)
        if (p[i] >= n && p[i] < GCH_PATH_ROOT) {
            *bad_at = i;
            return 0;
        }
}

/* A walk up the parents from each deep object (depth GCX_DEPTH_DEEP with a
 * parent), which the depths do not order: it must end at an object of
 * known depth, never at an unreached one nor on itself. Each object is
 * walked once (1 on the walk, 2 done). */
static int deep_walks_end(const uint32_t *p, const uint8_t *d, uint64_t n, uint64_t *bad_at)
{
    unsigned char *state = NULL;
    int ok = 1;
    for (uint64_t s = 0; ok && s < n; s++) {
        if (d[s] != GCX_DEPTH_DEEP || p[s] >= n)
            continue;
        if (!state && !(state = gch_calloc((size_t)n, 1))) {
            *bad_at = s;
            return 0;
        }
        uint64_t x = s;
        while (ok && x < n && state[x] == 0 && d[x] == GCX_DEPTH_DEEP) {
            if (p[x] >= n) { /* unreached (a root has depth 0): not a parent */
                ok = 0;
                *bad_at = s;
                break;
            }
            state[x] = 1;
            x = p[x];
        }
        if (ok && state[x] == 1) { /* back on this walk: a cycle */
            ok = 0;
            *bad_at = x;
        }
        for (x = s; x < n && state[x] == 1; x = p[x])
            state[x] = 2;
    }
    gch_free(state);
    return ok;
}

/* One stretch [from, to) of the depth witness's streaming pass: *bad the
 * first element whose depth is not its parent's plus one (to when none),
 * *deep whether a deep object with a parent is there. */
typedef struct witness_part {
    const uint8_t *d;
    const uint32_t *p;
    uint64_t count, from, to, bad;
    uint32_t deep;
} witness_part;

static unsigned depth_wanted(const uint8_t *d, const uint32_t *p, uint64_t count, uint64_t j)
{
    uint32_t q = p[j];
    unsigned above = q < count ? d[q] : 0u;
    return q == GCH_NONE ? GCX_DEPTH_DEEP
           : q == GCH_PATH_ROOT ? 0u
           : above >= GCX_DEPTH_DEEP - 1 ? GCX_DEPTH_DEEP : above + 1u;
}

static int witness_stretch(void *arg)
{
    witness_part *w = arg;
    const uint8_t *d = w->d;
    const uint32_t *p = w->p;
    uint64_t count = w->count, i = w->from, block = w->from;
    uint32_t bad = 0, deep = 0;
    w->bad = w->to;
    /* In blocks without an exit, the parents' depths fetched ahead (they
     * lie anywhere): the reads overlap. */
    for (uint64_t end = 0; !bad && i < w->to; i = end) {
        block = i;
        end = w->to - i > 4096 ? i + 4096 : w->to;
        for (uint64_t j = i; j < end; j++) {
            if (j + 32 < count && p[j + 32] < count)
                __builtin_prefetch(&d[p[j + 32]]);
            bad |= d[j] != depth_wanted(d, p, count, j);
            deep |= d[j] == GCX_DEPTH_DEEP && p[j] < count;
        }
    }
    if (bad) /* the block again, to name the first bad element */
        for (uint64_t j = block;; j++)
            if (d[j] != depth_wanted(d, p, count, j)) {
                w->bad = j;
                break;
            }
    w->deep = deep;
    return 0;
}

/* With one thread per core (0), a witness this short runs in one stretch:
 * less time than a thread to start. */
#define GCX_WITNESS_SPLIT_MIN (1u << 20)

/* Path depths, the witness that the parents (ctx: a witness_ctx, parents
 * in bounds) hold no cycle: a root object's is 0, an unreached object's
 * GCX_DEPTH_DEEP, any other's its parent's plus one (GCX_DEPTH_DEEP from
 * there on). Then the parents strictly lower the depth but among deep
 * objects, walked. The streaming pass (random reads of the parents'
 * depths) runs in two halves on two threads when the index has them; the
 * first bad element is the first half's, else the second's, as in one
 * pass. */
static int depth_witness(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const witness_ctx *c = ctx;
    const uint8_t *d = data;
    const uint32_t *p = c->parent;
    uint64_t half = count / 2;
    int split = c->threads != 1 && half > 0 && (c->threads != 0 || count >= GCX_WITNESS_SPLIT_MIN);
    witness_part a = { d, p, count, 0, split ? half : count, 0, 0 };
    witness_part b = { d, p, count, half, count, count, 0 };
    /* The second half on a thread (without one, it runs in
     * gch_task_finish; out of memory, in gch_task_start). */
    gch_task *t = split ? gch_task_start(c->threads, witness_stretch, &b) : NULL;
    witness_stretch(&a);
    gch_task_finish(t);
    if (a.bad < a.to || (split && b.bad < b.to)) {
        *bad_at = a.bad < a.to ? a.bad : b.bad;
        return 0;
    }
    return !(a.deep | (split ? b.deep : 0)) || deep_walks_end(p, d, count, bad_at);
}

/* Distances: ctx the counts they must agree with. */
typedef struct dist_ctx {
    uint64_t far, live;
} dist_ctx;

static int distances_agree(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint8_t *d = data;
    const dist_ctx *c = ctx;
    uint64_t far = 0, unreached = 0;
    unsigned over = 0; /* a distance is below the object count */
    /* Counted in blocks with 32-bit counters, then added up: the inner
     * loop vectorizes (64-bit counters of byte compares do not). */
    unsigned lim = count < GCX_DIST_FAR ? (unsigned)count : GCX_DIST_FAR;
    for (uint64_t b = 0; b < count; b += 1u << 16) {
        uint64_t end = count - b < (1u << 16) ? count : b + (1u << 16);
        uint32_t f = 0, u = 0, o = 0;
        for (uint64_t i = b; i < end; i++) {
            f += d[i] == GCX_DIST_FAR;
            u += d[i] == GCX_DIST_NONE;
            o |= d[i] >= lim && d[i] < GCX_DIST_FAR;
        }
        far += f;
        unreached += u;
        over |= o;
    }
    *bad_at = 0;
    return !over && far == c->far && count - unreached == c->live;
}

/* The far distances: objects rising, each marked GCX_DIST_FAR in the DIST
 * bytes, with a distance from GCX_DIST_FAR below the object count. */
typedef struct far_ctx {
    const uint8_t *near;
    uint32_t n;
} far_ctx;

static int far_agree(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const gcx_far *f = data;
    const far_ctx *c = ctx;
    for (uint64_t i = 0; i < count; i++)
        if (f[i].object >= c->n || c->near[f[i].object] != GCX_DIST_FAR ||
            f[i].distance < GCX_DIST_FAR || f[i].distance >= c->n ||
            (i && f[i].object <= f[i - 1].object)) {
            *bad_at = i;
            return 0;
        }
    return 1;
}

/* Types in preorder (DPTY): below the type count, and no type more often
 * than it has objects (the per-type totals, checked against the objects on
 * load). Like DPSZ's sizes (checked by their sum), the values are not
 * compared one by one with OTYP: that is the random read they spare. */
static int preorder_types(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint16_t *v = data;
    const gch_heap *h = ctx;
    uint32_t nt = h->type_count;
    uint32_t *seen = gch_calloc(GCX_DPTY_TYPES, sizeof *seen);
    if (!seen) {
        *bad_at = 0;
        return 0;
    }
    for (uint64_t i = 0; i < count; i++)
        seen[v[i]]++;
    int ok = 1;
    for (uint32_t t = 0; t < GCX_DPTY_TYPES && ok; t++)
        ok = seen[t] == 0 || (t < nt && (!h->type_objects || seen[t] <= h->type_objects[t]));
    if (!ok) { /* the first element of a type out of bounds or counted too often */
        memset(seen, 0, GCX_DPTY_TYPES * sizeof *seen);
        for (uint64_t i = 0;; i++) {
            uint16_t t = v[i];
            if (t >= nt || (h->type_objects && ++seen[t] > h->type_objects[t])) {
                *bad_at = i;
                break;
            }
        }
    }
    gch_free(seen);
    return ok;
}

/* ---- the chunks of a tree, of paths, of reverse references ---- */

typedef struct tree_chunks {
    const uint64_t *rec;     /* live count, live bytes */
    const uint32_t *pre, *pid, *psz;
    const uint16_t *pty;     /* NULL: no DPTY (many types, or an older index) */
} tree_chunks;

/* types: DPTY too, when there (a walk in preorder reads it). */
static gch_status get_tree(gch_index *ix, uint32_t hi, const gch_heap *h, unsigned view,
                           int types, tree_chunks *t, gch_error *err)
{
    gch_status st;
    uint32_t n = h->object_count;
    memset(t, 0, sizeof *t);
    t->rec = gcx_get(ix, hi, GCX_DREC, view, 8, 2, 1, NULL, NULL, &st, err);
    if (!t->rec)
        return st;
    uint64_t live = t->rec[0];
    if (live > n)
        return gch_error_set(err, GCH_EFORMAT, "index: section %u: more live objects than objects",
                             hi);
    /* The preorder's check (random reads of a bitmap) beside the others. */
    gcx_get_job pre = { .heap = hi, .tag = GCX_DPRE, .elem = 4, .view = view, .count = live,
                        .required = 1, .check = distinct_below, .ctx = &n };
    gcx_get_beside(ix, &pre);
    t->pid = gcx_get(ix, hi, GCX_DPID, view, 4, live, 1, idom_before, NULL, &st, err);
    if (t->pid)
        t->psz = gcx_get(ix, hi, GCX_DPSZ, view, 4, live, 1, NULL, NULL, &st, err);
    if (t->psz && types)
        t->pty = gcx_get(ix, hi, GCX_DPTY, view, 2, live, 0, preorder_types, h, &st, err);
    gch_status own = st;
    gch_error mine;
    gcx_error_keep(&mine, err);
    t->pre = gcx_get_join(ix, &pre, &st, err);
    if (!t->pre)
        return st; /* the preorder's error first, as when checked first */
    if (own != GCH_OK)
        gcx_error_put(err, &mine);
    st = own;
    if (!t->psz || st != GCH_OK) {
        t->pre = t->pid = t->psz = NULL;
        t->pty = NULL;
    }
    return t->psz && st == GCH_OK ? GCH_OK : st;
}

/* Retained sizes in preorder, from the shallow sizes kept in preorder
 * (a big one from the model's big sizes) into ret, which starts zeroed:
 * every object comes after its immediate dominator, so one pass from the
 * end finds each object's subtree summed in ret[i], adds its own size and
 * passes the total up (one pass over fresh memory, not a fill and then a
 * pass: the 100M-object index). They must add up to the live bytes. */
uint64_t gcx_retained(const uint32_t *pre, const uint32_t *pid, const uint32_t *psz,
                      uint64_t live, const gch_heap *h, uint64_t *ret)
{
    /* The top-level objects' totals go to a slot past the last position,
     * ret[live]: no branch on whether an object is top-level (about half
     * are, at random). */
    for (uint64_t i = live; i-- > 0;) {
        if (i >= 32)
            __builtin_prefetch(&ret[pid[i - 32] == GCH_DOM_VROOT ? live : pid[i - 32]], 1);
        uint32_t s = psz[i];
        uint64_t r = ret[i] + (s != GCH_SIZE_BIG ? s : gch_heap_big_size(h, pre[i]));
        ret[i] = r;
        ret[pid[i] == GCH_DOM_VROOT ? live : pid[i]] += r;
    }
    return ret[live];
}

static gch_status retained_sizes(const tree_chunks *t, const gch_heap *h, uint32_t hi,
                                 uint64_t *ret, gch_error *err)
{
    if (gcx_retained(t->pre, t->pid, t->psz, t->rec[0], h, ret) != t->rec[1])
        return gch_error_set(err, GCH_EFORMAT, "index: section %u: the dominator tree's sizes "
                             "disagree with its live bytes", hi);
    return GCH_OK;
}

typedef struct path_chunks {
    const uint32_t *parent, *objects, *records;
    uint64_t count;
} path_chunks;

/* witness: the depths too, the witness that the parents hold no cycle
 * (without it, a caller bounds each walk up the parents itself). */
static gch_status get_paths(gch_index *ix, uint32_t hi, const gch_heap *h, unsigned view,
                            int witness, path_chunks *p, gch_error *err)
{
    gch_status st;
    uint32_t n = h->object_count;
    gcx_limit32 records = { h->root_count, 0 };
    memset(p, 0, sizeof *p);
    p->parent = gcx_get(ix, hi, GCX_PPAR, view, 4, n, 1, gcx_parents_below, &n, &st, err);
    witness_ctx w = { p->parent, ix->threads };
    if (witness && p->parent &&
        !gcx_get(ix, hi, GCX_PDEP, view, 1, n, 1, depth_witness, &w, &st, err))
        p->parent = NULL;
    if (p->parent)
        p->objects = gcx_get(ix, hi, GCX_PROB, view, 4, UINT64_MAX, 1, gcx_rising_below32, &n, &st, err);
    if (!p->objects)
        return st;
    uint32_t pos;
    (void)gcx_chunk(ix, hi, GCX_PROB, view, 4, UINT64_MAX, 1, &(const void *){ NULL }, &pos, err);
    p->count = ix->toc[pos].count;
    p->records = gcx_get(ix, hi, GCX_PREC, view, 4, p->count, 1, gcx_below32, &records, &st, err);
    return p->records ? GCH_OK : st;
}

/* A view's distances, checked: near (one byte an object, GCX_DIST_FAR and
 * GCX_DIST_NONE as index_format.h says) and the far ones (*nfar, objects
 * rising). The tree's live count bounds what they reach. */
typedef struct dist_chunks {
    const uint8_t *near;
    const gcx_far *far;
    uint64_t nfar;
} dist_chunks;

static gch_status dist_chunks_get(gch_index *ix, uint32_t hi, const gch_heap *h, unsigned view,
                                  dist_chunks *out, gch_error *err)
{
    gch_status st;
    uint32_t n = h->object_count, pos;
    const uint64_t *rec = gcx_get(ix, hi, GCX_DREC, view, 8, 2, 1, NULL, NULL, &st, err);
    const void *any;
    if (!rec || (st = gcx_chunk(ix, hi, GCX_DSTX, view, sizeof(gcx_far), UINT64_MAX, 1, &any,
                                &pos, err)) != GCH_OK)
        return st;
    dist_ctx c = { ix->toc[pos].count, rec[0] };
    out->near = gcx_get(ix, hi, GCX_DIST, view, 1, n, 1, distances_agree, &c, &st, err);
    if (!out->near)
        return st;
    far_ctx fc = { out->near, n };
    out->far = gcx_get(ix, hi, GCX_DSTX, view, sizeof(gcx_far), c.far, 1, far_agree, &fc, &st,
                       err);
    out->nfar = c.far;
    return st;
}

/* The distance of object o (GCH_NONE: unreachable): a far one found in
 * the far list (checked: each GCX_DIST_FAR object is in it). */
static uint32_t distance_of(const dist_chunks *d, uint32_t o)
{
    uint8_t b = d->near[o];
    if (b == GCX_DIST_NONE)
        return GCH_NONE;
    if (b != GCX_DIST_FAR)
        return b;
    uint64_t lo = 0, hi = d->nfar;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (d->far[mid].object < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < d->nfar ? d->far[lo].distance : GCH_NONE; /* never past: checked */
}

/* The distances of a view, by object (GCH_NONE: unreachable) into dist
 * (n entries) when not NULL. */
static gch_status get_distances(gch_index *ix, uint32_t hi, const gch_heap *h, unsigned view,
                                uint32_t *dist, gch_error *err)
{
    dist_chunks d;
    gch_status st = dist_chunks_get(ix, hi, h, view, &d, err);
    if (st != GCH_OK || !dist)
        return st;
    for (uint32_t o = 0; o < h->object_count; o++)
        dist[o] = d.near[o] == GCX_DIST_NONE ? GCH_NONE : d.near[o];
    for (uint64_t k = 0; k < d.nfar; k++)
        dist[d.far[k].object] = d.far[k].distance;
    return GCH_OK;
}

static gch_status get_reverse(gch_index *ix, uint32_t hi, const gch_heap *h, const uint32_t **start,
                              const uint32_t **source, gch_error *err)
{
    gch_status st;
    gcx_limit32 objs = { h->object_count, 0 };
    uint64_t refs = h->ref_count;
    *source = NULL;
    gcx_get_job sources = { .heap = hi, .tag = GCX_INSR, .elem = 4, .count = refs, .required = 1,
                            .check = gcx_below32, .ctx = &objs };
    gcx_get_beside(ix, &sources);
    gcx_csr_ctx sc = gcx_csr_ctx_of(refs, (uint64_t)h->object_count + 1);
    *start = gcx_get(ix, hi, GCX_INST, 0, 4, (uint64_t)h->object_count + 1, 1, gcx_csr_starts,
                     &sc, &st, err);
    gch_status own = st;
    gch_error mine;
    gcx_error_keep(&mine, err);
    *source = gcx_get_join(ix, &sources, &st, err);
    if (!*start) { /* the starts' error first, as when checked first */
        st = own;
        gcx_error_put(err, &mine);
        *source = NULL;
    }
    return *start && *source ? GCH_OK : st;
}

gch_status gcx_check_derived(gch_index *ix, uint32_t hi, const gch_heap *h, gch_error *err)
{
    tree_chunks t;
    path_chunks p;
    const uint32_t *s, *r;
    gch_status st = get_reverse(ix, hi, h, &s, &r, err);
    for (unsigned v = 0; v < 2 && st == GCH_OK; v++) {
        st = get_tree(ix, hi, h, v, 1, &t, err);
        if (st == GCH_OK) {
            uint64_t *ret = gch_calloc((size_t)t.rec[0] + 1, sizeof *ret);
            st = ret ? retained_sizes(&t, h, hi, ret, err)
                     : gch_error_set(err, GCH_ENOMEM, "out of memory checking the index");
            gch_free(ret);
        }
        if (st == GCH_OK)
            st = get_paths(ix, hi, h, v, 1, &p, err);
        if (st == GCH_OK)
            st = get_distances(ix, hi, h, v, NULL, err);
    }
    if (st == GCH_OK)
        (void)gcx_get(ix, hi, GCX_IDOR, 0, 4, h->object_count, 0, gcx_ids_sorted, h, &st, err);
    return st;
}

/* ---- the source ---- */

static int heap_index(const gcx_keep *k, const gch_heap *h, uint32_t *hi)
{
    for (size_t i = 0; i < k->dump->heap_count; i++)
        if (k->dump->heaps[i] == h) {
            *hi = (uint32_t)i;
            return !h->histogram_only;
        }
    return 0;
}

static void *keep_alloc_ex(gcx_keep *k, size_t n, size_t size, int zeroed)
{
    void **grown = gch_reallocarray(k->owned, k->nowned + 1, sizeof *k->owned);
    if (!grown)
        return NULL;
    k->owned = grown;
    void *p = zeroed ? gch_calloc(n ? n : 1, size) : gch_reallocarray(NULL, n ? n : 1, size);
    if (p)
        k->owned[k->nowned++] = p;
    return p;
}

static void *keep_alloc(gcx_keep *k, size_t n, size_t size)
{
    return keep_alloc_ex(k, n, size, 0);
}

static gch_status src_tree(void *ctx, const gch_heap *heap, int include_weak, gch_domtree *out,
                           unsigned *parts, int *found, gch_error *err)
{
    gcx_keep *k = ctx;
    uint32_t hi;
    *found = 0;
    if (!heap_index(k, heap, &hi))
        return GCH_OK;
    unsigned want = *parts;
    tree_chunks t;
    gch_status st = get_tree(k->ix, hi, heap, include_weak != 0, (want & GCH_TREE_PREORDER_IDOM) != 0,
                              &t, err);
    if (st != GCH_OK)
        return st;
    memset(out, 0, sizeof *out);
    uint32_t n = heap->object_count;
    out->object_count = n;
    out->live_count = t.rec[0];
    out->live_bytes = t.rec[1];
    uint64_t *prr = keep_alloc_ex(k, (size_t)t.rec[0] + 1, sizeof *prr, 1);
    if (!prr)
        return gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
    if ((st = retained_sizes(&t, heap, hi, prr, err)) != GCH_OK)
        return st;
    out->preorder = (uint32_t *)t.pre;
    out->preorder_retained = prr;
    out->preorder_idom = (uint32_t *)t.pid;
    out->preorder_type16 = t.pty;
    out->preorder_size32 = t.psz;
    *parts = GCH_TREE_PREORDER | GCH_TREE_PREORDER_IDOM;
    if (want & GCH_TREE_BY_OBJECT) {
        /* By object, from the preorder: one pass, no build. */
        uint32_t *idom = keep_alloc(k, n, sizeof *idom);
        uint64_t *ret = idom ? keep_alloc(k, n, sizeof *ret) : NULL;
        if (!ret)
            return gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
        for (uint32_t o = 0; o < n; o++) {
            idom[o] = GCH_NONE;
            ret[o] = 0;
        }
        for (uint64_t i = 0; i < out->live_count; i++) {
            idom[t.pre[i]] = t.pid[i] == GCH_DOM_VROOT ? GCH_DOM_VROOT : t.pre[t.pid[i]];
            ret[t.pre[i]] = prr[i];
        }
        out->idom = idom;
        out->retained = ret;
        *parts |= GCH_TREE_BY_OBJECT;
    }
    *found = 1;
    return GCH_OK;
}

static gch_status paths_of(gcx_keep *k, const gch_heap *heap, int include_weak, int witness,
                           gch_paths *out, int *found, gch_error *err)
{
    uint32_t hi;
    *found = 0;
    if (!heap_index(k, heap, &hi))
        return GCH_OK;
    path_chunks p;
    gch_status st = get_paths(k->ix, hi, heap, include_weak != 0, witness, &p, err);
    if (st != GCH_OK)
        return st;
    out->object_count = heap->object_count;
    out->parent = (uint32_t *)p.parent;
    out->root_object_count = (uint32_t)p.count;
    out->root_objects = (uint32_t *)p.objects;
    out->root_records = (uint32_t *)p.records;
    *found = 1;
    return GCH_OK;
}

static gch_status src_paths(void *ctx, const gch_heap *heap, int include_weak, gch_paths *out,
                            int *found, gch_error *err)
{
    return paths_of(ctx, heap, include_weak, 1, out, found, err);
}

static gch_status src_parents(void *ctx, const gch_heap *heap, int include_weak, gch_paths *out,
                              int *found, gch_error *err)
{
    return paths_of(ctx, heap, include_weak, 0, out, found, err);
}

static gch_status src_reverse(void *ctx, gch_heap *heap, int *found, gch_error *err)
{
    gcx_keep *k = ctx;
    uint32_t hi;
    *found = 0;
    if (!heap_index(k, heap, &hi))
        return GCH_OK;
    const uint32_t *s, *r;
    gch_status st = get_reverse(k->ix, hi, heap, &s, &r, err);
    if (st != GCH_OK)
        return st;
    heap->in_start = (uint32_t *)s;
    heap->in_source = (uint32_t *)r;
    heap->borrowed |= GCH_BORROWED_REVERSE;
    *found = 1;
    return GCH_OK;
}

static gch_status src_lookup(void *ctx, const gch_heap *heap, const uint32_t **sorted,
                             int *increasing, int *found, gch_error *err)
{
    gcx_keep *k = ctx;
    uint32_t hi;
    *found = 0;
    if (!heap_index(k, heap, &hi))
        return GCH_OK;
    gch_status st;
    *sorted = gcx_get(k->ix, hi, GCX_IDOR, 0, 4, heap->object_count, 0, gcx_ids_sorted, heap, &st, err);
    if (st != GCH_OK)
        return st;
    *increasing = 0;
    uint32_t pos;
    if (!*sorted && gcx_chunk(k->ix, hi, GCX_OIDS, 0, 8, heap->object_count, 1,
                              &(const void *){ NULL }, &pos, NULL) == GCH_OK &&
        (k->ix->checked[pos] & GCX_RISING)) {
        *increasing = 1; /* seen rising when the ids were loaded */
    } else if (!*sorted) { /* no order: the ids must rise (checked: a binary search relies on it) */
        for (uint32_t i = 1; i < heap->object_count; i++)
            if (heap->object_id[i - 1] >= heap->object_id[i])
                return gch_error_set(err, GCH_EFORMAT, "index: section %u: ids do not rise and "
                                     "no id order is given", hi);
        *increasing = 1;
    }
    *found = 1;
    return GCH_OK;
}

static gch_status src_distance(void *ctx, const gch_heap *heap, int include_weak,
                               const uint32_t **dist, int *found, gch_error *err)
{
    gcx_keep *k = ctx;
    uint32_t hi;
    *found = 0;
    if (!heap_index(k, heap, &hi))
        return GCH_OK;
    uint32_t *d = keep_alloc(k, heap->object_count, sizeof *d);
    if (!d)
        return gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
    gch_status st = get_distances(k->ix, hi, heap, include_weak != 0, d, err);
    if (st != GCH_OK)
        return st;
    *dist = d;
    *found = 1;
    return GCH_OK;
}

/* The distances of a few objects, from the checked chunks: no array of
 * every object's distance. */
static gch_status src_distances_of(void *ctx, const gch_heap *heap, int include_weak,
                                   const uint32_t *objects, size_t n, uint32_t *out, int *found,
                                   gch_error *err)
{
    gcx_keep *k = ctx;
    uint32_t hi;
    *found = 0;
    if (!heap_index(k, heap, &hi))
        return GCH_OK;
    dist_chunks d;
    gch_status st = dist_chunks_get(k->ix, hi, heap, include_weak != 0, &d, err);
    if (st != GCH_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        out[i] = distance_of(&d, objects[i]);
    *found = 1;
    return GCH_OK;
}

/* The reached objects from the distance bytes (checked as for
 * src_distance), without the 4-byte distances: refs' live column. */
static gch_status src_reached(void *ctx, const gch_heap *heap, int include_weak, uint8_t *mask,
                              int *found, gch_error *err)
{
    gcx_keep *k = ctx;
    uint32_t hi;
    *found = 0;
    if (!heap_index(k, heap, &hi))
        return GCH_OK;
    gch_status st = get_distances(k->ix, hi, heap, include_weak != 0, NULL, err);
    if (st != GCH_OK)
        return st;
    const uint8_t *near = gcx_get(k->ix, hi, GCX_DIST, include_weak != 0, 1, heap->object_count,
                                  1, NULL, NULL, &st, err);
    if (!near)
        return st;
    for (uint32_t o = 0; o < heap->object_count; o++)
        mask[o] = near[o] != GCX_DIST_NONE;
    *found = 1;
    return GCH_OK;
}

/* References not read at load (GCH_INDEX_REFS_LATER), asked for by an
 * analysis about to compute from them. */
static gch_status src_refs(void *ctx, gch_heap *heap, gch_error *err)
{
    gcx_keep *k = ctx;
    uint32_t hi;
    if (heap->out_start || !heap_index(k, heap, &hi))
        return GCH_OK;
    return gcx_load_refs(k->ix, hi, heap, k->labels, 0, err);
}

gcx_keep *gcx_keep_new(gch_index *ix, gch_dump *d, int labels, void (*release)(void *),
                       void *release_ctx)
{
    gcx_keep *k = gch_calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->ix = ix;
    k->dump = d;
    k->release = release;
    k->release_ctx = release_ctx;
    k->src.ctx = k;
    k->src.tree = src_tree;
    k->src.paths = src_paths;
    k->src.parents = src_parents;
    k->src.reverse = src_reverse;
    k->src.lookup = src_lookup;
    k->src.distance = src_distance;
    k->src.refs = src_refs;
    k->src.reached = src_reached;
    k->src.distances_of = src_distances_of;
    k->labels = labels;
    d->source = &k->src;
    d->release = gcx_keep_release;
    d->release_ctx = k;
    return k;
}

void gcx_keep_release(void *keep)
{
    gcx_keep *k = keep;
    for (size_t i = 0; i < k->nowned; i++)
        gch_free(k->owned[i]);
    gch_free(k->owned);
    gch_index_close(k->ix);
    if (k->release)
        k->release(k->release_ctx);
    gch_free(k);
}
