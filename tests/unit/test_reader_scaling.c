/* Every reader at four sizes (issue 36, docs/reliability.md "Bounds per
 * reader"): a chain of n objects (each referring to the next, one root),
 * written by each format's test writer, loaded at n, 2n, 4n and 8n. Time
 * must grow near-linearly (flood_assert_scaling: 8n under 16 times n) and
 * the library's peak of live allocations must stay under a fixed multiple
 * of the input at every size (the multiple per format is in the table
 * below: the model holds about 40 bytes an object, a .gclog line is ~20
 * bytes). Each load is checked for its object and reference counts. Label:
 * slow. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "dart_writer.h"
#include "flood.h"
#include "gcdump_writer.h"
#include "hprof_writer.h"
#include "text_buf.h"
#include "v8_writer.h"

typedef struct input {
    unsigned char *data;
    size_t size, n;
} input;

typedef struct series {
    input in[4];
    gch_format format;
} series;

/* ---- the writers: a chain of n objects ---- */

static input chain_gclog(size_t n)
{
    text t;
    memset(&t, 0, sizeof t);
    text_add(&t, "a 2 chain\nt 1 Node\n");
    for (size_t i = 0; i < n; i++)
        text_add(&t, "o %zx 1 24 %zx\n", 16 * (i + 1), i + 1 < n ? 16 * (i + 2) : (size_t)0);
    text_add(&t, "r 10 1 0\nc chain\n");
    input in = { (unsigned char *)t.s, t.len, n };
    return in;
}

static input chain_hprof(size_t n)
{
    hpw *w = hpw_new("1.0.2", 8, 0);
    hpw_string(w, 1, "Node");
    hpw_string(w, 2, "next");
    hpw_load_class(w, 1, 0x100, 1);
    hpw_begin(w, 0x1C);
    const hpw_field f = { 2, 2, 0 };
    hpw_class_dump(w, 0x100, 0, 0, 8, NULL, 0, &f, 1);
    hpw_root(w, 0x01, 0x1000, 0, 0);
    unsigned char v[8];
    for (size_t i = 0; i < n; i++) {
        hpw_value(w, 2, i + 1 < n ? 0x1000 + 16 * (i + 1) : 0, v);
        hpw_instance(w, 0x1000 + 16 * i, 0x100, v, 8);
    }
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    input in = { malloc(w->len), w->len, n };
    assert_non_null(in.data);
    memcpy(in.data, w->buf, w->len);
    hpw_free(w);
    return in;
}

static input chain_v8(size_t n)
{
    v8w_node *nodes = calloc(n + 1, sizeof *nodes);
    v8w_edge *edges = calloc(n, sizeof *edges);
    assert_true(nodes && edges);
    nodes[0] = (v8w_node){ "synthetic", "(GC roots)", 1, 0, 0 };
    edges[0] = (v8w_edge){ 0, 1, "element", NULL, 1 };
    for (size_t i = 1; i <= n; i++) {
        nodes[i] = (v8w_node){ "object", "Node", 2 * i + 1, 24, 0 };
        if (i < n)
            edges[i] = (v8w_edge){ (unsigned)i, (unsigned)i + 1, "property", "next", 0 };
    }
    v8w_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.nodes = nodes;
    spec.node_count = n + 1;
    spec.edges = edges;
    spec.edge_count = n;
    size_t len = 0;
    char *s = v8w_write(&spec, &len);
    free(nodes);
    free(edges);
    input in = { (unsigned char *)s, len, n + 1 };
    return in;
}

static input chain_gcdump(size_t n)
{
    gcdw_node *nodes = calloc(n + 1, sizeof *nodes);
    uint32_t *next = calloc(n + 1, sizeof *next);
    assert_true(nodes && next);
    const gcdw_type types[] = { { "[root]", NULL }, { "Node", "app.dll" } };
    for (uint32_t i = 0; i <= n; i++) {
        next[i] = i + 1;
        nodes[i] = (gcdw_node){ i ? 1 : 0, i ? 24 : 0, i ? 0x10000 + 24 * (uint64_t)i : 0,
                                &next[i], i < n ? 1 : 0, 0 };
    }
    gcdw_desc d;
    memset(&d, 0, sizeof d);
    d.types = types;
    d.type_count = 2;
    d.nodes = nodes;
    d.node_count = (uint32_t)n + 1;
    d.root = 0;
    d.is64 = 1;
    gcdw_result r;
    gcdw_write(&d, &r);
    free(nodes);
    free(next);
    input in = { r.data, r.size, n + 1 };
    return in;
}

