/* The Ruby reader's line parser: its fast path (rb_parse_line_fast, lines
 * in dump_all's own layout) against the general parser
 * (rb_parse_line_general), which is the oracle: on every line either the
 * fast path declines, or both fill the same record and references. The
 * lines: real ones cut from a dump written by Ruby 3.1's
 * ObjectSpace.dump_all (bench/ruby/fill.rb), hand-written variants of each
 * kind of member, and every line derived from those by one edit (a byte
 * replaced by each of a set of JSON-significant bytes, a byte inserted,
 * the line cut short), which walks the fast path's every refusal. The
 * fast path must take the real lines (else the test would pass with a
 * fast path that never runs). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gcheap/alloc.h"
#include "ruby_line.h"

/* Cut from a Ruby 3.1 dump_all (the one bench/ruby_bench.sh writes). */
static const char *const real[] = {
    "{\"address\":\"0x7f95d60a9740\", \"type\":\"STRING\", \"class\":\"0x7f95db8ea440\", \"embedded\":true, "
    "\"bytesize\":13, \"value\":\"record-298639\", \"encoding\":\"UTF-8\", \"file\":\"bench/ruby/fill.rb\", "
    "\"line\":9, \"method\":\"initialize\", \"generation\":26, \"memsize\":40, \"flags\":{\"wb_protected\":true, "
    "\"old\":true, \"uncollectible\":true, \"marked\":true}}",
    "{\"address\":\"0x7f95d60a9768\", \"type\":\"OBJECT\", \"class\":\"0x7f95d840ac98\", \"ivars\":4, "
    "\"references\":[\"0x7f95d60a9718\", \"0x7f95d60a96f0\", \"0x7f95d60a96c8\", \"0x7f95d60a9830\"], "
    "\"file\":\"bench/ruby/fill.rb\", \"line\":17, \"method\":\"new\", \"generation\":25, \"memsize\":72, "
    "\"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true, \"marked\":true}}",
    "{\"address\":\"0x7f95d60a9790\", \"type\":\"HASH\", \"class\":\"0x7f95db8fa778\", \"size\":1, "
    "\"file\":\"bench/ruby/fill.rb\", \"line\":11, \"method\":\"initialize\", \"generation\":25, "
    "\"memsize\":168, \"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true, \"marked\":true}}",
    "{\"address\":\"0x7f95dc1e0068\", \"type\":\"IMEMO\", \"class\":\"0x8\", \"imemo_type\":\"cref\", "
    "\"references\":[\"0x7f95dc1e0130\", \"0x7f95dc1e2598\"], \"memsize\":40, \"flags\":{\"wb_protected\":true, "
    "\"old\":true, \"uncollectible\":true, \"marked\":true}}",
    "{\"address\":\"0x7f95dc1e00e0\", \"type\":\"CLASS\", \"class\":\"0x7f95d8427ed8\", \"superclass\":"
    "\"0x7f95dc1e0428\", \"real_class_name\":\"Class\", \"singleton\":true, \"references\":[\"0x7f95dc1e0428\", "
    "\"0x7f95d8427e10\"], \"memsize\":752, \"flags\":{\"wb_protected\":true, \"old\":true, "
    "\"uncollectible\":true, \"marked\":true}}",
    "{\"address\":\"0x7f95dc1e0130\", \"type\":\"CLASS\", \"class\":\"0x7f95dc1e00e0\", \"superclass\":"
    "\"0x7f95dc1e0450\", \"name\":\"Gem::UnknownCommandError\", \"references\":[\"0x7f95dc1e0450\"], "
    "\"memsize\":544, \"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true, \"marked\":true}}",
    "{\"address\":\"0x7f95dc1e0180\", \"type\":\"DATA\", \"class\":\"0x7f95db90bd70\", \"struct\":\"proc\", "
    "\"references\":[\"0x7f95dc1cca68\"], \"memsize\":80, \"flags\":{\"wb_protected\":true, \"old\":true, "
    "\"uncollectible\":true, \"marked\":true}}",
    "{\"address\":\"0x7f95dc1e01a8\", \"type\":\"ARRAY\", \"class\":\"0x7f95db8fbfb0\", \"length\":0, "
    "\"memsize\":40, \"flags\":{\"wb_protected\":true, \"old\":true, \"uncollectible\":true, \"marked\":true}}",
};

