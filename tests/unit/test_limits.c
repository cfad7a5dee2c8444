/* Limits of the CI gates: parsing, globs, exact threshold comparisons. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/limits.h"

static uint64_t size_ok(const char *s)
{
    uint64_t v = 12345;
    gch_error err;
    gch_error_clear(&err);
    gch_status st = gch_parse_size(s, &v, &err);
    if (st != GCH_OK)
        fail_msg("'%s': %s", s, err.message);
    return v;
}

static void size_bad(const char *s, const char *needle)
{
    uint64_t v = 12345;
    gch_error err;
    gch_error_clear(&err);
    assert_int_equal(gch_parse_size(s, &v, &err), GCH_EINVAL);
    assert_int_equal(v, 12345); /* untouched on failure */
    if (!strstr(err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", s, err.message, needle);
}

static void test_size_units(void **state)
{
    (void)state;
    assert_int_equal(size_ok("0"), 0);
    assert_int_equal(size_ok("1234"), 1234);
    assert_int_equal(size_ok("7B"), 7);
    assert_int_equal(size_ok("2KB"), 2000);
    assert_int_equal(size_ok("3MB"), 3000000);
    assert_int_equal(size_ok("4GB"), 4000000000u);
    assert_int_equal(size_ok("5TB"), 5000000000000u);
    assert_int_equal(size_ok("2KiB"), 2048);
    assert_int_equal(size_ok("64MiB"), 67108864);
    assert_int_equal(size_ok("3GiB"), 3221225472u);
    assert_int_equal(size_ok("2TiB"), 2199023255552u);
    /* case-insensitive units */
    assert_int_equal(size_ok("2kib"), 2048);
    assert_int_equal(size_ok("2KIB"), 2048);
    assert_int_equal(size_ok("2kb"), 2000);
    assert_int_equal(size_ok("2b"), 2);
    assert_int_equal(size_ok("1mb"), 1000000);
    /* leading zeros */
    assert_int_equal(size_ok("007"), 7);
}

static void test_size_fractions(void **state)
{
    (void)state;
    assert_int_equal(size_ok("1.5MiB"), 1572864);
    assert_int_equal(size_ok("0.5KiB"), 512);
    assert_int_equal(size_ok("1.5KB"), 1500);
    assert_int_equal(size_ok("1.3KiB"), 1331);      /* 1331.2, rounded down */
    assert_int_equal(size_ok("0.001KiB"), 1);       /* 1.024 */
    assert_int_equal(size_ok("0.0009KiB"), 0);      /* 0.9216 */
    assert_int_equal(size_ok("1.5"), 1);            /* bytes, rounded down */
    assert_int_equal(size_ok("0.999999999TiB"), 1099511626676u); /* floor(1099511627776*0.999999999) */
    assert_int_equal(size_ok("2.25GB"), 2250000000u);
    assert_int_equal(size_ok("1.000000001GB"), 1000000001u);
}

static void test_size_limits_and_errors(void **state)
{
    (void)state;
    assert_true(size_ok("18446744073709551615") == UINT64_MAX);
    assert_true(size_ok("18446744073709551615B") == UINT64_MAX);
    size_bad("18446744073709551616", "too large");
    size_bad("16777216TiB", "too large");                /* 2^64 */
    assert_true(size_ok("16777215TiB") == 16777215ull * 1099511627776ull);
    assert_true(size_ok("16777215.9999999TiB") == UINT64_MAX - 109951);
    assert_true(size_ok("18446744073709551.615KB") == UINT64_MAX);
    size_bad("18446744073709551.616KB", "too large");
    size_bad("", "expected a number");
    size_bad("MiB", "expected a number");
    size_bad("-1", "expected a number");
    size_bad("+1", "expected a number");
    size_bad(" 1", "expected a number");
    size_bad("1 MiB", "unknown unit ' MiB'");
    size_bad("1MiB ", "unknown unit 'MiB '");
    size_bad("12XB", "unknown unit 'XB'");
    size_bad("12K", "unknown unit 'K'");
    size_bad("12Mb/s", "unknown unit 'Mb/s'");
    size_bad("1.", "digits after '.'");
    size_bad(".5MiB", "expected a number");
    size_bad("1.0000000001GB", "at most 9 digits");
    size_bad("1,000", "unknown unit ',000'");
    size_bad("5%", "unknown unit '%'");
}

static void test_counts(void **state)
{
    (void)state;
    uint64_t v;
    gch_error err;
    assert_int_equal(gch_parse_count("0", &v, &err), GCH_OK);
    assert_int_equal(v, 0);
    assert_int_equal(gch_parse_count("500000", &v, &err), GCH_OK);
    assert_int_equal(v, 500000);
    assert_int_equal(gch_parse_count("18446744073709551615", &v, &err), GCH_OK);
    assert_true(v == UINT64_MAX);
    assert_int_equal(gch_parse_count("18446744073709551616", &v, &err), GCH_EINVAL);
    assert_non_null(strstr(err.message, "too large"));
    assert_int_equal(gch_parse_count("1.5", &v, &err), GCH_EINVAL);
    assert_non_null(strstr(err.message, "bad count '1.5': expected a whole number"));
    assert_int_equal(gch_parse_count("10k", &v, &err), GCH_EINVAL);
    assert_non_null(strstr(err.message, "bad count '10k'"));
    assert_int_equal(gch_parse_count("", &v, &err), GCH_EINVAL);
    assert_int_equal(gch_parse_count("x", &v, &err), GCH_EINVAL);
    assert_int_equal(gch_parse_count("1KiB", &v, &err), GCH_EINVAL);
}

static void test_percent(void **state)
{
    (void)state;
    uint64_t v;
    gch_error err;
    assert_int_equal(gch_parse_percent("5%", &v, &err), GCH_OK);
    assert_true(v == 5000000000ull);
    assert_int_equal(gch_parse_percent("0.5%", &v, &err), GCH_OK);
    assert_true(v == 500000000ull);
    assert_int_equal(gch_parse_percent("0%", &v, &err), GCH_OK);
    assert_true(v == 0);
    assert_int_equal(gch_parse_percent("0.000000001%", &v, &err), GCH_OK);
    assert_true(v == 1);
    assert_int_equal(gch_parse_percent("110.4651%", &v, &err), GCH_OK);
    assert_true(v == 110465100000ull);
    assert_int_equal(gch_parse_percent("1000000000%", &v, &err), GCH_OK);
    assert_int_equal(gch_parse_percent("1000000001%", &v, &err), GCH_EINVAL);
    assert_int_equal(gch_parse_percent("5", &v, &err), GCH_EINVAL);
    assert_int_equal(gch_parse_percent("%", &v, &err), GCH_EINVAL);
    assert_int_equal(gch_parse_percent("5 %", &v, &err), GCH_EINVAL);
    assert_int_equal(gch_parse_percent("5%%", &v, &err), GCH_EINVAL);
    assert_int_equal(gch_parse_percent("-5%", &v, &err), GCH_EINVAL);
    assert_int_equal(gch_parse_percent("0.0000000001%", &v, &err), GCH_EINVAL);
    assert_non_null(strstr(err.message, "at most 9 digits"));
}

static gch_bound bound_ok(const char *s, unsigned flags)
{
    gch_bound b;
    gch_error err;
    gch_error_clear(&err);
    if (gch_parse_bound(s, strlen(s), flags, &b, &err) != GCH_OK)
        fail_msg("'%s': %s", s, err.message);
    return b;
}

static void bound_bad(const char *s, unsigned flags, const char *needle)
{
    gch_bound b;
    gch_error err;
    gch_error_clear(&err);
    assert_int_equal(gch_parse_bound(s, strlen(s), flags, &b, &err), GCH_EINVAL);
    if (!strstr(err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", s, err.message, needle);
}

static void test_bounds(void **state)
{
    (void)state;
    gch_bound b = bound_ok("10", 0);
    assert_int_equal(b.kind, GCH_BOUND_MAX);
    assert_int_equal(b.threshold, 10);
    assert_string_equal(b.text, "10");
    b = bound_ok("+10", GCH_BOUND_GROWTH_OK);
    assert_int_equal(b.kind, GCH_BOUND_GROWTH);
    assert_int_equal(b.threshold, 10);
    assert_string_equal(b.text, "10");
    b = bound_ok("+1MiB", GCH_BOUND_GROWTH_OK | GCH_BOUND_BYTES);
    assert_int_equal(b.kind, GCH_BOUND_GROWTH);
    assert_int_equal(b.threshold, 1048576);
    assert_string_equal(b.text, "1MiB");
    b = bound_ok("+5%", GCH_BOUND_GROWTH_OK);
    assert_int_equal(b.kind, GCH_BOUND_GROWTH_PERCENT);
    assert_true(b.threshold == 5000000000ull);
    b = bound_ok("2MiB", GCH_BOUND_GROWTH_ONLY | GCH_BOUND_BYTES);
    assert_int_equal(b.kind, GCH_BOUND_GROWTH);
    b = bound_ok("5%", GCH_BOUND_GROWTH_ONLY | GCH_BOUND_BYTES);
    assert_int_equal(b.kind, GCH_BOUND_GROWTH_PERCENT);
    b = bound_ok("+0.5%", GCH_BOUND_GROWTH_ONLY);
    assert_int_equal(b.kind, GCH_BOUND_GROWTH_PERCENT);
    assert_true(b.threshold == 500000000ull);
    bound_bad("+10", 0, "needs two dumps");
    bound_bad("+5%", GCH_BOUND_BYTES, "needs two dumps");
    bound_bad("5%", GCH_BOUND_GROWTH_OK, "write '+5%'");
    bound_bad("1MiB", 0, "bad count '1MiB'");
    bound_bad("", 0, "empty count");
    bound_bad("+", GCH_BOUND_GROWTH_OK | GCH_BOUND_BYTES, "bad size ''");
    bound_bad("++1", GCH_BOUND_GROWTH_OK, "bad count '+1'");
}

static void test_exceeded_max(void **state)
{
    (void)state;
    gch_bound b = { GCH_BOUND_MAX, 100, "100" };
    assert_false(gch_bound_exceeded(&b, 0, 99));
    assert_false(gch_bound_exceeded(&b, 0, 100)); /* at the threshold passes */
    assert_true(gch_bound_exceeded(&b, 0, 101));  /* +1 fails */
    assert_false(gch_bound_exceeded(&b, 1000, 100)); /* base ignored */
    b.threshold = UINT64_MAX;
    assert_false(gch_bound_exceeded(&b, 0, UINT64_MAX));
    b.threshold = UINT64_MAX - 1;
    assert_true(gch_bound_exceeded(&b, 0, UINT64_MAX));
    b.threshold = 0;
    assert_false(gch_bound_exceeded(&b, 0, 0));
    assert_true(gch_bound_exceeded(&b, 0, 1));
    gch_bound none = { GCH_BOUND_NONE, 0, "" };
    assert_false(gch_bound_exceeded(&none, 0, UINT64_MAX));
}

static void test_exceeded_growth(void **state)
{
    (void)state;
    gch_bound b = { GCH_BOUND_GROWTH, 2097152, "2MiB" };
    assert_false(gch_bound_exceeded(&b, 1000, 1000 + 2097151));
    assert_false(gch_bound_exceeded(&b, 1000, 1000 + 2097152));
    assert_true(gch_bound_exceeded(&b, 1000, 1000 + 2097153));
    assert_false(gch_bound_exceeded(&b, 5000000, 0));          /* shrinking */
    assert_false(gch_bound_exceeded(&b, UINT64_MAX, 0));
    b.threshold = UINT64_MAX - 1;
    assert_true(gch_bound_exceeded(&b, 0, UINT64_MAX));
    assert_false(gch_bound_exceeded(&b, 1, UINT64_MAX));
    b.threshold = 0; /* any growth fails */
    assert_false(gch_bound_exceeded(&b, 7, 7));
    assert_true(gch_bound_exceeded(&b, 7, 8));
}

static gch_bound pct(const char *s)
{
    return bound_ok(s, GCH_BOUND_GROWTH_ONLY);
}

static void test_exceeded_percent(void **state)
{
    (void)state;
    gch_bound b = pct("5%");
    /* base 1000: threshold 1050 exactly */
    assert_false(gch_bound_exceeded(&b, 1000, 1049));
    assert_false(gch_bound_exceeded(&b, 1000, 1050));
    assert_true(gch_bound_exceeded(&b, 1000, 1051));
    /* base 20: 5% = 1 object */
    assert_false(gch_bound_exceeded(&b, 20, 21));
    assert_true(gch_bound_exceeded(&b, 20, 22));
    /* base 3: 5% = 0.15; any growth exceeds */
    assert_true(gch_bound_exceeded(&b, 3, 4));
    /* fractional percents: 0.5% of 1000 = 5 */
    b = pct("0.5%");
    assert_false(gch_bound_exceeded(&b, 1000, 1005));
    assert_true(gch_bound_exceeded(&b, 1000, 1006));
    /* 33.333333333% of 3 = 0.999999999 -> 1 more exceeds, 0 does not */
    b = pct("33.333333333%");
    assert_true(gch_bound_exceeded(&b, 3, 4));
    b = pct("33.333333334%");
    assert_false(gch_bound_exceeded(&b, 3, 4));
    /* 100% = doubling passes, doubling + 1 fails */
    b = pct("100%");
    assert_false(gch_bound_exceeded(&b, 16, 32));
    assert_true(gch_bound_exceeded(&b, 16, 33));
    /* growth from 0 is infinite */
    b = pct("1000000000%");
    assert_false(gch_bound_exceeded(&b, 0, 0));
    assert_true(gch_bound_exceeded(&b, 0, 1));
    /* 0%: any growth */
    b = pct("0%");
    assert_false(gch_bound_exceeded(&b, 5, 5));
    assert_true(gch_bound_exceeded(&b, 5, 6));
    assert_false(gch_bound_exceeded(&b, 6, 5));
    /* no overflow near 2^64: base 2^63, 100% growth would be 2^64 (not representable) */
    b = pct("100%");
    assert_false(gch_bound_exceeded(&b, 1ull << 63, UINT64_MAX));
    b = pct("99.999999999%");
    assert_true(gch_bound_exceeded(&b, 1ull << 63, UINT64_MAX));
    /* big base, tiny percent: 0.000000001% of 10^17 = 10^6 exactly */
    b = pct("0.000000001%");
    assert_false(gch_bound_exceeded(&b, 100000000000000000ull, 100000000001000000ull));
    assert_true(gch_bound_exceeded(&b, 100000000000000000ull, 100000000001000001ull));
    /* 110.4651% of 688: 760.0000 -> 1448 grew 110.46511..%, exceeds; 110.4652% does not */
    b = pct("110.4651%");
    assert_true(gch_bound_exceeded(&b, 688, 1448));
    b = pct("110.4652%");
    assert_false(gch_bound_exceeded(&b, 688, 1448));
}

static void test_growth_percent_display(void **state)
{
    (void)state;
    assert_true(gch_growth_percent(100, 107) > 6.99 && gch_growth_percent(100, 107) < 7.01);
    assert_true(gch_growth_percent(100, 90) == 0.0);
    assert_true(gch_growth_percent(0, 5) < 0.0);
}

static void test_glob(void **state)
{
    (void)state;
    assert_true(gch_glob_match("MyApp.Session", "MyApp.Session"));
    assert_false(gch_glob_match("MyApp.Session", "MyApp.Sessions"));
    assert_false(gch_glob_match("MyApp.Session", "MyApp.Sessio"));
    assert_false(gch_glob_match("myapp.session", "MyApp.Session")); /* case-sensitive */
    assert_true(gch_glob_match("MyApp.*", "MyApp.Session"));
    assert_true(gch_glob_match("MyApp.*", "MyApp.Cache.Entry"));       /* '*' crosses dots */
    assert_true(gch_glob_match("MyApp.*", "MyApp."));
    assert_false(gch_glob_match("MyApp.*", "MyApp"));
    assert_false(gch_glob_match("MyApp.*", "Other.MyApp.X"));
    assert_true(gch_glob_match("*", ""));
    assert_true(gch_glob_match("*", "anything at all"));
    assert_true(gch_glob_match("", ""));
    assert_false(gch_glob_match("", "x"));
    assert_true(gch_glob_match("*.Entry", "MyApp.Cache.Entry"));
    assert_true(gch_glob_match("*Cache*", "MyApp.Cache.Entry"));
    assert_true(gch_glob_match("M*C*E*y", "MyApp.Cache.Entry"));
    assert_false(gch_glob_match("M*C*E*z", "MyApp.Cache.Entry"));
    assert_true(gch_glob_match("a*b*c", "aXbYbZc"));
    assert_true(gch_glob_match("**a**", "xxaxx"));
    assert_true(gch_glob_match("?", "x"));
    assert_false(gch_glob_match("?", ""));
    assert_false(gch_glob_match("?", "xy"));
    assert_true(gch_glob_match("MyApp.Sess?on", "MyApp.Session"));
    assert_true(gch_glob_match("caf?", "caf\xc3\xa9"));                 /* one UTF-8 character */
    assert_true(gch_glob_match("System.Int32[]", "System.Int32[]"));  /* brackets literal */
    assert_false(gch_glob_match("System.Int32[]", "System.Int32"));
    assert_true(gch_glob_match("Dictionary<String, *>", "Dictionary<String, Int32>"));
    assert_true(gch_glob_match("Foo\\*", "Foo*"));
    assert_false(gch_glob_match("Foo\\*", "FooBar"));
    assert_true(gch_glob_match("Foo\\?", "Foo?"));
    assert_false(gch_glob_match("Foo\\?", "Foox"));
    assert_true(gch_glob_match("a\\\\b", "a\\b"));
    assert_true(gch_glob_match("a\\", "a\\"));                          /* trailing backslash */
    assert_true(gch_glob_match("*\\*", "x*"));
    /* pathological backtracking stays fast */
    assert_false(gch_glob_match("a*a*a*a*a*a*a*a*a*a*b",
                                "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
    assert_true(gch_glob_is_literal("MyApp.Session"));
    assert_true(gch_glob_is_literal("System.Int32[]"));
    assert_true(gch_glob_is_literal("Foo\\*"));
    assert_false(gch_glob_is_literal("MyApp.*"));
    assert_false(gch_glob_is_literal("a?"));
}

static gch_type_limit tl_ok(const char *spec, int growth)
{
    gch_type_limit l;
    gch_error err;
    gch_error_clear(&err);
    if (gch_parse_type_limit(spec, growth, &l, &err) != GCH_OK)
        fail_msg("'%s': %s", spec, err.message);
    return l;
}

static void tl_bad(const char *spec, int growth, const char *needle)
{
    gch_type_limit l;
    gch_error err;
    gch_error_clear(&err);
    assert_int_equal(gch_parse_type_limit(spec, growth, &l, &err), GCH_EINVAL);
    assert_null(l.pattern);
    if (!strstr(err.message, needle))
        fail_msg("'%s': message '%s' lacks '%s'", spec, err.message, needle);
}

static void test_type_limits(void **state)
{
    (void)state;
    gch_type_limit l = tl_ok("MyApp.Session=10", 0);
    assert_string_equal(l.pattern, "MyApp.Session");
    assert_int_equal(l.count.kind, GCH_BOUND_MAX);
    assert_int_equal(l.count.threshold, 10);
    assert_int_equal(l.bytes.kind, GCH_BOUND_NONE);
    gch_type_limit_free(&l);

    l = tl_ok("MyApp.*=10:64MiB", 0);
    assert_string_equal(l.pattern, "MyApp.*");
    assert_int_equal(l.count.threshold, 10);
    assert_int_equal(l.bytes.kind, GCH_BOUND_MAX);
    assert_int_equal(l.bytes.threshold, 67108864);
    gch_type_limit_free(&l);

    l = tl_ok("X=:1.5KiB", 0);
    assert_int_equal(l.count.kind, GCH_BOUND_NONE);
    assert_int_equal(l.bytes.threshold, 1536);
    gch_type_limit_free(&l);

    l = tl_ok("MyApp.Cache.*=+100", 1);
    assert_int_equal(l.count.kind, GCH_BOUND_GROWTH);
    assert_int_equal(l.count.threshold, 100);
    gch_type_limit_free(&l);

    l = tl_ok("MyApp.*=+100:+1MiB", 1);
    assert_int_equal(l.count.kind, GCH_BOUND_GROWTH);
    assert_int_equal(l.bytes.kind, GCH_BOUND_GROWTH);
    assert_int_equal(l.bytes.threshold, 1048576);
    gch_type_limit_free(&l);

    l = tl_ok("A=+10%:2KB", 1);
    assert_int_equal(l.count.kind, GCH_BOUND_GROWTH_PERCENT);
    assert_int_equal(l.bytes.kind, GCH_BOUND_MAX);
    assert_int_equal(l.bytes.threshold, 2000);
    gch_type_limit_free(&l);

    /* names with spaces, commas, '=' and ':' (split at the last '=') */
    l = tl_ok("Dictionary<String, Int32>=1", 0);
    assert_string_equal(l.pattern, "Dictionary<String, Int32>");
    gch_type_limit_free(&l);
    l = tl_ok("Weird=Name:X=2:3", 0);
    assert_string_equal(l.pattern, "Weird=Name:X");
    assert_int_equal(l.count.threshold, 2);
    assert_int_equal(l.bytes.threshold, 3);
    gch_type_limit_free(&l);
    gch_type_limit_free(NULL);

    tl_bad("MyApp.Session", 0, "has no '='");
    tl_bad("=10", 0, "no type name");
    tl_bad("X=", 0, "nothing after '='");
    tl_bad("X=10:", 0, "no size after ':'");
    tl_bad("X=:", 0, "no size after ':'");
    tl_bad("X=abc", 0, "bad count 'abc'");
    tl_bad("X=abc", 0, "type limit 'X=abc': bad count 'abc'");
    tl_bad("X=10:12XB", 0, "unknown unit 'XB'");
    tl_bad("X=10:1:2", 0, "bad size '1:2'");
    tl_bad("X=+10", 0, "needs two dumps");
    tl_bad("X=:+1MiB", 0, "needs two dumps");
    tl_bad("X=10%", 1, "write '+10%'");
    tl_bad("X=1.5", 0, "whole number");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_size_units),
        cmocka_unit_test(test_size_fractions),
        cmocka_unit_test(test_size_limits_and_errors),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_percent),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_exceeded_max),
        cmocka_unit_test(test_exceeded_growth),
        cmocka_unit_test(test_exceeded_percent),
        cmocka_unit_test(test_growth_percent_display),
        cmocka_unit_test(test_glob),
        cmocka_unit_test(test_type_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
