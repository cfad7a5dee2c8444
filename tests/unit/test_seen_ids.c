/* Histogram-only heaps (gch_builder_set_histogram_only) and the id set behind
 * them (src/model/seen_ids.c): seen_ids_add and seen_ids_count_absent against
 * a brute-force scan, and a histogram-only heap's per-type totals, total size
 * and anomalies against those of the same objects stored, on random streams
 * that increase, then repeat and go back (ids 0 and 2^64-1 included). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "builder_internal.h"
#include "gcheap/builder.h"
#include "gcheap/heap.h"
#include "seen_ids.h"
#include "threading.h"
#include "tuning.h"

static uint64_t rng_state = 987654321;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int brute_has(const uint64_t *ids, size_t n, uint64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* A stream of n ids: increasing (steps 1..spread, a few huge) for the first
 * turn of them, then mostly repeats of earlier ids or new random ones. */
static void make_stream(uint64_t *ids, size_t n, size_t turn, uint64_t spread)
{
    uint64_t id = rnd() % 3 == 0 ? 0 : rnd() % 1000;
    for (size_t i = 0; i < n; i++) {
        if (i < turn) {
            ids[i] = id;
            id += 1 + (rnd() % 50 == 0 ? rnd() % (UINT64_MAX / 4 / n) : rnd() % spread);
        } else if (i > 0 && rnd() % 2) {
            ids[i] = ids[rnd() % i];
        } else {
            uint64_t r = rnd();
            ids[i] = r % 7 == 0 ? 0 : r % 11 == 0 ? UINT64_MAX : r % (spread * n + 1);
        }
    }
}

static void test_set_against_brute_force(void **state)
{
    (void)state;
    enum { N = 3000 };
    uint64_t *ids = malloc(N * sizeof *ids), *seen = malloc(N * sizeof *seen);
    uint64_t probes[600];
    assert_non_null(ids);
    assert_non_null(seen);
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + rnd() % N, turn = round % 4 == 0 ? n : rnd() % (n + 1);
        make_stream(ids, n, turn, round % 3 == 0 ? 3 : 300);
        seen_ids s = { 0 };
        size_t nseen = 0;
        for (size_t i = 0; i < n; i++) {
            int want = !brute_has(seen, nseen, ids[i]);
            assert_int_equal(seen_ids_add(&s, ids[i]), want);
            if (want)
                seen[nseen++] = ids[i];
        }
        assert_int_equal(s.count, nseen);
        /* Probes: present ids, absent neighbours, 0 and 2^64-1, repeated. */
        for (size_t k = 0; k < 600; k++) {
            uint64_t base = ids[rnd() % n];
            probes[k] = k % 5 == 0 ? base : k % 5 == 1 ? base + 1 : k % 5 == 2 ? base - 1
                      : k % 5 == 3 ? (rnd() % 2 ? 0 : UINT64_MAX) : rnd();
        }
        int64_t want = 0;
        for (size_t k = 0; k < 600; k++)
            want += !brute_has(seen, nseen, probes[k]);
        assert_int_equal(seen_ids_count_absent(&s, probes, 600), want);
        seen_ids_free(&s);
    }
    free(ids);
    free(seen);
}

/* Builds one heap from the stream, histogram-only or stored. */
static gch_dump *build(const uint64_t *ids, const uint64_t *types, const uint64_t *sizes, size_t n,
                       const uint64_t *roots, size_t nroots, int histogram_only)
{
    gch_builder *b;
    gch_error err;
    assert_int_equal(gch_builder_new(&b, "test", &err), GCH_OK);
    assert_int_equal(gch_builder_begin_heap(b, "h", 1, &err), GCH_OK);
    gch_builder_set_refs_skipped(b);
    if (histogram_only)
        gch_builder_set_histogram_only(b);
    assert_int_equal(gch_builder_add_type(b, 1, "A", 1, NULL, &err), GCH_OK);
    assert_int_equal(gch_builder_add_type(b, 2, "B", 1, NULL, &err), GCH_OK);
    assert_int_equal(gch_builder_add_type(b, 3, "A", 1, NULL, &err), GCH_OK); /* merged with 1 */
    for (size_t i = 0; i < n; i++)
        assert_int_equal(gch_builder_add_object(b, ids[i], types[i], sizes[i], NULL, 0, &err), GCH_OK);
    for (size_t k = 0; k < nroots; k++)
        assert_int_equal(gch_builder_add_root(b, roots[k], 1, 0, k % 3 == 0, 1 + k % 6, NULL, &err),
                         GCH_OK);
    assert_int_equal(gch_builder_end_heap(b, &err), GCH_OK);
    gch_dump *d;
    assert_int_equal(gch_builder_finish(b, &d, &err), GCH_OK);
    gch_builder_free(b);
    return d;
}

/* seen_ids_append, given runs of increasing ids as the .gclog reader gives
 * them (the first id, then the varints of the distances), against
 * seen_ids_add of the same ids one by one: the same varints, count and last
 * id, the same answers afterwards; and it refuses a run that does not go past
 * the last id. */
