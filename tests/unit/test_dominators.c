/* Dominator tree, retained sizes, type retained sizes, dominator chains:
 * hand-checked examples, a brute-force oracle on thousands of random graphs,
 * and allocation failure at every allocation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/builder.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/paths.h"
#include "graph_heap.h"
#include "graph_internal.h"
#include "tuning.h"

/* Forces (or not) the two-thread steps of gch_domtree_build on tiny graphs. */
static unsigned touch_round;

static void set_parallel(int on)
{
    gch_tuning t = gch_tuning_get();
    t.parallel_min_refs = on ? 0 : (size_t)1 << 40;
    /* The DFS's page toucher from 1 slot ahead (taken over at once) to 16
     * (often ahead of the DFS, in stretches of 1 to 5 slots). */
    t.dfs_touch_ahead = on ? 1 + touch_round++ % 16 : 0;
    t.default_workers = on ? 2 : 0; /* two even on a one-processor machine */
    gch_internal_set_tuning(&t);
}

/* ------------------------------------------------------------------ oracle */

/* Whether root record r counts (the rule is restated here, not shared). */
static int counts(const gch_heap *h, uint32_t r, int include_weak)
{
    return h->root_object[r] != GCH_NONE && (include_weak || !(h->root_flags[r] & GCH_ROOT_WEAK));
}

/* reach[v] = 1 when v is reachable from the counted roots without passing
 * through `removed` (GCH_NONE: nothing removed). Plain BFS. */
static void oracle_reach(const gch_heap *h, int include_weak, uint32_t removed, uint8_t *reach)
{
    uint32_t n = h->object_count;
    uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    uint32_t head = 0, tail = 0;
    memset(reach, 0, n);
    for (uint32_t r = 0; r < h->root_count; r++) {
        if (!counts(h, r, include_weak))
            continue;
        uint32_t o = h->root_object[r];
        if (o != removed && !reach[o]) {
            reach[o] = 1;
            queue[tail++] = o;
        }
    }
    while (head < tail) {
        uint32_t o = queue[head++];
        for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++) {
            uint32_t t = h->out_target[e];
            if (t != removed && !reach[t]) {
                reach[t] = 1;
                queue[tail++] = t;
            }
        }
    }
    free(queue);
}

typedef struct oracle {
    uint32_t n;
    uint8_t *live;
    uint8_t *dom;       /* dom[d*n+v]: d strictly dominates v */
    uint32_t *idom;
    uint64_t *retained;
} oracle;

static void oracle_build(const gch_heap *h, int include_weak, oracle *o)
{
    uint32_t n = h->object_count;
    o->n = n;
    o->live = malloc(n);
    o->dom = calloc((size_t)n * n, 1);
    o->idom = malloc(n * sizeof *o->idom);
    o->retained = calloc(n, sizeof *o->retained);
    uint8_t *r = malloc(n);
    oracle_reach(h, include_weak, GCH_NONE, o->live);
    for (uint32_t d = 0; d < n; d++) {
        if (!o->live[d])
            continue;
        oracle_reach(h, include_weak, d, r);
        for (uint32_t v = 0; v < n; v++)
            if (v != d && o->live[v] && !r[v])
                o->dom[(size_t)d * n + v] = 1;
    }
    for (uint32_t v = 0; v < n; v++) {
        o->idom[v] = o->live[v] ? GCH_DOM_VROOT : GCH_NONE;
        if (!o->live[v])
            continue;
        /* idom: the strict dominator that all the other strict dominators dominate. */
        int found = 0;
        for (uint32_t d = 0; d < n; d++) {
            if (!o->dom[(size_t)d * n + v])
                continue;
            int all = 1;
            for (uint32_t d2 = 0; d2 < n; d2++)
                if (d2 != d && o->dom[(size_t)d2 * n + v] && !o->dom[(size_t)d2 * n + d])
                    all = 0;
            if (all) {
                assert_false(found); /* exactly one */
                found = 1;
                o->idom[v] = d;
            }
        }
        o->retained[v] = gch_object_size(h, v);
        for (uint32_t w = 0; w < n; w++)
            if (o->dom[(size_t)v * n + w])
                o->retained[v] += gch_object_size(h, w);
    }
    free(r);
}

static void oracle_free(oracle *o)
{
    free(o->live);
    free(o->dom);
    free(o->idom);
    free(o->retained);
}

/* Type retained by the definition: size of the union of the instances' dominated sets. */
static uint64_t oracle_type_retained(const gch_heap *h, const oracle *o, uint32_t type)
{
    uint32_t n = h->object_count;
    uint64_t sum = 0;
    for (uint32_t v = 0; v < n; v++) {
        if (!o->live[v])
            continue;
        int in = 0;
        for (uint32_t i = 0; i < n && !in; i++)
            if (o->live[i] && h->object_type[i] == type &&
                (i == v || o->dom[(size_t)i * n + v]))
                in = 1;
        if (in)
            sum += gch_object_size(h, v);
    }
    return sum;
}

