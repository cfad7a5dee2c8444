/* Tests of the V8 heap snapshot reader against snapshots made by the test
 * writer (tests/support/v8_writer.c) and by hand: the model of a hand-checked
 * graph in every layout variant, from a buffer and through a pipe in small
 * reads; truncation at every offset and corruption of every byte (errors with
 * offsets, never a crash); counts that disagree, references out of range,
 * huge and malformed numbers, escapes. */
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
#include "gcheap/rules.h"
#include "heap_check.h"
#include "tuning.h"
#include "fail_alloc.h"
#include "v8_sample.h"
#include "v8_writer.h"

static char *model_text(const gch_heap *h)
{
    size_t cap = (1 << 16) + 128 * ((size_t)h->object_count + h->ref_count + h->root_count), len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    s[0] = '\0';
#define OUT(...) (len += (size_t)snprintf(s + len, cap - len, __VA_ARGS__), assert_true(len < cap))
    for (uint32_t i = 0; i < h->object_count; i++) {
        OUT("%llu %s %llu:", (unsigned long long)h->object_id[i], gch_type_name(h, h->object_type[i]),
            (unsigned long long)gch_object_size(h, i));
        for (uint32_t e = h->out_start[i]; e < h->out_start[i + 1]; e++)
            OUT(" %s->%llu", h->out_label ? gch_heap_string(h, h->out_label[e]) : "",
                (unsigned long long)h->object_id[h->out_target[e]]);
        OUT("\n");
    }
    for (uint32_t r = 0; r < h->root_count; r++)
        OUT("root %llu %s %u %s\n", (unsigned long long)h->root_raw_id[r], gch_root_kind_name(h->root_kind[r]),
            h->root_flags[r], gch_heap_string(h, h->root_label[r]));
#undef OUT
    return s;
}

static const char *meta_value(const gch_heap *h, const char *key)
{
    for (size_t i = 0; i < h->meta_count; i++)
        if (strcmp(h->meta[i].key, key) == 0)
            return h->meta[i].value;
    return NULL;
}

static char *sample(int variant, size_t *len)
{
    char *text = v8_sample_write(variant, len);
    assert_non_null(text);
    return text;
}

static gch_status load_stream(const char *text, size_t len, size_t step, const gch_load_options *o,
                              gch_dump **out, gch_error *err)
{
    chunks c = { text, len, step };
    gch_source src = { chunk_read, &c };
    return gch_load(&src, GCH_FORMAT_AUTO, o, out, err);
}

static void test_sample_model_every_variant(void **state)
{
    (void)state;
    for (int variant = 0; variant < 32; variant++) {
        size_t len;
        char *text = sample(variant, &len);
        assert_int_equal(gch_detect_format(text, len), GCH_FORMAT_V8);
        gch_dump *d = NULL;
        gch_error err;
        gch_load_options raw = { 0 };
        raw.v8_raw = 1; /* the graph as written: DevTools' view is test_devtools_view's */
        assert_int_equal(gch_load_buffer(text, len, GCH_FORMAT_AUTO, &raw, &d, &err), GCH_OK);
        assert_string_equal(d->format, "v8");
        assert_null(heap_check_dump(d));
        gch_heap *h = d->heaps[0];
        char *model = model_text(h);
        assert_string_equal(model, v8_sample_model);
        assert_int_equal(h->id_radix, 10);
        assert_int_equal(h->total_size, 414);
        assert_string_equal(meta_value(h, "weak_edges"), "1");
        assert_string_equal(meta_value(h, "shortcut_edges_ignored"), "1");
        assert_string_equal(meta_value(h, "weak_only_nodes"), "1");
        if (variant & 1) {
            assert_string_equal(meta_value(h, "detached_nodes"), "1");
            assert_string_equal(meta_value(h, "attached_nodes"), "1");
        } else {
            assert_null(meta_value(h, "detached_nodes"));
        }
        /* Through a pipe, in reads of 1, 7 and 4096 bytes: the same model. */
        static const size_t steps[] = { 1, 7, 4096 };
        for (size_t k = 0; k < 3; k++) {
            gch_dump *p = NULL;
            assert_int_equal(load_stream(text, len, steps[k], &raw, &p, &err), GCH_OK);
            char *piped = model_text(p->heaps[0]);
            assert_string_equal(piped, v8_sample_model);
            free(piped);
            gch_dump_free(p);
        }
        free(model);
        gch_dump_free(d);
        free(text);
    }
}

