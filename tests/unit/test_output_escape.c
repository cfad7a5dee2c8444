/* Escaping of names in tsv, csv, json and table output.
 *
 * The output layer belongs to the program (src/cli/output.c, text.c, json.c),
 * not the library, so it is compiled into this test directly. Names with newlines
 * cannot come from a .gclog (a newline ends the record) but can from binary
 * formats, so they are tested here rather than through a dump. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/cli/json.c"
#include "../../src/cli/output.c"
#include "../../src/cli/text.c"
#include "../../src/cli/xalloc.c"
#include "../../src/cli/run_ctx.c"

typedef void (*writer)(FILE *, const char *);

static void expect(writer w, const char *in, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    w(f, in);
    fclose(f);
    assert_string_equal(buf, want);
    free(buf);
}

static void json_strings(void **state)
{
    (void)state;
    expect(write_json_string, "plain", "\"plain\"");
    expect(write_json_string, "q\"b\\s/", "\"q\\\"b\\\\s/\"");
    expect(write_json_string, "n\nr\rt\tb\bf\f", "\"n\\nr\\rt\\tb\\bf\\f\"");
    expect(write_json_string, "\001\033[0m\037\177", "\"\\u0001\\u001b[0m\\u001f\\u007f\"");
    /* Valid UTF-8 passes; each invalid byte becomes U+FFFD. */
    expect(write_json_string, "Caf\303\251 \360\237\230\200", "\"Caf\303\251 \360\237\230\200\"");
    expect(write_json_string, "\377\376", "\"\\ufffd\\ufffd\"");
    expect(write_json_string, "cut\303", "\"cut\\ufffd\"");
    expect(write_json_string, "over\300\257long", "\"over\\ufffd\\ufffdlong\"");
    expect(write_json_string, "sur\355\240\200", "\"sur\\ufffd\\ufffd\\ufffd\"");
    expect(write_json_string, "big\364\220\200\200", "\"big\\ufffd\\ufffd\\ufffd\\ufffd\"");
    expect(write_json_string, "", "\"\"");
}

static void tsv_fields(void **state)
{
    (void)state;
    expect(write_tsv_field, "a\tb", "a\\tb");
    expect(write_tsv_field, "a\nb\rc", "a\\nb\\rc");
    expect(write_tsv_field, "back\\slash", "back\\\\slash");
    expect(write_tsv_field, "\001\033\177", "\\x01\\x1b\\x7f");
    expect(write_tsv_field, "q\"c,s;", "q\"c,s;");
    expect(write_tsv_field, "\377raw", "\377raw"); /* bytes >= 0x80 are data */
}

static void csv_fields(void **state)
{
    (void)state;
    expect(write_csv_field, "plain", "plain");
    expect(write_csv_field, "a,b", "\"a,b\"");
    expect(write_csv_field, "say \"hi\"", "\"say \"\"hi\"\"\"");
    expect(write_csv_field, "two\nlines", "\"two\nlines\"");
    expect(write_csv_field, "cr\r", "\"cr\r\"");
    expect(write_csv_field, " lead", "\" lead\"");
    expect(write_csv_field, "trail ", "\"trail \"");
    /* A backslash is doubled, so that "\x01" written by a name and the \x01
     * written for byte 0x01 read back apart (issue 36, finding 10). */
    expect(write_csv_field, "tab\tback\\", "tab\tback\\\\");
    expect(write_csv_field, "Ctl\001", "Ctl\\x01");
    expect(write_csv_field, "Ctl\\x01", "Ctl\\\\x01");
    expect(write_csv_field, "C:\\dir,x", "\"C:\\\\dir,x\"");
    expect(write_csv_field, "", "");
    /* issue 20 finding 8: formulas, C0/C1 controls, bidi overrides */
    expect(write_csv_field, "=1+2", "\"'=1+2\"");
    expect(write_csv_field, "@SUM(A1)", "\"'@SUM(A1)\"");
    expect(write_csv_field, "+x", "\"'+x\"");
    expect(write_csv_field, "-x", "\"'-x\"");
    expect(write_csv_field, "-12", "-12");
    expect(write_csv_field, "-", "-");
    expect(write_csv_field, "esc\033[31m", "esc\\x1b[31m");
    expect(write_csv_field, "csi\xc2\x9b" "31m", "csi\\xc2\\x9b" "31m");
    expect(write_csv_field, "raw\x9b", "raw\\x9b");
    expect(write_csv_field, "rlo\xe2\x80\xae", "rlo\\xe2\\x80\\xae");
    expect(write_csv_field, "caf\xc3\xa9", "caf\xc3\xa9");
}

