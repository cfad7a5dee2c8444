/* Escaping of the HTML report (src/cli/report/html_escape.c): type names in
 * the JSON embedded in a <script> element, and in HTML text. Hand-checked
 * cases (a type named </script><script>..., <!--, U+2028/2029, ill-formed
 * UTF-8) and every string of one to three bytes (plus four-byte forms around
 * the edges) against a decoder written here another way: bit arithmetic and
 * range checks on the decoded code point, where the escaper uses the table of
 * well-formed byte sequences. The escaped JSON is decoded back and compared. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/html_escape.h"

static char *capture(void (*fn)(FILE *, const char *), const char *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fn(f, s);
    fclose(f);
    return buf;
}

/* Oracle: the code point at s (length in *len), or -1 for an ill-formed
 * byte (*len = 1). Decodes by the lead byte's bit pattern, then rejects
 * overlong forms, surrogates and values above U+10FFFF. */
static long decode(const unsigned char *s, size_t avail, size_t *len)
{
    *len = 1;
    unsigned c = s[0];
    if (c < 0x80)
        return c;
    int n = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (!n || (size_t)n > avail)
        return -1;
    long cp = c & (0x7f >> n);
    for (int k = 1; k < n; k++) {
        if ((s[k] & 0xc0) != 0x80)
            return -1;
        cp = cp << 6 | (s[k] & 0x3f);
    }
    static const long min_of[5] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (cp < min_of[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return -1;
    *len = (size_t)n;
    return cp;
}

/* Appends code point cp as UTF-8. */
static size_t put_utf8(unsigned char *o, long cp)
{
    if (cp < 0x80) { o[0] = (unsigned char)cp; return 1; }
    if (cp < 0x800) { o[0] = (unsigned char)(0xc0 | cp >> 6); o[1] = (unsigned char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xe0 | cp >> 12); o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3f));
        o[2] = (unsigned char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (unsigned char)(0xf0 | cp >> 18); o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3f));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3f)); o[3] = (unsigned char)(0x80 | (cp & 0x3f));
    return 4;
}

/* C1 controls and bidi controls: shown as their bytes (issue 36, finding 9). */
static int unsafe_cp(long cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* What the escaper must produce, as the decoded string: s with every
 * ill-formed byte replaced by U+FFFD and every C1 or bidi control by the
 * text \xNN per byte. */
static size_t expected(const unsigned char *s, size_t n, unsigned char *o)
{
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        size_t len;
        long cp = decode(s + i, n - i, &len);
        if (cp >= 0 && unsafe_cp(cp))
            for (size_t k = 0; k < len; k++)
                w += (size_t)sprintf((char *)o + w, "\\x%02x", s[i + k]);
        else
            w += put_utf8(o + w, cp < 0 ? 0xfffd : cp);
        i += len;
    }
    return w;
}

/* Decodes the JSON string text j (with quotes) into o; checks that j has
 * nothing a <script> element could react to. */
static size_t json_decode(const char *j, unsigned char *o)
{
    size_t n = strlen(j), w = 0;
    assert_true(n >= 2 && j[0] == '"' && j[n - 1] == '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)j[i];
        assert_true(c >= 0x20 && c != 0x7f && c != '<' && c != '>' && c != '&');
    }
    for (size_t i = 1; i < n - 1;) {
        if (j[i] != '\\') {
            o[w++] = (unsigned char)j[i++];
            continue;
        }
        char e = j[i + 1];
        i += 2;
        switch (e) {
        case '"': o[w++] = '"'; break;
        case '\\': o[w++] = '\\'; break;
        case 'n': o[w++] = '\n'; break;
        case 't': o[w++] = '\t'; break;
        case 'r': o[w++] = '\r'; break;
        case 'u': {
            char hex[5] = { j[i], j[i + 1], j[i + 2], j[i + 3], 0 };
            w += put_utf8(o + w, strtol(hex, NULL, 16));
            i += 4;
            break;
        }
        default: fail_msg("unexpected escape \\%c", e);
        }
    }
    return w;
}

static void check_roundtrip(const unsigned char *s, size_t n)
{
    char in[16];
    memcpy(in, s, n);
    in[n] = '\0';
    char *j = capture(html_json_string, in);
    unsigned char got[64], want[64];
    size_t gn = json_decode(j, got), wn = expected(s, n, want);
    if (gn != wn || memcmp(got, want, gn) != 0) {
        fprintf(stderr, "input:");
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %02x", s[i]);
        fprintf(stderr, "  escaped: %s\n", j);
        fail();
    }
    /* U+2028 and U+2029 never appear raw (old JavaScript line terminators). */
    assert_null(strstr(j, "\xe2\x80\xa8"));
    assert_null(strstr(j, "\xe2\x80\xa9"));
    free(j);
}

