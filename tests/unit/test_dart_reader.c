/* Tests of the Dart heap snapshot reader against snapshots made by the test
 * writer (tests/support/dart_writer.c), which follows the VM writer's layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dart_heap_text.h"
#include "dart_writer.h"
#include "gcheap/alloc.h"
#include "gcheap/load.h"

/* ------------------------------------------------------------------------ */
/* A snapshot that uses every data tag, field names, omitted references,
 * references to synthetic objects, two isolates and external properties.
 *
 *  classes  1 Root, 2 Read-Only Pages, 3 Isolate (fields: 0 "", 1 counter, 2 cache)
 *           4 _Smi, 5 _Mint, 6 Null, 7 bool, 8 _Double, 9 _OneByteString,
 *           10 _TwoByteString, 11 _List (all dart:core), 12 _Closure (dart:core),
 *           13 Node (package:app/node.dart; fields 1 value, 0 next: unsorted),
 *           14 _Cache@123 (package:app/cache.dart: the name is cut at '@'),
 *           15 "" (no library: an unused, invalid class id as the VM writes it)
 *  objects  1 root -> 5, 6, 11 (+ 2, 3, 4 added by the writer)
 *           2 read-only pages -> 9
 *           3 isolate "main" -> 0, 12 (.counter), 17 (.cache), 14 (no field)
 *           4 isolate "7123" -> 13
 *           5 Null 16          6 bool 16 (true)     7 _Mint 16 (-5, signed LEB)
 *           8 _Double 16 (3.5) 9 _OneByteString 32 ("hello" of 11)
 *           10 _TwoByteString 24 (2 units)           11 _List 40 (length 3) -> 12, 0, 13
 *           12 Node 24 -> 13, 15, 1 (root: dropped)   13 Node 24 -> 0, 16
 *           14 _Closure 32 (name "main") -> 3 (isolate: dropped)
 *           15 _Smi 0 (42)     16 _Smi 0 (-7, uleb of the 64-bit pattern)
 *           17 _Cache 8 -> 11
 *  external 11: 1000 "Finalizer", 17: 24 "native cache", 17: 8 "other"
 *  hashes   1000 + id for objects 5..14 and 17, 0 elsewhere
 */
enum { SAMPLE_OBJECTS = 17 };

static dtw *sample_snapshot(void)
{
    static const char *const isolates[] = { "main", "7123" };
    static const char *const statics[] = { NULL, "counter", "cache" };
    dtw *w = dtw_new_vm("main", isolates, 2, statics, 3);
    uint64_t smi = dtw_class(w, "_Smi", "dart.core", "dart:core");
    uint64_t mint = dtw_class(w, "_Mint", "dart.core", "dart:core");
    uint64_t null_class = dtw_class(w, "Null", "dart.core", "dart:core");
    uint64_t bool_class = dtw_class(w, "bool", "dart.core", "dart:core");
    uint64_t dbl = dtw_class(w, "_Double", "dart.core", "dart:core");
    uint64_t one_byte = dtw_class(w, "_OneByteString", "dart.core", "dart:core");
    uint64_t two_byte = dtw_class(w, "_TwoByteString", "dart.core", "dart:core");
    uint64_t list = dtw_class(w, "_List", "dart.core", "dart:core");
    uint64_t closure = dtw_class(w, "_Closure", "dart.core", "dart:core");
    uint64_t node = dtw_class(w, "Node", "app.node", "package:app/node.dart");
    dtw_field(w, node, 1, "value");
    dtw_field(w, node, 0, "next");
    uint64_t cache = dtw_class(w, "_Cache@123", "app.cache", "package:app/cache.dart");
    dtw_class(w, "", "", "");

    uint64_t o5 = dtw_object(w, null_class, 16);
    dtw_data_null(w, o5);
    dtw_data_bool(w, dtw_object(w, bool_class, 16), 1);
    dtw_data_int(w, dtw_object(w, mint, 16), -5);
    dtw_data_double(w, dtw_object(w, dbl, 16), 3.5);
    dtw_data_latin1(w, dtw_object(w, one_byte, 32), "hello", 11);
    static const uint16_t greek[] = { 0x3b1, 0x3b2 };
    dtw_data_utf16(w, dtw_object(w, two_byte, 24), greek, 2, 2);
    uint64_t o11 = dtw_object(w, list, 40);
    dtw_data_length(w, o11, 3);
    uint64_t o12 = dtw_object(w, node, 24);
    uint64_t o13 = dtw_object(w, node, 24);
    uint64_t o14 = dtw_object(w, closure, 32);
    dtw_data_name(w, o14, "main");
    uint64_t o15 = dtw_object(w, smi, 0);
    dtw_data_int(w, o15, 42);
    uint64_t o16 = dtw_object(w, smi, 0);
    dtw_data_int(w, o16, -7);
    uint64_t o17 = dtw_object(w, cache, 8);
    assert_int_equal(o17, SAMPLE_OBJECTS);

    dtw_ref(w, 1, 5);
    dtw_ref(w, 1, 6);
    dtw_ref(w, 1, 11);
    dtw_ref(w, 2, 9);
    dtw_ref(w, 3, 0);
    dtw_ref(w, 3, 12);
    dtw_ref(w, 3, 17);
    dtw_ref(w, 3, 14);
    dtw_ref(w, 4, 13);
    dtw_ref(w, o11, 12);
    dtw_ref(w, o11, 0);
    dtw_ref(w, o11, 13);
    dtw_ref(w, o12, 13);
    dtw_ref(w, o12, 15);
    dtw_ref(w, o12, 1);
    dtw_ref(w, o13, 0);
    dtw_ref(w, o13, 16);
    dtw_ref(w, o14, 3);
    dtw_ref(w, o17, 11);

    dtw_property(w, o11, 1000, "Finalizer");
    dtw_property(w, o17, 24, "native cache");
    dtw_property(w, o17, 8, "other");
    for (uint64_t id = 5; id <= 14; id++)
        dtw_hash(w, id, 1000 + id);
    dtw_hash(w, o17, 1017);
    return w;
}

