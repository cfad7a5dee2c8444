/* objsize (SOS semantics): by hand, against a plain BFS on random graphs, and
 * under allocation failure. */
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
#include "tuning.h"

/* Objects 0..5, types A(0)/B(1), sizes 1,2,4,8,16,32:
 *   0 -> 1, 1 -> 2, 2 -> 1 (cycle), 2 -> 2 (self), 3 -> 2, 4 (alone), 5 -> 0.
 * No roots at all: objsize ignores liveness.
 *   objsize(0)    = {0,1,2}     3 objects, 7 bytes; A: 0,2 (2, 5 bytes), B: 1 (1, 2)
 *   objsize(3)    = {3,2,1}     3 objects, 14 bytes
 *   objsize(0,3,0)= {0,1,2,3}   4 objects, 15 bytes (union, duplicates once)
 *   objsize(4)    = {4}         1 object, 16 bytes
 *   objsize()     = nothing. */
static void test_hand(void **state)
{
    (void)state;
    const uint32_t src[] = { 0, 1, 2, 2, 3, 5 };
    const uint32_t dst[] = { 1, 2, 1, 2, 2, 0 };
    gch_dump *d = th_dump_new(6, 2, 0, 0);
    gch_heap *h = d->heaps[0];
    th_set_edges(h, src, dst, 6);
    const uint32_t types[] = { 0, 1, 0, 1, 0, 1 };
    for (int i = 0; i < 6; i++) {
        h->object_size32[i] = 1u << i;
        h->object_type[i] = types[i];
    }
    uint64_t c, b, pc[2], pb[2];
    const uint32_t s0[] = { 0 };
    assert_int_equal(gch_objsize(h, s0, 1, &c, &b, pc, pb, NULL), GCH_OK);
    assert_int_equal(c, 3);
    assert_int_equal(b, 7);
    assert_int_equal(pc[0], 2);
    assert_int_equal(pb[0], 5);
    assert_int_equal(pc[1], 1);
    assert_int_equal(pb[1], 2);
    const uint32_t s3[] = { 3 };
    assert_int_equal(gch_objsize(h, s3, 1, &c, &b, NULL, NULL, NULL), GCH_OK);
    assert_int_equal(c, 3);
    assert_int_equal(b, 14);
    const uint32_t s030[] = { 0, 3, 0 };
    assert_int_equal(gch_objsize(h, s030, 3, &c, &b, pc, NULL, NULL), GCH_OK);
    assert_int_equal(c, 4);
    assert_int_equal(b, 15);
    assert_int_equal(pc[0] + pc[1], 4);
    const uint32_t s4[] = { 4 };
    assert_int_equal(gch_objsize(h, s4, 1, &c, &b, NULL, pb, NULL), GCH_OK);
    assert_int_equal(c, 1);
    assert_int_equal(b, 16);
    assert_int_equal(pb[0], 16);
    assert_int_equal(pb[1], 0);
    assert_int_equal(gch_objsize(h, NULL, 0, &c, &b, NULL, NULL, NULL), GCH_OK);
    assert_int_equal(c, 0);
    assert_int_equal(b, 0);
    const uint32_t bad[] = { 6 };
    gch_error err;
    gch_error_clear(&err);
    assert_int_equal(gch_objsize(h, bad, 1, &c, &b, NULL, NULL, &err), GCH_EINVAL);
    assert_int_equal(err.status, GCH_EINVAL);
    h->refs_loaded = 0;
    assert_int_equal(gch_objsize(h, s0, 1, &c, &b, NULL, NULL, NULL), GCH_EINVAL);
    gch_dump_free(d);
}

