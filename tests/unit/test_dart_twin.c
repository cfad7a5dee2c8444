/* The committed testdata/dart twin fixtures are what tests/support/dart_twin.c
 * renders (regenerate with make_dart_fixtures when the description changes),
 * the snapshot reads as docs/dart-format.md says (written out by hand below),
 * and the two renderings hold the same heap once read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dart_heap_text.h"
#include "dart_twin.h"
#include "gcdump_oracle.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"

#define FIXTURES GCHEAP_TESTDATA "/dart/"

static void assert_file_is(const char *name, const void *want, size_t size)
{
    unsigned char *data = NULL;
    size_t got = 0;
    if (gco_read_file(name, &data, &got) != 0)
        fail_msg("%s is missing: run make_dart_fixtures testdata/dart", name);
    if (got != size || memcmp(data, want, size) != 0)
        fail_msg("%s differs from what dart_twin.c writes: run make_dart_fixtures testdata/dart",
                 name);
    free(data);
}

static void test_committed_files(void **state)
{
    (void)state;
    dtw_buf snap;
    memset(&snap, 0, sizeof snap);
    dart_twin_dartheap(&snap);
    size_t len = 0;
    char *log = dart_twin_gclog(&len);
    assert_file_is(FIXTURES "twin.dartheap", snap.data, snap.size);
    assert_file_is(FIXTURES "twin.gclog", log, len);
    dtw_buf_free(&snap);
    free(log);
}

static void test_gclog_ids(void **state)
{
    (void)state;
    assert_true(dart_twin_gclog_id(4) == 0x4);
    assert_true(dart_twin_gclog_id(10) == 0x10);
    assert_true(dart_twin_gclog_id(31) == 0x31);
    assert_true(dart_twin_gclog_id(0) == 0);
}

static gch_heap *load(gch_dump **dump, const void *data, size_t size, int dart)
{
    gch_load_options opts = { 0 };
    gch_error err;
    gch_status st = dart ? gch_read_dart_buffer(data, size, &opts, dump, &err)
                         : gch_read_gclog_buffer(data, size, &opts, dump, &err);
    if (st != GCH_OK)
        fail_msg("offset %llu: %s", (unsigned long long)err.offset, err.message);
    assert_int_equal((*dump)->heap_count, 1);
    return (*dump)->heaps[0];
}

/* Counted by hand from the object table in dart_twin.c:
 *   31 snapshot objects, 3 synthetic (1 Root, 2 Read-Only Pages, 3 isolate
 *   "main"): 28 heap objects, 4..31.
 *   Bytes: 4 App 32; 5..9 Node 5 x 24 = 120; 10 _List 40; 11 32; 12 Cache 32;
 *   13 16; 14 16; 15 24; 16 24; 17 16; 18 32; 19 32; 20 24; 21 40; 22 32;
 *   23 16; 24 16; 25 16; 26 24 (its 4096 + 512 external bytes are not added);
 *   27 24; 28 24; 29 48; 30 56; 31 16 = 752.
 *   Dead: 27, 28 (a cycle only each other reaches), 29, 30 (held by 28), 31
 *   (nothing refers to it) = 24 + 24 + 48 + 56 + 16 = 168 bytes in 5 objects.
 *   Live: 28 - 5 = 23 objects, 752 - 168 = 584 bytes.
 *   References: 4: 3 (its .isolate -> 3 dropped), 5: 2, 6: 2, 7: 1 (.value 0
 *   omitted), 8: 1, 9: 2, 10: 2, 12: 2 (._lock -> 1 dropped), 14: 1, 20: 3,
 *   22: 2 (one 0), 27: 2, 28: 2, 29: 1 (-> 2 dropped) = 26; 3 dropped.
 *   Roots: Root -> 4, 14 (internal); Read-Only Pages -> 25 (runtime);
 *   isolate .config 20, .cache 12, .buffer 26 (static; .counter is 0) = 6. */
