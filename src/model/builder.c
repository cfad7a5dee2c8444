/* The heap builder every reader feeds: see include/gcheap/builder.h.
 *
 * While a heap is open, objects are appended to growing arrays and their
 * references are kept as raw 64-bit ids in one flat array (no per-object
 * allocation). end_heap hashes the object ids once, resolves the raw ids to
 * 32-bit indices in place (the u32 result never overtakes the u64 input), and
 * prefix-sums the per-object counts into the CSR start array.
 */
#include "gcheap/builder.h"
#include "gcheap/heap.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "search.h"
#include "builder_internal.h"
#include "hash.h"
#include "resolve.h"
#include "seen_ids.h"
#include "threading.h"
#include "invariant.h"

void gch_heap_free_internal(gch_heap *h);

/* Reserved indices: GCH_NONE and one below it (the dominator tree's virtual root). */
#define MAX_OBJECTS (UINT32_MAX - 2u)
#define MAX_REFS (UINT32_MAX - 1u)

#define TYPE_CACHE_SIZE 1024

struct gch_builder {
    const char *format;
    gch_hash_key key; /* for every table: see hash.h */
    gch_heap **heaps;
    size_t heap_count, heap_cap;

    gch_heap *cur;
    size_t meta_cap, strings_cap, type_cap, object_cap, root_cap;
    size_t big_size_cap;     /* of cur->big_size_object and big_size_value */

    /* Raw reference ids of the open heap; cur->out_start[i] is the index of
     * object i's first one (starts, so that no prefix pass is needed). */
    unsigned char *raw_refs; /* uint64_t ids, accessed with memcpy (resolved in place) */
    uint64_t raw_ref_count;
    size_t raw_ref_cap;      /* in uint64_t slots */
    uint32_t *raw_labels;    /* per raw ref, string offset; allocated on first label */
    size_t raw_label_cap;
    int object_open;
    /* gch_builder_adopt_indexed: the objects came whole, their references
     * as object indices (index_targets), to be resolved by nobody. */
    int indexed;
    uint32_t *index_targets;

    /* raw type id -> type index, open addressing, GCH_NONE = empty. */
    uint32_t *type_hash;
    size_t type_hash_cap;
    /* Direct-mapped cache in front of type_hash (types repeat a lot). */
    struct type_cache_entry {
        uint64_t raw;
        uint32_t index;
    } type_cache[TYPE_CACHE_SIZE];

    gch_parallel par;        /* threads end_heap may use (gch_builder_set_threads) */
#if GCH_ASSERTS_ON
    /* Objects reserved and not filled yet: 0 again before end_heap. Atomic:
     * two threads may fill at once. */
    atomic_uint_least64_t unfilled;
#endif
    int ids_unsorted;        /* set when an object id is not above the previous one */
    uint64_t last_id;        /* id of the last object added (reserved objects may be unfilled) */

    /* Histogram-only heaps (gch_builder_set_histogram_only): objects are
     * counted per type, their ids kept in seen, nothing stored per object;
     * dup_objects counts the repeats to take off type_objects at end_heap. */
    int hist_only;
    uint64_t hist_objects;   /* objects added, repeats included (the limit counts them) */
    seen_ids seen;
    uint32_t *dup_objects;
    size_t dup_cap;

    uint32_t *type_canon;    /* set by merge_types_by_name when names repeat */
    int size_overflow;       /* a per-type byte total passed 2^64 */

    /* interned strings: offsets into cur->strings, GCH_NONE = empty. */
    uint32_t *string_hash;
    size_t string_hash_cap, string_hash_len;
};

/* Grows *p (elements of elem bytes, capacity *cap) to hold at least need. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return gch_grow(p, cap, need, elem, 16);
}

static gch_status oom(gch_error *err)
{
    return gch_error_set(err, GCH_ENOMEM, "out of memory");
}

/* Whether objects may be added one by one: a heap is open and was not
 * handed over whole. */
static gch_status objects_may_come(const gch_builder *b, gch_error *err)
{
    if (!b->cur)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    if (b->indexed)
        return gch_error_set(err, GCH_EINVAL, "the heap's objects were handed over whole");
    return GCH_OK;
}

static gch_status too_many_objects(gch_error *err)
{
    return gch_error_set(err, GCH_ELIMIT, "more than %u objects in one heap", (unsigned)MAX_OBJECTS);
}

static int reserve_exact(void **p, size_t *cap, size_t want, size_t elem)
{
    if (want <= *cap)
        return 1;
    void *np = gch_reallocarray(*p, want, elem);
    if (!np)
        return 0;
    *p = np;
    *cap = want;
    return 1;
}

/* Room for need entries in each per-object column (ids, types, size slots,
 * out_start), made by grow (amortized) or reserve_exact; object_cap becomes
 * the smallest of their capacities. */
static int size_object_columns(gch_builder *b, size_t need,
                               int (*sizer)(void **p, size_t *cap, size_t need, size_t elem))
{
    gch_heap *h = b->cur;
    size_t c1 = h->object_id ? b->object_cap : 0, c2 = c1, c3 = c1, c4 = b->object_cap;
    if (!sizer((void **)&h->object_id, &c1, need, sizeof *h->object_id) ||
        !sizer((void **)&h->object_type, &c2, need, sizeof *h->object_type) ||
        !sizer((void **)&h->object_size32, &c3, need, sizeof *h->object_size32) ||
        !sizer((void **)&h->out_start, &c4, need, sizeof *h->out_start))
        return 0;
    b->object_cap = c1 < c4 ? c1 : c4;
    return 1;
}

/* The 32-bit slot of a size (heap.h: GCH_SIZE_BIG and up are kept whole in
 * the heap's big sizes). */
static uint32_t size_slot(uint64_t size)
{
    return size < GCH_SIZE_BIG ? (uint32_t)size : GCH_SIZE_BIG;
}

/* Keeps the whole size of object i (the next object index or after: the
 * table stays ascending) when its slot cannot hold it. 0 without memory. */
static int keep_big_size(gch_builder *b, uint32_t i, uint64_t size)
{
    gch_heap *h = b->cur;
    if (size < GCH_SIZE_BIG)
        return 1;
    size_t need = (size_t)h->big_size_count + 1, c1 = b->big_size_cap, c2 = c1;
    if (!grow((void **)&h->big_size_object, &c1, need, sizeof *h->big_size_object) ||
        !grow((void **)&h->big_size_value, &c2, need, sizeof *h->big_size_value))
        return 0;
    b->big_size_cap = c1 < c2 ? c1 : c2;
    h->big_size_object[h->big_size_count] = i;
    h->big_size_value[h->big_size_count++] = size;
    return 1;
}

gch_status gch_builder_new(gch_builder **out, const char *format, gch_error *err)
{
    *out = gch_calloc(1, sizeof **out);
    if (!*out)
        return oom(err);
    (*out)->format = format;
    (*out)->par = gch_parallel_for(0);
    (*out)->key = gch_hash_key_get();
    return GCH_OK;
}

void gch_builder_set_threads(gch_builder *b, unsigned threads)
{
    b->par = gch_parallel_for(threads);
}

/* Frees the references as added and their labels: none are kept. */
static void drop_raw_refs(gch_builder *b)
{
    gch_free(b->raw_refs);
    gch_free(b->raw_labels);
    b->raw_refs = NULL;
    b->raw_labels = NULL;
    b->raw_ref_count = 0;
    b->raw_ref_cap = b->raw_label_cap = 0;
}

static void reset_open_state(gch_builder *b)
{
    drop_raw_refs(b);
    gch_free(b->index_targets);
    b->index_targets = NULL;
    b->indexed = 0;
    gch_free(b->type_hash);
    gch_free(b->string_hash);
    gch_free(b->type_canon);
    b->type_canon = NULL;
    b->type_hash = NULL;
    b->string_hash = NULL;
    b->type_hash_cap = 0;
    b->string_hash_cap = b->string_hash_len = 0;
    b->meta_cap = b->strings_cap = b->type_cap = b->object_cap = b->root_cap = 0;
    b->big_size_cap = 0;
    b->object_open = 0;
    b->ids_unsorted = 0;
    b->hist_only = 0;
    b->hist_objects = 0;
    seen_ids_free(&b->seen);
    gch_free(b->dup_objects);
    b->dup_objects = NULL;
    b->dup_cap = 0;
    b->size_overflow = 0;
    for (size_t i = 0; i < TYPE_CACHE_SIZE; i++)
        b->type_cache[i].index = GCH_NONE;
}

