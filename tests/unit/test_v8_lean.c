/* Tests of the V8 reader's lean edges (stat with DevTools' view: the
 * strings looked at before the edges, v8_prescan.c, and only the edges the
 * view asks about kept): the look-ahead against strings written by hand,
 * and a load of a snapshot in V8's layout without references against the
 * same snapshot read with every edge (with references, and through a pipe,
 * where the reader keeps every edge), with the figures worked out by hand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "chunks.h"

#include "gcheap/load.h"
#include "v8_prescan.h"
#include "v8_writer.h"

static int prescan(const char *text, v8_prescan *ps)
{
    const char *edges = strstr(text, "\"edges\":[");
    assert_non_null(edges);
    const unsigned char *p = (const unsigned char *)edges + 9;
    return v8_prescan_strings(p, (const unsigned char *)text + strlen(text), ps);
}

/* Escaped quotes and backslashes, escapes that decode to the names looked
 * for, a NUL that ends a name for strcmp, blanks between tokens. */
static void test_prescan_by_hand(void **state)
{
    (void)state;
    static const char text[] =
        "{\"snapshot\":{},\"nodes\":[],\"edges\":[1,2,3],\"trace_function_infos\":[],"
        "\"trace_tree\":[[1,[2,3]],[]],\"samples\":[],\"locations\":[1, 2],\n"
        "\"strings\" : [ \"a\\\\\", \"\\\"\",\"Obj\\u0065ct\",\"Array\",\"x\\\"y\",\"elements\","
        "\"system / ExternalStringData\",\"Object\\u0000z\",\"\",\"Object \",\"\\\\\\\"Array\"\n] }\n";
    static const uint8_t want[] = { 0, 0, V8_PS_OBJECT, V8_PS_ARRAY, 0, V8_PS_ELEMENTS, V8_PS_EXTERNAL,
                                    V8_PS_OBJECT, 0, 0, 0 };
    v8_prescan ps;
    assert_int_equal(prescan(text, &ps), 1);
    assert_int_equal(ps.n, sizeof want);
    assert_memory_equal(ps.flag, want, sizeof want);
    const char *open = strstr(text, "[ \"a");
    assert_ptr_equal(ps.open, (const unsigned char *)open + 1);
    const char *close = strstr(text, "1,2,3]") + 5;
    assert_ptr_equal(ps.edges_close, (const unsigned char *)close);
    v8_prescan_free(&ps);

    /* Not V8's layout after the edges: the strings are found, not the edges' end. */
    static const char other[] = "{\"nodes\":[],\"edges\":[1],\"x\":{\"a\":1},\"strings\":[\"Array\"]}";
    assert_int_equal(prescan(other, &ps), 1);
    assert_int_equal(ps.n, 1);
    assert_int_equal(ps.flag[0], V8_PS_ARRAY);
    assert_null(ps.edges_close);
    v8_prescan_free(&ps);

    /* The strings not last, not closed, a quote never opened, no key: nothing. */
    static const char *const bad[] = {
        "{\"nodes\":[],\"edges\":[1],\"strings\":[\"a\"],\"x\":1}",
        "{\"nodes\":[],\"edges\":[1],\"strings\":[\"a\"}",
        "{\"nodes\":[],\"edges\":[1],\"strings\":[\"a\",b\"]}",
        "{\"nodes\":[],\"edges\":[1],\"strings\":[\"a\" \"b\"]}",
        "{\"nodes\":[],\"edges\":[1],[\"a\"]}",
        "{\"nodes\":[],\"edges\":[\"a\"]}",
        "{\"nodes\":[],\"edges\":[1],\"strings\":[\"\\ud800\\\"]}",
    };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        assert_int_equal(prescan(bad[k], &ps), 0);
        assert_null(ps.flag);
    }
}

/* Every kind of edge the view without references asks about, and some it
 * does not: plain objects with a shared map, an Array owning its elements
 * and a hidden node, an ExternalStringData owned by a string, detached DOM
 * natives, a weak edge into a hidden node. */
