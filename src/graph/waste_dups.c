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
#include "radix_sort.h"
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
    *out = h & w->hash_mask;
    return GCH_OK;
}

/* A candidate: a String (pay = the String's entry) or an array (pay = arr). */
typedef struct cand {
    uint64_t hash;
    uint64_t offset;   /* of the bytes compared */
    uint64_t nbytes;
    uint32_t pay, arr; /* payload entries: the member, the array holding its bytes */
    uint32_t group;    /* while confirming: its group */
    uint8_t elem, coder;
    uint8_t differs;   /* while confirming: its bytes differ from its group's first member's */
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

/* Sorts by offset; HotSpot writes most objects in id order, so the entries
 * often come sorted already. */
static void sort_at(at_entry *e, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (at_order(&e[i - 1], &e[i]) > 0) {
            qsort(e, n, sizeof *e, at_order);
            return;
        }
}

#define BLOB_CAP ((size_t)64 << 20) /* bytes of first members kept while confirming */

/* A candidate group: c[start .. start+n-1], its first member's bytes at
 * blob[at] (NO_BLOB: not kept; its members are compared by reading both). */
typedef struct group {
    size_t start, n;
    size_t at;
} group;
#define NO_BLOB SIZE_MAX

/* Marks the members of each kept group whose bytes differ from the first
 * member's: the first members are read into blob, then every other member
 * is read once, all in file order through the window (one sweep instead of
 * two reads a member). */
static gch_status sweep(wctx *w, cand *c, group *g, size_t ng, unsigned char *blob, at_entry *order)
{
    size_t m = 0;
    for (size_t k = 0; k < ng; k++)
        if (g[k].at != NO_BLOB) {
            order[m].offset = c[g[k].start].offset;
            order[m++].pay = (uint32_t)k;
        }
    sort_at(order, m);
    for (size_t i = 0; i < m; i++) {
        const group *gr = &g[order[i].pay];
        const unsigned char *p;
        gch_status st = waste_window(w, c[gr->start].offset, (size_t)c[gr->start].nbytes, &p);
        if (st != GCH_OK)
            return st;
        memcpy(blob + gr->at, p, (size_t)c[gr->start].nbytes);
    }
    m = 0;
    for (size_t k = 0; k < ng; k++)
        for (size_t i = g[k].start + 1; g[k].at != NO_BLOB && i < g[k].start + g[k].n; i++)
            if (c[i].offset != c[g[k].start].offset) { /* a shared value array is equal */
                order[m].offset = c[i].offset;
                order[m++].pay = (uint32_t)i;
            }
    sort_at(order, m);
    for (size_t i = 0; i < m; i++) {
        cand *x = &c[order[i].pay];
        const unsigned char *p;
        gch_status st = waste_window(w, x->offset, (size_t)x->nbytes, &p);
        if (st != GCH_OK)
            return st;
        x->differs = memcmp(p, blob + g[x->group].at, (size_t)x->nbytes) != 0;
    }
    return GCH_OK;
}

/* Groups whose first member's bytes were kept: the members equal to it make
 * a row; the others (a hash collision) are split by reading them again. */
static gch_status emit_swept(wctx *w, unsigned kind, cand *c, const group *g, cand *tmp,
                             unsigned char *ba, unsigned char *bb)
{
    cand *x = c + g->start;
    size_t same = 0, other = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (x[i].differs)
            tmp[other++] = x[i];
        else
            x[same++] = x[i];
    }
    gch_status st = same >= w->min_count ? emit_group(w, kind, x, same) : GCH_OK;
    if (st == GCH_OK && other >= w->min_count) {
        memcpy(x, tmp, other * sizeof *x);
        st = split_group(w, kind, x, other, tmp, ba, bb);
    }
    return st;
}

/* Sorts c[0..n-1] as cand_order does, for candidates given in file order
 * (of the bytes compared): a radix sort (stable) of a key mixing every
 * field of the group key, so that each group comes out together and still
 * in file order; a run of equal keys holding more than one group (a hash
 * collision) is sorted by cand_order. */
static gch_status order_candidates(wctx *w, cand *c, size_t n)
{
    uint64_t *key = gch_reallocarray(NULL, n, sizeof *key);
    uint64_t *key_tmp = gch_reallocarray(NULL, n, sizeof *key_tmp);
    uint32_t *at = gch_reallocarray(NULL, n, sizeof *at);
    uint32_t *at_tmp = gch_reallocarray(NULL, n, sizeof *at_tmp);
    cand *sorted = gch_reallocarray(NULL, n, sizeof *sorted);
    gch_status st = GCH_OK;
    if (!key || !key_tmp || !at || !at_tmp || !sorted) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        key[i] = mix(mix(c[i].hash, c[i].nbytes), (uint64_t)c[i].elem << 8 | c[i].coder);
        at[i] = (uint32_t)i;
    }
    gch_radix_sort_u64(key, at, n, key_tmp, at_tmp);
    for (size_t i = 0; i < n; i++)
        sorted[i] = c[at[i]];
    memcpy(c, sorted, n * sizeof *c);
    for (size_t i = 0, j; i < n; i = j) {
        int mixed = 0;
        for (j = i + 1; j < n && key[j] == key[i]; j++)
            mixed |= !same_key(&c[j], &c[i]);
        if (mixed)
            qsort(c + i, j - i, sizeof *c, cand_order);
    }