/* Checks a tree against the oracle, and the structure of its children lists. */
static void check_tree(const gch_heap *h, const gch_domtree *t, const oracle *o)
{
    uint32_t n = h->object_count;
    assert_int_equal(t->object_count, n);
    uint64_t lc = 0, lb = 0;
    for (uint32_t v = 0; v < n; v++) {
        assert_int_equal(t->idom[v], o->idom[v]);
        assert_int_equal(t->retained[v], o->live[v] ? o->retained[v] : 0);
        if (o->live[v]) {
            lc++;
            lb += gch_object_size(h, v);
        }
    }
    assert_int_equal(t->live_count, lc);
    assert_int_equal(t->live_bytes, lb);

    /* Children: each live object once, under its idom, sorted. */
    uint32_t *seen = calloc(n ? n : 1, sizeof *seen);
    uint64_t total = 0;
    for (uint32_t k = 0; k <= n; k++) {
        uint32_t node = k == n ? GCH_DOM_VROOT : k, cnt;
        const uint32_t *ch = gch_domtree_children(t, node, &cnt);
        if (k < n && !o->live[k]) {
            assert_int_equal(cnt, 0);
            continue;
        }
        uint64_t sum = k < n ? gch_object_size(h, k) : 0;
        for (uint32_t j = 0; j < cnt; j++) {
            assert_true(ch[j] < n);
            assert_int_equal(t->idom[ch[j]], node);
            seen[ch[j]]++;
            sum += t->retained[ch[j]];
            if (j > 0) {
                uint64_t a = t->retained[ch[j - 1]], b = t->retained[ch[j]];
                assert_true(a > b || (a == b && ch[j - 1] < ch[j]));
            }
        }
        total += cnt;
        /* retained = own size + children's retained */
        assert_int_equal(sum, k < n ? t->retained[k] : t->live_bytes);
    }
    assert_int_equal(total, lc);
    for (uint32_t v = 0; v < n; v++)
        assert_int_equal(seen[v], o->live[v] ? 1 : 0);
    free(seen);

    /* Dominator chains follow idom. */
    for (uint32_t v = 0; v < n; v++) {
        uint32_t *chain;
        size_t len;
        assert_int_equal(gch_dom_chain(t, v, &chain, &len, NULL), GCH_OK);
        uint32_t d = o->idom[v];
        for (size_t k = 0; k < len; k++) {
            assert_int_equal(chain[k], d);
            d = o->idom[d];
        }
        assert_true(d == GCH_DOM_VROOT || d == GCH_NONE);
        gch_free(chain);
    }

    /* Type retained sizes. */
    uint64_t *per = malloc((h->type_count ? h->type_count : 1) * sizeof *per);
    assert_int_equal(gch_type_retained(h, t, per, NULL), GCH_OK);
    for (uint32_t ty = 0; ty < h->type_count; ty++)
        assert_int_equal(per[ty], oracle_type_retained(h, o, ty));
    free(per);
}

/* Coverage of the random graphs, so that a generator gone trivial shows. */
static uint64_t stat_live, stat_deep, stat_unreached;

static void tally(const gch_heap *h, const oracle *o)
{
    for (uint32_t v = 0; v < h->object_count; v++) {
        if (!o->live[v])
            stat_unreached++;
        else if (o->idom[v] != GCH_DOM_VROOT) {
            stat_live++;
            if (o->idom[o->idom[v]] != GCH_DOM_VROOT)
                stat_deep++;
        } else
            stat_live++;
    }
}

static void test_random_oracle(void **state)
{
    (void)state;
    th_rng rng = { 12345 };
    stat_live = stat_deep = stat_unreached = 0;
    for (int g = 0; g < 4000; g++) {
        gch_dump *d = th_random_dump(&rng, g < 3950 ? 24 : 150);
        gch_heap *h = d->heaps[0];
        if (g % 2 && gch_heap_build_reverse(h, NULL) != GCH_OK)
            fail();
        set_parallel(g % 4 >= 2);
        gch__domtree_force_wide_pairs(g % 8 >= 4); /* (v, w) pairs as past 2^31 objects */
        for (int weak = 0; weak <= 1; weak++) {
            oracle o;
            oracle_build(h, weak, &o);
            gch_domtree t;
            assert_int_equal(gch_domtree_build(h, weak, &t, NULL), GCH_OK);
            check_tree(h, &t, &o);
            tally(h, &o);
            gch_domtree_free(&t);
            oracle_free(&o);
        }
        gch_dump_free(d);
    }
    gch_internal_set_tuning(NULL);
    gch__domtree_force_wide_pairs(0);
    print_message("random graphs: %llu live objects (%llu at dominator depth >= 3), "
                  "%llu unreachable\n",
                  (unsigned long long)stat_live, (unsigned long long)stat_deep,
                  (unsigned long long)stat_unreached);
    assert_true(stat_deep > 1000 && stat_unreached > 1000);
}

/* Dense random graphs: many predecessors, long compression paths. */
static void test_random_dense(void **state)
{
    (void)state;
    th_rng rng = { 777 };
    for (int g = 0; g < 300; g++) {
        uint32_t n = 2 + th_below(&rng, 60);
        size_t m = (size_t)n * (1 + th_below(&rng, 6));
        gch_dump *d = th_dump_new(n, 3, 2, 0);
        gch_heap *h = d->heaps[0];
        uint32_t *src = malloc(m * sizeof *src), *dst = malloc(m * sizeof *dst);
        for (size_t k = 0; k < m; k++) {
            src[k] = th_below(&rng, n);
            dst[k] = th_below(&rng, n);
        }
        th_set_edges(h, src, dst, m);
        free(src);
        free(dst);
        for (uint32_t i = 0; i < n; i++) {
            h->object_size32[i] = 1 + th_below(&rng, 50);
            h->object_type[i] = th_below(&rng, 3);
        }
        h->root_object[0] = 0;
        h->root_object[1] = th_below(&rng, n);
        h->root_flags[1] = g % 3 == 0 ? GCH_ROOT_WEAK : 0;
        if (g % 2)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        oracle o;
        oracle_build(h, 0, &o);
        gch_domtree t;
        set_parallel(g % 4 >= 2);
        assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
        gch_internal_set_tuning(NULL);
        check_tree(h, &t, &o);
        gch_domtree_free(&t);
        oracle_free(&o);
        gch_dump_free(d);
    }
}

/* Tree and back edges only: a chain 0 -> 1 -> ... -> n-1 (the DFS tree) and
 * k -> j for every j < k. Every edge but the n - 1 tree edges is then a back
 * edge from a reached object, so the recorded edges as (v, w) pairs (what
 * heaps of 2^31 objects record) fill the room reserved for them exactly, the
 * lower half's from the front and the upper half's from the back (a slot too
 * many would overrun under AddressSanitizer); the marked stream of the usual
 * case fills it to one entry per source short of that. idom(k) is k - 1 and
 * every object retains the ones after it. */
