/* The loaded heap (gcheap/analysis.h): what it hands out equals what the
 * builders give when called directly (the oracle), each structure is built
 * once per heap and view however many questions use it, the id lookup finds
 * what a linear scan finds, and every allocation failing in turn gives
 * GCH_ENOMEM, leaves nothing allocated and the analysis usable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/graph.h"
#include "gcheap/leaks.h"
#include "graph_heap.h"
#include "threading.h"
#include "tuning.h"

static void same_u32(const uint32_t *a, const uint32_t *b, size_t n)
{
    if (n)
        assert_memory_equal(a, b, n * sizeof *a);
}

static void same_u64(const uint64_t *a, const uint64_t *b, size_t n)
{
    if (n)
        assert_memory_equal(a, b, n * sizeof *a);
}

/* One heap, both views: the analysis's trees (whole, and each part set
 * alone) against direct builds. */
static void check_views(gch_heap *h, int whole)
{
    gch_analysis *an;
    gch_analysis_options opt;
    memset(&opt, 0, sizeof opt);
    opt.keep_whole_trees = whole;
    opt.threads = 1;
    assert_int_equal(gch_analysis_of_heap(h, &opt, &an, NULL), GCH_OK);
    const uint32_t n = h->object_count;
    for (int weak = 0; weak < 2; weak++) {
        gch_domtree full, pre;
        gch_domtree_options d = GCH_DOMTREE_OPTIONS_INIT;
        d.include_weak = weak;
        assert_int_equal(gch_domtree_build_ex(h, &d, &full, NULL), GCH_OK);
        d.children = 0;
        d.preorder_only = 1;
        d.preorder_idom = 1;
        assert_int_equal(gch_domtree_build_ex(h, &d, &pre, NULL), GCH_OK);
        const gch_domtree *t;
        /* preorder first, then by object: in the lean mode the second
         * request builds again with both; whole builds once. */
        assert_int_equal(gch_analysis_domtree(an, h, weak, GCH_TREE_PREORDER_IDOM, &t, NULL), GCH_OK);
        assert_int_equal(t->live_count, pre.live_count);
        same_u32(t->preorder, pre.preorder, (size_t)pre.live_count);
        same_u64(t->preorder_retained, pre.preorder_retained, (size_t)pre.live_count);
        same_u32(t->preorder_idom, pre.preorder_idom, (size_t)pre.live_count);
        assert_int_equal(gch_analysis_domtree(an, h, weak, GCH_TREE_CHILDREN, &t, NULL), GCH_OK);
        same_u32(t->idom, full.idom, n);
        same_u64(t->retained, full.retained, n);
        same_u32(t->child_start, full.child_start, (size_t)n + 2);
        same_u32(t->children, full.children, (size_t)full.live_count);
        assert_int_equal(t->live_bytes, full.live_bytes);
        /* and the preorder arrays kept beside them (keep_preorder) */
        same_u32(t->preorder, pre.preorder, (size_t)pre.live_count);
        same_u64(t->preorder_retained, pre.preorder_retained, (size_t)pre.live_count);
        same_u32(t->preorder_idom, pre.preorder_idom, (size_t)pre.live_count);
        /* asked again, any part: no new build */
        unsigned long builds = gch_analysis_count(an, GCH_STEP_DOMTREE);
        for (unsigned parts = 1; parts < 16; parts++)
            assert_int_equal(gch_analysis_domtree(an, h, weak, parts, &t, NULL), GCH_OK);
        assert_int_equal(gch_analysis_count(an, GCH_STEP_DOMTREE), builds);

        uint64_t *tr = calloc(h->type_count, sizeof *tr);
        assert_int_equal(gch_type_retained(h, &full, tr, NULL), GCH_OK);
        const uint64_t *atr;
        assert_int_equal(gch_analysis_type_retained(an, h, weak, &atr, NULL), GCH_OK);
        same_u64(atr, tr, h->type_count);
        free(tr);

        gch_paths p;
        assert_int_equal(gch_paths_build(h, weak, &p, NULL), GCH_OK);
        const gch_paths *ap;
        assert_int_equal(gch_analysis_paths(an, h, weak, &ap, NULL), GCH_OK);
        same_u32(ap->parent, p.parent, n);
        assert_int_equal(ap->root_object_count, p.root_object_count);
        gch_paths_free(&p);

        uint8_t *mask;
        uint64_t lc, lb, alc, alb;
        assert_int_equal(gch_live_set(h, weak, &mask, &lc, &lb, NULL), GCH_OK);
        const uint8_t *amask;
        assert_int_equal(gch_analysis_live(an, h, weak, &amask, &alc, &alb, NULL), GCH_OK);
        assert_int_equal(alc, lc);
        assert_int_equal(alb, lb);
        if (n)
            assert_memory_equal(amask, mask, n);
        gch_free(mask);
        gch_domtree_free(&full);
        gch_domtree_free(&pre);
    }
    /* Each structure once per view, whatever was asked twice. */
    assert_int_equal(gch_analysis_count(an, GCH_STEP_DOMTREE), whole ? 2 : 4);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_PATHS), 2);
    const gch_paths *ap;
    assert_int_equal(gch_analysis_paths(an, h, 0, &ap, NULL), GCH_OK);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_PATHS), 2);
    /* find: what a linear scan finds, and nothing for absent ids */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t o;
        assert_int_equal(gch_analysis_find(an, h, h->object_id[i], &o, NULL), GCH_OK);
        assert_int_equal(o, gch_heap_find_object(h, h->object_id[i]));
    }
    uint32_t o;
    assert_int_equal(gch_analysis_find(an, h, UINT64_MAX, &o, NULL), GCH_OK);
    assert_int_equal(o, GCH_NONE);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_LOOKUP), n > 0);
    assert_true(gch_analysis_memory(an) > 0);
    gch_analysis_free(an);
}

