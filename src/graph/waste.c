/* gcheap waste (gcheap/waste.h): the payloads mapped to their objects, the
 * read window, zero-length arrays, and the rows in their final order. The
 * duplicates are in waste_dups.c, collections and boxes in waste_fields.c. */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/waste.h"
#include "grow.h"
#include "tuning.h"
#include "waste_internal.h"

/* V8 cuts a string node's name at --heap-snapshot-string-limit characters
 * (1024 by default, src/flags/flag-definitions.h): a text that long may be
 * the start of longer, different strings and is not grouped. */
#define V8_STRING_LIMIT 1024

static const char *const kind_names[GCH_WASTE_KINDS] = {
    "duplicate-strings", "duplicate-arrays", "empty-collections", "underfilled-collections",
    "zero-length-arrays", "boxed-primitives"
};

const char *gch_waste_kind_name(unsigned kind)
{
    return kind < GCH_WASTE_KINDS ? kind_names[kind] : "unknown";
}

gch_status waste_read(wctx *w, uint64_t pos, void *buf, size_t n)
{
    if (w->o->read(w->o->read_ctx, pos, buf, n) != 0)
        return gch_error_set(w->err, GCH_EIO,
                             "the dump could not be read again at offset %llu (did it change "
                             "since it was loaded?)", (unsigned long long)pos);
    return GCH_OK;
}

gch_status waste_window(wctx *w, uint64_t pos, size_t n, const unsigned char **p)
{
    if (pos >= w->off && pos + n <= w->off + w->len) {
        *p = w->buf + (pos - w->off);
        return GCH_OK;
    }
    if (!w->buf && !(w->buf = gch_malloc(WASTE_WINDOW)))
        return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
    size_t len = w->limit > pos && w->limit - pos < WASTE_WINDOW ? (size_t)(w->limit - pos) : WASTE_WINDOW;
    if (len < n)
        len = n;
    w->len = 0;
    gch_status st = waste_read(w, pos, w->buf, len);
    if (st != GCH_OK)
        return st;
    w->off = pos;
    w->len = len;
    *p = w->buf;
    return GCH_OK;
}

gch_waste_row *waste_row(wctx *w, unsigned kind)
{
    if (!gch_grow((void **)&w->rows, &w->cap, w->count + 1, sizeof *w->rows, 64)) {
        gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        return NULL;
    }
    gch_waste_row *r = &w->rows[w->count++];
    memset(r, 0, sizeof *r);
    r->kind = (uint8_t)kind;
    r->holder_type = r->holder_label = GCH_NONE;
    return r;
}

/* pidx: the object of each payload entry. Objects mostly come in id order,
 * so the search starts from the last hit and gallops forward; otherwise a
 * binary search. */
static gch_status map_payloads(wctx *w)
{
    const gch_heap *h = w->h;
    size_t n = h->payload_count;
    w->pidx = gch_reallocarray(NULL, n ? n : 1, sizeof *w->pidx);
    if (!w->pidx)
        return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        w->pidx[i] = GCH_NONE;
    size_t at = 0;
    for (uint32_t o = 0; o < h->object_count && n; o++) {
        uint64_t id = h->object_id[o];
        size_t lo, hi;
        if (h->payloads[at].id <= id) {
            size_t step = 1;
            lo = at;
            hi = at + 1;
            while (hi < n && h->payloads[hi].id <= id) {
                lo = hi;
                hi = hi + step < n ? hi + step : n;
                step *= 2;
            }
        } else {
            lo = 0;
            hi = at;
        }
        while (lo < hi) { /* the first entry with id >= the object's */
            size_t mid = lo + (hi - lo) / 2;
            if (h->payloads[mid].id < id)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && h->payloads[lo].id == id) {
            w->pidx[lo] = o;
            at = lo;
        }
    }
    return GCH_OK;
}

/* Arrays of length 0, by type: one of each type would do. */
static gch_status zero_arrays(wctx *w)
{
    const gch_heap *h = w->h;
    uint64_t *count = gch_calloc(h->type_count ? h->type_count : 1, sizeof *count);
    uint64_t *bytes = gch_calloc(h->type_count ? h->type_count : 1, sizeof *bytes);
    uint32_t *first = gch_reallocarray(NULL, h->type_count ? h->type_count : 1, sizeof *first);
    gch_status st = GCH_OK;
    if (!count || !bytes || !first) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < h->payload_count; i++) {
        const gch_payload *p = &h->payloads[i];
        uint32_t o = w->pidx[i];
        if (p->kind != GCH_PAYLOAD_ARRAY || p->length != 0 || !waste_wanted(w, o))
            continue;
        uint32_t t = h->object_type[o];
        if (count[t]++ == 0)
            first[t] = o;
        bytes[t] += gch_object_size(h, o);
    }
    for (uint32_t t = 0; t < h->type_count; t++) {
        if (count[t] == 0 || count[t] < w->min_count)
            continue;
        gch_waste_row *r = waste_row(w, GCH_WASTE_ZERO_ARRAYS);
        if (!r) {
            st = GCH_ENOMEM;
            break;
        }
        r->type = t;
        r->object = first[t];
        r->count = count[t];
        r->bytes = bytes[t];
        r->copy = gch_object_size(h, first[t]);
        r->wasted = r->bytes - r->copy;
    }
