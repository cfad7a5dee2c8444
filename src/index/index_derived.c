/* The index's derived chunks served to the analysis (gch_analysis_source):
 * dominator trees in preorder, shortest-path trees, reverse references, the
 * id order. Each chunk is checked on first use; a chunk that fails is an
 * error the analysis keeps while it computes the structure itself. */
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/index.h"
#include "index_read.h"

struct gcx_keep {
    gch_index *ix;
    gch_dump *dump;
    gch_analysis_source src;
    void (*release)(void *);
    void *release_ctx;
    void **owned;            /* arrays derived here (by-object trees) */
    size_t nowned;
};

/* ---- value checks of the derived chunks ---- */

/* Preorder: live objects, each once. */
static int distinct_below(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *v = data;
    uint32_t n = *(const uint32_t *)ctx;
    unsigned char *seen = gch_calloc((size_t)n / 8 + 1, 1);
    int ok = seen != NULL;
    for (uint64_t i = 0; ok && i < count; i++) {
        if (v[i] >= n || (seen[v[i] / 8] & (1u << (v[i] % 8)))) {
            *bad_at = i;
            ok = 0;
        } else {
            seen[v[i] / 8] |= (unsigned char)(1u << (v[i] % 8));
        }
    }
    gch_free(seen);
    return ok;
}

/* An idom's position comes before its object's (or is the virtual root). */
static int idom_before(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *v = data;
    (void)ctx;
    for (uint64_t i = 0; i < count; i++)
        if (v[i] != GCH_DOM_VROOT && v[i] >= i) {
            *bad_at = i;
            return 0;
        }
    return 1;
}

/* Path parents: objects, GCH_PATH_ROOT or GCH_NONE, and no cycle (a walk
 * to the root ends): each chain is followed once, marking what it passed. */
static int parents_acyclic(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *p = data;
    (void)ctx;
    for (uint64_t i = 0; i < count; i++)
        if ((p[i] >= count && p[i] != GCH_PATH_ROOT && p[i] != GCH_NONE) ||
            (p[i] < count && p[p[i]] == GCH_NONE)) { /* a parent must itself be reached */
            *bad_at = i;
            return 0;
        }
    unsigned char *state = gch_calloc(count ? (size_t)count : 1, 1); /* 1 on the walk, 2 done */
    if (!state) {
        *bad_at = 0;
        return 0;
    }
    int ok = 1;
#define NEXT(o) (p[o] < count ? (uint64_t)p[o] : count)
    for (uint64_t s = 0; ok && s < count; s++) {
        uint64_t o = s;
        while (o < count && state[o] == 0) {
            state[o] = 1;
            o = NEXT(o);
        }
        if (o < count && state[o] == 1) { /* back on this walk: a cycle */
            *bad_at = o;
            ok = 0;
        }
        for (o = s; o < count && state[o] == 1; o = NEXT(o))
            state[o] = 2;
    }
#undef NEXT
    gch_free(state);
    return ok;
}

/* ---- the chunks of a tree, of paths, of reverse references ---- */

typedef struct tree_chunks {
    const uint64_t *rec;     /* live count, live bytes */
    const uint32_t *pre, *pid;
    const uint64_t *prr;
} tree_chunks;

static gch_status get_tree(gch_index *ix, uint32_t hi, const gch_heap *h, unsigned view,
                           tree_chunks *t, gch_error *err)
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
    t->pre = gcx_get(ix, hi, GCX_DPRE, view, 4, live, 1, distinct_below, &n, &st, err);
    if (t->pre)
        t->prr = gcx_get(ix, hi, GCX_DPRR, view, 8, live, 1, NULL, NULL, &st, err);
    if (t->prr)
        t->pid = gcx_get(ix, hi, GCX_DPID, view, 4, live, 1, idom_before, NULL, &st, err);
    return t->pid ? GCH_OK : st;
}

typedef struct path_chunks {
    const uint32_t *parent, *objects, *records;
    uint64_t count;
} path_chunks;

