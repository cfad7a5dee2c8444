/* The sorted-id directory (src/id_index.c): every bucket start and every
 * lookup against a brute-force search, with the directory filled by one
 * thread and by two, dense and sparse, on clustered and spread ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "graph_heap.h"
#include "id_index.h"
#include "tuning.h"

static uint64_t rng_state = 12345;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Index of id in ids[0..n), or UINT32_MAX: a plain linear scan. */
static uint32_t brute_find(const uint64_t *ids, uint32_t n, uint64_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] == id)
            return i;
    return UINT32_MAX;
}

/* Strictly increasing ids: steps of 8..8+spread, with a few big gaps. */
static uint64_t *make_ids(uint32_t n, uint64_t start, uint64_t spread)
{
    uint64_t *ids = malloc((n ? n : 1) * sizeof *ids);
    assert_non_null(ids);
    uint64_t v = start;
    for (uint32_t i = 0; i < n; i++) {
        ids[i] = v;
        v += 8 + rnd() % (spread + 1);
        if (rnd() % 50 == 0)
            v += rnd() % 100000;
    }
    return ids;
}

static unsigned forms_seen; /* 1: directory, 2: rank form */

/* The rank form's bits and counts against the ids: bit (id - min) >> shift
 * set for each id and no other, base and before[] counted one by one. */
static void check_rank(const id_index *ix, const uint64_t *ids, uint32_t n)
{
    uint64_t lines = ((ix->max - ix->min) >> ix->shift) / ID_RANK_BITS + 1;
    assert_int_equal((uintptr_t)ix->rank % 64, 0);
    uint32_t i = 0; /* the first id at or after the current bit */
    for (uint64_t l = 0; l < lines; l++) {
        assert_int_equal(ix->rank[l].base, i);
        for (unsigned k = 0; k < ID_RANK_WORDS; k++) {
            assert_int_equal(ix->rank[l].base + ix->rank[l].before[k], i);
            for (unsigned bit = 0; bit < 64; bit++) {
                uint64_t p = l * ID_RANK_BITS + k * 64 + bit;
                int want = i < n && ((ids[i] - ix->min) >> ix->shift) == p;
                assert_int_equal((ix->rank[l].word[k] >> bit) & 1, want);
                if (want) {
                    assert_int_equal((ids[i] - ix->min) & ((1ull << ix->shift) - 1), 0);
                    i++;
                }
            }
        }
    }
    assert_int_equal(i, n);
}

static void check_index(const uint64_t *ids, uint32_t n, uint64_t lookups)
{
    id_index ix;
    gch_error err;
    gch_parallel par = gch_parallel_for(0); /* the knobs the test set */
    assert_int_equal(id_index_build(&ix, ids, n, lookups, &par, &err), GCH_OK);
    forms_seen |= ix.rank ? 2 : 1;
    if (ix.rank)
        check_rank(&ix, ids, n);
    /* first[b] is the first id whose bucket is b or later. */
    for (uint32_t b = 0; !ix.rank && b <= ix.bucket_count; b++) {
        uint32_t want = 0;
        while (want < n && ((ids[want] - ix.min) >> ix.shift) < b)
            want++;
        assert_int_equal(ix.first[b], want);
    }
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(id_index_find(&ix, ids[i]), i);
        assert_int_equal(id_index_find_near(&ix, (uint32_t)(rnd() % n), ids[i]), i);
    }
    for (int k = 0; k < 200 && n; k++) {
        uint64_t probe = ids[rnd() % n] + rnd() % 20 - 10;
        uint32_t want = brute_find(ids, n, probe);
        assert_int_equal(id_index_find(&ix, probe), want);
        assert_int_equal(id_index_find_near(&ix, (uint32_t)(rnd() % n), probe), want);
    }
    assert_int_equal(id_index_find(&ix, 0), brute_find(ids, n, 0));
    assert_int_equal(id_index_find(&ix, UINT64_MAX), brute_find(ids, n, UINT64_MAX));
    id_index_free(&ix);
}

static void run_shapes(void)
{
    static const uint32_t sizes[] = { 1, 2, 3, 5, 17, 64, 100, 1000, 5000 };
    static const uint64_t spreads[] = { 0, 8, 1000, 1ull << 40 };
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t p = 0; p < sizeof spreads / sizeof *spreads; p++) {
            uint32_t n = sizes[s];
            uint64_t start = p == 3 ? 1 : 0x2000000 + rnd() % 4096;
            uint64_t *ids = make_ids(n, start, spreads[p]);
            /* Dense (one bucket per id), few lookups (sparse), none. */
            check_index(ids, n, n);
            check_index(ids, n, n / 40 + 1);
            check_index(ids, n, 0);
            /* Aligned ids (addresses): dense enough for the rank form. */
            for (uint32_t i = 0; i < n; i++)
                ids[i] = (ids[i] - ids[0]) * 16 + 0x10000008;
            check_index(ids, n, n);
            free(ids);
        }
    /* Ids spanning the whole 64-bit range: the directory, never a bitmap
     * sized by a wrapped count. */
    static const uint64_t wide[][3] = { { 0, 1, UINT64_MAX }, { 0, 8, UINT64_MAX - 7 } };
    for (size_t w = 0; w < 2; w++)
        for (uint32_t n = 2; n <= 3; n++)
            check_index(n == 2 ? (const uint64_t[]){ wide[w][0], wide[w][2] } : wide[w], n, n);
    /* Ids 8 apart: a full rank bitmap, every word of every line set. */
    uint64_t *ids = make_ids(4000, 0, 0);
    for (uint32_t i = 0; i < 4000; i++)
        ids[i] = 0x7f00000000ull + 8 * (uint64_t)i;
    check_index(ids, 4000, 4000);
    free(ids);
}

static void test_one_thread(void **state)
{
    (void)state;
    gch_tuning t = gch_tuning_get();
    t.parallel_min_refs = SIZE_MAX;
    gch_internal_set_tuning(&t);
    forms_seen = 0;
    run_shapes();
    assert_int_equal(forms_seen, 3); /* both forms were built */
    gch_internal_set_tuning(NULL);
}

static void test_two_threads(void **state)
{
    (void)state;
    gch_tuning t = gch_tuning_get();
    t.parallel_min_refs = 1;
    t.default_workers = 2; /* even on a one-processor machine */
    gch_internal_set_tuning(&t);
    forms_seen = 0;
    run_shapes();
    assert_int_equal(forms_seen, 3);
    gch_internal_set_tuning(NULL);
}

static void test_out_of_memory(void **state)
{
    (void)state;
    uint64_t *ids = make_ids(100, 64, 8);
    th_alloc_install(0);
    id_index ix;
    gch_error err;
    gch_parallel par = gch_parallel_for(0);
    assert_int_equal(id_index_build(&ix, ids, 100, 100, &par, &err), GCH_ENOMEM);
    assert_int_equal(th_alloc_live_blocks(), 0);
    th_alloc_uninstall();
    /* The rank form's allocation too (ids 8 apart). */
    for (uint32_t i = 0; i < 100; i++)
        ids[i] = 64 + 8 * (uint64_t)i;
    th_alloc_install(0);
    assert_int_equal(id_index_build(&ix, ids, 100, 100, &par, &err), GCH_ENOMEM);
    assert_int_equal(th_alloc_live_blocks(), 0);
    th_alloc_uninstall();
    assert_int_equal(id_index_build(&ix, ids, 100, 100, &par, &err), GCH_OK);
    assert_non_null(ix.rank);
    id_index_free(&ix);
    free(ids);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_two_threads),
        cmocka_unit_test(test_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
