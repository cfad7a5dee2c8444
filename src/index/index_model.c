/* The model an index holds: each heap's chunks checked (once) and lent to a
 * gch_heap that borrows them. A value out of bounds is a format error at the
 * chunk's offset, found before any command reads the array. */
#include <inttypes.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/index.h"
#include "gcheap/task.h"
#include "index_internal.h"
#include "index_read.h"

typedef struct loader {
    gch_index *ix;
    uint32_t heap;
    gch_error *err;
    gch_status st;
} loader;

static int below8(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at);

static int ids_rise(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at);
static int sizes_sum(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at);

/* A check that may run piece by piece, in order, behind the checksum: each
 * element alone, or (the last four) with what it carries from one piece to
 * the next in its ctx, which it writes. */
static int in_pieces(gcx_value_check check)
{
    return check == gcx_below32 || check == below8 || check == gcx_parents_below ||
           check == gcx_csr_starts || check == ids_rise || check == sizes_sum;
}

/* Bytes summed, then checked while they are in the cache (a multiple of 32
 * and of every element size). */
#define GCX_FUSED_BLOCK (64u << 10)

/* The checksum and an in_pieces check of the chunk at pos in one pass:
 * 1 when the checksum matches (*bad: whether a value is out of bounds,
 * *bad_at the first), 0 when it does not (then the values do not matter:
 * the checksum's error comes first, as when checked one after the other). */
static int sum_and_check(gch_index *ix, uint32_t pos, const unsigned char *p,
                         gcx_value_check check, const void *ctx, int *bad, uint64_t *bad_at)
{
    const gcx_toc *t = &ix->toc[pos];
    uint64_t bytes = t->count * t->elem_size, off = 0;
    gcx_hash hs;
    gcx_hash_begin(&hs);
    *bad = 0;
    for (; bytes - off >= 32; off += GCX_FUSED_BLOCK) {
        uint64_t len = bytes - off < GCX_FUSED_BLOCK ? (bytes - off) / 32 * 32 : GCX_FUSED_BLOCK;
        gcx_hash_stripes(&hs, p + off, (size_t)len);
        uint64_t at = 0;
        if (!*bad && !check(p + off, len / t->elem_size, ctx, &at)) {
            *bad = 1;
            *bad_at = off / t->elem_size + at;
        }
        if (len < GCX_FUSED_BLOCK) {
            off += len;
            break;
        }
    }
    if (gcx_hash_end(&hs, p + off, (size_t)(bytes - off)) != t->checksum)
        return 0;
    uint64_t at = 0; /* the last elements, below a stripe */
    if (!*bad && !check(p + off, (bytes - off) / t->elem_size, ctx, &at)) {
        *bad = 1;
        *bad_at = off / t->elem_size + at;
    }
    return 1;
}

static gch_status out_of_bounds(gch_index *ix, uint32_t pos, uint32_t heap, uint64_t at,
                                gch_error *err)
{
    char name[5];
    for (int i = 0; i < 4; i++)
        name[i] = (char)(ix->toc[pos].tag >> (8 * i));
    name[4] = '\0';
    return gch_error_at(err, ix->toc[pos].offset + at * ix->toc[pos].elem_size,
                        "index: chunk %s of section %u: element %llu out of bounds", name, heap,
                        (unsigned long long)at);
}

const void *gcx_get(gch_index *ix, uint32_t heap, uint32_t tag, unsigned view, uint32_t elem,
                    uint64_t count, int required, gcx_value_check check, const void *ctx,
                    gch_status *st, gch_error *err)
{
    const void *p;
    uint32_t pos;
    /* Neither summed nor checked, with a check of elements alone: both in
     * one pass (gcx_chunk's checksum message when it does not match). */
    *st = gcx_find(ix, heap, tag, view, elem, count, required, 0, &p, &pos, err);
    if (*st == GCH_OK && p && check && in_pieces(check) && !(ix->checked[pos] & GCX_SUMMED)) {
        int bad;
        uint64_t at = 0;
        if (!sum_and_check(ix, pos, p, check, ctx, &bad, &at)) {
            *st = gcx_chunk(ix, heap, tag, view, elem, count, required, &p, &pos, err);
            if (*st == GCH_OK) /* summed twice, differently: never, but not a chunk to use */
                *st = gch_error_at(err, ix->toc[pos].offset, "index: section %u: checksum "
                                   "mismatch", heap);
            return NULL;
        }
        ix->checked[pos] |= GCX_SUMMED;
        if (bad) {
            *st = out_of_bounds(ix, pos, heap, at, err);
            return NULL;
        }
        ix->checked[pos] |= GCX_VALUES;
        return p;
    }
    *st = gcx_chunk(ix, heap, tag, view, elem, count, required, &p, &pos, err);
    if (*st != GCH_OK || !p)
        return NULL;
    if (check && !(ix->checked[pos] & GCX_VALUES)) {
        uint64_t at = 0;
        if (!check(p, ix->toc[pos].count, ctx, &at)) {
            *st = out_of_bounds(ix, pos, heap, at, err);
            return NULL;
        }
        ix->checked[pos] |= GCX_VALUES;
    }
    return p;
}