static void test_back_edges_fill_pairs(void **state)
{
    (void)state;
    for (uint32_t n = 1; n <= 48; n++) {
        size_t m = (size_t)n * (n - 1) / 2 + (n - 1), k = 0;
        gch_dump *d = th_dump_new(n, 1, 1, 0);
        gch_heap *h = d->heaps[0];
        uint32_t *src = malloc((m ? m : 1) * sizeof *src), *dst = malloc((m ? m : 1) * sizeof *dst);
        for (uint32_t v = 0; v < n; v++) {
            if (v + 1 < n) {
                src[k] = v;
                dst[k++] = v + 1;
            }
            for (uint32_t j = 0; j < v; j++) {
                src[k] = v;
                dst[k++] = j;
            }
        }
        assert_int_equal(k, m);
        th_set_edges(h, src, dst, m);
        free(src);
        free(dst);
        uint64_t total = 0;
        for (uint32_t v = 0; v < n; v++)
            total += h->object_size32[v] = 1 + v % 7;
        h->root_object[0] = 0;
        for (int mode = 0; mode < 4; mode++) {
            set_parallel(mode & 1);
            gch__domtree_force_wide_pairs(mode >> 1);
            gch_domtree t;
            assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
            gch_internal_set_tuning(NULL);
            gch__domtree_force_wide_pairs(0);
            assert_int_equal(t.live_count, n);
            assert_int_equal(t.live_bytes, total);
            uint64_t after = total;
            for (uint32_t v = 0; v < n; v++) {
                assert_int_equal(t.idom[v], v ? v - 1 : GCH_DOM_VROOT);
                assert_int_equal(t.retained[v], after);
                after -= gch_object_size(h, v);
            }
            gch_domtree_free(&t);
        }
        gch_dump_free(d);
    }
}

/* ------------------------------------------------------------ by hand */

/* Builds a heap through the real builder. objs: {id, type id, size, refs...,0}
 * rows; roots: {id, flags} pairs. */
typedef struct hand_obj {
    uint64_t id, type;
    uint64_t size;
    uint64_t refs[6];
} hand_obj;

typedef struct hand_root {
    uint64_t id;
    unsigned kind, flags;
} hand_root;

static gch_dump *hand_dump(const hand_obj *objs, size_t nobj, const hand_root *roots, size_t nroot)
{
    gch_builder *b;
    gch_dump *d;
    assert_int_equal(gch_builder_new(&b, "test", NULL), GCH_OK);
    assert_int_equal(gch_builder_begin_heap(b, "h", 1, NULL), GCH_OK);
    assert_int_equal(gch_builder_add_type(b, 1, "Node", 4, NULL, NULL), GCH_OK);
    assert_int_equal(gch_builder_add_type(b, 2, "Leaf", 4, NULL, NULL), GCH_OK);
    for (size_t i = 0; i < nobj; i++) {
        size_t nr = 0;
        while (nr < 6 && objs[i].refs[nr])
            nr++;
        assert_int_equal(gch_builder_add_object(b, objs[i].id, objs[i].type, objs[i].size,
                                                objs[i].refs, nr, NULL),
                         GCH_OK);
    }
    for (size_t i = 0; i < nroot; i++)
        assert_int_equal(gch_builder_add_root(b, roots[i].id, roots[i].kind, roots[i].flags, 0,
                                              0, NULL, NULL),
                         GCH_OK);
    assert_int_equal(gch_builder_end_heap(b, NULL), GCH_OK);
    assert_int_equal(gch_builder_finish(b, &d, NULL), GCH_OK);
    gch_builder_free(b);
    return d;
}

/* root -> A; A -> B, C; B -> D; C -> D; D -> E; E -> D (cycle).
 * Sizes A=1 B=2 C=4 D=8 E=16. Indices A0 B1 C2 D3 E4.
 *   idom: A=vroot, B=A, C=A, D=A (two ways in), E=D.
 *   retained: E=16, D=8+16=24, B=2, C=4, A=1+2+4+24=31.
 *   children of A by retained: D(24), C(4), B(2). */
/* The two-thread steps (edges classified and predecessors placed by two
 * threads from the two halves of the objects, each half folding forward
 * edges into its own minimum; idom scatter beside the retained sizes) give
 * every result array exactly as one thread does (one of the two recording
 * (v, w) pairs, the other the marked stream), on graphs big enough for both
 * halves to hold many cross and back edges; without the reverse index (the
 * placement's path) and with it. */
static void test_parallel_matches_serial(void **state)
{
    (void)state;
    th_rng rng = { 4242 };
    for (int g = 0; g < 60; g++) {
        gch_dump *d = th_random_dump(&rng, g % 10 == 0 ? 5000 : 400);
        gch_heap *h = d->heaps[0];
        if (g % 3 == 2)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        for (int weak = 0; weak <= 1; weak++) {
            gch_domtree a, b;
            set_parallel(0);
            gch__domtree_force_wide_pairs(g % 2);
            assert_int_equal(gch_domtree_build(h, weak, &a, NULL), GCH_OK);
            set_parallel(1);
            gch__domtree_force_wide_pairs(!(g % 2));
            assert_int_equal(gch_domtree_build(h, weak, &b, NULL), GCH_OK);
            gch_internal_set_tuning(NULL);
            gch__domtree_force_wide_pairs(0);
            uint32_t n = h->object_count;
            assert_int_equal(a.live_count, b.live_count);
            assert_int_equal(a.live_bytes, b.live_bytes);
            assert_memory_equal(a.idom, b.idom, (size_t)n * sizeof *a.idom);
            assert_memory_equal(a.retained, b.retained, (size_t)n * sizeof *a.retained);
            assert_memory_equal(a.child_start, b.child_start,
                                ((size_t)n + 2) * sizeof *a.child_start);
            if (a.live_count)
                assert_memory_equal(a.children, b.children,
                                    (size_t)a.live_count * sizeof *a.children);
            gch_domtree_free(&a);
            gch_domtree_free(&b);
        }
        gch_dump_free(d);
    }
}

/* A tree built without children lists (gch_domtree_build_ex, children = 0)
 * has the same idom, retained sizes and live totals as the full build, and
 * no lists: gch_domtree_children finds nothing, gch_type_retained refuses it,
 * gch_dom_chain works. Random graphs from 1 to 5,000 objects, with and
 * without the heap's reverse index, one and two threads, weak roots or not;
 * the small ones are also checked against the oracle directly. */