/* DevTools' view of the sample, worked out by hand from HeapSnapshot.ts:
 * Global (the root's shortcut) is the one user root, so the array 9 folds
 * into Leaky 5 (32 + 100) and the hidden 17 into Leaky 7 (32 + 8); the
 * closure is a Function, (GC roots) keeps its name; Held weakly (a weak edge
 * only) hangs from the root; distances from Global (1), then from the root
 * at 100000000. */
static const char devtools_model[] =
    "1 (synthetic) 0: [1]->3 .global->25 (no strong retainer)->15\n"
    "3 (GC roots) 0: [0]->5 {strong roots}->7\n"
    "5 Leaky 132: .payload->9 [\"my label\"]->11 context ctx->13\n"
    "7 Leaky 40: {4}->17\n"
    "9 (array) 0:\n"
    "11 (string) 24:\n"
    "13 \xd0\x9a\xd0\xbb\xd1\x8e\xd1\x87 \xf0\x9f\x98\x80 16:\n"
    "15 Held weakly 40:\n"
    "17 (system) 0:\n"
    "19 (compiled code) 50:\n"
    "21 Function 64:\n"
    "23 (no name) 8:\n"
    "25 Global 40: {code}->19 .fn->21 [7]->23\n"
    "root 1 internal 0 synthetic root\n";

static void check_devtools_view(const gch_heap *h)
{
    static const int32_t dist[] = { 100000000, 100000001, 100000002, 100000002, 100000003, 100000003,
                                    100000003, -5,        100000003, 2,         2,         2, 1 };
    char *model = model_text(h);
    assert_string_equal(model, devtools_model);
    free(model);
    assert_non_null(h->v8_distance);
    for (uint32_t o = 0; o < 13; o++)
        assert_int_equal(h->v8_distance[o], dist[o]);
    assert_int_equal(h->total_size, 414);
    assert_string_equal(meta_value(h, "statistics_total"), "414");
    assert_string_equal(meta_value(h, "statistics_code"), "50");
    assert_string_equal(meta_value(h, "statistics_strings"), "24");
    assert_string_equal(meta_value(h, "statistics_system_objects"), "0"); /* folded */
    assert_string_equal(meta_value(h, "weak_only_nodes"), "1");
}

