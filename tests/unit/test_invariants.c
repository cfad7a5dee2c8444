/* GCH_ASSERT (src/util/invariant.h). In a build with assertions (Debug, the
 * sanitizer builds, -DGCHEAP_ASSERTS=ON) a broken invariant reaches the
 * handler, here through the library's own entry checks on a heap whose CSR
 * is broken on purpose, and sound heaps pass every check. In a build without
 * them the condition is not even evaluated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/dominators.h"
#include "gcheap/graph.h"
#include "graph_heap.h"
#include "invariant.h"

static int evaluations;
static int counted(int v)
{
    evaluations++;
    return v;
}

static jmp_buf escape;
static int failures;
static char last_cond[128];

static void catch_failure(const char *cond, const char *file, int line)
{
    (void)file;
    (void)line;
    failures++;
    strncpy(last_cond, cond, sizeof last_cond - 1);
    longjmp(escape, 1);
}

static void test_evaluated_only_when_on(void **state)
{
    (void)state;
    evaluations = failures = 0;
    gch_internal_set_assert_handler(catch_failure);
    GCH_ASSERT(counted(1));
    assert_int_equal(evaluations, GCH_ASSERTS_ON ? 1 : 0);
    if (setjmp(escape) == 0)
        GCH_ASSERT(counted(0) == 1);
    assert_int_equal(failures, GCH_ASSERTS_ON ? 1 : 0);
    if (GCH_ASSERTS_ON)
        assert_string_equal(last_cond, "counted(0) == 1");
    gch_internal_set_assert_handler(NULL);
}

/* A chain 0 -> 1 -> ... -> n-1 from one root. */
static gch_dump *chain(uint32_t n)
{
    gch_dump *d = th_dump_new(n, 1, 1, n - 1);
    gch_heap *h = d->heaps[0];
    for (uint32_t i = 0; i < n; i++) {
        h->out_start[i] = i;
        h->object_size32[i] = 8;
        if (i + 1 < n)
            h->out_target[i] = i + 1;
    }
    h->out_start[n] = n - 1;
    h->ref_count = n - 1;
    h->root_object[0] = 0;
    return d;
}

static void test_sound_heap_passes(void **state)
{
    (void)state;
    failures = 0;
    gch_internal_set_assert_handler(catch_failure);
    gch_dump *d = chain(50);
    gch_domtree t;
    uint64_t count = 0;
    if (setjmp(escape) == 0) {
        assert_int_equal(gch_domtree_build(d->heaps[0], 0, &t, NULL), GCH_OK);
        assert_int_equal(gch_live_set(d->heaps[0], 0, NULL, &count, NULL, NULL), GCH_OK);
    }
    assert_int_equal(failures, 0);
    assert_int_equal(t.live_count, 50);
    assert_int_equal(count, 50);
    assert_int_equal(t.retained[0], 400);
    gch_domtree_free(&t);
    gch_dump_free(d);
    gch_internal_set_assert_handler(NULL);
}

/* Each entry check catches a CSR whose starts go down or whose target is out
 * of range: the library would otherwise read out of bounds. */
static void test_broken_csr_caught(void **state)
{
    (void)state;
    if (!GCH_ASSERTS_ON) {
        /* Without assertions nothing checks it (and the call would read out
         * of bounds): what this build can show is the test above. */
        skip();
    }
    gch_internal_set_assert_handler(catch_failure);
    for (int what = 0; what < 4; what++) {
        gch_dump *d = chain(50);
        gch_heap *h = d->heaps[0];
        if (what & 1)
            h->out_start[20] = 30; /* above out_start[21] = 21 */
        else
            h->out_target[7] = 50; /* one past the last object */
        failures = 0;
        if (setjmp(escape) == 0) {
            gch_domtree t;
            uint64_t count;
            if (what & 2)
                gch_domtree_build(h, 0, &t, NULL);
            else
                gch_live_set(h, 0, NULL, &count, NULL, NULL);
        }
        /* The check runs before anything is allocated: leaving by longjmp
         * leaks nothing. */
        assert_int_equal(failures, 1);
        assert_non_null(strstr(last_cond, what & 1 ? "start[i] <= start[i + 1]" : "target[e] < limit"));
        gch_dump_free(d);
    }
    gch_internal_set_assert_handler(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_evaluated_only_when_on),
        cmocka_unit_test(test_sound_heap_passes),
        cmocka_unit_test(test_broken_csr_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
