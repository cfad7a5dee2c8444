/* Shortest paths from the roots, paths from every root (--all), merged paths:
 * hand-checked examples, plain-BFS oracles on thousands of random graphs, and
 * allocation failure at every allocation. */
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

static int counts(const gch_heap *h, uint32_t r, int include_weak)
{
    return h->root_object[r] != GCH_NONE && (include_weak || !(h->root_flags[r] & GCH_ROOT_WEAK));
}

/* dist[v]: references on a shortest path from the sources (GCH_NONE when
 * unreachable). Sources: every counted root object (source == GCH_NONE), or
 * just `source`. Plain BFS. */
static void oracle_dist(const gch_heap *h, int include_weak, uint32_t source, uint32_t *dist)
{
    uint32_t n = h->object_count;
    uint32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < n; v++)
        dist[v] = GCH_NONE;
    if (source != GCH_NONE) {
        dist[source] = 0;
        queue[tail++] = source;
    } else {
        /* The two tiers of gch_paths_build: roots that are no stack roots
         * first, to the end of their search; then stack roots. */
        for (int tier = 0; tier < 2; tier++) {
            for (uint32_t r = 0; r < h->root_count; r++) {
                uint32_t o = h->root_object[r];
                if (counts(h, r, include_weak) && (h->root_kind[r] == GCH_ROOT_LOCAL) == tier &&
                    dist[o] == GCH_NONE) {
                    dist[o] = 0;
                    queue[tail++] = o;
                }
            }
            while (tier == 0 && head < tail) {
                uint32_t o = queue[head++];
                for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++) {
                    uint32_t t = h->out_target[e];
                    if (dist[t] == GCH_NONE) {
                        dist[t] = dist[o] + 1;
                        queue[tail++] = t;
                    }
                }
            }
        }
    }
    while (head < tail) {
        uint32_t o = queue[head++];
        for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++) {
            uint32_t t = h->out_target[e];
            if (dist[t] == GCH_NONE) {
                dist[t] = dist[o] + 1;
                queue[tail++] = t;
            }
        }
    }
    free(queue);
}

static int has_edge(const gch_heap *h, uint32_t a, uint32_t b)
{
    for (uint32_t e = h->out_start[a]; e < h->out_start[a + 1]; e++)
        if (h->out_target[e] == b)
            return 1;
    return 0;
}

/* The first counted record naming o, or GCH_NONE. */
/* The record a path from root object o reports: its first record that is
 * no stack root, else its first. */
static uint32_t first_record(const gch_heap *h, int include_weak, uint32_t o)
{
    for (int tier = 0; tier < 2; tier++)
        for (uint32_t r = 0; r < h->root_count; r++)
            if (counts(h, r, include_weak) && h->root_object[r] == o &&
                (h->root_kind[r] == GCH_ROOT_LOCAL) == tier)
                return r;
    return GCH_NONE;
}

/* Checks that path k of s is a valid path to target of `len` objects from the
 * root object of record rec. */
static void check_path(const gch_heap *h, const gch_path_set *s, size_t k, uint32_t target,
                       size_t len, uint32_t rec)
{
    size_t a = s->start[k], b = s->start[k + 1];
    assert_int_equal(b - a, len);
    assert_int_equal(s->objects[b - 1], target);
    assert_int_equal(s->root_record[k], rec);
    assert_int_equal(s->objects[a], h->root_object[rec]);
    for (size_t i = a; i + 1 < b; i++)
        assert_true(has_edge(h, s->objects[i], s->objects[i + 1]));
}

/* ------------------------------------------------------------ merged oracle */

enum { MAXKEY = 160 };

typedef struct mentry {
    uint32_t len;            /* key length: root kind, then one type per step */
    uint32_t key[MAXKEY];
    uint64_t paths, ends, objects;
} mentry;

typedef struct mstate {
    mentry *e;
    size_t count;
    uint32_t *seen_entry, *seen_obj; /* (entry, object) pairs already counted */
    size_t seen_count;
} mstate;

static size_t mentry_find(mstate *m, const uint32_t *key, uint32_t len)
{
    for (size_t i = 0; i < m->count; i++)
        if (m->e[i].len == len && !memcmp(m->e[i].key, key, len * sizeof *key))
            return i;
    return (size_t)-1;
}