static void test_devtools_view(void **state)
{
    (void)state;
    for (int variant = 0; variant < 32; variant++) {
        size_t len;
        char *text = sample(variant, &len);
        gch_dump *d = NULL, *p = NULL;
        gch_error err;
        assert_int_equal(gch_load_buffer(text, len, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_OK);
        assert_null(heap_check_dump(d));
        check_devtools_view(d->heaps[0]);
        assert_int_equal(load_stream(text, len, 7, NULL, &p, &err), GCH_OK);
        check_devtools_view(p->heaps[0]);
        gch_dump_free(d);
        gch_dump_free(p);
        free(text);
    }
}

/* The committed fixture is what the writer makes (tests/tools/make_v8_fixtures.c). */
static void test_fixture_matches_writer(void **state)
{
    (void)state;
    size_t len;
    char *text = sample(V8_SAMPLE_FIXTURE, &len);
    FILE *fp = fopen(GCHEAP_TESTDATA "/v8/sample.heapsnapshot", "rb");
    assert_non_null(fp);
    char *file = malloc(len + 2);
    size_t got = fread(file, 1, len + 1, fp);
    fclose(fp);
    assert_int_equal(got, len);
    assert_memory_equal(file, text, len);
    free(file);
    free(text);
}

/* A node with more references than the reader hands over at a time: every
 * reference and label arrives, in order; a weak edge among them is dropped. */
static void test_node_with_many_edges(void **state)
{
    (void)state;
    enum { N = 10000 };
    static const v8w_node nodes[] = {
        { "synthetic", "", 1, 0, 0 }, { "array", "", 3, 80000, 0 },
        { "object", "A", 5, 16, 0 },  { "object", "B", 7, 24, 0 },
    };
    v8w_edge *edges = calloc(N + 1, sizeof *edges);
    edges[0] = (v8w_edge){ 0, 1, "element", NULL, 0 };
    for (unsigned i = 0; i < N; i++)
        edges[i + 1] = (v8w_edge){ 1, 2 + i % 2, i == 5000 ? "weak" : "element", i == 5000 ? "w" : NULL, i };
    v8w_spec sp = { nodes, 4, edges, N + 1, 1, 0, 0, 0, 0 };
    size_t len;
    char *text = v8w_write(&sp, &len);
    assert_non_null(text);
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(text, len, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_OK);
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->ref_count, N); /* 1 + N - 1 weak */
    assert_int_equal(h->out_start[2] - h->out_start[1], N - 1);
    uint32_t e = h->out_start[1];
    for (unsigned i = 0; i < N; i++) {
        if (i == 5000)
            continue;
        char want[16];
        snprintf(want, sizeof want, "[%u]", i);
        assert_string_equal(gch_heap_string(h, h->out_label[e]), want);
        assert_int_equal(h->out_target[e], 2 + i % 2);
        e++;
    }
    gch_dump_free(d);
    free(text);
    free(edges);
}

/* Without references (skip_refs): the same objects, types and sizes. */
static void test_skip_refs(void **state)
{
    (void)state;
    size_t len;
    char *text = sample(1, &len);
    gch_load_options o = { 0 };
    o.skip_refs = 1;
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(text, len, GCH_FORMAT_V8, &o, &d, &err), GCH_OK);
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 13);
    assert_int_equal(h->ref_count, 0);
    assert_int_equal(h->total_size, 414);
    assert_string_equal(gch_type_name(h, h->object_type[2]), "Leaky");
    assert_string_equal(gch_type_name(h, h->object_type[11]), "(no name)");
    gch_dump_free(d);
    free(text);
}

/* Every proper prefix fails with an offset within it, the same from a
 * buffer and through a pipe; no prefix crashes. */
static void test_truncation_everywhere(void **state)
{
    (void)state;
    size_t len;
    char *text = sample(16 | 1, &len); /* no blanks: the text ends with its '}' */
    for (size_t cut = 0; cut < len; cut++) {
        char *copy = malloc(cut ? cut : 1);
        memcpy(copy, text, cut);
        gch_dump *d = NULL;
        gch_error err, perr;
        gch_status st = gch_read_v8_buffer(copy, cut, NULL, &d, &err);
        assert_int_equal(st, GCH_EFORMAT);
        assert_null(d);
        assert_true(err.has_offset);
        assert_true(err.offset <= cut);
        chunks c = { copy, cut, 3 };
        gch_source src = { chunk_read, &c };
        assert_int_equal(gch_read_v8(&src, NULL, &d, &perr), GCH_EFORMAT);
        assert_int_equal(perr.offset, err.offset);
        assert_string_equal(perr.message, err.message);
        free(copy);
    }
    free(text);
}

/* Any byte replaced by any of a few: an error with an offset, or a heap that
 * passes the structural checks. */
static void test_corruption_everywhere(void **state)
{
    (void)state;
    static const char repl[] = { 'x', '9', '0', ',', ']', '[', '"', '\\', '{', '-', ' ' };
    size_t len;
    char *text = sample(1 | 4 | 16, &len);
    char *copy = malloc(len);
    for (size_t i = 0; i < len; i++) {
        for (size_t k = 0; k < sizeof repl; k++) {
            memcpy(copy, text, len);
            copy[i] = repl[k];
            gch_dump *d = NULL;
            gch_error err;
            gch_status st = gch_read_v8_buffer(copy, len, NULL, &d, &err);
            if (st == GCH_OK) {
                assert_null(heap_check_dump(d));
                gch_dump_free(d);
            } else {
                assert_true(st == GCH_EFORMAT || st == GCH_ELIMIT);
                const char *why = heap_check_error(st, d, &err, 0);
                if (why)
                    fail_msg("byte %zu = '%c': %s (status %d, '%s')", i, repl[k], why, (int)st, err.message);
                if (st == GCH_EFORMAT)
                    assert_true(err.has_offset && err.offset <= len);
            }
        }
    }
    free(copy);
    free(text);
}

