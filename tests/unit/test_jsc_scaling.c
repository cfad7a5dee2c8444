/* Growth of the JavaScriptCore reader's load time over four sizes n, 2n,
 * 4n, 8n of shapes that could make it superlinear: an ordinary graph (a
 * tree under one global, ids increasing); the same with ids in decreasing
 * order and edges unsorted (the id sort and the placing of edges per node);
 * one node with every edge (a star); a chain as long as the snapshot (the
 * reachability walk, which must not recurse); ids spread out (the sort
 * and binary search instead of the table by id). Each time is the fastest of
 * three, the sizes taken in turn. 8n must cost under 24 times n (linear
 * gives 8, n log n a little more, and tables that outgrow the caches add to
 * it: the ordinary tree measures 11-15 on a loaded 2-core machine;
 * quadratic gives 64), and each other shape's growth must stay under 1.5
 * times the tree's, measured in the same run. Each load is checked for
 * what it must find, so a fast wrong answer fails too. Label: slow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "flood.h"

enum { TREE, REVERSED, STAR, CHAIN, SPARSE, SHAPES };
static const char *const shape_name[] = { "tree", "reversed ids, unsorted edges", "star", "chain", "sparse ids" };
#define BASE 125000

typedef struct text {
    char *s;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = t->cap ? t->cap * 2 : 1 << 20;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
}

/* The id of node k (1..n): k, or spread out (the sort and search path). */
static size_t idmap(int shape, size_t k)
{
    return shape == SPARSE ? k * 1009 : k;
}

/* n nodes besides <root>; node ids 1..n (REVERSED: n..1 in file order). */
static char *make(int shape, size_t n, size_t *len)
{
    text t = { 0 };
    put(&t, "{\"version\":3,\"type\":\"Inspector\",\"nodes\":[0,0,0,0");
    for (size_t i = 1; i <= n; i++) {
        size_t id = shape == REVERSED ? n + 1 - i : i;
        put(&t, ",%zu,%u,%u,%u", idmap(shape, id), 16 + (unsigned)(id % 5) * 8, id == 1 ? 1u : 2u, 0u);
    }
    put(&t, "],\"nodeClassNames\":[\"<root>\",\"GlobalObject\",\"Leaky\"],\"edges\":[0,%zu,0,0", idmap(shape, 1));
    for (size_t k = 2; k <= n; k++) {
        size_t from = shape == STAR ? 1 : shape == CHAIN ? k - 1 : k / 2;
        size_t to = k;
        if (shape == REVERSED) { /* the edges in reverse order of their from ids */
            to = n + 2 - k;
            from = to / 2;
        }
        put(&t, ",%zu,%zu,%u,%zu", idmap(shape, from), idmap(shape, to), 2u, k);
    }
    put(&t, "],\"edgeTypes\":[\"Internal\",\"Property\",\"Index\",\"Variable\"],\"edgeNames\":[]}");
    *len = t.len;
    return t.s;
}

typedef struct series {
    int shape;
    char *text[4];
    size_t len[4], n[4];
} series;

static void load_one(void *ctx, int k)
{
    series *s = ctx;
    gch_dump *d = NULL;
    gch_error err;
    gch_load_options o = { 0 };
    o.threads = 1; /* one thread: the time measured is the work, not the scheduling */
    assert_int_equal(gch_load_buffer(s->text[k], s->len[k], GCH_FORMAT_AUTO, &o, &d, &err), GCH_OK);
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, s->n[k]);
    assert_int_equal(h->ref_count, s->n[k] - 1);
    assert_int_equal(h->root_count, 1); /* <root> -> the GlobalObject; every node reached */
    gch_dump_free(d);
}

static void test_growth(void **state)
{
    (void)state;
    double tree_growth = 0;
    for (int shape = 0; shape < SHAPES; shape++) {
        series s = { .shape = shape };
        for (int k = 0; k < 4; k++) {
            s.n[k] = (size_t)BASE << k;
            s.text[k] = make(shape, s.n[k], &s.len[k]);
        }
        double t[4] = { 0 };
        for (int run = 0; run < 3; run++)
            for (int k = 0; k < 4; k++) {
                double x = flood_time(load_one, &s, k);
                if (run == 0 || x < t[k])
                    t[k] = x;
            }
        printf("# %s: n %.4f s, 2n %.4f s, 4n %.4f s, 8n %.4f s (8n/n x%.2f)\n", shape_name[shape], t[0], t[1],
               t[2], t[3], t[3] / t[0]);
        double growth = t[3] / t[0];
        if (shape == TREE)
            tree_growth = growth;
        if (growth >= 24 || (shape != TREE && growth >= 1.5 * tree_growth))
            fail_msg("%s: 8x the input took %.1fx the time (the tree: %.1fx)", shape_name[shape], growth,
                     tree_growth);
        for (int k = 0; k < 4; k++)
            free(s.text[k]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_growth) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
