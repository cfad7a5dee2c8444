/* Writing an index: the dump's arrays as chunks, each checksummed, behind a
 * header and before a table of contents (docs/index-format.md). The arrays
 * are written as they lie in memory: nothing is copied but the small records.
 * Each chunk goes to the stream (index_stream.h) as soon as it is ready: the
 * model's before the trees are computed, so that a writer thread writes them
 * meanwhile; the per-view chunks are prepared on two threads, one view each. */
#include <stddef.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/index.h"
#include "gcheap/paths.h"
#include "grow.h"
#include "index_format.h"
#include "index_internal.h"
#include "index_stream.h"
#include "threading.h"

typedef struct writer {
    gcx_stream *s;
    void **owned;            /* the records built here, freed at the end */
    size_t nowned, owned_cap;
    int failed;              /* out of memory here, or the stream stopped */
    gch_parallel par;        /* the analysis's threads */
} writer;

static void add(writer *w, uint32_t tag, size_t heap, unsigned view, size_t elem, const void *data,
                uint64_t count)
{
    if (!w->failed &&
        !gcx_stream_add(w->s, tag, heap == GCX_NO_HEAP ? GCX_NO_HEAP : (uint16_t)heap,
                        (uint16_t)view, (uint32_t)elem, data, count, 0))
        w->failed = 1;
}

/* Takes p (allocated here) into the buffers freed at the end; frees it
 * and fails when it cannot. */
static void *adopt(writer *w, void *p)
{
    if (p && gch_grow((void **)&w->owned, &w->owned_cap, w->nowned + 1, sizeof *w->owned, 16)) {
        w->owned[w->nowned++] = p;
        return p;
    }
    gch_free(p);
    w->failed = 1;
    return NULL;
}

/* A zeroed buffer the writer frees when done (records, the meta strings). */
static void *own(writer *w, size_t n)
{
    return adopt(w, gch_calloc(1, n ? n : 1));
}

static void add_text(writer *w, uint32_t tag, size_t heap, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = own(w, n);
    if (p) {
        memcpy(p, s, n);
        add(w, tag, heap, 0, 1, p, n);
    }
}

static void add_meta(writer *w, size_t hi, const gch_heap *h)
{
    size_t n = 0;
    for (size_t i = 0; i < h->meta_count; i++)
        n += strlen(h->meta[i].key) + strlen(h->meta[i].value) + 2;
    char *p = own(w, n);
    if (!p)
        return;
    size_t at = 0;
    for (size_t i = 0; i < h->meta_count; i++) {
        size_t k = strlen(h->meta[i].key) + 1, v = strlen(h->meta[i].value) + 1;
        memcpy(p + at, h->meta[i].key, k);
        memcpy(p + at + k, h->meta[i].value, v);
        at += k + v;
    }
    add(w, GCX_META, hi, 0, 1, p, n);
}