/* The same heap, described by hand. Sizes: 5..8 are 16 each (64), 9: 32,
 * 10: 24, 11: 40, 12 and 13: 24 each (48), 14: 32, 15 and 16: 0, 17: 8, so
 * 64 + 32 + 24 + 40 + 48 + 32 + 8 = 248. References in the records: root 3 + 3,
 * pages 1, isolates 4 + 1, 11: 3, 12: 3, 13: 2, 14: 1, 17: 1 = 22; of those, 6
 * are heap references (11: 2, 12: 2, 13: 1, 17: 1), 8 become roots, 2 point at
 * synthetic objects from heap objects (dropped), 3 are omitted (0), 3 go from
 * the root to the other synthetic objects. */
static const char sample_objects_and_roots[] =
    "object 5 Null (dart:core) size 16\n"
    "object 6 bool (dart:core) size 16\n"
    "object 7 _Mint (dart:core) size 16\n"
    "object 8 _Double (dart:core) size 16\n"
    "object 9 _OneByteString (dart:core) size 32\n"
    "object 10 _TwoByteString (dart:core) size 24\n"
    "object 11 _List (dart:core) size 40 -> 12, 13\n"
    "object 12 Node (package:app/node.dart) size 24 -> .next 13, .value 15\n"
    "object 13 Node (package:app/node.dart) size 24 -> .value 16\n"
    "object 14 _Closure (dart:core) size 32\n"
    "object 15 _Smi (dart:core) size 0\n"
    "object 16 _Smi (dart:core) size 0\n"
    "object 17 _Cache (package:app/cache.dart) size 8 -> 11\n"
    "root internal 5 Root\n"
    "root internal 6 Root\n"
    "root internal 11 Root\n"
    "root runtime 9 Read-Only Pages\n"
    "root static 12 isolate main: .counter\n"
    "root static 17 isolate main: .cache\n"
    "root static 14 isolate main\n"
    "root static 13 isolate 7123\n";

static const char sample_meta_with_hashes[] =
    "meta isolates: main, 7123\n"
    "meta shallow size (header): 248\n"
    "meta shallow size (objects): 248\n"
    "meta capacity: 248\n"
    "meta external size (header): 1032\n"
    "meta external size (properties): 1032 in 3 properties\n"
    "meta snapshot objects: 17 (4 synthetic)\n"
    "meta classes: 15\n"
    "meta references (header): 22\n"
    "meta references (records): 22\n"
    "meta identity hash codes: present\n"
    "meta padding bytes: 0\n"
    "meta dropped references: 2 to synthetic objects (root, isolates, read-only pages)\n";

/* ------------------------------------------------------------------------ */
/* Helpers */

static gch_status read_snapshot(const dtw_buf *b, const gch_load_options *opts, gch_dump **dump,
                                gch_error *err)
{
    return gch_read_dart_buffer(b->data, b->size, opts, dump, err);
}