static void check_merged(const gch_heap *h, int include_weak, const gch_paths *p,
                         const uint32_t *targets, size_t tc, const gch_merged_paths *mp)
{
    uint32_t n = h->object_count;
    mstate m = { calloc(4 * n + 4, sizeof(mentry)), 0, malloc(4 * n * n + 4),
                 malloc(4 * n * n + 4), 0 };
    uint8_t *dup = calloc(n, 1);
    uint64_t ntargets = 0, unreach = 0;
    for (size_t k = 0; k < tc; k++) {
        uint32_t o = targets[k];
        if (dup[o])
            continue;
        dup[o] = 1;
        ntargets++;
        gch_path_set s;
        assert_int_equal(gch_paths_path(p, o, &s, NULL), GCH_OK);
        if (s.count == 0) {
            unreach++;
            continue;
        }
        uint32_t key[MAXKEY];
        uint32_t len = (uint32_t)s.start[1];
        assert_true(len + 1 < MAXKEY);
        key[0] = h->root_kind[s.root_record[0]];
        assert_int_equal(s.root_record[0], first_record(h, include_weak, s.objects[0]));
        for (uint32_t j = 0; j < len; j++) {
            key[j + 1] = h->object_type[s.objects[j]];
            size_t ei = mentry_find(&m, key, j + 2);
            if (ei == (size_t)-1) {
                ei = m.count++;
                m.e[ei].len = j + 2;
                memcpy(m.e[ei].key, key, (j + 2) * sizeof *key);
            }
            m.e[ei].paths++;
            if (j + 1 == len)
                m.e[ei].ends++;
            int seen = 0;
            for (size_t q = 0; q < m.seen_count; q++)
                if (m.seen_entry[q] == ei && m.seen_obj[q] == s.objects[j])
                    seen = 1;
            if (!seen) {
                m.seen_entry[m.seen_count] = (uint32_t)ei;
                m.seen_obj[m.seen_count++] = s.objects[j];
                m.e[ei].objects++;
            }
        }
        gch_path_set_free(&s);
    }
    assert_int_equal(mp->targets, ntargets);
    assert_int_equal(mp->unreachable, unreach);
    assert_int_equal(mp->node_count, m.count);
    for (size_t k = 0; k < mp->node_count; k++) {
        const gch_merged_node *nd = &mp->nodes[k];
        assert_true(nd->parent == GCH_NONE || nd->parent < k);
        /* Key of node k, built bottom-up. */
        uint32_t rev[MAXKEY], len = 0;
        uint32_t x = (uint32_t)k;
        for (;;) {
            rev[len++] = mp->nodes[x].type;
            if (mp->nodes[x].parent == GCH_NONE)
                break;
            x = mp->nodes[x].parent;
        }
        uint32_t key[MAXKEY];
        key[0] = mp->nodes[x].root_kind;
        for (uint32_t j = 0; j < len; j++)
            key[j + 1] = rev[len - 1 - j];
        size_t ei = mentry_find(&m, key, len + 1);
        assert_true(ei != (size_t)-1);
        assert_int_equal(nd->paths, m.e[ei].paths);
        assert_int_equal(nd->ends, m.e[ei].ends);
        assert_int_equal(nd->objects, m.e[ei].objects);
    }
    /* Children lists: every node once, under its parent, sorted. */
    size_t total = 0;
    for (size_t k = 0; k <= mp->node_count; k++) {
        for (size_t j = mp->child_start[k]; j < mp->child_start[k + 1]; j++) {
            uint32_t c = mp->children[j];
            assert_int_equal(mp->nodes[c].parent, k == mp->node_count ? GCH_NONE : (uint32_t)k);
            if (j > mp->child_start[k]) {
                uint32_t b = mp->children[j - 1];
                assert_true(mp->nodes[b].paths > mp->nodes[c].paths ||
                            (mp->nodes[b].paths == mp->nodes[c].paths && b < c));
            }
            total++;
        }
    }
    assert_int_equal(total, mp->node_count);
    free(m.e);
    free(m.seen_entry);
    free(m.seen_obj);
    free(dup);
}

