/* Unit tests of the Dart snapshot cursor: LEB128 decoding, strings, counts. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "dart_cursor.h"
#include "dart_writer.h"

static gch_status uleb_of(const unsigned char *bytes, size_t n, uint64_t *v, size_t *end,
                          gch_error *err)
{
    gch_dart_cursor c;
    gch_error_clear(err);
    gch_dart_cursor_init(&c, bytes, n, err);
    gch_status st = gch_dart_read_uleb(&c, v, "value");
    *end = c.pos;
    return st;
}

static gch_status sleb_of(const unsigned char *bytes, size_t n, int64_t *v, size_t *end,
                          gch_error *err)
{
    gch_dart_cursor c;
    gch_error_clear(err);
    gch_dart_cursor_init(&c, bytes, n, err);
    gch_status st = gch_dart_read_sleb(&c, v, "value");
    *end = c.pos;
    return st;
}

static void test_uleb_values(void **state)
{
    (void)state;
    static const struct {
        unsigned char bytes[11];
        size_t n;
        uint64_t value;
    } cases[] = {
        { { 0x00 }, 1, 0 },
        { { 0x01 }, 1, 1 },
        { { 0x7f }, 1, 127 },
        { { 0x80, 0x01 }, 2, 128 },
        { { 0xe5, 0x8e, 0x26 }, 3, 624485 },
        { { 0x80, 0x80, 0x00 }, 3, 0 }, /* redundant zero groups are accepted */
        { { 0xff, 0xff, 0xff, 0xff, 0x0f }, 5, 0xffffffffu },
        { { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 }, 10, 1ull << 63 },
        { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10, UINT64_MAX },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint64_t v = 12345;
        size_t end;
        gch_error err;
        assert_int_equal(uleb_of(cases[i].bytes, cases[i].n, &v, &end, &err), GCH_OK);
        assert_true(v == cases[i].value);
        assert_int_equal(end, cases[i].n);
    }
}

static void test_uleb_round_trip_with_writer(void **state)
{
    (void)state;
    static const uint64_t values[] = { 0, 1, 63, 64, 127, 128, 16383, 16384, 1ull << 35,
                                       (1ull << 56) - 1, 1ull << 56, (1ull << 63) - 1,
                                       1ull << 63, UINT64_MAX };
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        dtw_buf b = { 0 };
        dtw_put_uleb(&b, values[i]);
        uint64_t v;
        size_t end;
        gch_error err;
        assert_int_equal(uleb_of(b.data, b.size, &v, &end, &err), GCH_OK);
        assert_true(v == values[i]);
        assert_int_equal(end, b.size);
        assert_true(b.size <= GCH_DART_LEB_MAX_BYTES);
        dtw_buf_free(&b);
    }
}

static void test_uleb_errors(void **state)
{
    (void)state;
    uint64_t v;
    size_t end;
    gch_error err;
    /* Ten bytes whose last carries more than bit 63. */
    const unsigned char overflow[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02 };
    assert_int_equal(uleb_of(overflow, sizeof overflow, &v, &end, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "overflows 64 bits"));
    assert_int_equal(err.has_offset, 1);
    assert_int_equal(err.offset, 0);
    assert_int_equal(end, 0); /* the cursor does not move on failure */

    /* Eleven bytes: longer than any 64-bit value. */
    const unsigned char too_long[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
    assert_int_equal(uleb_of(too_long, sizeof too_long, &v, &end, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "longer than 10 bytes"));

    /* Continuation bit set on the last byte of the input. */
    const unsigned char truncated[] = { 0x05, 0x80, 0x80 };
    gch_dart_cursor c;
    gch_error_clear(&err);
    gch_dart_cursor_init(&c, truncated, sizeof truncated, &err);
    assert_int_equal(gch_dart_read_uleb(&c, &v, "first"), GCH_OK);
    assert_true(v == 5);
    assert_int_equal(gch_dart_read_uleb(&c, &v, "second value"), GCH_EFORMAT);
    assert_string_equal(err.message, "truncated input in the second value");
    assert_int_equal(err.offset, 1);

    /* Empty input. */
    assert_int_equal(uleb_of(truncated, 0, &v, &end, &err), GCH_EFORMAT);
    assert_int_equal(err.offset, 0);
}

static void test_sleb_values(void **state)
{
    (void)state;
    static const int64_t values[] = { 0, 1, -1, 63, 64, -64, -65, 127, -128, 1000000, -1000000,
                                      INT32_MIN, INT32_MAX, INT64_MAX, INT64_MIN, INT64_MIN + 1 };
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        dtw_buf b = { 0 };
        dtw_put_sleb(&b, values[i]);
        int64_t v;
        size_t end;
        gch_error err;
        assert_int_equal(sleb_of(b.data, b.size, &v, &end, &err), GCH_OK);
        assert_true(v == values[i]);
        assert_int_equal(end, b.size);
        dtw_buf_free(&b);
    }
    /* Known encodings. */
    const unsigned char minus_one[] = { 0x7f };
    const unsigned char minus_128[] = { 0x80, 0x7f };
    int64_t v;
    size_t end;
    gch_error err;
    assert_int_equal(sleb_of(minus_one, 1, &v, &end, &err), GCH_OK);
    assert_true(v == -1);
    assert_int_equal(sleb_of(minus_128, 2, &v, &end, &err), GCH_OK);
    assert_true(v == -128);
}

