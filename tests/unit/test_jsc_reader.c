/* Tests of the JavaScriptCore heap snapshot reader on hand-written snapshots
 * whose model is worked out by hand below (docs/jsc-format.md gives the
 * rules): objects, labels, roots, weak roots of unreachable nodes, the
 * internal-only class; the same from a buffer and through a pipe in small
 * reads; a GCDebugging snapshot's roots and reasons; every truncation and
 * every corrupted byte (errors at offsets, never a crash); bad indexes,
 * huge numbers, repeated and missing members. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "chunks.h"
#include "fail_alloc.h"

#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "heap_check.h"

/* <root> 0; GlobalObject 1; Object 2 (global.keep); Leaky 3; Structure 4
 * (internal); string 5; Leaky 6 that nothing reaches. */
static const char inspector[] =
    "{\"version\":3,\"type\":\"Inspector\",\"nodes\":[0,0,0,0,1,100,1,0,2,16,2,2,3,32,3,2,"
    "4,64,4,1,5,8,5,0,6,32,3,2],"
    "\"nodeClassNames\":[\"<root>\",\"GlobalObject\",\"Object\",\"Leaky\",\"Structure\",\"string\"],"
    "\"edges\":[0,1,0,0,0,4,0,0,1,2,1,0,2,3,1,1,2,5,2,7,3,4,0,0,3,5,3,2,6,3,1,0],"
    "\"edgeTypes\":[\"Internal\",\"Property\",\"Index\",\"Variable\"],"
    "\"edgeNames\":[\"keep\",\"a b\",\"x\"]}";

/* By hand: id type size: label->target ...; then the roots. */
static const char inspector_model[] =
    "1 GlobalObject 100: .keep->2\n"
    "2 Object 16: [\"a b\"]->3 [7]->5\n"
    "3 Leaky 32: (internal)->4 var x->5\n"
    "4 Structure 64:\n"
    "5 string 8:\n"
    "6 Leaky 32: .keep->3\n"
    "root 1 internal 0 -\n"
    "root 4 internal 0 -\n"
    "root 6 internal 2 unreachable from <root>\n";

static char *model_text(const gch_heap *h)
{
    size_t cap = 4096 + 128 * ((size_t)h->object_count + h->ref_count + h->root_count), len = 0;
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
            h->root_flags[r], h->root_label[r] == GCH_NONE ? "-" : gch_heap_string(h, h->root_label[r]));
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

static gch_status load_stream(const char *text, size_t len, size_t step, gch_dump **out, gch_error *err)
{
    chunks c = { text, len, step };
    gch_source src = { chunk_read, &c };
    return gch_load(&src, GCH_FORMAT_AUTO, NULL, out, err);
}

static void test_inspector_model(void **state)
{
    (void)state;
    size_t len = sizeof inspector - 1;
    assert_int_equal(gch_detect_format(inspector, len), GCH_FORMAT_JSC);
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(inspector, len, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_OK);
    assert_string_equal(d->format, "jsc");
    assert_false(d->ids_stable); /* Bun renumbers every snapshot */
    assert_null(heap_check_dump(d));
    gch_heap *h = d->heaps[0];
    char *model = model_text(h);
    assert_string_equal(model, inspector_model);
    free(model);
    assert_int_equal(h->id_radix, 10);
    assert_int_equal(h->total_size, 100 + 16 + 32 + 64 + 8 + 32);
    assert_string_equal(meta_value(h, "version"), "3");
    assert_string_equal(meta_value(h, "internal_objects"), "1");
    assert_string_equal(meta_value(h, "internal_only_classes"), "1");
    assert_string_equal(meta_value(h, "unreachable_nodes"), "1");
    assert_string_equal(meta_value(h, "root_edges"), "2");
    /* Structure, every instance internal, carries the module "internal"; Leaky none. */
    for (uint32_t t = 0; t < h->type_count; t++) {
        const char *name = gch_type_name(h, t);
        int internal = h->type_module[t] != GCH_NONE && strcmp(gch_heap_string(h, h->type_module[t]), "internal") == 0;
        assert_int_equal(internal, strcmp(name, "Structure") == 0);
    }
    gch_dump_free(d);
    static const size_t steps[] = { 1, 3, 7, 4096 };
    for (size_t k = 0; k < 4; k++) {
        gch_dump *p = NULL;
        assert_int_equal(load_stream(inspector, len, steps[k], &p, &err), GCH_OK);
        char *piped = model_text(p->heaps[0]);
        assert_string_equal(piped, inspector_model);
        free(piped);
        gch_dump_free(p);
    }
}