static gch_heap *only_heap(gch_dump *dump)
{
    assert_non_null(dump);
    assert_string_equal(dump->format, "dart");
    assert_int_equal(dump->heap_count, 1);
    return dump->heaps[0];
}

static void check_text(const gch_heap *h, int with_meta, const char *expected)
{
    char *text = dart_test_heap_text(h, with_meta);
    if (strcmp(text, expected) != 0)
        fprintf(stderr, "--- got:\n%s--- expected:\n%s", text, expected);
    assert_string_equal(text, expected);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* Round trips */

static void test_round_trip_with_hash_codes(void **state)
{
    (void)state;
    dtw *w = sample_snapshot();
    dtw_buf b = { 0 };
    dtw_write(w, 1, 0, &b);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
    gch_heap *h = only_heap(dump);
    assert_string_equal(h->name, "main");
    assert_int_equal(h->id_radix, 10);
    assert_int_equal(h->object_count, SAMPLE_OBJECTS - 4);
    assert_true(h->total_size == 248);
    assert_true(h->ref_count == 6); /* 11: 2, 12: 2, 13: 1, 17: 1 */
    assert_int_equal(h->root_count, 8);
    assert_true(h->refs_loaded);
    /* No anomaly from the builder: every reference and root resolved. */
    assert_true(h->anomalies.dangling_refs == 0);
    assert_true(h->anomalies.dangling_roots == 0);
    assert_true(h->anomalies.unknown_types == 0);

    char expected[4096];
    snprintf(expected, sizeof expected, "%s%s", sample_objects_and_roots, sample_meta_with_hashes);
    check_text(h, 1, expected);

    /* Types: one per heap class (15 classes, 3 synthetic), raw id = class id,
     * module = library URI so the program can derive the short name. */
    assert_int_equal(h->type_count, 12);
    int seen_unnamed = 0, seen_node = 0;
    for (uint32_t t = 0; t < h->type_count; t++) {
        assert_true(h->type_declared[t]);
        if (h->type_raw_id[t] == 15) {
            assert_string_equal(gch_type_name(h, t), "<unnamed class 15>");
            assert_int_equal(h->type_module[t], GCH_NONE);
            seen_unnamed = 1;
        }
        if (h->type_raw_id[t] == 13) {
            assert_string_equal(gch_type_name(h, t), "Node (package:app/node.dart)");
            assert_string_equal(gch_heap_string(h, h->type_module[t]), "package:app/node.dart");
            seen_node = 1;
        }
    }
    assert_true(seen_unnamed && seen_node);
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);
}

static void test_round_trip_without_hash_codes(void **state)
{
    (void)state;
    dtw *w = sample_snapshot();
    dtw_buf b = { 0 };
    dtw_write(w, 0, 0, &b);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
    gch_heap *h = only_heap(dump);
    check_text(h, 0, sample_objects_and_roots);
    assert_string_equal(dart_test_meta(h, "identity hash codes"), "absent");
    assert_string_equal(dart_test_meta(h, "padding bytes"), "0");
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);
}