/* With one thread per core (0), a chunk smaller than this is checked
 * beside nothing: that takes less time than a thread to start and join. A
 * number of threads set on purpose (tests) starts one for any chunk. */
#define GCX_BESIDE_MIN_BYTES (4u << 20)

typedef struct beside_arg {
    gch_index *ix;
    gcx_get_job *job;
} beside_arg;

static int get_job(void *arg)
{
    beside_arg *a = arg;
    gcx_get_job *j = a->job;
    gch_error_clear(&j->err);
    j->out = gcx_get(a->ix, j->heap, j->tag, j->view, j->elem, j->count, j->required, j->check,
                     j->ctx, &j->st, &j->err);
    return 0;
}

void gcx_get_beside(gch_index *ix, gcx_get_job *job)
{
    job->task = NULL;
    job->ran = 0;
    job->out = NULL;
    job->st = GCH_OK;
    if (ix->threads == 1 || job->count == UINT64_MAX ||
        (ix->threads == 0 && job->count < GCX_BESIDE_MIN_BYTES / job->elem))
        return;
    beside_arg *a = gch_malloc(sizeof *a);
    if (!a)
        return; /* then it runs in gcx_get_join */
    a->ix = ix;
    a->job = job;
    job->task = gch_task_start(ix->threads, get_job, a);
    job->arg = a;
    if (!job->task) { /* out of memory: it ran here */
        gch_free(a);
        job->ran = 1;
    }
}

const void *gcx_get_join(gch_index *ix, gcx_get_job *job, gch_status *st, gch_error *err)
{
    if (job->task) {
        gch_task_finish(job->task);
        gch_free(job->arg);
        job->task = NULL;
    } else if (!job->ran) {
        beside_arg a = { ix, job };
        get_job(&a);
    }
    *st = job->st;
    if (job->st != GCH_OK)
        gcx_error_put(err, &job->err);
    return job->out;
}

static const void *get(loader *l, uint32_t tag, uint32_t elem, uint64_t count, int required,
                       gcx_value_check check, const void *ctx)
{
    if (l->st != GCH_OK)
        return NULL;
    return gcx_get(l->ix, l->heap, tag, 0, elem, count, required, check, ctx, &l->st, l->err);
}

/* ---- value checks ---- */

typedef gcx_limit32 limit32;

/* The value checks run without an early exit (vectorized), then look for
 * the first bad element only when there is one. */
int gcx_below32(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *v = data;
    const limit32 *lim = ctx;
    uint32_t bad = 0, below = lim->below, strict = !lim->none_ok;
    for (uint64_t i = 0; i < count; i++)
        bad |= (v[i] >= below) & ((v[i] != GCH_NONE) | strict);
    if (!bad)
        return 1;
    for (uint64_t i = 0; i < count; i++)
        if (v[i] >= lim->below && !(lim->none_ok && v[i] == GCH_NONE)) {
            *bad_at = i;
            return 0;
        }
    return 1;
}

static int below8(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint8_t *v = data;
    unsigned lim = *(const unsigned *)ctx;
    for (uint64_t i = 0; i < count; i++)
        if (v[i] >= lim) {
            *bad_at = i;
            return 0;
        }
    return 1;
}

/* out_start and in_start: from 0, never falling, ending at the reference
 * count; in pieces (the last value carried). */
int gcx_csr_starts(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    gcx_csr_ctx *c = (gcx_csr_ctx *)ctx; /* the caller's, written */
    const uint32_t *v = data;
    *bad_at = 0;
    if (count == 0) /* a piece past the last (or a chunk of none) */
        return c->total != 0;
    if (c->seen == 0 && v[0] != 0)
        return 0;
    uint32_t prev = c->seen ? c->last : 0, falls = v[0] < prev;
    for (uint64_t i = 1; i < count; i++)
        falls |= v[i] < v[i - 1];
    if (falls) {
        if (v[0] < prev)
            return 0;
        for (uint64_t i = 1; i < count; i++)
            if (v[i] < v[i - 1]) {
                *bad_at = i;
                return 0;
            }
    }
    c->seen += count;
    c->last = v[count - 1];
    if (c->seen == c->total && c->last != c->refs) {
        *bad_at = count - 1;
        return 0;
    }
    return 1;
}

