/* Hostile keys and shapes that made loading quadratic (issue 20, findings 1
 * and 2): loading must stay near-linear whatever the ids, names and field
 * indices are. Each test builds its input with an attack generator
 * (tests/support/flood.c), at sizes n and 4n, crafted and ordinary, loads
 * each and checks the result itself (counts, names).
 *
 * The timing is a benchmark, not a test: the same file built with
 * GCHEAP_FLOOD_BENCH is build/tests/flood_bench (bench/run.sh --flood),
 * which times the four inputs (the fastest of five runs each) and reports
 * whether 4x the input costs under 6x the processor time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "gcheap/paths.h"
#include "dart_writer.h"
#include "flood.h"
#include "hash.h"
#include "heap_check.h"
#include "text_buf.h"

/* Sizes: n and 4n. With the unkeyed hashes the 4n runs took seconds (a
 * ratio of about 16); keyed, milliseconds. */
#define N_IDS 50000
#define N_TYPES 40000
#define N_NAMES 40000
#define N_FIELDS 40000

static gch_dump *load_gclog(const text *t)
{
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = gch_read_gclog_buffer(t->s, t->len, NULL, &d, &err);
    if (st != GCH_OK)
        fail_msg("load failed: %s", err.message);
    return d;
}

/* Unit test: each input loaded and checked once. Benchmark: timed too. */
static void flood_run(const char *what, void (*fn)(void *ctx, int k), void *ctx)
{
#ifdef GCHEAP_FLOOD_BENCH
    flood_near_linear(what, fn, ctx);
#else
    (void)what;
    flood_check_each(fn, ctx);
#endif
}

/* ---- the .gclog cases ---- */

typedef struct gclog_case {
    text t[4]; /* FLOOD_CRAFTED_N, FLOOD_CRAFTED_4N, FLOOD_PLAIN_N, FLOOD_PLAIN_4N */
    size_t n[4];
    void (*check)(const gch_heap *h, size_t n);
} gclog_case;

static void load_and_check(void *ctx, int k)
{
    gclog_case *c = ctx;
    gch_dump *d = load_gclog(&c->t[k]);
    assert_int_equal(d->heap_count, 1);
    c->check(d->heaps[0], c->n[k]);
    gch_dump_free(d);
}

/* write(t, n, crafted): the input of n keys, crafted or ordinary. */
static void run_case(const char *what, gclog_case *c, size_t n,
                     void (*write)(text *t, size_t n, int crafted))
{
    for (int k = 0; k < 4; k++) {
        c->n[k] = k == FLOOD_CRAFTED_4N || k == FLOOD_PLAIN_4N ? 4 * n : n;
        memset(&c->t[k], 0, sizeof c->t[k]);
        write(&c->t[k], c->n[k], k == FLOOD_CRAFTED_N || k == FLOOD_CRAFTED_4N);
    }
    flood_run(what, load_and_check, c);
    for (int k = 0; k < 4; k++)
        free(c->t[k].s);
}

/* n ids from gen, or ordinary ones (distinct: 64-bit splitmix values). */
static uint64_t *make_ids(size_t n, int crafted, void (*gen)(uint64_t *out, size_t n))
{
    uint64_t *ids = malloc(n * sizeof *ids);
    assert_non_null(ids);
    uint64_t state = 12345;
    if (crafted)
        gen(ids, n);
    else
        for (size_t i = 0; i < n; i++)
            ids[i] = flood_plain_u64(&state);
    return ids;
}

/* ---- object ids ---- */

/* Objects whose ids collide under fmix64, in no order (so the builder hashes
 * them), each referring to the next (a ring) and one root. */
static void write_objects(text *t, size_t n, int crafted)
{
    uint64_t *ids = make_ids(n, crafted, flood_fmix_ids);
    text_add(t, "a 2 flood\nt 1 Node\n");
    for (size_t i = 0; i < n; i++)
        text_add(t, "o %llx 1 10 %llx\n", (unsigned long long)ids[i],
                 (unsigned long long)ids[(i + 1) % n]);
    text_add(t, "r %llx 1 0\nc flood\n", (unsigned long long)ids[0]);
    free(ids);
}

static void check_ring(const gch_heap *h, size_t n)
{
    assert_int_equal(h->object_count, n);
    assert_int_equal(h->ref_count, n);
    assert_int_equal(h->anomalies.dangling_refs, 0);
    assert_int_equal(h->anomalies.duplicate_objects, 0);
    assert_int_equal(h->total_size, 16 * (uint64_t)n);
    for (uint32_t i = 0; i < h->object_count; i++) {
        assert_int_equal(h->out_start[i + 1] - h->out_start[i], 1);
        assert_int_equal(h->out_target[h->out_start[i]], (i + 1) % n);
    }
    assert_int_equal(h->root_object[0], 0);
}