static void check_counts(const gch_heap *h)
{
    assert_int_equal(h->object_count, 28);
    assert_true(h->total_size == 752);
    assert_true(h->ref_count == 26);
    assert_int_equal(h->root_count, 6);
    assert_true(h->anomalies.dangling_refs == 0);
    uint8_t *live = NULL;
    uint64_t count = 0, bytes = 0;
    gch_error err;
    assert_int_equal(gch_live_set(h, 0, &live, &count, &bytes, &err), GCH_OK);
    assert_true(count == 23);
    assert_true(bytes == 584);
    for (uint32_t i = 0; i < h->object_count; i++)
        assert_int_equal(live[i], i < 23); /* 4..26 live, 27..31 dead */
    gch_free(live);
}

/* The snapshot as docs/dart-format.md maps it, written out by hand: names cut
 * at '@' (_Private, ._secret), field labels by position counted before the
 * dropped and omitted references (4's .cache and .name come after its
 * dropped .isolate), no label where the class names no field, root labels. */
static const char dart_text[] =
    "object 4 App (package:app/app.dart) size 32 -> .head 5, .cache 12, .name 18\n"
    "object 5 Node (package:app/graph.dart) size 24 -> .next 6, .value 15\n"
    "object 6 Node (package:app/graph.dart) size 24 -> .next 7, .value 16\n"
    "object 7 Node (package:app/graph.dart) size 24 -> .next 5\n"
    "object 8 Node (package:app/graph.dart) size 24 -> .next 11\n"
    "object 9 Node (package:app/graph.dart) size 24 -> .next 11, .value 17\n"
    "object 10 _List (dart:core) size 40 -> 8, 9\n"
    "object 11 _OneByteString (dart:core) size 32\n"
    "object 12 Cache (package:app/cache.dart) size 32 -> .entries 10, .hits 13\n"
    "object 13 _Mint (dart:core) size 16\n"
    "object 14 _Private (package:app/app.dart) size 16 -> ._secret 19\n"
    "object 15 _OneByteString (dart:core) size 24\n"
    "object 16 _OneByteString (dart:core) size 24\n"
    "object 17 _Double (dart:core) size 16\n"
    "object 18 _OneByteString (dart:core) size 32\n"
    "object 19 _TwoByteString (dart:core) size 32\n"
    "object 20 Config (package:app/config.dart) size 24 -> .name 18, .limits 22, .title 21\n"
    "object 21 _OneByteString (dart:core) size 40\n"
    "object 22 _List (dart:core) size 32 -> 23, 24\n"
    "object 23 _Mint (dart:core) size 16\n"
    "object 24 _Double (dart:core) size 16\n"
    "object 25 _OneByteString (dart:core) size 16\n"
    "object 26 _ExternalUint8Array (dart:typed_data) size 24\n"
    "object 27 Leaked (package:app/leak.dart) size 24 -> .peer 28, .payload 18\n"
    "object 28 Leaked (package:app/leak.dart) size 24 -> .peer 27, .payload 29\n"
    "object 29 _List (dart:core) size 48 -> 30\n"
    "object 30 _OneByteString (dart:core) size 56\n"
    "object 31 _Mint (dart:core) size 16\n"
    "root internal 4 Root\n"
    "root internal 14 Root\n"
    "root runtime 25 Read-Only Pages\n"
    "root static 20 isolate main: .config\n"
    "root static 12 isolate main: .cache\n"
    "root static 26 isolate main: .buffer\n"
    "meta isolates: main\n"
    "meta shallow size (header): 752\n"
    "meta shallow size (objects): 752\n"
    "meta capacity: 752\n"
    "meta external size (header): 4608\n"
    "meta external size (properties): 4608 in 2 properties\n"
    "meta snapshot objects: 31 (3 synthetic)\n"
    "meta classes: 16\n"
    /* Heap objects' records 32 (26 kept, 3 dropped, 3 zero: 7's and 8's
     * .value, 22's third) + Root 4 (4, 14, then 2 and 3, added by the writer)
     * + Read-Only Pages 1 + isolate 4 (.counter is 0) = 41. */
    "meta references (header): 41\n"
    "meta references (records): 41\n"
    "meta identity hash codes: present\n"
    "meta padding bytes: 2\n"
    "meta dropped references: 3 to synthetic objects (root, isolates, read-only pages)\n";