int gcx_rising_below32(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *v = data;
    uint32_t n = *(const uint32_t *)ctx;
    for (uint64_t i = 0; i < count; i++)
        if (v[i] >= n || (i && v[i] <= v[i - 1])) {
            *bad_at = i;
            return 0;
        }
    return 1;
}

/* NUL-terminated text filling the chunk exactly: `strings` of them. */
static int texts(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const char *p = data;
    uint64_t want = *(const uint64_t *)ctx, seen = 0;
    for (uint64_t i = 0; i < count; i++)
        if (p[i] == '\0')
            seen++;
    if (seen != want || (count && p[count - 1] != '\0')) {
        *bad_at = count ? count - 1 : 0;
        return 0;
    }
    return 1;
}

/* ---- one heap ---- */

static int heap_rec(loader *l, gcx_heap_rec *r)
{
    const void *p = get(l, GCX_HEAP, sizeof *r, 1, 1, NULL, NULL);
    if (!p)
        return 0;
    memcpy(r, p, sizeof *r);
    if (r->id_radix != 10 && r->id_radix != 16) {
        l->st = gch_error_at(l->err, (uint64_t)((const unsigned char *)p - l->ix->data),
                             "index: section %u: bad id radix", l->heap);
        return 0;
    }
    /* Counts are backed by the file (UINT64_MAX is gcx_get's "any count",
     * never a count a chunk of this file can hold). */
    if (r->strings_size > l->ix->size || r->ref_count > l->ix->size || r->meta_count > l->ix->size) {
        l->st = gch_error_at(l->err, (uint64_t)((const unsigned char *)p - l->ix->data),
                             "index: section %u: a count larger than the file", l->heap);
        return 0;
    }
    return 1;
}

static void load_meta(loader *l, gch_heap *h, const gcx_heap_rec *r)
{
    const char *name = get(l, GCX_HNAM, 1, UINT64_MAX, 1, texts, &(uint64_t){ 1 });
    uint64_t pairs = r->meta_count * 2;
    if (r->meta_count > UINT64_MAX / 2)
        pairs = 0;
    const char *meta = get(l, GCX_META, 1, UINT64_MAX, 1, texts, &pairs);
    if (!name || !meta)
        return;
    h->name = (char *)name;
    /* Each entry is two strings of at least their NUL: backed by the chunk. */
    h->meta = gch_calloc(r->meta_count ? (size_t)r->meta_count : 1, sizeof *h->meta);
    if (!h->meta) {
        l->st = gch_error_set(l->err, GCH_ENOMEM, "out of memory reading the index");
        return;
    }
    h->meta_count = (size_t)r->meta_count;
    for (size_t i = 0; i < h->meta_count; i++) {
        h->meta[i].key = (char *)meta;
        meta += strlen(meta) + 1;
        h->meta[i].value = (char *)meta;
        meta += strlen(meta) + 1;
    }
}

static void load_types(loader *l, gch_heap *h, const gcx_heap_rec *r, int totals)
{
    uint32_t t = r->type_count;
    /* A string offset is below the pool's size (GCH_NONE where allowed). */
    uint32_t ss = r->strings_size > UINT32_MAX ? UINT32_MAX : (uint32_t)r->strings_size;
    limit32 str = { ss, 1 };
    h->strings = (char *)get(l, GCX_STRS, 1, r->strings_size, 1, NULL, NULL);
    if (h->strings && r->strings_size && h->strings[r->strings_size - 1] != '\0')
        l->st = gch_error_at(l->err, 0, "index: section %u: string pool not terminated", l->heap);
    h->strings_size = (size_t)r->strings_size;
    h->type_count = t;
    limit32 named = { ss, 0 }; /* every type has a name */
    h->type_name = (uint32_t *)get(l, GCX_TNAM, 4, t, 1, gcx_below32, &named);
    if (r->has & GCX_HAS_MODULES)
        h->type_module = (uint32_t *)get(l, GCX_TMOD, 4, t, 1, gcx_below32, &str);
    h->type_raw_id = (uint64_t *)get(l, GCX_TRID, 8, t, 1, NULL, NULL);
    unsigned flag = 2; /* 0 or 1 */
    h->type_declared = (uint8_t *)get(l, GCX_TDEC, 1, t, 1, below8, &flag);
    if (totals && (r->has & GCX_HAS_TYPE_TOTALS)) {
        h->type_objects = (uint32_t *)get(l, GCX_TOBJ, 4, t, 1, NULL, NULL);
        h->type_bytes = (uint64_t *)get(l, GCX_TBYT, 8, t, 1, NULL, NULL);
    }
    h->reported_types = r->reported_types;
    h->reported_declared_types = r->reported_declared_types;
}

