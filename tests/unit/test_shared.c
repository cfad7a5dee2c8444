/* The library's one-of-each helpers, against brute force: the binary search
 * (src/util/search.h) against a linear scan, the top-k heap (gcheap/topk.h)
 * against a full sort, the table growth rule and builder (hash.h) by finding
 * every entry again, the UTF-8 encoder (gcheap/utf8.h) against the bytes of
 * RFC 3629's table written out by hand, the error at an offset, the 64-bit
 * map (u64_map.h) against a list searched from end to end, and the radix sort
 * (radix_sort.h) against insertion sort (stable by construction). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/error.h"
#include "gcheap/topk.h"
#include "gcheap/utf8.h"
#include "hash.h"
#include "radix_sort.h"
#include "search.h"
#include "u64_map.h"

static uint32_t rnd(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 33);
}

typedef struct rec {
    uint32_t pad;
    uint64_t id;
} rec;

static void test_lower_bound(void **state)
{
    (void)state;
    uint64_t s = 7;
    for (int round = 0; round < 200; round++) {
        size_t n = rnd(&s) % 40;
        uint32_t a[40];
        rec r[40];
        for (size_t i = 0; i < n; i++)
            a[i] = (i ? a[i - 1] : 0) + rnd(&s) % 3; /* with repeats */
        for (size_t i = 0; i < n; i++)
            r[i] = (rec){ 0, (uint64_t)a[i] << 33 };
        for (uint32_t key = 0; key <= (n ? a[n - 1] + 1 : 1); key++) {
            size_t want = 0;
            while (want < n && a[want] < key)
                want++;
            assert_int_equal(GCH_LOWER_BOUND(a, 0, n, key), want);
            assert_int_equal(GCH_LOWER_BOUND_BY(r, rec, id, 0, n, (uint64_t)key << 33), want);
        }
    }
    assert_int_equal(GCH_LOWER_BOUND((const uint64_t *)NULL, 0, 0, 5), 0);
}

static int before_desc(const void *ctx, uint32_t a, uint32_t b)
{
    const uint32_t *v = ctx;
    return v[a] != v[b] ? v[a] > v[b] : a < b;
}

/* Ties the other way: a later candidate beats the worst kept of its value
 * (as `top`'s object order may). */
static int before_desc_late(const void *ctx, uint32_t a, uint32_t b)
{
    const uint32_t *v = ctx;
    return v[a] != v[b] ? v[a] > v[b] : a > b;
}

static const uint32_t *sort_vals;
static int cmp_rank(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return before_desc(sort_vals, a, b) ? -1 : before_desc(sort_vals, b, a) ? 1 : 0;
}

static void test_top_k(void **state)
{
    (void)state;
    uint64_t s = 11;
    for (int round = 0; round < 100; round++) {
        uint32_t n = rnd(&s) % 300;
        size_t k = round < 3 ? 0 : rnd(&s) % 50; /* none kept: nothing read */
        uint32_t *v = malloc((n + 1) * sizeof *v), *all = malloc((n + 1) * sizeof *all);
        uint32_t best[50];
        for (uint32_t i = 0; i < n; i++) {
            v[i] = rnd(&s) % 20; /* many ties */
            all[i] = i;
        }
        sort_vals = v;
        qsort(all, n, sizeof *all, cmp_rank);
        size_t got = gch_top_k(n, k, before_desc, v, best);
        assert_int_equal(got, k < n ? k : n);
        /* With the keys' shortcut: the same heap, then the same order. */
        uint64_t *key = malloc((n + 1) * sizeof *key);
        uint32_t keyed[50];
        for (uint32_t i = 0; i < n; i++)
            key[i] = v[i];
        assert_int_equal(gch_top_k_keyed(n, k, key, before_desc, v, keyed), got);
        assert_memory_equal(keyed, best, got * sizeof *best);
        uint32_t late[50], late_keyed[50];
        size_t nl = gch_top_k(n, k, before_desc_late, v, late);
        assert_int_equal(gch_top_k_keyed(n, k, key, before_desc_late, v, late_keyed), nl);
        assert_memory_equal(late_keyed, late, nl * sizeof *late);
        free(key);
        gch_top_k_sort(best, got, before_desc, v);
        assert_memory_equal(best, all, got * sizeof *best);
        free(v);
        free(all);
    }
}

