/* Duplicate strings and primitive arrays (gcheap/waste.h). Every primitive
 * array is hashed while the file is read in offset order (a window of
 * WASTE_WINDOW bytes at a time: nothing of the contents is kept but the
 * hash); Strings take the hash of their value array. Candidates with an
 * equal key (hash, element type, length, coder) are sorted together, and a
 * group large enough to report is split by comparing its members' bytes
 * with one member's, so only equal contents are ever counted together. */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "waste_internal.h"

#define HASH_MUL 0x9E3779B97F4A7C15ull

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v;
    h *= HASH_MUL;
    return h ^ (h >> 31);
}

/* Hashes bytes [off, off + n): 8-byte words, read through the window in
 * pieces that are multiples of 8 bytes (the split never changes the hash). */
static gch_status hash_bytes(wctx *w, uint64_t off, uint64_t n, uint64_t *out)
{
    uint64_t h = mix(0x243F6A8885A308D3ull, n);
    while (n > 0) {
        size_t piece = n < WASTE_WINDOW ? (size_t)n : WASTE_WINDOW;
        const unsigned char *p;
        gch_status st = waste_window(w, off, piece, &p);
        if (st != GCH_OK)
            return st;
        size_t i = 0;
        for (; i + 8 <= piece; i += 8) {
            uint64_t v;
            memcpy(&v, p + i, 8);
            h = mix(h, v);
        }
        if (i < piece) { /* only in the last piece */
            uint64_t v = 0;
            memcpy(&v, p + i, piece - i);
            h = mix(h, v ^ 0xFF);
        }
        off += piece;
        n -= piece;
    }
    *out = h;
    return GCH_OK;
}

/* A candidate: a String (pay = the String's entry) or an array (pay = arr). */
typedef struct cand {
    uint64_t hash;
    uint64_t offset;   /* of the bytes compared */
    uint64_t nbytes;
    uint32_t pay, arr; /* payload entries: the member, the array holding its bytes */
    uint8_t elem, coder;
} cand;

static int cand_order(const void *pa, const void *pb)
{
    const cand *a = pa, *b = pb;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    if (a->nbytes != b->nbytes)
        return a->nbytes < b->nbytes ? -1 : 1;
    if (a->elem != b->elem)
        return a->elem < b->elem ? -1 : 1;
    if (a->coder != b->coder)
        return a->coder < b->coder ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->pay < b->pay ? -1 : a->pay > b->pay;
}

static int same_key(const cand *a, const cand *b)
{
    return a->hash == b->hash && a->nbytes == b->nbytes && a->elem == b->elem && a->coder == b->coder;
}

/* Whether the n bytes at a and at b are equal. */
static gch_status equal_bytes(wctx *w, uint64_t a, uint64_t b, uint64_t n, unsigned char *ba,
                              unsigned char *bb, int *equal)
{
    *equal = 1;
    if (a == b)
        return GCH_OK;
    for (uint64_t done = 0; done < n;) {
        size_t piece = n - done < 65536 ? (size_t)(n - done) : 65536;
        gch_status st = waste_read(w, a + done, ba, piece);
        if (st == GCH_OK)
            st = waste_read(w, b + done, bb, piece);
        if (st != GCH_OK)
            return st;
        if (memcmp(ba, bb, piece) != 0) {
            *equal = 0;
            return GCH_OK;
        }
        done += piece;
    }
    return GCH_OK;
}

static uint64_t size_of(const wctx *w, uint32_t pay)
{
    uint32_t o = w->pidx[pay];
    return o == GCH_NONE ? 0 : gch_object_size(w->h, o);
}

/* One row for the equal members c[0..n-1] (sorted by offset). */
static gch_status emit_group(wctx *w, unsigned kind, const cand *c, size_t n)
{
    gch_waste_row *r = waste_row(w, kind);
    if (!r)
        return GCH_ENOMEM;
    const gch_payload *arr = &w->h->payloads[c[0].arr];
    r->object = w->pidx[c[0].pay];
    r->type = w->h->object_type[r->object];
    r->count = n;
    r->elem = arr->elem;
    r->length = c[0].coder == GCH_CODER_UTF16 && arr->elem == GCH_ELEM_BYTE ? arr->length / 2
                                                                            : arr->length;
    r->copy = size_of(w, c[0].pay) + (kind == GCH_WASTE_DUP_STRINGS ? size_of(w, c[0].arr) : 0);
    for (size_t i = 0; i < n; i++) {
        r->bytes += size_of(w, c[i].pay);
        /* A value array shared by several Strings counts once. */
        if (kind == GCH_WASTE_DUP_STRINGS && (i == 0 || c[i].offset != c[i - 1].offset))
            r->bytes += size_of(w, c[i].arr);
    }
    r->wasted = r->bytes - r->copy;
    return GCH_OK;
}

/* Splits the candidates c[0..n-1] of one key into groups of equal bytes and
 * emits those with at least min_count members. tmp has room for n. */