static void test_random_oracle(void **state)
{
    (void)state;
    th_rng rng = { 99 };
    uint64_t total = 0;
    for (int g = 0; g < 3000; g++) {
        gch_dump *d = th_random_dump(&rng, 40);
        gch_heap *h = d->heaps[0];
        uint32_t n = h->object_count, types = h->type_count;
        uint32_t starts[8];
        size_t sc = th_below(&rng, 5);
        for (size_t k = 0; k < sc; k++)
            starts[k] = th_below(&rng, n);
        /* Oracle: BFS from all starts. */
        uint8_t *mark = calloc(n, 1);
        uint32_t *queue = malloc(n * sizeof *queue);
        uint32_t head = 0, tail = 0;
        for (size_t k = 0; k < sc; k++)
            if (!mark[starts[k]]) {
                mark[starts[k]] = 1;
                queue[tail++] = starts[k];
            }
        while (head < tail) {
            uint32_t o = queue[head++];
            for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++)
                if (!mark[h->out_target[e]]) {
                    mark[h->out_target[e]] = 1;
                    queue[tail++] = h->out_target[e];
                }
        }
        uint64_t wc = 0, wb = 0, wpc[4] = { 0 }, wpb[4] = { 0 };
        for (uint32_t o = 0; o < n; o++)
            if (mark[o]) {
                wc++;
                wb += gch_object_size(h, o);
                wpc[h->object_type[o]]++;
                wpb[h->object_type[o]] += gch_object_size(h, o);
            }
        uint64_t c, b, pc[4], pb[4];
        assert_int_equal(gch_objsize(h, starts, sc, &c, &b, pc, pb, NULL), GCH_OK);
        assert_int_equal(c, wc);
        assert_int_equal(b, wb);
        for (uint32_t t = 0; t < types; t++) {
            assert_int_equal(pc[t], wpc[t]);
            assert_int_equal(pb[t], wpb[t]);
        }
        total += wc;
        free(mark);
        free(queue);
        gch_dump_free(d);
    }
    assert_true(total > 10000);
}

/* A star of 1000 (the stack grows past its first size) and a 2,000,000 chain. */
static void test_shapes_and_alloc_failure(void **state)
{
    (void)state;
    enum { STAR = 1000 };
    uint32_t src[STAR], dst[STAR];
    for (uint32_t i = 0; i + 1 < STAR; i++) {
        src[i] = 0;
        dst[i] = i + 1;
    }
    gch_dump *d = th_dump_new(STAR, 1, 0, 0);
    gch_heap *h = d->heaps[0];
    th_set_edges(h, src, dst, STAR - 1);
    for (uint32_t i = 0; i < STAR; i++)
        h->object_size32[i] = 3;
    const uint32_t s0[] = { 0, 5 };
    for (long fail = 0;; fail++) {
        th_alloc_install(fail);
        uint64_t c = 0, b = 0, pc[1];
        gch_error err;
        gch_error_clear(&err);
        gch_status st = gch_objsize(h, s0, 2, &c, &b, pc, NULL, &err);
        long calls = th_alloc_calls();
        size_t live = th_alloc_live_blocks();
        th_alloc_uninstall();
        assert_int_equal(live, 0);
        if (st == GCH_OK) {
            assert_true(calls <= fail);
            assert_int_equal(c, STAR);
            assert_int_equal(b, 3 * STAR);
            assert_int_equal(pc[0], STAR);
            break;
        }
        assert_int_equal(st, GCH_ENOMEM);
        assert_int_equal(err.status, GCH_ENOMEM);
    }
    gch_dump_free(d);

    enum { CHAIN = 2000000 };
    d = th_dump_new(CHAIN, 1, 0, CHAIN - 1);
    h = d->heaps[0];
    for (uint32_t i = 0; i < CHAIN; i++) {
        h->out_start[i + 1] = i + 1 < CHAIN ? i + 1 : CHAIN - 1;
        if (i + 1 < CHAIN)
            h->out_target[i] = i + 1;
        h->object_size32[i] = 2;
    }
    const uint32_t mid[] = { CHAIN / 2 };
    uint64_t c, b;
    assert_int_equal(gch_objsize(h, mid, 1, &c, &b, NULL, NULL, NULL), GCH_OK);
    assert_int_equal(c, CHAIN / 2);
    assert_int_equal(b, CHAIN);
    gch_dump_free(d);
}

