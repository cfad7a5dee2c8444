/* The library's one-of-each helpers, against brute force: the binary search
 * (src/util/search.h) against a linear scan, the top-k heap (gcheap/topk.h)
 * against a full sort, the table growth rule and builder (hash.h) by finding
 * every entry again, the UTF-8 encoder (gcheap/utf8.h) against the bytes of
 * RFC 3629's table written out by hand, and the error at an offset. */
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
#include "search.h"

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
        size_t k = rnd(&s) % 50;
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lower_bound), cmocka_unit_test(test_top_k),
        cmocka_unit_test(test_table),       cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_error_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