void gch_builder_free(gch_builder *b)
{
    if (!b)
        return;
    gch_heap_free_internal(b->cur);
    reset_open_state(b);
    for (size_t i = 0; i < b->heap_count; i++)
        gch_heap_free_internal(b->heaps[i]);
    gch_free(b->heaps);
    gch_free(b);
}

int gch_builder_heap_open(const gch_builder *b) { return b->cur != NULL; }

const char *gch_builder_heap_name(const gch_builder *b) { return b->cur ? b->cur->name : NULL; }

gch_status gch_builder_begin_heap(gch_builder *b, const char *name, size_t name_len, gch_error *err)
{
    if (b->cur)
        return gch_error_set(err, GCH_EINVAL, "a heap is already open");
    gch_heap *h = gch_calloc(1, sizeof *h);
    if (!h)
        return oom(err);
    h->id_radix = 16;
    h->refs_loaded = 1;
    if (name && memchr(name, '\0', name_len))
        name_len = strlen(name);
    h->name = gch_strndup(name ? name : "", name ? name_len : 0);
    /* out_start holds each object's first raw reference until end_heap. */
    h->out_start = gch_malloc(16 * sizeof *h->out_start);
    if (!h->name || !h->out_start) {
        gch_heap_free_internal(h);
        return oom(err);
    }
    b->cur = h;
    reset_open_state(b);
    b->object_cap = 16;
    return GCH_OK;
}

gch_status gch_builder_add_meta(gch_builder *b, const char *key, const char *value, gch_error *err)
{
    gch_heap *h = b->cur;
    if (!h)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    if (!grow((void **)&h->meta, &b->meta_cap, h->meta_count + 1, sizeof *h->meta))
        return oom(err);
    gch_meta *m = &h->meta[h->meta_count];
    m->key = gch_strndup(key, strlen(key));
    m->value = gch_strndup(value, strlen(value));
    if (!m->key || !m->value) {
        gch_free(m->key);
        gch_free(m->value);
        return oom(err);
    }
    h->meta_count++;
    return GCH_OK;
}

