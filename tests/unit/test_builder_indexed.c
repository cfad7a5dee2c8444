/* The builder's index path (gch_builder_adopt_indexed, gch_builder_add_root_at)
 * against its id path as the oracle: random heaps, handed over whole with
 * references as indices, give the same dump as the same objects added one by
 * one with references as ids. Ids increasing, shuffled over a small range
 * (bitmap), in a few increasing runs, shuffled over a huge range (hash set),
 * and repeated (the index path then falls back to the id path); with and
 * without labels, with references skipped, roots by index and by id (also
 * absent ids). And the arrays it refuses. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/builder.h"
#include "gcheap/heap.h"
#include "builder_internal.h"
#include "heap_check.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return rng_state >> 33;
}

enum id_kind { IDS_INCREASING, IDS_SMALL_RANGE, IDS_RUNS, IDS_HUGE_RANGE, IDS_REPEATED, ID_KINDS };

/* One random heap, in plain arrays. */
typedef struct spec {
    uint32_t n, ntypes;
    uint64_t *ids, *sizes;
    uint32_t *type_of;  /* index into raw type ids 100 + k */
    uint32_t *starts, *targets, *labels; /* labels: index into label_names, or GCH_NONE */
    uint32_t nroots, *root_at;
    int skip_refs, labeled;
} spec;

static const char *const label_names[] = { ".a", ".next", "[0]", "context x", "{3}" };

static void make_ids(spec *s, enum id_kind kind)
{
    uint32_t n = s->n;
    for (uint32_t i = 0; i < n; i++)
        s->ids[i] = 2 * (uint64_t)i + 1;
    if (kind == IDS_SMALL_RANGE || kind == IDS_HUGE_RANGE || kind == IDS_REPEATED) {
        for (uint32_t i = n; i > 1; i--) {
            uint32_t j = (uint32_t)(rnd() % i);
            uint64_t t = s->ids[i - 1];
            s->ids[i - 1] = s->ids[j];
            s->ids[j] = t;
        }
    }
    if (kind == IDS_HUGE_RANGE)
        for (uint32_t i = 0; i < n; i += 3)
            s->ids[i] += (uint64_t)1 << 40; /* still distinct: the others are small */
    if (kind == IDS_RUNS) {
        /* Three increasing runs, like V8's native nodes at the end: ids far above. */
        for (uint32_t i = n / 2; i < n; i++)
            s->ids[i] = ((uint64_t)1 << 36) + 8 * (uint64_t)(i - n / 2);
        for (uint32_t i = 3 * n / 4; i < n; i++)
            s->ids[i] = 2 * (uint64_t)(i - 3 * n / 4) + 2; /* even: between the first run's odd ids */
    }
    if (kind == IDS_REPEATED && n > 2)
        for (uint32_t k = 0; k < 1 + n / 10; k++)
            s->ids[rnd() % n] = s->ids[rnd() % n];
}

static void make_spec(spec *s, enum id_kind kind, int skip_refs, int labeled)
{
    memset(s, 0, sizeof *s);
    s->n = 1 + (uint32_t)(rnd() % 400);
    s->ntypes = 1 + (uint32_t)(rnd() % 6);
    s->skip_refs = skip_refs;
    s->labeled = labeled;
    uint32_t n = s->n;
    s->ids = malloc(n * sizeof *s->ids);
    s->sizes = malloc(n * sizeof *s->sizes);
    s->type_of = malloc(n * sizeof *s->type_of);
    s->starts = malloc((n + 1) * sizeof *s->starts);
    make_ids(s, kind);
    s->starts[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        /* now and then a size the 32-bit slots cannot hold (kept whole) */
        s->sizes[i] = rnd() % 37 == 0 ? ((uint64_t)1 << 32) - 2 + rnd() % 4 : rnd() % 100;
        s->type_of[i] = (uint32_t)(rnd() % s->ntypes);
        s->starts[i + 1] = s->starts[i] + (uint32_t)(rnd() % 5);
    }
    uint32_t nrefs = s->starts[n];
    s->targets = malloc((nrefs + 1) * sizeof *s->targets);
    s->labels = malloc((nrefs + 1) * sizeof *s->labels);
    for (uint32_t k = 0; k < nrefs; k++) {
        s->targets[k] = (uint32_t)(rnd() % n);
        s->labels[k] = rnd() % 4 ? (uint32_t)(rnd() % 5) : GCH_NONE;
    }
    s->nroots = 1 + (uint32_t)(rnd() % 4);
    s->root_at = malloc(s->nroots * sizeof *s->root_at);
    for (uint32_t r = 0; r < s->nroots; r++)
        s->root_at[r] = (uint32_t)(rnd() % n);
}