static void random_heaps(void **state)
{
    (void)state;
    th_rng r = { 0x9e3779b97f4a7c15u };
    for (int k = 0; k < 200; k++) {
        gch_dump *d = th_random_dump(&r, 60);
        gch_heap *h = d->heaps[0];
        /* ids in a shuffled order half of the time: the sorted index */
        if (k % 2)
            for (uint32_t i = 0; i < h->object_count; i++)
                h->object_id[i] = (uint64_t)((i * 7919u) % 100003u) + 1;
        check_views(h, k % 4 < 2);
        gch_dump_free(d);
    }
}

/* The dominator tree and the path tree at once (gcheap report), with the
 * path tree's search on a second thread: both equal direct builds, each is
 * built once, and asking again builds nothing. Also with one thread (one
 * after the other) and with the path tree already there. */
static void domtree_and_paths_at_once(void **state)
{
    (void)state;
    th_rng r = { 0x2545f4914f6cdd1du };
    for (int k = 0; k < 60; k++) {
        gch_dump *d = th_random_dump(&r, 80 + 40 * (k % 5));
        gch_heap *h = d->heaps[0];
        const uint32_t n = h->object_count;
        gch_analysis *an;
        gch_analysis_options opt;
        memset(&opt, 0, sizeof opt);
        opt.threads = k % 3 ? 2 : 1;
        assert_int_equal(gch_analysis_of_heap(h, &opt, &an, NULL), GCH_OK);
        int weak = k % 2;
        const gch_paths *early = NULL;
        if (k % 6 == 5) /* the paths first: then only the tree is built */
            assert_int_equal(gch_analysis_paths(an, h, weak, &early, NULL), GCH_OK);
        const gch_domtree *t;
        const gch_paths *ap;
        assert_int_equal(gch_analysis_domtree_and_paths(an, h, weak, GCH_TREE_PREORDER_IDOM, &t, &ap, NULL),
                         GCH_OK);
        gch_domtree pre;
        gch_domtree_options o = GCH_DOMTREE_OPTIONS_INIT;
        o.include_weak = weak;
        o.children = 0;
        o.preorder_only = 1;
        o.preorder_idom = 1;
        assert_int_equal(gch_domtree_build_ex(h, &o, &pre, NULL), GCH_OK);
        assert_int_equal(t->live_count, pre.live_count);
        same_u32(t->preorder, pre.preorder, (size_t)pre.live_count);
        same_u64(t->preorder_retained, pre.preorder_retained, (size_t)pre.live_count);
        same_u32(t->preorder_idom, pre.preorder_idom, (size_t)pre.live_count);
        gch_paths p;
        assert_int_equal(gch_paths_build(h, weak, &p, NULL), GCH_OK);
        same_u32(ap->parent, p.parent, n);
        assert_int_equal(ap->root_object_count, p.root_object_count);
        same_u32(ap->root_objects, p.root_objects, p.root_object_count);
        same_u32(ap->root_records, p.root_records, p.root_object_count);
        if (early)
            assert_ptr_equal(ap, early);
        gch_paths_free(&p);
        gch_domtree_free(&pre);
        assert_int_equal(gch_analysis_count(an, GCH_STEP_DOMTREE), 1);
        assert_int_equal(gch_analysis_count(an, GCH_STEP_PATHS), 1);
        assert_int_equal(gch_analysis_domtree_and_paths(an, h, weak, GCH_TREE_PREORDER, &t, &ap, NULL), GCH_OK);
        assert_int_equal(gch_analysis_count(an, GCH_STEP_DOMTREE), 1);
        assert_int_equal(gch_analysis_count(an, GCH_STEP_PATHS), 1);
        gch_analysis_free(an);
        gch_dump_free(d);
    }
}