/* Every GCH_SIZE_BIG slot has its big size (gch_heap_big_size's promise),
 * the sizes add up to the recorded total, and the per-type totals (stat's
 * histogram), when loaded, equal a count of the objects: a command never
 * prints totals that its rows contradict. The 32-bit sizes are summed in a
 * loop without a branch (it vectorizes; the 100M-object index reads 800 MB
 * for the types and sizes), the big ones added after: the big slots are as
 * many as the big sizes, each listed object (rising, checked) has one. */
/* The per-type totals against a count of the objects. Two tables, the
 * even and the odd objects': neighbours often share a type, and one table
 * would chain their increments one behind the other. */
/* Objects and bytes per type of objects [from, to) into objects and bytes
 * (2 * types entries each, zeroed): even and odd objects in two tables, so
 * that two increments of one type do not wait for each other. */
typedef struct totals_part {
    const gch_heap *h;
    uint32_t from, to;
    uint64_t *objects, *bytes;
} totals_part;

static int count_totals(void *arg)
{
    totals_part *t = arg;
    size_t nt = t->h->type_count ? t->h->type_count : 1;
    const uint32_t *restrict type = t->h->object_type, *restrict size32 = t->h->object_size32;
    uint64_t *restrict ob = t->objects, *restrict by = t->bytes;
    uint32_t o = t->from;
    for (; o + 1 < t->to; o += 2) {
        ob[type[o]]++;
        by[type[o]] += size32[o];
        ob[nt + type[o + 1]]++;
        by[nt + type[o + 1]] += size32[o + 1];
    }
    if (o < t->to) {
        ob[type[o]]++;
        by[type[o]] += size32[o];
    }
    return 0;
}

/* With one thread per core, heaps this big count their two halves on two
 * threads. */
#define GCX_TOTALS_SPLIT_MIN (1u << 20)

static void check_type_totals(loader *l, const gch_heap *h)
{
    size_t nt = h->type_count ? h->type_count : 1;
    uint32_t n = h->object_count;
    int split = l->ix->threads != 1 && (l->ix->threads != 0 || n >= GCX_TOTALS_SPLIT_MIN);
    uint64_t *tables = gch_calloc((split ? 8 : 4) * nt, sizeof *tables);
    if (!tables) {
        l->st = gch_error_set(l->err, GCH_ENOMEM, "out of memory reading the index");
        return;
    }
    totals_part a = { h, 0, split ? n / 2 : n, tables, tables + 2 * nt };
    totals_part b = { h, n / 2, n, tables + 4 * nt, tables + 6 * nt };
    gch_task *t = split ? gch_task_start(l->ix->threads, count_totals, &b) : NULL;
    count_totals(&a);
    gch_task_finish(t);
    uint64_t *ob = a.objects, *by = a.bytes;
    for (size_t i = 0; split && i < 2 * nt; i++) {
        ob[i] += b.objects[i];
        by[i] += b.bytes[i];
    }
    /* A big size was counted as GCH_SIZE_BIG: the rest of it (mod 2^64, so
     * the sum is exact). */
    for (uint32_t k = 0; k < h->big_size_count; k++)
        by[h->object_type[h->big_size_object[k]]] += h->big_size_value[k] - GCH_SIZE_BIG;
    for (uint32_t ty = 0; l->st == GCH_OK && ty < h->type_count; ty++)
        if (ob[ty] + ob[nt + ty] != h->type_objects[ty] || by[ty] + by[nt + ty] != h->type_bytes[ty])
            l->st = gch_error_at(l->err, 0, "index: section %u: the totals of type %" PRIu32
                                 " disagree with its objects", l->heap, ty);
    gch_free(tables);
}

/* The 32-bit sizes' sum without the GCH_SIZE_BIG slots, and how many
 * those are: in pieces behind the sizes' checksum (never failing). */
typedef struct sizes_ctx {
    uint64_t seen, sum, slots;
} sizes_ctx;