static void free_spec(spec *s)
{
    free(s->ids);
    free(s->sizes);
    free(s->type_of);
    free(s->starts);
    free(s->targets);
    free(s->labels);
    free(s->root_at);
}

/* begin_heap, the label strings (same offsets in both builders), the types
 * in the same order. */
static gch_builder *open_heap(const spec *s, uint32_t *label_off, uint32_t *type_index)
{
    gch_builder *b = NULL;
    gch_error err;
    assert_int_equal(gch_builder_new(&b, "test", &err), GCH_OK);
    assert_int_equal(gch_builder_begin_heap(b, "h", 1, &err), GCH_OK);
    if (s->skip_refs)
        gch_builder_set_refs_skipped(b);
    for (size_t k = 0; k < 5; k++)
        assert_int_equal(gch_builder_intern_label(b, label_names[k], strlen(label_names[k]), &label_off[k], &err),
                         GCH_OK);
    for (uint32_t t = 0; t < s->ntypes; t++)
        assert_int_equal(gch_builder_type_index(b, 100 + t, &type_index[t], &err), GCH_OK);
    return b;
}

/* Declares half the types, adds a root by id on an absent id, closes. */
static gch_dump *close_heap(gch_builder *b, const spec *s)
{
    gch_error err;
    for (uint32_t t = 0; t < s->ntypes; t += 2) {
        char name[16];
        snprintf(name, sizeof name, "T%u", (unsigned)(t % 3)); /* equal names merge */
        assert_int_equal(gch_builder_add_type(b, 100 + t, name, strlen(name), NULL, &err), GCH_OK);
    }
    assert_int_equal(gch_builder_add_root(b, 7777777, GCH_ROOT_STATIC, 0, 0, 0, "absent", &err), GCH_OK);
    assert_int_equal(gch_builder_add_root(b, s->ids[s->n / 2], GCH_ROOT_LOCAL, 0, 0, 0, NULL, &err), GCH_OK);
    gch_dump *d = NULL;
    assert_int_equal(gch_builder_end_heap(b, &err), GCH_OK);
    assert_int_equal(gch_builder_finish(b, &d, &err), GCH_OK);
    gch_builder_free(b);
    assert_null(heap_check_dump(d));
    return d;
}

/* The oracle: each object added with its references as ids. */
static gch_dump *build_by_ids(const spec *s)
{
    uint32_t label_off[5], type_index[8];
    gch_builder *b = open_heap(s, label_off, type_index);
    gch_error err;
    uint64_t refs[8];
    uint32_t offs[8];
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t nrefs = s->skip_refs ? 0 : s->starts[i + 1] - s->starts[i];
        for (uint32_t k = 0; k < nrefs; k++) {
            uint32_t e = s->starts[i] + k;
            refs[k] = s->ids[s->targets[e]];
            offs[k] = s->labels[e] == GCH_NONE ? GCH_NONE : label_off[s->labels[e]];
        }
        assert_int_equal(gch_builder_add_object_label_offsets(b, s->ids[i], 100 + s->type_of[i], s->sizes[i], refs,
                                                              s->labeled ? offs : NULL, nrefs, &err),
                         GCH_OK);
    }
    for (uint32_t r = 0; r < s->nroots; r++)
        assert_int_equal(gch_builder_add_root(b, s->ids[s->root_at[r]], GCH_ROOT_INTERNAL, 0, 0, 0, "r", &err),
                         GCH_OK);
    return close_heap(b, s);
}

static void *copy(const void *p, size_t n)
{
    void *c = gch_malloc(n ? n : 1);
    assert_non_null(c);
    memcpy(c, p, n);
    return c;
}