static void test_flooded_object_ids(void **state)
{
    (void)state;
    uint64_t ids[64];
    flood_fmix_ids(ids, 64);
    for (int i = 1; i < 64; i++) /* the generator does what it says */
        assert_int_equal(flood_fmix64(ids[i]) & 0xffffff, flood_fmix64(ids[0]) & 0xffffff);
    gclog_case c = { .check = check_ring };
    run_case("object ids colliding under fmix64", &c, N_IDS, write_objects);
}

/* ---- type ids ---- */

/* 't' records whose ids collide under fmix64 (the builder's type table). */
static void write_type_records(text *t, size_t n, int crafted)
{
    uint64_t *ids = make_ids(n, crafted, flood_fmix_ids);
    text_add(t, "a 2 types\n");
    for (size_t i = 0; i < n; i++)
        text_add(t, "t %llx T%zu\n", (unsigned long long)ids[i], i);
    text_add(t, "o 1 %llx 8\nc types\n", (unsigned long long)ids[n - 1]);
    free(ids);
}

static void check_declared_types(const gch_heap *h, size_t n)
{
    assert_int_equal(h->type_count, n);
    assert_int_equal(h->anomalies.unknown_types, 0);
    assert_int_equal(h->object_count, 1);
    char name[32];
    snprintf(name, sizeof name, "T%zu", n - 1);
    assert_string_equal(gch_heap_string(h, h->type_name[h->object_type[0]]), name);
}

static void test_flooded_type_ids(void **state)
{
    (void)state;
    gclog_case c = { .check = check_declared_types };
    run_case("type ids colliding under fmix64", &c, N_TYPES, write_type_records);
}

/* Objects of as many undeclared types, whose ids collide under Fibonacci
 * hashing (the .gclog parser's per-chunk type table). */
static void write_object_types(text *t, size_t n, int crafted)
{
    uint64_t *ids = make_ids(n, crafted, flood_fibonacci_ids);
    text_add(t, "a 2 types\n");
    for (size_t i = 0; i < n; i++)
        text_add(t, "o %zx %llx 8\n", i + 1, (unsigned long long)ids[i]);
    text_add(t, "c types\n");
    free(ids);
}

static void check_undeclared_types(const gch_heap *h, size_t n)
{
    assert_int_equal(h->type_count, n);
    assert_int_equal(h->object_count, n);
    assert_int_equal(h->anomalies.unknown_types, n);
    assert_int_equal(h->anomalies.unknown_type_objects, n);
}

static void test_flooded_chunk_type_ids(void **state)
{
    (void)state;
    uint64_t ids[64];
    flood_fibonacci_ids(ids, 64);
    for (int i = 1; i < 64; i++)
        assert_int_equal((ids[i] * 0x9e3779b97f4a7c15ULL >> 32) & 0xffffff,
                         (ids[0] * 0x9e3779b97f4a7c15ULL >> 32) & 0xffffff);
    gclog_case c = { .check = check_undeclared_types };
    run_case("type ids colliding under Fibonacci hashing", &c, N_TYPES, write_object_types);
}

/* ---- names ---- */

/* The crafted names of the 4n input (the n input's are their first n) and
 * ordinary names as long, made once: the search for colliding blocks is not
 * what is timed. */
static char *names[2]; /* [crafted] */
static size_t name_stride;

static void make_names(size_t n)
{
    names[1] = flood_fnv_names(n, &name_stride);
    names[0] = malloc(n * name_stride);
    assert_non_null(names[0]);
    uint64_t state = 99;
    for (size_t i = 0; i < n; i++) {
        char *p = names[0] + i * name_stride;
        for (size_t j = 0; j + 1 < name_stride; j++)
            p[j] = (char)('a' + flood_plain_u64(&state) % 26);
        p[name_stride - 1] = '\0';
    }
}

static const char *name_of(int crafted, size_t i) { return names[crafted] + i * name_stride; }

static void write_names(text *t, size_t n, int crafted)
{
    text_add(t, "a 2 names\n");
    for (size_t i = 0; i < n; i++)
        text_add(t, "t %zx %s\n", i + 1, name_of(crafted, i));
    text_add(t, "o 1 1 8\nc names\n");
}

static void check_names(const gch_heap *h, size_t n)
{
    assert_int_equal(h->type_count, n);
    int crafted = strcmp(gch_heap_string(h, h->type_name[0]), name_of(1, 0)) == 0;
    for (size_t i = 0; i < n; i += n / 16)
        assert_string_equal(gch_heap_string(h, h->type_name[i]), name_of(crafted, i));
}