/* ------------------------------------------------------------ random */

static void test_random_oracle(void **state)
{
    (void)state;
    th_rng rng = { 4242 };
    uint64_t reached = 0, multi = 0;
    for (int g = 0; g < 3000; g++) {
        gch_dump *d = th_random_dump(&rng, g < 2950 ? 24 : 120);
        gch_heap *h = d->heaps[0];
        uint32_t n = h->object_count;
        assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
        uint32_t *dist = malloc(n * sizeof *dist), *dr = malloc(n * sizeof *dr);
        for (int weak = 0; weak <= 1; weak++) {
            oracle_dist(h, weak, GCH_NONE, dist);
            gch_paths p;
            assert_int_equal(gch_paths_build(h, weak, &p, NULL), GCH_OK);
            /* Root objects and their first records. */
            for (uint32_t o = 0; o < n; o++) {
                uint32_t rec = first_record(h, weak, o);
                assert_int_equal(gch_paths_root_record(&p, o), rec);
                /* A stack root object that another root reaches is no path root. */
                assert_int_equal(p.parent[o] == GCH_PATH_ROOT, rec != GCH_NONE && dist[o] == 0);
            }
            /* One shortest path per object. */
            for (uint32_t o = 0; o < n; o++) {
                assert_int_equal(gch_paths_depth(&p, o), dist[o]);
                gch_path_set s;
                assert_int_equal(gch_paths_path(&p, o, &s, NULL), GCH_OK);
                if (dist[o] == GCH_NONE) {
                    assert_int_equal(p.parent[o], GCH_NONE);
                    assert_int_equal(s.count, 0);
                } else {
                    reached++;
                    assert_int_equal(s.count, 1);
                    check_path(h, &s, 0, o, (size_t)dist[o] + 1,
                               first_record(h, weak, s.objects[0]));
                }
                gch_path_set_free(&s);
            }
            /* --all for a few targets and limits. */
            for (int q = 0; q < 3; q++) {
                uint32_t target = th_below(&rng, n);
                size_t maxp = q == 0 ? (size_t)-1 : th_below(&rng, 4);
                /* Expected: distinct root objects reaching target, first
                 * records, sorted by distance then record. */
                uint32_t er[16], ed[16];
                size_t ec = 0;
                uint8_t *seen = calloc(n, 1);
                for (uint32_t r = 0; r < h->root_count; r++) {
                    if (!counts(h, r, weak) || seen[h->root_object[r]])
                        continue;
                    seen[h->root_object[r]] = 1;
                    oracle_dist(h, weak, h->root_object[r], dr);
                    if (dr[target] == GCH_NONE)
                        continue;
                    size_t i = ec++;
                    while (i > 0 && ed[i - 1] > dr[target]) {
                        er[i] = er[i - 1];
                        ed[i] = ed[i - 1];
                        i--;
                    }
                    er[i] = r;
                    ed[i] = dr[target];
                }
                free(seen);
                gch_path_set s;
                assert_int_equal(gch_paths_all(h, weak, target, maxp, &s, NULL), GCH_OK);
                size_t want = ec < maxp ? ec : maxp;
                assert_int_equal(s.count, want);
                if (want > 1)
                    multi++;
                for (size_t k = 0; k < want; k++)
                    check_path(h, &s, k, target, (size_t)ed[k] + 1, er[k]);
                gch_path_set_free(&s);
            }
            /* Merged paths of each type's instances (plus a duplicate). */
            for (uint32_t ty = 0; ty < h->type_count; ty++) {
                uint32_t *tg = malloc((n + 1) * sizeof *tg);
                size_t tc = 0;
                for (uint32_t o = 0; o < n; o++)
                    if (h->object_type[o] == ty)
                        tg[tc++] = o;
                if (tc)
                    tg[tc++] = tg[0];
                gch_merged_paths mp;
                assert_int_equal(gch_merged_paths_build(h, &p, tg, tc, &mp, NULL), GCH_OK);
                check_merged(h, weak, &p, tg, tc, &mp);
                gch_merged_paths_free(&mp);
                free(tg);
            }
            gch_paths_free(&p);
        }
        free(dist);
        free(dr);
        gch_dump_free(d);
    }
    print_message("random graphs: %llu reachable objects, %llu --all queries with several paths\n",
                  (unsigned long long)reached, (unsigned long long)multi);
    assert_true(reached > 10000 && multi > 300);
}