/* The index path: the arrays handed over whole. */
static gch_dump *build_by_index(const spec *s)
{
    uint32_t label_off[5], type_index[8];
    gch_builder *b = open_heap(s, label_off, type_index);
    gch_error err;
    uint32_t n = s->n, nrefs = s->starts[n];
    uint32_t *types = gch_malloc(n * sizeof *types);
    for (uint32_t i = 0; i < n; i++)
        types[i] = type_index[s->type_of[i]];
    uint32_t *labels = NULL;
    if (s->labeled && !s->skip_refs) {
        labels = gch_malloc((nrefs + 1) * sizeof *labels);
        for (uint32_t k = 0; k < nrefs; k++)
            labels[k] = s->labels[k] == GCH_NONE ? GCH_NONE : label_off[s->labels[k]];
    }
    assert_int_equal(gch_builder_adopt_indexed(b, n, copy(s->ids, n * sizeof *s->ids), types,
                                               copy(s->sizes, n * sizeof *s->sizes),
                                               s->skip_refs ? NULL : copy(s->starts, (n + 1) * sizeof *s->starts),
                                               s->skip_refs ? NULL : copy(s->targets, nrefs * sizeof *s->targets),
                                               labels, &err),
                     GCH_OK);
    for (uint32_t r = 0; r < s->nroots; r++)
        assert_int_equal(gch_builder_add_root_at(b, s->root_at[r], GCH_ROOT_INTERNAL, 0, "r", &err), GCH_OK);
    return close_heap(b, s);
}

#define SAME_ARRAY(a, b, n) assert_memory_equal((a), (b), (size_t)(n) * sizeof *(a))

static void assert_same_heap(const gch_heap *x, const gch_heap *y)
{
    assert_int_equal(x->object_count, y->object_count);
    SAME_ARRAY(x->object_id, y->object_id, x->object_count);
    SAME_ARRAY(x->object_type, y->object_type, x->object_count);
    SAME_ARRAY(x->object_size32, y->object_size32, x->object_count);
    assert_int_equal(x->big_size_count, y->big_size_count);
    SAME_ARRAY(x->big_size_object, y->big_size_object, x->big_size_count);
    SAME_ARRAY(x->big_size_value, y->big_size_value, x->big_size_count);
    for (uint32_t o = 0; o < x->object_count; o++)
        assert_int_equal(gch_object_size(x, o), gch_object_size(y, o));
    assert_int_equal(x->total_size, y->total_size);
    assert_int_equal(x->ref_count, y->ref_count);
    assert_int_equal(x->refs_loaded, y->refs_loaded);
    SAME_ARRAY(x->out_start, y->out_start, x->object_count + 1);
    SAME_ARRAY(x->out_target, y->out_target, x->ref_count);
    assert_int_equal(!x->out_label, !y->out_label);
    if (x->out_label)
        SAME_ARRAY(x->out_label, y->out_label, x->ref_count);
    assert_int_equal(x->type_count, y->type_count);
    SAME_ARRAY(x->type_name, y->type_name, x->type_count);
    SAME_ARRAY(x->type_raw_id, y->type_raw_id, x->type_count);
    SAME_ARRAY(x->type_declared, y->type_declared, x->type_count);
    SAME_ARRAY(x->type_objects, y->type_objects, x->type_count);
    SAME_ARRAY(x->type_bytes, y->type_bytes, x->type_count);
    assert_int_equal(x->reported_types, y->reported_types);
    assert_int_equal(x->reported_declared_types, y->reported_declared_types);
    assert_int_equal(x->root_count, y->root_count);
    SAME_ARRAY(x->root_raw_id, y->root_raw_id, x->root_count);
    SAME_ARRAY(x->root_object, y->root_object, x->root_count);
    SAME_ARRAY(x->root_kind, y->root_kind, x->root_count);
    SAME_ARRAY(x->root_label, y->root_label, x->root_count);
    assert_int_equal(x->strings_size, y->strings_size);
    assert_memory_equal(x->strings, y->strings, x->strings_size);
    assert_memory_equal(&x->anomalies, &y->anomalies, sizeof x->anomalies);
}

static void test_index_path_equals_id_path(void **state)
{
    (void)state;
    rng_state = 42;
    int saw_duplicates = 0;
    for (int round = 0; round < 60; round++) {
        for (int kind = 0; kind < ID_KINDS; kind++) {
            spec s;
            make_spec(&s, (enum id_kind)kind, round % 5 == 4, round % 3 != 0);
            gch_dump *a = build_by_ids(&s), *b = build_by_index(&s);
            assert_same_heap(a->heaps[0], b->heaps[0]);
            saw_duplicates |= a->heaps[0]->anomalies.duplicate_objects != 0;
            gch_dump_free(a);
            gch_dump_free(b);
            free_spec(&s);
        }
    }
    assert_true(saw_duplicates); /* the fallback ran */
}