static void test_flooded_names(void **state)
{
    (void)state;
    make_names(4 * N_NAMES);
    uint64_t low = flood_fnv1a(name_of(1, 0), strlen(name_of(1, 0))) & 0xffffff;
    for (size_t i = 1; i < 4 * N_NAMES; i++) { /* the generator does what it says */
        const char *s = name_of(1, i);
        assert_int_equal(flood_fnv1a(s, strlen(s)) & 0xffffff, low);
        assert_string_not_equal(s, name_of(1, i - 1));
    }
    gclog_case c = { .check = check_names };
    run_case("names colliding under FNV-1a", &c, N_NAMES, write_names);
    free(names[0]);
    free(names[1]);
}

/* ---- Dart: a class whose fields all have index 0 ---- */

typedef struct dart_case {
    dtw_buf b[4];
    size_t n[4];
} dart_case;

/* n fields, all at index 0 (crafted) or at indices 0..n-1, and n objects of
 * that class with two references each: finding the field of position 1
 * walked every field of index 0. */
static void write_dart_fields(dtw_buf *out, size_t n, int crafted)
{
    dtw *w = dtw_new_vm("fields", NULL, 0, NULL, 0);
    uint64_t k = dtw_class(w, "Flat", "flat", "package:flat/flat.dart");
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%zu", i);
        dtw_field(w, k, crafted ? 0 : i, name);
    }
    uint64_t first = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t o = dtw_object(w, k, 16);
        if (!first)
            first = o;
        dtw_ref(w, o, first);
        dtw_ref(w, o, o);
    }
    dtw_ref(w, 1, first);
    dtw_write(w, 0, 0, out);
    dtw_free(w);
}

static void load_dart(void *ctx, int k)
{
    dart_case *c = ctx;
    size_t n = c->n[k];
    gch_dump *d = NULL;
    gch_error err;
    if (gch_read_dart_buffer(c->b[k].data, c->b[k].size, NULL, &d, &err) != GCH_OK)
        fail_msg("load failed: %s", err.message);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, n);
    assert_int_equal(h->ref_count, 2 * n);
    /* Position 0 is the first field of index 0 ("f0"); position 1 has none
     * (crafted) or is "f1". */
    int crafted = k == FLOOD_CRAFTED_N || k == FLOOD_CRAFTED_4N;
    for (uint32_t i = 0; i < h->object_count; i += (uint32_t)(n / 8)) {
        uint32_t s = h->out_start[i];
        assert_string_equal(gch_heap_string(h, h->out_label[s]), "f0");
        if (crafted)
            assert_int_equal(h->out_label[s + 1], GCH_NONE);
        else
            assert_string_equal(gch_heap_string(h, h->out_label[s + 1]), "f1");
    }
    gch_dump_free(d);
}

static void test_dart_fields_at_one_index(void **state)
{
    (void)state;
    dart_case c;
    for (int k = 0; k < 4; k++) {
        c.n[k] = k == FLOOD_CRAFTED_4N || k == FLOOD_PLAIN_4N ? 4 * N_FIELDS : N_FIELDS;
        memset(&c.b[k], 0, sizeof c.b[k]);
        write_dart_fields(&c.b[k], c.n[k], k == FLOOD_CRAFTED_N || k == FLOOD_CRAFTED_4N);
    }
    flood_run("Dart class with every field at index 0", load_dart, &c);
    for (int k = 0; k < 4; k++)
        dtw_buf_free(&c.b[k]);
}

/* ---- output does not depend on the key ---- */

static char *slurp(const char *rel, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", GCHEAP_TESTDATA, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t cap = 1 << 16, n = 0, got;
    char *s = malloc(cap);
    assert_non_null(s);
    while ((got = fread(s + n, 1, cap - n, f)) > 0)
        if ((n += got) == cap) {
            s = realloc(s, cap *= 2);
            assert_non_null(s);
        }
    fclose(f);
    *len = n;
    return s;
}

/* Every table maps keys to indices given in input order and none is walked
 * to produce results, so every heap must come out identical under any key:
 * the merged paths of every type too (their nodes come from a table). */