/* ------------------------------------------------------------------------ */
/* Hand-written snapshots (6 node fields) for what the writer does not make. */

static const char head6[] =
    "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
    "\"trace_node_id\"],\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\","
    "\"regexp\",\"number\",\"native\",\"synthetic\"],\"string\",\"number\",\"number\",\"number\",\"number\"],"
    "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\"edge_types\":[[\"context\",\"element\","
    "\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],\"string_or_number\",\"node\"]},";

static gch_status load_text(const char *body, gch_dump **d, gch_error *err)
{
    size_t n = strlen(head6) + strlen(body) + 1;
    char *text = malloc(n);
    snprintf(text, n, "%s%s", head6, body);
    gch_status st = gch_read_v8_buffer(text, strlen(text), NULL, d, err);
    /* The stream gives the same verdict and message. */
    gch_dump *p = NULL;
    gch_error perr;
    gch_status pst = load_stream(text, strlen(text), 5, NULL, &p, &perr);
    assert_int_equal(pst, st);
    if (st != GCH_OK) {
        assert_string_equal(perr.message, err->message);
        assert_int_equal(perr.offset, err->offset);
    }
    gch_dump_free(p);
    free(text);
    return st;
}

static void expect_error(const char *body, const char *needle)
{
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = load_text(body, &d, &err);
    if (st == GCH_OK || !strstr(err.message, needle))
        fail_msg("expected an error with '%s', got %d '%s'", needle, (int)st, err.message);
    assert_null(d);
    assert_true(st != GCH_EFORMAT || err.has_offset);
}

static void test_counts_and_ranges(void **state)
{
    (void)state;
    /* Two nodes: root -> [0] object "A". */
    expect_error("\"node_count\":3,\"edge_count\":1},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "snapshot.node_count says 3");
    expect_error("\"node_count\":2,\"edge_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "snapshot.edge_count says 2");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,2,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "edge_count add up to 2");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,12],\"strings\":[\"\",\"A\"]}", "to_node 12 is not the start of a node");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,5],\"strings\":[\"\",\"A\"]}", "to_node 5 is not the start of a node");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "not a multiple of the 6 node fields");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6,1,0,6],\"strings\":[\"\",\"A\"]}", "more than the 1 edges");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,7,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "string index 7 is out of range");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,12,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "type 12 is not in snapshot.meta.node_types");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[7,0,6],\"strings\":[\"\",\"A\"]}", "type 7 is not in snapshot.meta.edge_types");
    expect_error("\"node_count\":2},\"edges\":[1,0,6],\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"strings\":[\"\",\"A\"]}", "\"edges\" before \"nodes\"");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6]}", "no \"strings\" array");
    expect_error("\"node_count\":0},\"nodes\":[],\"edges\":[],\"strings\":[]}", "no nodes");
    /* Counts the input cannot back are never allocated for: 4e9 announced
     * edges in a few bytes are a count error, not an allocation. */
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,4000000000,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "edge_count add up to 4000000000");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,4294967295,0,3,1,3,8,1,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "more than 2^32-2 edges");
    expect_error("\"root_index\":3},\"nodes\":[9,0,1,0,0,0,3,1,3,8,0,0],"
                 "\"edges\":[],\"strings\":[\"\",\"A\"]}", "root_index 3");
}