/* `report --suspects` in the one-shot program (lean trees): the report's
 * tree in preorder, the retained sizes by type, then the suspects, all from
 * one build (it built two before the loaded heap); and the suspects equal
 * those of gch_suspects_find, which builds its own. */
static void report_suspects_one_tree(void **state)
{
    (void)state;
    th_rng r = { 77 };
    for (int k = 0; k < 50; k++) {
        gch_dump *d = th_random_dump(&r, 60);
        gch_heap *h = d->heaps[0];
        gch_analysis *an;
        assert_int_equal(gch_analysis_of_heap(h, NULL, &an, NULL), GCH_OK);
        const gch_domtree *t;
        const uint64_t *tr;
        assert_int_equal(gch_analysis_domtree(an, h, 0, GCH_TREE_PREORDER_IDOM, &t, NULL), GCH_OK);
        assert_int_equal(gch_analysis_type_retained(an, h, 0, &tr, NULL), GCH_OK);
        gch_suspects_options o = GCH_SUSPECTS_OPTIONS_INIT;
        o.threshold = 1;
        gch_suspects a, b;
        assert_int_equal(gch_suspects_find_in(an, h, &o, &a, NULL), GCH_OK);
        assert_int_equal(gch_analysis_count(an, GCH_STEP_DOMTREE), 1);
        assert_int_equal(gch_suspects_find(h, &o, &b, NULL), GCH_OK);
        assert_int_equal(a.count, b.count);
        assert_int_equal(a.live_bytes, b.live_bytes);
        for (size_t i = 0; i < a.count; i++) {
            assert_int_equal(a.items[i].object, b.items[i].object);
            assert_int_equal(a.items[i].retained, b.items[i].retained);
            assert_int_equal(a.items[i].accumulation, b.items[i].accumulation);
            assert_int_equal(a.items[i].path_len, b.items[i].path_len);
        }
        gch_suspects_free(&a);
        gch_suspects_free(&b);
        gch_analysis_free(an);
        gch_dump_free(d);
    }
}

