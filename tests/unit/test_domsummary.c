/* The dominator tree in preorder with preorder_idom, retained sizes by type
 * from it, and the bounded summary (gch_dom_summary_build): every result
 * checked against the full tree (idom and children by object, built by the
 * other code path) and against a brute-force ranking of all live objects, on
 * thousands of random graphs; a 2,000,000-object chain and a root with
 * 1,000,000 children for the iterative walks; allocation failure at every
 * allocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/domsummary.h"
#include "gcheap/graph.h"
#include "graph_heap.h"

static gch_status build_preorder(const gch_heap *h, int weak, gch_domtree *t)
{
    gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
    opts.include_weak = weak;
    opts.children = 0;
    opts.preorder_only = 1;
    opts.preorder_idom = 1;
    return gch_domtree_build_ex(h, &opts, t, NULL);
}

/* Checks the preorder tree pt against the full tree ft of the same heap:
 * preorder_idom names, at a smaller position, the object that ft says is the
 * immediate dominator. Returns pos_of (position of each object, GCH_NONE
 * when not live; malloc'd). */
static uint32_t *check_preorder_idom(const gch_heap *h, const gch_domtree *ft, const gch_domtree *pt)
{
    const uint32_t n = h->object_count, N = (uint32_t)pt->live_count;
    assert_int_equal(N, ft->live_count);
    assert_non_null(pt->preorder_idom);
    uint32_t *pos_of = malloc(((size_t)n + 1) * sizeof *pos_of);
    for (uint32_t o = 0; o < n; o++)
        pos_of[o] = GCH_NONE;
    for (uint32_t i = 0; i < N; i++)
        pos_of[pt->preorder[i]] = i;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t o = pt->preorder[i], d = pt->preorder_idom[i];
        assert_int_equal(pt->preorder_retained[i], ft->retained[o]);
        if (ft->idom[o] == GCH_DOM_VROOT) {
            assert_int_equal(d, GCH_DOM_VROOT);
        } else {
            assert_true(d < i);
            assert_int_equal(pt->preorder[d], ft->idom[o]);
        }
    }
    return pos_of;
}

/* Rank order of two live objects, restated from domsummary.h. */
static const uint64_t *g_ret;
static const uint32_t *g_pos;
static int by_rank(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (g_ret[x] != g_ret[y])
        return g_ret[x] > g_ret[y] ? -1 : 1;
    return g_pos[x] < g_pos[y] ? -1 : g_pos[x] > g_pos[y];
}

/* Checks summary s of max_objects against the full tree ft: the kept objects
 * are exactly the best max_objects by rank (sorted brute force); each kept
 * node's parent is its immediate dominator; each merged node stands for the
 * not-kept children of its parent (count and bytes summed from ft's
 * children lists); every node's retained size is its own size plus its
 * children's in the summary. */
static void check_summary(const gch_heap *h, const gch_domtree *ft, const uint32_t *pos_of,
                          const gch_dom_summary *s, uint32_t max_objects)
{
    const uint32_t n = h->object_count, N = (uint32_t)ft->live_count;
    uint32_t *live = malloc(((size_t)N + 1) * sizeof *live), L = 0;
    for (uint32_t o = 0; o < n; o++)
        if (ft->idom[o] != GCH_NONE)
            live[L++] = o;
    assert_int_equal(L, N);
    g_ret = ft->retained;
    g_pos = pos_of;
    qsort(live, L, sizeof *live, by_rank);
    const uint32_t K = max_objects < N ? max_objects : N;
    assert_int_equal(s->kept_count, K);
    assert_true(s->node_count <= 2 * (uint64_t)max_objects + 2);
    uint32_t *node_of = malloc(((size_t)n + 1) * sizeof *node_of);
    for (uint32_t o = 0; o < n; o++)
        node_of[o] = GCH_NONE;
    for (uint32_t k = 1; k <= K; k++) {
        assert_int_not_equal(s->object[k], GCH_NONE);
        node_of[s->object[k]] = k;
        assert_int_equal(s->merged[k], 0);
    }
    for (uint32_t r = 0; r < L; r++)
        assert_int_equal(node_of[live[r]] != GCH_NONE, r < K);
    assert_int_equal(s->parent[0], GCH_NONE);
    assert_int_equal(s->object[0], GCH_NONE);
    assert_int_equal(s->retained[0], ft->live_bytes);
    uint64_t *child_sum = calloc((size_t)s->node_count + 1, sizeof *child_sum);
    uint32_t *merged_node = malloc(((size_t)s->node_count + 1) * sizeof *merged_node);
    for (uint32_t k = 0; k < s->node_count; k++)
        merged_node[k] = GCH_NONE;
    for (uint32_t k = 1; k < s->node_count; k++) {
        uint32_t p = s->parent[k];
        assert_true(p < k);
        assert_int_equal(s->object[p] == GCH_NONE && p != 0, 0); /* merged nodes are leaves */
        child_sum[p] += s->retained[k];
        if (k <= K) {
            uint32_t o = s->object[k], d = ft->idom[o];
            assert_int_equal(s->retained[k], ft->retained[o]);
            assert_int_equal(p, d == GCH_DOM_VROOT ? 0 : node_of[d]);
        } else {
            assert_int_equal(s->object[k], GCH_NONE);
            assert_true(s->merged[k] > 0);
            assert_int_equal(merged_node[p], GCH_NONE); /* one per parent */
            merged_node[p] = k;
        }
    }
    for (uint32_t k = 0; k <= K; k++) {
        uint32_t o = s->object[k], cnt;
        const uint32_t *ch = gch_domtree_children(ft, k ? o : GCH_DOM_VROOT, &cnt);
        uint64_t mb = 0, mc = 0;
        for (uint32_t c = 0; c < cnt; c++)
            if (node_of[ch[c]] == GCH_NONE) {
                mb += ft->retained[ch[c]];
                mc++;
            }
        uint32_t m = merged_node[k];
        assert_int_equal(m == GCH_NONE ? 0 : s->merged[m], mc);
        assert_int_equal(m == GCH_NONE ? 0 : s->retained[m], mb);
        uint64_t own = k ? gch_object_size(h, o) : 0;
        assert_int_equal(s->retained[k], own + child_sum[k]);
    }
    free(child_sum);
    free(merged_node);
    free(node_of);
    free(live);
}