/* gch_live_set against a plain BFS from the counted roots, with one marking
 * thread and with two (the knob forces the two-thread path on tiny heaps):
 * the live bytes, the count and every mark must be the oracle's. Random
 * graphs from th_random_dump, plus wide ones with up to 200 root records. */
static void check_live(gch_heap *h, int include_weak)
{
    uint32_t n = h->object_count;
    uint8_t *mark = calloc(n ? n : 1, 1);
    uint32_t *queue = malloc((n ? n : 1) * sizeof *queue);
    assert_non_null(mark);
    assert_non_null(queue);
    uint32_t head = 0, tail = 0;
    for (uint32_t r = 0; r < h->root_count; r++) {
        uint32_t o = h->root_object[r];
        if (o == GCH_NONE || (!include_weak && (h->root_flags[r] & GCH_ROOT_WEAK)) || mark[o])
            continue;
        mark[o] = 1;
        queue[tail++] = o;
    }
    while (head < tail) {
        uint32_t o = queue[head++];
        for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++)
            if (!mark[h->out_target[e]]) {
                mark[h->out_target[e]] = 1;
                queue[tail++] = h->out_target[e];
            }
    }
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < n; i++)
        bytes += mark[i] ? gch_object_size(h, i) : 0;
    for (int parallel = 0; parallel < 2; parallel++) {
        gch_tuning t = gch_tuning_get();
        t.parallel_min_refs = parallel ? 0 : (size_t)1 << 40;
        t.default_workers = parallel ? 2 : 0; /* even on a one-processor machine */
        gch_internal_set_tuning(&t);
        uint8_t *live = NULL;
        uint64_t c = 0, b = 0;
        assert_int_equal(gch_live_set(h, include_weak, &live, &c, &b, NULL), GCH_OK);
        gch_internal_set_tuning(NULL);
        assert_int_equal(c, tail);
        assert_int_equal(b, bytes);
        assert_memory_equal(live, mark, n);
        gch_free(live);
    }
    free(mark);
    free(queue);
}

static void test_live_set_oracle(void **state)
{
    (void)state;
    th_rng rng = { 7 };
    for (int g = 0; g < 3000; g++) {
        gch_dump *d = th_random_dump(&rng, g % 100 == 0 ? 3000 : 60);
        check_live(d->heaps[0], g & 1);
        gch_dump_free(d);
    }
    for (int g = 0; g < 300; g++) {
        uint32_t n = 1 + th_below(&rng, g % 50 == 0 ? 20000 : 300);
        uint32_t roots = th_below(&rng, 200);
        size_t m = th_below(&rng, 3 * n + 1);
        gch_dump *d = th_dump_new(n, 1, roots, 0);
        gch_heap *h = d->heaps[0];
        uint32_t *src = malloc((m ? m : 1) * sizeof *src), *dst = malloc((m ? m : 1) * sizeof *dst);
        assert_non_null(src);
        assert_non_null(dst);
        for (size_t k = 0; k < m; k++) {
            src[k] = th_below(&rng, n);
            dst[k] = th_below(&rng, 4) ? th_below(&rng, n) : src[k];
        }
        th_set_edges(h, src, dst, m);
        free(src);
        free(dst);
        for (uint32_t i = 0; i < n; i++)
            h->object_size32[i] = th_below(&rng, 1000);
        for (uint32_t k = 0; k < roots; k++) {
            h->root_object[k] = th_below(&rng, 8) ? th_below(&rng, n) : GCH_NONE;
            h->root_flags[k] = (uint8_t)(th_below(&rng, 5) == 0 ? GCH_ROOT_WEAK : 0);
        }
        check_live(h, g & 1);
        gch_dump_free(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand),
        cmocka_unit_test(test_random_oracle),
        cmocka_unit_test(test_live_set_oracle),
        cmocka_unit_test(test_shapes_and_alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