gch_status gch_builder_add_metaf(gch_builder *b, gch_error *err, const char *key, const char *fmt, ...)
{
    char value[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    return gch_builder_add_meta(b, key, value, err);
}

void gch_builder_set_id_radix(gch_builder *b, int radix)
{
    if (b->cur)
        b->cur->id_radix = radix == 10 ? 10 : 16;
}

void gch_builder_set_sampled(gch_builder *b, int sampled)
{
    if (b->cur)
        b->cur->sampled = sampled;
}

/* ---- strings ---- */

static int string_hash_rehash(gch_builder *b, size_t ncap)
{
    uint32_t *nt = gch_reallocarray(NULL, ncap, sizeof *nt);
    if (!nt)
        return 0;
    memset(nt, 0xff, ncap * sizeof *nt);
    for (size_t i = 0; i < b->string_hash_cap; i++) {
        uint32_t off = b->string_hash[i];
        if (off == GCH_NONE)
            continue;
        const char *s = b->cur->strings + off;
        size_t j = gch_hash_bytes(s, strlen(s), &b->key) & (ncap - 1);
        while (nt[j] != GCH_NONE)
            j = (j + 1) & (ncap - 1);
        nt[j] = off;
    }
    gch_free(b->string_hash);
    b->string_hash = nt;
    b->string_hash_cap = ncap;
    return 1;
}

/* Appends s (len bytes, no NUL inside) and a NUL to the open heap's string
 * pool; *off_out receives its offset. */
static gch_status pool_append(gch_builder *b, const char *s, size_t len, uint32_t *off_out,
                              gch_error *err)
{
    gch_heap *h = b->cur;
    if (h->strings_size + len + 1 > UINT32_MAX - 1)
        return gch_error_set(err, GCH_ELIMIT, "names take more than 4 GiB");
    if (!grow((void **)&h->strings, &b->strings_cap, h->strings_size + len + 1, 1))
        return oom(err);
    uint32_t off = (uint32_t)h->strings_size;
    if (len)
        memcpy(h->strings + off, s, len);
    h->strings[off + len] = '\0';
    h->strings_size += len + 1;
    *off_out = off;
    return GCH_OK;
}

/* Returns the pool offset of s (len bytes, no NUL inside), adding it if new. */
static gch_status intern(gch_builder *b, const char *s, size_t len, uint32_t *off_out, gch_error *err)
{
    gch_heap *h = b->cur;
    const char *nul = memchr(s, '\0', len);
    if (nul)
        len = (size_t)(nul - s);
    if (gch_table_grows(b->string_hash_len, b->string_hash_cap)) {
        if (!string_hash_rehash(b, gch_table_next(b->string_hash_cap, 64)))
            return oom(err);
    }
    uint64_t hv = gch_hash_bytes(s, len, &b->key);
    size_t mask = b->string_hash_cap - 1;
    size_t j = hv & mask;
    while (b->string_hash[j] != GCH_NONE) {
        const char *t = h->strings + b->string_hash[j];
        if (strncmp(t, s, len) == 0 && t[len] == '\0') {
            *off_out = b->string_hash[j];
            return GCH_OK;
        }
        j = (j + 1) & mask;
    }
    uint32_t off = 0;
    gch_status st = pool_append(b, s, len, &off, err);
    if (st != GCH_OK)
        return st;
    b->string_hash[j] = off;
    b->string_hash_len++;
    *off_out = off;
    return GCH_OK;
}

/* ---- types ---- */

static uint64_t type_hash_of(const void *ctx, uint32_t t)
{
    const gch_builder *b = ctx;
    return gch_hash_u64(b->cur->type_raw_id[t], &b->key);
}

static uint32_t type_lookup(const gch_builder *b, uint64_t raw)
{
    if (!b->type_hash_cap)
        return GCH_NONE;
    size_t mask = b->type_hash_cap - 1;
    for (size_t j = gch_hash_u64(raw, &b->key) & mask; b->type_hash[j] != GCH_NONE; j = (j + 1) & mask)
        if (b->cur->type_raw_id[b->type_hash[j]] == raw)
            return b->type_hash[j];
    return GCH_NONE;
}

/* Finds or creates (undeclared) the type with raw id. */
static gch_status type_get(gch_builder *b, uint64_t raw, uint32_t *out, gch_error *err)
{
    struct type_cache_entry *slot = &b->type_cache[(raw ^ (raw >> 10)) & (TYPE_CACHE_SIZE - 1)];
    if (slot->index != GCH_NONE && slot->raw == raw) {
        *out = slot->index;
        return GCH_OK;
    }
    uint32_t t = type_lookup(b, raw);
    if (t == GCH_NONE) {
        gch_heap *h = b->cur;
        if (h->type_count >= MAX_OBJECTS)
            return gch_error_set(err, GCH_ELIMIT, "more than %u types", (unsigned)MAX_OBJECTS);
        if (gch_table_grows(h->type_count, b->type_hash_cap) &&
            !gch_table_grow(&b->type_hash, &b->type_hash_cap, 64, h->type_count, 0, type_hash_of, b))
            return oom(err);
        size_t need = (size_t)h->type_count + 1;
        size_t cap = b->type_cap;
        if (need > cap) {
            size_t c1 = cap, c2 = cap, c3 = cap, c4 = cap, c5 = cap, c6 = cap;
            if (!grow((void **)&h->type_name, &c1, need, sizeof *h->type_name) ||
                !grow((void **)&h->type_module, &c2, need, sizeof *h->type_module) ||
                !grow((void **)&h->type_raw_id, &c3, need, sizeof *h->type_raw_id) ||
                !grow((void **)&h->type_declared, &c4, need, sizeof *h->type_declared) ||
                !grow((void **)&h->type_objects, &c5, need, sizeof *h->type_objects) ||
                !grow((void **)&h->type_bytes, &c6, need, sizeof *h->type_bytes))
                return oom(err);
            b->type_cap = c1;
        }
        t = h->type_count++;
        h->type_name[t] = GCH_NONE;
        h->type_module[t] = GCH_NONE;
        h->type_raw_id[t] = raw;
        h->type_declared[t] = 0;
        h->type_objects[t] = 0;
        h->type_bytes[t] = 0;
        size_t mask = b->type_hash_cap - 1;
        size_t j = gch_hash_u64(raw, &b->key) & mask;
        while (b->type_hash[j] != GCH_NONE)
            j = (j + 1) & mask;
        b->type_hash[j] = t;
    }
    slot->raw = raw;
    slot->index = t;
    *out = t;
    return GCH_OK;
}

gch_status gch_builder_add_type(gch_builder *b, uint64_t raw_id, const char *name, size_t name_len,
                                uint32_t *out_index, gch_error *err)
{
    if (!b->cur)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    uint32_t t;
    gch_status st = type_get(b, raw_id, &t, err);
    if (st != GCH_OK)
        return st;
    if (out_index)
        *out_index = t;
    if (b->cur->type_declared[t]) {
        b->cur->anomalies.duplicate_types++;
        return GCH_OK;
    }
    uint32_t off;
    st = intern(b, name, name_len, &off, err);
    if (st != GCH_OK)
        return st;
    b->cur->type_name[t] = off;
    b->cur->type_declared[t] = 1;
    return GCH_OK;
}

gch_status gch_builder_set_type_module(gch_builder *b, uint32_t type_index, const char *module,
                                       size_t module_len, gch_error *err)
{
    if (!b->cur || type_index >= b->cur->type_count)
        return gch_error_set(err, GCH_EINVAL, "no such type");
    uint32_t off;
    gch_status st = intern(b, module, module_len, &off, err);
    if (st == GCH_OK)
        b->cur->type_module[type_index] = off;
    return st;
}

/* ---- objects ---- */

static gch_status hist_add(gch_builder *b, uint64_t id, uint32_t type, uint64_t size,
                           gch_error *err);

static void add_to_type(gch_builder *b, uint32_t type, uint32_t objects, uint64_t bytes,
                        int overflowed)
{
    gch_heap *h = b->cur;
    h->type_objects[type] += objects;
    if (overflowed || bytes > UINT64_MAX - h->type_bytes[type])
        b->size_overflow = 1;
    h->type_bytes[type] += bytes;
}

/* A histogram-only heap counts its objects itself (hist_add: the bytes of
 * the first of equal ids only, as a stored heap's recount does), so the
 * reader's sums are not needed. */
void gch_builder_count_type(gch_builder *b, uint32_t type, uint32_t objects, uint64_t bytes,
                            int overflowed)
{
    if (!b->hist_only)
        add_to_type(b, type, objects, bytes, overflowed);
}

gch_status gch_builder_object_begin(gch_builder *b, uint64_t id, uint64_t raw_type_id, uint64_t size,
                                    gch_error *err)
{
    gch_heap *h = b->cur;
    gch_status st = objects_may_come(b, err);
    if (st != GCH_OK)
        return st;
    if (h->object_count >= MAX_OBJECTS)
        return too_many_objects(err);
    uint32_t t;
    st = type_get(b, raw_type_id, &t, err);
    if (st != GCH_OK)
        return st;
    if (b->hist_only) {
        if (b->hist_objects >= MAX_OBJECTS)
            return too_many_objects(err);
        b->hist_objects++;
        b->object_open = 1;
        return hist_add(b, id, t, size, err);
    }
    size_t need = (size_t)h->object_count + 2; /* out_start needs one spare slot */
    if ((need > b->object_cap || !h->object_id) && !size_object_columns(b, need, grow))
        return oom(err);
    if (!keep_big_size(b, h->object_count, size))
        return oom(err);
    uint32_t i = h->object_count++;
    if (i > 0 && id <= b->last_id)
        b->ids_unsorted = 1;
    b->last_id = id;
    h->object_id[i] = id;
    h->object_type[i] = t;
    h->object_size32[i] = size_slot(size);
    h->out_start[i] = (uint32_t)b->raw_ref_count;
    gch_builder_count_type(b, t, 1, size, 0);
    b->object_open = 1;
    return GCH_OK;
}

/* Appends references; each one's label is interned from labels[k], or taken
 * as an interned offset from label_offsets[k], or none when both are NULL. */
static gch_status append_refs(gch_builder *b, const uint64_t *refs, const char *const *labels,
                              const uint32_t *label_offsets, size_t nrefs, gch_error *err)
{
    if (!b->object_open)
        return gch_error_set(err, GCH_EINVAL, "no object is open");
    for (size_t k = 0; k < nrefs; k++) {
        if (refs[k] == 0)
            continue; /* null reference */
        if (b->raw_ref_count >= MAX_REFS)
            return gch_error_set(err, GCH_ELIMIT, "more than %u references in one heap",
                                 (unsigned)MAX_REFS);
        if (b->raw_ref_count >= b->raw_ref_cap &&
            !grow((void **)&b->raw_refs, &b->raw_ref_cap, b->raw_ref_count + 1, sizeof(uint64_t)))
            return oom(err);
        uint32_t label = label_offsets ? label_offsets[k] : GCH_NONE;
        if (labels && labels[k]) {
            gch_status st = intern(b, labels[k], strlen(labels[k]), &label, err);
            if (st != GCH_OK)
                return st;
        }
        if (label != GCH_NONE || b->raw_labels) {
            if (b->raw_label_cap < b->raw_ref_cap) {
                size_t old = b->raw_labels ? b->raw_label_cap : 0;
                uint32_t *nl = gch_reallocarray(b->raw_labels, b->raw_ref_cap, sizeof *nl);
                if (!nl)
                    return oom(err);
                /* Refs added before the first label have none. */
                size_t fill_from = b->raw_labels ? old : 0;
                for (size_t j = fill_from; j < b->raw_ref_cap; j++)
                    nl[j] = GCH_NONE;
                b->raw_labels = nl;
                b->raw_label_cap = b->raw_ref_cap;
            }
            b->raw_labels[b->raw_ref_count] = label;
        }
        memcpy(b->raw_refs + b->raw_ref_count * sizeof(uint64_t), &refs[k], sizeof(uint64_t));
        b->raw_ref_count++;
    }
    return GCH_OK;
}

gch_status gch_builder_object_refs(gch_builder *b, const uint64_t *refs, size_t nrefs, gch_error *err)
{
    return append_refs(b, refs, NULL, NULL, nrefs, err);
}

void gch_builder_set_refs_skipped(gch_builder *b)
{
    if (b->cur)
        b->cur->refs_loaded = 0;
}

void gch_builder_set_histogram_only(gch_builder *b)
{
    if (b->cur && !b->cur->refs_loaded && b->cur->object_count == 0) {
        b->hist_only = 1;
        b->cur->histogram_only = 1;
    }
}

/* A histogram-only object: counted in its type's objects, and its id
 * remembered. The first of equal ids adds its size to the type's bytes; a
 * repeat is counted as the duplicate end_heap would drop, and taken off the
 * type's objects there (after undeclared types' objects are counted with
 * the repeats, as for a stored heap). */
static gch_status hist_add(gch_builder *b, uint64_t id, uint32_t type, uint64_t size,
                           gch_error *err)
{
    gch_heap *h = b->cur;
    int fresh = seen_ids_add(&b->seen, id);
    if (fresh < 0)
        return oom(err);
    h->type_objects[type]++;
    if (fresh) {
        add_to_type(b, type, 0, size, 0);
        return GCH_OK;
    }
    if (h->anomalies.duplicate_objects++ == 0)
        h->anomalies.first_duplicate_object = id;
    if (type >= b->dup_cap) {
        size_t c1 = b->dup_cap;
        if (!grow((void **)&b->dup_objects, &c1, (size_t)h->type_count, sizeof *b->dup_objects))
            return oom(err);
        memset(b->dup_objects + b->dup_cap, 0, (c1 - b->dup_cap) * sizeof *b->dup_objects);
        b->dup_cap = c1;
    }
    b->dup_objects[type]++;
    return GCH_OK;
}

int gch_builder_hist_can_append(const gch_builder *b, uint64_t first_id)
{
    return b->cur && b->hist_only && seen_ids_can_append(&b->seen, first_id);
}

gch_status gch_builder_hist_append(gch_builder *b, uint32_t n, uint64_t first_id, uint64_t last_id,
                                   const unsigned char *rest, size_t rest_len, gch_error *err)
{
    GCH_ASSERT(gch_builder_hist_can_append(b, first_id) && n > 0 && last_id >= first_id);
    if (n > MAX_OBJECTS - b->hist_objects)
        return too_many_objects(err);
    if (seen_ids_append(&b->seen, n, first_id, last_id, rest, rest_len) != 0)
        return oom(err);
    b->hist_objects += n;
    b->object_open = 1;
    return GCH_OK;
}

void gch_builder_hist_count_type(gch_builder *b, uint32_t type, uint32_t objects, uint64_t bytes,
                                 int overflowed)
{
    add_to_type(b, type, objects, bytes, overflowed);
}

gch_status gch_builder_add_object_labeled(gch_builder *b, uint64_t id, uint64_t raw_type_id,
                                          uint64_t size, const uint64_t *refs,
                                          const char *const *labels, size_t nrefs, gch_error *err)
{
    gch_status st = gch_builder_object_begin(b, id, raw_type_id, size, err);
    if (st == GCH_OK && nrefs)
        st = append_refs(b, refs, labels, NULL, nrefs, err);
    return st;
}

gch_status gch_builder_intern_label(gch_builder *b, const char *s, size_t len, uint32_t *out,
                                    gch_error *err)
{
    if (!b->cur)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    return intern(b, s, len, out, err);
}

gch_status gch_builder_append_label(gch_builder *b, const char *s, size_t len, uint32_t *out,
                                    gch_error *err)
{
    if (!b->cur)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    const char *nul = memchr(s, '\0', len);
    if (nul)
        len = (size_t)(nul - s);
    return pool_append(b, s, len, out, err);
}

gch_status gch_builder_add_object_label_offsets(gch_builder *b, uint64_t id, uint64_t raw_type_id,
                                                uint64_t size, const uint64_t *refs,
                                                const uint32_t *label_offsets, size_t nrefs,
                                                gch_error *err)
{
    gch_status st = gch_builder_object_begin(b, id, raw_type_id, size, err);
    if (st == GCH_OK && nrefs)
        st = append_refs(b, refs, NULL, label_offsets, nrefs, err);
    return st;
}

gch_status gch_builder_map_labels(gch_builder *b, const uint32_t *map, size_t n, gch_error *err)
{
    if (!b->cur)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    if (!b->raw_labels)
        return GCH_OK;
    for (uint64_t i = 0; i < b->raw_ref_count; i++) {
        uint32_t key = b->raw_labels[i];
        if (key == GCH_NONE)
            continue;
        if (key >= n)
            return gch_error_set(err, GCH_EINVAL, "label key %u has no mapping", (unsigned)key);
        b->raw_labels[i] = map[key];
    }
    return GCH_OK;
}

gch_status gch_builder_object_refs_label_offsets(gch_builder *b, const uint64_t *refs,
                                                 const uint32_t *label_offsets, size_t nrefs,
                                                 gch_error *err)
{
    return append_refs(b, refs, NULL, label_offsets, nrefs, err);
}

/* Resizes *p to exactly cap elements of elem bytes, if that is larger. */
gch_status gch_builder_reserve(gch_builder *b, size_t objects, uint64_t refs, int labeled,
                               gch_error *err)
{
    gch_heap *h = b->cur;
    if (!h)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    if (b->indexed || objects > MAX_OBJECTS || refs > MAX_REFS)
        return GCH_OK; /* nothing more comes / the adds will report the limit */
    size_t need = (size_t)h->object_count + objects + 2;
    if (!size_object_columns(b, need, reserve_exact))
        return oom(err);
    size_t ref_need = (size_t)(b->raw_ref_count + refs);
    if (!reserve_exact((void **)&b->raw_refs, &b->raw_ref_cap, ref_need, sizeof(uint64_t)))
        return oom(err);
    if (labeled && b->raw_label_cap < b->raw_ref_cap) {
        size_t old = b->raw_labels ? b->raw_label_cap : 0;
        uint32_t *nl = gch_reallocarray(b->raw_labels, b->raw_ref_cap, sizeof *nl);
        if (!nl)
            return oom(err);
        for (size_t j = old; j < b->raw_ref_cap; j++)
            nl[j] = GCH_NONE;
        b->raw_labels = nl;
        b->raw_label_cap = b->raw_ref_cap;
    }
    return GCH_OK;
}

gch_status gch_builder_add_object(gch_builder *b, uint64_t id, uint64_t raw_type_id, uint64_t size,
                                  const uint64_t *refs, size_t nrefs, gch_error *err)
{
    return gch_builder_add_object_labeled(b, id, raw_type_id, size, refs, NULL, nrefs, err);
}

gch_status gch_builder_type_index(gch_builder *b, uint64_t raw, uint32_t *out, gch_error *err)
{
    if (!b->cur)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    return type_get(b, raw, out, err);
}

gch_status gch_builder_reserve_objects(gch_builder *b, uint32_t n, const uint64_t *ids,
                                       const uint32_t *types, const uint64_t *sizes,
                                       uint64_t nrefs, int ids_increasing, gch_object_slots *out,
                                       gch_error *err)
{
    gch_heap *h = b->cur;
    gch_status st = objects_may_come(b, err);
    if (st != GCH_OK)
        return st;
    out->object_at = h->object_count;
    out->ref_at = b->raw_ref_count;
    if (n == 0)
        return GCH_OK;
    if (b->hist_only) {
        if (n > MAX_OBJECTS - b->hist_objects)
            return too_many_objects(err);
        b->hist_objects += n;
        b->object_open = 1;
        for (uint32_t k = 0; k < n; k++) {
            st = hist_add(b, ids[k], types[k], sizes[k], err);
            if (st != GCH_OK)
                return st;
        }
        return GCH_OK;
    }
    if (n > MAX_OBJECTS - h->object_count)
        return too_many_objects(err);
    if (nrefs > MAX_REFS - b->raw_ref_count)
        return gch_error_set(err, GCH_ELIMIT, "more than %u references in one heap",
                             (unsigned)MAX_REFS);
    size_t need = (size_t)h->object_count + n + 1; /* out_start needs one spare slot */
    if ((need > b->object_cap || !h->object_id) && !size_object_columns(b, need, grow))
        return oom(err);
    /* The whole sizes that do not fit a slot are kept now, in order (the
     * fills may run on two threads at once). */
    uint32_t big_before = h->big_size_count;
    for (uint32_t k = 0; k < n; k++) {
        if (!keep_big_size(b, h->object_count + k, sizes[k])) {
            h->big_size_count = big_before;
            return oom(err);
        }
    }
    if (nrefs) {
        if (!grow((void **)&b->raw_refs, &b->raw_ref_cap, b->raw_ref_count + nrefs, sizeof(uint64_t)))
            return oom(err);
        if (b->raw_labels) {
            /* Only labeled readers create labels; keep the arrays parallel anyway. */
            if (b->raw_label_cap < b->raw_ref_cap) {
                uint32_t *nl = gch_reallocarray(b->raw_labels, b->raw_ref_cap, sizeof *nl);
                if (!nl)
                    return oom(err);
                b->raw_labels = nl;
                b->raw_label_cap = b->raw_ref_cap;
            }
            for (uint64_t k = 0; k < nrefs; k++)
                b->raw_labels[b->raw_ref_count + k] = GCH_NONE;
        }
        b->raw_ref_count += nrefs;
    }
#if GCH_ASSERTS_ON
    atomic_fetch_add(&b->unfilled, n);
#endif
    if (!ids_increasing || (h->object_count > 0 && ids[0] <= b->last_id))
        b->ids_unsorted = 1;
    b->last_id = ids[n - 1];
    h->object_count += n;
    b->object_open = 1;
    return GCH_OK;
}

void gch_builder_fill_objects(gch_builder *b, const gch_object_slots *at, uint32_t n,
                              const uint64_t *ids, const uint32_t *types, const uint64_t *sizes,
                              const uint32_t *counts, const uint64_t *refs, uint64_t nrefs)
{
    gch_heap *h = b->cur;
    if (n == 0 || b->hist_only)
        return;
    uint32_t i = at->object_at;
    GCH_ASSERT(h && (uint64_t)i + n <= h->object_count && at->ref_at + nrefs <= b->raw_ref_count);
#if GCH_ASSERTS_ON
    GCH_ASSERT(atomic_fetch_sub(&b->unfilled, n) >= n);
#endif
    if (nrefs)
        memcpy(b->raw_refs + at->ref_at * sizeof(uint64_t), refs, (size_t)nrefs * sizeof(uint64_t));
    memcpy(h->object_id + i, ids, (size_t)n * sizeof *ids);
    memcpy(h->object_type + i, types, (size_t)n * sizeof *types);
    uint32_t *slot = h->object_size32 + i;
    for (uint32_t k = 0; k < n; k++)
        slot[k] = size_slot(sizes[k]);
    if (h->refs_loaded) { /* else end_heap makes them all zero */
        uint32_t *start = h->out_start + i, next = (uint32_t)at->ref_at;
        for (uint32_t k = 0; k < n; k++) {
            start[k] = next;
            next += counts[k];
        }
    }
}

/* ---- the index path ---- */

/* Whether arrays handed to gch_builder_adopt_indexed keep its rules. */
static int adopted_arrays_valid(const gch_heap *h, uint32_t n, const uint64_t *ids,
                                const uint32_t *types, const uint32_t *starts,
                                const uint32_t *targets, const uint32_t *labels)
{
    if (!ids || !types || (h->refs_loaded ? !starts : (starts || targets || labels)))
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] == 0 || types[i] >= h->type_count) /* id 0 is the null reference */
            return 0;
    if (!starts)
        return 1;
    if (starts[0] != 0)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (starts[i + 1] < starts[i])
            return 0;
    if (starts[n] > MAX_REFS || (starts[n] && !targets))
        return 0;
    for (uint32_t k = 0; k < starts[n]; k++)
        if (targets[k] >= n)
            return 0;
    return 1;
}