static int sizes_sum(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    sizes_ctx *c = (sizes_ctx *)ctx; /* the caller's, written */
    const uint32_t *restrict size32 = data;
    uint64_t sum = 0, slots = 0;
    (void)bad_at;
    for (uint64_t o = 0; o < count; o++) {
        uint32_t big = size32[o] == GCH_SIZE_BIG;
        slots += big;
        sum += size32[o] & (big - 1u);
    }
    c->seen += count;
    c->sum += sum;
    c->slots += slots;
    return 1;
}

/* sums: the sizes' sums when sizes_sum saw them all as they were checked. */
static void check_sizes(loader *l, const gch_heap *h, uint64_t total, sizes_ctx sums)
{
    const uint32_t *restrict size32 = h->object_size32;
    uint32_t n = h->object_count;
    if (sums.seen != n) { /* summed before, by an earlier use of the chunk */
        sums = (sizes_ctx){ 0, 0, 0 };
        sizes_sum(size32, n, &sums, NULL);
    }
    uint64_t sum = sums.sum, slots = sums.slots;
    int over = 0;
    int ok = slots == h->big_size_count;
    for (uint32_t k = 0; ok && k < h->big_size_count; k++) {
        uint64_t v = h->big_size_value[k];
        ok = h->big_size_object[k] < n && size32[h->big_size_object[k]] == GCH_SIZE_BIG;
        over |= v < GCH_SIZE_BIG || sum + v < sum;
        sum += v;
    }
    if (!ok || over || sum != total) {
        l->st = gch_error_at(l->err, 0, "index: section %u: object sizes disagree with the "
                             "big sizes or the total", l->heap);
        return;
    }
    if (h->type_objects && h->type_bytes)
        check_type_totals(l, h);
}

int gcx_ids_sorted(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    const uint32_t *a = data;
    const gch_heap *h = ctx;
    for (uint64_t k = 0; k < count; k++) {
        if (a[k] >= h->object_count || (k && h->object_id[a[k - 1]] >= h->object_id[a[k]])) {
            *bad_at = k;
            return 0;
        }
    }
    return 1;
}

/* Whether the ids fall (or repeat) anywhere: no early exit, no 64-bit
 * compare (SSE2 has none): the borrow of x - y is x < y (Hacker's Delight
 * 2-13), so the loop vectorizes. In pieces behind the ids' checksum (the
 * last id carried; never failing). */
typedef struct rise_ctx {
    uint64_t seen, last, falls;
} rise_ctx;

static inline uint64_t not_below(uint64_t x, uint64_t y)
{
    return (((~x & y) | (~(x ^ y) & (x - y))) >> 63) ^ 1u;
}

static int ids_rise(const void *data, uint64_t count, const void *ctx, uint64_t *bad_at)
{
    rise_ctx *c = (rise_ctx *)ctx; /* the caller's, written */
    const uint64_t *restrict id = data;
    uint64_t falls = count && c->seen ? not_below(c->last, id[0]) : 0;
    (void)bad_at;
    for (uint64_t i = 1; i < count; i++)
        falls |= not_below(id[i - 1], id[i]);
    c->falls |= falls;
    c->seen += count;
    if (count)
        c->last = id[count - 1];
    return 1;
}

/* Ids are distinct (a reader keeps the first of two records with one id):
 * rising in file order (falls 0, from ids_fall), or else in the order the id
 * order chunk gives, which must then be there. */
static void check_distinct_ids(loader *l, const gch_heap *h, uint64_t falls)
{
    uint32_t n = h->object_count;
    if (!falls) { /* kept: the id lookup (src_lookup) need not look again */
        uint32_t pos;
        if (gcx_chunk(l->ix, l->heap, GCX_OIDS, 0, 8, n, 1, &(const void *){ NULL }, &pos,
                      NULL) == GCH_OK)
            l->ix->checked[pos] |= GCX_RISING;
        return;
    }
    (void)gcx_get(l->ix, l->heap, GCX_IDOR, 0, 4, n, 1, gcx_ids_sorted, h, &l->st, l->err);
}

/* A root on an object names that object's id: an index whose roots say
 * otherwise would answer with one object and print another. */