/* The questions a session asks, in turn; returns the first failure. */
static gch_status ask_all(gch_analysis *an, gch_heap *h)
{
    const gch_domtree *t;
    const uint64_t *tr;
    const gch_paths *p;
    const uint8_t *live;
    uint32_t o;
    gch_status st;
    for (int weak = 0; weak < 2; weak++) {
        if ((st = gch_analysis_live(an, h, weak, NULL, NULL, NULL, NULL)) != GCH_OK ||
            (st = gch_analysis_domtree_and_paths(an, h, weak, GCH_TREE_PREORDER_IDOM, &t, &p, NULL)) != GCH_OK ||
            (st = gch_analysis_domtree(an, h, weak, GCH_TREE_PREORDER, &t, NULL)) != GCH_OK ||
            (st = gch_analysis_domtree(an, h, weak, GCH_TREE_CHILDREN, &t, NULL)) != GCH_OK ||
            (st = gch_analysis_type_retained(an, h, weak, &tr, NULL)) != GCH_OK ||
            (st = gch_analysis_paths(an, h, weak, &p, NULL)) != GCH_OK ||
            (st = gch_analysis_live(an, h, weak, &live, NULL, NULL, NULL)) != GCH_OK)
            return st;
    }
    if ((st = gch_analysis_reverse(an, h, NULL)) != GCH_OK ||
        (st = gch_analysis_find(an, h, h->object_id[0], &o, NULL)) != GCH_OK)
        return st;
    return GCH_OK;
}

/* Every allocation of making the analysis and answering every question fails
 * in turn: GCH_ENOMEM, the analysis stays usable (asking again without
 * failures gives the results of a run without any) and nothing leaks. */
static void alloc_failure(void **state)
{
    (void)state;
    th_rng r = { 12345 };
    gch_dump *d = th_random_dump(&r, 80);
    gch_heap *h = d->heaps[0];
    for (uint32_t i = 0; i < h->object_count; i++) /* unsorted ids: the sorted index too */
        h->object_id[i] = (uint64_t)((i * 7919u) % 100003u) + 1;
    for (int whole = 0; whole < 2; whole++) {
        long fail = 0;
        for (;; fail++) {
            gch_analysis_options o;
            memset(&o, 0, sizeof o);
            o.keep_whole_trees = whole;
            o.threads = 1;
            th_alloc_install(fail);
            gch_analysis *an = NULL;
            gch_status st = gch_analysis_of_heap(h, &o, &an, NULL);
            if (st == GCH_OK)
                st = ask_all(an, h);
            long calls = th_alloc_calls();
            if (st != GCH_OK) {
                assert_int_equal(st, GCH_ENOMEM);
                if (an) /* usable after the failure */
                    assert_int_equal(ask_all(an, h), GCH_OK);
            }
            gch_analysis_free(an);
            /* the reverse index belongs to the heap: free it between runs */
            gch_free(h->in_start);
            gch_free(h->in_source);
            h->in_start = h->in_source = NULL;
            size_t live = th_alloc_live_blocks();
            th_alloc_uninstall();
            assert_int_equal(live, 0);
            if (st == GCH_OK && fail >= calls)
                break;
        }
        assert_true(fail > 10);
    }
    gch_dump_free(d);
}

/* The reverse index is the heap's: drop it between analyses of one heap. */
static void drop_reverse(gch_heap *h)
{
    gch_free(h->in_start);
    gch_free(h->in_source);
    h->in_start = h->in_source = NULL;
}

/* What gch_views_ready reported: per view (a slot each, as two callbacks
 * may run at once on two threads), and the reverse references. */
typedef struct heard {
    int reverse, trees[2], paths[2];
    const uint32_t *preorder[2], *parent[2], *dist[2];
    const uint8_t *depth[2];
    uint64_t live[2];
} heard;

static void heard_reverse(void *ctx, const gch_heap *h)
{
    heard *r = ctx;
    assert_non_null(h->in_start); /* built before it is reported */
    r->reverse++;
}