static void add_heap(writer *w, size_t hi, const gch_heap *h)
{
    gcx_heap_rec *r = own(w, sizeof *r);
    if (!r)
        return;
    uint32_t n = h->object_count, t = h->type_count, rc = h->root_count;
    r->strings_size = h->strings_size;
    r->meta_count = h->meta_count;
    r->ref_count = h->ref_count;
    r->total_size = h->total_size;
    r->type_count = t;
    r->object_count = n;
    r->root_count = rc;
    r->big_size_count = h->big_size_count;
    r->reported_types = h->reported_types;
    r->reported_declared_types = h->reported_declared_types;
    r->id_radix = h->id_radix;
    r->sampled = (uint32_t)h->sampled;
    r->refs_loaded = (uint32_t)h->refs_loaded;
    gch_index_anomalies_put(&h->anomalies, r->anomalies);
    r->has = (h->type_module ? GCX_HAS_MODULES : 0) | (h->out_label ? GCX_HAS_LABELS : 0) |
             (h->root_label ? GCX_HAS_ROOT_LABELS : 0) | (h->object_site ? GCX_HAS_SITES : 0) |
             (h->v8_distance && h->v8_pseudo ? GCX_HAS_V8 : 0) |
             (h->root_has_container ? GCX_HAS_CONTAINERS : 0) |
             (h->type_objects && h->type_bytes ? GCX_HAS_TYPE_TOTALS : 0) |
             (h->v8_detachedness ? GCX_HAS_V8_DOM : 0);
    add(w, GCX_HEAP, hi, 0, sizeof *r, r, 1);
    add_text(w, GCX_HNAM, hi, h->name);
    add_meta(w, hi, h);
    add(w, GCX_STRS, hi, 0, 1, h->strings, h->strings_size);
    add(w, GCX_TNAM, hi, 0, 4, h->type_name, t);
    if (h->type_module)
        add(w, GCX_TMOD, hi, 0, 4, h->type_module, t);
    add(w, GCX_TRID, hi, 0, 8, h->type_raw_id, t);
    add(w, GCX_TDEC, hi, 0, 1, h->type_declared, t);
    if (h->type_objects && h->type_bytes) {
        add(w, GCX_TOBJ, hi, 0, 4, h->type_objects, t);
        add(w, GCX_TBYT, hi, 0, 8, h->type_bytes, t);
    }
    add(w, GCX_OIDS, hi, 0, 8, h->object_id, n);
    add(w, GCX_OTYP, hi, 0, 4, h->object_type, n);
    add(w, GCX_OSIZ, hi, 0, 4, h->object_size32, n);
    add(w, GCX_BIGO, hi, 0, 4, h->big_size_object, h->big_size_count);
    add(w, GCX_BIGV, hi, 0, 8, h->big_size_value, h->big_size_count);
    add(w, GCX_OSTA, hi, 0, 4, h->out_start, (uint64_t)n + 1);
    add(w, GCX_OTGT, hi, 0, 4, h->out_target, h->ref_count);
    if (h->out_label)
        add(w, GCX_OLAB, hi, 0, 4, h->out_label, h->ref_count);
    add(w, GCX_RRID, hi, 0, 8, h->root_raw_id, rc);
    add(w, GCX_ROBJ, hi, 0, 4, h->root_object, rc);
    add(w, GCX_RKND, hi, 0, 1, h->root_kind, rc);
    add(w, GCX_RFLG, hi, 0, 1, h->root_flags, rc);
    if (h->root_has_container) {
        add(w, GCX_RCON, hi, 0, 4, h->root_container, rc);
        add(w, GCX_RCRW, hi, 0, 8, h->root_container_raw, rc);
        add(w, GCX_RHCN, hi, 0, 1, h->root_has_container, rc);
    }
    if (h->root_label)
        add(w, GCX_RLAB, hi, 0, 4, h->root_label, rc);
    if (h->object_site)
        add(w, GCX_OSIT, hi, 0, 4, h->object_site, n);
    if (h->v8_distance && h->v8_pseudo) {
        add(w, GCX_V8DI, hi, 0, 4, h->v8_distance, n);
        add(w, GCX_V8PS, hi, 0, 1, h->v8_pseudo, n);
    }
    if (h->v8_detachedness)
        add(w, GCX_V8DT, hi, 0, 1, h->v8_detachedness, n);
}

/* Object indices in id order, ties by index (what gch_analysis_find's
 * binary search wants): a stable LSD radix sort by 16-bit digits, skipping
 * the digits every id shares. NULL with *increasing 1 when the ids rise. */
static uint32_t *id_order(writer *w, const gch_heap *h, int *increasing)
{
    uint32_t n = h->object_count;
    const uint64_t *id = h->object_id;
    uint32_t i = 1;
    while (i < n && id[i - 1] < id[i])
        i++;
    *increasing = i >= n;
    if (*increasing)
        return NULL;
    uint32_t *a = gch_reallocarray(NULL, n, 4), *b = gch_reallocarray(NULL, n, 4);
    uint32_t *count = gch_calloc(65536 + 1, 4);
    if (!a || !b || !count) {
        w->failed = 1;
        gch_free(a);
        gch_free(b);
        gch_free(count);
        return NULL;
    }
    for (uint32_t k = 0; k < n; k++)
        a[k] = k;
    uint64_t all_or = 0, all_and = ~0ULL;
    for (uint32_t k = 0; k < n; k++) {
        all_or |= id[k];
        all_and &= id[k];
    }
    for (int shift = 0; shift < 64; shift += 16) {
        if ((((all_or ^ all_and) >> shift) & 0xFFFF) == 0)
            continue; /* every id has this digit */
        memset(count, 0, (65536 + 1) * 4);
        for (uint32_t k = 0; k < n; k++)
            count[((id[a[k]] >> shift) & 0xFFFF) + 1]++;
        for (uint32_t d = 0; d < 65536; d++)
            count[d + 1] += count[d];
        for (uint32_t k = 0; k < n; k++)
            b[count[(id[a[k]] >> shift) & 0xFFFF]++] = a[k];
        memcpy(a, b, (size_t)n * 4);
    }
    gch_free(b);
    gch_free(count);
    return a;
}