static void test_numbers(void **state)
{
    (void)state;
    gch_dump *d = NULL;
    gch_error err;
    /* 2^64-1 as an id and 2^40 as a size are kept exactly. */
    assert_int_equal(load_text("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,18446744073709551615,"
                               "1099511627776,0,0],\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", &d, &err),
                     GCH_OK);
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_id[1], UINT64_MAX);
    assert_int_equal(gch_object_size(h, 1), 1ULL << 40);
    assert_int_equal(h->out_target[0], 1);
    gch_dump_free(d);
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,18446744073709551616,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "larger than 2^64-1");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8.5,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "non-negative integer");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,-8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "negative");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,03,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "leading zero");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,0,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", "id 0");
    /* Sizes that add up past 2^64: a limit, not a wrapped total. */
    gch_status st = load_text("\"node_count\":2},\"nodes\":[9,0,1,9223372036854775808,1,0,3,1,3,"
                              "9223372036854775808,0,0],\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]}", &d, &err);
    assert_int_equal(st, GCH_ELIMIT);
    assert_null(d);
}

static void test_empty_and_strings(void **state)
{
    (void)state;
    gch_dump *d = NULL;
    gch_error err;
    /* Only the root, no edges; skipped sections of every JSON kind. */
    assert_int_equal(load_text("\"node_count\":1,\"edge_count\":0,\"title\":\"t\\u00e9\"},\"nodes\":[9,0,1,0,0,0],"
                               "\"edges\":[ ],\"samples\":[],\"x\":{\"y\":[[],{},-0.5e-3,\"\\ud83d\\ude00\"]},"
                               "\"strings\":[\"\"]}", &d, &err),
                     GCH_OK);
    gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 1);
    assert_int_equal(h->ref_count, 0);
    assert_string_equal(meta_value(h, "title"), "t\xc3\xa9");
    gch_dump_free(d);
    /* A lone surrogate becomes U+FFFD; \u escapes of every kind decode. */
    assert_int_equal(load_text("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                               "\"edges\":[2,2,6],\"strings\":[\"\",\"\\ud800x\\u0041\\/\\b\",\"p\\tq\"]}", &d, &err),
                     GCH_OK);
    h = d->heaps[0];
    assert_string_equal(gch_type_name(h, h->object_type[1]), "\xef\xbf\xbdxA/\b");
    assert_string_equal(gch_heap_string(h, h->out_label[0]), ".p\tq");
    gch_dump_free(d);
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\\q\"]}", "invalid escape");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\\u12G4\"]}", "invalid \\u escape");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"strings\":[\"\",\"A\"]} x", "data after the end");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"bad\":[1 2],\"strings\":[\"\",\"A\"]}", "expected ',' or ']'");
    expect_error("\"node_count\":2},\"nodes\":[9,0,1,0,1,0,3,1,3,8,0,0],"
                 "\"edges\":[1,0,6],\"bad\":tru,\"strings\":[\"\",\"A\"]}", "expected a value");
}

/* ------------------------------------------------------------------------ */
/* The bulk path (a buffer: v8_bulk.c, the builder's index path) against the
 * careful path (a pipe: values one by one, references resolved by id) as the
 * oracle: the same dump, or the same error at the same offset. */