static void check_type_retained(const gch_heap *h, const gch_domtree *ft, const gch_domtree *pt)
{
    size_t types = h->type_count ? h->type_count : 1;
    uint64_t *a = malloc(types * sizeof *a), *b = malloc(types * sizeof *b);
    assert_int_equal(gch_type_retained(h, ft, a, NULL), GCH_OK);
    memset(b, 0x5a, types * sizeof *b);
    assert_int_equal(gch_type_retained(h, pt, b, NULL), GCH_OK);
    assert_memory_equal(a, b, h->type_count * sizeof *a);
    free(a);
    free(b);
}

static void test_random_against_full(void **state)
{
    (void)state;
    th_rng rng = { 4242 };
    static const uint32_t limits[] = { 0, 1, 2, 3, 5, 8, 50, 100000 };
    for (int g = 0; g < 1500; g++) {
        gch_dump *d = th_random_dump(&rng, g % 50 == 0 ? 3000 : g % 7 == 0 ? 300 : 30);
        gch_heap *h = d->heaps[0];
        for (int weak = 0; weak <= 1; weak++) {
            gch_domtree ft, pt;
            assert_int_equal(gch_domtree_build(h, weak, &ft, NULL), GCH_OK);
            assert_int_equal(build_preorder(h, weak, &pt), GCH_OK);
            assert_int_equal(pt.live_bytes, ft.live_bytes);
            uint32_t *pos_of = check_preorder_idom(h, &ft, &pt);
            check_type_retained(h, &ft, &pt);
            for (size_t l = 0; l < sizeof limits / sizeof *limits; l++) {
                gch_dom_summary s;
                assert_int_equal(gch_dom_summary_build(&pt, limits[l], &s, NULL), GCH_OK);
                check_summary(h, &ft, pos_of, &s, limits[l]);
                gch_dom_summary_free(&s);
                assert_null(s.parent);
            }
            free(pos_of);
            gch_domtree_free(&ft);
            gch_domtree_free(&pt);
            assert_null(pt.preorder_idom);
        }
        gch_dump_free(d);
    }
}

/* preorder_idom without preorder_only, and a summary of a tree without
 * preorder_idom, are refused. */
static void test_refusals(void **state)
{
    (void)state;
    th_rng rng = { 7 };
    gch_dump *d = th_random_dump(&rng, 20);
    gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
    opts.children = 0;
    opts.preorder_idom = 1;
    gch_domtree t;
    gch_error err;
    gch_error_clear(&err);
    assert_int_equal(gch_domtree_build_ex(d->heaps[0], &opts, &t, &err), GCH_EINVAL);
    assert_null(t.preorder);
    opts.preorder_idom = 0;
    opts.preorder_only = 1;
    assert_int_equal(gch_domtree_build_ex(d->heaps[0], &opts, &t, NULL), GCH_OK);
    assert_null(t.preorder_idom);
    gch_dom_summary s;
    assert_int_equal(gch_dom_summary_build(&t, 10, &s, &err), GCH_EINVAL);
    assert_null(s.parent);
    uint64_t per[8];
    assert_int_equal(gch_type_retained(d->heaps[0], &t, per, NULL), GCH_EINVAL);
    gch_domtree_free(&t);
    gch_dump_free(d);
}

