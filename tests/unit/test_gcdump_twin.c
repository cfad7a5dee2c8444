/* The committed testdata/gcdump fixtures are what tests/support/gcdump_twin.c
 * renders (regenerate with make_gcdump_fixtures when the description changes),
 * and the two renderings hold the same heap once read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcdump_oracle.h"
#include "gcdump_twin.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"

#define FIXTURES GCHEAP_TESTDATA "/gcdump/"

static void assert_file_is(const char *name, const void *want, size_t size)
{
    unsigned char *data = NULL;
    size_t got = 0;
    if (gco_read_file(name, &data, &got) != 0)
        fail_msg("%s is missing: run make_gcdump_fixtures testdata/gcdump", name);
    if (got != size || memcmp(data, want, size) != 0)
        fail_msg("%s differs from what gcdump_twin.c writes: run make_gcdump_fixtures "
                 "testdata/gcdump",
                 name);
    free(data);
}

static void test_committed_files(void **state)
{
    (void)state;
    gcdw_result r;
    gcdump_twin_gcdump(&r);
    size_t len = 0;
    char *log = gcdump_twin_gclog(&len);
    assert_file_is(FIXTURES "twin.gcdump", r.data, r.size);
    assert_file_is(FIXTURES "twin.gclog", log, len);
    assert_file_is(FIXTURES "truncated.gcdump", r.data, gcdump_twin_truncated_size(r.size));
    gcdw_result sampled;
    gcdump_twin_sampled(&sampled);
    assert_file_is(FIXTURES "sampled.gcdump", sampled.data, sampled.size);
    free(sampled.data);
    free(r.data);
    free(log);
}

static gch_heap *load(gch_dump **dump, const void *data, size_t size, int gcdump)
{
    gch_load_options opts = { 0 };
    gch_error err;
    gch_status st = gcdump ? gch_read_gcdump_buffer(data, size, &opts, dump, &err)
                           : gch_read_gclog_buffer(data, size, &opts, dump, &err);
    if (st != GCH_OK)
        fail_msg("offset %llu: %s", (unsigned long long)err.offset, err.message);
    assert_int_equal((*dump)->heap_count, 1);
    return (*dump)->heaps[0];
}

/* Counted by hand from the node table in gcdump_twin.c. */
static void check_counts(const gch_heap *h)
{
    assert_int_equal(h->object_count, 16);
    assert_int_equal(h->total_size, 24 + 14 + 20 + 34 + 20012 + 20 + 16 + 32 + 26 + 112 + 20 + 16 +
                                        16 + 30 + 12 + 1036);
    assert_int_equal(h->root_count, 10);
    assert_int_equal(h->anomalies.dangling_refs, 1);
    uint8_t *live = NULL;
    uint64_t count = 0, bytes = 0;
    gch_error err;
    assert_int_equal(gch_live_set(h, 0, &live, &count, &bytes, &err), GCH_OK);
    assert_int_equal(count, 11);
    assert_int_equal(bytes, 24 + 14 + 20 + 34 + 20012 + 20 + 16 + 32 + 26 + 112 + 20);
    gch_free(live);
}

static void test_same_heap(void **state)
{
    (void)state;
    gcdw_result r;
    gcdump_twin_gcdump(&r);
    size_t len = 0;
    char *log = gcdump_twin_gclog(&len);
    gch_dump *a = NULL, *b = NULL;
    const gch_heap *x = load(&a, r.data, r.size, 1), *y = load(&b, log, len, 0);
    check_counts(x);
    check_counts(y);
    assert_int_equal(x->object_count, y->object_count);
    for (uint32_t i = 0; i < x->object_count; i++) {
        assert_int_equal(x->object_id[i], y->object_id[i]);
        assert_int_equal(gch_object_size(x, i), gch_object_size(y, i));
        assert_string_equal(gch_type_name(x, x->object_type[i]), gch_type_name(y, y->object_type[i]));
        assert_int_equal(x->out_start[i + 1] - x->out_start[i], y->out_start[i + 1] - y->out_start[i]);
        for (uint32_t e = x->out_start[i]; e < x->out_start[i + 1]; e++)
            assert_int_equal(x->object_id[x->out_target[e]],
                             y->object_id[y->out_target[y->out_start[i] + (e - x->out_start[i])]]);
    }
    assert_int_equal(x->root_count, y->root_count);
    for (uint32_t k = 0; k < x->root_count; k++) {
        assert_int_equal(x->root_raw_id[k], y->root_raw_id[k]);
        assert_int_equal(x->root_kind[k], y->root_kind[k]);
        assert_int_equal(x->root_flags[k], y->root_flags[k]);
    }
    gch_dump_free(a);
    gch_dump_free(b);
    free(r.data);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_committed_files),
        cmocka_unit_test(test_same_heap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