/* ------------------------------------------------------------ by hand */

/* Objects (index: name type size):
 *   0 R1 Holder, 1 A Mid, 2 B Mid, 3 T Target, 4 R2 Holder, 5 W Holder,
 *   6 T2 Target, 7 T3 Target, 8 T4 Target (unreachable).
 * References: R1->A, A->B, B->T, B->T2, R2->A, R2->T3, W->T.
 * Roots: #0 local R1, #1 static R2, #2 handle W (weak), #3 handle R1.
 *
 * R1 is named by a stack root (#0) and a handle (#3): paths start from the
 * roots that are no stack roots first, so R1 reports #3. BFS from R2, R1
 * (record order of the first tier): A, T3 found from R2; B from A; T, T2
 * from B. Path to T: R2 A B T (record #1), depth 3. T3: R2 T3 (#1).
 * --all T (strong): R1 (#0, 3 refs), R2 (#1, 3 refs): R1 A B T, R2 A B T.
 * --all T with weak roots: W (#2, 1 ref) first: W T, then R1..., R2...
 * Merged, targets T, T2, T3, T4, T (duplicate): 4 targets, T4 unreachable.
 *   (static, Holder) paths 3 -> Mid 2 -> Mid 2 -> Target 2 (ends 2, objects 2)
 *                            -> Target 1 (ends 1)
 *   5 nodes; one top node. With weak roots W (#2, a handle) comes before R1:
 *   T is W T, so 7 nodes (test_alloc_failure). */
static gch_dump *hand_heap(void)
{
    const uint32_t src[] = { 0, 1, 2, 2, 4, 4, 5 };
    const uint32_t dst[] = { 1, 2, 3, 6, 1, 7, 3 };
    gch_dump *d = th_dump_new(9, 3, 4, 0);
    gch_heap *h = d->heaps[0];
    th_set_edges(h, src, dst, 7);
    const uint32_t types[] = { 0, 1, 1, 2, 0, 0, 2, 2, 2 };
    for (int i = 0; i < 9; i++) {
        h->object_type[i] = types[i];
        h->object_size32[i] = 8;
    }
    const uint32_t ro[] = { 0, 4, 5, 0 };
    const uint8_t rk[] = { GCH_ROOT_LOCAL, GCH_ROOT_STATIC, GCH_ROOT_HANDLE, GCH_ROOT_HANDLE };
    for (int r = 0; r < 4; r++) {
        h->root_object[r] = ro[r];
        h->root_kind[r] = rk[r];
    }
    h->root_flags[2] = GCH_ROOT_WEAK;
    return d;
}