/* A hand-checked case: ids 5, 3, 9 (not increasing), 9 -> 3 -> 5, root at 9. */
static void test_small_by_hand(void **state)
{
    (void)state;
    gch_builder *b = NULL;
    gch_error err;
    assert_int_equal(gch_builder_new(&b, "test", &err), GCH_OK);
    assert_int_equal(gch_builder_begin_heap(b, "h", 1, &err), GCH_OK);
    uint32_t t;
    assert_int_equal(gch_builder_type_index(b, 1, &t, &err), GCH_OK);
    uint64_t ids[] = { 5, 3, 9 }, sizes[] = { 10, 20, 30 };
    uint32_t types[] = { 0, 0, 0 }, starts[] = { 0, 0, 1, 2 }, targets[] = { 0, 1 };
    assert_int_equal(gch_builder_adopt_indexed(b, 3, copy(ids, sizeof ids), copy(types, sizeof types),
                                               copy(sizes, sizeof sizes), copy(starts, sizeof starts),
                                               copy(targets, sizeof targets), NULL, &err),
                     GCH_OK);
    assert_int_equal(gch_builder_object_begin(b, 11, 1, 1, &err), GCH_EINVAL); /* whole means whole */
    assert_int_equal(gch_builder_add_root_at(b, 2, GCH_ROOT_INTERNAL, 0, NULL, &err), GCH_OK);
    assert_int_equal(gch_builder_add_root_at(b, 3, GCH_ROOT_INTERNAL, 0, NULL, &err), GCH_EINVAL);
    gch_dump *d = NULL;
    assert_int_equal(gch_builder_end_heap(b, &err), GCH_OK);
    assert_int_equal(gch_builder_finish(b, &d, &err), GCH_OK);
    gch_builder_free(b);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->total_size, 60);
    assert_int_equal(h->ref_count, 2);
    assert_int_equal(h->out_target[h->out_start[2]], 1); /* 9 -> 3 */
    assert_int_equal(h->out_target[h->out_start[1]], 0); /* 3 -> 5 */
    assert_int_equal(h->root_object[0], 2);
    assert_int_equal(h->root_raw_id[0], 9);
    assert_int_equal(h->type_objects[0], 3);
    gch_dump_free(d);
}

/* Arrays that break the rules are refused (and freed: ASan checks). */
static void test_refused(void **state)
{
    (void)state;
    struct {
        uint64_t id0;
        uint32_t type0, start1, target0;
    } cases[] = {
        { 0, 0, 1, 0 },  /* id 0 is the null reference */
        { 4, 7, 1, 0 },  /* a type that was never made */
        { 4, 0, 1, 2 },  /* a target beyond the objects */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        gch_builder *b = NULL;
        gch_error err;
        assert_int_equal(gch_builder_new(&b, "test", &err), GCH_OK);
        assert_int_equal(gch_builder_begin_heap(b, "h", 1, &err), GCH_OK);
        uint32_t t;
        assert_int_equal(gch_builder_type_index(b, 1, &t, &err), GCH_OK);
        uint64_t ids[] = { cases[c].id0, 6 }, sizes[] = { 1, 2 };
        uint32_t types[] = { cases[c].type0, 0 }, starts[] = { 0, cases[c].start1, cases[c].start1 };
        uint32_t targets[] = { cases[c].target0 };
        assert_int_equal(gch_builder_adopt_indexed(b, 2, copy(ids, sizeof ids), copy(types, sizeof types),
                                                   copy(sizes, sizeof sizes), copy(starts, sizeof starts),
                                                   copy(targets, sizeof targets), NULL, &err),
                         GCH_EINVAL);
        gch_builder_free(b);
    }
    /* Not on a heap that has objects already. */
    gch_builder *b = NULL;
    gch_error err;
    assert_int_equal(gch_builder_new(&b, "test", &err), GCH_OK);
    assert_int_equal(gch_builder_begin_heap(b, "h", 1, &err), GCH_OK);
    assert_int_equal(gch_builder_add_object(b, 4, 1, 1, NULL, 0, &err), GCH_OK);
    uint64_t ids[] = { 6 }, sizes[] = { 1 };
    uint32_t types[] = { 0 }, starts[] = { 0, 0 };
    assert_int_equal(gch_builder_adopt_indexed(b, 1, copy(ids, sizeof ids), copy(types, sizeof types),
                                               copy(sizes, sizeof sizes), copy(starts, sizeof starts), NULL, NULL,
                                               &err),
                     GCH_EINVAL);
    gch_builder_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_path_equals_id_path),
        cmocka_unit_test(test_small_by_hand),
        cmocka_unit_test(test_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