static void test_append_equals_add(void **state)
{
    (void)state;
    enum { N = 4000 };
    uint64_t *ids = malloc(N * sizeof *ids);
    unsigned char *rest = malloc(N * 10);
    assert_non_null(ids);
    assert_non_null(rest);
    for (int round = 0; round < 40; round++) {
        size_t n = 1 + rnd() % N;
        make_stream(ids, n, n, round % 3 == 0 ? 3 : round % 3 == 1 ? 300 : 100000);
        seen_ids one = { 0 }, bulk = { 0 };
        for (size_t i = 0; i < n; i++)
            assert_int_equal(seen_ids_add(&one, ids[i]), 1);
        for (size_t from = 0; from < n;) {
            size_t to = from + 1 + rnd() % (round % 2 ? 7 : 700);
            if (to > n)
                to = n;
            assert_true(seen_ids_can_append(&bulk, ids[from]));
            if (bulk.count)
                assert_false(seen_ids_can_append(&bulk, bulk.last));
            size_t len = 0;
            for (size_t i = from + 1; i < to; i++)
                len += seen_ids_put_varint(rest + len, ids[i] - ids[i - 1]);
            assert_int_equal(seen_ids_append(&bulk, to - from, ids[from], ids[to - 1], rest, len), 0);
            from = to;
        }
        assert_int_equal(bulk.count, one.count);
        assert_true(bulk.last == one.last);
        assert_int_equal(bulk.delta_len, one.delta_len);
        assert_memory_equal(bulk.deltas, one.deltas, one.delta_len);
        uint64_t probe[3] = { ids[rnd() % n], ids[rnd() % n] + 1, UINT64_MAX };
        assert_int_equal(seen_ids_count_absent(&bulk, probe, 3), seen_ids_count_absent(&one, probe, 3));
        /* The walk cut in two at a checkpoint (two threads) counts the same
         * absent ids as one walk, and as a brute-force scan. */
        gch_parallel two = { 2, gch_tuning_get() };
        two.knobs.parallel_min_refs = 1;
        uint64_t roots[300];
        int64_t want = 0;
        for (size_t k = 0; k < 300; k++) {
            uint64_t base = ids[rnd() % n];
            roots[k] = k % 3 == 0 ? base : k % 3 == 1 ? base + 1 : rnd();
            want += !brute_has(ids, n, roots[k]);
        }
        assert_int_equal(seen_ids_count_absent_par(&bulk, roots, 300, &two), want);
        assert_int_equal(seen_ids_count_absent_par(&one, roots, 300, &two), want);
        assert_int_equal(seen_ids_count_absent(&bulk, roots, 300), want);
        /* A repeat after a bulk run is still told from a new id. */
        assert_int_equal(seen_ids_add(&bulk, ids[rnd() % n]), 0);
        seen_ids_free(&one);
        seen_ids_free(&bulk);
    }
    free(ids);
    free(rest);
}

static void test_heap_equals_stored(void **state)
{
    (void)state;
    enum { N = 4000, R = 300 };
    uint64_t *ids = malloc(N * sizeof *ids), *types = malloc(N * sizeof *types);
    uint64_t *sizes = malloc(N * sizeof *sizes), roots[R];
    assert_non_null(ids);
    assert_non_null(types);
    assert_non_null(sizes);
    for (int round = 0; round < 30; round++) {
        size_t n = rnd() % N, turn = round % 3 == 0 ? n : rnd() % (n + 1);
        make_stream(ids, n, turn, 40);
        for (size_t i = 0; i < n; i++) {
            types[i] = 1 + rnd() % 6; /* 4, 5, 6 undeclared */
            sizes[i] = rnd() % 100;
        }
        for (size_t k = 0; k < R; k++)
            roots[k] = n && k % 2 ? ids[rnd() % n] : rnd() % (40 * N);
        size_t nroots = round % 5 == 0 ? 0 : R;
        gch_dump *hd = build(ids, types, sizes, n, roots, nroots, 1);
        gch_dump *sd = build(ids, types, sizes, n, roots, nroots, 0);
        const gch_heap *h = hd->heaps[0], *s = sd->heaps[0];
        assert_true(h->histogram_only);
        assert_false(s->histogram_only);
        assert_int_equal(h->object_count, 0);
        assert_int_equal(h->type_count, s->type_count);
        for (uint32_t t = 0; t < s->type_count; t++) {
            assert_int_equal(h->type_objects[t], s->type_objects[t]);
            assert_int_equal(h->type_bytes[t], s->type_bytes[t]);
        }
        assert_int_equal(h->total_size, s->total_size);
        assert_memory_equal(&h->anomalies, &s->anomalies, sizeof h->anomalies);
        gch_dump_free(hd);
        gch_dump_free(sd);
    }
    free(ids);
    free(types);
    free(sizes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_against_brute_force),
        cmocka_unit_test(test_append_equals_add),
        cmocka_unit_test(test_heap_equals_stored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
