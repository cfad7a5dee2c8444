/* The .gcdump primitives and FastSerialization framing, on hand-made bytes.
 * Expected values are worked out by hand from the encodings in
 * docs/gcdump-format.md. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcdump_decode.h" /* library-private: tested directly */
#include "gcdump_graph.h"
#include "gcdump_writer.h"
#include "gcheap/alloc.h"

/* ---- varints ---- */

typedef struct varint_case {
    unsigned char bytes[5];
    size_t n;
    int32_t value;
} varint_case;

static const varint_case varint_cases[] = {
    { { 0x00 }, 1, 0 },
    { { 0x01 }, 1, 1 },
    { { 0x3F }, 1, 63 },
    { { 0x40 }, 1, -64 },                       /* bit 6 of the first byte is the sign */
    { { 0x7F }, 1, -1 },
    { { 0x80, 0x40 }, 2, 64 },                  /* 0 << 7 + 0x40 */
    { { 0x81, 0x00 }, 2, 128 },
    { { 0xFF, 0x00 }, 2, -128 },                /* -1 << 7 */
    { { 0xBF, 0x7F }, 2, 8191 },                /* 63 << 7 + 127 */
    { { 0xC0, 0x80, 0x00 }, 3, -8192 * 128 },   /* -64 << 14 */
    { { 0x81, 0x80, 0x80, 0x00 }, 4, 1 << 21 },
    { { 0x87, 0xFF, 0xFF, 0xFF, 0x7F }, 5, INT32_MAX },
    { { 0xF8, 0x80, 0x80, 0x80, 0x00 }, 5, INT32_MIN }, /* -8 << 28 */
};

static void test_varint_values(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof varint_cases / sizeof *varint_cases; k++) {
        const varint_case *v = &varint_cases[k];
        gcd_cursor c;
        gch_error err;
        gcd_cursor_init(&c, v->bytes, v->n, 0, &err);
        int32_t got;
        assert_int_equal(gcd_read_varint(&c, &got, "x"), GCH_OK);
        assert_int_equal(got, v->value);
        assert_int_equal(c.pos, v->n);
    }
}

static void test_varint_matches_writer(void **state)
{
    (void)state;
    /* Every width the writer picks must read back. */
    static const int32_t values[] = { 0, 1, -1, 63, 64, -64, -65, 8191, 8192, -8192, -8193,
                                      (1 << 20) - 1, 1 << 20, -(1 << 20), (1 << 27) - 1, 1 << 27,
                                      -(1 << 27) - 1, INT32_MAX, INT32_MIN, 123456789, -987654321 };
    for (size_t k = 0; k < sizeof values / sizeof *values; k++) {
        gcdw_buf b = { 0 };
        gcdw_put_varint(&b, values[k]);
        gcd_cursor c;
        gcd_cursor_init(&c, b.data, b.size, 0, NULL);
        int32_t got;
        assert_int_equal(gcd_read_varint(&c, &got, "x"), GCH_OK);
        assert_int_equal(got, values[k]);
        assert_int_equal(c.pos, b.size);
        gcdw_buf_free(&b);
    }
}

static void test_varint_truncated(void **state)
{
    (void)state;
    static const unsigned char bytes[] = { 0x87, 0xFF, 0xFF, 0xFF, 0x7F };
    for (size_t n = 0; n < sizeof bytes; n++) {
        gcd_cursor c;
        gch_error err;
        gcd_cursor_init(&c, bytes, n, 100, &err);
        int32_t got;
        assert_int_equal(gcd_read_varint(&c, &got, "x"), GCH_EFORMAT);
        assert_int_equal(err.has_offset, 1);
        assert_int_equal(err.offset, 100 + n); /* base + where the missing byte was */
    }
}

/* ---- fixed-size and counts ---- */

