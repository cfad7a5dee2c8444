/* The JSON tokenizer's verdict never depends on how the input arrives: every
 * integer array below is read from a buffer and from sources that return 1 to
 * 40 bytes per read, and each must give the same status, offset, message and
 * values. The expected values are computed here a second way (strtoull with
 * errno, and the JSON grammar's leading-zero rule checked by hand).
 * Regression: fuzz_jsc found "0000...9000..." (a leading zero and more than 20
 * digits) reported as an overflow from a buffer and as a leading zero from a
 * stream. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "chunks.h"

#include "json_tokenizer.h"

typedef struct verdict {
    gch_status st;
    uint64_t offset;
    char message[256];
    uint64_t values[8];
    size_t n;
} verdict;

/* Reads "[...]" (the text) as an integer array through in. */
static void read_array(gch_json_in *in, verdict *v)
{
    gch_error err;
    memset(&err, 0, sizeof err);
    in->err = &err;
    memset(v, 0, sizeof *v);
    v->st = gch_json_expect(in, '[', "'['");
    int state = 0, closed = 0;
    while (v->st == GCH_OK && !closed && v->n < 8) {
        size_t got = 0;
        v->st = gch_json_uint_batch(in, &state, v->values + v->n, 8 - v->n, &got, &closed, "an integer");
        v->n += got;
    }
    if (v->st != GCH_OK) {
        v->offset = err.offset;
        snprintf(v->message, sizeof v->message, "%s", err.message);
    }
}

static void from_buffer(const char *text, verdict *v)
{
    gch_json_in in;
    gch_json_init_buffer(&in, text, strlen(text), NULL, NULL);
    read_array(&in, v);
    gch_json_free(&in);
}

static void from_source(const char *text, size_t step, verdict *v)
{
    chunks c = { text, strlen(text), step };
    gch_source src = { chunk_read, &c };
    gch_json_in in;
    gch_error err;
    assert_int_equal(gch_json_init_source(&in, &src, NULL, &err), GCH_OK);
    read_array(&in, v);
    gch_json_free(&in);
}

/* What the grammar says of one digit run: 0 fine (value in *out), 1 a leading
 * zero, 2 larger than 2^64-1. */
static int oracle(const char *digits, uint64_t *out)
{
    if (digits[0] == '0' && digits[1] != '\0')
        return 1;
    errno = 0;
    unsigned long long v = strtoull(digits, NULL, 10);
    if (errno == ERANGE)
        return 2;
    *out = (uint64_t)v;
    return 0;
}

static void check_number(const char *digits)
{
    char text[512];
    snprintf(text, sizeof text, "[7,%s,5]", digits);
    uint64_t want = 0;
    int kind = oracle(digits, &want);
    verdict whole;
    from_buffer(text, &whole);
    if (kind == 0) {
        assert_int_equal(whole.st, GCH_OK);
        assert_int_equal(whole.n, 3);
        assert_true(whole.values[1] == want);
    } else {
        assert_int_equal(whole.st, GCH_EFORMAT);
        assert_non_null(strstr(whole.message, kind == 1 ? "leading zero" : "larger than 2^64-1"));
    }
    for (size_t step = 1; step <= 40; step++) {
        verdict piped;
        from_source(text, step, &piped);
        if (piped.st != whole.st || piped.offset != whole.offset || strcmp(piped.message, whole.message) != 0 ||
            piped.n != whole.n || memcmp(piped.values, whole.values, sizeof whole.values) != 0)
            fail_msg("%s in %zu-byte reads: %d at %llu '%s', from a buffer %d at %llu '%s'", digits, step,
                     piped.st, (unsigned long long)piped.offset, piped.message, whole.st,
                     (unsigned long long)whole.offset, whole.message);
    }
}

static void test_same_verdict_however_read(void **state)
{
    (void)state;
    const char *fixed[] = {
        "0", "9", "18446744073709551615", "18446744073709551616", "99999999999999999999",
        "00", "01", "0000000000000000000000000000000000000000000000000000000000000090",
        "000000000000000000000000009000000000000000000000000000000000000000000000000002",
        "123456789012345678901234567890123456789", "10000000000000000000", "0018446744073709551615",
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        check_number(fixed[i]);
    /* Random digit runs of 1 to 70 digits, some with leading zeros. */
    srand(28);
    for (int round = 0; round < 300; round++) {
        char digits[80];
        size_t len = 1 + (size_t)rand() % 70, zeros = rand() % 3 == 0 ? (size_t)rand() % len : 0;
        for (size_t k = 0; k < len; k++)
            digits[k] = k < zeros ? '0' : (char)('0' + rand() % 10);
        digits[len] = '\0';
        check_number(digits);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_verdict_however_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
