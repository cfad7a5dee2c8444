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
    uint32_t *a = own(w, (size_t)n * 4), *b = gch_reallocarray(NULL, n, 4);
    uint32_t *count = gch_calloc(65536 + 1, 4);
    if (!a || !b || !count) {
        w->failed = 1;
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

/* One view's chunks that are not the analysis's arrays: the sizes and types
 * in preorder, and the distances in a byte each with the far ones listed.
 * Each view's are prepared apart (one view a thread), from arrays that
 * nothing writes meanwhile. */
typedef struct view_prep {
    const gch_heap *h;
    const gch_domtree *t;
    const gch_paths *p;
    const uint8_t *depth;
    const uint32_t *dist;
    uint32_t *psz;           /* DPSZ */
    uint16_t *ty;            /* DPTY, NULL when the types do not fit 16 bits */
    uint8_t *near;           /* DIST */
    gcx_far *far;            /* DSTX */
    uint64_t far_count;
    int failed;
} view_prep;

static int prepare_view(void *arg)
{
    view_prep *v = arg;
    const gch_heap *h = v->h;
    const gch_domtree *t = v->t;
    uint32_t n = h->object_count;
    v->psz = gch_reallocarray(NULL, t->live_count ? t->live_count : 1, 4);
    v->near = gch_malloc(n ? n : 1);
    if (h->type_count <= GCX_DPTY_TYPES)
        v->ty = gch_reallocarray(NULL, t->live_count ? t->live_count : 1, 2);
    if (!v->psz || !v->near || (h->type_count <= GCX_DPTY_TYPES && !v->ty)) {
        v->failed = 1;
        return 0;
    }
    for (uint64_t i = 0; i < t->live_count; i++)
        v->psz[i] = h->object_size32[t->preorder[i]];
    for (uint64_t i = 0; v->ty && i < t->live_count; i++)
        v->ty[i] = (uint16_t)h->object_type[t->preorder[i]];
    const uint32_t *dist = v->dist;
    uint64_t far = 0;
    for (uint32_t o = 0; o < n; o++) {
        v->near[o] = (uint8_t)(dist[o] == GCH_NONE ? GCX_DIST_NONE
                               : dist[o] >= GCX_DIST_FAR ? GCX_DIST_FAR : dist[o]);
        far += v->near[o] == GCX_DIST_FAR;
    }
    v->far = gch_reallocarray(NULL, far ? far : 1, sizeof *v->far);
    if (!v->far) {
        v->failed = 1;
        return 0;
    }
    for (uint32_t o = 0, k = 0; o < n; o++)
        if (v->near[o] == GCX_DIST_FAR)
            v->far[k++] = (gcx_far){ o, dist[o] };
    v->far_count = far;
    return 0;
}

/* The view's chunks in their order; the prepared buffers become the
 * writer's (freed at the end). */
static void add_view(writer *w, size_t hi, unsigned v, view_prep *p)
{
    void *bufs[4] = { p->psz, p->ty, p->near, p->far };
    p->psz = NULL, p->ty = NULL, p->near = NULL, p->far = NULL;
    for (int k = 0; k < 4; k++)
        if (bufs[k] && !adopt(w, bufs[k]))
            bufs[k] = NULL;
    if (p->failed)
        w->failed = 1;
    uint64_t *rec = own(w, 16);
    if (w->failed || !rec)
        return;
    const gch_domtree *t = p->t;
    uint32_t n = p->h->object_count;
    rec[0] = t->live_count;
    rec[1] = t->live_bytes;
    add(w, GCX_DREC, hi, v, 8, rec, 2);
    add(w, GCX_DPRE, hi, v, 4, t->preorder, t->live_count);
    add(w, GCX_DPID, hi, v, 4, t->preorder_idom, t->live_count);
    add(w, GCX_DPSZ, hi, v, 4, bufs[0], t->live_count);
    if (bufs[1]) /* the types in preorder: what a walk of the tree (suspects) reads */
        add(w, GCX_DPTY, hi, v, 2, bufs[1], t->live_count);
    add(w, GCX_PPAR, hi, v, 4, p->p->parent, n);
    add(w, GCX_PDEP, hi, v, 1, p->depth, n);
    add(w, GCX_PROB, hi, v, 4, p->p->root_objects, p->p->root_object_count);
    add(w, GCX_PREC, hi, v, 4, p->p->root_records, p->p->root_object_count);
    add(w, GCX_DIST, hi, v, 1, bufs[2], n);
    add(w, GCX_DSTX, hi, v, sizeof(gcx_far), bufs[3], p->far_count);
}

static void prep_free(view_prep *p)
{
    gch_free(p->psz);
    gch_free(p->ty);
    gch_free(p->near);
    gch_free(p->far);
}

/* View 1's entries naming view 0's bytes (chunks first .. end): a heap
 * without weak roots has one view. */
static void add_aliases(writer *w, size_t hi, size_t first)
{
    size_t end = gcx_stream_count(w->s);
    for (size_t k = first; k < end && !w->failed; k++) {
        uint32_t tag, elem;
        uint64_t count;
        const void *data;
        gcx_stream_chunk(w->s, k, &tag, &elem, &count, &data);
        if (!gcx_stream_add(w->s, tag, (uint16_t)hi, 1, elem, data, count, k + 1))
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
 * The analysis computes them all first (both views at once on two threads)
 * while the model's chunks are written; then the reverse references are
 * handed over, and view 1's chunks are prepared on a second thread while
 * the caller's prepares the id order and view 0's and hands them over. */
static gch_status add_derived(writer *w, size_t hi, gch_analysis *a, gch_heap *h, gch_error *err)
{
    int views = has_weak_roots(h) ? 2 : 1;
    if (w->failed)
        return failure(w, err);
    gch_status st = gch_analysis_build_views(a, h, views, GCH_TREE_PREORDER_IDOM, err);
    if (st != GCH_OK || (st = gch_analysis_reverse(a, h, err)) != GCH_OK)
        return st;
    view_prep prep[2];
    memset(prep, 0, sizeof prep);
    for (int v = 0; v < views; v++) {
        view_prep *p = &prep[v];
        p->h = h;
        if ((st = gch_analysis_domtree(a, h, v, GCH_TREE_PREORDER_IDOM, &p->t, err)) != GCH_OK ||
            (st = gch_analysis_paths(a, h, v, &p->p, err)) != GCH_OK ||
            (st = gch_analysis_path_depths(a, h, v, &p->depth, err)) != GCH_OK ||
            (st = gch_analysis_distance(a, h, v, &p->dist, err)) != GCH_OK)
            return st;
    }
    uint32_t n = h->object_count;
    add(w, GCX_INST, hi, 0, 4, h->in_start, (uint64_t)n + 1);
    add(w, GCX_INSR, hi, 0, 4, h->in_source, h->ref_count);
    gch_thread helper;
    int two = views == 2 && gch_parallel_worth(&w->par, h->ref_count) &&
              gch_thread_start(&helper, w->par.workers, prepare_view, &prep[1]);
    int increasing;
    uint32_t *order = id_order(w, h, &increasing);
    if (order)
        add(w, GCX_IDOR, hi, 0, 4, order, n);
    size_t first = gcx_stream_count(w->s); /* view 0's chunks: first .. its end */
    prepare_view(&prep[0]);
    add_view(w, hi, 0, &prep[0]);
    if (two)
        gch_thread_join(&helper);
    else if (views == 2)
        prepare_view(&prep[1]);
    if (views == 2)
        add_view(w, hi, 1, &prep[1]);
    else
        add_aliases(w, hi, first);
    prep_free(&prep[0]);
    prep_free(&prep[1]);
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
    add_dump(&w, dump, stamp, dump_name ? dump_name : "");
    gch_status st = GCH_OK;
    for (size_t i = 0; i < dump->heap_count && st == GCH_OK; i++) {
        add_heap(&w, i, dump->heaps[i]);
        st = add_derived(&w, i, a, dump->heaps[i], err);
    }
    if (st == GCH_OK && w.failed)
        st = failure(&w, err);
    if (st == GCH_OK)
        st = gcx_stream_finish(w.s, err);
    else
        gcx_stream_abort(w.s);
    for (size_t i = 0; i < w.nowned; i++)
        gch_free(w.owned[i]);
    gch_free(w.owned);
    return st;
}