/* One view: the analysis's arrays it is written from (copied out of the
 * structures, which may move: the arrays do not), and the chunks made here:
 * the sizes and types in preorder (with the tree), the distances in a byte
 * each with the far ones listed (with the paths). Each half is prepared by
 * one thread (as soon as the analysis has built it, by the thread that
 * built it), from arrays nothing writes meanwhile; its chunks go to the
 * places reserved for them. */
typedef struct view_prep {
    writer *w;
    const gch_heap *h;
    size_t hi;
    unsigned v;
    size_t tree_place, paths_place; /* their first reserved places in the stream */
    int tree_done, paths_done;      /* handed over (by a callback or the caller) */
    uint64_t rec[2];                /* DREC: live objects and bytes */
    const uint32_t *preorder, *preorder_idom;
    const uint32_t *parent, *root_objects, *root_records;
    uint32_t root_object_count;
    const uint8_t *depth;
    const uint32_t *dist;
    uint32_t *psz;                  /* DPSZ */
    uint16_t *ty;                   /* DPTY, NULL when the types do not fit 16 bits */
    uint8_t *near;                  /* DIST */
    gcx_far *far;                   /* DSTX */
    uint64_t far_count;
    /* Out of memory, or the stream stopped: one flag per half, as the two
     * halves may be handed over by two threads at once. */
    int tree_failed, paths_failed;
} view_prep;

/* The chunks of a view's tree (DPTY only when the types fit 16 bits), and
 * of its paths. */
static size_t tree_chunks(const gch_heap *h) { return h->type_count <= GCX_DPTY_TYPES ? 5 : 4; }
#define PATHS_CHUNKS 6u

static void take_tree(view_prep *v, const gch_domtree *t)
{
    v->rec[0] = t->live_count;
    v->rec[1] = t->live_bytes;
    v->preorder = t->preorder;
    v->preorder_idom = t->preorder_idom;
}

static void take_paths(view_prep *v, const gch_paths *p, const uint8_t *depth, const uint32_t *dist)
{
    v->parent = p->parent;
    v->root_objects = p->root_objects;
    v->root_records = p->root_records;
    v->root_object_count = p->root_object_count;
    v->depth = depth;
    v->dist = dist;
}

/* DREC DPRE DPID DPSZ [DPTY]: the tree in preorder, with the sizes and the
 * types (what a walk of the tree, suspects, reads) in that order. */
static void hand_over_tree(view_prep *v)
{
    gcx_stream *s = v->w->s;
    const gch_heap *h = v->h;
    uint64_t live = v->rec[0];
    v->tree_done = 1;
    v->psz = gch_reallocarray(NULL, live ? live : 1, 4);
    if (h->type_count <= GCX_DPTY_TYPES)
        v->ty = gch_reallocarray(NULL, live ? live : 1, 2);
    if (!v->psz || (h->type_count <= GCX_DPTY_TYPES && !v->ty)) {
        v->tree_failed = 1;
        return;
    }
    for (uint64_t i = 0; i < live; i++)
        v->psz[i] = h->object_size32[v->preorder[i]];
    for (uint64_t i = 0; v->ty && i < live; i++)
        v->ty[i] = (uint16_t)h->object_type[v->preorder[i]];
    uint16_t hi = (uint16_t)v->hi, vw = (uint16_t)v->v;
    size_t k = v->tree_place;
    int ok = gcx_stream_fill(s, k, GCX_DREC, hi, vw, 8, v->rec, 2, 0) &&
             gcx_stream_fill(s, k + 1, GCX_DPRE, hi, vw, 4, v->preorder, live, 0) &&
             gcx_stream_fill(s, k + 2, GCX_DPID, hi, vw, 4, v->preorder_idom, live, 0) &&
             gcx_stream_fill(s, k + 3, GCX_DPSZ, hi, vw, 4, v->psz, live, 0) &&
             (!v->ty || gcx_stream_fill(s, k + 4, GCX_DPTY, hi, vw, 2, v->ty, live, 0));
    if (!ok)
        v->tree_failed = 1;
    /* The buffers made here go with their chunks: freed once written. */
    gcx_stream_give(s, k + 3, v->psz);
    if (v->ty)
        gcx_stream_give(s, k + 4, v->ty);
    v->psz = NULL, v->ty = NULL;
}