/* Turns the adopted 64-bit sizes into the heap's 32-bit slots in their own
 * memory (slot k overwrites bytes of a size read already: the one of k / 2),
 * keeping the big ones whole, and gives back the upper half. Returns NULL
 * without memory (sizes, partly overwritten, is still the caller's). */
static uint32_t *sizes_to_slots(gch_builder *b, uint32_t n, uint64_t *sizes)
{
    unsigned char *mem = (unsigned char *)sizes;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t size;
        memcpy(&size, mem + (size_t)k * sizeof size, sizeof size);
        if (!keep_big_size(b, k, size))
            return NULL;
        uint32_t slot = size_slot(size);
        memcpy(mem + (size_t)k * sizeof slot, &slot, sizeof slot);
    }
    uint32_t *slots = gch_reallocarray(mem, (size_t)n + 1, sizeof *slots);
    return slots ? slots : (uint32_t *)mem;
}

gch_status gch_builder_adopt_indexed(gch_builder *b, uint32_t n, uint64_t *ids, uint32_t *types,
                                     uint64_t *sizes, uint32_t *starts, uint32_t *targets,
                                     uint32_t *labels, gch_error *err)
{
    gch_heap *h = b->cur;
    gch_status st = GCH_OK;
    if (!h || b->hist_only || b->indexed || h->object_count || b->raw_ref_count || !sizes)
        st = gch_error_set(err, GCH_EINVAL, "objects are handed over whole only to an empty open heap");
    else if (n > MAX_OBJECTS)
        st = too_many_objects(err);
    else if (!adopted_arrays_valid(h, n, ids, types, starts, targets, labels))
        st = gch_error_set(err, GCH_EINVAL, "objects handed over whole: inconsistent arrays");
    else if (!starts && !(starts = gch_calloc((size_t)n + 1, sizeof *starts)))
        st = oom(err);
    uint32_t *slots = st == GCH_OK ? sizes_to_slots(b, n, sizes) : NULL;
    if (!slots) {
        gch_free(ids);
        gch_free(types);
        gch_free(sizes);
        gch_free(starts);
        gch_free(targets);
        gch_free(labels);
        return st == GCH_OK ? oom(err) : st;
    }
    gch_free(h->object_id);
    gch_free(h->object_type);
    gch_free(h->object_size32);
    gch_free(h->out_start);
    drop_raw_refs(b);
    h->object_id = ids;
    h->object_type = types;
    h->object_size32 = slots;
    h->out_start = starts;
    h->object_count = n;
    b->object_cap = (size_t)n + 1;
    for (uint32_t i = 0; i < n; i++) {
        add_to_type(b, types[i], 1, gch_object_size(h, i), 0);
        if (i > 0 && ids[i] <= ids[i - 1])
            b->ids_unsorted = 1;
    }
    b->last_id = n ? ids[n - 1] : 0;
    b->raw_ref_count = starts[n];
    b->index_targets = targets;
    b->raw_labels = labels;
    b->raw_label_cap = labels ? starts[n] : 0;
    b->object_open = 0;
    b->indexed = 1;
    return GCH_OK;
}

