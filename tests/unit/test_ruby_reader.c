/* Tests of the Ruby heap dump reader (ObjectSpace.dump_all JSON lines) on
 * hand-written lines: a small heap whose model is written out by hand
 * (types through class names and superclasses, the <class> edge, IMEMO's
 * class word, hidden objects, roots by category, sites, String values),
 * random heaps checked against a brute-force count of the lines, every
 * malformed case with its line, and truncation at every byte. From a
 * buffer and through a source in reads of 1, 7 and 4096 bytes alike. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "chunks.h"

#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "heap_check.h"
#include "threading.h"
#include "tuning.h"

static char *model_text(const gch_heap *h)
{
    size_t cap = (1 << 16) + 160 * ((size_t)h->object_count + h->ref_count + h->root_count), len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    s[0] = '\0';
#define OUT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__), assert_true(len < cap))
    for (uint32_t i = 0; i < h->object_count; i++) {
        OUT("%llx %s %llu:", (unsigned long long)h->object_id[i], gch_type_name(h, h->object_type[i]),
            (unsigned long long)gch_object_size(h, i));
        for (uint32_t e = h->out_start[i]; e < h->out_start[i + 1]; e++)
            OUT(" %s->%llx", h->out_label ? gch_heap_string(h, h->out_label[e]) : "",
                (unsigned long long)h->object_id[h->out_target[e]]);
        if (h->object_site && h->object_site[i] != GCH_NONE)
            OUT(" @%s", gch_heap_string(h, h->object_site[i]));
        OUT("\n");
    }
    for (uint32_t r = 0; r < h->root_count; r++)
        OUT("root %llx %s %s\n", (unsigned long long)h->root_raw_id[r], gch_root_kind_name(h->root_kind[r]),
            gch_heap_string(h, h->root_label[r]));
#undef OUT
    return s;
}

static gch_status load_stream_as(const char *text, size_t len, size_t step, gch_format f,
                                 const gch_load_options *o, gch_dump **out, gch_error *err)
{
    chunks c = { text, len, step };
    gch_source src = { chunk_read, &c };
    return gch_load(&src, f, o, out, err);
}

static gch_status load_stream(const char *text, size_t len, size_t step, const gch_load_options *o,
                              gch_dump **out, gch_error *err)
{
    return load_stream_as(text, len, step, GCH_FORMAT_AUTO, o, out, err);
}

static const char small_dump[] =
    "{\"type\":\"ROOT\", \"root\":\"global_tbl\", \"references\":[\"0x100\"]}\n"
    "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x200\", \"0x200\", \"0x300\"]}\n"
    "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x200\", \"0x100\"]}\n"
    "{\"address\":\"0x100\", \"type\":\"OBJECT\", \"class\":\"0x1000\", \"ivars\":2, "
    "\"references\":[\"0x110\", \"0x120\"], \"memsize\":56, \"flags\":{\"wb_protected\":true}}\n"
    "{\"address\":\"0x110\", \"type\":\"ARRAY\", \"class\":\"0x2000\", \"length\":1, "
    "\"references\":[\"0x130\"], \"memsize\":40}\n"
    "{\"address\":\"0x120\", \"type\":\"STRING\", \"class\":\"0x3000\", \"bytesize\":7, "
    "\"value\":\"a\\\"b\\\\c\\u00e9\\ud83d\\ude00\\u0000\", \"memsize\":40, \"file\":\"x.rb\", \"line\":3, "
    "\"method\":\"m\", \"generation\":4}\n"
    "{\"address\":\"0x130\", \"type\":\"OBJECT\", \"class\":\"0x1001\", \"memsize\":40, \"file\":\"x.rb\", "
    "\"line\":3}\n"
    "{\"address\":\"0x140\", \"type\":\"IMEMO\", \"class\":\"0x1000\", \"imemo_type\":\"callcache\", "
    "\"references\":[\"0x100\"], \"memsize\":40}\n"
    "{\"address\":\"0x150\", \"type\":\"STRING\", \"embedded\":true, \"memsize\":40}\n"
    "{\"address\":\"0x160\", \"type\":\"DATA\", \"struct\":\"mutex\", \"memsize\":72}\n"
    "{\"address\":\"0x170\", \"type\":\"FLOAT\", \"class\":\"0x5000\", \"value\":\"1.5\", \"memsize\":40}\n"
    "\n"
    "{\"address\":\"0x1000\", \"type\":\"CLASS\", \"class\":\"0x1010\", \"superclass\":\"0x2000\", "
    "\"name\":\"Foo\", \"references\":[\"0x2000\"], \"memsize\":500}\n"
    "{\"address\":\"0x1001\", \"type\":\"CLASS\", \"class\":\"0x1011\", \"superclass\":\"0x1000\", "
    "\"references\":[\"0x1000\"], \"memsize\":400}\n"
    "{\"address\":\"0x2000\", \"type\":\"CLASS\", \"name\":\"Array\", \"memsize\":600}\n"
    "{\"address\":\"0x3000\", \"type\":\"CLASS\", \"name\":\"String\", \"memsize\":600}\n"
    "{\"address\":\"0x200\", \"type\":\"MODULE\", \"class\":\"0x4000\", \"name\":\"Kernel\", \"memsize\":100}\n"
    "{\"address\":\"0x300\", \"type\":\"ICLASS\", \"class\":\"0x200\", \"superclass\":\"0x1000\", "
    "\"memsize\":40}\n"
    "{\"address\":\"0x310\", \"type\":\"WEIRD\", \"memsize\":8}"; /* no newline at the end */