static void table_text_escapes(void **state)
{
    (void)state;
    /* C1 controls (the one-byte CSI U+009B), stray 0x80-0x9F, bidi controls */
    expect(write_table_text, "a\xc2\x9b" "31mb", "a\\xc2\\x9b" "31mb");
    expect(write_table_text, "a\x9b" "b", "a\\x9b" "b");
    expect(write_table_text, "a\xe2\x80\xae" "b\xe2\x81\xa6", "a\\xe2\\x80\\xae" "b\\xe2\\x81\\xa6");
    expect(write_table_text, "caf\xc3\xa9 \xe2\x82\xac", "caf\xc3\xa9 \xe2\x82\xac");
    expect(write_tsv_field, "a\xc2\x85" "b", "a\\xc2\\x85" "b");
    expect(write_json_string, "a\xc2\x9b" "b\xe2\x80\xae", "\"a\\u009bb\\u202e\"");
    expect(write_table_text, "a\tb\nc\033[2J\177", "a\\x09" "b\\x0a" "c\\x1b[2J\\x7f");
    expect(write_table_text, "Caf\303\251", "Caf\303\251");
}

/* A whole report: every format keeps one record per row whatever the name. */
static char *run_report(out_format fmt, const char *name)
{
    cli_common c;
    memset(&c, 0, sizeof c);
    c.format = fmt;
    c.top = UINT64_MAX;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    static const col_spec cols[] = { { "count", COL_COUNT }, { "type", COL_TEXT } };
    cli_out *o = out_new(&c, "stat", f);
    report *r = report_new(o, REPORT_COLUMNS(cols), 0);
    report_begin_section(r, "dom\"ain");
    report_cell_u64(r, 1);
    report_cell_text(r, name);
    report_begin_total(r);
    report_cell_u64(r, 1);
    report_cell_text(r, "total \"1\"\n");
    report_end_section(r);
    assert_int_equal(out_finish(o), 0);
    fclose(f);
    return buf;
}

static void whole_reports(void **state)
{
    (void)state;
    const char *name = "A\tB\n\"C\",D\\E\001";
    char *s = run_report(FMT_TSV, name);
    /* tsv/csv rows end with the section's domain on every dump (docs/schemas.md) */
    assert_string_equal(s, "count\ttype\tdomain\n1\tA\\tB\\n\"C\",D\\\\E\\x01\tdom\"ain\n");
    free(s);
    s = run_report(FMT_CSV, name);
    assert_string_equal(s, "count,type,domain\n1,\"A\tB\n\"\"C\"\",D\\\\E\\x01\",\"dom\"\"ain\"\n");
    free(s);
    s = run_report(FMT_JSON, name);
    assert_string_equal(s, "{\"command\":\"stat\",\"sections\":[{\"domain\":\"dom\\\"ain\",\"rows\":"
                           "[{\"count\":1,\"type\":\"A\\tB\\n\\\"C\\\",D\\\\E\\u0001\"}],"
                           "\"total\":{\"count\":1,\"type\":\"total \\\"1\\\"\\n\"}}]}\n");
    free(s);
    s = run_report(FMT_TABLE, name);
    assert_string_equal(s, "count  type\n"
                           "    1  A\\x09" "B\\x0a\"C\",D\\E\\x01\n"
                           "    1  total \"1\"\\x0a\n");
    free(s);
}

static void other_forms(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(message_text("a\nb\033c;", buf, sizeof buf), "a?b?c;");
    strbuf b = STRBUF_INIT;
    sb_escape(&b, ESC_FOLDED, "Ns.A;B\tC");
    assert_string_equal(sb_str(&b), "Ns.A:B?C");
    sb_free(&b);
}

/* The one json writer places every comma and escapes keys and strings. */
static void json_writer_commas(void **state)
{
    (void)state;
    strbuf b = STRBUF_INIT;
    json_writer w;
    json_init(&w, &b);
    json_begin_object(&w, NULL);
    json_string(&w, "s", "q\"");
    json_begin_array(&w, "a");
    json_u64(&w, NULL, 18446744073709551615u);
    json_signed(&w, NULL, 1, 5);
    json_signed(&w, NULL, 1, 0);
    json_begin_object(&w, NULL);
    json_end_object(&w);
    json_end_array(&w);
    json_bool(&w, "t", 1);
    json_null(&w, "n");
    json_raw(&w, "r", "0.25");
    json_end_object(&w);
    assert_string_equal(sb_str(&b), "{\"s\":\"q\\\"\",\"a\":[18446744073709551615,-5,0,{}],"
                                    "\"t\":true,\"n\":null,\"r\":0.25}");
    sb_free(&b);
}