static uint64_t hash_of(const void *ctx, uint32_t e)
{
    const uint64_t *keys = ctx;
    return keys[e] & 0xf; /* weak on purpose: long probe runs */
}

static void test_table(void **state)
{
    (void)state;
    uint64_t keys[300];
    for (int bias = 0; bias <= 1; bias++) {
        uint32_t *slots = NULL;
        size_t nslots = 0;
        for (uint32_t used = 0; used < 300; used++) {
            keys[used] = used * 7919u;
            if (gch_table_grows(used, nslots))
                assert_true(gch_table_grow(&slots, &nslots, 8, used, (uint32_t)bias, hash_of, keys));
            assert_true((used + 1) * 2 <= nslots);   /* at most half full */
            assert_true((nslots & (nslots - 1)) == 0); /* a power of two */
            size_t i = hash_of(keys, used) & (nslots - 1);
            while (slots[i] != (uint32_t)bias - 1)
                i = (i + 1) & (nslots - 1);
            slots[i] = used + (uint32_t)bias;
        }
        for (uint32_t e = 0; e < 300; e++) { /* every entry found by probing */
            size_t i = hash_of(keys, e) & (nslots - 1);
            while (slots[i] != e + (uint32_t)bias) {
                assert_true(slots[i] != (uint32_t)bias - 1);
                i = (i + 1) & (nslots - 1);
            }
        }
        free(slots);
    }
}

static void test_utf8(void **state)
{
    (void)state;
    static const struct {
        uint32_t cp;
        const char *bytes;
    } cases[] = {
        { 0x00, "" }, { 0x41, "A" }, { 0x7f, "\x7f" }, { 0x80, "\xc2\x80" }, { 0xe9, "\xc3\xa9" },
        { 0x7ff, "\xdf\xbf" }, { 0x800, "\xe0\xa0\x80" }, { 0x20ac, "\xe2\x82\xac" },
        { 0xfffd, "\xef\xbf\xbd" }, { 0xffff, "\xef\xbf\xbf" }, { 0x10000, "\xf0\x90\x80\x80" },
        { 0x1f600, "\xf0\x9f\x98\x80" }, { 0x10ffff, "\xf4\x8f\xbf\xbf" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned char out[4];
        size_t n = gch_utf8_encode(cases[i].cp, out);
        size_t want = cases[i].cp ? strlen(cases[i].bytes) : 1;
        assert_int_equal(n, want);
        assert_memory_equal(out, cases[i].cp ? cases[i].bytes : "\0", want);
    }
}

static void test_error_at(void **state)
{
    (void)state;
    gch_error err;
    gch_error_clear(&err);
    assert_int_equal(gch_error_at(&err, 1234, "bad %s\x01", "tag"), GCH_EFORMAT);
    assert_int_equal(err.status, GCH_EFORMAT);
    assert_true(err.has_offset);
    assert_int_equal(err.offset, 1234);
    assert_string_equal(err.message, "bad tag?"); /* control bytes made inert */
    assert_int_equal(gch_error_at(NULL, 1, "x"), GCH_EFORMAT);
}

/* Keys that test the map's corners: 0 (its own slot), all ones, and runs
 * sharing their high bits (addresses); values set through put's pointer. */
static void test_u64_map(void **state)
{
    (void)state;
    enum { N = 3000 };
    static uint64_t keys[N];
    static uint32_t vals[N];
    size_t n = 0;
    uint64_t s = 5;
    gch_u64_map m = { 0 };
    assert_int_equal(gch_u64_map_get(&m, 0), UINT32_MAX); /* a zeroed map is empty */
    assert_int_equal(gch_u64_map_get(&m, 9), UINT32_MAX);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++) {
            uint32_t pick = rnd(&s) % 8;
            uint64_t k = pick == 0   ? 0
                         : pick == 1 ? UINT64_MAX
                         : pick < 5  ? 0x7f0000000000ULL + 8 * (rnd(&s) % 1000)
                                     : (uint64_t)rnd(&s) << 32 | rnd(&s);
            uint32_t v = rnd(&s) % 0xFFFFFF;
            size_t at = 0; /* the oracle: a list searched from end to end */
            while (at < n && keys[at] != k)
                at++;
            int found;
            uint32_t *held = gch_u64_map_put(&m, k, v, &found);
            assert_non_null(held);
            assert_int_equal(found, at < n);
            if (at == n) {
                keys[n] = k;
                vals[n++] = v;
            }
            assert_int_equal(*held, vals[at]);
            if (pick == 3) { /* change it in place, as the Ruby reader's root bits do */
                *held ^= 0x55;
                vals[at] ^= 0x55;
            }
        }
        assert_int_equal(m.count + (size_t)m.has_zero, n);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(gch_u64_map_get(&m, keys[i]), vals[i]);
        for (int i = 0; i < 200; i++) { /* absent keys */
            uint64_t k = 0x100000000ULL * (rnd(&s) | 1) + 3;
            size_t at = 0;
            while (at < n && keys[at] != k)
                at++;
            if (at == n)
                assert_int_equal(gch_u64_map_get(&m, k), UINT32_MAX);
        }
        gch_u64_map_free(&m); /* and empty again for the second round */
        assert_int_equal(gch_u64_map_get(&m, keys[0]), UINT32_MAX);
        n = 0;
    }
}