static const v8w_node nodes[] = {
    { "synthetic", "", 1, 0, 0 },
    { "object", "Object", 3, 20, 0 },
    { "object", "Object", 5, 30, 0 },
    { "hidden", "system / Map", 7, 16, 0 },
    { "string", "hello", 9, 24, 0 },
    { "number", "heap number", 11, 16, 0 },
    { "object", "Array", 13, 32, 0 },
    { "array", "(object elements)", 15, 40, 0 },
    { "hidden", "system / Foo", 17, 8, 0 },
    { "native", "system / ExternalStringData", 19, 100, 0 },
    { "string", "ext", 21, 24, 0 },
    { "native", "HTMLDivElement", 23, 50, 2 },
    { "native", "HTMLSpanElement", 25, 60, 0 },
    { "hidden", "system / W", 27, 12, 0 },
};
static const v8w_edge edges[] = {
    { 0, 1, "element", NULL, 1 },        { 0, 2, "element", NULL, 2 },   { 0, 6, "element", NULL, 3 },
    { 0, 10, "element", NULL, 4 },       { 0, 11, "element", NULL, 5 },  { 1, 4, "property", "a", 0 },
    { 1, 5, "property", "b", 0 },        { 1, 3, "internal", "map", 0 }, { 1, 13, "weak", "w", 0 },
    { 2, 4, "property", "a", 0 },        { 2, 5, "property", "b", 0 },   { 2, 3, "internal", "map", 0 },
    { 6, 3, "internal", "map", 0 },      { 6, 7, "internal", "elements", 0 },
    { 6, 8, "internal", "x", 0 },        { 7, 1, "element", NULL, 0 },   { 10, 9, "internal", "data", 0 },
    { 11, 12, "property", "child", 0 },
};

static char *v8_layout(int escaped, size_t *len)
{
    v8w_spec sp = { nodes, sizeof nodes / sizeof *nodes, edges, sizeof edges / sizeof *edges, 1, 0, 0, 0, 1 };
    char *raw = v8w_write(&sp, len);
    assert_non_null(raw);
    char *text = malloc(*len + 1); /* NUL-terminated */
    assert_non_null(text);
    memcpy(text, raw, *len);
    text[*len] = '\0';
    free(raw);
    /* V8's order after the edges: drop the writer's unknown member */
    char *m = strstr(text, "\"future_member\"");
    char *s = strstr(text, "\"strings\"");
    assert_true(m && s && m < s);
    memmove(m, s, strlen(s) + 1);
    if (escaped) { /* the names looked for, written with escapes */
        static const char *const from[] = { "\"Object\"", "\"elements\"" }, *const to[] = { "\"\\u004fbject\"",
                                                                                           "\"\\u0065lements\"" };
        for (int k = 0; k < 2; k++) {
            char *at = strstr(strstr(text, "\"strings\""), from[k]);
            assert_non_null(at);
            size_t a = strlen(from[k]), b = strlen(to[k]), tail = strlen(at + a) + 1;
            size_t off = (size_t)(at - text); /* before realloc: text is gone after it */
            char *grown = realloc(text, off + b + tail);
            assert_non_null(grown);
            at = grown + off;
            text = grown;
            memmove(at + b, at + a, tail);
            memcpy(at, to[k], b);
        }
    }
    *len = strlen(text);
    return text;
}

/* Types and sizes of every object, and the Statistics. */
static char *view_of(const gch_dump *d)
{
    const gch_heap *h = d->heaps[0];
    size_t cap = 8192, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    for (uint32_t i = 0; i < h->object_count; i++)
        len += (size_t)snprintf(s + len, cap - len, "%llu %s %llu\n", (unsigned long long)h->object_id[i],
                                gch_type_name(h, h->object_type[i]), (unsigned long long)gch_object_size(h, i));
    for (size_t i = 0; i < h->meta_count; i++)
        if (strncmp(h->meta[i].key, "statistics_", 11) == 0)
            len += (size_t)snprintf(s + len, cap - len, "%s=%s\n", h->meta[i].key, h->meta[i].value);
    assert_true(len < cap);
    return s;
}

static const char by_hand[] = "1 (synthetic) 0\n"
                              "3 {a, b} 20\n"
                              "5 {a, b} 30\n"
                              "7 (system) 16\n"
                              "9 (string) 24\n"
                              "11 (number) 16\n"
                              "13 Array 80\n" /* + its elements 40 + system / Foo 8 */
                              "15 (array) 0\n"
                              "17 (system) 0\n"
                              "19 system / ExternalStringData 0\n"
                              "21 (string) 124\n" /* + ExternalStringData 100 */
                              "23 Detached HTMLDivElement 50\n"
                              "25 Detached HTMLSpanElement 60\n"
                              "27 (system) 12\n"
                              "statistics_total=432\n"
                              "statistics_code=0\n"
                              "statistics_strings=148\n"
                              "statistics_js_arrays=80\n"
                              "statistics_typed_arrays=0\n"
                              "statistics_system_objects=28\n"
                              "statistics_native=110\n";