done:
    gch_free(key);
    gch_free(key_tmp);
    gch_free(at);
    gch_free(at_tmp);
    gch_free(sorted);
    return st;
}

static gch_status report_groups(wctx *w, unsigned kind, cand *c, size_t n)
{
    if (n == 0)
        return GCH_OK;
    gch_status st0 = order_candidates(w, c, n);
    if (st0 != GCH_OK)
        return st0;
    size_t ng = 0, blob_size = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && same_key(&c[i], &c[j]); j++)
            ;
        ng += j - i >= w->min_count;
    }
    group *g = gch_reallocarray(NULL, ng ? ng : 1, sizeof *g);
    at_entry *order = gch_reallocarray(NULL, n, sizeof *order);
    cand *tmp = gch_reallocarray(NULL, n, sizeof *tmp);
    unsigned char *ba = gch_malloc(65536), *bb = gch_malloc(65536), *blob = NULL;
    gch_status st = GCH_OK;
    if (!g || !order || !tmp || !ba || !bb) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    ng = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && same_key(&c[i], &c[j]); j++)
            ;
        if (j - i < w->min_count)
            continue;
        size_t bytes = (size_t)c[i].nbytes;
        int keep = c[i].nbytes <= WASTE_WINDOW && blob_size + bytes <= BLOB_CAP;
        g[ng] = (group){ i, j - i, keep ? blob_size : NO_BLOB };
        for (size_t k = i; k < j; k++) {
            c[k].group = (uint32_t)ng;
            c[k].differs = 0;
        }
        blob_size += keep ? bytes : 0;
        ng++;
    }
    if (!(blob = gch_malloc(blob_size ? blob_size : 1))) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    st = sweep(w, c, g, ng, blob, order);
    for (size_t k = 0; st == GCH_OK && k < ng; k++)
        st = g[k].at != NO_BLOB ? emit_swept(w, kind, c, &g[k], tmp, ba, bb)
                                : split_group(w, kind, c + g[k].start, g[k].n, tmp, ba, bb);
done:
    gch_free(g);
    gch_free(order);
    gch_free(tmp);
    gch_free(ba);
    gch_free(bb);
    gch_free(blob);
    return st;
}

/* Puts the Strings c[0..n-1] in the file order of their value arrays
 * (rank: each array's position in file order, m of them), keeping their
 * order among those sharing one: a counting sort. */
static gch_status by_array_rank(wctx *w, cand *c, size_t n, const uint32_t *rank, size_t m)
{
    uint32_t *start = gch_calloc(m + 1, sizeof *start);
    cand *out = gch_reallocarray(NULL, n ? n : 1, sizeof *out);
    if (!start || !out) {
        gch_free(start);
        gch_free(out);
        return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        start[rank[c[i].arr] + 1]++;
    for (size_t r = 0; r < m; r++)
        start[r + 1] += start[r];
    for (size_t i = 0; i < n; i++)
        out[start[rank[c[i].arr]]++] = c[i];
    memcpy(c, out, n * sizeof *c);
    gch_free(start);
    gch_free(out);
    return GCH_OK;
}

gch_status waste_duplicates(wctx *w)
{
    const gch_heap *h = w->h;
    size_t n = h->payload_count;
    uint64_t *hash = gch_reallocarray(NULL, n ? n : 1, sizeof *hash);
    at_entry *order = gch_reallocarray(NULL, n ? n : 1, sizeof *order);
    uint8_t *is_value = gch_calloc(n ? n : 1, 1);
    cand *strs = NULL, *arrs = NULL;
    uint32_t *rank = NULL;
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
    sort_at(order, m);
    for (size_t k = 0; k < m && st == GCH_OK; k++) {
        const gch_payload *p = &h->payloads[order[k].pay];
        st = hash_bytes(w, p->offset, (uint64_t)p->length * gch_elem_size(p->elem), &hash[order[k].pay]);
    }
    if (st != GCH_OK)
        goto done;
    strs = gch_reallocarray(NULL, n ? n : 1, sizeof *strs);
    rank = gch_reallocarray(NULL, n ? n : 1, sizeof *rank);
    if (!strs || !rank) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < m; k++)
        rank[order[k].pay] = (uint32_t)k;
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
    if ((st = by_array_rank(w, strs, nstr, rank, m)) != GCH_OK ||
        (st = report_groups(w, GCH_WASTE_DUP_STRINGS, strs, nstr)) != GCH_OK)
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
    gch_free(rank);
    return st;
}
