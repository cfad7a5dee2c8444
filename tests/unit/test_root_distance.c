/* gch_root_distance (what `gcheap objects` shows as distance and live) against
 * a brute-force oracle that shares nothing with its BFS: Bellman-Ford style
 * relaxation over the whole reference array until nothing changes, on
 * thousands of random graphs, a long chain, and the real .gcdump corpus; and
 * the reverse references (what `gcheap refs` lists as incoming) against a
 * count over every edge. The path search's own distances and depths
 * (gch_paths_options.dist, .depth8) against the same oracle and a walk up
 * each object's parents. */
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
#include "gcheap/load.h"
#include "gcheap/paths.h"
#include "graph_heap.h"

/* Relaxation: start with 0 at every counted root object, then lower
 * dist[t] to dist[s] + 1 over every edge, sweeping until a sweep changes
 * nothing. */
static void oracle(const gch_heap *h, int include_weak, uint32_t *dist)
{
    for (uint32_t o = 0; o < h->object_count; o++)
        dist[o] = GCH_NONE;
    for (uint32_t r = 0; r < h->root_count; r++)
        if (h->root_object[r] != GCH_NONE && (include_weak || !(h->root_flags[r] & GCH_ROOT_WEAK)))
            dist[h->root_object[r]] = 0;
    for (int changed = 1; changed;) {
        changed = 0;
        for (uint32_t s = 0; s < h->object_count; s++) {
            if (dist[s] == GCH_NONE)
                continue;
            for (uint32_t e = h->out_start[s]; e < h->out_start[s + 1]; e++) {
                uint32_t t = h->out_target[e];
                if (dist[t] == GCH_NONE || dist[t] > dist[s] + 1) {
                    dist[t] = dist[s] + 1;
                    changed = 1;
                }
            }
        }
    }
}

/* Distances equal the oracle's, and "reached" equals gch_live_set's live. */
static void check_heap(const gch_heap *h, int include_weak)
{
    uint32_t *got = NULL, *want = malloc(((size_t)h->object_count + 1) * sizeof *want);
    uint8_t *live = NULL;
    gch_error err;
    assert_int_equal(gch_root_distance(h, include_weak, &got, &err), GCH_OK);
    assert_int_equal(gch_live_set(h, include_weak, &live, NULL, NULL, &err), GCH_OK);
    oracle(h, include_weak, want);
    for (uint32_t o = 0; o < h->object_count; o++) {
        if (got[o] != want[o])
            fail_msg("object %u: distance %u, oracle %u", o, got[o], want[o]);
        assert_int_equal(got[o] != GCH_NONE, live[o] != 0);
    }
    /* The path search's depths (against a walk up each object's parents)
     * and distances (against the oracle). */
    gch_paths p;
    uint32_t *dist = malloc(((size_t)h->object_count + 1) * sizeof *dist);
    uint8_t *depth = malloc((size_t)h->object_count + 1);
    gch_paths_options po = { .include_weak = include_weak, .dist = dist, .depth8 = depth };
    assert_int_equal(gch_paths_build_ex(h, &po, &p, &err), GCH_OK);
    for (uint32_t o = 0; o < h->object_count; o++) {
        uint32_t walked = gch_paths_depth(&p, o);
        assert_int_equal(depth[o], walked < 255 ? walked : 255);
        if (dist[o] != want[o])
            fail_msg("object %u: distance with the paths %u, oracle %u", o, dist[o], want[o]);
    }
    gch_paths_free(&p);
    free(dist);
    free(depth);
    gch_free(got);
    gch_free(live);
    free(want);
}