/* Hand-written: every member the reader takes, escapes, other values. */
static const char *const crafted[] = {
    "{\"address\":\"0x10\", \"type\":\"STRING\", \"class\":\"0x20\", \"value\":\"a\\\"b\\\\c\\n\\u00e9\", "
    "\"file\":\"x\\/y.rb\", \"line\":0, \"memsize\":18446744073709551615}",
    "{\"address\":\"0xffffffffffffffff\", \"type\":\"FLOAT\", \"value\":1.5e-3, \"memsize\":40}",
    "{\"address\":\"0x1\", \"type\":\"ROOT\", \"root\":\"vm\", \"references\":[]}",
    "{\"address\":\"0x1\", \"type\":\"DATA\", \"struct\":\"\", \"x\":null, \"y\":-7, \"z\":false, \"flags\":{}}",
    "{\"address\":\"0x2\", \"type\":\"NODE\", \"type\":\"IMEMO\", \"address\":\"0x3\", \"memsize\":1, "
    "\"memsize\":2, \"line\":12345678901234567890}",
    "{\"address\":\"0xABCDEF\", \"type\":\"OBJECT\"}",
    "{\"address\":\"0x0\", \"type\":\"MODULE\", \"name\":\"M\", \"superclass\":\"0x5\", \"flags\":{\"a\":1, "
    "\"b\":true}}",
    "{\"address\":\"0x4\", \"type\":\"OBJECT\", \"references\":[\"0x1\", \"0x2\"], \"nested\":[1, {\"a\":[]}]}",
    "{\"type\":\"ROOT\", \"root\":\"global_list\", \"references\":[\"0x7f95db913cc8\", \"0x7f95db8e7fd8\"]}",
    "{\"address\":\"0x5\", \"type\":\"\\u0053TRING\", \"imemo_type\":\"env\", \"flags\":{\"old\":true, "
    "\"age\":3}}",
};

static void same_str(rb_str a, rb_str b)
{
    assert_int_equal(a.n, b.n);
    assert_int_equal(a.escaped, b.escaped);
    if (a.n)
        assert_ptr_equal(a.p, b.p);
}

/* The fast path on [p, end) either declines or agrees with the general
 * parser; returns whether it took the line. */
static int check_line(const char *p, const char *end)
{
    rb_record fast, gen;
    rb_refs rf = { NULL, 0, 0 }, rg = { NULL, 0, 0 };
    size_t col = 0;
    int took = rb_parse_line_fast(p, end, &fast, &rf);
    const char *msg = rb_parse_line_general(p, end, &gen, &rg, &col);
    if (took) {
        assert_null(msg); /* the fast path takes only good lines */
        assert_int_equal(fast.kind, gen.kind);
        same_str(fast.type, gen.type);
        assert_true(fast.address == gen.address && fast.klass == gen.klass);
        assert_true(fast.superclass == gen.superclass && fast.memsize == gen.memsize);
        assert_true(fast.line == gen.line);
        assert_int_equal(fast.has_address, gen.has_address);
        assert_int_equal(fast.has_type, gen.has_type);
        assert_int_equal(fast.has_line, gen.has_line);
        assert_int_equal(fast.has_value, gen.has_value);
        assert_int_equal(fast.has_file, gen.has_file);
        assert_int_equal(fast.has_name, gen.has_name);
        same_str(fast.name, gen.name);
        same_str(fast.root, gen.root);
        same_str(fast.imemo_type, gen.imemo_type);
        same_str(fast.strct, gen.strct);
        same_str(fast.value, gen.value);
        same_str(fast.file, gen.file);
        assert_int_equal(fast.nrefs, gen.nrefs);
        if (gen.nrefs)
            assert_memory_equal(rf.v, rg.v, gen.nrefs * sizeof *rg.v);
    }
    /* rb_parse_line is the one or the other: its answer is the general one */
    rb_record any;
    rb_refs ra = { NULL, 0, 0 };
    size_t col2 = 0;
    const char *msg2 = rb_parse_line(p, end, &any, &ra, &col2);
    assert_ptr_equal(msg, msg2);
    if (msg)
        assert_int_equal(col, col2);
    else
        assert_true(any.address == gen.address && any.nrefs == gen.nrefs && any.kind == gen.kind);
    gch_free(rf.v);
    gch_free(rg.v);
    gch_free(ra.v);
    return took;
}