static void test_zero_padding(void **state)
{
    (void)state;
    static const struct {
        int hashes;
        size_t padding;
        const char *state, *padding_text;
    } cases[] = {
        { 1, 100, "present", "100" },
        { 0, 5, "absent", "5" },   /* fewer zero bytes than objects: no hash codes */
        { 0, 40, "all zero (or absent, followed by zero padding)", "23" }, /* 40 - 17 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dtw *w = sample_snapshot();
        dtw_buf b = { 0 };
        dtw_write(w, cases[i].hashes, cases[i].padding, &b);
        gch_dump *dump;
        gch_error err;
        assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
        gch_heap *h = only_heap(dump);
        check_text(h, 0, sample_objects_and_roots);
        assert_string_equal(dart_test_meta(h, "identity hash codes"), cases[i].state);
        assert_string_equal(dart_test_meta(h, "padding bytes"), cases[i].padding_text);
        gch_dump_free(dump);
        dtw_buf_free(&b);
        dtw_free(w);
    }
}

static void test_skip_refs_keeps_roots(void **state)
{
    (void)state;
    dtw *w = sample_snapshot();
    dtw_buf b = { 0 };
    dtw_write(w, 1, 0, &b);
    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_refs = 1;
    gch_dump *dump;
    gch_error err;
    assert_int_equal(read_snapshot(&b, &opts, &dump, &err), GCH_OK);
    gch_heap *h = only_heap(dump);
    assert_false(h->refs_loaded);
    assert_true(h->ref_count == 0);
    assert_int_equal(h->object_count, SAMPLE_OBJECTS - 4);
    assert_int_equal(h->root_count, 8);
    assert_true(h->total_size == 248);
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);
}


/* Regression (found by fuzz_dartheap): with skip_refs the references to
 * synthetic objects were not counted, so the "dropped references" metadata
 * line was missing. Metadata must not depend on how the file was read. */
static void test_skip_refs_same_metadata(void **state)
{
    (void)state;
    FILE *f = fopen(GCHEAP_TESTDATA "/dart/fuzz_dropped_ref_skip.dartheap", "rb");
    assert_non_null(f);
    unsigned char data[4096];
    size_t size = fread(data, 1, sizeof data, f);
    fclose(f);
    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    gch_dump *full, *skipped;
    gch_error err;
    assert_int_equal(gch_read_dart_buffer(data, size, &opts, &full, &err), GCH_OK);
    opts.skip_refs = 1;
    assert_int_equal(gch_read_dart_buffer(data, size, &opts, &skipped, &err), GCH_OK);
    const gch_heap *a = full->heaps[0], *b = skipped->heaps[0];
    assert_int_equal(a->meta_count, b->meta_count);
    for (size_t i = 0; i < a->meta_count; i++) {
        assert_string_equal(a->meta[i].key, b->meta[i].key);
        assert_string_equal(a->meta[i].value, b->meta[i].value);
    }
    /* The file has one reference from a heap object to the Root object. */
    assert_string_equal(a->meta[a->meta_count - 1].key, "dropped references");
    gch_dump_free(full);
    gch_dump_free(skipped);
}

static void count_progress(void *ctx, uint64_t bytes)
{
    uint64_t *last = ctx;
    assert_true(bytes >= *last);
    *last = bytes;
}

typedef struct memory_source {
    const unsigned char *data;
    size_t size, pos, max_read;
} memory_source;

/* Hands out at most max_read bytes per call, as a pipe might. */
static long long memory_read(void *ctx, void *buf, size_t cap)
{
    memory_source *m = ctx;
    size_t n = m->size - m->pos;
    if (n > cap)
        n = cap;
    if (n > m->max_read)
        n = m->max_read;
    memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    return (long long)n;
}

static void test_load_detects_dart(void **state)
{
    (void)state;
    dtw *w = sample_snapshot();
    dtw_buf b = { 0 };
    dtw_write(w, 1, 7, &b);
    assert_int_equal(gch_detect_format(b.data, b.size), GCH_FORMAT_DART);
    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    uint64_t last = 0;
    opts.progress = count_progress;
    opts.progress_ctx = &last;
    memory_source m = { b.data, b.size, 0, 5 };
    gch_source src = { memory_read, &m };
    gch_dump *dump;
    gch_error err;
    assert_int_equal(gch_load(&src, GCH_FORMAT_AUTO, &opts, &dump, &err), GCH_OK);
    assert_true(last == b.size);
    check_text(only_heap(dump), 0, sample_objects_and_roots);
    assert_string_equal(dart_test_meta(only_heap(dump), "padding bytes"), "7");
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);
}

/* Integers: _Mint is signed LEB, _Smi the uleb of the 64-bit pattern; extreme
 * values of both decode (a uleb _Mint of a negative value would overflow). */
static void test_integer_encodings(void **state)
{
    (void)state;
    static const int64_t values[] = { 0, -1, -64, -65, INT64_MIN, INT64_MAX, 1, 1ll << 40 };
    dtw *w = dtw_new_vm("ints", NULL, 0, NULL, 0);
    uint64_t smi = dtw_class(w, "_Smi", "dart.core", "dart:core");
    uint64_t mint = dtw_class(w, "_Mint", "dart.core", "dart:core");
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        dtw_data_int(w, dtw_object(w, smi, 0), values[i]);
        dtw_data_int(w, dtw_object(w, mint, 16), values[i]);
    }
    dtw_buf b = { 0 };
    dtw_write(w, 1, 0, &b);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
    gch_heap *h = only_heap(dump);
    assert_int_equal(h->object_count, 16);
    assert_true(h->total_size == 8 * 16);
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);

    /* INT64_MIN as a plain uleb in a _Mint would be 10 bytes ending in 0x01:
     * accepted as a uleb, but decoded as signed LEB it overflows. */
    w = dtw_new("mint");
    mint = dtw_class(w, "_Mint", "dart.core", "dart:core");
    uint64_t fake = dtw_class(w, "_Smi", "dart.core", "dart:core");
    dtw_object(w, fake, 0);
    dtw_data_int(w, 1, INT64_MIN); /* _Smi: uleb of 0x8000000000000000 */
    memset(&b, 0, sizeof b);
    dtw_write(w, 0, 0, &b);
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
    gch_dump_free(dump);
    /* Same bytes, but the object is a _Mint: rewrite its class id (1 -> 1 is
     * _Mint here, 2 is _Smi). */
    size_t class_id_at = b.size - 1 /* ext count */ - 1 /* ref count */ - 10 - 1 /* tag */
                         - 1 /* size */ - 1;
    assert_int_equal(b.data[class_id_at], 2);
    b.data[class_id_at] = (unsigned char)mint;
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_EFORMAT);
    assert_null(dump);
    assert_non_null(strstr(err.message, "object 1: integer value: signed varint overflows 64 bits"));
    assert_int_equal(err.offset, class_id_at + 3);
    dtw_buf_free(&b);
    dtw_free(w);
}