/* Everything a load gives: the error, or the model, metadata and anomalies. */
static char *load_text_of(gch_status st, const gch_dump *d, const gch_error *err)
{
    if (st != GCH_OK) {
        char *s = malloc(512);
        snprintf(s, 512, "status %d offset %llu: %s", (int)st, (unsigned long long)err->offset, err->message);
        return s;
    }
    const gch_heap *h = d->heaps[0];
    char *model = model_text(h);
    size_t cap = strlen(model) + 4096, len = strlen(model);
    char *s = realloc(model, cap);
    for (size_t i = 0; i < h->meta_count; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s=%s\n", h->meta[i].key, h->meta[i].value);
    len += (size_t)snprintf(s + len, cap - len, "types %u/%u refs %llu labels %d dup %llu total %llu\n",
                            h->reported_types, h->type_count, (unsigned long long)h->ref_count, h->out_label != NULL,
                            (unsigned long long)h->anomalies.duplicate_objects, (unsigned long long)h->total_size);
    assert_true(len < cap);
    return s;
}

static void assert_bulk_equals_careful(const char *text, size_t len, const gch_load_options *o, const char *what)
{
    gch_dump *d = NULL, *p = NULL;
    gch_error err, perr;
    gch_status st = gch_read_v8_buffer(text, len, o, &d, &err);
    chunks c = { text, len, 4096 };
    gch_source src = { chunk_read, &c };
    gch_status pst = gch_read_v8(&src, o, &p, &perr);
    char *a = load_text_of(st, d, &err), *b = load_text_of(pst, p, &perr);
    if (strcmp(a, b) != 0)
        fail_msg("%s: buffer and pipe differ:\n--- buffer\n%.2000s\n--- pipe\n%.2000s", what, a, b);
    if (st == GCH_OK)
        assert_null(heap_check_dump(d));
    free(a);
    free(b);
    gch_dump_free(d);
    gch_dump_free(p);
}

/* A snapshot whose edges outweigh its nodes (so that the helper thread takes
 * part of them), with property, element, weak and shortcut edges. */
static char *many_edges(size_t *len)
{
    enum { N = 12000 };
    static const v8w_node nodes[] = {
        { "synthetic", "", 1, 0, 0 }, { "array", "", 3, 80000, 0 }, { "object", "A", 5, 16, 1 },
        { "object", "B", 7, 24, 2 },  { "string", "s", 9, 32, 0 },   { "object", "A", 11, 16, 0 },
    };
    v8w_edge *edges = calloc(N + 2, sizeof *edges);
    edges[0] = (v8w_edge){ 0, 1, "element", NULL, 0 };
    edges[1] = (v8w_edge){ 0, 5, "shortcut", "sc", 0 };
    static const char *const types[] = { "element", "property", "weak", "shortcut", "internal", "hidden" };
    static const char *const names[] = { "x", "next", "with space", "12", "x" };
    for (unsigned i = 0; i < N; i++)
        edges[i + 2] = (v8w_edge){ 1 + i % 3, 2 + i % 4, types[i % 6], names[i % 5], i % 700 };
    v8w_spec sp = { nodes, 6, edges, N + 2, 1, 0, 0, 0, 1 };
    char *text = v8w_write(&sp, len);
    assert_non_null(text);
    free(edges);
    return text;
}

/* keep_payloads: the text of each string node (GCH_PAYLOAD_TEXT in the
 * heap's pool), from a buffer (the bulk path) and from a pipe (the careful
 * one), in DevTools' view and the raw one; nothing without it. */
static void test_string_texts(void **state)
{
    (void)state;
    for (int variant = 0; variant < 32; variant += 5) {
        size_t len;
        char *text = sample(variant, &len);
        for (int k = 0; k < 4; k++) {
            gch_load_options o = { 0 };
            o.keep_payloads = 1;
            o.v8_raw = k & 1;
            gch_dump *d = NULL;
            gch_error err;
            if (k & 2)
                assert_int_equal(load_stream(text, len, 100, &o, &d, &err), GCH_OK);
            else
                assert_int_equal(gch_read_v8_buffer(text, len, &o, &d, &err), GCH_OK);
            const gch_heap *h = d->heaps[0];
            assert_true(h->payloads_kept);
            assert_int_equal(h->payload_count, 1); /* the sample's one string node */
            const gch_payload *p = gch_heap_payload(h, 11);
            assert_non_null(p);
            assert_int_equal(p->kind, GCH_PAYLOAD_TEXT);
            assert_int_equal(p->length, 14);
            assert_memory_equal(gch_heap_string(h, (uint32_t)p->offset), "hello \"world\"\n", 15);
            gch_dump_free(d);
        }
        gch_dump *d = NULL;
        gch_error err;
        assert_int_equal(gch_read_v8_buffer(text, len, NULL, &d, &err), GCH_OK);
        assert_false(d->heaps[0]->payloads_kept);
        assert_null(gch_heap_payload(d->heaps[0], 11));
        gch_dump_free(d);
        free(text);
    }
}

/* The DOM states DevTools' view keeps (gch_heap.v8_detachedness) and the
 * detached-dom rule on them: the sample's node 7 is written detached, 13
 * attached (variants with the detachedness field); without the field, or
 * with --v8-raw, no state. Node 7 is an object named Leaky, no DOM node:
 * no finding (tests/cli/test_rules_dom.sh has the Chromium ones); the path
 * through 13 labels it not leaking. */
static void test_detached_dom_rule(void **state)
{
    (void)state;
    static const char *const only[] = { "detached-dom", NULL };
    for (int variant = 0; variant < 4; variant++) {
        size_t len;
        char *text = sample(variant, &len);
        for (int raw = 0; raw < 2; raw++) {
            gch_load_options o = { 0 };
            o.v8_raw = raw;
            gch_dump *d = NULL;
            gch_error err;
            assert_int_equal(gch_read_v8_buffer(text, len, &o, &d, &err), GCH_OK);
            const gch_heap *h = d->heaps[0];
            int states = (variant & 1) && !raw;
            assert_int_equal(h->v8_detachedness != NULL, states);
            gch_rules_options ro = { only, NULL, NULL, NULL };
            gch_rule_findings f;
            assert_int_equal(gch_rules_find(h, &ro, &f, &err), GCH_OK);
            assert_int_equal(f.count, 0);
            if (states) {
                uint32_t path[2] = { GCH_NONE, GCH_NONE };
                for (uint32_t k = 0; k < h->object_count; k++) {
                    assert_int_equal(h->v8_detachedness[k],
                                     h->object_id[k] == 7 ? 2 : h->object_id[k] == 13 ? 1 : 0);
                    if (h->object_id[k] == 13)
                        path[0] = k;
                    if (h->object_id[k] == 7)
                        path[1] = k;
                }
                gch_leaking leaking[2];
                char reasons[2 * GCH_RULE_REASON_MAX];
                size_t from, to;
                assert_int_equal(gch_rules_label_path(h, &ro, path, 2, 0, leaking, reasons, &from, &to, &err),
                                 GCH_OK);
                assert_int_equal(leaking[0], GCH_LEAKING_NO);
                assert_string_equal(reasons, "detachedness is 1: attached (in a document)");
                assert_int_equal(leaking[1], GCH_LEAKING_UNKNOWN); /* detached, but no DOM node */
            }
            gch_rule_findings_free(&f);
            gch_dump_free(d);
        }
        free(text);
    }
}

static void test_bulk_equals_careful(void **state)
{
    (void)state;
    gch_tuning t = gch_tuning_get();
    t.parallel_min_refs = 1; /* the helper thread on every input */
    t.default_workers = 2;
    gch_internal_set_tuning(&t);
    gch_load_options opts[3] = { { 0 } };
    opts[1].skip_refs = 1;
    opts[2].skip_labels = 1;
    for (int variant = 0; variant < 32; variant++) {
        size_t len;
        char *text = sample(variant, &len);
        for (int k = 0; k < 3; k++)
            assert_bulk_equals_careful(text, len, &opts[k], "sample");
        free(text);
    }
    size_t len;
    char *text = many_edges(&len);
    for (int k = 0; k < 3; k++)
        assert_bulk_equals_careful(text, len, &opts[k], "many edges");
    /* Damaged here and there: types, names and targets out of range, odd
     * numbers, counts that disagree; the same verdict at the same offset. */
    static const char repl[] = { '9', '0', ',', ' ', '.', '-', ']', 'x' };
    char *copy = malloc(len);
    char what[64];
    for (size_t i = 0; i < len; i += 1 + i % 1999) {
        for (size_t r = 0; r < sizeof repl; r++) {
            memcpy(copy, text, len);
            copy[i] = repl[r];
            snprintf(what, sizeof what, "byte %zu = '%c'", i, repl[r]);
            assert_bulk_equals_careful(copy, len, &opts[r % 3], what);
        }
    }
    free(copy);
    free(text);
    /* Every byte of a small sample, as test_corruption_everywhere damages it. */
    static const char repl2[] = { 'x', '9', '0', ',', ']', '[', '"', '\\', '{', '-', ' ' };
    text = sample(1 | 4 | 16, &len);
    copy = malloc(len);
    for (size_t i = 0; i < len; i++) {
        for (size_t r = 0; r < sizeof repl2; r++) {
            memcpy(copy, text, len);
            copy[i] = repl2[r];
            snprintf(what, sizeof what, "sample byte %zu = '%c'", i, repl2[r]);
            assert_bulk_equals_careful(copy, len, NULL, what);
        }
    }
    free(copy);
    free(text);
    gch_internal_set_tuning(NULL);
}

/* Values the bulk path does not take (2^32 and more: ids, sizes, counts)
 * send it back to the careful path, which reads them. */
static void test_bulk_gives_up_on_wide_values(void **state)
{
    (void)state;
    static const v8w_node nodes[] = {
        { "synthetic", "", 1, 0, 0 },
        { "object", "Big", 5000000001ull, 6000000000ull, 0 },
        { "object", "Small", 7, 8, 0 },
    };
    static const v8w_edge edges[] = { { 0, 1, "element", NULL, 0 }, { 1, 2, "property", "p", 0 } };
    v8w_spec sp = { nodes, 3, edges, 2, 1, 0, 0, 0, 0 };
    size_t len;
    char *text = v8w_write(&sp, &len);
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_v8_buffer(text, len, NULL, &d, &err), GCH_OK);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_id[1], 5000000001ull);
    assert_int_equal(gch_object_size(h, 1), 6000000000ull);
    assert_int_equal(h->total_size, 6000000008ull);
    assert_bulk_equals_careful(text, len, NULL, "wide values");
    gch_dump_free(d);
    free(text);
}