static void test_lite_matches_full(void **state)
{
    (void)state;
    th_rng rng = { 31337 };
    for (int g = 0; g < 800; g++) {
        uint32_t max_n = g % 40 == 0 ? 5000 : g % 8 == 0 ? 400 : 24;
        gch_dump *d = th_random_dump(&rng, max_n);
        gch_heap *h = d->heaps[0];
        const uint32_t n = h->object_count;
        if (g % 3 == 1)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        for (int weak = 0; weak <= 1; weak++) {
            set_parallel(g % 2);
            gch_domtree full, lite;
            gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
            assert_int_equal(opts.children, 1);
            opts.include_weak = weak;
            /* NULL options: the defaults, i.e. gch_domtree_build(h, 0). */
            assert_int_equal(weak ? gch_domtree_build_ex(h, &opts, &full, NULL)
                                  : gch_domtree_build_ex(h, NULL, &full, NULL),
                             GCH_OK);
            assert_non_null(full.child_start);
            opts.children = 0;
            memset(&lite, 0x5a, sizeof lite); /* overwritten, never read */
            assert_int_equal(gch_domtree_build_ex(h, &opts, &lite, NULL), GCH_OK);
            gch_internal_set_tuning(NULL);

            assert_int_equal(lite.object_count, n);
            assert_int_equal(lite.live_count, full.live_count);
            assert_int_equal(lite.live_bytes, full.live_bytes);
            assert_memory_equal(lite.idom, full.idom, (size_t)n * sizeof *lite.idom);
            assert_memory_equal(lite.retained, full.retained, (size_t)n * sizeof *lite.retained);
            assert_null(lite.child_start);
            assert_null(lite.children);
            uint32_t cnt = 77;
            assert_null(gch_domtree_children(&lite, GCH_DOM_VROOT, &cnt));
            assert_int_equal(cnt, 0);
            for (uint32_t v = 0; v < n; v += 1 + n / 16) {
                cnt = 77;
                assert_null(gch_domtree_children(&lite, v, &cnt));
                assert_int_equal(cnt, 0);
            }
            uint64_t *per = malloc((h->type_count ? h->type_count : 1) * sizeof *per);
            gch_error err;
            gch_error_clear(&err);
            assert_int_equal(gch_type_retained(h, &lite, per, &err), GCH_EINVAL);
            assert_int_equal(err.status, GCH_EINVAL);
            free(per);
            uint32_t v = n - 1, *ca, *cb;
            size_t la, lb;
            assert_int_equal(gch_dom_chain(&full, v, &ca, &la, NULL), GCH_OK);
            assert_int_equal(gch_dom_chain(&lite, v, &cb, &lb, NULL), GCH_OK);
            assert_int_equal(la, lb);
            if (la)
                assert_memory_equal(ca, cb, la * sizeof *ca);
            gch_free(ca);
            gch_free(cb);

            if (n <= 24) {
                oracle o;
                oracle_build(h, weak, &o);
                for (uint32_t k = 0; k < n; k++) {
                    assert_int_equal(lite.idom[k], o.idom[k]);
                    assert_int_equal(lite.retained[k], o.live[k] ? o.retained[k] : 0);
                }
                oracle_free(&o);
            }
            gch_domtree_free(&full);
            gch_domtree_free(&lite);
            assert_null(lite.idom);
        }
        gch_dump_free(d);
    }
    /* No references loaded: GCH_EINVAL, *out zeroed, as the full build. */
    gch_dump *d = th_dump_new(3, 1, 1, 0);
    d->heaps[0]->refs_loaded = 0;
    gch_domtree_options opts = { 0 };
    gch_domtree t;
    memset(&t, 0x5a, sizeof t);
    assert_int_equal(gch_domtree_build_ex(d->heaps[0], &opts, &t, NULL), GCH_EINVAL);
    assert_null(t.idom);
    assert_null(t.retained);
    gch_dump_free(d);
    /* An empty heap. */
    d = th_dump_new(0, 0, 0, 0);
    assert_int_equal(gch_domtree_build_ex(d->heaps[0], &opts, &t, NULL), GCH_OK);
    assert_int_equal(t.live_count, 0);
    assert_int_equal(t.live_bytes, 0);
    uint32_t cnt = 1;
    assert_null(gch_domtree_children(&t, GCH_DOM_VROOT, &cnt));
    assert_int_equal(cnt, 0);
    gch_domtree_free(&t);
    gch_dump_free(d);
}

static void test_hand_diamond(void **state)
{
    (void)state;
    const hand_obj objs[] = {
        { 0xa, 1, 1, { 0xb, 0xc } },
        { 0xb, 1, 2, { 0xd } },
        { 0xc, 1, 4, { 0xd } },
        { 0xd, 1, 8, { 0xe } },
        { 0xe, 2, 16, { 0xd } },
    };
    const hand_root roots[] = { { 0xa, GCH_ROOT_LOCAL, 0 } };
    gch_dump *d = hand_dump(objs, 5, roots, 1);
    const gch_heap *h = d->heaps[0];
    gch_domtree t;
    assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
    assert_int_equal(t.idom[0], GCH_DOM_VROOT);
    assert_int_equal(t.idom[1], 0);
    assert_int_equal(t.idom[2], 0);
    assert_int_equal(t.idom[3], 0);
    assert_int_equal(t.idom[4], 3);
    assert_int_equal(t.retained[0], 31);
    assert_int_equal(t.retained[1], 2);
    assert_int_equal(t.retained[2], 4);
    assert_int_equal(t.retained[3], 24);
    assert_int_equal(t.retained[4], 16);
    assert_int_equal(t.live_count, 5);
    assert_int_equal(t.live_bytes, 31);
    uint32_t cnt;
    const uint32_t *ch = gch_domtree_children(&t, 0, &cnt);
    assert_int_equal(cnt, 3);
    assert_int_equal(ch[0], 3);
    assert_int_equal(ch[1], 2);
    assert_int_equal(ch[2], 1);
    ch = gch_domtree_children(&t, GCH_DOM_VROOT, &cnt);
    assert_int_equal(cnt, 1);
    assert_int_equal(ch[0], 0);
    /* Dominator chain of E: D, A. */
    uint32_t *chain;
    size_t len;
    assert_int_equal(gch_dom_chain(&t, 4, &chain, &len, NULL), GCH_OK);
    assert_int_equal(len, 2);
    assert_int_equal(chain[0], 3);
    assert_int_equal(chain[1], 0);
    gch_free(chain);
    /* Types: Node = {A,B,C,D}: A is topmost and retains everything: 31.
     * Leaf = {E}: 16. */
    uint64_t per[2];
    assert_int_equal(gch_type_retained(h, &t, per, NULL), GCH_OK);
    assert_int_equal(per[0], 31);
    assert_int_equal(per[1], 16);
    gch_domtree_free(&t);
    gch_dump_free(d);
}