static void test_skip_refs_and_labels(void **state)
{
    (void)state;
    gch_load_options o = { 0 };
    o.skip_labels = 1;
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(inspector, sizeof inspector - 1, GCH_FORMAT_JSC, &o, &d, &err), GCH_OK);
    assert_null(d->heaps[0]->out_label);
    assert_int_equal(d->heaps[0]->ref_count, 6);
    gch_dump_free(d);
    o.skip_refs = 1;
    assert_int_equal(gch_load_buffer(inspector, sizeof inspector - 1, GCH_FORMAT_JSC, &o, &d, &err), GCH_OK);
    assert_int_equal(d->heaps[0]->ref_count, 0);
    assert_int_equal(d->heaps[0]->object_count, 6);
    assert_int_equal(d->heaps[0]->root_count, 3);
    gch_dump_free(d);
}

/* GCDebugging: 7 fields a node, roots with reasons from labels. Node 2 is
 * listed twice (two reasons) and is no <root> edge; node 1 is a <root> edge
 * the list names; node 3 a <root> edge it does not. */
static const char debugging[] =
    "{\"version\":3,\"type\":\"GCDebugging\",\"nodes\":[0,0,0,0,0,\"0x0\",\"0x0\","
    "1,40,1,0,1,\"0x10\",\"0x0\",2,24,2,1,0,\"0x20\",\"0x0\",3,8,2,1,0,\"0x30\",\"0x0\"],"
    "\"nodeClassNames\":[\"<root>\",\"Function\",\"Structure\"],"
    "\"edges\":[0,1,0,0,0,3,0,0,1,2,0,0],\"edgeTypes\":[\"Internal\",\"Property\",\"Index\",\"Variable\"],"
    "\"edgeNames\":[],\"roots\":[1,2,0,2,3,4,2,5,0],"
    "\"labels\":[\"\",\"f\",\"Strong Handles\",\"Conservative Scan\",\"opaque root\",\"Weak Sets\"]}";
static const char debugging_model[] =
    "1 Function 40: (internal)->2\n"
    "2 Structure 24:\n"
    "3 Structure 8:\n"
    "root 1 handle 0 Strong Handles\n"
    "root 2 local 0 Conservative Scan (opaque root)\n"
    "root 2 internal 0 Weak Sets\n"
    "root 3 internal 0 -\n";

static void test_gc_debugging(void **state)
{
    (void)state;
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(debugging, sizeof debugging - 1, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_OK);
    char *model = model_text(d->heaps[0]);
    assert_string_equal(model, debugging_model);
    free(model);
    assert_string_equal(meta_value(d->heaps[0], "type"), "GCDebugging");
    assert_string_equal(meta_value(d->heaps[0], "listed_roots"), "3");
    gch_dump_free(d);
}

/* Every prefix is an error at an offset within it; every corrupted byte
 * either loads or fails cleanly. */
static void test_truncation_and_corruption(void **state)
{
    (void)state;
    const char *texts[] = { inspector, debugging };
    for (int t = 0; t < 2; t++) {
        size_t len = strlen(texts[t]);
        char *buf = malloc(len + 1);
        for (size_t cut = 0; cut < len; cut++) {
            memcpy(buf, texts[t], cut);
            gch_dump *d = NULL;
            gch_error err;
            gch_status st = gch_read_jsc_buffer(buf, cut, NULL, &d, &err);
            assert_int_equal(st, GCH_EFORMAT);
            assert_true(err.offset <= cut);
            assert_null(d);
            st = load_stream(buf, cut, 5, &d, &err);
            assert_int_not_equal(st, GCH_OK);
        }
        for (size_t at = 0; at < len; at++) {
            static const char bytes[] = { '9', '"', ']', '}', ',', '-', 0 };
            for (size_t k = 0; k < sizeof bytes; k++) {
                memcpy(buf, texts[t], len);
                buf[at] = bytes[k];
                gch_dump *d = NULL;
                gch_error err;
                gch_status st = gch_read_jsc_buffer(buf, len, NULL, &d, &err);
                if (st == GCH_OK) {
                    assert_null(heap_check_dump(d));
                    gch_dump_free(d);
                } else {
                    assert_true(st == GCH_EFORMAT || st == GCH_ELIMIT);
                }
            }
        }
        free(buf);
    }
}

