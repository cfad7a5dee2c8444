/* The .gcdump reader on the real files in the shared corpus, checked against
 * oracles that share no code with the reader: a separate simple decoder of the
 * MemoryGraph (tests/support/gcdump_oracle.c) for every file, and PerfView's
 * own XML listing of every node for perfview-test1. Tests skip when the
 * corpus is absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcdump_oracle.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "xml_nodes.h"

#define CORPUS_DIR GCHEAP_CORPUS "/gcdump/"

typedef struct loaded {
    unsigned char *data;
    size_t size;
    gch_dump *dump;
    gch_heap *heap;
    gco_graph oracle;
} loaded;

/* Loads a corpus file through the reader and the oracle; 0 when absent. */
static int load(const char *name, const gch_load_options *opts, loaded *l)
{
    char path[1024];
    snprintf(path, sizeof path, "%s%s", CORPUS_DIR, name);
    memset(l, 0, sizeof *l);
    if (gco_read_file(path, &l->data, &l->size) != 0) {
        print_message("corpus file %s is absent: skipping\n", path);
        return 0;
    }
    gch_error err;
    gch_status st = gch_read_gcdump_buffer(l->data, l->size, opts, &l->dump, &err);
    if (st != GCH_OK)
        fail_msg("%s: offset %llu: %s", name, (unsigned long long)err.offset, err.message);
    assert_int_equal(l->dump->heap_count, 1);
    l->heap = l->dump->heaps[0];
    assert_int_equal(gco_load(l->data, l->size, &l->oracle), 0);
    return 1;
}

static void unload(loaded *l)
{
    gch_dump_free(l->dump);
    gco_free(&l->oracle);
    free(l->data);
}

static int is_object(const gco_graph *g, uint32_t i)
{
    return g->node_address[i] != 0 && g->node_defined[i] && i != g->root;
}

/* ---- per-type histogram comparison ---- */

typedef struct type_row {
    char *name;
    uint64_t count, bytes;
} type_row;

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const type_row *)a)->name, ((const type_row *)b)->name);
}

/* Groups (name, size) pairs into rows sorted by name. */
static size_t group_rows(type_row *rows, size_t n)
{
    qsort(rows, n, sizeof *rows, row_cmp);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w > 0 && strcmp(rows[w - 1].name, rows[i].name) == 0) {
            rows[w - 1].count += rows[i].count;
            rows[w - 1].bytes += rows[i].bytes;
            free(rows[i].name);
        } else
            rows[w++] = rows[i];
    }
    return w;
}

static void check_histogram(const loaded *l, int size_buckets)
{
    const gco_graph *g = &l->oracle;
    const gch_heap *h = l->heap;
    type_row *want = calloc(g->node_count + 1, sizeof *want);
    type_row *got = calloc(h->object_count + 1, sizeof *got);
    size_t nw = 0, ng = 0;
    for (uint32_t i = 0; i < g->node_count; i++) {
        if (!is_object(g, i))
            continue;
        const char *name = g->type_names[g->node_type[i]];
        want[nw].name = size_buckets ? strdup(name) : gco_strip_bucket(name);
        want[nw].count = 1;
        want[nw++].bytes = g->node_size[i];
    }
    for (uint32_t i = 0; i < h->object_count; i++) {
        got[ng].name = strdup(gch_type_name(h, h->object_type[i]));
        got[ng].count = 1;
        got[ng++].bytes = gch_object_size(h, i);
    }
    nw = group_rows(want, nw);
    ng = group_rows(got, ng);
    assert_int_equal(ng, nw);
    for (size_t k = 0; k < nw; k++) {
        assert_string_equal(got[k].name, want[k].name);
        assert_int_equal(got[k].count, want[k].count);
        assert_int_equal(got[k].bytes, want[k].bytes);
    }
    /* One builder type per distinct shown name. */
    assert_int_equal(h->type_count, nw);
    for (size_t k = 0; k < nw; k++) {
        free(want[k].name);
        free(got[k].name);
    }
    free(want);
    free(got);
}

/* ---- per-object comparison ---- */

static const gch_heap *sort_heap;