static void check_root_ids(loader *l, const gch_heap *h)
{
    uint64_t dangling = 0;
    for (uint32_t r = 0; r < h->root_count; r++)
        dangling += h->root_object[r] == GCH_NONE;
    const gch_anomalies *a = &h->anomalies;
    if (dangling != a->dangling_roots || a->missing_end > 1 || a->end_name_mismatch > 1 ||
        a->unknown_type_objects > (uint64_t)h->object_count + a->duplicate_objects) {
        l->st = gch_error_at(l->err, 0, "index: section %u: the anomaly counts disagree with "
                             "the objects and roots", l->heap);
        return;
    }
    for (uint32_t r = 0; r < h->root_count; r++) {
        uint32_t o = h->root_object[r];
        if (o != GCH_NONE && h->object_id[o] != h->root_raw_id[r]) {
            l->st = gch_error_at(l->err, 0, "index: section %u: root %" PRIu32 " names object %" PRIu32
                                 " by another id", l->heap, r, o);
            return;
        }
    }
}

/* The reverse references' chunks checked now (GCH_INDEX_REVERSE), the
 * sources beside: with the targets' check on another thread, the two
 * biggest chunks go at once. Their errors are not the load's: the analysis
 * meets them again when it asks for the reverse references (then computed
 * instead), as without the flag. */
typedef struct reverse_early {
    gcx_get_job sources;
    limit32 objs;
    int started;
} reverse_early;

static void reverse_begin(gch_index *ix, uint32_t hi, const gcx_heap_rec *r, reverse_early *e)
{
    e->objs = (limit32){ r->object_count, 0 };
    e->sources = (gcx_get_job){ .heap = hi, .tag = GCX_INSR, .elem = 4, .count = r->ref_count,
                                .required = 0, .check = gcx_below32, .ctx = &e->objs };
    gcx_get_beside(ix, &e->sources);
    e->started = 1;
}

static void reverse_end(gch_index *ix, uint32_t hi, const gcx_heap_rec *r, reverse_early *e)
{
    gch_status st;
    gch_error ignored;
    gcx_csr_ctx c = gcx_csr_ctx_of(r->ref_count, (uint64_t)r->object_count + 1);
    (void)gcx_get(ix, hi, GCX_INST, 0, 4, (uint64_t)r->object_count + 1, 0, gcx_csr_starts, &c,
                  &st, &ignored);
    (void)gcx_get_join(ix, &e->sources, &st, &ignored);
}

/* The reference chunks of heap hi (CSR starts, targets, labels when asked
 * and kept), checked, into h; with reverse, the reverse references' too
 * (reverse_begin). */
gch_status gcx_load_refs(gch_index *ix, uint32_t hi, gch_heap *h, int labels, int reverse,
                         gch_error *err)
{
    loader l = { ix, hi, err, GCH_OK };
    gcx_heap_rec r;
    if (!heap_rec(&l, &r))
        return l.st;
    limit32 objs = { r.object_count, 0 };
    uint32_t ss = r.strings_size > UINT32_MAX ? UINT32_MAX : (uint32_t)r.strings_size;
    limit32 str = { ss, 1 };
    /* The targets' check beside the starts' (and the labels'). */
    gcx_get_job targets = { .heap = hi, .tag = GCX_OTGT, .elem = 4, .count = r.ref_count,
                            .required = 1, .check = gcx_below32, .ctx = &objs };
    gcx_get_beside(ix, &targets);
    reverse_early early = { .started = 0 };
    if (reverse)
        reverse_begin(ix, hi, &r, &early);
    gcx_csr_ctx sc = gcx_csr_ctx_of(r.ref_count, (uint64_t)r.object_count + 1);
    const uint32_t *start = get(&l, GCX_OSTA, 4, (uint64_t)r.object_count + 1, 1, gcx_csr_starts,
                                &sc);
    const uint32_t *label = NULL;
    if (labels && (r.has & GCX_HAS_LABELS))
        label = get(&l, GCX_OLAB, 4, r.ref_count, 1, gcx_below32, &str);
    if (early.started)
        reverse_end(ix, hi, &r, &early);
    gch_status own = l.st;
    gch_error mine;
    gcx_error_keep(&mine, err);
    const uint32_t *target = gcx_get_join(ix, &targets, &l.st, err);
    if (own != GCH_OK && (target || !start)) { /* first error in the old order: starts, targets, labels */
        l.st = own;
        gcx_error_put(err, &mine);
    }
    if (l.st != GCH_OK)
        return l.st;
    h->out_start = (uint32_t *)start;
    h->out_target = (uint32_t *)target;
    h->out_label = (uint32_t *)label;
    return GCH_OK;
}