/* Every edge s->t appears in t's incoming list as often as it is stored. */
static void check_reverse(gch_heap *h)
{
    gch_error err;
    assert_int_equal(gch_heap_build_reverse(h, &err), GCH_OK);
    uint32_t n = h->object_count;
    for (uint32_t t = 0; t < n; t++) {
        uint64_t listed = h->in_start[t + 1] - h->in_start[t];
        uint64_t counted = 0;
        for (uint32_t s = 0; s < n; s++)
            for (uint32_t e = h->out_start[s]; e < h->out_start[s + 1]; e++)
                counted += h->out_target[e] == t;
        assert_int_equal(listed, counted);
        /* repeated referrers are adjacent (refs lists each referrer once) */
        for (uint32_t k = h->in_start[t]; k + 1 < h->in_start[t + 1]; k++)
            assert_true(h->in_source[k] <= h->in_source[k + 1]);
    }
}

static void test_random(void **state)
{
    (void)state;
    th_rng rng = { 0x5eed0b1ec7ULL };
    for (int g = 0; g < 3000; g++) {
        gch_dump *d = th_random_dump(&rng, g < 2900 ? 24 : 200);
        gch_heap *h = d->heaps[0];
        check_heap(h, 0);
        check_heap(h, 1);
        check_reverse(h);
        gch_dump_free(d);
    }
}

static void test_chain(void **state)
{
    (void)state;
    uint32_t n = 100000;
    gch_dump *d = th_dump_new(n, 1, 1, n - 1);
    gch_heap *h = d->heaps[0];
    for (uint32_t o = 0; o < n; o++)
        h->out_start[o + 1] = o < n - 1 ? o + 1 : n - 1;
    for (uint32_t o = 0; o + 1 < n; o++)
        h->out_target[o] = o + 1;
    h->root_object[0] = 0;
    uint32_t *dist;
    gch_error err;
    assert_int_equal(gch_root_distance(h, 0, &dist, &err), GCH_OK);
    for (uint32_t o = 0; o < n; o++)
        assert_int_equal(dist[o], o);
    gch_free(dist);
    /* the path search's distances and byte depths (255 from 255 on) */
    uint32_t *pd = malloc((size_t)n * sizeof *pd);
    uint8_t *d8 = malloc(n);
    gch_paths p;
    gch_paths_options po = { .dist = pd, .depth8 = d8 };
    assert_int_equal(gch_paths_build_ex(h, &po, &p, &err), GCH_OK);
    for (uint32_t o = 0; o < n; o++) {
        assert_int_equal(pd[o], o);
        assert_int_equal(d8[o], o < 255 ? o : 255);
    }
    gch_paths_free(&p);
    free(pd);
    free(d8);
    gch_dump_free(d);
}

static void test_no_refs(void **state)
{
    (void)state;
    gch_dump *d = th_dump_new(3, 1, 0, 0);
    d->heaps[0]->refs_loaded = 0;
    uint32_t *dist = (uint32_t *)1;
    gch_error err;
    assert_int_equal(gch_root_distance(d->heaps[0], 0, &dist, &err), GCH_EINVAL);
    assert_null(dist);
    gch_dump_free(d);
}

static void test_corpus(void **state)
{
    (void)state;
    static const char *const names[] = { "perfview-test1.gcdump", "perfview-test2.gcdump",
                                         "gcdump-analyze-leakypage.gcdump" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char path[1024];
        /* GCHEAP_CORPUS_DIR overrides where the corpus is (a worktree's ../shared). */
        const char *dir = getenv("GCHEAP_CORPUS_DIR");
        snprintf(path, sizeof path, "%s/gcdump/%s", dir ? dir : GCHEAP_CORPUS, names[i]);
        FILE *f = fopen(path, "rb");
        if (!f) {
            print_message("corpus file %s is absent: skipping\n", path);
            continue;
        }
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        unsigned char *data = malloc((size_t)size);
        assert_int_equal(fread(data, 1, (size_t)size, f), (size_t)size);
        fclose(f);
        gch_dump *d;
        gch_error err;
        assert_int_equal(gch_load_buffer(data, (size_t)size, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_OK);
        for (size_t k = 0; k < d->heap_count; k++)
            check_heap(d->heaps[k], 0);
        gch_dump_free(d);
        free(data);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_chain),
        cmocka_unit_test(test_no_refs),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