static void test_fixed_and_counts(void **state)
{
    (void)state;
    static const unsigned char bytes[] = { 0x78, 0x56, 0x34, 0x12, 0xFF, 0xFF, 0xFF, 0xFF,
                                           0x02, 0x00, 0x00, 0x00, 0xAA, 0xBB };
    gcd_cursor c;
    gch_error err;
    gcd_cursor_init(&c, bytes, sizeof bytes, 0, &err);
    int32_t v;
    uint32_t n;
    assert_int_equal(gcd_read_i32(&c, &v, "x"), GCH_OK);
    assert_int_equal(v, 0x12345678);
    assert_int_equal(gcd_read_i32(&c, &v, "x"), GCH_OK);
    assert_int_equal(v, -1);
    /* Count 2: fits with 1-byte items, not with 2-byte items. */
    size_t at = c.pos;
    assert_int_equal(gcd_read_count(&c, 1, &n, "count"), GCH_OK);
    assert_int_equal(n, 2);
    c.pos = at;
    assert_int_equal(gcd_read_count(&c, 2, &n, "count"), GCH_EFORMAT);
    assert_int_equal(err.offset, at);
    c.pos = 4; /* -1 */
    assert_int_equal(gcd_read_count(&c, 1, &n, "count"), GCH_EFORMAT);
    int64_t w;
    c.pos = 8;
    assert_int_equal(gcd_read_i64(&c, &w, "x"), GCH_EFORMAT); /* only 6 bytes left */
}

/* ---- strings ---- */

static void check_decoded_string(const unsigned char *bytes, size_t n, const char *want)
{
    gcd_cursor c;
    gch_error err;
    gcd_cursor_init(&c, bytes, n, 0, &err);
    char *s;
    size_t len;
    assert_int_equal(gcd_read_string(&c, &s, &len, "s"), GCH_OK);
    assert_int_equal(c.pos, n);
    if (!want) {
        assert_null(s);
        return;
    }
    assert_non_null(s);
    assert_string_equal(s, want);
    assert_int_equal(len, strlen(want));
    gch_free(s);
    /* Skipping consumes the same bytes. */
    gcd_cursor_init(&c, bytes, n, 0, &err);
    int is_null = 1;
    assert_int_equal(gcd_skip_string(&c, &is_null, "s"), GCH_OK);
    assert_int_equal(c.pos, n);
    assert_int_equal(is_null, 0);
}

static void test_strings(void **state)
{
    (void)state;
    static const unsigned char ascii[] = { 2, 0, 0, 0, 'h', 'i' };
    static const unsigned char empty[] = { 0, 0, 0, 0 };
    static const unsigned char null_string[] = { 0xFF, 0xFF, 0xFF, 0xFF };
    /* U+00DC in 2 bytes, U+20AC in 3 bytes. */
    static const unsigned char two_three[] = { 2, 0, 0, 0, 0xC3, 0x9C, 0xE2, 0x82, 0xAC };
    /* U+1D11E as the surrogates D834 DD1E, 3 bytes each (CESU-8 style). */
    static const unsigned char pair[] = { 2, 0, 0, 0, 0xED, 0xA0, 0xB4, 0xED, 0xB4, 0x9E };
    /* A lone high surrogate, then 'x': U+FFFD then x. */
    static const unsigned char lone[] = { 2, 0, 0, 0, 0xED, 0xA0, 0xB4, 'x' };
    check_decoded_string(ascii, sizeof ascii, "hi");
    check_decoded_string(empty, sizeof empty, "");
    check_decoded_string(null_string, sizeof null_string, NULL);
    check_decoded_string(two_three, sizeof two_three, "\xC3\x9C\xE2\x82\xAC");
    check_decoded_string(pair, sizeof pair, "\xF0\x9D\x84\x9E");
    check_decoded_string(lone, sizeof lone, "\xEF\xBF\xBDx");
}

static void test_string_writer_round_trip(void **state)
{
    (void)state;
    static const char *const samples[] = { "", "System.String", "\xC3\x9C\xE2\x82\xAC\xF0\x9D\x84\x9E!",
                                           "List<Dictionary<int,string>>[]" };
    for (size_t k = 0; k < sizeof samples / sizeof *samples; k++) {
        gcdw_buf b = { 0 };
        gcdw_put_string(&b, samples[k]);
        gcd_cursor c;
        gcd_cursor_init(&c, b.data, b.size, 0, NULL);
        char *s;
        assert_int_equal(gcd_read_string(&c, &s, NULL, "s"), GCH_OK);
        assert_string_equal(s, samples[k]);
        gch_free(s);
        gcdw_buf_free(&b);
    }
}