gch_status gch_builder_add_root_at(gch_builder *b, uint32_t index, unsigned kind, unsigned flags,
                                   const char *label, gch_error *err)
{
    gch_heap *h = b->cur;
    if (!h || !b->indexed || index >= h->object_count)
        return gch_error_set(err, GCH_EINVAL, "a root by index needs an object handed over whole");
    gch_status st = gch_builder_add_root(b, h->object_id[index], kind, flags, 0, 0, label, err);
    if (st == GCH_OK)
        h->root_object[h->root_count - 1] = index;
    return st;
}

/* ---- roots ---- */

gch_status gch_builder_add_root(gch_builder *b, uint64_t id, unsigned kind, unsigned flags,
                                int has_container, uint64_t container_raw, const char *label,
                                gch_error *err)
{
    gch_heap *h = b->cur;
    if (!h)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
    if (h->root_count >= MAX_OBJECTS)
        return gch_error_set(err, GCH_ELIMIT, "more than %u roots", (unsigned)MAX_OBJECTS);
    size_t need = (size_t)h->root_count + 1;
    if (need > b->root_cap) {
        size_t c[8];
        for (int i = 0; i < 8; i++)
            c[i] = b->root_cap;
        if (!grow((void **)&h->root_raw_id, &c[0], need, sizeof *h->root_raw_id) ||
            !grow((void **)&h->root_object, &c[1], need, sizeof *h->root_object) ||
            !grow((void **)&h->root_kind, &c[2], need, sizeof *h->root_kind) ||
            !grow((void **)&h->root_flags, &c[3], need, sizeof *h->root_flags) ||
            !grow((void **)&h->root_container, &c[4], need, sizeof *h->root_container) ||
            !grow((void **)&h->root_container_raw, &c[5], need, sizeof *h->root_container_raw) ||
            !grow((void **)&h->root_has_container, &c[6], need, sizeof *h->root_has_container) ||
            !grow((void **)&h->root_label, &c[7], need, sizeof *h->root_label))
            return oom(err);
        b->root_cap = c[0];
    }
    uint32_t label_off = GCH_NONE;
    if (label) {
        gch_status st = intern(b, label, strlen(label), &label_off, err);
        if (st != GCH_OK)
            return st;
    }
    uint32_t r = h->root_count++;
    h->root_raw_id[r] = id;
    h->root_object[r] = GCH_NONE;
    h->root_kind[r] = (uint8_t)kind;
    h->root_flags[r] = (uint8_t)flags;
    h->root_container[r] = GCH_NONE;
    h->root_container_raw[r] = has_container ? container_raw : 0;
    h->root_has_container[r] = has_container ? 1 : 0;
    h->root_label[r] = label_off;
    return GCH_OK;
}