static void expect_error(const char *text, const char *needle)
{
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = gch_read_jsc_buffer(text, strlen(text), NULL, &d, &err);
    if (st != GCH_EFORMAT || !strstr(err.message, needle))
        fail_msg("%s: got %d '%s', expected '%s'", text, st, st == GCH_OK ? "" : err.message, needle);
    assert_null(d);
}

#define TAIL "\"edgeTypes\":[\"Internal\",\"Property\",\"Index\",\"Variable\"],\"edgeNames\":[\"n\"]}"
static void test_hostile(void **state)
{
    (void)state;
    expect_error("{\"version\":3,\"nodes\":[0,0,0,0,1,8,5,0],\"nodeClassNames\":[\"<root>\"],\"edges\":[]," TAIL,
                 "class name index 5");
    expect_error("{\"version\":3,\"nodes\":[0,0,0,0,1,8,0,0],\"nodeClassNames\":[\"a\"],\"edges\":[1,0,9,0]," TAIL,
                 "edge type index 9");
    expect_error("{\"version\":3,\"nodes\":[0,0,0,0,1,8,0,0],\"nodeClassNames\":[\"a\"],\"edges\":[1,0,99,0]," TAIL,
                 "edge type index 99 is out of range");
    expect_error("{\"version\":3,\"nodes\":[0,0,0,0,1,8,0,0],\"nodeClassNames\":[\"a\"],\"edges\":[1,0,1,7]," TAIL,
                 "edge name index 7");
    expect_error("{\"version\":3,\"nodes\":[0,0,0,0,1,8,0,0],\"nodeClassNames\":[\"a\"],\"edges\":[1,0,2,4294967296]," TAIL,
                 "more than 32 bits");
    expect_error("{\"version\":3,\"nodes\":[0,0,0,0,1,8,0],\"nodeClassNames\":[\"a\"],\"edges\":[]," TAIL,
                 "not a multiple");
    expect_error("{\"version\":3,\"nodes\":[0,0,0,0,1,8,0,256],\"nodeClassNames\":[\"a\"],\"edges\":[]," TAIL,
                 "not a flag set");
    expect_error("{\"version\":3,\"nodes\":[0,99999999999999999999999,0,0],\"nodeClassNames\":[\"a\"],\"edges\":[]," TAIL,
                 "");
    expect_error("{\"version\":7,\"nodes\":[]}", "version 7");
    expect_error("{\"version\":3,\"nodes\":[0,0,4294967296,0]}", "class name index 4294967296 is out of range");
    expect_error("{\"version\":3,\"roots\":[1,4294967296,0]}", "label index out of range");
    expect_error("{\"version\":3,\"version\":3}", "appears twice");
    expect_error("{\"version\":3,\"nodes\":[],\"edges\":[]," TAIL, "no \"nodeClassNames\"");
    expect_error("{\"version\":3,\"type\":\"Other\"}", "snapshot type");
    expect_error("{\"version\":3,\"nodes\":[],\"type\":\"GCDebugging\"}", "after \"nodes\"");
    expect_error("{\"version\":3,\"nodes\":[],\"nodeClassNames\":[],\"edges\":[]," TAIL " x", "after the heap snapshot");
    expect_error("{\"version\":3,\"type\":\"GCDebugging\",\"nodes\":[0,0,0,0,3,\"0x0\",\"0x0\"],"
                 "\"nodeClassNames\":[\"a\"],\"edges\":[]," TAIL, "node label index 3");
    expect_error("{\"version\":3,\"nodes\":[],\"nodeClassNames\":[],\"edges\":[],\"roots\":[1,2,0],"
                 "\"labels\":[\"\"]," TAIL, "root reason index 2");
    /* Edges between unknown nodes are counted, not trusted. */
    const char *odd = "{\"version\":2,\"nodes\":[0,0,0,0,1,8,0,0],\"nodeClassNames\":[\"a\"],"
                      "\"edges\":[7,1,0,0,1,8,0,0,1,0,0,0,0,1,0,0]," TAIL;
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_jsc_buffer(odd, strlen(odd), NULL, &d, &err), GCH_OK);
    assert_string_equal(meta_value(d->heaps[0], "edges_from_unknown_nodes"), "1");
    assert_string_equal(meta_value(d->heaps[0], "edges_to_unknown_nodes"), "1");
    assert_string_equal(meta_value(d->heaps[0], "edges_to_root"), "1");
    assert_int_equal(d->heaps[0]->object_count, 1);
    gch_dump_free(d);
}