/* Written by hand from the lines above. The class of 0x130 is unnamed
 * (a singleton class): named after its superclass Foo. 0x150 is a hidden
 * String (no class): the kind's name. 0x140's class word is no edge. The
 * classes of classes (0x1010, 0x1011, 0x4000) and Float (0x5000) are
 * absent: dangling. */
static const char small_model[] =
    "100 Foo 56: <class>->1000 ->110 ->120\n"
    "110 Array 40: <class>->2000 ->130\n"
    "120 String 40: <class>->3000 @x.rb:3\n"
    "130 Foo 40: <class>->1001 @x.rb:3\n"
    "140 imemo_callcache 40: ->100\n"
    "150 String 40:\n"
    "160 mutex 72:\n"
    "170 Float 40:\n"
    "1000 Class 500: ->2000\n"
    "1001 Class 400: ->1000\n"
    "2000 Class 600:\n"
    "3000 Class 600:\n"
    "200 Module 100:\n"
    "300 T_ICLASS 40: <class>->200\n"
    "310 T_WEIRD 8:\n"
    "root 100 static global_tbl\n"
    "root 200 runtime vm\n"
    "root 300 runtime vm\n"
    "root 100 runtime vm\n";

static void check_small(gch_dump *d)
{
    assert_null(heap_check_dump(d));
    assert_string_equal(d->format, "ruby");
    gch_heap *h = d->heaps[0];
    char *m = model_text(h);
    assert_string_equal(m, small_model);
    free(m);
    assert_int_equal(h->anomalies.dangling_refs, 4); /* 0x1010, 0x1011, 0x4000, 0x5000 */
    assert_int_equal(h->total_size, 56 + 40 * 7 + 72 + 500 + 400 + 600 * 2 + 100 + 8);
}

static void test_small_model(void **state)
{
    (void)state;
    size_t len = sizeof small_dump - 1;
    assert_int_equal(gch_detect_format(small_dump, len), GCH_FORMAT_RUBY);
    gch_dump *d = NULL;
    gch_error err;
    gch_load_options o = { 0 };
    o.keep_payloads = 1;
    assert_int_equal(gch_load_buffer(small_dump, len, GCH_FORMAT_AUTO, &o, &d, &err), GCH_OK);
    check_small(d);
    /* the String value, unescaped: a"b\cé😀 and U+FFFD for \u0000 */
    gch_heap *h = d->heaps[0];
    assert_true(h->payloads_kept);
    assert_int_equal(h->payload_count, 1); /* the FLOAT's value is no String's */
    const gch_payload *p = gch_heap_payload(h, 0x120);
    assert_non_null(p);
    assert_int_equal(p->kind, GCH_PAYLOAD_TEXT);
    static const char want[] = "a\"b\\c\xC3\xA9\xF0\x9F\x98\x80\xEF\xBF\xBD";
    assert_int_equal(p->length, sizeof want - 1);
    assert_memory_equal(gch_heap_string(h, (uint32_t)p->offset), want, sizeof want - 1);
    gch_dump_free(d);

    static const size_t steps[] = { 1, 7, 4096 };
    for (size_t k = 0; k < 3; k++) {
        assert_int_equal(load_stream(small_dump, len, steps[k], &o, &d, &err), GCH_OK);
        check_small(d);
        assert_non_null(gch_heap_payload(d->heaps[0], 0x120));
        gch_dump_free(d);
    }
    /* without labels and without references: the same types and sizes */
    o.keep_payloads = 0;
    o.skip_labels = 1;
    assert_int_equal(gch_load_buffer(small_dump, len, GCH_FORMAT_RUBY, &o, &d, &err), GCH_OK);
    assert_null(d->heaps[0]->out_label);
    assert_int_equal(d->heaps[0]->ref_count, 11);
    assert_int_equal(d->heaps[0]->payloads_kept, 0);
    gch_dump_free(d);
    o.skip_refs = 1;
    assert_int_equal(gch_load_buffer(small_dump, len, GCH_FORMAT_RUBY, &o, &d, &err), GCH_OK);
    assert_int_equal(d->heaps[0]->ref_count, 0);
    assert_int_equal(d->heaps[0]->total_size, 2616);
    gch_dump_free(d);
}