void gch_builder_note_missing_end(gch_builder *b)
{
    if (b->cur)
        b->cur->anomalies.missing_end = 1;
}

void gch_builder_note_end_mismatch(gch_builder *b)
{
    if (b->cur)
        b->cur->anomalies.end_name_mismatch = 1;
}

/* ---- end of heap: resolution ---- */

static void id_lookup_free(id_lookup *l)
{
    if (l->sorted)
        id_index_free(&l->index);
    gch_free(l->table);
    l->table = NULL;
}

/* Builds the id table; objects whose id is already present get keep[i] = 0
 * (allocated only when a duplicate exists). */
static gch_status build_id_table(gch_heap *h, const gch_hash_key *key, uint32_t **table_out,
                                 size_t *mask_out, uint8_t **keep_out, gch_error *err)
{
    size_t cap = 16;
    while (cap < (size_t)h->object_count * 2)
        cap *= 2;
    uint32_t *table = gch_reallocarray(NULL, cap, sizeof *table);
    if (!table)
        return oom(err);
    memset(table, 0xff, cap * sizeof *table);
    size_t mask = cap - 1;
    uint8_t *keep = NULL;
    for (uint32_t i = 0; i < h->object_count; i++) {
        uint64_t id = h->object_id[i];
        size_t j = gch_hash_u64(id, key) & mask;
        int dup = 0;
        while (table[j] != GCH_NONE) {
            if (h->object_id[table[j]] == id) {
                dup = 1;
                break;
            }
            j = (j + 1) & mask;
        }
        if (!dup) {
            table[j] = i;
            continue;
        }
        if (!keep) {
            keep = gch_malloc(h->object_count);
            if (!keep) {
                gch_free(table);
                return oom(err);
            }
            memset(keep, 1, h->object_count);
        }
        keep[i] = 0;
        if (h->anomalies.duplicate_objects++ == 0)
            h->anomalies.first_duplicate_object = id;
    }
    *table_out = table;
    *mask_out = mask;
    *keep_out = keep;
    return GCH_OK;
}

/* Removes objects with keep[i] == 0 together with their raw references. */
static void drop_duplicates(gch_builder *b, const uint8_t *keep)
{
    gch_heap *h = b->cur;
    uint32_t w = 0, big_read = 0, big_write = 0;
    uint64_t rr = 0, rw = 0;
    /* The per-type totals are counted again over the objects kept (an
     * overflow may have come from a dropped one). */
    memset(h->type_objects, 0, (size_t)h->type_count * sizeof *h->type_objects);
    memset(h->type_bytes, 0, (size_t)h->type_count * sizeof *h->type_bytes);
    b->size_overflow = 0;
    for (uint32_t i = 0; i < h->object_count; i++) {
        /* starts are unset without refs */
        uint32_t nrefs = h->refs_loaded ? h->out_start[i + 1] - h->out_start[i] : 0;
        if (keep[i]) {
            if (rw != rr) {
                memmove(b->raw_refs + rw * 8, b->raw_refs + rr * 8, (size_t)nrefs * 8);
                if (b->raw_labels)
                    memmove(b->raw_labels + rw, b->raw_labels + rr, (size_t)nrefs * sizeof(uint32_t));
            }
            h->object_id[w] = h->object_id[i];
            h->object_type[w] = h->object_type[i];
            h->object_size32[w] = h->object_size32[i];
            uint64_t size = h->object_size32[w];
            if (big_read < h->big_size_count && h->big_size_object[big_read] == i) {
                size = h->big_size_value[big_read++];
                h->big_size_object[big_write] = w;
                h->big_size_value[big_write++] = size;
            }
            h->out_start[w] = (uint32_t)rw; /* i >= w: nothing unread is overwritten */
            add_to_type(b, h->object_type[w], 1, size, 0);
            w++;
            rw += nrefs;
        } else if (big_read < h->big_size_count && h->big_size_object[big_read] == i) {
            big_read++;
        }
        rr += nrefs;
    }
    h->object_count = w;
    h->big_size_count = big_write;
    h->out_start[w] = (uint32_t)rw;
    b->raw_ref_count = rw;
}

static gch_status name_unknown_types(gch_builder *b, gch_error *err)
{
    gch_heap *h = b->cur;
    for (uint32_t t = 0; t < h->type_count; t++) {
        if (h->type_declared[t])
            continue;
        char buf[64];
        int n = h->id_radix == 10
                    ? snprintf(buf, sizeof buf, "<unknown type %llu>", (unsigned long long)h->type_raw_id[t])
                    : snprintf(buf, sizeof buf, "<unknown type %llx>", (unsigned long long)h->type_raw_id[t]);
        gch_status st = intern(b, buf, (size_t)n, &h->type_name[t], err);
        if (st != GCH_OK)
            return st;
    }
    return GCH_OK;
}

/* Types that share a name (and module) are one type for every report: objects and static
 * containers of a later type move to the first type with that name. Names are
 * interned, so equal names have equal offsets. */
static gch_status merge_types_by_name(gch_builder *b, gch_error *err)
{
    gch_heap *h = b->cur;
    if (h->type_count < 2)
        return GCH_OK;
    size_t cap = 16;
    while (cap < (size_t)h->type_count * 2)
        cap *= 2;
    uint32_t *table = gch_reallocarray(NULL, cap, sizeof *table);
    uint32_t *canon = gch_reallocarray(NULL, h->type_count, sizeof *canon);
    if (!table || !canon) {
        gch_free(table);
        gch_free(canon);
        return oom(err);
    }
    memset(table, 0xff, cap * sizeof *table);
    int merged = 0;
    /* The key is (name, module): with modules recorded, Ns.T from A.dll and
     * Ns.T from B.dll stay apart. */
    for (uint32_t t = 0; t < h->type_count; t++) {
        uint64_t key = (uint64_t)h->type_name[t] << 32 | h->type_module[t];
        size_t j = gch_hash_u64(key, &b->key) & (cap - 1);
        while (table[j] != GCH_NONE && (h->type_name[table[j]] != h->type_name[t] ||
                                        h->type_module[table[j]] != h->type_module[t]))
            j = (j + 1) & (cap - 1);
        if (table[j] == GCH_NONE)
            table[j] = t;
        canon[t] = table[j];
        merged |= canon[t] != t;
    }
    if (merged) {
        for (uint32_t i = 0; i < h->object_count; i++)
            h->object_type[i] = canon[h->object_type[i]];
        for (uint32_t t = 0; t < h->type_count; t++) {
            if (canon[t] == t)
                continue;
            add_to_type(b, canon[t], h->type_objects[t], h->type_bytes[t], 0);
            h->type_objects[t] = 0;
            h->type_bytes[t] = 0;
        }
        /* A declared duplicate makes the merged type declared. */
        for (uint32_t t = 0; t < h->type_count; t++)
            if (h->type_declared[t])
                h->type_declared[canon[t]] = 1;
        b->type_canon = canon;
        canon = NULL;
    }
    gch_free(table);
    gch_free(canon);
    return GCH_OK;
}

/* The id lookup of the open heap; duplicate object records (only possible
 * when ids are not increasing) are dropped on the way. */
static gch_status build_lookup(gch_builder *b, id_lookup *lookup, gch_error *err)
{
    gch_heap *h = b->cur;
    /* Strictly increasing ids cannot repeat: no hash table, no duplicates. */
    lookup->ids = h->object_id;
    if (!b->ids_unsorted) {
        lookup->sorted = 1;
        return id_index_build(&lookup->index, h->object_id, h->object_count,
                              b->raw_ref_count + h->root_count, &b->par, err);
    }
    uint8_t *keep = NULL;
    lookup->key = b->key;
    gch_status st = build_id_table(h, &b->key, &lookup->table, &lookup->mask, &keep, err);
    if (st != GCH_OK || !keep)
        return st;
    drop_duplicates(b, keep);
    gch_free(keep);
    gch_free(lookup->table);
    lookup->table = NULL;
    return build_id_table(h, &b->key, &lookup->table, &lookup->mask, &keep, err);
}