/* Ids far apart (past 8 a node): the sort and binary search instead of the
 * table by id; the same model with the ids renamed. */
static void test_sparse_ids(void **state)
{
    (void)state;
    char text[1024], model[1024];
    snprintf(text, sizeof text,
             "{\"version\":3,\"nodes\":[0,0,0,0,7000001,100,1,0,9000002,16,2,2,5000003,32,2,2],"
             "\"nodeClassNames\":[\"<root>\",\"GlobalObject\",\"Leaky\"],"
             "\"edges\":[0,7000001,0,0,7000001,9000002,1,0,9000002,5000003,2,4,5000003,9000002,2,0,5000003,42,0,0],"
             "\"edgeTypes\":[\"Internal\",\"Property\",\"Index\",\"Variable\"],\"edgeNames\":[\"k\"]}");
    snprintf(model, sizeof model, "7000001 GlobalObject 100: .k->9000002\n9000002 Leaky 16: [4]->5000003\n"
             "5000003 Leaky 32: [0]->9000002\nroot 7000001 internal 0 -\n");
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_jsc_buffer(text, strlen(text), NULL, &d, &err), GCH_OK);
    char *got = model_text(d->heaps[0]);
    assert_string_equal(got, model);
    assert_string_equal(meta_value(d->heaps[0], "edges_to_unknown_nodes"), "1");
    free(got);
    gch_dump_free(d);
}

/* Allocation failure: every allocation of a load fails in turn; each run
 * ends GCH_ENOMEM (or OK when only a shrink failed) and frees all it took. */
static void test_alloc_failure(void **state)
{
    (void)state;
    const char *texts[] = { inspector, debugging };
    for (int t = 0; t < 2; t++)
        for (int streaming = 0; streaming < 2; streaming++)
            for (long n = 1;; n++) {
                fail_alloc_install(n);
                gch_dump *d = NULL;
                gch_error err;
                size_t len = strlen(texts[t]);
                gch_status st = streaming ? load_stream(texts[t], len, 16, &d, &err)
                                          : gch_read_jsc_buffer(texts[t], len, NULL, &d, &err);
                gch_dump_free(d);
                fail_alloc_remove();
                if (fail_alloc.live != 0)
                    fail_msg("allocation %ld failed: %ld blocks leaked", n, fail_alloc.live);
                if (!fail_alloc.hit) {
                    assert_int_equal(st, GCH_OK);
                    break;
                }
                if (st != GCH_OK && st != GCH_ENOMEM)
                    fail_msg("allocation %ld failed: status %d", n, (int)st);
            }
}

static void test_detection(void **state)
{
    (void)state;
    assert_int_equal(gch_detect_format("{\"version\":3,\"type\"", 19), GCH_FORMAT_JSC);
    assert_int_equal(gch_detect_format(" {\n \"version\" : 1", 17), GCH_FORMAT_JSC);
    assert_int_equal(gch_detect_format("{\"snapshot\":{", 13), GCH_FORMAT_V8);
    assert_int_not_equal(gch_detect_format("{\"versions\":3", 13), GCH_FORMAT_JSC);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_inspector_model),
        cmocka_unit_test(test_skip_refs_and_labels),
        cmocka_unit_test(test_gc_debugging),
        cmocka_unit_test(test_truncation_and_corruption),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_sparse_ids),
        cmocka_unit_test(test_alloc_failure),
        cmocka_unit_test(test_detection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