static void test_hand_paths(void **state)
{
    (void)state;
    gch_dump *d = hand_heap();
    gch_heap *h = d->heaps[0];
    gch_paths p;
    assert_int_equal(gch_paths_build(h, 0, &p, NULL), GCH_OK);
    assert_int_equal(p.root_object_count, 2);
    assert_int_equal(gch_paths_root_record(&p, 0), 3);
    assert_int_equal(gch_paths_root_record(&p, 4), 1);
    assert_int_equal(gch_paths_root_record(&p, 5), GCH_NONE);
    assert_int_equal(p.parent[1], 4);
    assert_int_equal(p.parent[8], GCH_NONE);
    assert_int_equal(p.parent[5], GCH_NONE);
    assert_int_equal(gch_paths_depth(&p, 3), 3);

    gch_path_set s;
    assert_int_equal(gch_paths_path(&p, 3, &s, NULL), GCH_OK);
    assert_int_equal(s.count, 1);
    const uint32_t want_t[] = { 4, 1, 2, 3 };
    assert_memory_equal(s.objects, want_t, sizeof want_t);
    assert_int_equal(s.root_record[0], 1);
    gch_path_set_free(&s);
    assert_int_equal(gch_paths_path(&p, 7, &s, NULL), GCH_OK);
    assert_int_equal(s.start[1], 2);
    assert_int_equal(s.objects[0], 4);
    assert_int_equal(s.root_record[0], 1);
    gch_path_set_free(&s);
    assert_int_equal(gch_paths_path(&p, 8, &s, NULL), GCH_OK);
    assert_int_equal(s.count, 0);
    assert_int_equal(gch_paths_path(&p, 9, &s, NULL), GCH_EINVAL);

    /* --all needs the reverse index. */
    assert_int_equal(gch_paths_all(h, 0, 3, 10, &s, NULL), GCH_EINVAL);
    assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
    assert_int_equal(gch_paths_all(h, 0, 3, 10, &s, NULL), GCH_OK);
    assert_int_equal(s.count, 2);
    const uint32_t want_all[] = { 0, 1, 2, 3, 4, 1, 2, 3 };
    assert_int_equal(s.start[2], 8);
    assert_memory_equal(s.objects, want_all, sizeof want_all);
    assert_int_equal(s.root_record[0], 0);
    assert_int_equal(s.root_record[1], 1);
    gch_path_set_free(&s);
    assert_int_equal(gch_paths_all(h, 1, 3, 2, &s, NULL), GCH_OK);
    assert_int_equal(s.count, 2);
    const uint32_t want_weak[] = { 5, 3, 0, 1, 2, 3 };
    assert_memory_equal(s.objects, want_weak, sizeof want_weak);
    assert_int_equal(s.root_record[0], 2);
    assert_int_equal(s.root_record[1], 0);
    gch_path_set_free(&s);
    assert_int_equal(gch_paths_all(h, 0, 8, 10, &s, NULL), GCH_OK);
    assert_int_equal(s.count, 0);
    assert_int_equal(gch_paths_all(h, 0, 3, 0, &s, NULL), GCH_OK);
    assert_int_equal(s.count, 0);
    gch_path_set_free(&s);

    /* Merged. */
    const uint32_t targets[] = { 3, 6, 7, 8, 3 };
    gch_merged_paths mp;
    assert_int_equal(gch_merged_paths_build(h, &p, targets, 5, &mp, NULL), GCH_OK);
    assert_int_equal(mp.targets, 4);
    assert_int_equal(mp.unreachable, 1);
    assert_int_equal(mp.node_count, 5);
    size_t m = mp.node_count;
    assert_int_equal(mp.child_start[m + 1] - mp.child_start[m], 1);
    uint32_t top0 = mp.children[mp.child_start[m]];
    assert_int_equal(mp.nodes[top0].root_kind, GCH_ROOT_STATIC);
    assert_int_equal(mp.nodes[top0].type, 0);
    assert_int_equal(mp.nodes[top0].paths, 3);
    assert_int_equal(mp.child_start[top0 + 1] - mp.child_start[top0], 2);
    uint32_t t3 = mp.children[mp.child_start[top0] + 1];
    assert_int_equal(mp.nodes[t3].type, 2);
    assert_int_equal(mp.nodes[t3].paths, 1);
    assert_int_equal(mp.nodes[t3].ends, 1);
    /* Down the first branch: Mid, Mid, Target (2 ends, 2 objects). */
    uint32_t x = top0;
    const uint32_t chain_types[] = { 1, 1, 2 };
    for (int k = 0; k < 3; k++) {
        assert_int_equal(mp.child_start[x + 1] - mp.child_start[x], k == 0 ? 2 : 1);
        x = mp.children[mp.child_start[x]];
        assert_int_equal(mp.nodes[x].type, chain_types[k]);
        assert_int_equal(mp.nodes[x].paths, 2);
    }
    assert_int_equal(mp.nodes[x].ends, 2);
    assert_int_equal(mp.nodes[x].objects, 2);
    assert_int_equal(mp.child_start[x + 1] - mp.child_start[x], 0);
    gch_merged_paths_free(&mp);
    gch_merged_paths_free(&mp);
    const uint32_t bad[] = { 9 };
    assert_int_equal(gch_merged_paths_build(h, &p, bad, 1, &mp, NULL), GCH_EINVAL);
    gch_paths_free(&p);
    gch_paths_free(&p);
    gch_dump_free(d);
}