/* Anomalies of types, names of undeclared types, merging by name, and the
 * counts of types as reports see them. Runs after duplicates are dropped. */
static gch_status count_types(gch_builder *b, gch_error *err)
{
    gch_heap *h = b->cur;
    /* An undeclared type with no object was made by a dropped duplicate
     * (placeholder types for containers of static roots are looked up, not
     * created): it is not counted. Objects of undeclared types are counted
     * before merging by name can hide them. */
    for (uint32_t t = 0; t < h->type_count; t++) {
        if (!h->type_declared[t] && h->type_objects[t]) {
            h->anomalies.unknown_types++;
            h->anomalies.unknown_type_objects += h->type_objects[t];
        }
    }
    gch_status st = name_unknown_types(b, err);
    if (st == GCH_OK)
        st = merge_types_by_name(b, err);
    if (st != GCH_OK)
        return st;
    for (uint32_t t = 0; t < h->type_count; t++) {
        if (b->type_canon && b->type_canon[t] != t)
            continue;
        if (h->type_declared[t] || h->type_objects[t]) {
            h->reported_types++;
            h->reported_declared_types += h->type_declared[t] ? 1 : 0;
        }
    }
    return GCH_OK;
}

/* The containers of static roots: types, looked up (never created). */
static void resolve_containers(gch_builder *b)
{
    gch_heap *h = b->cur;
    for (uint32_t k = 0; k < h->root_count; k++) {
        if (h->root_has_container[k]) {
            uint32_t t = type_lookup(b, h->root_container_raw[k]);
            if (t == GCH_NONE || !h->type_declared[t])
                h->anomalies.absent_containers++;
            h->root_container[k] = (t != GCH_NONE && b->type_canon) ? b->type_canon[t] : t;
        }
    }
}

/* Checks the total size and moves the open heap into the dump. */
static gch_status close_heap(gch_builder *b, gch_error *err)
{
    gch_heap *h = b->cur;
    /* Exact total; a sum beyond 2^64 is refused rather than wrapped. */
    uint64_t total = 0;
    int overflow = b->size_overflow;
    for (uint32_t t = 0; t < h->type_count && !overflow; t++) {
        overflow = h->type_bytes[t] > UINT64_MAX - total;
        total += h->type_bytes[t];
    }
    if (overflow)
        return gch_error_set(err, GCH_ELIMIT,
                             "the sizes of the objects in '%s' add up to more than 2^64 bytes",
                             h->name);
    h->total_size = total;

    /* Empty heaps still get valid (one-element) arrays. */
    if (!h->object_id) {
        h->object_id = gch_calloc(1, sizeof *h->object_id);
        h->object_type = gch_calloc(1, sizeof *h->object_type);
        h->object_size32 = gch_calloc(1, sizeof *h->object_size32);
        if (!h->object_id || !h->object_type || !h->object_size32)
            return oom(err);
    }

    if (b->heap_count == b->heap_cap &&
        !grow((void **)&b->heaps, &b->heap_cap, b->heap_count + 1, sizeof *b->heaps))
        return oom(err);
    b->heaps[b->heap_count++] = h;
    b->cur = NULL;
    reset_open_state(b);
    return GCH_OK;
}

/* end_heap of a histogram-only heap: no object is stored, so nothing is
 * resolved; roots are only checked against the ids seen. */
static gch_status end_histogram_heap(gch_builder *b, gch_error *err)
{
    gch_heap *h = b->cur;
    int64_t absent = seen_ids_count_absent_par(&b->seen, h->root_raw_id, h->root_count, &b->par);
    if (absent < 0)
        return oom(err);
    h->anomalies.dangling_roots += (uint64_t)absent;
    resolve_containers(b);
    gch_free(h->out_start);
    h->out_start = gch_calloc(1, sizeof *h->out_start);
    h->out_target = gch_calloc(1, sizeof *h->out_target);
    if (!h->out_start || !h->out_target)
        return oom(err);
    return close_heap(b, err);
}

/* Whether two strictly increasing id arrays share no id: a merge walk, or
 * binary searches of the shorter in the longer when it is much shorter. */
static int runs_disjoint(const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    if (na > nb) {
        const uint64_t *t = a;
        size_t tn = na;
        a = b, na = nb, b = t, nb = tn;
    }
    if (na * 32 < nb) {
        for (size_t i = 0; i < na; i++) {
            size_t lo = GCH_LOWER_BOUND(b, 0, nb, a[i]);
            if (lo < nb && b[lo] == a[i])
                return 0;
        }
        return 1;
    }
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        if (a[i] == b[j])
            return 0;
        if (a[i] < b[j])
            i++;
        else
            j++;
    }
    return 1;
}

#define MAX_ID_RUNS 64

/* Whether the adopted heap's ids are all distinct: 1, 0, or -1 when out of
 * memory. Increasing ids are. Otherwise, a bitmap over their range answers
 * when the range is at most 64 ids an object; a few increasing runs (V8
 * lists its nodes nearly in id order) are checked pairwise; else a hash set. */
int gch_ids_unique(const uint64_t *ids, uint32_t n)
{
    uint32_t k = 1;
    while (k < n && ids[k] > ids[k - 1])
        k++;
    if (k >= n)
        return 1;
    uint64_t lo = UINT64_MAX, hi = 0;
    uint32_t run_at[MAX_ID_RUNS + 1], runs = 1;
    run_at[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        lo = ids[i] < lo ? ids[i] : lo;
        hi = ids[i] > hi ? ids[i] : hi;
        if (i > 0 && ids[i] <= ids[i - 1] && runs <= MAX_ID_RUNS)
            run_at[runs++] = i;
    }
    if ((hi - lo) / 64 <= n) {
        uint64_t *bits = gch_calloc((size_t)((hi - lo) / 64 + 1), sizeof *bits);
        if (!bits)
            return -1;
        int unique = 1;
        for (uint32_t i = 0; i < n && unique; i++) {
            uint64_t d = ids[i] - lo, bit = 1ull << (d % 64);
            unique = !(bits[d / 64] & bit);
            bits[d / 64] |= bit;
        }
        gch_free(bits);
        return unique;
    }
    if (runs <= MAX_ID_RUNS) {
        run_at[runs] = n;
        for (uint32_t x = 0; x < runs; x++)
            for (uint32_t y = x + 1; y < runs; y++)
                if (!runs_disjoint(ids + run_at[x], run_at[x + 1] - run_at[x], ids + run_at[y],
                                   run_at[y + 1] - run_at[y]))
                    return 0;
        return 1;
    }
    seen_ids seen = { 0 };
    int unique = 1;
    for (uint32_t i = 0; i < n && unique == 1; i++)
        unique = seen_ids_add(&seen, ids[i]); /* 1 new, 0 seen, -1 no memory */
    seen_ids_free(&seen);
    return unique;
}

/* An adopted heap whose ids repeat takes the id path: its references become
 * the ids of their targets, as if each object had been added with them. */
static gch_status adopted_to_ids(gch_builder *b, gch_error *err)
{
    gch_heap *h = b->cur;
    uint64_t n = b->raw_ref_count;
    unsigned char *raw = gch_reallocarray(NULL, n ? n : 1, sizeof(uint64_t));
    if (!raw)
        return oom(err);
    for (uint64_t k = 0; k < n; k++)
        memcpy(raw + k * sizeof(uint64_t), &h->object_id[b->index_targets[k]], sizeof(uint64_t));
    gch_free(b->index_targets);
    b->index_targets = NULL;
    b->raw_refs = raw;
    b->raw_ref_cap = n ? n : 1;
    b->indexed = 0;
    return GCH_OK;
}

/* end_heap of an adopted heap with distinct ids: the references are
 * resolved already; roots added by id (not by index) are looked up. */