static void test_detection(void **state)
{
    (void)state;
    static const char *const yes[] = {
        "{\"address\":\"0x7f00\", \"type\":\"STRING\"}",
        "{ \"address\" : \"0x1\"",
        "{\"type\":\"ROOT\", \"root\":\"vm\"}",
        "\t{\"type\" :\"ROOT\"",
    };
    static const char *const no[] = {
        "{\"type\":\"OBJECT\"}",       /* only ROOT may come first with "type" */
        "{\"address\":12}",
        "{\"snapshot\":{}}",
        "[{\"address\":\"0x1\"}]",
        "{\"addr\":\"0x1\"}",
    };
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_int_equal(gch_detect_format(yes[i], strlen(yes[i])), GCH_FORMAT_RUBY);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_int_not_equal(gch_detect_format(no[i], strlen(no[i])), GCH_FORMAT_RUBY);
    gch_format f;
    assert_int_equal(gch_format_parse("ruby", &f), 0);
    assert_int_equal(f, GCH_FORMAT_RUBY);
    assert_string_equal(gch_format_name(GCH_FORMAT_RUBY), "ruby");
}

/* Repeated addresses: the first line wins (type, size, site); the repeat
 * is counted. References to absent objects are dropped and counted. */
static void test_duplicates_and_dangling(void **state)
{
    (void)state;
    static const char text[] =
        "{\"address\":\"0x10\", \"type\":\"STRING\", \"memsize\":40, \"file\":\"a.rb\", \"line\":1}\n"
        "{\"address\":\"0x20\", \"type\":\"ARRAY\", \"references\":[\"0x10\", \"0x99\", \"0x98\"], "
        "\"memsize\":80, \"file\":\"b.rb\", \"line\":2}\n"
        "{\"address\":\"0x10\", \"type\":\"HASH\", \"memsize\":999, \"file\":\"c.rb\", \"line\":3}\n"
        "{\"address\":\"0x30\", \"type\":\"HASH\", \"memsize\":160}\n";
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(text, sizeof text - 1, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_OK);
    assert_null(heap_check_dump(d));
    gch_heap *h = d->heaps[0];
    char *m = model_text(h);
    assert_string_equal(m, "10 String 40: @a.rb:1\n"
                           "20 Array 80: ->10 @b.rb:2\n"
                           "30 Hash 160:\n");
    free(m);
    assert_int_equal(h->anomalies.duplicate_objects, 1);
    assert_int_equal(h->anomalies.dangling_refs, 2);
    gch_dump_free(d);
}

typedef struct bad_case {
    const char *text;
    uint64_t line;
    const char *message;
} bad_case;