static void load_objects(loader *l, gch_heap *h, const gcx_heap_rec *r, unsigned flags)
{
    uint32_t n = r->object_count;
    uint32_t ss = r->strings_size > UINT32_MAX ? UINT32_MAX : (uint32_t)r->strings_size;
    limit32 types = { r->type_count, 0 }, str = { ss, 1 }, objs_none = { n, 1 };
    limit32 types_none = { r->type_count, 1 };
    h->object_count = n;
    /* The ids' checksum (8 bytes an object) beside the types' and sizes'. */
    rise_ctx rise = { 0, 0, 0 };
    gcx_get_job ids = { .heap = l->heap, .tag = GCX_OIDS, .elem = 8, .count = n, .required = 1,
                        .check = ids_rise, .ctx = &rise };
    int ids_started = l->st == GCH_OK;
    if (ids_started)
        gcx_get_beside(l->ix, &ids);
    h->object_type = (uint32_t *)get(l, GCX_OTYP, 4, n, 1, gcx_below32, &types);
    sizes_ctx sums = { 0, 0, 0 };
    h->object_size32 = (uint32_t *)get(l, GCX_OSIZ, 4, n, 1, sizes_sum, &sums);
    h->big_size_count = r->big_size_count;
    h->big_size_object = (uint32_t *)get(l, GCX_BIGO, 4, r->big_size_count, 1, gcx_rising_below32, &n);
    h->big_size_value = (uint64_t *)get(l, GCX_BIGV, 8, r->big_size_count, 1, NULL, NULL);
    h->total_size = r->total_size;
    if (l->st == GCH_OK)
        check_sizes(l, h, r->total_size, sums);
    if (ids_started) { /* the ids' error first, as when checked first */
        gch_status own = l->st;
        gch_error mine;
        gcx_error_keep(&mine, l->err);
        h->object_id = (uint64_t *)gcx_get_join(l->ix, &ids, &l->st, l->err);
        if (h->object_id && own != GCH_OK) {
            l->st = own;
            gcx_error_put(l->err, &mine);
        }
        if (l->st == GCH_OK && rise.seen != n) { /* checked before, by an earlier use */
            rise = (rise_ctx){ 0, 0, 0 };
            ids_rise(h->object_id, n, &rise, NULL);
        }
        if (l->st == GCH_OK)
            check_distinct_ids(l, h, rise.falls);
    }
    h->ref_count = r->ref_count;
    h->refs_loaded = 1;
    /* Later only without field names to show: a command that asks for them
     * (retainers) reads them from the loaded heap, not through the analysis. */
    int labels = (flags & GCH_INDEX_LABELS) && (r->has & GCX_HAS_LABELS);
    if ((!(flags & GCH_INDEX_REFS_LATER) || labels) && l->st == GCH_OK)
        l->st = gcx_load_refs(l->ix, l->heap, h, (flags & GCH_INDEX_LABELS) != 0,
                              (flags & GCH_INDEX_REVERSE) != 0, l->err);
    uint32_t rc = r->root_count;
    unsigned kinds = GCH_ROOT_KIND_COUNT;
    unsigned flag = 2; /* 0 or 1 */
    h->root_count = rc;
    h->root_raw_id = (uint64_t *)get(l, GCX_RRID, 8, rc, 1, NULL, NULL);
    h->root_object = (uint32_t *)get(l, GCX_ROBJ, 4, rc, 1, gcx_below32, &objs_none);
    h->root_kind = (uint8_t *)get(l, GCX_RKND, 1, rc, 1, below8, &kinds);
    h->root_flags = (uint8_t *)get(l, GCX_RFLG, 1, rc, 1, NULL, NULL);
    if (l->st == GCH_OK)
        check_root_ids(l, h);
    if (r->has & GCX_HAS_CONTAINERS) {
        h->root_container = (uint32_t *)get(l, GCX_RCON, 4, rc, 1, gcx_below32, &types_none);
        h->root_container_raw = (uint64_t *)get(l, GCX_RCRW, 8, rc, 1, NULL, NULL);
        h->root_has_container = (uint8_t *)get(l, GCX_RHCN, 1, rc, 1, below8, &flag);
        for (uint32_t i = 0; l->st == GCH_OK && i < rc; i++)
            if (h->root_container[i] != GCH_NONE && !h->root_has_container[i])
                l->st = gch_error_at(l->err, 0, "index: section %u: root %" PRIu32
                                     " has a container type but no container", l->heap, i);
    }
    if (r->has & GCX_HAS_ROOT_LABELS)
        h->root_label = (uint32_t *)get(l, GCX_RLAB, 4, rc, 1, gcx_below32, &str);
    if (r->has & GCX_HAS_SITES)
        h->object_site = (uint32_t *)get(l, GCX_OSIT, 4, n, 1, gcx_below32, &str);
    if (r->has & GCX_HAS_V8) {
        h->v8_distance = (int32_t *)get(l, GCX_V8DI, 4, n, 1, NULL, NULL);
        h->v8_pseudo = (uint8_t *)get(l, GCX_V8PS, 1, n, 1, NULL, NULL);
    }
    if (r->has & GCX_HAS_V8_DOM) {
        unsigned states = 3;
        h->v8_detachedness = (uint8_t *)get(l, GCX_V8DT, 1, n, 1, below8, &states);
    }
}