/* Strong roots on R1 (size 10) and R2 (size 20), both -> X (size 5); a weak
 * root on W (size 7) -> Y (size 3); U (size 100) unreachable. A duplicate
 * strong root on R1, and a root on an id absent from the dump.
 * Indices R1 0, R2 1, X 2, W 3, Y 4, U 5.
 *   strong only: X has two ways in: idom vroot. retained R1=10, R2=20, X=5;
 *     W, Y, U not live: idom NONE, retained 0. live 3 objects, 35 bytes.
 *   include_weak: W = vroot (7+3 = 10), Y = W. live 5, 45 bytes. */
static void test_hand_roots(void **state)
{
    (void)state;
    const hand_obj objs[] = {
        { 1, 1, 10, { 3 } }, { 2, 1, 20, { 3 } }, { 3, 2, 5, { 0 } },
        { 4, 1, 7, { 5 } },  { 5, 2, 3, { 0 } },  { 6, 1, 100, { 1 } },
    };
    const hand_root roots[] = {
        { 1, GCH_ROOT_STATIC, 0 },   { 2, GCH_ROOT_LOCAL, GCH_ROOT_PINNED },
        { 4, GCH_ROOT_HANDLE, GCH_ROOT_WEAK }, { 1, GCH_ROOT_LOCAL, 0 },
        { 0x77, GCH_ROOT_LOCAL, 0 },
    };
    gch_dump *d = hand_dump(objs, 6, roots, 5);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->root_object[4], GCH_NONE);
    gch_domtree t;
    assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
    const uint32_t idom0[] = { GCH_DOM_VROOT, GCH_DOM_VROOT, GCH_DOM_VROOT, GCH_NONE, GCH_NONE, GCH_NONE };
    const uint64_t ret0[] = { 10, 20, 5, 0, 0, 0 };
    for (int i = 0; i < 6; i++) {
        assert_int_equal(t.idom[i], idom0[i]);
        assert_int_equal(t.retained[i], ret0[i]);
    }
    assert_int_equal(t.live_count, 3);
    assert_int_equal(t.live_bytes, 35);
    uint32_t cnt;
    assert_null(gch_domtree_children(&t, 5, &cnt));
    assert_int_equal(cnt, 0);
    const uint32_t *ch = gch_domtree_children(&t, GCH_DOM_VROOT, &cnt);
    assert_int_equal(cnt, 3); /* R2 (20), R1 (10), X (5) */
    assert_int_equal(ch[0], 1);
    assert_int_equal(ch[1], 0);
    assert_int_equal(ch[2], 2);
    uint64_t per[2];
    assert_int_equal(gch_type_retained(h, &t, per, NULL), GCH_OK);
    assert_int_equal(per[0], 30); /* R1 + R2; U not live */
    assert_int_equal(per[1], 5);  /* X */
    gch_domtree_free(&t);

    assert_int_equal(gch_domtree_build(h, 1, &t, NULL), GCH_OK);
    assert_int_equal(t.idom[3], GCH_DOM_VROOT);
    assert_int_equal(t.idom[4], 3);
    assert_int_equal(t.retained[3], 10);
    assert_int_equal(t.idom[5], GCH_NONE);
    assert_int_equal(t.live_count, 5);
    assert_int_equal(t.live_bytes, 45);
    gch_domtree_free(&t);
    gch_dump_free(d);
}

/* Type union rule: N1 -> N2 -> N3 (type Node, 10 bytes each), N2 -> L
 * (Leaf, 5 bytes), N3 -> L2 (Leaf, 1 byte), L2 -> N4 (Node, 2 bytes).
 * Indices N1 0, N2 1, N3 2, L 3, L2 4, N4 5. Root on N1.
 *   retained: N4=2, L2=3, N3=13, L=5, N2=28, N1=38.
 *   Node: N1 is the only topmost Node: 38 (not 38+28+13+2).
 *   Leaf: L (5) and L2 (3) are both topmost (neither dominates the other): 8. */
static void test_hand_type_union(void **state)
{
    (void)state;
    const hand_obj objs[] = {
        { 1, 1, 10, { 2 } },    { 2, 1, 10, { 3, 4 } }, { 3, 1, 10, { 5 } },
        { 4, 2, 5, { 0 } },     { 5, 2, 1, { 6 } },     { 6, 1, 2, { 0 } },
    };
    const hand_root roots[] = { { 1, GCH_ROOT_LOCAL, 0 } };
    gch_dump *d = hand_dump(objs, 6, roots, 1);
    const gch_heap *h = d->heaps[0];
    gch_domtree t;
    assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
    const uint64_t ret[] = { 38, 28, 13, 5, 3, 2 };
    for (int i = 0; i < 6; i++)
        assert_int_equal(t.retained[i], ret[i]);
    uint64_t per[2];
    assert_int_equal(gch_type_retained(h, &t, per, NULL), GCH_OK);
    assert_int_equal(per[0], 38);
    assert_int_equal(per[1], 8);
    gch_domtree_free(&t);
    gch_dump_free(d);
}

/* The classic Lengauer-Tarjan example (their Fig. 1), vertices R A B C D E F
 * G H I J K L as objects 0..12, size 1 each, root on R:
 *   R->A,B,C  A->D  B->A,D,E  C->F,G  D->L  E->H  F->I  G->I,J  H->E,K
 *   I->K  J->I  K->I,R  L->H
 * Published idoms: A,B,C,D,E,H,I,K = R; F,G = C; J = G; L = D.
 * Retained: C = C+F+G+J = 4, G = 2, D = 2, R = 13. */
static void test_hand_lengauer_tarjan(void **state)
{
    (void)state;
    enum { R, A, B, C, D, E, F, G, H, I, J, K, L };
    const uint32_t src[] = { R, R, R, A, B, B, B, C, C, D, E, F, G, G, H, H, I, J, K, K, L };
    const uint32_t dst[] = { A, B, C, D, A, D, E, F, G, L, H, I, I, J, E, K, K, I, I, R, H };
    for (int rev = 0; rev <= 1; rev++) {
        gch_dump *dd = th_dump_new(13, 1, 1, 0);
        gch_heap *h = dd->heaps[0];
        th_set_edges(h, src, dst, sizeof src / sizeof src[0]);
        for (int i = 0; i < 13; i++)
            h->object_size32[i] = 1;
        h->root_object[0] = R;
        if (rev)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        gch_domtree t;
        assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
        const uint32_t want[13] = { GCH_DOM_VROOT, R, R, R, R, R, C, C, R, R, G, R, D };
        for (int i = 0; i < 13; i++)
            assert_int_equal(t.idom[i], want[i]);
        assert_int_equal(t.retained[C], 4);
        assert_int_equal(t.retained[G], 2);
        assert_int_equal(t.retained[D], 2);
        assert_int_equal(t.retained[R], 13);
        gch_domtree_free(&t);
        gch_dump_free(dd);
    }
}