static void heard_tree(void *ctx, const gch_heap *h, int view, const gch_domtree *tree)
{
    heard *r = ctx;
    (void)h;
    r->trees[view]++;
    r->preorder[view] = tree->preorder;
    r->live[view] = tree->live_count;
}

static void heard_paths(void *ctx, const gch_heap *h, int view, const gch_paths *paths,
                        const uint8_t *depth, const uint32_t *dist)
{
    heard *r = ctx;
    (void)h;
    r->paths[view]++;
    r->parent[view] = paths->parent;
    r->depth[view] = depth;
    r->dist[view] = dist;
}

/* gch_analysis_build_views on one and on two threads against the builders
 * called directly, one at a time: the trees, the path trees, their depths
 * (against a walk of the parents), the distances, and the reverse index
 * (against the edges listed by target); each built once. Through
 * gch_analysis_build_views_then: each part reported once, with the very
 * arrays the analysis then gives; asked again, nothing is built nor
 * reported. */
static void check_build_views(gch_heap *h, unsigned threads)
{
    const uint32_t n = h->object_count;
    gch_analysis *an;
    gch_analysis_options opt;
    memset(&opt, 0, sizeof opt);
    opt.threads = threads;
    assert_int_equal(gch_analysis_of_heap(h, &opt, &an, NULL), GCH_OK);
    heard r;
    memset(&r, 0, sizeof r);
    gch_views_ready ready = { heard_reverse, heard_tree, heard_paths, &r };
    assert_int_equal(gch_analysis_build_views_then(an, h, 2, GCH_TREE_PREORDER_IDOM, &ready, NULL),
                     GCH_OK);
    assert_int_equal(r.reverse, 1);
    for (int weak = 0; weak < 2; weak++) {
        gch_domtree pre;
        gch_domtree_options d = GCH_DOMTREE_OPTIONS_INIT;
        d.include_weak = weak;
        d.children = 0;
        d.preorder_only = 1;
        d.preorder_idom = 1;
        d.threads = 1;
        assert_int_equal(gch_domtree_build_ex(h, &d, &pre, NULL), GCH_OK);
        const gch_domtree *t;
        assert_int_equal(gch_analysis_domtree(an, h, weak, GCH_TREE_PREORDER_IDOM, &t, NULL), GCH_OK);
        assert_int_equal(t->live_count, pre.live_count);
        assert_int_equal(t->live_bytes, pre.live_bytes);
        same_u32(t->preorder, pre.preorder, (size_t)pre.live_count);
        same_u32(t->preorder_idom, pre.preorder_idom, (size_t)pre.live_count);
        same_u64(t->preorder_retained, pre.preorder_retained, (size_t)pre.live_count);
        gch_domtree_free(&pre);
        gch_paths p;
        assert_int_equal(gch_paths_build(h, weak, &p, NULL), GCH_OK);
        const gch_paths *ap;
        const uint8_t *depth;
        const uint32_t *dist;
        uint32_t *bfs;
        assert_int_equal(gch_analysis_paths(an, h, weak, &ap, NULL), GCH_OK);
        assert_int_equal(gch_analysis_path_depths(an, h, weak, &depth, NULL), GCH_OK);
        assert_int_equal(gch_analysis_distance(an, h, weak, &dist, NULL), GCH_OK);
        assert_int_equal(gch_root_distance(h, weak, &bfs, NULL), GCH_OK);
        same_u32(ap->parent, p.parent, n);
        assert_int_equal(ap->root_object_count, p.root_object_count);
        same_u32(ap->root_objects, p.root_objects, p.root_object_count);
        same_u32(ap->root_records, p.root_records, p.root_object_count);
        same_u32(dist, bfs, n);
        assert_int_equal(r.trees[weak], 1);
        assert_int_equal(r.paths[weak], 1);
        assert_ptr_equal(r.preorder[weak], t->preorder);
        assert_int_equal(r.live[weak], t->live_count);
        assert_ptr_equal(r.parent[weak], ap->parent);
        assert_ptr_equal(r.depth[weak], depth);
        assert_ptr_equal(r.dist[weak], dist);
        for (uint32_t o = 0; o < n; o++) {
            uint32_t walked = gch_paths_depth(&p, o);
            assert_int_equal(depth[o], walked < 255 ? walked : 255);
        }
        gch_free(bfs);
        gch_paths_free(&p);
    }
    assert_non_null(h->in_start);
    for (uint32_t t = 0, k = 0; t < n; t++) {
        assert_int_equal(h->in_start[t], k);
        for (uint32_t s = 0; s < n; s++)
            for (uint32_t e = h->out_start[s]; e < h->out_start[s + 1]; e++)
                if (h->out_target[e] == t)
                    assert_int_equal(h->in_source[k++], s);
        assert_int_equal(h->in_start[t + 1], k);
    }
    assert_int_equal(gch_analysis_count(an, GCH_STEP_DOMTREE), 2);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_PATHS), 2);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_DISTANCE), 2);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_REVERSE), 1);
    /* asked again: nothing more is built, nor reported */
    assert_int_equal(gch_analysis_build_views_then(an, h, 2, GCH_TREE_PREORDER_IDOM, &ready, NULL),
                     GCH_OK);
    assert_int_equal(r.reverse + r.trees[0] + r.trees[1] + r.paths[0] + r.paths[1], 5);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_DOMTREE), 2);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_PATHS), 2);
    gch_analysis_free(an);
    drop_reverse(h);
}

