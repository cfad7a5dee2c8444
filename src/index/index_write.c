/* Writing an index: the dump's arrays as chunks, each checksummed, behind a
 * header and a table of contents (docs/index-format.md). The arrays are
 * written as they lie in memory: nothing is copied but the small records. */
#include <stddef.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/index.h"
#include "gcheap/paths.h"
#include "grow.h"
#include "index_format.h"
#include "index_internal.h"

typedef struct chunk {
    gcx_toc toc;
    const void *data;
    size_t bytes;
    size_t alias;            /* + 1: the chunk whose bytes this entry names too */
} chunk;

typedef struct writer {
    chunk *chunks;
    size_t count, cap;
    void **owned;            /* the records built here, freed at the end */
    size_t nowned, owned_cap;
    int failed;
} writer;

static void add(writer *w, uint32_t tag, size_t heap, unsigned view, size_t elem, const void *data,
                uint64_t count)
{
    if (w->failed)
        return;
    if (!gch_grow((void **)&w->chunks, &w->cap, w->count + 1, sizeof *w->chunks, 64)) {
        w->failed = 1;
        return;
    }
    chunk *c = &w->chunks[w->count++];
    memset(c, 0, sizeof *c);
    c->toc.tag = tag;
    c->toc.heap = heap == GCX_NO_HEAP ? GCX_NO_HEAP : (uint16_t)heap;
    c->toc.view = (uint16_t)view;
    c->toc.elem_size = (uint32_t)elem;
    c->toc.count = count;
    c->data = count ? data : NULL;
    c->bytes = (size_t)(count * elem);
}