static void test_header_anomalies(void **state)
{
    (void)state;
    dtw *w = sample_snapshot();
    dtw_set_shallow_size(w, 4096);
    dtw_set_reference_slack(w, -3);
    dtw_set_flags(w, 2);
    dtw_buf b = { 0 };
    dtw_write(w, 1, 0, &b);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
    gch_heap *h = only_heap(dump);
    check_text(h, 0, sample_objects_and_roots);
    assert_string_equal(dart_test_meta(h, "flags"), "2");
    assert_true(h->total_size == 248);
    char *text = dart_test_heap_text(h, 1);
    assert_non_null(strstr(text, "meta anomaly: the header's shallow size 4096 differs from the "
                                 "sum of object sizes 248\n"));
    assert_non_null(strstr(text, "meta anomaly: the records hold 22 references, more than the "
                                 "header's 19\n"));
    free(text);
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);
}

static void test_empty_name_and_no_isolates(void **state)
{
    (void)state;
    dtw *w = dtw_new_vm("", NULL, 0, NULL, 0);
    uint64_t k = dtw_class(w, "Foo", "", "");
    uint64_t o = dtw_object(w, k, 8);
    dtw_ref(w, 1, o);
    dtw_ref(w, 2, o);
    dtw_buf b = { 0 };
    dtw_write(w, 1, 0, &b);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
    gch_heap *h = only_heap(dump);
    assert_string_equal(h->name, "dart");
    check_text(h, 0,
               "object 3 Foo size 8\n"
               "root internal 3 Root\n"
               "root runtime 3 Read-Only Pages\n");
    assert_string_equal(dart_test_meta(h, "isolates"), "none");
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);
}

/* Without the VM's synthetic classes, only object 1 is the root. */
static void test_plain_layout(void **state)
{
    (void)state;
    dtw *w = dtw_new("plain");
    uint64_t k = dtw_class(w, "Isolate", "", ""); /* class 1: not at id 3, so a heap class */
    dtw_field(w, k, 0, "next@99");                /* an unscrubbed private name: cut at '@' */
    dtw_object(w, k, 0);
    uint64_t a = dtw_object(w, k, 8);
    uint64_t c = dtw_object(w, k, 16);
    dtw_ref(w, 1, a);
    dtw_ref(w, a, c);
    dtw_ref(w, c, 1); /* to the root: dropped */
    dtw_buf b = { 0 };
    dtw_write(w, 0, 0, &b);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
    gch_heap *h = only_heap(dump);
    check_text(h, 0,
               "object 2 Isolate size 8 -> .next 3\n"
               "object 3 Isolate size 16\n"
               "root internal 2 Root: .next\n"); /* the root's class names the field too */
    assert_string_equal(dart_test_meta(h, "snapshot objects"), "3 (1 synthetic)");
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);
}

/* A class with more fields than a reference chunk: labels beyond the first
 * 4096 positions still arrive, and long reference lists are chunked. */