static void test_string_errors(void **state)
{
    (void)state;
    static const unsigned char too_long[] = { 5, 0, 0, 0, 'a', 'b' };
    static const unsigned char cut_unit[] = { 1, 0, 0, 0, 0xE2, 0x82 };
    static const unsigned char bad_length[] = { 0xFE, 0xFF, 0xFF, 0xFF };
    gcd_cursor c;
    gch_error err;
    char *s = (char *)1;
    gcd_cursor_init(&c, too_long, sizeof too_long, 0, &err);
    assert_int_equal(gcd_read_string(&c, &s, NULL, "s"), GCH_EFORMAT);
    assert_null(s);
    assert_int_equal(err.offset, 0);
    gcd_cursor_init(&c, cut_unit, sizeof cut_unit, 0, &err);
    assert_int_equal(gcd_read_string(&c, &s, NULL, "s"), GCH_EFORMAT);
    assert_int_equal(err.offset, 6);
    gcd_cursor_init(&c, bad_length, sizeof bad_length, 0, &err);
    assert_int_equal(gcd_skip_string(&c, NULL, "s"), GCH_EFORMAT);
}

/* ---- framing ---- */

static void put_header(gcdw_buf *b)
{
    gcdw_put_i32(b, 20);
    gcdw_put_bytes(b, "!FastSerialization.1", 20);
}

static void test_header(void **state)
{
    (void)state;
    gcdw_buf b = { 0 };
    put_header(&b);
    gcd_framing f;
    gch_error err;
    gcd_framing_init(&f, b.data, b.size, &err);
    assert_int_equal(gcd_read_header(&f), GCH_OK);
    assert_int_equal(f.c.pos, 24);
    b.data[10] = 'x';
    gcd_framing_init(&f, b.data, b.size, &err);
    assert_int_equal(gcd_read_header(&f), GCH_EFORMAT);
    gcdw_patch_i32(&b, 0, 19);
    gcd_framing_init(&f, b.data, b.size, &err);
    assert_int_equal(gcd_read_header(&f), GCH_EFORMAT);
    gcd_framing_init(&f, b.data, 10, &err);
    assert_int_equal(gcd_read_header(&f), GCH_EFORMAT);
    gcdw_buf_free(&b);
}

/* An inline type definition for `name`: BeginObject NullReference version
 * minimumReaderVersion name EndObject. */
static void put_type_def(gcdw_buf *b, const char *name, int32_t version)
{
    gcdw_put_u8(b, 4);
    gcdw_put_u8(b, 1);
    gcdw_put_i32(b, version);
    gcdw_put_i32(b, 0);
    gcdw_put_string(b, name);
    gcdw_put_u8(b, 6);
}

static void test_types_by_reference(void **state)
{
    (void)state;
    /* Object 1 defines type "Seg" inline; object 2 names it by the offset of
     * the definition; a null object; then a reference to a bad offset. */
    gcdw_buf b = { 0 };
    gcdw_put_u8(&b, 4);
    size_t def = b.size;
    put_type_def(&b, "Seg", 3);
    gcdw_put_i32(&b, 11); /* a field */
    gcdw_put_u8(&b, 6);
    gcdw_put_u8(&b, 7); /* ForwardDefinition 0, then the object */
    gcdw_put_i32(&b, 0);
    gcdw_put_u8(&b, 4);
    gcdw_put_u8(&b, 2);
    gcdw_put_i32(&b, (int32_t)def);
    gcdw_put_i32(&b, 22);
    gcdw_put_u8(&b, 6);
    gcdw_put_u8(&b, 1);
    size_t bad = b.size;
    gcdw_put_u8(&b, 4);
    gcdw_put_u8(&b, 2);
    gcdw_put_i32(&b, (int32_t)def + 1);

    gcd_framing f;
    gch_error err;
    gcd_framing_init(&f, b.data, b.size, &err);
    int present;
    gcd_type t;
    int32_t field;
    assert_int_equal(gcd_begin_object(&f, "Seg", &present, &t), GCH_OK);
    assert_int_equal(present, 1);
    assert_string_equal(t.name, "Seg");
    assert_int_equal(t.version, 3);
    assert_int_equal(gcd_read_i32(&f.c, &field, "f"), GCH_OK);
    assert_int_equal(field, 11);
    assert_int_equal(gcd_end_object(&f), GCH_OK);

    assert_int_equal(gcd_begin_object(&f, "Seg", &present, &t), GCH_OK);
    assert_int_equal(present, 1);
    assert_int_equal(t.version, 3);
    assert_int_equal(gcd_read_i32(&f.c, &field, "f"), GCH_OK);
    assert_int_equal(field, 22);
    assert_int_equal(gcd_end_object(&f), GCH_OK);

    assert_int_equal(gcd_begin_object(&f, "Seg", &present, &t), GCH_OK);
    assert_int_equal(present, 0);

    assert_int_equal(gcd_begin_object(&f, NULL, &present, &t), GCH_EFORMAT);
    assert_int_equal(err.offset, bad + 1);
    gcd_framing_free(&f);

    /* A type of another name is refused. */
    gcd_framing_init(&f, b.data, b.size, &err);
    assert_int_equal(gcd_begin_object(&f, "Other", &present, &t), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "Seg"));
    gcd_framing_free(&f);
    gcdw_buf_free(&b);
}

