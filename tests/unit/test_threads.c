/* The thread shim and the callers' worker counts (src/util/threading.h):
 * with threads = 1 no thread is ever created, on every path that would start
 * one (the knobs force those paths on small inputs), and the results are the
 * same as with 2 threads, which do create threads (so the count is seen). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/dominators.h"
#include "gcheap/graph.h"
#include "gcheap/load.h"
#include "gcheap/task.h"
#include "graph_heap.h"
#include "heap_check.h"
#include "text_buf.h"
#include "threading.h"
#include "tuning.h"

/* Every parallel path on tiny inputs: two threads from 1 reference, regions
 * split from 1 byte, 64-byte blocks read ahead, the DFS's page toucher. */
static void force_parallel_paths(void)
{
    gch_tuning t = { 1, 1, 64, 0, 1, 2, 0, 0, 0 };
    gch_internal_set_tuning(&t);
}

/* A .gclog of two sections whose type, root, object and blank lines are
 * interleaved (the pipeline defers type and root lines between object runs),
 * with references forward, backward and to itself. */
static char *make_gclog(size_t *len)
{
    text t = { 0 };
    th_rng r = { 0x9e3779b97f4a7c15ull };
    for (int sec = 0; sec < 2; sec++) {
        text_add(&t, "a 1 domain%d %x\n", sec, 100 + sec);
        const uint32_t n = 600;
        for (uint32_t i = 0; i < n; i++) {
            if (i % 97 == 0)
                text_add(&t, "t %x Type%u\n", 1 + i % 5, i % 5);
            if (i % 61 == 0)
                text_add(&t, "r %x %x 0\n", 0x1000 + 8 * th_below(&r, n), i % 6);
            if (i % 131 == 0)
                text_add(&t, "  \n");
            text_add(&t, "o %x %x %x", 0x1000 + 8 * i, 1 + i % 5, 16 + i % 40);
            uint32_t refs = th_below(&r, 4);
            for (uint32_t k = 0; k < refs; k++)
                text_add(&t, " %x", 0x1000 + 8 * th_below(&r, n));
            text_add(&t, "\n");
        }
        text_add(&t, "r 1000 0 0\nc domain%d %x\n", sec, 200 + sec);
    }
    *len = t.len;
    return t.s;
}

/* The source of gch_read_gclog: the text in small pieces. */
typedef struct pieces {
    const char *s;
    size_t len, at;
} pieces;

static long long read_piece(void *ctx, void *buf, size_t cap)
{
    pieces *p = ctx;
    size_t n = p->len - p->at < 37 ? p->len - p->at : 37;
    if (n > cap)
        n = cap;
    memcpy(buf, p->s + p->at, n);
    p->at += n;
    return (long long)n;
}

static void test_worker_counts(void **state)
{
    (void)state;
    assert_int_equal(gch_parallel_for(1).workers, 1);
    assert_int_equal(gch_parallel_for(2).workers, 2);
    assert_int_equal(gch_parallel_for(64).workers, 2);
    unsigned d = gch_parallel_for(0).workers;
    assert_true(d >= 1 && d <= 2);
}

static int ran[2];
static int mark_ran(void *arg)
{
    ran[*(int *)arg]++;
    return 0;
}

static void test_run_two(void **state)
{
    (void)state;
    int a = 0, b = 1;
    for (unsigned workers = 1; workers <= 2; workers++) {
        uint64_t before = gch_internal_threads_created();
        ran[0] = ran[1] = 0;
        gch_run_two(workers, 1, mark_ran, &a, &b);
        assert_int_equal(ran[0], 1);
        assert_int_equal(ran[1], 1);
        assert_int_equal(gch_internal_threads_created() - before, workers == 2 ? 1 : 0);
        ran[0] = 0;
        gch_run_two(workers, 1, mark_ran, &a, NULL); /* no second job: no thread */
        assert_int_equal(ran[0], 1);
        assert_int_equal(gch_internal_threads_created() - before, workers == 2 ? 1 : 0);
    }
}

typedef struct outcome {
    gch_dump *buffer, *stream;
    uint64_t live_count, live_bytes;
    gch_domtree tree, reverse_tree;
    uint64_t threads_created;
} outcome;