static const bad_case bad_cases[] = {
    { "{\"address\":\"0x10\", \"type\":\"STR", 1, "unterminated string" },
    { "{\"address\":\"0x10\", \"type\":\"STRING\"}\n{\"address\":\"0x20\", \"type\":\"OBJECT\", \"memsize\":1e3}\n",
      2, "non-negative integer" },
    { "{\"address\":\"0x10\", \"type\":\"STRING\", \"memsize\":18446744073709551616}", 1, "non-negative integer" },
    { "{\"address\":\"0x10\", \"type\":\"STRING\", \"memsize\":-1}", 1, "non-negative integer" },
    { "{\"address\":\"0x10\", \"type\":\"STRING\", \"line\":1.5, \"file\":\"a\"}", 1, "non-negative integer" },
    { "{\"address\":\"0xZZ\", \"type\":\"STRING\"}", 1, "bad address" },
    { "{\"address\":\"0x\", \"type\":\"STRING\"}", 1, "bad address" },
    { "{\"address\":\"16\", \"type\":\"STRING\"}", 1, "bad address" },
    { "{\"address\":\"0x12345678901234567\", \"type\":\"STRING\"}", 1, "wider than 64 bits" },
    { "{\"address\":\"0x10\", \"type\":\"ARRAY\", \"references\":[\"0x1\", 2]}", 1, "address" },
    { "{\"address\":\"0x10\", \"type\":\"ARRAY\", \"references\":{}}", 1, "expected an array" },
    { "{\"address\":\"0x10\", \"type\":\"ARRAY\", \"references\":[\"0x1\"", 1, "line ends inside" },
    { "{\"address\":\"0x10\", \"type\":\"ARRAY\", \"class\":5}", 1, "address" },
    { "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[]}\n{\"type\":\"OBJECT\", \"memsize\":1}", 2,
      "without an \"address\"" },
    { "{\"address\":\"0x0\", \"type\":\"OBJECT\"}", 1, "address 0x0" },
    { "{\"address\":\"0x10\", \"memsize\":5}", 1, "without a \"type\"" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\"} x", 1, "text after the object" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\"}\n[1]\n", 2, "expected a JSON object" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":\"\t\"}", 1, "control character" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":\"\\x\"}", 1, "bad escape" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":\"\\u12g4\"}", 1, "bad \\u escape" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":tru}", 1, "unexpected character" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":[1,]}", 1, "unexpected character" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":{\"b\" 1}}", 1, "expected ':'" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":{1:2}}", 1, "member name" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":[1 2]}", 1, "expected ',' or ']'" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":-}", 1, "bad number" },
    { "{\"address\":\"0x10\" \"type\":\"OBJECT\"}", 1, "expected ',' or '}'" },
    { "{\"type\":\"ROOT\", \"references\":[\"0x10\"]}", 1, "category" },
    { "{\"address\":\"0x10\", \"type\":\"OBJECT\"", 1, "line ends inside the object" },
    { "\n\n", 2, "no object" },
};

static void check_bad(const char *text, size_t len, const bad_case *c, size_t step)
{
    gch_dump *d = (gch_dump *)1;
    gch_error err;
    gch_status st = step ? load_stream_as(text, len, step, GCH_FORMAT_RUBY, NULL, &d, &err)
                         : gch_load_buffer(text, len, GCH_FORMAT_RUBY, NULL, &d, &err);
    if (st != GCH_EFORMAT || err.line != c->line || !strstr(err.message, c->message))
        fail_msg("'%s' (step %zu): status %d line %llu '%s'; expected line %llu '%s'", c->text, step, (int)st,
                 (unsigned long long)err.line, err.message, (unsigned long long)c->line, c->message);
    assert_null(d);
}

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const char *t = bad_cases[i].text;
        check_bad(t, strlen(t), &bad_cases[i], 0);
        check_bad(t, strlen(t), &bad_cases[i], 3);
    }
    /* nesting past 256 levels is refused; 255 is fine */
    for (int depth = 255; depth <= 300; depth += 45) {
        size_t cap = 64 + 2 * (size_t)depth;
        char *t = malloc(cap);
        assert_non_null(t);
        size_t n = (size_t)snprintf(t, cap, "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"a\":");
        for (int i = 0; i < depth; i++)
            t[n++] = '[';
        for (int i = 0; i < depth; i++)
            t[n++] = ']';
        t[n++] = '}';
        gch_dump *d = NULL;
        gch_error err;
        gch_status st = gch_load_buffer(t, n, GCH_FORMAT_RUBY, NULL, &d, &err);
        if (depth <= 256) {
            assert_int_equal(st, GCH_OK);
            gch_dump_free(d);
        } else {
            assert_int_equal(st, GCH_EFORMAT);
            assert_non_null(strstr(err.message, "nested too deeply"));
        }
        free(t);
    }
    /* sizes past 2^64 in all: a limit, not a crash */
    static const char big[] = "{\"address\":\"0x10\", \"type\":\"OBJECT\", \"memsize\":18446744073709551615}\n"
                              "{\"address\":\"0x20\", \"type\":\"OBJECT\", \"memsize\":2}\n";
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(big, sizeof big - 1, GCH_FORMAT_RUBY, NULL, &d, &err), GCH_ELIMIT);
}

/* Cut after every byte: either a complete dump of the lines before the
 * cut (a cut at a line's end) or an error at the line that was cut. */