/* PPAR PDEP PROB PREC DIST DSTX: the path tree and the distances. */
static void hand_over_paths(view_prep *v)
{
    gcx_stream *s = v->w->s;
    uint32_t n = v->h->object_count;
    const uint32_t *dist = v->dist;
    v->paths_done = 1;
    v->near = gch_malloc(n ? n : 1);
    if (!v->near) {
        v->paths_failed = 1;
        return;
    }
    uint64_t far = 0;
    for (uint32_t o = 0; o < n; o++) {
        v->near[o] = (uint8_t)(dist[o] == GCH_NONE ? GCX_DIST_NONE
                               : dist[o] >= GCX_DIST_FAR ? GCX_DIST_FAR : dist[o]);
        far += v->near[o] == GCX_DIST_FAR;
    }
    v->far = gch_reallocarray(NULL, far ? far : 1, sizeof *v->far);
    if (!v->far) {
        v->paths_failed = 1;
        return;
    }
    for (uint32_t o = 0, k = 0; o < n; o++)
        if (v->near[o] == GCX_DIST_FAR)
            v->far[k++] = (gcx_far){ o, dist[o] };
    v->far_count = far;
    uint16_t hi = (uint16_t)v->hi, vw = (uint16_t)v->v;
    size_t k = v->paths_place;
    int ok = gcx_stream_fill(s, k, GCX_PPAR, hi, vw, 4, v->parent, n, 0) &&
             gcx_stream_fill(s, k + 1, GCX_PDEP, hi, vw, 1, v->depth, n, 0) &&
             gcx_stream_fill(s, k + 2, GCX_PROB, hi, vw, 4, v->root_objects, v->root_object_count, 0) &&
             gcx_stream_fill(s, k + 3, GCX_PREC, hi, vw, 4, v->root_records, v->root_object_count, 0) &&
             gcx_stream_fill(s, k + 4, GCX_DIST, hi, vw, 1, v->near, n, 0) &&
             gcx_stream_fill(s, k + 5, GCX_DSTX, hi, vw, sizeof(gcx_far), v->far, far, 0);
    if (!ok)
        v->paths_failed = 1;
    gcx_stream_give(s, k + 4, v->near);
    gcx_stream_give(s, k + 5, v->far);
    v->near = NULL, v->far = NULL;
}

static void prep_free(view_prep *p)
{
    gch_free(p->psz);
    gch_free(p->ty);
    gch_free(p->near);
    gch_free(p->far);
}

/* One heap's derived chunks: the places reserved for them, and what the
 * analysis's callbacks (gch_views_ready) hand over. */
typedef struct heap_places {
    writer *w;
    size_t hi;
    size_t reverse;          /* INST, INSR */
    int reverse_done;
    view_prep *view;         /* [2] */
} heap_places;

static void reverse_ready(void *ctx, const gch_heap *h)
{
    heap_places *hp = ctx;
    uint16_t hi = (uint16_t)hp->hi;
    hp->reverse_done = 1;
    gcx_stream_fill(hp->w->s, hp->reverse, GCX_INST, hi, 0, 4, h->in_start,
                    (uint64_t)h->object_count + 1, 0);
    gcx_stream_fill(hp->w->s, hp->reverse + 1, GCX_INSR, hi, 0, 4, h->in_source, h->ref_count, 0);
}

static void tree_ready(void *ctx, const gch_heap *h, int view, const gch_domtree *tree)
{
    heap_places *hp = ctx;
    (void)h;
    take_tree(&hp->view[view], tree);
    hand_over_tree(&hp->view[view]);
}

static void paths_ready(void *ctx, const gch_heap *h, int view, const gch_paths *paths,
                        const uint8_t *depth, const uint32_t *dist)
{
    heap_places *hp = ctx;
    (void)h;
    take_paths(&hp->view[view], paths, depth, dist);
    hand_over_paths(&hp->view[view]);
}