static void test_many_fields_and_references(void **state)
{
    (void)state;
    enum { FIELDS = 5000, REFS = 10000 };
    dtw *w = dtw_new_vm("big", NULL, 0, NULL, 0);
    uint64_t k = dtw_class(w, "Wide", "w", "package:w/w.dart");
    for (uint64_t i = 0; i < FIELDS; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%llu", (unsigned long long)i);
        dtw_field(w, k, i, name);
    }
    uint64_t leaf = dtw_class(w, "Leaf", "", "");
    uint64_t wide = dtw_object(w, k, 64);
    uint64_t target = dtw_object(w, leaf, 16);
    for (int i = 0; i < REFS; i++)
        dtw_ref(w, wide, i % 3 == 2 ? 0 : target);
    dtw_ref(w, 1, wide);
    dtw_buf b = { 0 };
    dtw_write(w, 1, 0, &b);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(read_snapshot(&b, NULL, &dump, &err), GCH_OK);
    gch_heap *h = only_heap(dump);
    assert_int_equal(h->object_count, 2);
    uint32_t start = h->out_start[0], end = h->out_start[1];
    assert_int_equal(end - start, REFS - REFS / 3);
    assert_non_null(h->out_label);
    /* Reference kept number j came from position p = j + j / 2. */
    uint32_t labelled = 0;
    for (uint32_t j = 0; j < end - start; j++) {
        uint32_t p = j + j / 2;
        if (p < FIELDS) {
            char name[32];
            snprintf(name, sizeof name, "f%u", p);
            assert_string_equal(gch_heap_string(h, h->out_label[start + j]), name);
            labelled++;
        } else {
            assert_int_equal(h->out_label[start + j], GCH_NONE);
        }
    }
    assert_true(labelled > 3000);
    gch_dump_free(dump);
    dtw_buf_free(&b);
    dtw_free(w);
}

/* ------------------------------------------------------------------------ */
/* Malformed input */

/* Truncation at every byte: an error with an offset inside the input, never a
 * crash. The only prefixes that are valid snapshots end right after the
 * external properties (no hash codes) or continue with zero bytes only (hash
 * codes all zero so far, read as padding). */
static void test_truncation_at_every_byte(void **state)
{
    (void)state;
    dtw *w = sample_snapshot();
    dtw_buf full = { 0 }, no_hashes = { 0 };
    dtw_write(w, 1, 0, &full);
    dtw_write(w, 0, 0, &no_hashes);
    size_t props_end = no_hashes.size;
    assert_memory_equal(full.data, no_hashes.data, props_end);
    for (size_t cut = 0; cut < full.size; cut++) {
        unsigned char *copy = malloc(cut ? cut : 1);
        memcpy(copy, full.data, cut);
        gch_dump *dump = (gch_dump *)1;
        gch_error err;
        gch_status st = gch_read_dart_buffer(copy, cut, NULL, &dump, &err);
        int valid = cut >= props_end;
        for (size_t i = props_end; i < cut && valid; i++)
            valid = full.data[i] == 0;
        if (valid) {
            assert_int_equal(st, GCH_OK);
            gch_dump_free(dump);
        } else {
            assert_int_equal(st, GCH_EFORMAT);
            assert_int_equal(err.status, GCH_EFORMAT);
            assert_null(dump);
            assert_int_equal(err.has_offset, 1);
            assert_true(err.offset <= cut);
            assert_true(err.message[0] != '\0');
        }
        free(copy);
    }
    dtw_buf_free(&full);
    dtw_buf_free(&no_hashes);
    dtw_free(w);
}

/* Random byte flips: any outcome but a crash, a leak or an unexpected status. */
static void test_random_corruption(void **state)
{
    (void)state;
    dtw *w = sample_snapshot();
    dtw_buf b = { 0 };
    dtw_write(w, 1, 3, &b);
    unsigned char *copy = malloc(b.size);
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int ok = 0, bad = 0;
    for (int round = 0; round < 3000; round++) {
        memcpy(copy, b.data, b.size);
        int flips = 1 + round % 3;
        for (int f = 0; f < flips; f++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t at = (size_t)(seed >> 33) % b.size;
            copy[at] ^= (unsigned char)(1u << ((seed >> 20) & 7));
        }
        gch_dump *dump;
        gch_error err;
        gch_status st = gch_read_dart_buffer(copy, b.size, NULL, &dump, &err);
        if (st == GCH_OK) {
            gch_dump_free(dump);
            ok++;
        } else {
            assert_true(st == GCH_EFORMAT || st == GCH_ELIMIT);
            assert_int_equal(err.has_offset, 1);
            assert_true(err.offset <= b.size);
            bad++;
        }
    }
    assert_true(ok > 0 && bad > 0);
    free(copy);
    dtw_buf_free(&b);
    dtw_free(w);
}