/* The line and every one-edit variant of it; returns how many variants
 * the fast path took. */
static size_t check_variants(const char *line)
{
    static const char subst[] = "\"\\ ,:{}[]0x9aAfg-.eE\t\x01tn";
    size_t n = strlen(line), taken = 0;
    char *buf = malloc(n + 2);
    assert_non_null(buf);
    for (size_t i = 0; i <= n; i++) {
        memcpy(buf, line, n);
        taken += (size_t)check_line(buf, buf + i); /* cut at i */
        for (const char *c = subst; *c; c++) {
            if (i < n) { /* byte i replaced */
                memcpy(buf, line, n);
                buf[i] = *c;
                taken += (size_t)check_line(buf, buf + n);
            }
            memcpy(buf, line, i); /* *c inserted before byte i */
            buf[i] = *c;
            memcpy(buf + i + 1, line + i, n - i);
            taken += (size_t)check_line(buf, buf + n + 1);
        }
    }
    free(buf);
    return taken;
}

static void test_real_lines_take_the_fast_path(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof real / sizeof *real; i++) {
        size_t n = strlen(real[i]);
        char *copy = malloc(n); /* exact length: a read past the end is ASan's */
        assert_non_null(copy);
        memcpy(copy, real[i], n);
        assert_int_equal(check_line(copy, copy + n), 1);
        free(copy);
    }
}

static void test_fast_path_agrees_with_general(void **state)
{
    (void)state;
    size_t taken = 0;
    for (size_t i = 0; i < sizeof real / sizeof *real; i++)
        taken += check_variants(real[i]);
    for (size_t i = 0; i < sizeof crafted / sizeof *crafted; i++)
        taken += check_variants(crafted[i]);
    /* many variants (a changed digit, name or string byte) are still good
     * dump_all lines: the fast path must have taken some */
    assert_true(taken > 1000);
}

/* Lines the fast path must decline (each is good JSON the general parser
 * takes, or an error it must word): laid out otherwise than dump_all. */
static void test_fast_path_declines(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "{ \"address\":\"0x1\", \"type\":\"OBJECT\"}",
        "{\"address\": \"0x1\", \"type\":\"OBJECT\"}",
        "{\"address\":\"0x1\",\"type\":\"OBJECT\"}",
        "{\"address\":\"0x1\", \"type\":\"OBJECT\"} ",
        "{\"address\":\"0x1\", \"t\\u0079pe\":\"OBJECT\"}",
        "{\"address\":\"0x1\", \"x\":[1]}",
        "{\"address\":\"0x1\", \"memsize\":01}",
        "{\"address\":\"0x1\", \"memsize\":1.0}",
        "{\"address\":\"0x1\", \"line\":12345678901234567890}",
        "{\"address\":\"0x00000000000000001\"}",
        "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[]}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        rb_record r;
        rb_refs refs = { NULL, 0, 0 };
        size_t n = strlen(lines[i]);
        assert_int_equal(rb_parse_line_fast(lines[i], lines[i] + n, &r, &refs), 0);
        gch_free(refs.v);
        check_line(lines[i], lines[i] + n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_lines_take_the_fast_path),
        cmocka_unit_test(test_fast_path_agrees_with_general),
        cmocka_unit_test(test_fast_path_declines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