/* What the analysis did not hand over, for one view (any thread). */
static int hand_over_rest(void *arg)
{
    view_prep *v = arg;
    if (!v->tree_done)
        hand_over_tree(v);
    if (!v->paths_done)
        hand_over_paths(v);
    return 0;
}

/* View 1's places filled with entries naming view 0's bytes: a heap
 * without weak roots has one view. */
static void add_aliases(writer *w, size_t hi, size_t first, size_t n)
{
    for (size_t k = first; k < first + n && !w->failed; k++) {
        uint32_t tag, elem;
        uint64_t count;
        const void *data;
        gcx_stream_chunk(w->s, k, &tag, &elem, &count, &data);
        if (!gcx_stream_fill(w->s, k + n, tag, (uint16_t)hi, 1, elem, data, count, k + 1))
            w->failed = 1;
    }
}

static int has_weak_roots(const gch_heap *h)
{
    for (uint32_t r = 0; r < h->root_count; r++)
        if ((h->root_flags[r] & GCH_ROOT_WEAK) && h->root_object[r] != GCH_NONE)
            return 1;
    return 0;
}

/* What the writer gives back when it stopped: the stream's failure, else
 * its own (out of memory). */
static gch_status failure(writer *w, gch_error *err)
{
    gch_status st = gcx_stream_status(w->s);
    if (st == GCH_EIO)
        return gch_error_set(err, GCH_EIO, "write failed");
    return gch_error_set(err, GCH_ENOMEM, "out of memory writing the index");
}

/* The structures the commands compute: reverse references, the id order,
 * and per view the dominator tree in preorder and the shortest-path tree.
 * Their places in the stream are reserved first, in the file's order
 * (reverse references, id order, the trees of views 0 and 1, their paths:
 * the order the analysis usually finishes them in), then the analysis
 * computes them all (both views at once on two threads) while the model's
 * chunks are written, and hands each part over as it is built, to be
 * prepared by the thread that built it and written while the rest is
 * computed. What it did not hand over (built before, or from a source) the
 * caller's thread prepares after, one view a thread. */
static gch_status add_derived(writer *w, size_t hi, gch_analysis *a, gch_heap *h,
                              view_prep views2[2], gch_error *err)
{
    int views = has_weak_roots(h) ? 2 : 1;
    if (w->failed || gcx_stream_status(w->s) != GCH_OK) /* a write failed: stop here */
        return failure(w, err);
    uint32_t n = h->object_count;
    int increasing;
    uint32_t *order = id_order(w, h, &increasing);
    heap_places hp = { w, hi, gcx_stream_reserve(w->s, 2), 0, views2 };
    if (order) { /* the stream's to free once written */
        size_t k = gcx_stream_reserve(w->s, 1);
        if (!gcx_stream_fill(w->s, k, GCX_IDOR, (uint16_t)hi, 0, 4, order, n, 0))
            w->failed = 1;
        gcx_stream_give(w->s, k, order);
    }
    size_t tn = tree_chunks(h);
    size_t trees = gcx_stream_reserve(w->s, 2 * tn), paths = gcx_stream_reserve(w->s, 2 * PATHS_CHUNKS);
    for (unsigned v = 0; v < 2; v++) {
        views2[v].w = w;
        views2[v].h = h;
        views2[v].hi = hi;
        views2[v].v = v;
        views2[v].tree_place = trees + v * tn;
        views2[v].paths_place = paths + v * PATHS_CHUNKS;
    }
    gch_views_ready ready = { reverse_ready, tree_ready, paths_ready, &hp };
    gch_status st = gch_analysis_build_views_then(a, h, views, GCH_TREE_PREORDER_IDOM,
                                                  gcx_stream_status(w->s) == GCH_OK ? &ready : NULL,
                                                  err);
    if (st != GCH_OK || (st = gch_analysis_reverse(a, h, err)) != GCH_OK)
        return st;
    if (!hp.reverse_done)
        reverse_ready(&hp, h);
    int rest[2] = { 0, 0 };
    for (int v = 0; v < views; v++) {
        view_prep *p = &views2[v];
        const gch_domtree *t;
        const gch_paths *pt;
        const uint8_t *depth;
        const uint32_t *dist;
        if (!p->tree_done) {
            if ((st = gch_analysis_domtree(a, h, v, GCH_TREE_PREORDER_IDOM, &t, err)) != GCH_OK)
                return st;
            take_tree(p, t);
        }
        if (!p->paths_done) {
            if ((st = gch_analysis_paths(a, h, v, &pt, err)) != GCH_OK ||
                (st = gch_analysis_path_depths(a, h, v, &depth, err)) != GCH_OK ||
                (st = gch_analysis_distance(a, h, v, &dist, err)) != GCH_OK)
                return st;
            take_paths(p, pt, depth, dist);
        }
        rest[v] = !p->tree_done || !p->paths_done;
    }
    if (rest[0] || rest[1])
        gch_run_two(w->par.workers, rest[0] && rest[1] && gch_parallel_worth(&w->par, h->ref_count),
                    hand_over_rest, &views2[0], rest[1] ? &views2[1] : NULL);
    for (int v = 0; v < views; v++)
        if (views2[v].tree_failed || views2[v].paths_failed)
            w->failed = 1;
    if (views == 1) {
        add_aliases(w, hi, trees, tn);
        add_aliases(w, hi, paths, PATHS_CHUNKS);
    }
    return w->failed ? failure(w, err) : GCH_OK;
}