/* Writes w and expects a format error whose message contains text, located
 * at the first byte of the value `at_byte` if given (>= 0). */
static void expect_error(dtw *w, int hashes, const char *text, int at_byte)
{
    dtw_buf b = { 0 };
    dtw_write(w, hashes, 0, &b);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(gch_read_dart_buffer(b.data, b.size, NULL, &dump, &err), GCH_EFORMAT);
    assert_null(dump);
    if (!strstr(err.message, text))
        fprintf(stderr, "message: %s\nexpected to contain: %s\n", err.message, text);
    assert_non_null(strstr(err.message, text));
    assert_int_equal(err.has_offset, 1);
    assert_true(err.offset < b.size);
    if (at_byte >= 0)
        assert_int_equal(b.data[err.offset], at_byte);
    dtw_buf_free(&b);
    dtw_free(w);
}

static dtw *tiny(void)
{
    dtw *w = dtw_new_vm("tiny", NULL, 0, NULL, 0);
    dtw_class(w, "Foo", "", "package:foo/foo.dart"); /* class 4 */
    dtw_ref(w, 1, dtw_object(w, 4, 8));              /* object 3 */
    return w;
}

static void test_corrupt_class_ids(void **state)
{
    (void)state;
    dtw *w = tiny();
    dtw_object(w, 0, 8);
    expect_error(w, 1, "object 4: class id 0 (the sentinel; class ids start at 1)", 0);

    w = tiny();
    dtw_object(w, 99, 8);
    expect_error(w, 1, "object 4: class id 99 is out of range (the snapshot has 4 classes)", 99);
}

static void test_corrupt_references(void **state)
{
    (void)state;
    dtw *w = tiny();
    dtw_ref(w, 3, 1);
    dtw_ref(w, 3, 77);
    expect_error(w, 1, "object 3: reference 1 names object 77, but the snapshot has 3 objects", 77);

    w = tiny();
    dtw_ref(w, 1, 4); /* from the root: checked too */
    expect_error(w, 1, "object 1: reference 1 names object 4, but the snapshot has 3 objects", 4);

    w = tiny();
    dtw_property(w, 3, 10, "ok");
    dtw_property(w, 9, 10, "bad");
    expect_error(w, 1, "external property 1: object 9 is out of range (the snapshot has 3 objects)", 9);

    w = tiny();
    dtw_property(w, 0, 10, "bad");
    expect_error(w, 1, "external property 0: object 0 is out of range", 0);
}

static void test_corrupt_data(void **state)
{
    (void)state;
    dtw *w = tiny();
    dtw_data_raw_tag(w, dtw_object(w, 4, 8), 9);
    expect_error(w, 1, "object 4: unknown data tag 9", 9);

    w = tiny();
    dtw_data_latin1(w, dtw_object(w, 4, 8), "hello", 3);
    expect_error(w, 1, "object 4: Latin-1 string: 5 code units kept of 3", 5);

    /* A UTF-16 string whose units run past the end. */
    w = tiny();
    static const uint16_t units[] = { 'a', 'b' };
    uint64_t o = dtw_object(w, 4, 8);
    dtw_data_utf16(w, o, units, 2, 2);
    dtw_buf b = { 0 };
    dtw_write(w, 0, 0, &b);
    /* Find the object's tag (6, then 2, 2) and claim 100 units instead. */
    size_t i = 0;
    while (!(b.data[i] == 6 && b.data[i + 1] == 2 && b.data[i + 2] == 2))
        i++;
    b.data[i + 1] = 100;
    b.data[i + 2] = 100;
    gch_dump *dump;
    gch_error err;
    assert_int_equal(gch_read_dart_buffer(b.data, b.size, NULL, &dump, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "object 4: truncated input in the UTF-16 string"));
    assert_int_equal(err.offset, i + 3);
    dtw_buf_free(&b);
    dtw_free(w);
}

static void test_trailing_garbage(void **state)
{
    (void)state;
    dtw *w = tiny();
    dtw_buf b = { 0 };
    dtw_write(w, 1, 4, &b);
    dtw_put_byte(&b, 0x55);
    gch_dump *dump;
    gch_error err;
    assert_int_equal(gch_read_dart_buffer(b.data, b.size, NULL, &dump, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "unexpected byte 0x55 after the identity hash codes"));
    assert_int_equal(err.offset, b.size - 1);
    dtw_buf_free(&b);
    dtw_free(w);
}