static gch_status get_paths(gch_index *ix, uint32_t hi, const gch_heap *h, unsigned view,
                            path_chunks *p, gch_error *err)
{
    gch_status st;
    uint32_t n = h->object_count;
    gcx_limit32 records = { h->root_count, 0 };
    memset(p, 0, sizeof *p);
    p->parent = gcx_get(ix, hi, GCX_PPAR, view, 4, n, 1, parents_acyclic, NULL, &st, err);
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

static gch_status get_reverse(gch_index *ix, uint32_t hi, const gch_heap *h, const uint32_t **start,
                              const uint32_t **source, gch_error *err)
{
    gch_status st;
    gcx_limit32 objs = { h->object_count, 0 };
    uint64_t refs = h->ref_count;
    *source = NULL;
    *start = gcx_get(ix, hi, GCX_INST, 0, 4, (uint64_t)h->object_count + 1, 1, gcx_csr_starts,
                     &refs, &st, err);
    if (*start)
        *source = gcx_get(ix, hi, GCX_INSR, 0, 4, refs, 1, gcx_below32, &objs, &st, err);
    return *start && *source ? GCH_OK : st;
}

gch_status gcx_check_derived(gch_index *ix, uint32_t hi, const gch_heap *h, gch_error *err)
{
    tree_chunks t;
    path_chunks p;
    const uint32_t *s, *r;
    gch_status st = get_reverse(ix, hi, h, &s, &r, err);
    for (unsigned v = 0; v < 2 && st == GCH_OK; v++) {
        st = get_tree(ix, hi, h, v, &t, err);
        if (st == GCH_OK)
            st = get_paths(ix, hi, h, v, &p, err);
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

static void *keep_alloc(gcx_keep *k, size_t n, size_t size)
{
    void **grown = gch_reallocarray(k->owned, k->nowned + 1, sizeof *k->owned);
    if (!grown)
        return NULL;
    k->owned = grown;
    void *p = gch_reallocarray(NULL, n ? n : 1, size);
    if (p)
        k->owned[k->nowned++] = p;
    return p;
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
    gch_status st = get_tree(k->ix, hi, heap, include_weak != 0, &t, err);
    if (st != GCH_OK)
        return st;
    memset(out, 0, sizeof *out);
    uint32_t n = heap->object_count;
    out->object_count = n;
    out->live_count = t.rec[0];
    out->live_bytes = t.rec[1];
    out->preorder = (uint32_t *)t.pre;
    out->preorder_retained = (uint64_t *)t.prr;
    out->preorder_idom = (uint32_t *)t.pid;
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
            ret[t.pre[i]] = t.prr[i];
        }
        out->idom = idom;
        out->retained = ret;
        *parts |= GCH_TREE_BY_OBJECT;
    }
    *found = 1;
    return GCH_OK;
}

static gch_status src_paths(void *ctx, const gch_heap *heap, int include_weak, gch_paths *out,
                            int *found, gch_error *err)
{
    gcx_keep *k = ctx;
    uint32_t hi;
    *found = 0;
    if (!heap_index(k, heap, &hi))
        return GCH_OK;
    path_chunks p;
    gch_status st = get_paths(k->ix, hi, heap, include_weak != 0, &p, err);
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
    if (!*sorted) { /* no order: the ids must rise (checked: a binary search relies on it) */
        for (uint32_t i = 1; i < heap->object_count; i++)
            if (heap->object_id[i - 1] >= heap->object_id[i])
                return gch_error_set(err, GCH_EFORMAT, "index: section %u: ids do not rise and "
                                     "no id order is given", hi);
        *increasing = 1;
    }
    *found = 1;
    return GCH_OK;
}

gcx_keep *gcx_keep_new(gch_index *ix, gch_dump *d, void (*release)(void *), void *release_ctx)
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
    k->src.reverse = src_reverse;
    k->src.lookup = src_lookup;
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