static void test_empty_and_invalid(void **state)
{
    (void)state;
    gch_dump *d = th_dump_new(0, 0, 0, 0);
    gch_domtree t;
    assert_int_equal(gch_domtree_build(d->heaps[0], 0, &t, NULL), GCH_OK);
    assert_int_equal(t.live_count, 0);
    uint32_t cnt;
    gch_domtree_children(&t, GCH_DOM_VROOT, &cnt);
    assert_int_equal(cnt, 0);
    assert_int_equal(gch_type_retained(d->heaps[0], &t, NULL, NULL), GCH_OK);
    gch_domtree_free(&t);
    gch_domtree_free(&t); /* zeroed: allowed */
    gch_domtree_free(NULL);
    gch_dump_free(d);

    d = th_dump_new(3, 1, 1, 0);
    d->heaps[0]->refs_loaded = 0;
    gch_error err;
    gch_error_clear(&err);
    assert_int_equal(gch_domtree_build(d->heaps[0], 0, &t, &err), GCH_EINVAL);
    assert_int_equal(err.status, GCH_EINVAL);
    assert_null(t.idom);
    d->heaps[0]->refs_loaded = 1;
    assert_int_equal(gch_domtree_build(d->heaps[0], 0, &t, NULL), GCH_OK);
    uint32_t *chain;
    size_t len;
    assert_int_equal(gch_dom_chain(&t, 3, &chain, &len, NULL), GCH_EINVAL);
    assert_int_equal(gch_dom_chain(&t, 0, &chain, &len, NULL), GCH_OK);
    assert_int_equal(len, 0);
    assert_null(chain);
    gch_domtree_free(&t);
    gch_dump_free(d);
}

/* ------------------------------------------------------- child order */

/* Child lists with many equal retained sizes, long enough for the radix path,
 * and with key ranges too wide to pack next to the index (comparison
 * fallback). A star: the root object 0 holds k children, some of which hold a
 * few grandchildren, so that retained sizes tie between leaves and subtrees. */
static void test_child_order_ties(void **state)
{
    (void)state;
    th_rng rng = { 4242 };
    for (int g = 0; g < 60; g++) {
        uint32_t n = 40 + th_below(&rng, 260);
        uint32_t *src = malloc(2 * (size_t)n * sizeof *src), *dst = malloc(2 * (size_t)n * sizeof *dst);
        size_t m = 0;
        for (uint32_t i = 1; i < n; i++) {
            /* Most objects under 0; some under an earlier child. */
            uint32_t p = i > 2 && th_below(&rng, 4) == 0 ? 1 + th_below(&rng, i - 1) : 0;
            src[m] = p;
            dst[m++] = i;
            if (th_below(&rng, 10) == 0) { /* a second way in: idom moves up */
                src[m] = th_below(&rng, n);
                dst[m++] = i;
            }
        }
        gch_dump *d = th_dump_new(n, 2, 2, 0);
        gch_heap *h = d->heaps[0];
        th_set_edges(h, src, dst, m);
        free(src);
        free(dst);
        int mode = g % 4;
        for (uint32_t i = 0; i < n; i++) {
            h->object_type[i] = i % 2;
            if (mode == 0)
                h->object_size32[i] = 8; /* all equal */
            else if (mode == 1)
                h->object_size32[i] = th_below(&rng, 3); /* 0, 1, 2: ties everywhere */
            else if (mode == 2) /* ties across several radix digits */
                th_set_size(h, i, (uint64_t)th_below(&rng, 3) << (8 * th_below(&rng, 5)));
            else /* a few huge sizes: no room to pack the index */
                th_set_size(h, i, th_below(&rng, 8) == 0 ? (uint64_t)1 << 57 : th_below(&rng, 3));
        }
        h->root_object[0] = 0;
        h->root_object[1] = g % 2 ? th_below(&rng, n) : GCH_NONE;
        if (g % 3 == 0)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        oracle o;
        oracle_build(h, 0, &o);
        gch_domtree t;
        assert_int_equal(gch_domtree_build(h, 0, &t, NULL), GCH_OK);
        check_tree(h, &t, &o); /* asserts (retained desc, index asc) in every list */
        uint32_t cnt;
        gch_domtree_children(&t, 0, &cnt);
        assert_true(cnt >= 10);
        gch_domtree_free(&t);
        oracle_free(&o);
        gch_dump_free(d);
    }
}