/* A 2,000,000-object chain (object i of type i % 3 holds i + 1): the summary
 * keeps the first 1000 links (they retain the most), each the parent of the
 * next, and merges the rest of the chain into one node under link 999; the
 * type walk in preorder keeps a 2,000,000-deep path without recursion. */
static void test_long_chain(void **state)
{
    (void)state;
    const uint32_t n = 2000000;
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
    gch_domtree pt;
    assert_int_equal(build_preorder(h, 0, &pt), GCH_OK);
    gch_dom_summary s;
    assert_int_equal(gch_dom_summary_build(&pt, 1000, &s, NULL), GCH_OK);
    assert_int_equal(s.node_count, 1002);
    uint64_t suffix = h->total_size;
    for (uint32_t k = 1; k <= 1000; k++) {
        assert_int_equal(s.object[k], k - 1);
        assert_int_equal(s.parent[k], k - 1);
        assert_int_equal(s.retained[k], suffix);
        suffix -= gch_object_size(h, k - 1);
    }
    assert_int_equal(s.parent[1001], 1000);
    assert_int_equal(s.merged[1001], 1);
    assert_int_equal(s.retained[1001], suffix);
    gch_dom_summary_free(&s);
    /* Types: the first instance of each type is topmost and retains the
     * rest of the chain from it on. */
    uint64_t per[3];
    assert_int_equal(gch_type_retained(h, &pt, per, NULL), GCH_OK);
    assert_int_equal(per[0], h->total_size);
    assert_int_equal(per[1], h->total_size - 1);
    assert_int_equal(per[2], h->total_size - 1 - 2);
    gch_domtree_free(&pt);
    gch_dump_free(d);
}

/* A root holding 1,000,000 leaves of sizes 1..1,000,000 (object i + 1 has
 * size i + 1): the summary keeps the root and the 99 biggest leaves and
 * merges the 999,901 others, whose sizes add up to 1 + ... + 999,901. */
static void test_wide_root(void **state)
{
    (void)state;
    const uint32_t leaves = 1000000, n = leaves + 1;
    gch_dump *d = th_dump_new(n, 2, 1, leaves);
    gch_heap *h = d->heaps[0];
    h->out_start[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        h->out_start[i + 1] = leaves;
        h->object_type[i] = i ? 1 : 0;
        h->object_size32[i] = i;
        h->total_size += i;
    }
    for (uint32_t i = 0; i < leaves; i++)
        h->out_target[i] = i + 1;
    h->root_object[0] = 0;
    gch_domtree pt;
    assert_int_equal(build_preorder(h, 0, &pt), GCH_OK);
    gch_dom_summary s;
    assert_int_equal(gch_dom_summary_build(&pt, 100, &s, NULL), GCH_OK);
    assert_int_equal(s.kept_count, 100);
    assert_int_equal(s.node_count, 102);
    assert_int_equal(s.object[1], 0);
    uint64_t kept_leaves = 0;
    for (uint32_t k = 2; k <= 100; k++) {
        assert_true(s.object[k] > leaves - 99);
        assert_int_equal(s.parent[k], 1);
        kept_leaves += s.retained[k];
    }
    const uint64_t m = leaves - 99;
    assert_int_equal(kept_leaves, (uint64_t)leaves * (leaves + 1) / 2 - m * (m + 1) / 2);
    assert_int_equal(s.parent[101], 1);
    assert_int_equal(s.merged[101], m);
    assert_int_equal(s.retained[101], m * (m + 1) / 2);
    gch_dom_summary_free(&s);
    gch_domtree_free(&pt);
    gch_dump_free(d);
}

/* Every allocation of the summary and of the type walk fails once in turn:
 * GCH_ENOMEM, the summary zeroed, nothing left allocated. */
static void test_alloc_failure(void **state)
{
    (void)state;
    th_rng rng = { 99 };
    gch_dump *d = th_random_dump(&rng, 200);
    gch_heap *h = d->heaps[0];
    gch_domtree pt;
    assert_int_equal(build_preorder(h, 1, &pt), GCH_OK);
    uint64_t *per = malloc((h->type_count + 1) * sizeof *per);
    for (long fail = 0;; fail++) {
        th_alloc_install(fail);
        gch_dom_summary s;
        gch_status st = gch_dom_summary_build(&pt, 5, &s, NULL);
        gch_status st2 = gch_type_retained(h, &pt, per, NULL);
        long calls = th_alloc_calls();
        if (st == GCH_OK)
            gch_dom_summary_free(&s);
        else
            assert_null(s.parent);
        assert_int_equal(th_alloc_live_blocks(), 0);
        th_alloc_uninstall();
        assert_true(st == GCH_OK || st == GCH_ENOMEM);
        assert_true(st2 == GCH_OK || st2 == GCH_ENOMEM);
        if (fail >= calls)
            break;
    }
    free(per);
    gch_domtree_free(&pt);
    gch_dump_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_against_full),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_long_chain),
        cmocka_unit_test(test_wide_root),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