static void test_truncation_every_byte(void **state)
{
    (void)state;
    size_t len = sizeof small_dump - 1;
    for (size_t cut = 1; cut < len; cut++) {
        uint64_t line = 1;
        size_t last_nl = 0;
        for (size_t i = 0; i < cut; i++)
            if (small_dump[i] == '\n') {
                line++;
                last_nl = i + 1;
            }
        gch_dump *d = NULL;
        gch_error err;
        gch_status st = gch_load_buffer(small_dump, cut, GCH_FORMAT_RUBY, NULL, &d, &err);
        int whole_lines = last_nl == cut || (cut > last_nl && small_dump[cut] == '\n');
        if (whole_lines) {
            assert_int_equal(st, GCH_OK);
            assert_null(heap_check_dump(d));
            gch_dump_free(d);
        } else {
            if (st != GCH_EFORMAT || err.line != line)
                fail_msg("cut %zu: status %d line %llu (%s), expected line %llu", cut, (int)st,
                         (unsigned long long)err.line, err.message, (unsigned long long)line);
        }
    }
}

/* Random heaps: K classes (named or not, with superclass links), N objects
 * of random kinds with random references, some to absent addresses; the
 * expected per-name counts and bytes, references and roots computed by
 * brute force over the same choices. */
#define K 12
#define N 400
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static void test_random_against_brute_force(void **state)
{
    (void)state;
    static const char *const kinds[] = { "OBJECT", "STRING", "ARRAY", "HASH", "IMEMO", "DATA" };
    for (int round = 0; round < 20; round++) {
        size_t cap = 1 << 20, len = 0;
        char *t = malloc(cap);
        assert_non_null(t);
        int named[K];
        uint32_t super[K];
        for (int c = 0; c < K; c++) {
            named[c] = c < 3 || rnd(2);  /* 0..2 always named: chains end */
            super[c] = c < 3 ? K : rnd((uint32_t)c); /* to an earlier class */
        }
        /* expected: bytes and counts by name */
        const char *names[N + K];
        uint64_t sizes[N + K];
        size_t nrefs_expected = 0;
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"type\":\"ROOT\", \"root\":\"vm\", \"references\":[\"0x%x\"]}\n", 0x10000);
        static char namebuf[K][8];
        for (int i = 0; i < N; i++) {
            int kind = (int)rnd(6);
            int c = (int)rnd(K);
            uint64_t size = 40 + 8 * rnd(50);
            len += (size_t)snprintf(t + len, cap - len, "{\"address\":\"0x%x\", \"type\":\"%s\"",
                                    0x10000 + 0x28 * i, kinds[kind]);
            int has_class = kind != 5 || rnd(2);
            if (has_class)
                len += (size_t)snprintf(t + len, cap - len, ", \"class\":\"0x%x\"", 0x100 + 8 * c);
            if (kind == 4)
                len += (size_t)snprintf(t + len, cap - len, ", \"imemo_type\":\"env\"");
            if (kind == 5)
                len += (size_t)snprintf(t + len, cap - len, ", \"struct\":\"thing\"");
            int nr = (int)rnd(4);
            for (int r = 0; r < nr; r++) {
                int to = (int)rnd(N + 5); /* 5 in 405 absent */
                len += (size_t)snprintf(t + len, cap - len, "%s\"0x%x\"", r ? ", " : ", \"references\":[",
                                        0x10000 + 0x28 * to);
                nrefs_expected += to < N;
            }
            if (nr)
                len += (size_t)snprintf(t + len, cap - len, "]");
            len += (size_t)snprintf(t + len, cap - len, ", \"memsize\":%llu}\n", (unsigned long long)size);
            /* brute force: the name */
            const char *name;
            if (kind == 4) {
                name = "imemo_env";
            } else if (kind == 5 && !has_class) {
                name = "thing";
            } else {
                int k = c, steps = 0;
                while (!named[k] && steps < 64) {
                    k = (int)super[k];
                    steps++;
                }
                snprintf(namebuf[k], sizeof namebuf[k], "C%d", k);
                name = namebuf[k];
                nrefs_expected++; /* the <class> edge */
            }
            names[i] = name;
            sizes[i] = size;
        }
        for (int c = 0; c < K; c++) {
            len += (size_t)snprintf(t + len, cap - len, "{\"address\":\"0x%x\", \"type\":\"CLASS\"", 0x100 + 8 * c);
            if (super[c] != K)
                len += (size_t)snprintf(t + len, cap - len, ", \"superclass\":\"0x%x\"", 0x100 + 8 * super[c]);
            if (named[c])
                len += (size_t)snprintf(t + len, cap - len, ", \"name\":\"C%d\"", c);
            len += (size_t)snprintf(t + len, cap - len, ", \"memsize\":100}\n");
            names[N + c] = "Class";
            sizes[N + c] = 100;
        }
        assert_true(len < cap);
        gch_dump *d = NULL;
        gch_error err;
        assert_int_equal(gch_load_buffer(t, len, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_OK);
        assert_null(heap_check_dump(d));
        gch_heap *h = d->heaps[0];
        assert_int_equal(h->object_count, N + K);
        for (uint32_t o = 0; o < h->object_count; o++) {
            assert_string_equal(gch_type_name(h, h->object_type[o]), names[o]);
            assert_int_equal(gch_object_size(h, o), sizes[o]);
        }
        assert_int_equal(h->ref_count, nrefs_expected);
        assert_int_equal(h->root_count, 1);
        gch_dump *p = NULL;
        assert_int_equal(load_stream(t, len, 4096, NULL, &p, &err), GCH_OK);
        char *a = model_text(h), *b = model_text(p->heaps[0]);
        assert_string_equal(a, b);
        free(a);
        free(b);
        gch_dump_free(p);
        gch_dump_free(d);
        free(t);
    }
}


