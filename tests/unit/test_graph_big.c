/* Big shapes for the graph algorithms: a 10,000,000-object chain, a root
 * holding 1,000,000 children, and chains with back edges that make path
 * compression walk millions of ancestors. Checks idom/retained at chosen
 * positions and reports the peak memory of gch_domtree_build.
 *
 * Usage: test_graph_big [cmocka test-name filter], e.g. `test_graph_big
 * test_chain_10m` to time one shape. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "graph_heap.h"

/* A chain 0 -> 1 -> ... -> n-1 with a root on 0 and sizes 1 + i % 3. */
static gch_dump *chain_dump(uint32_t n)
{
    gch_dump *d = th_dump_new(n, 3, 1, n - 1);
    gch_heap *h = d->heaps[0];
    for (uint32_t i = 0; i < n; i++) {
        h->out_start[i + 1] = i + 1 < n ? i + 1 : n - 1;
        if (i + 1 < n)
            h->out_target[i] = i + 1;
        h->object_size32[i] = 1 + i % 3;
        h->object_type[i] = i % 3;
        h->total_size += gch_object_size(h, i);
    }
    h->root_object[0] = 0;
    return d;
}

static void test_chain_10m(void **state)
{
    (void)state;
    const uint32_t n = 10000000;
    th_alloc_install(-1);
    gch_dump *d = chain_dump(n);
    const gch_heap *h = d->heaps[0];
    const size_t heap_bytes = th_alloc_live_bytes();
    size_t base = heap_bytes;
    /* Without children lists first (what `top` builds), kept to compare. */
    th_alloc_reset_peak();
    gch_domtree lite;
    gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
    opts.children = 0;
    assert_int_equal(gch_domtree_build_ex(h, &opts, &lite, NULL), GCH_OK);
    size_t peak = th_alloc_peak_bytes() - base, result = th_alloc_live_bytes() - base;
    print_message("10M chain: gch_domtree_build_ex without children peak %.1f bytes/object "
                  "above the heap (result %.1f)\n",
                  (double)peak / n, (double)result / n);
    /* dominators.h: 28 bytes/object (no cross edges here), 12 kept. */
    assert_true(peak <= (size_t)n * 28 + 4096);
    assert_true(result <= (size_t)n * 12 + 4096);
    base = th_alloc_live_bytes();
    th_alloc_reset_peak();
    gch_domtree t;
    assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
    peak = th_alloc_peak_bytes() - base, result = th_alloc_live_bytes() - base;
    print_message("10M chain: gch_domtree_build peak %.1f bytes/object above the heap "
                  "(result %.1f, heap %.1f)\n",
                  (double)peak / n, (double)result / n, (double)heap_bytes / n);
    /* dominators.h: 32 bytes/object, 20 kept. */
    assert_true(peak <= (size_t)n * 32 + 4096);
    assert_true(result <= (size_t)n * 20 + 4096);
    assert_memory_equal(lite.idom, t.idom, (size_t)n * sizeof *t.idom);
    assert_memory_equal(lite.retained, t.retained, (size_t)n * sizeof *t.retained);
    assert_int_equal(lite.live_bytes, t.live_bytes);
    gch_domtree_free(&lite);

    assert_int_equal(t.live_count, n);
    assert_int_equal(t.live_bytes, h->total_size);
    assert_int_equal(t.idom[0], GCH_DOM_VROOT);
    assert_int_equal(t.retained[0], h->total_size);
    /* retained[i] = sum of sizes i..n-1, checked at a few positions. */
    const uint32_t at[] = { 1, 2, 4999999, 5000000, n - 2, n - 1 };
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        uint32_t i = at[k];
        uint64_t want = 0;
        for (uint32_t j = i; j < n; j++)
            want += 1 + j % 3;
        assert_int_equal(t.idom[i], i - 1);
        assert_int_equal(t.retained[i], want);
        uint32_t cnt;
        const uint32_t *ch = gch_domtree_children(&t, i - 1, &cnt);
        assert_int_equal(cnt, 1);
        assert_int_equal(ch[0], i);
    }
    /* Types: the three chain heads are topmost; everything is retained by type 0. */
    uint64_t per[3];
    assert_int_equal(gch_type_retained(h, &t, per, NULL), GCH_OK);
    assert_int_equal(per[0], h->total_size);
    assert_int_equal(per[1], h->total_size - 1);
    assert_int_equal(per[2], h->total_size - 3);
    gch_domtree_free(&t);
    gch_dump_free(d);
    assert_int_equal(th_alloc_live_blocks(), 0);
    th_alloc_uninstall();
}