/* Random keys of a few distinct values (many ties: stability shows) and
 * shared high bytes (the skipped digits), against insertion sort. */
static void test_radix_sort(void **state)
{
    (void)state;
    uint64_t s = 3;
    for (int round = 0; round < 300; round++) {
        size_t n = rnd(&s) % 500;
        uint64_t *key = malloc((n + 1) * sizeof *key), *tmp = malloc((n + 1) * sizeof *tmp);
        uint64_t *want = malloc((n + 1) * sizeof *want), *plain = malloc((n + 1) * sizeof *plain);
        uint32_t *val = malloc((n + 1) * sizeof *val), *vtmp = malloc((n + 1) * sizeof *vtmp);
        uint32_t *wval = malloc((n + 1) * sizeof *wval);
        uint64_t high = round % 3 == 0 ? 0 : (uint64_t)rnd(&s) << 40;
        uint32_t spread = round % 2 ? 7 : 0xFFFFFFFF;
        for (size_t i = 0; i < n; i++) {
            uint64_t k = high | (uint64_t)(rnd(&s) % spread) << (round % 5 * 6);
            if (round % 7 == 0)
                k = (uint64_t)rnd(&s) << 32 | rnd(&s);
            key[i] = plain[i] = k;
            val[i] = (uint32_t)i;
            size_t j = i; /* insertion: after every equal key */
            while (j > 0 && want[j - 1] > k) {
                want[j] = want[j - 1];
                wval[j] = wval[j - 1];
                j--;
            }
            want[j] = k;
            wval[j] = (uint32_t)i;
        }
        gch_radix_sort_u64(key, val, n, tmp, vtmp);
        gch_radix_sort_u64(plain, NULL, n, tmp, NULL);
        if (n) {
            assert_memory_equal(key, want, n * sizeof *key);
            assert_memory_equal(val, wval, n * sizeof *val);
            assert_memory_equal(plain, want, n * sizeof *plain);
        }
        free(key);
        free(tmp);
        free(want);
        free(plain);
        free(val);
        free(vtmp);
        free(wval);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lower_bound), cmocka_unit_test(test_top_k),
        cmocka_unit_test(test_table),       cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_error_at),    cmocka_unit_test(test_u64_map),
        cmocka_unit_test(test_radix_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