static gch_heap *load_heap(gch_index *ix, uint32_t hi, int histogram_only, unsigned flags,
                           gch_error *err, gch_status *st)
{
    loader l = { ix, hi, err, GCH_OK };
    gcx_heap_rec r;
    gch_heap *h = gch_calloc(1, sizeof *h);
    if (!h) {
        *st = gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
        return NULL;
    }
    h->borrowed = GCH_BORROWED_MODEL;
    if (heap_rec(&l, &r)) {
        h->id_radix = r.id_radix;
        h->sampled = (int)r.sampled;
        gch_index_anomalies_get(r.anomalies, &h->anomalies);
        load_meta(&l, h, &r);
        /* V8 as DevTools shows it: type totals count the pseudo-nodes,
         * which the reader's histogram-only load leaves out; with the
         * objects the commands count as that load does. A heap whose
         * reader kept no type totals (no types) is loaded whole too. */
        int only = histogram_only && !(r.has & GCX_HAS_V8) && (r.has & GCX_HAS_TYPE_TOTALS);
        load_types(&l, h, &r, only || !(flags & GCH_INDEX_NO_TYPE_TOTALS));
        if (only)
            h->histogram_only = 1;
        else
            load_objects(&l, h, &r, flags);
    }
    *st = l.st;
    if (l.st != GCH_OK) {
        gch_free(h->meta);
        gch_free(h);
        return NULL;
    }
    return h;
}

static gch_status load_dump(gch_index *ix, int histogram_only, unsigned flags, gch_dump **out,
                            gch_error *err)
{
    *out = NULL;
    gch_dump *d = gch_calloc(1, sizeof *d);
    gch_heap **heaps = gch_calloc(ix->heap_count ? ix->heap_count : 1, sizeof *heaps);
    if (!d || !heaps) {
        gch_free(d);
        gch_free(heaps);
        return gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
    }
    d->heaps = heaps;
    d->format = gch_index_static_name(ix->rec.format);
    d->compression = ix->rec.compression[0] ? "gzip" : NULL;
    d->ids_stable = ix->rec.ids_stable != 0;
    gch_status st = GCH_OK;
    for (uint32_t i = 0; i < ix->heap_count && st == GCH_OK; i++) {
        heaps[i] = load_heap(ix, i, histogram_only, flags, err, &st);
        if (heaps[i])
            d->heap_count = i + 1;
    }
    if (st != GCH_OK) {
        gch_dump_free(d);
        return st;
    }
    *out = d;
    return GCH_OK;
}

gch_status gch_index_load(gch_index *ix, int histogram_only, unsigned flags,
                          void (*release)(void *ctx), void *release_ctx, gch_dump **out,
                          gch_error *err)
{
    gch_status st = load_dump(ix, histogram_only, flags, out, err);
    if (st != GCH_OK)
        return st;
    gcx_keep *k = gcx_keep_new(ix, *out, (flags & GCH_INDEX_LABELS) != 0, release, release_ctx);
    if (!k) {
        gch_dump_free(*out);
        *out = NULL;
        return gch_error_set(err, GCH_ENOMEM, "out of memory reading the index");
    }
    return GCH_OK;
}

gch_status gch_index_check(gch_index *ix, gch_error *err)
{
    gch_dump *d;
    gch_status st = load_dump(ix, 0, GCH_INDEX_LABELS, &d, err);
    if (st != GCH_OK)
        return st;
    for (size_t i = 0; i < d->heap_count && st == GCH_OK; i++)
        st = gcx_check_derived(ix, (uint32_t)i, d->heaps[i], err);
    gch_dump_free(d);
    /* Every chunk the table lists was read (none of an unknown kind). */
    for (size_t i = 0; st == GCH_OK && i < ix->chunk_count; i++)
        if (!(ix->checked[i] & GCX_SUMMED) && ix->toc[i].tag != GCX_DUMP)
            st = gch_error_at(err, ix->toc_offset + i * GCX_TOC_ENTRY_SIZE,
                              "index: chunk %zu is of no known kind", i);
    return st;
}