/* A mapped file is parsed in pieces by up to two threads (ruby_pieces.c);
 * a source, line by line on one (parse_source): different code, so the
 * source's result is the expected one. Tiny pieces (down to one byte: most
 * pieces then hold no line start) make two threads share the small dumps.
 * For every piece size and 1 or 2 workers: the same heap as the source's,
 * and with line i replaced by a bad one, the same error at line i + 1. */
static char *replace_line(const char *text, int i, const char *with, size_t *len)
{
    size_t n = strlen(text), cap = n + strlen(with) + 2;
    char *t = malloc(cap);
    assert_non_null(t);
    const char *p = text;
    for (int k = 0; k < i && p; k++) {
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    if (!p)
        return free(t), NULL;
    const char *e = strchr(p, '\n');
    *len = (size_t)snprintf(t, cap, "%.*s%s%s", (int)(p - text), text, with, e ? e : "");
    return t;
}

static void check_same(const char *t, size_t len, size_t piece, unsigned threads)
{
    gch_tuning k = gch_tuning_get();
    k.ruby_piece = piece;
    k.default_workers = 2;
    gch_internal_set_tuning(&k);
    gch_load_options o;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    gch_dump *a = NULL, *b = NULL;
    gch_error ea, eb;
    gch_status sa = gch_load_buffer(t, len, GCH_FORMAT_RUBY, &o, &a, &ea);
    gch_internal_set_tuning(NULL);
    gch_status sb = load_stream_as(t, len, 4096, GCH_FORMAT_RUBY, &o, &b, &eb);
    assert_int_equal(sa, sb);
    if (sb == GCH_OK) {
        assert_null(heap_check_dump(a));
        char *ma = model_text(a->heaps[0]), *mb = model_text(b->heaps[0]);
        assert_string_equal(ma, mb);
        free(ma);
        free(mb);
    } else {
        assert_int_equal(ea.line, eb.line);
        assert_string_equal(ea.message, eb.message);
    }
    gch_dump_free(a);
    gch_dump_free(b);
}

static void test_pieces_and_threads(void **state)
{
    (void)state;
    static const size_t pieces[] = { 1, 2, 7, 64, 333, 0 };
    static const char *const bad[] = {
        "{\"address\":\"0x5\", \"type\":}", "{\"address\":\"0x5\", \"type\":\"OBJECT\", \"flags\":{\"a\":tru}}",
        "{\"type\":\"OBJECT\"}", "  \t"
    };
    uint64_t threads_before = gch_internal_threads_created();
    size_t len = sizeof small_dump - 1;
    for (size_t p = 0; p < sizeof pieces / sizeof *pieces; p++)
        for (unsigned w = 1; w <= 2; w++) {
            check_same(small_dump, len, pieces[p], w);
            for (int i = 0; i < 20; i++)
                for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
                    size_t n;
                    char *t = replace_line(small_dump, i, bad[b], &n);
                    if (!t)
                        break;
                    check_same(t, n, pieces[p], w);
                    free(t);
                }
        }
    /* the small dump itself, as written by hand, through two threads */
    gch_tuning k = gch_tuning_get();
    k.ruby_piece = 7;
    k.default_workers = 2;
    gch_internal_set_tuning(&k);
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(small_dump, len, GCH_FORMAT_RUBY, NULL, &d, &err), GCH_OK);
    gch_internal_set_tuning(NULL);
    check_small(d);
    gch_dump_free(d);
    /* two workers and several pieces did start a thread */
    assert_true(gch_internal_threads_created() > threads_before);
}