static void test_bad_headers(void **state)
{
    (void)state;
    gch_dump *dump;
    gch_error err;
    /* No magic. */
    assert_int_equal(gch_read_dart_buffer("dartheat", 8, NULL, &dump, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "not a Dart heap snapshot"));
    assert_int_equal(err.offset, 0);
    assert_int_equal(gch_read_dart_buffer(NULL, 0, NULL, &dump, &err), GCH_EFORMAT);

    /* An overlong flags varint. */
    static const unsigned char overlong[] = "dartheap\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01";
    assert_int_equal(gch_read_dart_buffer(overlong, sizeof overlong - 1, NULL, &dump, &err),
                     GCH_EFORMAT);
    assert_string_equal(err.message, "header flags: varint longer than 10 bytes");
    assert_int_equal(err.offset, 8);

    /* A class count of 2^40 in a tiny input: refused before any allocation. */
    static const unsigned char classes[] = "dartheap\x00\x00\x00\x00\x00\x80\x80\x80\x80\x80\x20";
    assert_int_equal(gch_read_dart_buffer(classes, sizeof classes - 1, NULL, &dump, &err),
                     GCH_EFORMAT);
    assert_non_null(strstr(err.message, "class count 1099511627776 is more than"));
    assert_int_equal(err.offset, 13);

    /* An object count the input cannot hold. */
    static const unsigned char objects[] = "dartheap\x00\x00\x00\x00\x00\x00\x00\x7f\x01\x00";
    assert_int_equal(gch_read_dart_buffer(objects, sizeof objects - 1, NULL, &dump, &err),
                     GCH_EFORMAT);
    assert_non_null(strstr(err.message, "object count 127 is more than the 2 bytes left can hold"));
    assert_int_equal(err.offset, 15);

    /* A field count too large for the bytes left, inside class 1. */
    static const unsigned char fields[] = "dartheap\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x09";
    assert_int_equal(gch_read_dart_buffer(fields, sizeof fields - 1, NULL, &dump, &err),
                     GCH_EFORMAT);
    assert_string_equal(err.message, "class 1: field count 9 is more than the 0 bytes left can hold");
}

/* ------------------------------------------------------------------------ */
/* Allocation failures: every one becomes GCH_ENOMEM, without leaks. */

static long alloc_budget;

static void *failing_malloc(void *ctx, size_t n)
{
    (void)ctx;
    return alloc_budget-- > 0 ? malloc(n) : NULL;
}

static void *failing_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    return alloc_budget-- > 0 ? realloc(p, n) : NULL;
}

static void plain_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    dtw *w = sample_snapshot();
    dtw_buf b = { 0 };
    dtw_write(w, 1, 0, &b);
    gch_allocator failing = { failing_malloc, failing_realloc, plain_free, NULL, NULL };
    gch_set_allocator(&failing);
    gch_status st = GCH_ENOMEM;
    long budget;
    for (budget = 0; budget < 10000 && st != GCH_OK; budget++) {
        alloc_budget = budget;
        gch_dump *dump;
        gch_error err;
        st = gch_read_dart_buffer(b.data, b.size, NULL, &dump, &err);
        if (st == GCH_OK) {
            gch_dump_free(dump);
        } else {
            assert_int_equal(st, GCH_ENOMEM);
            assert_int_equal(err.status, GCH_ENOMEM);
            assert_null(dump);
        }
    }
    gch_set_allocator(NULL);
    assert_int_equal(st, GCH_OK);
    assert_true(budget > 10);
    dtw_buf_free(&b);
    dtw_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_with_hash_codes),
        cmocka_unit_test(test_round_trip_without_hash_codes),
        cmocka_unit_test(test_zero_padding),
        cmocka_unit_test(test_skip_refs_keeps_roots),
        cmocka_unit_test(test_skip_refs_same_metadata),
        cmocka_unit_test(test_load_detects_dart),
        cmocka_unit_test(test_integer_encodings),
        cmocka_unit_test(test_header_anomalies),
        cmocka_unit_test(test_empty_name_and_no_isolates),
        cmocka_unit_test(test_plain_layout),
        cmocka_unit_test(test_many_fields_and_references),
        cmocka_unit_test(test_truncation_at_every_byte),
        cmocka_unit_test(test_random_corruption),
        cmocka_unit_test(test_corrupt_class_ids),
        cmocka_unit_test(test_corrupt_references),
        cmocka_unit_test(test_corrupt_data),
        cmocka_unit_test(test_trailing_garbage),
        cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