/* A file: header, an object whose unknown tail holds every kind of tagged
 * field and a SkipRegion, a second object, the trailer. */
static void build_tagged_file(gcdw_buf *b, size_t *second_object)
{
    put_header(b);
    gcdw_put_u8(b, 4);
    put_type_def(b, "Entry", 1);
    gcdw_put_i32(b, 5);                 /* the known field */
    gcdw_put_u8(b, 8);                  /* tagged byte */
    gcdw_put_u8(b, 6);
    gcdw_put_u8(b, 9);                  /* tagged int16 */
    gcdw_put_u8(b, 6);
    gcdw_put_u8(b, 6);
    gcdw_put_u8(b, 10);                 /* tagged int32 */
    gcdw_put_i32(b, 0x06060606);
    gcdw_put_u8(b, 11);                 /* tagged int64 */
    gcdw_put_i64(b, 0x0606060606060606LL);
    gcdw_put_u8(b, 13);                 /* tagged string */
    gcdw_put_string(b, "\x06\x06");
    gcdw_put_u8(b, 14);                 /* blob of 3 bytes */
    gcdw_put_i32(b, 3);
    gcdw_put_bytes(b, "\x06\x06\x06", 3);
    gcdw_put_u8(b, 12);                 /* SkipRegion with forward reference 0 */
    gcdw_put_i32(b, 0);
    gcdw_put_bytes(b, "\x06\xFF\x00garbage", 10);
    size_t region_end = b->size;
    /* A nested object whose type is a reference (raw, untagged fields could
     * not be skipped: PerfView's FindEndTag cannot either). */
    gcdw_put_u8(b, 4);
    gcdw_put_u8(b, 2);
    gcdw_put_i32(b, 25);                /* the Entry type definition */
    gcdw_put_u8(b, 13);
    gcdw_put_string(b, "inner");
    gcdw_put_u8(b, 6);
    gcdw_put_u8(b, 6);                  /* the end of Entry */
    *second_object = b->size;
    gcdw_put_u8(b, 1);                  /* a null object */
    gcdw_put_u8(b, 6);                  /* trailer */
    size_t table = b->size;
    gcdw_put_i32(b, 1);
    gcdw_put_i32(b, (int32_t)region_end);
    size_t trailer = b->size;
    gcdw_put_i32(b, (int32_t)table);
    gcdw_put_i32(b, (int32_t)trailer);
}

static void test_tagged_fields_and_skip_region(void **state)
{
    (void)state;
    gcdw_buf b = { 0 };
    size_t second;
    build_tagged_file(&b, &second);
    gcd_framing f;
    gch_error err;
    gcd_framing_init(&f, b.data, b.size, &err);
    assert_int_equal(gcd_read_header(&f), GCH_OK);
    assert_int_equal(gcd_read_trailer(&f), GCH_OK);
    assert_int_equal(f.forward_count, 1);
    assert_int_equal(f.c.pos, 24); /* the trailer is read aside */
    int present;
    gcd_type t;
    assert_int_equal(gcd_begin_object(&f, "Entry", &present, &t), GCH_OK);
    int32_t v;
    assert_int_equal(gcd_read_i32(&f.c, &v, "v"), GCH_OK);
    assert_int_equal(v, 5);
    assert_int_equal(gcd_end_object(&f), GCH_OK);
    assert_int_equal(f.c.pos, second);
    gcd_framing_free(&f);
    gcdw_buf_free(&b);
}