static void test_sleb_errors(void **state)
{
    (void)state;
    int64_t v;
    size_t end;
    gch_error err;
    /* Tenth byte must be 0x00 or 0x7f (bit 63 and its sign extension). */
    const unsigned char overflow[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
    assert_int_equal(sleb_of(overflow, sizeof overflow, &v, &end, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "overflows 64 bits"));
    const unsigned char too_long[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f };
    assert_int_equal(sleb_of(too_long, sizeof too_long, &v, &end, &err), GCH_EFORMAT);
    const unsigned char truncated[] = { 0xff };
    assert_int_equal(sleb_of(truncated, 1, &v, &end, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "truncated"));
}

static void test_strings_and_counts(void **state)
{
    (void)state;
    gch_error err;
    gch_dart_cursor c;
    const unsigned char data[] = { 0x03, 'a', 'b', 'c', 0x05, 'x', 0x02, 0x00 };
    gch_error_clear(&err);
    gch_dart_cursor_init(&c, data, sizeof data, &err);
    const char *s;
    size_t len;
    assert_int_equal(gch_dart_read_string(&c, &s, &len, "name"), GCH_OK);
    assert_int_equal(len, 3);
    assert_memory_equal(s, "abc", 3);
    /* Length 5 but only 3 bytes follow. */
    assert_int_equal(gch_dart_read_string(&c, &s, &len, "name"), GCH_EFORMAT);
    assert_int_equal(err.offset, 4);
    assert_int_equal(c.pos, 4);
    assert_non_null(strstr(err.message, "length 5 exceeds the 3 bytes left"));

    /* A count that the remaining bytes cannot hold. */
    const unsigned char count[] = { 0x04, 0, 0, 0, 0, 0, 0, 0, 0 }; /* 4 items of >= 3 bytes in 8 */
    gch_dart_cursor_init(&c, count, sizeof count, &err);
    uint64_t n;
    assert_int_equal(gch_dart_read_count(&c, 3, &n, "item count"), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "item count 4 is more than the 8 bytes left can hold"));
    gch_dart_cursor_init(&c, count, sizeof count, &err);
    assert_int_equal(gch_dart_read_count(&c, 2, &n, "item count"), GCH_OK);
    assert_true(n == 4);
    /* A huge count fails the same way instead of being allocated. */
    const unsigned char huge[] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
    gch_dart_cursor_init(&c, huge, sizeof huge, &err);
    assert_int_equal(gch_dart_read_count(&c, 1, &n, "object count"), GCH_EFORMAT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uleb_values),
        cmocka_unit_test(test_uleb_round_trip_with_writer),
        cmocka_unit_test(test_uleb_errors),
        cmocka_unit_test(test_sleb_values),
        cmocka_unit_test(test_sleb_errors),
        cmocka_unit_test(test_strings_and_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