static void add_dump(writer *w, const gch_dump *d, const gch_index_stamp *st, const char *name)
{
    size_t nlen = strlen(name) + 1;
    gcx_dump_rec *r = own(w, sizeof *r + nlen);
    if (!r)
        return;
    r->dump_size = st->dump_size;
    r->mtime_sec = st->mtime_sec;
    r->mtime_nsec = st->mtime_nsec;
    r->head_hash = st->head_hash;
    r->tail_hash = st->tail_hash;
    r->options = st->options;
    r->heap_count = (uint32_t)d->heap_count;
    r->ids_stable = (uint32_t)d->ids_stable;
    strncpy(r->format, d->format ? d->format : "", sizeof r->format - 1);
    strncpy(r->compression, d->compression ? d->compression : "", sizeof r->compression - 1);
    memcpy((char *)(r + 1), name, nlen);
    add(w, GCX_DUMP, GCX_NO_HEAP, 0, 1, r, sizeof *r + nlen);
}

gch_status gch_index_write(gch_analysis *a, const gch_index_stamp *stamp,
                           const char *dump_name, const gch_index_io *io, gch_error *err)
{
    const gch_dump *dump = gch_analysis_dump(a);
    if (dump->heap_count >= GCX_NO_HEAP)
        return gch_error_set(err, GCH_ELIMIT, "too many sections for an index");
    uint64_t refs = 0;
    for (size_t i = 0; i < dump->heap_count; i++) {
        if (!dump->heaps[i]->refs_loaded || dump->heaps[i]->histogram_only)
            return gch_error_set(err, GCH_EINVAL, "an index needs a dump loaded with references");
        refs += dump->heaps[i]->ref_count;
    }
    writer w;
    memset(&w, 0, sizeof w);
    w.par = gch_parallel_for(gch_analysis_get_options(a).threads);
    w.s = gcx_stream_new(io, w.par.workers, gch_parallel_worth(&w.par, refs));
    if (!w.s)
        return gch_error_set(err, GCH_ENOMEM, "out of memory writing the index");
    /* The views' own chunks, per heap, kept until the stream is done. */
    view_prep *preps = gch_calloc(2 * dump->heap_count, sizeof *preps);
    if (!preps) {
        gcx_stream_abort(w.s);
        return gch_error_set(err, GCH_ENOMEM, "out of memory writing the index");
    }
    add_dump(&w, dump, stamp, dump_name ? dump_name : "");
    gch_status st = GCH_OK;
    for (size_t i = 0; i < dump->heap_count && st == GCH_OK; i++) {
        add_heap(&w, i, dump->heaps[i]);
        st = add_derived(&w, i, a, dump->heaps[i], preps + 2 * i, err);
    }
    if (st == GCH_OK && w.failed)
        st = failure(&w, err);
    if (st == GCH_OK)
        st = gcx_stream_finish(w.s, err);
    else
        gcx_stream_abort(w.s);
    for (size_t i = 0; i < 2 * dump->heap_count; i++)
        prep_free(&preps[i]);
    gch_free(preps);
    for (size_t i = 0; i < w.nowned; i++)
        gch_free(w.owned[i]);
    gch_free(w.owned);
    return st;
}