done:
    gch_free(count);
    gch_free(bytes);
    gch_free(first);
    return st;
}

/* Section, then wasted bytes descending, then count descending, then the
 * id of the representative (or the type) for a stable order. */
static int row_order(const void *pa, const void *pb)
{
    const gch_waste_row *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->wasted != b->wasted)
        return a->wasted > b->wasted ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

gch_status gch_waste_find(gch_heap *heap, const gch_waste_options *opts, gch_waste *out,
                          gch_error *err)
{
    gch_error_clear(err);
    memset(out, 0, sizeof *out);
    if (opts->text || opts->dart ? !heap->payloads_kept
                                 : !opts->js && (!heap->payloads_kept || !opts->read))
        return GCH_OK; /* no contents: every section is unavailable */
    wctx w;
    memset(&w, 0, sizeof w);
    w.h = heap;
    w.o = opts;
    w.err = err;
    w.min_count = opts->min_count ? opts->min_count : 10;
    w.fill_below = opts->fill_below > 0 ? opts->fill_below : 0.21;
    gch_tuning knobs = gch_tuning_get();
    w.hash_mask = knobs.waste_hash_mask ? knobs.waste_hash_mask : UINT64_MAX;
    gch_status st = GCH_OK;
    unsigned sections = 0;
    if (opts->js) {
        st = waste_js_collections(&w);
        sections = 1u << GCH_WASTE_EMPTY;
        if (st == GCH_OK && heap->payloads_kept) { /* the texts of string nodes */
            st = map_payloads(&w);
            if (st == GCH_OK)
                st = waste_text_groups(&w, &(waste_text_rule){ 1, V8_STRING_LIMIT });
            sections |= 1u << GCH_WASTE_DUP_STRINGS;
        }
    } else if (opts->dart) { /* texts and lengths, all in the heap */
        st = map_payloads(&w);
        if (st == GCH_OK)
            st = waste_text_groups(&w, &(waste_text_rule){ 1, 0 });
        if (st == GCH_OK)
            st = waste_dart_lengths(&w);
        sections = 1u << GCH_WASTE_DUP_STRINGS | 1u << GCH_WASTE_EMPTY |
                   1u << GCH_WASTE_UNDERFILLED | 1u << GCH_WASTE_ZERO_ARRAYS;
    } else if (opts->text) { /* Ruby: a length in bytes, as the dump's bytesize */
        st = map_payloads(&w);
        if (st == GCH_OK)
            st = waste_text_groups(&w, &(waste_text_rule){ 0, 0 });
        sections = 1u << GCH_WASTE_DUP_STRINGS;
    } else {
        st = map_payloads(&w);
        if (st == GCH_OK)
            st = waste_duplicates(&w);
        if (st == GCH_OK)
            st = zero_arrays(&w);
        sections = 1u << GCH_WASTE_DUP_STRINGS | 1u << GCH_WASTE_DUP_ARRAYS | 1u << GCH_WASTE_ZERO_ARRAYS;
        if (st == GCH_OK && heap->type_fields) {
            st = waste_fields(&w, out);
            sections |= 1u << GCH_WASTE_EMPTY | 1u << GCH_WASTE_UNDERFILLED | 1u << GCH_WASTE_BOXED;
        }
    }
    gch_free(w.pidx);
    gch_free(w.buf);
    if (st != GCH_OK) {
        gch_free(w.rows);
        memset(out, 0, sizeof *out);
        return st;
    }
    for (size_t i = 0; i < w.count; i++)
        w.rows[i].id = heap->object_id[w.rows[i].object];
    if (w.count)
        qsort(w.rows, w.count, sizeof *w.rows, row_order);
    out->rows = w.rows;
    out->count = w.count;
    out->available = 1;
    out->sections = sections;
    out->fields = heap->type_fields != NULL;
    for (size_t i = 0; i < w.count; i++)
        out->wasted[w.rows[i].kind] += w.rows[i].wasted;
    return GCH_OK;
}

void gch_waste_free(gch_waste *w)
{
    if (!w)
        return;
    gch_free(w->rows);
    memset(w, 0, sizeof *w);
}