static gch_status split_group(wctx *w, unsigned kind, cand *c, size_t n, cand *tmp,
                              unsigned char *ba, unsigned char *bb)
{
    while (n >= w->min_count) {
        size_t same = 1, other = 0;
        for (size_t i = 1; i < n; i++) {
            int eq;
            gch_status st = equal_bytes(w, c[0].offset, c[i].offset, c[0].nbytes, ba, bb, &eq);
            if (st != GCH_OK)
                return st;
            if (eq)
                c[same++] = c[i];
            else
                tmp[other++] = c[i];
        }
        if (same >= w->min_count) {
            gch_status st = emit_group(w, kind, c, same);
            if (st != GCH_OK)
                return st;
        }
        memcpy(c, tmp, other * sizeof *c);
        n = other;
    }
    return GCH_OK;
}

static gch_status report_groups(wctx *w, unsigned kind, cand *c, size_t n)
{
    if (n == 0)
        return GCH_OK;
    qsort(c, n, sizeof *c, cand_order);
    cand *tmp = gch_reallocarray(NULL, n, sizeof *tmp);
    unsigned char *ba = gch_malloc(65536), *bb = gch_malloc(65536);
    gch_status st = GCH_OK;
    if (!tmp || !ba || !bb)
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
    for (size_t i = 0; st == GCH_OK && i < n;) {
        size_t j = i + 1;
        while (j < n && same_key(&c[i], &c[j]))
            j++;
        if (j - i >= w->min_count)
            st = split_group(w, kind, c + i, j - i, tmp, ba, bb);
        i = j;
    }
    gch_free(tmp);
    gch_free(ba);
    gch_free(bb);
    return st;
}

/* An entry to read, by offset. */
typedef struct at_entry {
    uint64_t offset;
    uint32_t pay;
} at_entry;

static int at_order(const void *pa, const void *pb)
{
    const at_entry *a = pa, *b = pb;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->pay < b->pay ? -1 : a->pay > b->pay;
}

gch_status waste_duplicates(wctx *w)
{
    const gch_heap *h = w->h;
    size_t n = h->payload_count;
    uint64_t *hash = gch_reallocarray(NULL, n ? n : 1, sizeof *hash);
    at_entry *order = gch_reallocarray(NULL, n ? n : 1, sizeof *order);
    uint8_t *is_value = gch_calloc(n ? n : 1, 1);
    cand *strs = NULL, *arrs = NULL;
    size_t nstr = 0, narr = 0, m = 0;
    gch_status st = GCH_OK;
    if (!hash || !order || !is_value) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    /* Arrays whose bytes are wanted: primitive, not empty, an object's. */
    w->limit = 0;
    for (size_t i = 0; i < n; i++) {
        const gch_payload *p = &h->payloads[i];
        if (p->kind == GCH_PAYLOAD_ARRAY && p->elem != GCH_ELEM_OBJECT && p->length > 0 &&
            w->pidx[i] != GCH_NONE) {
            order[m].offset = p->offset;
            order[m++].pay = (uint32_t)i;
            uint64_t end = p->offset + (uint64_t)p->length * gch_elem_size(p->elem);
            if (end > w->limit)
                w->limit = end;
        }
    }
    qsort(order, m, sizeof *order, at_order);
    for (size_t k = 0; k < m && st == GCH_OK; k++) {
        const gch_payload *p = &h->payloads[order[k].pay];
        st = hash_bytes(w, p->offset, (uint64_t)p->length * gch_elem_size(p->elem), &hash[order[k].pay]);
    }
    if (st != GCH_OK)
        goto done;
    strs = gch_reallocarray(NULL, n ? n : 1, sizeof *strs);
    if (!strs) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const gch_payload *p = &h->payloads[i];
        if (p->kind != GCH_PAYLOAD_STRING || !p->value)
            continue;
        const gch_payload *a = gch_heap_payload(h, p->value);
        if (!a || a->kind != GCH_PAYLOAD_ARRAY || a->elem == GCH_ELEM_OBJECT)
            continue;
        size_t ai = (size_t)(a - h->payloads);
        is_value[ai] = 1;
        if (!waste_wanted(w, w->pidx[i]) || a->length == 0 || w->pidx[ai] == GCH_NONE)
            continue;
        cand *c = &strs[nstr++];
        c->hash = hash[ai];
        c->offset = a->offset;
        c->nbytes = (uint64_t)a->length * gch_elem_size(a->elem);
        c->pay = (uint32_t)i;
        c->arr = (uint32_t)ai;
        c->elem = a->elem;
        c->coder = p->coder;
    }
    if ((st = report_groups(w, GCH_WASTE_DUP_STRINGS, strs, nstr)) != GCH_OK)
        goto done;
    gch_free(strs);
    strs = NULL;
    arrs = gch_reallocarray(NULL, m ? m : 1, sizeof *arrs);
    if (!arrs) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < m; k++) {
        uint32_t i = order[k].pay;
        const gch_payload *p = &h->payloads[i];
        if (is_value[i] || !waste_wanted(w, w->pidx[i]))
            continue;
        cand *c = &arrs[narr++];
        c->hash = hash[i];
        c->offset = p->offset;
        c->nbytes = (uint64_t)p->length * gch_elem_size(p->elem);
        c->pay = c->arr = i;
        c->elem = p->elem;
        c->coder = 0;
    }
    st = report_groups(w, GCH_WASTE_DUP_ARRAYS, arrs, narr);
done:
    gch_free(hash);
    gch_free(order);
    gch_free(is_value);
    gch_free(strs);
    gch_free(arrs);
    return st;
}