static int by_id(const void *a, const void *b)
{
    uint64_t x = sort_heap->object_id[*(const uint32_t *)a], y = sort_heap->object_id[*(const uint32_t *)b];
    return x < y ? -1 : x > y;
}

/* Object indices sorted by id, for binary search. */
static uint32_t *index_by_id(const gch_heap *h)
{
    uint32_t *idx = malloc((h->object_count + 1) * sizeof *idx);
    for (uint32_t i = 0; i < h->object_count; i++)
        idx[i] = i;
    sort_heap = h;
    qsort(idx, h->object_count, sizeof *idx, by_id);
    return idx;
}

static uint32_t lookup(const gch_heap *h, const uint32_t *idx, uint64_t id)
{
    size_t lo = 0, hi = h->object_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v = h->object_id[idx[mid]];
        if (v == id)
            return idx[mid];
        if (v < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return GCH_NONE;
}

/* Every object node: same size, same type name, same references (children
 * that are objects, in order); roots: one per edge from a pseudo-node to an
 * object (in these files every address-0 node hangs under the root). */
static void check_objects_and_roots(const loaded *l)
{
    const gco_graph *g = &l->oracle;
    const gch_heap *h = l->heap;
    uint32_t *idx = index_by_id(h);
    uint64_t objects = 0, bytes = 0, node_bytes = 0, root_edges = 0, dangling = 0;
    for (uint32_t i = 0; i < g->node_count; i++) {
        node_bytes += g->node_size[i];
        int pseudo = g->node_address[i] == 0;
        if (pseudo) {
            for (uint32_t k = g->child_start[i]; k < g->child_start[i + 1]; k++)
                root_edges += g->node_address[g->children[k]] != 0;
            continue;
        }
        if (!is_object(g, i))
            continue;
        objects++;
        bytes += g->node_size[i];
        uint32_t o = lookup(h, idx, g->node_address[i]);
        assert_int_not_equal(o, GCH_NONE);
        assert_int_equal(gch_object_size(h, o), g->node_size[i]);
        char *shown = gco_strip_bucket(g->type_names[g->node_type[i]]);
        assert_string_equal(gch_type_name(h, h->object_type[o]), shown);
        free(shown);
        uint32_t r = h->out_start[o];
        for (uint32_t k = g->child_start[i]; k < g->child_start[i + 1]; k++) {
            uint32_t c = g->children[k];
            if (g->node_address[c] == 0)
                continue;
            if (!g->node_defined[c]) {
                dangling++;
                continue;
            }
            assert_true(r < h->out_start[o + 1]);
            assert_int_equal(h->object_id[h->out_target[r]], g->node_address[c]);
            r++;
        }
        assert_int_equal(r, h->out_start[o + 1]);
    }
    assert_int_equal(node_bytes, (uint64_t)g->total_size); /* the file is self-consistent */
    assert_int_equal(h->object_count, objects);
    assert_int_equal(h->total_size, bytes);
    assert_int_equal(h->root_count, root_edges);
    assert_int_equal(h->anomalies.dangling_refs, dangling);
    free(idx);
}

static const char *meta_value(const gch_heap *h, const char *key)
{
    for (size_t i = 0; i < h->meta_count; i++)
        if (strcmp(h->meta[i].key, key) == 0)
            return h->meta[i].value;
    return NULL;
}

static void check_file(const char *name, uint32_t nodes, int64_t total)
{
    gch_load_options opts = { 0 };
    loaded l;
    if (!load(name, &opts, &l)) {
        skip();
        return;
    }
    /* Node counts and totals as the files' headers record them (checked by hand). */
    assert_int_equal(l.oracle.node_count, nodes);
    assert_int_equal(l.oracle.total_size, total);
    char want[64];
    snprintf(want, sizeof want, "%lld bytes", (long long)total);
    assert_string_equal(meta_value(l.heap, "total size recorded"), want);
    check_objects_and_roots(&l);
    check_histogram(&l, 0);
    unload(&l);

    opts.size_buckets = 1;
    if (load(name, &opts, &l)) {
        check_histogram(&l, 1);
        unload(&l);
    }
}

static void test_leakypage(void **state)
{
    (void)state;
    check_file("gcdump-analyze-leakypage.gcdump", 19811, 1286952);
}

static void test_perfview_test1(void **state)
{
    (void)state;
    check_file("perfview-test1.gcdump", 6482, 1009270);
}

static void test_perfview_test2(void **state)
{
    (void)state;
    check_file("perfview-test2.gcdump", 140391, 4147128);
}

static void test_leakypage_facts(void **state)
{
    (void)state;
    gch_load_options opts = { 0 };
    loaded l;
    if (!load("gcdump-analyze-leakypage.gcdump", &opts, &l)) {
        skip();
        return;
    }
    const gch_heap *h = l.heap;
    assert_string_equal(h->name, "gcdump"); /* no process name recorded */
    assert_string_equal(meta_value(h, "creating tool"), "dotnet-gcdump");
    assert_string_equal(meta_value(h, "pointer size"), "8 bytes (64-bit process)");
    /* Static roots name their field. */
    int found = 0;
    for (uint32_t r = 0; r < h->root_count; r++)
        if (strcmp(gch_heap_string(h, h->root_label[r]), "[static var Android.Content.Intent._members]") == 0) {
            assert_int_equal(h->root_kind[r], GCH_ROOT_STATIC);
            found++;
        }
    assert_int_equal(found, 1);
    unload(&l);
}

/* ---- liveness and roots ---- */

typedef struct root_row {
    unsigned kind, flags;
    uint64_t count, bytes;
} root_row;

/* The live set (strong roots) equals the heap objects the oracle reaches from
 * the root node through every edge, and the roots break down by kind and flags
 * as listed (rows: the pseudo-node categories' object edges, summed by hand
 * from the oracle's graph). */
static void check_liveness(const char *name, const root_row *rows, size_t row_count,
                           uint64_t want_live, uint64_t want_live_bytes)
{
    gch_load_options opts = { 0 };
    loaded l;
    if (!load(name, &opts, &l)) {
        skip();
        return;
    }
    const gch_heap *h = l.heap;
    uint64_t objects = 0, bytes = 0, live = 0, live_bytes = 0;
    gco_reachable(&l.oracle, &objects, &bytes);
    assert_int_equal(objects, want_live);
    assert_int_equal(bytes, want_live_bytes);
    uint8_t *mark = NULL;
    gch_error err;
    assert_int_equal(gch_live_set(h, 0, &mark, &live, &live_bytes, &err), GCH_OK);
    assert_int_equal(live, objects);
    assert_int_equal(live_bytes, bytes);
    gch_free(mark);

    uint64_t seen = 0;
    for (size_t k = 0; k < row_count; k++) {
        uint64_t count = 0, sum = 0;
        for (uint32_t r = 0; r < h->root_count; r++) {
            if (h->root_kind[r] != rows[k].kind || h->root_flags[r] != rows[k].flags)
                continue;
            count++;
            if (h->root_object[r] != GCH_NONE)
                sum += gch_object_size(h, h->root_object[r]);
        }
        assert_int_equal(count, rows[k].count);
        assert_int_equal(sum, rows[k].bytes);
        seen += count;
    }
    assert_int_equal(seen, h->root_count);
    unload(&l);
}

#define ROWS(a) a, sizeof a / sizeof *a

static void test_leakypage_liveness(void **state)
{
    (void)state;
    /* [strong Handles] 29 + [other Handles] 6251 + [Dependent Handles] 22 under
     * [other roots]; 118 objects (Android peers kept by the Java side) are not
     * reachable from the root at all. */
    static const root_row rows[] = {
        { GCH_ROOT_LOCAL, 0, 57, 11872 },
        { GCH_ROOT_FINALIZER, 0, 6, 912 },
        { GCH_ROOT_HANDLE, 0, 6302, 377136 },
        { GCH_ROOT_STATIC, 0, 1754, 152920 },
    };
    check_liveness("gcdump-analyze-leakypage.gcdump", ROWS(rows), 17930, 1278096);
}

static void test_perfview_test1_liveness(void **state)
{
    (void)state;
    static const root_row rows[] = { { GCH_ROOT_RUNTIME, 0, 2, 512 } };
    check_liveness("perfview-test1.gcdump", ROWS(rows), 6481, 1009270);
}

static void test_perfview_test2_liveness(void **state)
{
    (void)state;
    /* PerfView's dumper walks the segments, dead objects included: 123,473
     * objects (3,458,012 bytes) are not reachable from the root. The 2 pinned
     * local vars name nodes never defined. */
    static const root_row rows[] = {
        { GCH_ROOT_LOCAL, 0, 3, 1164 },
        { GCH_ROOT_LOCAL, GCH_ROOT_PINNED, 2, 0 },
        { GCH_ROOT_HANDLE, 0, 22, 1276 },
        { GCH_ROOT_HANDLE, GCH_ROOT_PINNED, 9, 70528 },
        { GCH_ROOT_STATIC, 0, 2148, 70428 },
        { GCH_ROOT_RUNTIME, 0, 8, 1600 }, /* [COM/WinRT Objects] */
    };
    check_liveness("perfview-test2.gcdump", ROWS(rows), 14745, 689116);
}

/* perfview-test1 against PerfView's XML listing of every node. */
static void test_perfview_test1_xml(void **state)
{
    (void)state;
    xml_graph x;
    int rc = xml_graph_load(CORPUS_DIR "perfview-test1.baseline.xml", &x);
    if (rc == -1) {
        print_message("perfview-test1.baseline.xml is absent: skipping\n");
        skip();
        return;
    }
    assert_int_equal(rc, 0);
    gch_load_options opts = { 0 };
    loaded l;
    if (!load("perfview-test1.gcdump", &opts, &l)) {
        xml_graph_free(&x);
        skip();
        return;
    }
    const gch_heap *h = l.heap;
    uint32_t *idx = index_by_id(h);
    assert_int_equal(x.node_count, 6482);
    uint64_t *address = malloc(x.node_count * sizeof *address);
    for (size_t i = 0; i < x.node_count; i++) {
        assert_int_equal(x.nodes[i].index, i);
        address[i] = x.nodes[i].address;
    }
    size_t objects = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < x.node_count; i++) {
        const xml_node *n = &x.nodes[i];
        assert_int_equal(n->child_count, n->num_children);
        if (n->address == 0) {
            /* The root, [JS Roots]: each child is a root labeled with its name. */
            assert_int_equal(i, x.root_index);
            assert_int_equal(h->root_count, n->child_count);
            for (size_t k = 0; k < n->child_count; k++) {
                assert_int_equal(h->root_raw_id[k], address[x.children[n->child_start + k]]);
                assert_int_equal(h->root_kind[k], GCH_ROOT_RUNTIME);
                assert_string_equal(gch_heap_string(h, h->root_label[k]), n->type);
            }
            continue;
        }
        objects++;
        bytes += n->size;
        uint32_t o = lookup(h, idx, n->address);
        assert_int_not_equal(o, GCH_NONE);
        assert_string_equal(gch_type_name(h, h->object_type[o]), n->type);
        assert_int_equal(gch_object_size(h, o), n->size);
        assert_int_equal(h->out_start[o + 1] - h->out_start[o], n->child_count);
        for (size_t k = 0; k < n->child_count; k++)
            assert_int_equal(h->object_id[h->out_target[h->out_start[o] + k]],
                             address[x.children[n->child_start + k]]);
    }
    assert_int_equal(h->object_count, objects);
    assert_int_equal(h->total_size, bytes);
    assert_int_equal((int64_t)bytes, x.total_size);
    free(address);
    free(idx);
    unload(&l);
    xml_graph_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_leakypage),
        cmocka_unit_test(test_perfview_test1),
        cmocka_unit_test(test_perfview_test2),
        cmocka_unit_test(test_leakypage_facts),
        cmocka_unit_test(test_perfview_test1_xml),
        cmocka_unit_test(test_leakypage_liveness),
        cmocka_unit_test(test_perfview_test1_liveness),
        cmocka_unit_test(test_perfview_test2_liveness),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