/* 1M objects, each holding the next and two others spread over the whole
 * heap: ~2M cross and back edges, the predecessor stage's case. The build in
 * preorder (what `top` does) peaks at 24 bytes/object (pre, vert, parent,
 * the forest, pstart) plus the room for the recorded edges, 8 bytes per edge
 * that is not a DFS tree edge (the entries actually written, 4 bytes an edge
 * plus 4 a source, are what is touched of it): no second count array for the
 * two-thread half and no predecessor array beside pre[] (the predecessors
 * take its memory). One thread and two give the same tree. */
static void test_cross_edges_1m(void **state)
{
    (void)state;
    const uint32_t n = 1000000;
    const size_t m = 3 * (size_t)n - 1;
    th_alloc_install(-1);
    gch_dump *d = th_dump_new(n, 2, 1, m);
    gch_heap *h = d->heaps[0];
    size_t e = 0;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        h->out_start[i] = (uint32_t)e;
        if (i + 1 < n)
            h->out_target[e++] = i + 1;
        h->out_target[e++] = (uint32_t)(((uint64_t)i * 7919 + 13) % n);
        h->out_target[e++] = (uint32_t)(((uint64_t)i * 104729 + 7) % n);
        h->object_size32[i] = 1 + i % 5;
        total += 1 + i % 5;
    }
    h->out_start[n] = (uint32_t)e;
    assert_int_equal(e, m);
    h->ref_count = m;
    h->root_object[0] = 0;
    gch_domtree t[2];
    for (unsigned threads = 1; threads <= 2; threads++) {
        size_t base = th_alloc_live_bytes();
        th_alloc_reset_peak();
        gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
        opts.children = 0;
        opts.preorder_only = 1;
        opts.threads = threads;
        assert_int_equal(gch_domtree_build_ex(h, &opts, &t[threads - 1], NULL), GCH_OK);
        size_t peak = th_alloc_peak_bytes() - base;
        const gch_domtree *r = &t[threads - 1];
        print_message("1M objects, 3M references, %u thread%s: preorder build peak %.1f "
                      "bytes/object above the heap\n",
                      threads, threads > 1 ? "s" : "", (double)peak / n);
        assert_int_equal(r->live_count, n);
        assert_int_equal(r->live_bytes, total);
        /* One DFS start (the root): n - 1 tree edges. */
        size_t non_tree = m - (n - 1);
        assert_true(peak <= 24 * ((size_t)n + 2) + 8 * non_tree + 4096);
    }
    assert_memory_equal(t[0].preorder, t[1].preorder, (size_t)n * sizeof *t[0].preorder);
    assert_memory_equal(t[0].preorder_retained, t[1].preorder_retained,
                        (size_t)n * sizeof *t[0].preorder_retained);
    gch_domtree_free(&t[0]);
    gch_domtree_free(&t[1]);
    gch_dump_free(d);
    assert_int_equal(th_alloc_live_blocks(), 0);
    th_alloc_uninstall();
}

/* Object 0 (root, 5 bytes) holds M children c = 1..M (sizes 1 + c % 97);
 * child c holds grandchild g(c) = M + c (10 bytes); children with c % 1000 == 1
 * also hold g(c+1), which then has two holders and is dominated by 0. */