/* Reference order for the list sorter. */
static const uint64_t *ref_keys;
static int ref_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    if (ref_keys[a] != ref_keys[b])
        return ref_keys[a] > ref_keys[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* gch__sort_lists_by_key_desc against qsort: list lengths 0..600, keys with
 * few distinct values, spread over all 64 bits, or clustered high; item
 * indices near 2^32 (32-bit packing) and small. Then allocation failure. */
static void test_sort_lists_by_key(void **state)
{
    (void)state;
    th_rng rng = { 99 };
    for (int g = 0; g < 400; g++) {
        size_t lists = 1 + th_below(&rng, 12);
        uint32_t *start = malloc((lists + 1) * sizeof *start);
        start[0] = 0;
        for (size_t k = 0; k < lists; k++) {
            uint32_t len = th_below(&rng, 4) == 0 ? th_below(&rng, 600) : th_below(&rng, 60);
            start[k + 1] = start[k] + len;
        }
        uint32_t total = start[lists];
        /* limit near 2^32 widens the packed index to 32 bits. */
        uint32_t keyspace = 2 * total + 1;
        uint32_t limit = g % 3 == 0 ? UINT32_MAX : keyspace + th_below(&rng, 1000);
        uint64_t *keys = malloc((size_t)keyspace * sizeof *keys);
        uint32_t *items = malloc((total ? total : 1) * sizeof *items);
        uint32_t *want = malloc((total ? total : 1) * sizeof *want);
        int kmode = g % 5;
        for (uint32_t i = 0; i < keyspace; i++) {
            uint64_t r = th_rand(&rng);
            keys[i] = kmode == 0   ? r % 3
                      : kmode == 1 ? r
                      : kmode == 2 ? UINT64_MAX - r % 5
                      : kmode == 3 ? (r % 4) << (8 * (r % 7))
                                   : r % 100000;
        }
        /* Items: ascending in each list, gaps between them, all below keyspace. */
        uint32_t next = 0;
        for (uint32_t i = 0; i < total; i++) {
            items[i] = next;
            next += 1 + (th_below(&rng, 8) == 0);
        }
        memcpy(want, items, (total ? total : 1) * sizeof *want);
        ref_keys = keys;
        for (size_t k = 0; k < lists; k++)
            qsort(want + start[k], start[k + 1] - start[k], sizeof *want, ref_cmp);
        assert_int_equal(gch__sort_lists_by_key_desc(items, start, lists, keys, limit), 0);
        for (uint32_t i = 0; i < total; i++)
            assert_int_equal(items[i], want[i]);
        free(start);
        free(keys);
        free(items);
        free(want);
    }
    /* The only allocation failing leaves the lists as they were. */
    uint32_t start[2] = { 0, 3 }, items[3] = { 0, 1, 2 };
    const uint64_t keys[3] = { 1, 2, 3 };
    th_alloc_install(0);
    assert_int_equal(gch__sort_lists_by_key_desc(items, start, 1, keys, 3), -1);
    th_alloc_uninstall();
    assert_int_equal(items[0], 0);
    assert_int_equal(items[2], 2);
    assert_int_equal(gch__sort_lists_by_key_desc(items, start, 1, keys, 3), 0);
    assert_int_equal(items[0], 2);
    assert_int_equal(items[2], 0);
}

/* ------------------------------------------------------------ allocation */

/* Fails the Nth allocation for every N until the build succeeds (children:
 * whether the build makes the children lists, through gch_domtree_build_ex;
 * -1: gch_domtree_build). */
/* The preorder-only build (what `top` uses): the same live totals as the
 * full build; preorder lists every live object once, each after its
 * immediate dominator, with its retained size beside it; no per-object
 * arrays, no chains, no children; children and preorder_only together are
 * refused (allocation failures: test_alloc_failure). */
/* Progress reports: strictly increasing percents, the last 100, and the same
 * tree as without a callback, in each of the three modes. */
typedef struct progress_log {
    unsigned seen[16];
    int count;
} progress_log;

static void log_progress(void *ctx, unsigned percent)
{
    progress_log *l = ctx;
    assert_true(l->count < 16);
    l->seen[l->count++] = percent;
}

static void test_progress_reports(void **state)
{
    (void)state;
    th_rng rng = { 99 };
    for (int g = 0; g < 60; g++) {
        gch_dump *d = th_random_dump(&rng, g % 10 == 0 ? 3000 : 40);
        gch_heap *h = d->heaps[0];
        for (int mode = 0; mode < 3; mode++) {
            gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
            opts.children = mode == 0;
            opts.preorder_only = mode == 2;
            gch_domtree plain, logged;
            assert_int_equal(gch_domtree_build_ex(h, &opts, &plain, NULL), GCH_OK);
            progress_log log = { { 0 }, 0 };
            opts.progress = log_progress;
            opts.progress_ctx = &log;
            assert_int_equal(gch_domtree_build_ex(h, &opts, &logged, NULL), GCH_OK);
            assert_true(log.count >= 2);
            for (int i = 1; i < log.count; i++)
                assert_true(log.seen[i] > log.seen[i - 1]);
            assert_int_equal(log.seen[log.count - 1], 100);
            assert_int_equal(logged.live_count, plain.live_count);
            assert_int_equal(logged.live_bytes, plain.live_bytes);
            if (mode != 2)
                assert_memory_equal(logged.retained, plain.retained,
                                    (h->object_count ? h->object_count : 1) * sizeof *plain.retained);
            gch_domtree_free(&plain);
            gch_domtree_free(&logged);
        }
        gch_paths_options po = { 0, log_progress, NULL, NULL, NULL };
        progress_log plog = { { 0 }, 0 };
        po.progress_ctx = &plog;
        gch_paths p;
        assert_int_equal(gch_paths_build_ex(h, &po, &p, NULL), GCH_OK);
        assert_int_equal(plog.count, 1); /* small heaps: only the end */
        assert_int_equal(plog.seen[0], 100);
        gch_paths_free(&p);
        gch_dump_free(d);
    }
}

static void test_preorder_matches_full(void **state)
{
    (void)state;
    th_rng rng = { 4711 };
    for (int g = 0; g < 600; g++) {
        uint32_t max_n = g % 40 == 0 ? 5000 : g % 8 == 0 ? 400 : 24;
        gch_dump *d = th_random_dump(&rng, max_n);
        gch_heap *h = d->heaps[0];
        const uint32_t n = h->object_count;
        if (g % 3 == 1)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        for (int weak = 0; weak <= 1; weak++) {
            set_parallel(g % 2);
            gch_domtree full, pre;
            gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
            opts.include_weak = weak;
            assert_int_equal(gch_domtree_build_ex(h, &opts, &full, NULL), GCH_OK);
            assert_null(full.preorder);
            assert_null(full.preorder_retained);
            opts.children = 0;
            opts.preorder_only = 1;
            opts.preorder_idom = g % 2;
            memset(&pre, 0x5a, sizeof pre);
            assert_int_equal(gch_domtree_build_ex(h, &opts, &pre, NULL), GCH_OK);
            gch_internal_set_tuning(NULL);
            assert_int_equal(pre.object_count, n);
            assert_int_equal(pre.live_count, full.live_count);
            assert_int_equal(pre.live_bytes, full.live_bytes);
            assert_null(pre.idom);
            assert_null(pre.retained);
            assert_null(pre.child_start);
            assert_null(pre.children);
            /* position of each object in preorder, UINT32_MAX when absent */
            uint32_t *pos = malloc((n ? n : 1) * sizeof *pos);
            assert_non_null(pos);
            for (uint32_t k = 0; k < n; k++)
                pos[k] = UINT32_MAX;
            for (uint32_t i = 0; i < pre.live_count; i++) {
                uint32_t o = pre.preorder[i];
                assert_true(o < n);
                assert_int_equal(pos[o], UINT32_MAX); /* listed once */
                pos[o] = i;
                assert_int_equal(pre.preorder_retained[i], full.retained[o]);
            }
            for (uint32_t k = 0; k < n; k++) {
                assert_int_equal(pos[k] != UINT32_MAX, full.idom[k] != GCH_NONE);
                uint32_t d2 = full.idom[k];
                if (d2 != GCH_NONE && d2 != GCH_DOM_VROOT)
                    assert_true(pos[d2] < pos[k]); /* dominator first */
                if (pos[k] == UINT32_MAX)
                    continue;
                if (!opts.preorder_idom) {
                    assert_null(pre.preorder_idom);
                } else if (d2 == GCH_DOM_VROOT) {
                    assert_int_equal(pre.preorder_idom[pos[k]], GCH_DOM_VROOT);
                } else {
                    assert_int_equal(pre.preorder_idom[pos[k]], pos[d2]);
                }
            }
            free(pos);
            uint32_t cnt = 77;
            assert_null(gch_domtree_children(&pre, GCH_DOM_VROOT, &cnt));
            assert_int_equal(cnt, 0);
            if (n) {
                assert_null(gch_domtree_children(&pre, 0, &cnt));
                uint32_t *chain = NULL;
                size_t len = 9;
                assert_int_equal(gch_dom_chain(&pre, 0, &chain, &len, NULL), GCH_EINVAL);
                assert_null(chain);
            }
            gch_domtree_free(&full);
            gch_domtree_free(&pre);
            assert_null(pre.preorder);
        }
        gch_dump_free(d);
    }
    /* children and preorder_only together: refused, *out zeroed. */
    gch_dump *d = th_dump_new(3, 1, 1, 0);
    gch_domtree t;
    gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
    opts.preorder_only = 1;
    memset(&t, 0x5a, sizeof t);
    assert_int_equal(gch_domtree_build_ex(d->heaps[0], &opts, &t, NULL), GCH_EINVAL);
    assert_null(t.preorder);
    assert_null(t.idom);
    gch_dump_free(d);
}

/* mode -1: gch_domtree_build; 0 and 1: gch_domtree_build_ex without and
 * with children lists; 2: in preorder only. */
static void alloc_failures_on(gch_heap *h, int mode)
{
    const int children = mode == 1 || mode < 0;
    for (long fail = 0;; fail++) {
        th_alloc_install(fail);
        gch_domtree t;
        gch_error err;
        gch_error_clear(&err);
        gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
        opts.children = children;
        opts.preorder_only = mode == 2;
        gch_status st = mode < 0 ? gch_domtree_build(h, 0, &t, &err)
                                 : gch_domtree_build_ex(h, &opts, &t, &err);
        if (st == GCH_OK && mode == 2) {
            assert_null(t.idom);
            assert_true(t.live_count == 0 || t.preorder != NULL);
            gch_domtree_free(&t);
        } else if (st == GCH_OK) {
            /* The next allocations belong to the queries on the tree. */
            uint64_t per[4];
            if (children) {
                st = gch_type_retained(h, &t, per, &err);
            } else {
                assert_null(t.child_start);
                assert_null(t.children);
                assert_int_equal(gch_type_retained(h, &t, per, NULL), GCH_EINVAL);
            }
            if (st == GCH_OK) {
                uint32_t *chain = NULL;
                size_t len;
                st = gch_dom_chain(&t, h->object_count - 1, &chain, &len, &err);
                if (st == GCH_OK)
                    assert_true(len > 0);
                gch_free(chain);
            }
            gch_domtree_free(&t);
        } else {
            assert_null(t.idom);
            assert_null(t.children);
            assert_null(t.preorder);
        }
        long calls = th_alloc_calls();
        size_t live = th_alloc_live_blocks();
        th_alloc_uninstall();
        assert_int_equal(live, 0);
        if (st == GCH_OK) {
            assert_true(calls <= fail); /* nothing failed */
            break;
        }
        assert_int_equal(st, GCH_ENOMEM);
        assert_int_equal(err.status, GCH_ENOMEM);
        assert_true(fail < 1000);
    }
}

static void test_alloc_failure(void **state)
{
    (void)state;
    /* A chain with a side branch and a cycle, types for the retained walk. */
    enum { N = 100 };
    uint32_t src[2 * N], dst[2 * N];
    size_t m = 0;
    for (uint32_t i = 0; i + 1 < N; i++) {
        src[m] = i;
        dst[m++] = i + 1;
        if (i % 5 == 0) {
            src[m] = i + 1;
            dst[m++] = i / 2;
        }
    }
    for (int rev = 0; rev <= 1; rev++) {
        gch_dump *d = th_dump_new(N, 4, 2, 0);
        gch_heap *h = d->heaps[0];
        th_set_edges(h, src, dst, m);
        for (uint32_t i = 0; i < N; i++) {
            h->object_size32[i] = i + 1;
            h->object_type[i] = i % 4;
        }
        h->root_object[0] = 0;
        h->root_object[1] = 7;
        if (rev)
            assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        for (int par = 0; par <= 1; par++) {
            set_parallel(par);
            for (int mode = -1; mode <= 2; mode++)
                alloc_failures_on(h, mode);
            gch_internal_set_tuning(NULL);
        }
        gch_dump_free(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_diamond),
        cmocka_unit_test(test_hand_roots),
        cmocka_unit_test(test_hand_type_union),
        cmocka_unit_test(test_hand_lengauer_tarjan),
        cmocka_unit_test(test_empty_and_invalid),
        cmocka_unit_test(test_random_oracle),
        cmocka_unit_test(test_random_dense),
        cmocka_unit_test(test_back_edges_fill_pairs),
        cmocka_unit_test(test_parallel_matches_serial),
        cmocka_unit_test(test_lite_matches_full),
        cmocka_unit_test(test_preorder_matches_full),
        cmocka_unit_test(test_progress_reports),
        cmocka_unit_test(test_child_order_ties),
        cmocka_unit_test(test_sort_lists_by_key),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