static void test_trailer_errors(void **state)
{
    (void)state;
    gcdw_buf b = { 0 };
    size_t second;
    build_tagged_file(&b, &second);
    gcd_framing f;
    gch_error err;
    /* Drop the last byte: the suffix label is garbage. */
    gcd_framing_init(&f, b.data, b.size - 1, &err);
    assert_int_equal(gcd_read_trailer(&f), GCH_EFORMAT);
    gcd_framing_free(&f);
    /* A forward-reference count that does not end at the trailer. */
    gcdw_patch_i32(&b, b.size - 16, 2);
    gcd_framing_init(&f, b.data, b.size, &err);
    assert_int_equal(gcd_read_trailer(&f), GCH_EFORMAT);
    gcd_framing_free(&f);
    gcdw_patch_i32(&b, b.size - 16, 1);
    /* A SkipRegion whose forward reference is not in the table. */
    gcd_framing_init(&f, b.data, b.size, &err);
    assert_int_equal(gcd_read_trailer(&f), GCH_OK);
    uint32_t label;
    assert_int_equal(gcd_resolve_forward(&f, 1, 0, &label), GCH_EFORMAT);
    assert_int_equal(gcd_resolve_forward(&f, -1, 0, &label), GCH_EFORMAT);
    assert_int_equal(gcd_resolve_forward(&f, 0, 0, &label), GCH_OK);
    gcd_framing_free(&f);
    gcdw_buf_free(&b);
}

static void test_end_object_unknown_tag(void **state)
{
    (void)state;
    static const unsigned char bytes[] = { 8, 1, 0x2A, 6 };
    gcd_framing f;
    gch_error err;
    gcd_framing_init(&f, bytes, sizeof bytes, &err);
    assert_int_equal(gcd_end_object(&f), GCH_EFORMAT);
    assert_int_equal(err.offset, 2);
}

/* ---- helpers of the reader ---- */

static void test_strip_size_bucket(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        { "System.Byte[] (Bytes > 1K)", "System.Byte[]" },
        { "System.Byte[] (Bytes > 100M)", "System.Byte[]" },
        { "System.Char[](Bytes > 10K)", "System.Char[]" },
        { "System.Int32[] (Bytes > 1K,NoPtrs,ElemSize=4)", "System.Int32[] (NoPtrs,ElemSize=4)" },
        { "System.Int32[] (NoPtrs,ElemSize=4)", "System.Int32[] (NoPtrs,ElemSize=4)" },
        { "Foo (Bytes > K)", "Foo (Bytes > K)" },
        { "Foo (Bytes > 10)", "Foo (Bytes > 10)" },
        { "(Bytes > 1K)", "" },
        { "Plain", "Plain" },
        { "", "" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char out[128];
        size_t n = gcd_strip_size_bucket(cases[k][0], out);
        assert_string_equal(out, cases[k][1]);
        assert_int_equal(n, strlen(cases[k][1]));
    }
}

static void test_format_ticks(void **state)
{
    (void)state;
    char buf[32];
    gcd_format_ticks(0, buf, sizeof buf);
    assert_string_equal(buf, "0001-01-01T00:00:00Z");
    /* 1970-01-01 is 621355968000000000 ticks. */
    gcd_format_ticks(621355968000000000LL, buf, sizeof buf);
    assert_string_equal(buf, "1970-01-01T00:00:00Z");
    /* 2000-02-29T23:59:59: 951868799 s after 1970 (a leap day). */
    gcd_format_ticks(621355968000000000LL + 951868799LL * 10000000LL + 9999999, buf, sizeof buf);
    assert_string_equal(buf, "2000-02-29T23:59:59Z");
    /* The DateTimeKind bits are ignored. */
    gcd_format_ticks(621355968000000000LL | INT64_MIN, buf, sizeof buf); /* DateTimeKind.Local */
    assert_string_equal(buf, "1970-01-01T00:00:00Z");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_varint_values),
        cmocka_unit_test(test_varint_matches_writer),
        cmocka_unit_test(test_varint_truncated),
        cmocka_unit_test(test_fixed_and_counts),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_string_writer_round_trip),
        cmocka_unit_test(test_string_errors),
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_types_by_reference),
        cmocka_unit_test(test_tagged_fields_and_skip_region),
        cmocka_unit_test(test_trailer_errors),
        cmocka_unit_test(test_end_object_unknown_tag),
        cmocka_unit_test(test_strip_size_bucket),
        cmocka_unit_test(test_format_ticks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