static void check_same_under_keys(const char *what, const void *data, size_t size)
{
    static const uint64_t seeds[] = { 1, 0x5eed, 0xfeedfacecafebeefULL };
    gch_dump *first = NULL;
    for (size_t k = 0; k < sizeof seeds / sizeof seeds[0]; k++) {
        gch_internal_set_hash_seed(seeds[k]);
        gch_dump *d = NULL;
        gch_error err;
        gch_status st = gch_load_buffer(data, size, GCH_FORMAT_AUTO, NULL, &d, &err);
        if (st != GCH_OK)
            fail_msg("%s: %s", what, err.message);
        if (first) {
            const char *diff = heap_check_same_dump(first, d, 1);
            if (diff)
                fail_msg("%s: the key changed the heap: %s", what, diff);
        }
        /* Merged paths of each type's instances: node order and shape. */
        for (size_t hi = 0; hi < d->heap_count; hi++) {
            const gch_heap *h = d->heaps[hi];
            gch_paths paths;
            assert_int_equal(gch_paths_build(h, 0, &paths, &err), GCH_OK);
            gch_merged_paths mine, theirs;
            uint32_t *targets = malloc(((size_t)h->object_count + 1) * sizeof *targets);
            assert_non_null(targets);
            size_t nt = 0;
            for (uint32_t i = 0; i < h->object_count; i++)
                if (h->object_type[i] == h->object_type[0])
                    targets[nt++] = i;
            assert_int_equal(gch_merged_paths_build(h, &paths, targets, nt, &mine, &err), GCH_OK);
            if (first) {
                gch_paths fp;
                const gch_heap *fh = first->heaps[hi];
                gch_internal_set_hash_seed(seeds[0]);
                assert_int_equal(gch_paths_build(fh, 0, &fp, &err), GCH_OK);
                assert_int_equal(gch_merged_paths_build(fh, &fp, targets, nt, &theirs, &err), GCH_OK);
                gch_internal_set_hash_seed(seeds[k]);
                assert_int_equal(mine.node_count, theirs.node_count);
                for (size_t j = 0; j < mine.node_count; j++) {
                    assert_int_equal(mine.nodes[j].parent, theirs.nodes[j].parent);
                    assert_int_equal(mine.nodes[j].type, theirs.nodes[j].type);
                    assert_int_equal(mine.nodes[j].paths, theirs.nodes[j].paths);
                    assert_int_equal(mine.nodes[j].objects, theirs.nodes[j].objects);
                }
                if (mine.node_count)
                    assert_memory_equal(mine.children, theirs.children,
                                        mine.child_start[mine.node_count + 1] * sizeof *mine.children);
                gch_merged_paths_free(&theirs);
                gch_paths_free(&fp);
            }
            gch_merged_paths_free(&mine);
            gch_paths_free(&paths);
            free(targets);
        }
        if (first)
            gch_dump_free(d);
        else
            first = d;
    }
    gch_dump_free(first);
    gch_internal_set_hash_seed(0);
}

static void test_output_independent_of_key(void **state)
{
    (void)state;
    static const char *const files[] = {
        "basic.gclog", "anomalies.gclog", "quirks.gclog", "sections.gclog", "seed.gclog",
        "gcdump/twin.gcdump", "gcdump/sampled.gcdump", "dart/twin.dartheap", "dart/mini.dartheap",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t n;
        char *data = slurp(files[i], &n);
        check_same_under_keys(files[i], data, n);
        free(data);
    }
    /* Unsorted (hashed) ids, duplicate objects and types, names shared by
     * several type ids, undeclared types, static containers, dangling
     * references: every table at work. */
    text t = { 0 };
    uint64_t ids[3000];
    flood_fmix_ids(ids, 3000);
    text_add(&t, "a 2 mixed\n");
    for (int i = 0; i < 3000; i++) {
        if (i % 100 == 0)
            text_add(&t, "t %x Shared%d\n", i / 7 + 1, i % 300);
        text_add(&t, "o %llx %x %x %llx %llx\n", (unsigned long long)ids[i], (i * 7) % 500 + 1,
                 i % 50 + 8, (unsigned long long)ids[(i * 13) % 3000],
                 (unsigned long long)(i % 9 == 0 ? 0xdeadULL : ids[i / 2]));
        if (i % 250 == 0)
            text_add(&t, "o %llx 1 8\nr %llx 4 0 %x\n", (unsigned long long)ids[i / 3],
                     (unsigned long long)ids[i], i + 2);
    }
    text_add(&t, "r %llx 1 0\nc mixed\n", (unsigned long long)ids[0]);
    check_same_under_keys("generated", t.s, t.len);
    free(t.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flooded_object_ids),
        cmocka_unit_test(test_flooded_type_ids),
        cmocka_unit_test(test_flooded_chunk_type_ids),
        cmocka_unit_test(test_flooded_names),
        cmocka_unit_test(test_dart_fields_at_one_index),
        cmocka_unit_test(test_output_independent_of_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