static input chain_dart(size_t n)
{
    dtw *w = dtw_new("chain");
    uint64_t k = dtw_class(w, "Node", "app", "package:app/app.dart");
    dtw_field(w, k, 0, "next");
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t o = dtw_object(w, k, 24);
        if (prev)
            dtw_ref(w, prev, o);
        prev = o;
    }
    dtw_buf b;
    memset(&b, 0, sizeof b);
    dtw_write(w, 0, 0, &b);
    dtw_free(w);
    input in = { b.data, b.size, n };
    return in;
}

/* ---- growth and memory ---- */

static void load_one(void *ctx, int k)
{
    series *s = ctx;
    gch_dump *d = NULL;
    gch_error err;
    if (gch_load_buffer(s->in[k].data, s->in[k].size, s->format, NULL, &d, &err) != GCH_OK)
        fail_msg("load failed: %s", err.message);
    size_t objects = 0;
    for (size_t i = 0; i < d->heap_count; i++)
        objects += d->heaps[i]->object_count;
    /* The chain, less at most one pseudo-object of a format (the .gcdump
     * root node, the Dart snapshot's sentinel). */
    if (objects + 1 < s->in[k].n)
        fail_msg("%zu objects loaded, the chain has %zu", objects, s->in[k].n);
    gch_dump_free(d);
}

static struct {
    size_t live, peak;
} g_mem;

static void *m_malloc(void *ctx, size_t n)
{
    (void)ctx;
    size_t *p = malloc(n + 16);
    if (!p)
        return NULL;
    p[0] = n;
    if ((g_mem.live += n) > g_mem.peak)
        g_mem.peak = g_mem.live;
    return (char *)p + 16;
}

static void m_free(void *ctx, void *q)
{
    (void)ctx;
    if (!q)
        return;
    size_t *p = (size_t *)((char *)q - 16);
    g_mem.live -= p[0];
    free(p);
}

static void *m_realloc(void *ctx, void *q, size_t n)
{
    if (!q)
        return m_malloc(ctx, n);
    size_t *p = (size_t *)((char *)q - 16), old = p[0];
    size_t *np = realloc(p, n + 16);
    if (!np)
        return NULL;
    np[0] = n;
    g_mem.live = g_mem.live - old + n;
    if (g_mem.live > g_mem.peak)
        g_mem.peak = g_mem.live;
    return (char *)np + 16;
}

static void run(const char *what, gch_format format, input (*make)(size_t n), size_t n,
                double max_ratio)
{
    series s;
    s.format = format;
    for (int k = 0; k < 4; k++)
        s.in[k] = make(n << k);
    flood_assert_scaling(what, load_one, &s, 0);
    gch_allocator a = { m_malloc, m_realloc, m_free, NULL, NULL };
    for (int k = 0; k < 4; k++) {
        memset(&g_mem, 0, sizeof g_mem);
        gch_set_allocator(&a);
        load_one(&s, k);
        gch_set_allocator(NULL);
        double ratio = (double)g_mem.peak / (double)s.in[k].size;
        printf("# %s: %zu objects, input %zu bytes, peak %zu bytes (x%.2f)\n", what, s.in[k].n,
               s.in[k].size, g_mem.peak, ratio);
        if (ratio >= max_ratio)
            fail_msg("%s: the peak took %.1f times the input (bound %.0f)", what, ratio, max_ratio);
        free(s.in[k].data);
    }
}

static void test_gclog(void **state)
{
    (void)state;
    run("gclog", GCH_FORMAT_GCLOG, chain_gclog, 20000, 64);
}

static void test_hprof(void **state)
{
    (void)state;
    run("hprof", GCH_FORMAT_HPROF, chain_hprof, 20000, 16);
}

static void test_v8(void **state)
{
    (void)state;
    run("v8", GCH_FORMAT_V8, chain_v8, 20000, 16);
}

static void test_gcdump(void **state)
{
    (void)state;
    run("gcdump", GCH_FORMAT_GCDUMP, chain_gcdump, 20000, 16);
}

static void test_dart(void **state)
{
    (void)state;
    run("dart", GCH_FORMAT_DART, chain_dart, 20000, 32);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gclog),
        cmocka_unit_test(test_hprof),
        cmocka_unit_test(test_v8),
        cmocka_unit_test(test_gcdump),
        cmocka_unit_test(test_dart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