static gch_status end_adopted_heap(gch_builder *b, gch_error *err)
{
    gch_heap *h = b->cur;
    gch_status st = count_types(b, err);
    if (st != GCH_OK)
        return st;
    uint64_t nrefs = b->raw_ref_count;
    if (!h->refs_loaded) {
        uint32_t *zero = gch_calloc((size_t)h->object_count + 1, sizeof *zero);
        if (!zero)
            return oom(err);
        gch_free(h->out_start);
        h->out_start = zero;
    }
    if (!b->index_targets && !(b->index_targets = gch_calloc(1, sizeof *b->index_targets)))
        return oom(err);
    h->out_target = b->index_targets;
    b->index_targets = NULL;
    h->ref_count = nrefs;
    h->out_label = b->raw_labels;
    b->raw_labels = NULL;
    b->raw_label_cap = 0;
    int by_id = 0;
    for (uint32_t k = 0; k < h->root_count; k++)
        by_id |= h->root_object[k] == GCH_NONE;
    if (by_id) {
        id_lookup lookup = { 0 };
        if ((st = build_lookup(b, &lookup, err)) != GCH_OK)
            return st;
        for (uint32_t k = 0; k < h->root_count; k++) {
            if (h->root_object[k] != GCH_NONE)
                continue;
            h->root_object[k] = id_lookup_find(&lookup, h->root_raw_id[k]);
            h->anomalies.dangling_roots += h->root_object[k] == GCH_NONE;
        }
        id_lookup_free(&lookup);
    }
    resolve_containers(b);
    gch_assert_csr(h->out_start, h->object_count, h->ref_count, h->out_target, h->object_count);
    return close_heap(b, err);
}


/* Counts one more object holding `dropped` references to absent objects and
 * keeps the GCH_DANGLING_TOP holding most (a strictly bigger count moves up:
 * ties stay in object order). */
static void note_dangling_holder(gch_anomalies *a, uint64_t id, uint64_t dropped)
{
    a->dangling_holders++;
    size_t k = GCH_DANGLING_TOP;
    while (k > 0 && (a->dangling_holder_refs[k - 1] < dropped))
        k--;
    if (k == GCH_DANGLING_TOP)
        return;
    for (size_t j = GCH_DANGLING_TOP - 1; j > k; j--) {
        a->dangling_holder_id[j] = a->dangling_holder_id[j - 1];
        a->dangling_holder_refs[j] = a->dangling_holder_refs[j - 1];
    }
    a->dangling_holder_id[k] = id;
    a->dangling_holder_refs[k] = dropped;
}

gch_status gch_builder_end_heap(gch_builder *b, gch_error *err)
{
    gch_heap *h = b->cur;
    if (!h)
        return gch_error_set(err, GCH_EINVAL, "no heap is open");
#if GCH_ASSERTS_ON
    GCH_ASSERT(atomic_load(&b->unfilled) == 0); /* every reserved run filled */
#endif
    gch_status st;

    if (b->hist_only) {
        /* The repeats leave the totals, as drop_duplicates does on the
         * stored path; then the types are counted as on that path. */
        for (uint32_t t = 0; t < h->type_count && t < b->dup_cap; t++)
            h->type_objects[t] -= b->dup_objects[t];
        st = count_types(b, err);
        if (st != GCH_OK)
            return st;
        return end_histogram_heap(b, err);
    }
    h->out_start[h->object_count] = (uint32_t)b->raw_ref_count; /* the end of the last */
    if (b->indexed) {
        int unique = b->ids_unsorted ? gch_ids_unique(h->object_id, h->object_count) : 1;
        if (unique < 0)
            return oom(err);
        if (unique)
            return end_adopted_heap(b, err);
        if ((st = adopted_to_ids(b, err)) != GCH_OK)
            return st;
    }

    /* Duplicate records go first, so that nothing below counts them. */
    id_lookup lookup = { 0 };
    st = build_lookup(b, &lookup, err);
    if (st != GCH_OK)
        return st;
    st = count_types(b, err);
    if (st != GCH_OK) {
        id_lookup_free(&lookup);
        return st;
    }

    /* Resolve references in place: raw u64 ids -> u32 indices (GCH_NONE when
     * absent), then drop the absent ones. */
    uint64_t dangling = 0;
    id_lookup_resolve(&lookup, b->raw_refs, b->raw_ref_count, &dangling,
                      &h->anomalies.first_dangling_ref, &b->par);
    uint64_t w = b->raw_ref_count;
    uint32_t *targets = (uint32_t *)(void *)b->raw_refs;
    if (dangling) {
        h->anomalies.dangling_refs += dangling;
        uint64_t r = 0;
        w = 0;
        for (uint32_t i = 0; i < h->object_count; i++) {
            uint32_t end = h->out_start[i + 1];
            h->out_start[i] = (uint32_t)w; /* r, the old start, is already read */
            uint64_t dropped = 0;
            for (; r < end; r++) {
                uint32_t target = targets[r];
                if (target == GCH_NONE) {
                    dropped++;
                    continue;
                }
                targets[w] = target;
                if (b->raw_labels)
                    b->raw_labels[w] = b->raw_labels[r];
                w++;
            }
            if (dropped)
                note_dangling_holder(&h->anomalies, h->object_id[i], dropped);
        }
        h->out_start[h->object_count] = (uint32_t)w;
    }
    if (!h->refs_loaded) {
        /* Without references every start is 0: zeroed pages, untouched until
         * read, instead of the counts array. */
        uint32_t *zero = gch_calloc((size_t)h->object_count + 1, sizeof *zero);
        if (!zero) {
            id_lookup_free(&lookup);
            return oom(err);
        }
        gch_free(h->out_start);
        h->out_start = zero;
    }
    h->ref_count = w;
    uint32_t *shrunk = gch_reallocarray(targets, w ? w : 1, sizeof *shrunk);
    if (!shrunk && !targets) { /* no reference at all: this was the first allocation */
        id_lookup_free(&lookup);
        return oom(err);
    }
    h->out_target = shrunk ? shrunk : targets;
    b->raw_refs = NULL;
    b->raw_ref_cap = 0;
    if (b->raw_labels) {
        uint32_t *ls = gch_reallocarray(b->raw_labels, w ? w : 1, sizeof *ls);
        h->out_label = ls ? ls : b->raw_labels;
        b->raw_labels = NULL;
        b->raw_label_cap = 0;
    }

    /* Roots: resolved in bulk, which pipelines the lookups. */
    if (h->root_count) {
        unsigned char *raw = gch_reallocarray(NULL, h->root_count, sizeof(uint64_t));
        if (!raw) {
            id_lookup_free(&lookup);
            return oom(err);
        }
        memcpy(raw, h->root_raw_id, (size_t)h->root_count * sizeof(uint64_t));
        uint64_t absent = 0, first_absent = 0;
        id_lookup_resolve(&lookup, raw, h->root_count, &absent, &first_absent, &b->par);
        memcpy(h->root_object, raw, (size_t)h->root_count * sizeof(uint32_t));
        gch_free(raw);
        h->anomalies.dangling_roots += absent;
    }
    resolve_containers(b);
    id_lookup_free(&lookup);
    /* Resolved: the starts never decrease, every target and root object is
     * an object index. */
    gch_assert_csr(h->out_start, h->object_count, h->ref_count, h->out_target, h->object_count);
    for (uint32_t k = 0; GCH_ASSERTS_ON && k < h->root_count; k++)
        GCH_ASSERT(h->root_object[k] == GCH_NONE || h->root_object[k] < h->object_count);

    return close_heap(b, err);
}

gch_status gch_builder_finish(gch_builder *b, gch_dump **out, gch_error *err)
{
    *out = NULL;
    if (b->cur)
        return gch_error_set(err, GCH_EINVAL, "a heap is still open");
    gch_dump *d = gch_calloc(1, sizeof *d);
    if (!d)
        return oom(err);
    d->format = b->format;
    d->heaps = b->heaps;
    d->heap_count = b->heap_count;
    b->heaps = NULL;
    b->heap_count = b->heap_cap = 0;
    *out = d;
    return GCH_OK;
}
