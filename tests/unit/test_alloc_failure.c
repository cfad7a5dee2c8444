/* Allocation-failure injection: every allocation of a whole parse-and-analyse
 * (reader, builder, live set, histogram, reverse index) is made to fail in
 * turn. Each failing run must return GCH_ENOMEM - not another status, not a
 * success with missing data - free every block it allocated, and not crash.
 * The only tolerated "failure that succeeds" is a realloc that shrinks a
 * block: the library then keeps the bigger block, and the results must equal
 * those of a run without failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "fail_alloc.h"
#include "heap_check.h"

#define MAX_HEAPS 4

typedef struct result {
    gch_status st;
    size_t heaps;
    heap_summary sum[MAX_HEAPS];
} result;

/* A small dump touching every allocation site of the reader and builder:
 * two sections, timestamps (meta), undeclared and duplicate types, two types
 * with one name (merge), duplicate objects, dangling references, static roots
 * with and without containers, a section without references, enough objects and strings for arrays and hash
 * tables to grow. */
static char *make_dump(size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
#define P(...) n += (size_t)snprintf(s + n, cap - n, __VA_ARGS__)
    P("a 2 first.exe 100\n");
    for (int t = 1; t <= 40; t++)
        P("t %x Type%d\n", t, t % 37); /* 3 pairs of types share a name */
    P("t 5 Again\n");                  /* duplicate type record */
    for (int i = 1; i <= 70; i++) {
        P("o %x %x %x", 0x1000 + i, i % 45 + 1, 8 * i); /* types 41-45 undeclared */
        for (int k = 1; k <= i % 5; k++)
            P(" %x", 0x1000 + (i * 7 + k) % 80); /* ids above 0x1046 are absent */
        P("\n");
        if (i % 9 == 0)
            P("r %x %x %x%s\n", 0x1000 + i, i % 6, i % 3, i % 6 == 4 ? " 3" : "");
    }
    P("o 1001 1 8 1002\n"); /* duplicate object */
    P("r 1005 4 0 99\n");   /* static root, undeclared container */
    P("r 9999 1 0\n");      /* root on an absent object */
    P("c first.exe 200\n");
    P("a 2 noref\nt 1 X\no 5 1 8\nc noref\n");         /* a section without references */
    P("a 2 second\nt 1 Only\no 1 1 10 1\nr 1 1 2\n"); /* no end record */
#undef P
    assert_true(n < cap);
    *len = n;
    return s;
}

typedef struct mem_src {
    const char *p;
    size_t left;
} mem_src;

/* Reads at most 100 bytes at a time: lines cross read boundaries. */
static long long mem_read(void *ctx, void *buf, size_t cap)
{
    mem_src *m = ctx;
    size_t n = m->left < cap ? m->left : cap;
    if (n > 100)
        n = 100;
    memcpy(buf, m->p, n);
    m->p += n;
    m->left -= n;
    return (long long)n;
}

/* streaming = 0: gch_read_gclog_buffer; 1: gch_load (detection + streaming reader). */
static void run_pipeline(const char *data, size_t len, int streaming, result *res)
{
    gch_dump *d = NULL;
    gch_error err;
    memset(res, 0, sizeof *res);
    if (streaming) {
        mem_src mem = { data, len };
        gch_source src = { mem_read, &mem };
        res->st = gch_load(&src, GCH_FORMAT_AUTO, NULL, &d, &err);
    } else {
        res->st = gch_read_gclog_buffer(data, len, NULL, &d, &err);
    }
    if (res->st != GCH_OK) {
        assert_null(d);
        assert_int_equal(err.status, res->st);
        return;
    }
    const char *why = heap_check_dump(d);
    if (why)
        fail_msg("dump invariant: %s", why);
    assert_true(d->heap_count <= MAX_HEAPS);
    res->heaps = d->heap_count;
    for (size_t i = 0; i < d->heap_count; i++) {
        gch_status st;
        why = heap_check_analyses(d->heaps[i], &st, &res->sum[i]);
        if (why)
            fail_msg("analysis invariant: %s", why);
        if (st != GCH_OK) {
            res->st = st;
            break;
        }
    }
    gch_dump_free(d);
}

static void same_results(const result *a, const result *b)
{
    assert_int_equal(a->heaps, b->heaps);
    assert_memory_equal(a->sum, b->sum, sizeof a->sum[0] * a->heaps);
}

/* Fails call N of one kind (mallocs or reallocs) for N = 1, 2, ... until a
 * run completes without reaching call N. Returns the number of failing runs. */
static long sweep(int fail_reallocs, int streaming)
{
    size_t len;
    char *dump = make_dump(&len);
    result ref, got;

    fail_alloc_kind kind = fail_reallocs ? FAIL_ALLOC_REALLOC : FAIL_ALLOC_MALLOC;
    const char *what = fail_reallocs ? "realloc" : "malloc";
    fail_alloc_install_kind(0, kind);
    run_pipeline(dump, len, streaming, &ref);
    assert_int_equal(ref.st, GCH_OK);
    assert_int_equal(fail_alloc.live, 0);
    assert_int_equal(ref.heaps, 3);
    long total = fail_alloc.calls;
    assert_true(total > 10);

    long failing = 0;
    for (long n = 1;; n++) {
        fail_alloc_install_kind(n, kind);
        run_pipeline(dump, len, streaming, &got);
        if (fail_alloc.live != 0)
            fail_msg("%s %ld failed: %ld blocks leaked (status %d)", what, n, fail_alloc.live, (int)got.st);
        if (!fail_alloc.hit) {
            assert_int_equal(got.st, GCH_OK);
            same_results(&ref, &got);
            break;
        }
        failing++;
        if (got.st == GCH_OK) {
            if (!fail_alloc.hit_shrink)
                fail_msg("%s %ld failed but the run succeeded", what, n);
            same_results(&ref, &got);
        } else if (got.st != GCH_ENOMEM) {
            fail_msg("%s %ld failed: status %d, expected GCH_ENOMEM", what, n, (int)got.st);
        }
    }
    fail_alloc_remove();
    free(dump);
    assert_int_equal(failing, total);
    return failing;
}

static void fail_each_malloc(void **state)
{
    (void)state;
    long n = sweep(0, 0);
    print_message("failed each of %ld mallocs in turn\n", n);
}

static void fail_each_realloc(void **state)
{
    (void)state;
    long n = sweep(1, 0);
    print_message("failed each of %ld reallocs in turn\n", n);
}

static void fail_each_malloc_streaming(void **state)
{
    (void)state;
    long n = sweep(0, 1);
    print_message("failed each of %ld mallocs in turn (gch_load)\n", n);
}

static void fail_each_realloc_streaming(void **state)
{
    (void)state;
    long n = sweep(1, 1);
    print_message("failed each of %ld reallocs in turn (gch_load)\n", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fail_each_malloc),
        cmocka_unit_test(fail_each_realloc),
        cmocka_unit_test(fail_each_malloc_streaming),
        cmocka_unit_test(fail_each_realloc_streaming),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