/* Every kind's name, every root category's kind, IMEMO and DATA without
 * their words, long words cut, blank lines of blanks. */
static void test_kinds_and_roots(void **state)
{
    (void)state;
    static const char text[] =
        "{\"type\":\"ROOT\", \"root\":\"machine_context\", \"references\":[\"0x10\"]}\n"
        "{\"type\":\"ROOT\", \"root\":\"global_list\", \"references\":[\"0x18\", \"0x0\"]}\n"
        "{\"type\":\"ROOT\", \"root\":\"finalizers\", \"references\":[\"0x20\"]}\n"
        "{\"type\":\"ROOT\", \"root\":\"end_proc\", \"references\":[\"0x28\"]}\n"
        " \t \r\n"
        "{\"address\":\"0x10\", \"type\":\"REGEXP\", \"class\":\"0x900\"}\n"
        "{\"address\":\"0x18\", \"type\":\"STRUCT\", \"class\":\"0x948\"}\n"
        "{\"address\":\"0x20\", \"type\":\"BIGNUM\", \"class\":\"0x908\"}\n"
        "{\"address\":\"0x28\", \"type\":\"FILE\", \"class\":\"0x910\", \"fd\":3}\n"
        "{\"address\":\"0x30\", \"type\":\"MATCH\", \"class\":\"0x918\"}\n"
        "{\"address\":\"0x38\", \"type\":\"SYMBOL\", \"class\":\"0x920\"}\n"
        "{\"address\":\"0x40\", \"type\":\"RATIONAL\", \"class\":\"0x928\"}\n"
        "{\"address\":\"0x48\", \"type\":\"COMPLEX\", \"class\":\"0x930\"}\n"
        "{\"address\":\"0x50\", \"type\":\"IMEMO\"}\n"
        "{\"address\":\"0x58\", \"type\":\"DATA\"}\n"
        "{\"address\":\"0x60\", \"type\":\"DATA\", \"class\":\"0x938\"}\n"
        "{\"address\":\"0x68\", \"type\":\"NODE\"}\n"
        "{\"address\":\"0x70\", \"type\":\"IMEMO\", \"imemo_type\":\""
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}\n"
        "{\"address\":\"0x78\", \"type\":\""
        "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB\"}\n"
        "{\"address\":\"0x80\", \"type\":\"O\\u0042JECT\", \"class\":\"0x900\"}\n"
        "{\"address\":\"0x88\", \"type\":\"STRING\", \"class\":\"0x940\", \"value\":\"zz\"}\n"
        "{\"address\":\"0x8\", \"type\":\"STRING\", \"class\":\"0x940\", \"value\":\"aa\"}\n"
        "{\"address\":\"0x900\", \"type\":\"CLASS\", \"superclass\":\"0x900\"}\n"; /* a loop */
    gch_dump *d = NULL;
    gch_error err;
    gch_load_options o = { 0 };
    o.keep_payloads = 1;
    assert_int_equal(gch_load_buffer(text, sizeof text - 1, GCH_FORMAT_AUTO, &o, &d, &err), GCH_OK);
    assert_null(heap_check_dump(d));
    const gch_heap *h = d->heaps[0];
    static const char *const names[] = { "Regexp", "Struct", "Integer", "File", "MatchData", "Symbol",
                                         "Rational", "Complex", "T_IMEMO", "T_DATA", "T_DATA", "T_NODE" };
    for (uint32_t o2 = 0; o2 < 12; o2++)
        assert_string_equal(gch_type_name(h, h->object_type[o2]), names[o2]);
    const char *imemo = gch_type_name(h, h->object_type[12]);
    assert_int_equal(strncmp(imemo, "imemo_aaaa", 10), 0);
    assert_true(strlen(imemo) < 96);
    assert_int_equal(strncmp(gch_type_name(h, h->object_type[13]), "T_BBBB", 6), 0);
    assert_string_equal(gch_type_name(h, h->object_type[14]), "T_OBJECT"); /* an escaped word is no kind */
    static const char *const kinds[] = { "local", "handle", "finalizer", "internal" };
    assert_int_equal(h->root_count, 4);
    for (uint32_t r = 0; r < 4; r++)
        assert_string_equal(gch_root_kind_name(h->root_kind[r]), kinds[r]);
    assert_int_equal(h->payload_count, 2);
    assert_true(h->payloads[0].id == 0x8 && h->payloads[1].id == 0x88);
    gch_dump_free(d);
}

