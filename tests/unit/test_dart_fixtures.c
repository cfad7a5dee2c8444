/* The hand-written Dart snapshots in testdata/dart (made byte by byte by
 * testdata/dart/make_fixtures.sh, which annotates every byte), loaded through
 * gch_load with format detection. Expected contents counted by hand below. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dart_heap_text.h"
#include "gcheap/load.h"

static long long file_read(void *ctx, void *buf, size_t cap)
{
    FILE *f = ctx;
    size_t n = fread(buf, 1, cap, f);
    return n == 0 && ferror(f) ? -1 : (long long)n;
}

static gch_status load_fixture(const char *name, gch_dump **dump, gch_error *err)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/dart/%s", GCHEAP_TESTDATA, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    gch_source src = { file_read, f };
    gch_status st = gch_load(&src, GCH_FORMAT_AUTO, NULL, dump, err);
    fclose(f);
    return st;
}

static void check_text(const gch_heap *h, const char *expected)
{
    char *text = dart_test_heap_text(h, 1);
    if (strcmp(text, expected) != 0)
        fprintf(stderr, "--- got:\n%s--- expected:\n%s", text, expected);
    assert_string_equal(text, expected);
    free(text);
}

/* mini.dartheap, counted by hand:
 *   6 snapshot objects: 1 Root, 2 Read-Only Pages, 3 Isolate "1234" are
 *   synthetic, so the heap has 3 objects: 4 Node (24 bytes), 5 Node (24),
 *   6 _Smi (0) = 48 bytes, equal to the header's shallow size.
 *   References: 4 -> 5 (.next), 4 -> 6 (.value), 5 -> 6 (.value; its .next is
 *   0, omitted) = 3. Roots: the Root's reference to 4 (internal, "Root"); its
 *   references to 2 and 3 are synthetic and skipped; the isolate's reference
 *   at index 0 to 5 (static, field "count"). Read-Only Pages has no references.
 *   Records hold 3 + 0 + 1 + 2 + 2 + 0 = 8 references, as the header says.
 *   External: one property of 10 bytes. Hash codes 0 0 0 42 43 0, then 3 zero bytes. */
static void test_mini(void **state)
{
    (void)state;
    gch_dump *dump;
    gch_error err;
    assert_int_equal(load_fixture("mini.dartheap", &dump, &err), GCH_OK);
    assert_string_equal(dump->format, "dart");
    assert_int_equal(dump->heap_count, 1);
    gch_heap *h = dump->heaps[0];
    assert_string_equal(h->name, "mini");
    assert_int_equal(h->object_count, 3);
    assert_true(h->total_size == 48);
    assert_true(h->ref_count == 3);
    assert_int_equal(h->root_count, 2);
    check_text(h,
               "object 4 Node (package:app/a.dart) size 24 -> .next 5, .value 6\n"
               "object 5 Node (package:app/a.dart) size 24 -> .value 6\n"
               "object 6 _Smi (dart:core) size 0\n"
               "root internal 4 Root\n"
               "root static 5 isolate 1234: .count\n"
               "meta isolates: 1234\n"
               "meta shallow size (header): 48\n"
               "meta shallow size (objects): 48\n"
               "meta capacity: 64\n"
               "meta external size (header): 10\n"
               "meta external size (properties): 10 in 1 properties\n"
               "meta snapshot objects: 6 (3 synthetic)\n"
               "meta classes: 5\n"
               "meta references (header): 8\n"
               "meta references (records): 8\n"
               "meta identity hash codes: present\n"
               "meta padding bytes: 3\n");
    gch_dump_free(dump);
}

/* nohash.dartheap, counted by hand:
 *   9 snapshot objects; only object 1 (the root) is synthetic (no Read-Only
 *   Pages or Isolate classes). Heap: 2 _Mint 16, 3 _OneByteString 32, 4 _List 40,
 *   5 Object 8, 6 Object 8, 7 Object 16, 8 Object 24, 9 Object 32
 *   = 16 + 32 + 40 + 8 + 8 + 16 + 24 + 32 = 176 bytes; the header says 200.
 *   References: 4 -> 3 (its reference to the root is dropped) = 1.
 *   Roots: 2 and 4, internal. No name: the heap is called "dart". */
static void test_nohash(void **state)
{
    (void)state;
    gch_dump *dump;
    gch_error err;
    assert_int_equal(load_fixture("nohash.dartheap", &dump, &err), GCH_OK);
    gch_heap *h = dump->heaps[0];
    assert_string_equal(h->name, "dart");
    assert_int_equal(h->object_count, 8);
    assert_true(h->total_size == 176);
    assert_true(h->ref_count == 1);
    check_text(h,
               "object 2 _Mint (dart:core) size 16\n"
               "object 3 _OneByteString (dart:core) size 32\n"
               "object 4 _List (dart:core) size 40 -> 3\n"
               "object 5 Object (dart:core) size 8\n"
               "object 6 Object (dart:core) size 8\n"
               "object 7 Object (dart:core) size 16\n"
               "object 8 Object (dart:core) size 24\n"
               "object 9 Object (dart:core) size 32\n"
               "root internal 2 Root\n"
               "root internal 4 Root\n"
               "meta isolates: none\n"
               "meta shallow size (header): 200\n"
               "meta shallow size (objects): 176\n"
               "meta capacity: 256\n"
               "meta external size (header): 0\n"
               "meta external size (properties): 0 in 0 properties\n"
               "meta snapshot objects: 9 (1 synthetic)\n"
               "meta classes: 5\n"
               "meta references (header): 4\n"
               "meta references (records): 4\n"
               "meta identity hash codes: absent\n"
               "meta padding bytes: 0\n"
               "meta anomaly: the header's shallow size 200 differs from the sum of object sizes 176\n"
               "meta dropped references: 1 to synthetic objects (root, isolates, read-only pages)\n");
    gch_dump_free(dump);
}

/* bad_ref.dartheap: object 2's reference 0 names object 5; the byte is at offset 32. */
static void test_bad_ref(void **state)
{
    (void)state;
    gch_dump *dump;
    gch_error err;
    assert_int_equal(load_fixture("bad_ref.dartheap", &dump, &err), GCH_EFORMAT);
    assert_null(dump);
    assert_int_equal(err.has_offset, 1);
    assert_true(err.offset == 32);
    assert_string_equal(err.message,
                        "object 2: reference 0 names object 5, but the snapshot has 2 objects");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mini),
        cmocka_unit_test(test_nohash),
        cmocka_unit_test(test_bad_ref),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