static void test_hostile_names(void **state)
{
    (void)state;
    char *j = capture(html_json_string, "</script><script>alert(1)</script>");
    assert_string_equal(j, "\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e\"");
    free(j);
    j = capture(html_json_string, "<!-- a \"b\" \\ c & d -->");
    assert_string_equal(j, "\"\\u003c!-- a \\\"b\\\" \\\\ c \\u0026 d --\\u003e\"");
    free(j);
    j = capture(html_json_string, "line\xe2\x80\xa8para\xe2\x80\xa9" "end\x01\x7f");
    assert_string_equal(j, "\"line\\u2028para\\u2029end\\u0001\\u007f\"");
    free(j);
    /* Ill-formed: a stray continuation byte, an overlong '<' (C0 BC), a
     * surrogate, a code point above U+10FFFF, a truncated sequence. */
    j = capture(html_json_string, "a\x80" "b\xc0\xbc" "c\xed\xa0\x80" "d\xf4\x90\x80\x80" "e\xe2\x82");
    assert_string_equal(j, "\"a\\ufffdb\\ufffd\\ufffdc\\ufffd\\ufffd\\ufffdd\\ufffd\\ufffd\\ufffd\\ufffde"
                           "\\ufffd\\ufffd\"");
    free(j);
    /* Well-formed multibyte text passes as it is. */
    j = capture(html_json_string, "Map<\xc3\xa9t\xc3\xa9, \xf0\x9f\x90\x98>");
    assert_string_equal(j, "\"Map\\u003c\xc3\xa9t\xc3\xa9, \xf0\x9f\x90\x98\\u003e\"");
    free(j);
    /* Bidi controls (RLO, LRI, RLM, ALM) and a C1 control: visible bytes, in
     * JSON and in HTML text, so no name shows reversed (issue 36, finding 9). */
    j = capture(html_json_string, "ab\xe2\x80\xae" "cd\xe2\x81\xa6\xe2\x80\x8f\xd8\x9c\xc2\x9b");
    assert_string_equal(j, "\"ab\\\\xe2\\\\x80\\\\xaecd\\\\xe2\\\\x81\\\\xa6\\\\xe2\\\\x80\\\\x8f"
                           "\\\\xd8\\\\x9c\\\\xc2\\\\x9b\"");
    free(j);
    char *h = capture(html_text, "x\xe2\x80\xaey\xe2\x80\x8e");
    assert_string_equal(h, "x\\xe2\\x80\\xaey\\xe2\\x80\\x8e");
    free(h);
    h = capture(html_text, "a<b>&\"c'\xff");
    assert_string_equal(h, "a&lt;b&gt;&amp;&quot;c&#39;\xef\xbf\xbd");
    free(h);
}

/* Every string of one and two bytes, every three-byte string whose first
 * byte is 0xe0-0xef or 0xc2 (with any two after), and four-byte forms with
 * lead bytes 0xf0-0xf5 over the edges of the continuation ranges. */
static void test_exhaustive(void **state)
{
    (void)state;
    unsigned char s[4];
    for (unsigned a = 1; a < 256; a++) {
        s[0] = (unsigned char)a;
        check_roundtrip(s, 1);
        for (unsigned b = 1; b < 256; b++) {
            s[1] = (unsigned char)b;
            check_roundtrip(s, 2);
            if (!((a >= 0xe0 && a <= 0xef) || a == 0xc2 || a == 0x3c))
                continue;
            for (unsigned c = 1; c < 256; c++) {
                s[2] = (unsigned char)c;
                check_roundtrip(s, 3);
            }
        }
    }
    static const unsigned char edge[] = { 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff };
    for (unsigned a = 0xf0; a <= 0xf5; a++)
        for (size_t b = 0; b < sizeof edge; b++)
            for (size_t c = 0; c < sizeof edge; c++)
                for (size_t d = 0; d < sizeof edge; d++) {
                    s[0] = (unsigned char)a;
                    s[1] = edge[b];
                    s[2] = edge[c];
                    s[3] = edge[d];
                    check_roundtrip(s, 4);
                }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostile_names),
        cmocka_unit_test(test_exhaustive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