/* Allocation failure: every allocation of a load fails in turn, in DevTools'
 * view (with references, and without: lean edges) and in the raw graph,
 * from a buffer and from a stream; each run ends
 * GCH_ENOMEM (or OK when the failed call was not needed) and frees all it
 * took. */
static void test_alloc_failure(void **state)
{
    (void)state;
    size_t len;
    char *text = sample(0, &len);
    for (int raw = 0; raw < 3; raw++)
        for (int streaming = 0; streaming < 2; streaming++)
            for (long n = 1;; n++) {
                gch_load_options o = { 0 };
                o.v8_raw = raw == 1;
                o.skip_refs = raw == 2; /* DevTools' view with lean edges (from a buffer) */
                fail_alloc_install(n);
                gch_dump *d = NULL;
                gch_error err;
                gch_status st = streaming ? load_stream(text, len, 64, &o, &d, &err)
                                          : gch_read_v8_buffer(text, len, &o, &d, &err);
                gch_dump_free(d);
                fail_alloc_remove();
                if (fail_alloc.live != 0 || (fail_alloc.hit && st != GCH_OK && st != GCH_ENOMEM) ||
                    (!fail_alloc.hit && st != GCH_OK)) {
                    free(text);
                    fail_msg("allocation %ld failed (raw %d, streaming %d): status %d (%s), %ld blocks leaked", n,
                             raw, streaming, (int)st, st == GCH_OK ? "" : err.message, fail_alloc.live);
                }
                if (!fail_alloc.hit)
                    break;
            }
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_model_every_variant),
        cmocka_unit_test(test_devtools_view),
        cmocka_unit_test(test_alloc_failure),
        cmocka_unit_test(test_fixture_matches_writer),
        cmocka_unit_test(test_node_with_many_edges),
        cmocka_unit_test(test_skip_refs),
        cmocka_unit_test(test_truncation_everywhere),
        cmocka_unit_test(test_corruption_everywhere),
        cmocka_unit_test(test_counts_and_ranges),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_empty_and_strings),
        cmocka_unit_test(test_bulk_equals_careful),
        cmocka_unit_test(test_bulk_gives_up_on_wide_values),
        cmocka_unit_test(test_string_texts),
        cmocka_unit_test(test_detached_dom_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
