/* The reader table (src/load/readers.c): every row is its format, names
 * round-trip, GCH_FORMAT_WORDS lists the rows in order, the JSON key test
 * reads what it should, and each format's sample dump is detected as the
 * format whose reader names the dump (dump->format, written by the reader
 * itself: a second source for the name). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "readers.h"

static size_t row_count(void)
{
    size_t n = 0;
    while (gch_reader_of((gch_format)(n + 1)))
        n++;
    return n;
}

static void test_rows_are_their_formats(void **state)
{
    (void)state;
    size_t n = row_count();
    assert_int_equal(n, (size_t)GCH_FORMAT_JSC); /* the enum's last value today */
    assert_null(gch_reader_of(GCH_FORMAT_AUTO));
    int fallbacks = 0;
    for (size_t i = 1; i <= n; i++) {
        const gch_reader *r = gch_reader_of((gch_format)i);
        assert_int_equal(r->format, (gch_format)i);
        assert_non_null(r->read_buffer);
        gch_format back;
        assert_int_equal(gch_format_parse(r->name, &back), 0);
        assert_int_equal(back, (gch_format)i);
        assert_string_equal(gch_format_name((gch_format)i), r->name);
        fallbacks += r->signature == NULL;
    }
    assert_int_equal(fallbacks, 1);
    gch_format f;
    assert_int_equal(gch_format_parse("auto", &f), 0);
    assert_int_equal(f, GCH_FORMAT_AUTO);
    assert_int_equal(gch_format_parse("json", &f), -1);
    assert_string_equal(gch_format_name((gch_format)(n + 1)), "?");
}

/* "a, b, c or d": the rows' names, in order, with ", " and " or ". */
static void test_words_list_the_rows(void **state)
{
    (void)state;
    size_t n = row_count();
    char want[256] = "";
    for (size_t i = 1; i <= n; i++) {
        if (i > 1)
            strcat(want, i == n ? " or " : ", ");
        strcat(want, gch_reader_of((gch_format)i)->name);
    }
    assert_string_equal(GCH_FORMAT_WORDS, want);
}

static size_t key_at(const char *s, const char *key)
{
    return gch_json_first_key((const unsigned char *)s, strlen(s), key);
}

static void test_json_first_key(void **state)
{
    (void)state;
    assert_int_equal(key_at("{\"snapshot\":{", "snapshot"), 12);
    assert_int_equal(key_at(" \n{\t\"snapshot\" \r: 1", "snapshot"), 17);
    assert_int_equal(key_at("{\"snapshots\":1", "snapshot"), 0);
    assert_int_equal(key_at("{\"snap\":1", "snapshot"), 0);
    assert_int_equal(key_at("{\"nodes\":[],\"snapshot\":1", "snapshot"), 0); /* first key only */
    assert_int_equal(key_at("[{\"snapshot\":1}]", "snapshot"), 0);
    assert_int_equal(key_at("{\"snapshot\"", "snapshot"), 0); /* no ':' within the bytes */
    assert_int_equal(key_at("{snapshot:1}", "snapshot"), 0);
    assert_int_equal(key_at("", "snapshot"), 0);
}

static gch_format detect(const char *s, size_t n)
{
    return gch_detect_format(s, n);
}

/* Signatures, whole and cut short (a prefix of a signature that is the whole
 * input goes to that format's reader, which reports the truncation). */
static void test_signatures(void **state)
{
    (void)state;
    assert_int_equal(detect("dartheap\1\2", 10), GCH_FORMAT_DART);
    assert_int_equal(detect("dart", 4), GCH_FORMAT_DART);
    assert_int_equal(detect("darth", 5), GCH_FORMAT_DART);
    assert_int_equal(detect("dartx", 5), GCH_FORMAT_GCLOG);
    assert_int_equal(detect("JAVA PROFILE 1.0.2\0", 19), GCH_FORMAT_HPROF);
    assert_int_equal(detect("JAVA PROF", 9), GCH_FORMAT_GCLOG); /* HPROF has no cut rule */
    assert_int_equal(detect("\x14\0\0\0!FastSerialization.1", 24), GCH_FORMAT_GCDUMP);
    assert_int_equal(detect("\x15\0\0\0!FastSerialization.1", 24), GCH_FORMAT_GCDUMP);
    assert_int_equal(detect("\x14\0\0\0!Fast", 9), GCH_FORMAT_GCDUMP);
    assert_int_equal(detect("\x15\0\0\0!Fast", 9), GCH_FORMAT_GCLOG);
    assert_int_equal(detect("{\"snapshot\":{\"meta\":", 20), GCH_FORMAT_V8);
    /* Ruby: "address" with "0x..., or "type" with "ROOT" (docs/architecture.md,
     * "Detection among JSON formats"); other values are not it. */
    assert_int_equal(detect("{\"address\":\"0x1\", \"type\":\"STRING\"", 33), GCH_FORMAT_RUBY);
    assert_int_equal(detect("{\"type\":\"ROOT\", \"root\":\"vm\"", 27), GCH_FORMAT_RUBY);
    assert_int_equal(detect("{ \"address\" : \"0x7f\"", 21), GCH_FORMAT_RUBY);
    assert_int_equal(detect("{\"address\":12", 13), GCH_FORMAT_GCLOG);
    assert_int_equal(detect("{\"type\":\"OBJECT\"}", 17), GCH_FORMAT_GCLOG);
    assert_int_equal(detect("{\"snapshot\":\"0x1\"", 18), GCH_FORMAT_V8);
    /* JavaScriptCore: the first key "version" (docs/jsc-format.md). */
    assert_int_equal(detect("{\"version\":2,\"nodes\":", 21), GCH_FORMAT_JSC);
    assert_int_equal(detect(" {\n  \"version\" : 3, \"type\":\"Inspector\"", 36), GCH_FORMAT_JSC);
    assert_int_equal(detect("{\"versions\":3", 13), GCH_FORMAT_GCLOG);
    assert_int_equal(detect("", 0), GCH_FORMAT_GCLOG);
}

static const char *const samples[] = {
    "basic.gclog", "gcdump/twin.gcdump", "dart/mini.dartheap", "v8/sample.heapsnapshot", "hprof/art-strings.hprof",
    "jsc/bun-small.json",
};

static void test_samples_detected_as_their_reader_names_them(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof samples / sizeof *samples; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", GCHEAP_TESTDATA, samples[i]);
        FILE *f = fopen(path, "rb");
        assert_non_null(f);
        static unsigned char buf[1 << 20];
        size_t n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        gch_format seen = gch_detect_format(buf, n < 64 ? n : 64);
        gch_dump *d = NULL;
        gch_error err;
        gch_status st = gch_load_buffer(buf, n, GCH_FORMAT_AUTO, NULL, &d, &err);
        if (st != GCH_OK)
            fail_msg("%s: %s", samples[i], err.message);
        assert_string_equal(d->format, gch_format_name(seen));
        gch_dump_free(d);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_are_their_formats),
        cmocka_unit_test(test_words_list_the_rows),
        cmocka_unit_test(test_json_first_key),
        cmocka_unit_test(test_signatures),
        cmocka_unit_test(test_samples_detected_as_their_reader_names_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
