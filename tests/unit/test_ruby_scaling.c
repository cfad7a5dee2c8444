/* Scaling of the Ruby reader (slow): 4x the input must cost under 8x the
 * processor time, the fastest of three runs each (quadratic work costs 16x;
 * at 4n the tables outgrow a 512 KiB L2: CI measured 6.7x on a quiet
 * machine), on shapes that would turn quadratic in a careless reader: every object of its own unnamed
 * class at the end of a long superclass chain (naming walks at most 64
 * links), every object with its own allocation site, a ROOT line naming
 * every object twice, one object holding every other, every String with a
 * value. Each result is checked too (counts, names), so a fast wrong answer
 * fails. Never an absolute time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gcheap/load.h"
#include "heap_check.h"

#define N 40000

typedef struct buf {
    char *s;
    size_t len, cap;
} buf;

static void add(buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = b->cap ? b->cap * 2 : 1 << 20;
        b->s = realloc(b->s, b->cap);
        assert_non_null(b->s);
    }
}

/* n objects; n classes, class i's superclass class i-1, only class 0
 * named; object i of class i, allocated at its own line, a String with a
 * value; object 0 (an Array) holds all the others; a ROOT names each twice. */
static buf make(size_t n)
{
    buf b = { 0 };
    add(&b, "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[");
    for (size_t i = 0; i < 2 * n; i++)
        add(&b, "%s\"0x%zx\"", i ? ", " : "", 0x100000 + 0x28 * (i % n));
    add(&b, "]}\n{\"address\":\"0x100000\", \"type\":\"ARRAY\", \"references\":[");
    for (size_t i = 1; i < n; i++)
        add(&b, "%s\"0x%zx\"", i > 1 ? ", " : "", 0x100000 + 0x28 * i);
    add(&b, "], \"memsize\":40}\n");
    for (size_t i = 1; i < n; i++)
        add(&b, "{\"address\":\"0x%zx\", \"type\":\"STRING\", \"class\":\"0x%zx\", \"value\":\"v%zu\\n\", "
                "\"file\":\"f.rb\", \"line\":%zu, \"memsize\":40}\n",
            0x100000 + 0x28 * i, 0x10000000 + 0x28 * i, i, i);
    for (size_t i = 0; i < n; i++) {
        add(&b, "{\"address\":\"0x%zx\", \"type\":\"CLASS\"", 0x10000000 + 0x28 * i);
        if (i)
            add(&b, ", \"superclass\":\"0x%zx\"", 0x10000000 + 0x28 * (i - 1));
        else
            add(&b, ", \"name\":\"Base\"");
        add(&b, ", \"memsize\":100}\n");
    }
    return b;
}

static double load_once(const buf *b, size_t n)
{
    gch_load_options o = { 0 };
    o.keep_payloads = 1;
    o.threads = 1; /* processor time of one thread: no waiting on a second */
    gch_dump *d = NULL;
    gch_error err;
    clock_t t0 = clock();
    gch_status st = gch_load_buffer(b->s, b->len, GCH_FORMAT_AUTO, &o, &d, &err);
    clock_t t1 = clock();
    if (st != GCH_OK)
        fail_msg("load failed: %s", err.message);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 2 * n);
    assert_int_equal(h->root_count, n);
    assert_int_equal(h->payload_count, n - 1);
    assert_non_null(h->object_site);
    /* within 64 links of class 0: Base, else the kind's name */
    for (size_t i = 1; i < n; i += n / 64)
        assert_string_equal(gch_type_name(h, h->object_type[i]), i <= 64 ? "Base" : "String");
    char site[32];
    snprintf(site, sizeof site, "f.rb:%zu", n / 2);
    assert_string_equal(gch_heap_string(h, h->object_site[n / 2]), site);
    gch_dump_free(d);
    return (double)(t1 - t0) / CLOCKS_PER_SEC;
}

static double fastest(const buf *b, size_t n)
{
    double best = 1e30;
    for (int k = 0; k < 3; k++) {
        double t = load_once(b, n);
        if (t < best)
            best = t;
    }
    return best;
}

static void test_growth(void **state)
{
    (void)state;
    buf small = make(N), big = make(4 * N);
    double ts = fastest(&small, N), tb = fastest(&big, 4 * N);
    printf("# n=%d: %.3f s, 4n: %.3f s, ratio %.2f\n", N, ts, tb, tb / (ts > 1e-6 ? ts : 1e-6));
    if (tb > 8 * ts + 0.05)
        fail_msg("4x the input took %.1fx the time (%.3f s against %.3f s)", tb / ts, tb, ts);
    free(small.s);
    free(big.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