/* A deep chain: paths are walked iteratively. 0 -> 1 -> ... -> n-1, root 0. */
static void test_deep_chain_paths(void **state)
{
    (void)state;
    enum { N = 1000000 };
    gch_dump *d = th_dump_new(N, 2, 1, N - 1);
    gch_heap *h = d->heaps[0];
    for (uint32_t i = 0; i < N; i++) {
        h->out_start[i + 1] = i + 1 < N ? i + 1 : N - 1;
        if (i + 1 < N)
            h->out_target[i] = i + 1;
        h->object_type[i] = i % 2;
    }
    h->root_object[0] = 0;
    assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
    gch_paths p;
    assert_int_equal(gch_paths_build(h, 0, &p, NULL), GCH_OK);
    assert_int_equal(gch_paths_depth(&p, N - 1), N - 1);
    gch_path_set s;
    assert_int_equal(gch_paths_all(h, 0, N - 1, 5, &s, NULL), GCH_OK);
    assert_int_equal(s.count, 1);
    assert_int_equal(s.start[1], N);
    assert_int_equal(s.objects[N / 2], N / 2);
    gch_path_set_free(&s);
    /* Every object a target: one merged chain of N nodes alternating types. */
    uint32_t *all = malloc(N * sizeof *all);
    for (uint32_t i = 0; i < N; i++)
        all[i] = N - 1 - i;
    gch_merged_paths mp;
    assert_int_equal(gch_merged_paths_build(h, &p, all, N, &mp, NULL), GCH_OK);
    assert_int_equal(mp.node_count, N);
    assert_int_equal(mp.nodes[mp.children[mp.child_start[N]]].paths, N);
    gch_merged_paths_free(&mp);
    free(all);
    gch_paths_free(&p);
    gch_dump_free(d);
}

/* ------------------------------------------------------------ allocation */

static void test_alloc_failure(void **state)
{
    (void)state;
    gch_dump *d = hand_heap();
    gch_heap *h = d->heaps[0];
    assert_int_equal(gch_heap_build_reverse(h, NULL), GCH_OK);
    const uint32_t targets[] = { 3, 6, 7, 8, 3 };
    for (int which = 0; which < 4; which++) {
        for (long fail = 0;; fail++) {
            th_alloc_install(fail);
            gch_error err;
            gch_error_clear(&err);
            gch_paths p;
            gch_path_set s;
            gch_merged_paths mp;
            gch_status st = gch_paths_build(h, 1, &p, &err);
            if (st != GCH_OK)
                assert_null(p.parent);
            if (st == GCH_OK) {
                switch (which) {
                case 0:
                    break;
                case 1:
                    st = gch_paths_path(&p, 3, &s, &err);
                    if (st == GCH_OK)
                        assert_int_equal(s.count, 1);
                    gch_path_set_free(&s);
                    break;
                case 2:
                    st = gch_paths_all(h, 1, 3, 10, &s, &err);
                    if (st == GCH_OK)
                        assert_int_equal(s.count, 3);
                    else
                        assert_null(s.objects);
                    gch_path_set_free(&s);
                    break;
                default:
                    st = gch_merged_paths_build(h, &p, targets, 5, &mp, &err);
                    if (st == GCH_OK)
                        assert_int_equal(mp.node_count, 7);
                    else
                        assert_null(mp.nodes);
                    gch_merged_paths_free(&mp);
                    break;
                }
                gch_paths_free(&p);
            }
            long calls = th_alloc_calls();
            size_t live = th_alloc_live_blocks();
            th_alloc_uninstall();
            assert_int_equal(live, 0);
            if (st == GCH_OK) {
                assert_true(calls <= fail);
                break;
            }
            assert_int_equal(st, GCH_ENOMEM);
            assert_int_equal(err.status, GCH_ENOMEM);
        }
    }
    gch_dump_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_paths),
        cmocka_unit_test(test_random_oracle),
        cmocka_unit_test(test_deep_chain_paths),
        cmocka_unit_test(test_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