static void test_dart_reading(void **state)
{
    (void)state;
    dtw_buf snap;
    memset(&snap, 0, sizeof snap);
    dart_twin_dartheap(&snap);
    gch_dump *d = NULL;
    const gch_heap *h = load(&d, snap.data, snap.size, 1);
    assert_string_equal(d->format, "dart");
    assert_string_equal(h->name, "twin");
    assert_int_equal(h->id_radix, 10);
    char *text = dart_test_heap_text(h, 1);
    if (strcmp(text, dart_text) != 0)
        fprintf(stderr, "--- got:\n%s--- expected:\n%s", text, dart_text);
    assert_string_equal(text, dart_text);
    free(text);
    gch_dump_free(d);
    dtw_buf_free(&snap);
}

static void test_same_heap(void **state)
{
    (void)state;
    dtw_buf snap;
    memset(&snap, 0, sizeof snap);
    dart_twin_dartheap(&snap);
    size_t len = 0;
    char *log = dart_twin_gclog(&len);
    gch_dump *a = NULL, *b = NULL;
    const gch_heap *x = load(&a, snap.data, snap.size, 1), *y = load(&b, log, len, 0);
    check_counts(x);
    check_counts(y);
    assert_string_equal(x->name, y->name);
    /* Types: the same names in the same order, the unused class included. */
    assert_int_equal(x->type_count, 13);
    assert_int_equal(x->type_count, y->type_count);
    for (uint32_t t = 0; t < x->type_count; t++) {
        assert_string_equal(gch_type_name(x, t), gch_type_name(y, t));
        assert_true(x->type_raw_id[t] == y->type_raw_id[t]);
        assert_int_equal(x->type_declared[t], 1);
        assert_int_equal(y->type_declared[t], 1);
    }
    /* Objects and references, in the same order; ids through the spelling. */
    assert_int_equal(x->object_count, y->object_count);
    for (uint32_t i = 0; i < x->object_count; i++) {
        assert_true(dart_twin_gclog_id(x->object_id[i]) == y->object_id[i]);
        assert_true(gch_object_size(x, i) == gch_object_size(y, i));
        assert_string_equal(gch_type_name(x, x->object_type[i]), gch_type_name(y, y->object_type[i]));
        assert_int_equal(x->out_start[i + 1] - x->out_start[i], y->out_start[i + 1] - y->out_start[i]);
        for (uint32_t e = x->out_start[i]; e < x->out_start[i + 1]; e++)
            assert_int_equal(x->out_target[e], y->out_target[y->out_start[i] + (e - x->out_start[i])]);
    }
    assert_true(x->ref_count == y->ref_count);
    /* Roots: same objects, kinds and flags, in the same order; no containers. */
    assert_int_equal(x->root_count, y->root_count);
    for (uint32_t k = 0; k < x->root_count; k++) {
        assert_true(dart_twin_gclog_id(x->root_raw_id[k]) == y->root_raw_id[k]);
        assert_int_equal(x->root_object[k], y->root_object[k]);
        assert_int_equal(x->root_kind[k], y->root_kind[k]);
        assert_int_equal(x->root_flags[k], y->root_flags[k]);
        assert_int_equal(x->root_container[k], GCH_NONE);
        assert_int_equal(y->root_container[k], GCH_NONE);
    }
    gch_dump_free(a);
    gch_dump_free(b);
    dtw_buf_free(&snap);
    free(log);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_committed_files),
        cmocka_unit_test(test_gclog_ids),
        cmocka_unit_test(test_dart_reading),
        cmocka_unit_test(test_same_heap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