/* Loads the text both ways and runs every threaded analysis with `threads`. */
static void run_all(const char *s, size_t len, unsigned threads, outcome *o)
{
    memset(o, 0, sizeof *o);
    uint64_t before = gch_internal_threads_created();
    gch_load_options lo = { 0 };
    lo.threads = threads;
    gch_error err;
    assert_int_equal(gch_load_buffer(s, len, GCH_FORMAT_GCLOG, &lo, &o->buffer, &err), GCH_OK);
    pieces p = { s, len, 0 };
    gch_source src = { read_piece, &p };
    assert_int_equal(gch_read_gclog(&src, &lo, &o->stream, &err), GCH_OK);
    gch_heap *h = o->buffer->heaps[1];
    gch_live_options live = { 0 };
    live.threads = threads;
    assert_int_equal(gch_live_set_ex(h, &live, NULL, &o->live_count, &o->live_bytes, &err), GCH_OK);
    gch_domtree_options dom = GCH_DOMTREE_OPTIONS_INIT;
    dom.threads = threads;
    assert_int_equal(gch_domtree_build_ex(h, &dom, &o->tree, &err), GCH_OK);
    assert_int_equal(gch_heap_build_reverse(h, &err), GCH_OK);
    assert_int_equal(gch_domtree_build_ex(h, &dom, &o->reverse_tree, &err), GCH_OK);
    o->threads_created = gch_internal_threads_created() - before;
}

static void free_outcome(outcome *o)
{
    gch_dump_free(o->buffer);
    gch_dump_free(o->stream);
    gch_domtree_free(&o->tree);
    gch_domtree_free(&o->reverse_tree);
}

static void same_tree(const gch_domtree *a, const gch_domtree *b)
{
    assert_int_equal(a->object_count, b->object_count);
    assert_int_equal(a->live_count, b->live_count);
    assert_int_equal(a->live_bytes, b->live_bytes);
    assert_memory_equal(a->idom, b->idom, a->object_count * sizeof *a->idom);
    assert_memory_equal(a->retained, b->retained, a->object_count * sizeof *a->retained);
    assert_memory_equal(a->child_start, b->child_start,
                        ((size_t)a->object_count + 2) * sizeof *a->child_start);
    assert_memory_equal(a->children, b->children, a->live_count * sizeof *a->children);
}

static void test_one_thread_creates_none(void **state)
{
    (void)state;
    size_t len;
    char *s = make_gclog(&len);
    force_parallel_paths();
    outcome one, two;
    run_all(s, len, 1, &one);
    run_all(s, len, 2, &two);
    gch_internal_set_tuning(NULL);
    assert_int_equal(one.threads_created, 0);
    assert_true(two.threads_created > 0); /* the paths were taken: the count can fail */
    assert_null(heap_check_dump(one.buffer));
    assert_null(heap_check_same_dump(one.buffer, one.stream, 1));
    assert_null(heap_check_same_dump(one.buffer, two.buffer, 1));
    assert_null(heap_check_same_dump(one.buffer, two.stream, 1));
    assert_int_equal(one.live_count, two.live_count);
    assert_int_equal(one.live_bytes, two.live_bytes);
    assert_int_equal(one.live_count, one.tree.live_count);
    assert_int_equal(one.live_bytes, one.tree.live_bytes);
    same_tree(&one.tree, &two.tree);
    same_tree(&one.tree, &one.reverse_tree);
    same_tree(&one.tree, &two.reverse_tree);
    free_outcome(&one);
    free_outcome(&two);
    free(s);
}

/* gcheap/task.h (issue 36, finding 7: the report's thread): with 2 workers
 * the task runs on a thread the shim counts; with 1 none is created and the
 * task runs in gch_task_finish; either way exactly once. */
static int bump(void *arg)
{
    (*(int *)arg)++;
    return 0;
}

static void test_task(void **state)
{
    (void)state;
    int runs = 0;
    uint64_t before = gch_internal_threads_created();
    gch_task *t = gch_task_start(1, bump, &runs);
    assert_int_equal(runs, 0);
    gch_task_finish(t);
    assert_int_equal(runs, 1);
    assert_int_equal(gch_internal_threads_created(), before);
    t = gch_task_start(2, bump, &runs);
    gch_task_finish(t);
    assert_int_equal(runs, 2);
    assert_int_equal(gch_internal_threads_created(), before + 1);
    gch_task_finish(NULL);
}

/* Zeroed options mean the defaults: the same results as threads = 1. */
static void test_zeroed_options_are_defaults(void **state)
{
    (void)state;
    size_t len;
    char *s = make_gclog(&len);
    outcome def, one;
    run_all(s, len, 0, &def);
    run_all(s, len, 1, &one);
    assert_null(heap_check_same_dump(def.buffer, one.buffer, 1));
    same_tree(&def.tree, &one.tree);
    assert_int_equal(def.live_bytes, one.live_bytes);
    free_outcome(&def);
    free_outcome(&one);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_counts),
        cmocka_unit_test(test_run_two),
        cmocka_unit_test(test_one_thread_creates_none),
        cmocka_unit_test(test_zeroed_options_are_defaults),
        cmocka_unit_test(test_task),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