static void test_wide_1m(void **state)
{
    (void)state;
    const uint32_t M = 1000000, n = 2 * M + 1;
    size_t m = 2 * (size_t)M + M / 1000;
    for (int rev = 0; rev <= 1; rev++) {
        th_alloc_install(-1);
        gch_dump *d = th_dump_new(n, 2, 2, m);
        gch_heap *h = d->heaps[0];
        uint32_t e = 0;
        h->out_start[0] = 0;
        for (uint32_t c = 1; c <= M; c++)
            h->out_target[e++] = c;
        h->out_start[1] = e;
        for (uint32_t c = 1; c <= M; c++) {
            h->out_target[e++] = M + c;
            if (c % 1000 == 1 && c < M)
                h->out_target[e++] = M + c + 1;
            h->out_start[c + 1] = e;
        }
        for (uint32_t i = M + 1; i < n; i++)
            h->out_start[i + 1] = e;
        h->ref_count = e;
        h->object_size32[0] = 5;
        for (uint32_t c = 1; c <= M; c++) {
            h->object_size32[c] = 1 + c % 97;
            h->object_size32[M + c] = 10;
            h->object_type[M + c] = 1;
        }
        h->root_object[0] = 0;
        h->root_object[1] = 0; /* a duplicate root */
        if (rev)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        size_t base = th_alloc_live_bytes();
        th_alloc_reset_peak();
        gch_domtree t;
        assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
        size_t peak = th_alloc_peak_bytes() - base;
        print_message("1M children (%s): peak %.1f bytes/object above the heap\n",
                      rev ? "heap reverse index" : "private predecessors", (double)peak / n);
        uint64_t total = 5;
        for (uint32_t c = 1; c <= M; c++)
            total += 1 + c % 97 + 10;
        assert_int_equal(t.live_count, n);
        assert_int_equal(t.retained[0], total);
        assert_int_equal(t.idom[1], 0);
        assert_int_equal(t.idom[M], 0);
        assert_int_equal(t.idom[M + 1], 1);
        assert_int_equal(t.idom[M + 2], 0);   /* held by 1 and 2 */
        assert_int_equal(t.idom[M + 1002], 0); /* held by 1001 and 1002 */
        assert_int_equal(t.idom[M + 1003], 1003);
        assert_int_equal(t.retained[2], 1 + 2 % 97);
        assert_int_equal(t.retained[3], 1 + 3 % 97 + 10);
        uint32_t cnt;
        const uint32_t *ch = gch_domtree_children(&t, 0, &cnt);
        assert_int_equal(cnt, M + M / 1000);
        /* Sorted, biggest first: the first is the lowest c with c % 97 == 96 and
         * its own grandchild (c % 1000 != 2): c = 96, 107 bytes. */
        assert_int_equal(ch[0], 96);
        assert_int_equal(t.retained[96], 107);
        for (uint32_t k = 1; k < cnt; k++) {
            uint64_t a = t.retained[ch[k - 1]], b = t.retained[ch[k]];
            assert_true(a > b || (a == b && ch[k - 1] < ch[k]));
        }
        uint64_t per[2];
        assert_int_equal(gch_type_retained(h, &t, per, NULL), GCH_OK);
        assert_int_equal(per[0], total);
        assert_int_equal(per[1], 10ull * M);
        gch_domtree_free(&t);
        gch_dump_free(d);
        assert_int_equal(th_alloc_live_blocks(), 0);
        th_alloc_uninstall();
    }
}

/* Chains of 2,000,000 whose back edges force long path compressions: every
 * object also references the head (first variant) or the object at half its
 * index (second). Back edges to ancestors do not change a chain's dominators. */
static void test_back_edges(void **state)
{
    (void)state;
    const uint32_t n = 2000000;
    for (int variant = 0; variant < 2; variant++) {
        gch_dump *d = th_dump_new(n, 1, 1, 2 * (size_t)n);
        gch_heap *h = d->heaps[0];
        uint32_t e = 0;
        for (uint32_t i = 0; i < n; i++) {
            h->out_start[i] = e;
            if (i + 1 < n)
                h->out_target[e++] = i + 1;
            h->out_target[e++] = variant == 0 ? 0 : i / 2;
            h->object_size32[i] = 1;
        }
        h->out_start[n] = e;
        h->ref_count = e;
        h->root_object[0] = 0;
        if (variant)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        gch_domtree t;
        assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
        const uint32_t at[] = { 1, 2, 3, 1000, n / 2, n - 1 };
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
            assert_int_equal(t.idom[at[k]], at[k] - 1);
            assert_int_equal(t.retained[at[k]], n - at[k]);
        }
        gch_domtree_free(&t);
        gch_dump_free(d);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_10m),
        cmocka_unit_test(test_wide_1m),
        cmocka_unit_test(test_cross_edges_1m),
        cmocka_unit_test(test_back_edges),
    };
    if (argc > 1)
        cmocka_set_test_filter(argv[1]);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