static void test_lean_equals_every_edge(void **state)
{
    (void)state;
    for (int escaped = 0; escaped < 2; escaped++) {
        size_t len;
        char *text = v8_layout(escaped, &len);
        gch_load_options lean = { 0 }, whole = { 0 };
        lean.skip_refs = 1;
        gch_dump *a = NULL, *b = NULL, *c = NULL;
        gch_error err;
        assert_int_equal(gch_read_v8_buffer(text, len, &lean, &a, &err), GCH_OK);
        assert_int_equal(gch_read_v8_buffer(text, len, &whole, &b, &err), GCH_OK);
        chunks ch = { text, len, 16 };
        gch_source src = { chunk_read, &ch };
        assert_int_equal(gch_read_v8(&src, &lean, &c, &err), GCH_OK);
        char *va = view_of(a), *vb = view_of(b), *vc = view_of(c);
        assert_string_equal(vb, by_hand);
        assert_string_equal(va, vb);
        assert_string_equal(vc, vb);
        free(va);
        free(vb);
        free(vc);
        gch_dump_free(a);
        gch_dump_free(b);
        gch_dump_free(c);
        free(text);
    }
}

/* A second strings array at the end (the look-ahead saw that one, the
 * reader reads the first): the read is made again and says what the
 * careful path says. */
static void test_second_strings_array(void **state)
{
    (void)state;
    size_t len;
    char *text = v8_layout(0, &len);
    char *s = strstr(text, "\"strings\"");
    const char extra[] = "\"strings\":[\"Array\",\"Object\"],";
    char *t = malloc(len + sizeof extra);
    assert_non_null(t);
    size_t head = (size_t)(s - text);
    memcpy(t, text, head);
    memcpy(t + head, extra, sizeof extra - 1);
    memcpy(t + head + sizeof extra - 1, s, len - head + 1);
    gch_load_options o = { 0 };
    o.skip_refs = 1;
    gch_dump *a = NULL, *c = NULL;
    gch_error err, cerr;
    gch_status st = gch_read_v8_buffer(t, strlen(t), &o, &a, &err);
    chunks ch = { t, strlen(t), 64 };
    gch_source src = { chunk_read, &ch };
    gch_status cst = gch_read_v8(&src, &o, &c, &cerr);
    assert_int_equal(st, GCH_EFORMAT);
    assert_int_equal(cst, GCH_EFORMAT);
    assert_string_equal(err.message, cerr.message);
    assert_int_equal(err.offset, cerr.offset);
    assert_null(a);
    assert_null(c);
    free(t);
    free(text);
}

/* DevTools counts any node named "Array" that is not hidden, native, code
 * or a string as a JS array (calculateStatistics): here a closure and a
 * regexp, with no object of that name. Every way of reading keeps the
 * name (once, a load without references dropped it: fuzz_v8 found it). */
static void test_array_named_closure(void **state)
{
    (void)state;
    static const v8w_node few[] = {
        { "synthetic", "", 1, 0, 0 },
        { "closure", "Array", 3, 32, 0 },
        { "regexp", "Array", 5, 16, 0 },
        { "object", "Foo", 7, 8, 0 },
    };
    static const v8w_edge to_each[] = {
        { 0, 1, "element", NULL, 1 }, { 0, 2, "element", NULL, 2 }, { 0, 3, "element", NULL, 3 },
    };
    v8w_spec sp = { few, 4, to_each, 3, 1, 0, 0, 0, 0 };
    size_t len;
    char *text = v8w_write(&sp, &len);
    assert_non_null(text);
    for (int way = 0; way < 6; way++) {
        gch_load_options o = { 0 };
        o.skip_refs = way % 3 == 0;
        o.skip_labels = way % 3 == 1;
        gch_dump *d = NULL;
        gch_error err;
        chunks ch = { text, len, 7 };
        gch_source src = { chunk_read, &ch };
        gch_status st = way < 3 ? gch_read_v8_buffer(text, len, &o, &d, &err) : gch_read_v8(&src, &o, &d, &err);
        assert_int_equal(st, GCH_OK);
        const gch_heap *h = d->heaps[0];
        const char *js = NULL;
        for (size_t i = 0; i < h->meta_count; i++)
            if (strcmp(h->meta[i].key, "statistics_js_arrays") == 0)
                js = h->meta[i].value;
        assert_non_null(js);
        assert_string_equal(js, "48"); /* 32 + 16: neither has elements */
        gch_dump_free(d);
    }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prescan_by_hand),
        cmocka_unit_test(test_lean_equals_every_edge),
        cmocka_unit_test(test_second_strings_array),
        cmocka_unit_test(test_array_named_closure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