static void build_views(void **state)
{
    (void)state;
    gch_tuning k = gch_tuning_get();
    k.parallel_min_refs = 0; /* two threads however small the heap */
    gch_internal_set_tuning(&k);
    th_rng r = { 0x51ab1e5eedULL };
    uint64_t threads_before = gch_internal_threads_created();
    for (int g = 0; g < 150; g++) {
        gch_dump *d = th_random_dump(&r, g < 140 ? 60 : 400);
        check_build_views(d->heaps[0], 1);
        check_build_views(d->heaps[0], 2);
        gch_dump_free(d);
    }
    /* the two-thread runs did start threads */
    assert_true(gch_internal_threads_created() > threads_before);
    gch_internal_set_tuning(NULL);
}

/* Every allocation of gch_analysis_build_views failing in turn (one thread,
 * so that the order of the allocations is fixed): GCH_ENOMEM, nothing leaks,
 * and the analysis then builds what failed. */
static void build_views_alloc_failure(void **state)
{
    (void)state;
    th_rng r = { 4242 };
    gch_dump *d = th_random_dump(&r, 80);
    gch_heap *h = d->heaps[0];
    long fail = 0;
    for (;; fail++) {
        gch_analysis_options o;
        memset(&o, 0, sizeof o);
        o.threads = 1;
        th_alloc_install(fail);
        gch_analysis *an = NULL;
        gch_status st = gch_analysis_of_heap(h, &o, &an, NULL);
        if (st == GCH_OK)
            st = gch_analysis_build_views(an, h, 2, GCH_TREE_PREORDER_IDOM, NULL);
        long calls = th_alloc_calls();
        if (st != GCH_OK) {
            assert_int_equal(st, GCH_ENOMEM);
            if (an)
                assert_int_equal(gch_analysis_build_views(an, h, 2, GCH_TREE_PREORDER_IDOM, NULL),
                                 GCH_OK);
        }
        gch_analysis_free(an);
        drop_reverse(h);
        size_t live = th_alloc_live_blocks();
        th_alloc_uninstall();
        assert_int_equal(live, 0);
        if (st == GCH_OK && fail >= calls)
            break;
    }
    assert_true(fail > 10);
    gch_dump_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_heaps),
        cmocka_unit_test(domtree_and_paths_at_once),
        cmocka_unit_test(alloc_failure),
        cmocka_unit_test(build_views),
        cmocka_unit_test(build_views_alloc_failure),
        cmocka_unit_test(report_suspects_one_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