/* A line longer than the source's block (1 MiB): the block grows; a source
 * that fails is GCH_EIO; progress is told. */
static long long failing_read(void *ctx, void *buf, size_t cap)
{
    (void)ctx;
    (void)buf;
    (void)cap;
    return -1;
}

static void count_progress(void *ctx, uint64_t bytes)
{
    *(uint64_t *)ctx = bytes;
}

static void test_long_line_and_source_errors(void **state)
{
    (void)state;
    size_t n = 200000, cap = 64 + 20 * n, len = 0;
    char *t = malloc(cap);
    assert_non_null(t);
    len += (size_t)snprintf(t + len, cap - len, "{\"address\":\"0x10\", \"type\":\"ARRAY\", \"references\":[");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(t + len, cap - len, "%s\"0x10\"", i ? ", " : "");
    len += (size_t)snprintf(t + len, cap - len, "]}\n");
    assert_true(len > (1u << 20));
    uint64_t seen = 0;
    gch_load_options o = { 0 };
    o.progress = count_progress;
    o.progress_ctx = &seen;
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(load_stream(t, len, 1 << 16, &o, &d, &err), GCH_OK);
    assert_int_equal(d->heaps[0]->ref_count, n);
    assert_int_equal(seen, len);
    gch_dump_free(d);
    seen = 0;
    assert_int_equal(gch_load_buffer(t, len, GCH_FORMAT_RUBY, &o, &d, &err), GCH_OK);
    assert_int_equal(seen, len);
    gch_dump_free(d);
    free(t);
    gch_source src = { failing_read, NULL };
    assert_int_equal(gch_read_ruby(&src, NULL, &d, &err), GCH_EIO);
    assert_null(d);
}

/* Fails the k-th allocation, k = 1, 2, ... until a load needs no more:
 * each fails with GCH_ENOMEM (or succeeds) and leaks nothing. */
static long fail_at, calls, live;
static void *t_malloc(void *ctx, size_t n)
{
    (void)ctx;
    if (++calls == fail_at)
        return NULL;
    void *p = malloc(n);
    live += p != NULL;
    return p;
}
static void *t_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (++calls == fail_at)
        return NULL;
    void *q = realloc(p, n);
    live += q && !p;
    return q;
}
static void t_free(void *ctx, void *p)
{
    (void)ctx;
    live -= p != NULL;
    free(p);
}

static void test_allocation_failures(void **state)
{
    (void)state;
    static const gch_allocator a = { t_malloc, t_realloc, t_free, NULL, NULL };
    gch_load_options o = { 0 };
    o.keep_payloads = 1;
    o.threads = 1;
    for (int streamed = 0; streamed < 2; streamed++) {
        for (fail_at = 1;; fail_at++) {
            calls = live = 0;
            gch_set_allocator(&a);
            gch_dump *d = NULL;
            gch_error err;
            gch_status st = streamed ? load_stream(small_dump, sizeof small_dump - 1, 4096, &o, &d, &err)
                                     : gch_load_buffer(small_dump, sizeof small_dump - 1, GCH_FORMAT_AUTO, &o,
                                                       &d, &err);
            if (st == GCH_OK)
                gch_dump_free(d);
            gch_set_allocator(NULL);
            if (live != 0)
                fail_msg("allocation %ld failed: %ld blocks leaked", fail_at, live);
            if (calls < fail_at) {
                assert_int_equal(st, GCH_OK);
                break;
            }
            if (st != GCH_ENOMEM && st != GCH_OK)
                fail_msg("allocation %ld failed: status %d (%s)", fail_at, (int)st, err.message);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_model),
        cmocka_unit_test(test_detection),
        cmocka_unit_test(test_duplicates_and_dangling),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_truncation_every_byte),
        cmocka_unit_test(test_random_against_brute_force),
        cmocka_unit_test(test_pieces_and_threads),
        cmocka_unit_test(test_kinds_and_roots),
        cmocka_unit_test(test_long_line_and_source_errors),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