static void capture(cli_out **o, out_format fmt, cli_common *c, FILE **f, char **buf, size_t *len)
{
    memset(c, 0, sizeof *c);
    c->format = fmt;
    c->top = UINT64_MAX;
    *f = open_memstream(buf, len);
    assert_non_null(*f);
    *o = out_new(c, "x", *f);

}

static char *finish(cli_out *o, FILE *f, char **buf)
{
    assert_int_equal(out_finish(o), 0);
    fclose(f);
    return *buf;
}

/* More columns than any fixed limit, all kept, in every form. */
static void many_columns(void **state)
{
    (void)state;
    enum { N = 40 };
    col_spec cols[N];
    static char names[N][8];
    for (int i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "c%d", i);
        cols[i] = (col_spec){ names[i], i + 1 < N ? COL_COUNT : COL_TEXT };
    }
    out_format forms[] = { FMT_TSV, FMT_JSON, FMT_TABLE };
    for (size_t k = 0; k < sizeof forms / sizeof *forms; k++) {
        cli_common c;
        cli_out *o;
        FILE *f;
        char *buf = NULL;
        size_t len = 0;
        capture(&o, forms[k], &c, &f, &buf, &len);
        report *r = report_new(o, cols, N, 0);
        report_begin_section(r, "d");
        for (int i = 0; i + 1 < N; i++)
            report_cell_u64(r, (uint64_t)i);
        report_cell_text(r, "last");
        report_end_section(r);
        char *s = finish(o, f, &buf);
        assert_non_null(strstr(s, "c39"));
        assert_non_null(strstr(s, forms[k] == FMT_JSON ? "\"c38\":38,\"c39\":\"last\"" : "38"));
        assert_non_null(strstr(s, "last"));
        free(s);
    }
}

/* The envelope: fields, the command's members, then the sections; a record
 * section (info) as key/value rows or one object. */
static void envelope_and_records(void **state)
{
    (void)state;
    static const col_spec kv[] = { { "key", COL_TEXT }, { "value", COL_TEXT } };
    cli_common c;
    cli_out *o;
    FILE *f;
    char *buf = NULL;
    size_t len = 0;
    capture(&o, FMT_JSON, &c, &f, &buf, &len);
    out_envelope(o, "file", "a\tb");
    json_bool(out_json(o), "pass", 0);
    report *r = report_new(o, REPORT_COLUMNS(kv), 1);
    for (int i = 0; i < 2; i++) {
        report_begin_record(r, "s");
        report_field_text(r, "domain", i ? "two" : "one");
        report_field_group(r, "meta");
        report_field_text(r, "k", "v");
        report_field_group_end(r);
        report_field_u64(r, "bytes", 2048, COL_BYTES);
        report_end_section(r);
    }
    assert_string_equal(finish(o, f, &buf),
                        "{\"command\":\"x\",\"file\":\"a\\tb\",\"pass\":false,\"sections\":["
                        "{\"domain\":\"one\",\"meta\":{\"k\":\"v\"},\"bytes\":2048},"
                        "{\"domain\":\"two\",\"meta\":{\"k\":\"v\"},\"bytes\":2048}]}\n");
    free(buf);
    buf = NULL;
    capture(&o, FMT_TABLE, &c, &f, &buf, &len);
    c.human = 1;
    r = report_new(o, REPORT_COLUMNS(kv), 0);
    report_begin_record(r, "s");
    report_field_u64(r, "bytes", 2048, COL_BYTES);
    report_field_u64(r, "objects", 2048, COL_COUNT);
    report_end_section(r);
    assert_string_equal(finish(o, f, &buf), "key      value\n"
                                            "bytes    2.0 KiB\n"
                                            "objects  2048\n");
    free(buf);
}

/* Nothing started: nothing printed (a command that fails before output). */
static void nothing_started(void **state)
{
    (void)state;
    cli_common c;
    cli_out *o;
    FILE *f;
    char *buf = NULL;
    size_t len = 0;
    capture(&o, FMT_JSON, &c, &f, &buf, &len);
    out_envelope(o, "file", "x");
    assert_string_equal(finish(o, f, &buf), "");
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_strings),
        cmocka_unit_test(tsv_fields),
        cmocka_unit_test(csv_fields),
        cmocka_unit_test(table_text_escapes),
        cmocka_unit_test(whole_reports),
        cmocka_unit_test(other_forms),
        cmocka_unit_test(json_writer_commas),
        cmocka_unit_test(many_columns),
        cmocka_unit_test(envelope_and_records),
        cmocka_unit_test(nothing_started),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