/* A buffer the writer frees when done (records, the meta strings). */
static void *own(writer *w, size_t n)
{
    void *p = gch_grow((void **)&w->owned, &w->owned_cap, w->nowned + 1, sizeof *w->owned, 16)
                  ? gch_calloc(1, n ? n : 1) : NULL;
    if (!p) {
        w->failed = 1;
        return NULL;
    }
    w->owned[w->nowned++] = p;
    return p;
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

/* DIST and DSTX: the distances from the roots in a byte each, the far
 * ones (GCX_DIST_FAR and beyond) listed with their values. */
static void add_distances(writer *w, size_t hi, unsigned v, const gch_heap *h,
                          const uint32_t *dist)
{
    uint32_t n = h->object_count;
    if (w->failed)
        return;
    uint8_t *near = own(w, n);
    uint64_t far = 0;
    for (uint32_t o = 0; near && o < n; o++) {
        near[o] = (uint8_t)(dist[o] == GCH_NONE ? GCX_DIST_NONE
                            : dist[o] >= GCX_DIST_FAR ? GCX_DIST_FAR : dist[o]);
        far += near[o] == GCX_DIST_FAR;
    }
    gcx_far *list = near ? own(w, (size_t)far * sizeof *list) : NULL;
    for (uint32_t o = 0, k = 0; list && o < n; o++)
        if (near[o] == GCX_DIST_FAR)
            list[k++] = (gcx_far){ o, dist[o] };
    add(w, GCX_DIST, hi, v, 1, near, n);
    add(w, GCX_DSTX, hi, v, sizeof(gcx_far), list, far);
}

/* The types in preorder (u16), when they fit: what a walk of the tree in
 * preorder (suspects) reads instead of the types of scattered objects. */
static void add_preorder_types(writer *w, size_t hi, unsigned v, const gch_heap *h,
                               const gch_domtree *t)
{
    if (h->type_count > GCX_DPTY_TYPES)
        return;
    uint16_t *ty = own(w, (size_t)t->live_count * 2);
    for (uint64_t i = 0; ty && i < t->live_count; i++)
        ty[i] = (uint16_t)h->object_type[t->preorder[i]];
    add(w, GCX_DPTY, hi, v, 2, ty, t->live_count);
}

static int has_weak_roots(const gch_heap *h)
{
    for (uint32_t r = 0; r < h->root_count; r++)
        if ((h->root_flags[r] & GCH_ROOT_WEAK) && h->root_object[r] != GCH_NONE)
            return 1;
    return 0;
}

/* The structures the commands compute: reverse references, the id order,
 * and per view the dominator tree in preorder and the shortest-path tree. A
 * heap without weak roots has one view: view 1's entries name view 0's bytes.
 * The analysis computes them all first (both views at once on two threads),
 * then each is asked for in the chunks' order. */
static gch_status add_derived(writer *w, size_t hi, gch_analysis *a, gch_heap *h, gch_error *err)
{
    int views = has_weak_roots(h) ? 2 : 1;
    gch_status st = gch_analysis_build_views(a, h, views, GCH_TREE_PREORDER_IDOM, err);
    if (st != GCH_OK || (st = gch_analysis_reverse(a, h, err)) != GCH_OK)
        return st;
    uint32_t n = h->object_count;
    add(w, GCX_INST, hi, 0, 4, h->in_start, (uint64_t)n + 1);
    add(w, GCX_INSR, hi, 0, 4, h->in_source, h->ref_count);
    int increasing;
    uint32_t *order = id_order(w, h, &increasing);
    if (order)
        add(w, GCX_IDOR, hi, 0, 4, order, n);
    size_t first = w->count; /* view 0's chunks: first .. its end */
    for (int v = 0; v < 2; v++) {
        if (v >= views) { /* the same bytes as view 0's */
            size_t view_chunks = w->count - first;
            for (size_t k = 0; k < view_chunks && !w->failed; k++) {
                chunk c = w->chunks[first + k];
                add(w, c.toc.tag, hi, 1, c.toc.elem_size, c.data, c.toc.count);
                if (!w->failed)
                    w->chunks[w->count - 1].alias = first + k + 1;
            }
            break;
        }
        const gch_domtree *t;
        const gch_paths *p;
        const uint8_t *depth;
        const uint32_t *dist;
        if ((st = gch_analysis_domtree(a, h, v, GCH_TREE_PREORDER_IDOM, &t, err)) != GCH_OK ||
            (st = gch_analysis_paths(a, h, v, &p, err)) != GCH_OK ||
            (st = gch_analysis_path_depths(a, h, v, &depth, err)) != GCH_OK ||
            (st = gch_analysis_distance(a, h, v, &dist, err)) != GCH_OK)
            return st;
        uint64_t *rec = own(w, 16);
        if (!rec)
            break;
        rec[0] = t->live_count;
        rec[1] = t->live_bytes;
        add(w, GCX_DREC, hi, (unsigned)v, 8, rec, 2);
        add(w, GCX_DPRE, hi, (unsigned)v, 4, t->preorder, t->live_count);
        add(w, GCX_DPID, hi, (unsigned)v, 4, t->preorder_idom, t->live_count);
        uint32_t *psz = own(w, (size_t)t->live_count * 4);
        for (uint64_t i = 0; psz && i < t->live_count; i++)
            psz[i] = h->object_size32[t->preorder[i]];
        add(w, GCX_DPSZ, hi, (unsigned)v, 4, psz, t->live_count);
        add_preorder_types(w, hi, (unsigned)v, h, t);
        add(w, GCX_PPAR, hi, (unsigned)v, 4, p->parent, n);
        add(w, GCX_PDEP, hi, (unsigned)v, 1, depth, n);
        add(w, GCX_PROB, hi, (unsigned)v, 4, p->root_objects, p->root_object_count);
        add(w, GCX_PREC, hi, (unsigned)v, 4, p->root_records, p->root_object_count);
        add_distances(w, hi, (unsigned)v, h, dist);
    }
    return w->failed ? gch_error_set(err, GCH_ENOMEM, "out of memory writing the index") : GCH_OK;
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

static size_t align_up(size_t v) { return (v + GCX_ALIGN - 1) / GCX_ALIGN * GCX_ALIGN; }

static int put(gch_index_write_fn write, void *ctx, const void *p, size_t n)
{
    return n == 0 || write(ctx, p, n) == 0;
}

static int pad(gch_index_write_fn write, void *ctx, size_t *at, size_t to)
{
    static const unsigned char zeros[GCX_ALIGN];
    size_t n = to - *at;
    *at = to;
    return put(write, ctx, zeros, n);
}

static gch_status emit(writer *w, gch_index_write_fn write, void *ctx, gch_error *err)
{
    size_t toc_bytes = w->count * sizeof(gcx_toc);
    size_t at = align_up(GCX_HEADER_SIZE + toc_bytes);
    for (size_t i = 0; i < w->count; i++) {
        chunk *c = &w->chunks[i];
        if (c->alias) {
            c->toc.offset = w->chunks[c->alias - 1].toc.offset;
            c->toc.checksum = w->chunks[c->alias - 1].toc.checksum;
            continue;
        }
        c->toc.offset = at;
        c->toc.checksum = gch_index_hash(c->data, c->bytes);
        at = align_up(at + c->bytes);
    }
    gcx_toc *toc = gch_calloc(w->count ? w->count : 1, sizeof *toc);
    if (!toc)
        return gch_error_set(err, GCH_ENOMEM, "out of memory writing the index");
    for (size_t i = 0; i < w->count; i++)
        toc[i] = w->chunks[i].toc;
    gcx_header hd;
    memset(&hd, 0, sizeof hd);
    memcpy(hd.magic, GCX_MAGIC, 8);
    hd.version = GCH_INDEX_VERSION;
    hd.bom = GCX_BOM;
    hd.file_size = at;
    hd.toc_offset = GCX_HEADER_SIZE;
    hd.chunk_count = (uint32_t)w->count;
    hd.toc_checksum = gch_index_hash(toc, toc_bytes);
    hd.header_checksum = gch_index_hash(&hd, offsetof(gcx_header, header_checksum));
    size_t pos = 0;
    int ok = put(write, ctx, &hd, sizeof hd) && put(write, ctx, toc, toc_bytes);
    pos = sizeof hd + toc_bytes;
    for (size_t i = 0; ok && i < w->count; i++) {
        if (w->chunks[i].alias)
            continue;
        ok = pad(write, ctx, &pos, (size_t)w->chunks[i].toc.offset) &&
             put(write, ctx, w->chunks[i].data, w->chunks[i].bytes);
        pos += w->chunks[i].bytes;
    }
    ok = ok && pad(write, ctx, &pos, at);
    gch_free(toc);
    return ok ? GCH_OK : gch_error_set(err, GCH_EIO, "write failed");
}

gch_status gch_index_write(gch_analysis *a, const gch_index_stamp *stamp,
                           const char *dump_name, gch_index_write_fn write, void *ctx,
                           gch_error *err)
{
    const gch_dump *dump = gch_analysis_dump(a);
    if (dump->heap_count >= GCX_NO_HEAP)
        return gch_error_set(err, GCH_ELIMIT, "too many sections for an index");
    for (size_t i = 0; i < dump->heap_count; i++)
        if (!dump->heaps[i]->refs_loaded || dump->heaps[i]->histogram_only)
            return gch_error_set(err, GCH_EINVAL, "an index needs a dump loaded with references");
    writer w;
    memset(&w, 0, sizeof w);
    add_dump(&w, dump, stamp, dump_name ? dump_name : "");
    gch_status st = GCH_OK;
    for (size_t i = 0; i < dump->heap_count && st == GCH_OK; i++) {
        add_heap(&w, i, dump->heaps[i]);
        st = add_derived(&w, i, a, dump->heaps[i], err);
    }
    if (st == GCH_OK)
        st = w.failed ? gch_error_set(err, GCH_ENOMEM, "out of memory writing the index")
                      : emit(&w, write, ctx, err);
    for (size_t i = 0; i < w.nowned; i++)
        gch_free(w.owned[i]);
    gch_free(w.owned);
    gch_free(w.chunks);
    return st;
}
