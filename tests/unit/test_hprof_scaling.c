/* Hostile HPROF shapes that made loading quadratic or its memory a large
 * multiple of the input (issue 36, findings 1-4). Each input is made by the
 * test writer (tests/support/hprof_writer.c) at four sizes n, 2n, 4n, 8n;
 * the time must grow near-linearly (flood_assert_scaling: 8n under 16 times
 * n, where the quadratic code took 64 times) and the memory must stay a
 * constant factor of the input. Each load is also checked for what it must
 * find (roots, labels, sizes), so a fast wrong answer fails too. Label: slow. */
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
#include "flood.h"
#include "heap_check.h"
#include "hprof_writer.h"

enum { T_OBJECT = 2, T_BYTE = 8, T_INT = 10 };
enum { ROOT_JAVA_FRAME = 0x03, ROOT_THREAD_OBJ = 0x08 };

typedef struct series {
    hpw *w[8];
    size_t n[8];
    void (*check)(const gch_dump *d, size_t n);
} series;

static gch_dump *load(const hpw *w)
{
    gch_load_options o;
    memset(&o, 0, sizeof o);
    gch_dump *d = NULL;
    gch_error err;
    if (gch_read_hprof_buffer(w->buf, w->len, &o, &d, &err) != GCH_OK)
        fail_msg("load failed: %s", err.message);
    return d;
}

static void load_and_check(void *ctx, int k)
{
    series *s = ctx;
    gch_dump *d = load(s->w[k]);
    s->check(d, s->n[k]);
    gch_dump_free(d);
}

/* make(n, 0): the hostile input of size n; make(n, 1): an ordinary one
 * (when plain). */
static void run_series(const char *what, series *s, size_t n, hpw *(*make)(size_t n, int plain),
                       int plain)
{
    for (int k = 0; k < (plain ? 8 : 4); k++) {
        s->n[k] = n << (k % 4);
        s->w[k] = make(s->n[k], k >= 4);
    }
    flood_assert_scaling(what, load_and_check, s, plain);
    for (int k = 0; k < (plain ? 8 : 4); k++)
        hpw_free(s->w[k]);
}

static uint32_t find_root(const gch_heap *h, uint64_t id, const char *label)
{
    for (uint32_t i = 0; i < h->root_count; i++)
        if (h->root_raw_id[i] == id && h->root_label && h->root_label[i] != GCH_NONE &&
            strcmp(gch_heap_string(h, h->root_label[i]), label) == 0)
            return i;
    return GCH_NONE;
}

/* ------------------------------------------------------------------------ */
/* Finding 1: every root that names a thread searched the thread list from
 * the start. n THREAD OBJECT roots (serials 1..n), then n Java frame roots
 * naming them in reverse order (the last thread first). The plain input
 * has the frames all on thread 1, the first one the search met (the string
 * pool of the root labels outgrows the caches: the plain input shows by how
 * much). */

static hpw *thread_roots(size_t n, int plain)
{
    hpw *w = hpw_new("1.0.2", 8, 0);
    hpw_begin(w, 0x1C);
    for (size_t i = 1; i <= n; i++)
        hpw_root(w, ROOT_THREAD_OBJ, 0x100000 + 16 * i, (uint32_t)i, 0);
    for (size_t i = n; i >= 1; i--)
        hpw_root(w, ROOT_JAVA_FRAME, 0x900000 + 16 * i, plain ? 1 : (uint32_t)i, 0);
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

static void check_thread_roots(const gch_dump *d, size_t n)
{
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->root_count, 2 * n);
    char label[96];
    int plain = find_root(h, 0x900000 + 16 * n, "Java frame, thread 1 (0x100010)") != GCH_NONE;
    for (size_t i = 1; i <= n; i += n / 7) {
        size_t t = plain ? 1 : i;
        snprintf(label, sizeof label, "Java frame, thread %zu (0x%llx)", t,
                 (unsigned long long)(0x100000 + 16 * t));
        assert_int_not_equal(find_root(h, 0x900000 + 16 * i, label), GCH_NONE);
    }
}

static void test_thread_roots_linear(void **state)
{
    (void)state;
    series s = { .check = check_thread_roots };
    run_series("thread roots", &s, 5000, thread_roots, 1);
}

/* ------------------------------------------------------------------------ */
/* Finding 2: every instance walked its whole superclass chain, also through
 * classes without fields. n classes, each the superclass of the next, none
 * with fields but the root (one int), and n instances of the deepest one.
 * The plain input: n classes without superclass, each with the int. */

static hpw *deep_chain(size_t n, int plain)
{
    hpw *w = hpw_new("1.0.2", 8, 0);
    hpw_string(w, 1, "x");
    hpw_begin(w, 0x1C);
    const hpw_field x = { 1, T_INT, 0 };
    for (size_t i = 0; i < n; i++)
        hpw_class_dump(w, 0x1000 + 16 * i, i && !plain ? 0x1000 + 16 * (i - 1) : 0, 0, 4, NULL, 0,
                       &x, i == 0 || plain);
    unsigned char v[4] = { 0, 0, 0, 7 };
    for (size_t i = 0; i < n; i++)
        hpw_instance(w, 0x10000000 + 16 * i, 0x1000 + 16 * (n - 1), v, 4);
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

static void check_deep_chain(const gch_dump *d, size_t n)
{
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->object_count, 2 * n);
    /* 12-byte header + the int = 16 bytes under the compressed rule, or
     * 16 + 4 -> 24 with 16-byte headers: either way one size for all. */
    uint64_t size = 0;
    for (uint32_t o = 0; o < h->object_count; o++)
        if (h->object_id[o] >= 0x10000000) {
            if (!size)
                size = gch_object_size(h, o);
            assert_int_equal(gch_object_size(h, o), size);
        }
    assert_true(size == 16 || size == 24);
}

static void test_deep_chain_linear(void **state)
{
    (void)state;
    series s = { .check = check_deep_chain };
    run_series("deep superclass chain", &s, 4000, deep_chain, 1);
}

/* ------------------------------------------------------------------------ */
/* Finding 4: thread roots on one id, and many instances with that id: each
 * instance was read once per thread. n THREAD OBJECT roots on 0x500, n
 * instances 0x500 of java.lang.Thread (a name field and 30 ints), the first
 * naming a String whose value is "main". */

static hpw *thread_names(size_t n, int plain)
{
    (void)plain;
    hpw *w = hpw_new("1.0.2", 8, 0);
    static const char *const names[] = { NULL, "java/lang/Thread", "java/lang/String", "name",
                                         "value", "coder", "[B", "pad" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    hpw_load_class(w, 1, 0x100, 1);
    hpw_load_class(w, 2, 0x110, 2);
    hpw_begin(w, 0x1C);
    for (size_t i = 1; i <= n; i++)
        hpw_root(w, ROOT_THREAD_OBJ, 0x500, (uint32_t)i, 0);
    hpw_field thread_fields[31] = { { 3, T_OBJECT, 0 } };
    for (int i = 1; i < 31; i++)
        thread_fields[i] = (hpw_field){ 7, T_INT, 0 };
    const hpw_field string_fields[] = { { 4, T_OBJECT, 0 }, { 5, T_BYTE, 0 } };
    hpw_class_dump(w, 0x100, 0, 0, 8 + 30 * 4, NULL, 0, thread_fields, 31);
    hpw_class_dump(w, 0x110, 0, 0, 9, NULL, 0, string_fields, 2);
    unsigned char v[8 + 30 * 4];
    memset(v, 0, sizeof v);
    for (size_t i = 0; i < n; i++) {
        hpw_value(w, T_OBJECT, i == 0 ? 0x510 : 0x600, v);
        hpw_instance(w, 0x500, 0x100, v, sizeof v);
    }
    unsigned char sv[9];
    size_t m = hpw_value(w, T_OBJECT, 0x520, sv);
    m += hpw_value(w, T_BYTE, 0, sv + m);
    hpw_instance(w, 0x510, 0x110, sv, (uint32_t)m);
    hpw_prim_array(w, 0x520, T_BYTE, 4, "main");
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

static void check_thread_names(const gch_dump *d, size_t n)
{
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->root_count, n);
    char label[96];
    for (size_t i = 1; i <= n; i += n / 5) {
        /* The first instance of the id names the thread (the builder keeps
         * the first object of a duplicated id too). */
        snprintf(label, sizeof label, "thread object, thread %zu \"main\" (0x500)", i);
        assert_int_not_equal(find_root(h, 0x500, label), GCH_NONE);
    }
}

static void test_thread_names_linear(void **state)
{
    (void)state;
    series s = { .check = check_thread_names };
    run_series("thread names on one id", &s, 512, thread_names, 0);
}

/* ------------------------------------------------------------------------ */
/* Finding 3: every field name was copied (up to 4 KiB) for every field and
 * static and every class, even when all name the same string. n classes
 * named by one 4000-byte string, each with 100 object fields and 100 object
 * statics named by it. The library's peak of live allocations must stay
 * under 16 times the input at every size. */

#define LONG_NAME 4000

typedef struct counting {
    size_t live, peak;
} counting;

static counting g_count;

static void *c_malloc(void *ctx, size_t n)
{
    (void)ctx;
    size_t *p = malloc(n + 16);
    if (!p)
        return NULL;
    p[0] = n;
    g_count.live += n;
    if (g_count.live > g_count.peak)
        g_count.peak = g_count.live;
    return (char *)p + 16;
}

static void c_free(void *ctx, void *q)
{
    (void)ctx;
    if (!q)
        return;
    size_t *p = (size_t *)((char *)q - 16);
    g_count.live -= p[0];
    free(p);
}

static void *c_realloc(void *ctx, void *q, size_t n)
{
    if (!q)
        return c_malloc(ctx, n);
    size_t *p = (size_t *)((char *)q - 16);
    size_t old = p[0];
    size_t *np = realloc(p, n + 16);
    if (!np)
        return NULL;
    np[0] = n;
    g_count.live = g_count.live - old + n;
    if (g_count.live > g_count.peak)
        g_count.peak = g_count.live;
    return (char *)np + 16;
}

static hpw *shared_names(size_t n)
{
    hpw *w = hpw_new("1.0.2", 8, 0);
    char *name = malloc(LONG_NAME + 1);
    assert_non_null(name);
    memset(name, 'f', LONG_NAME);
    name[LONG_NAME] = '\0';
    hpw_string(w, 1, name);
    free(name);
    for (size_t i = 0; i < n; i++)
        hpw_load_class(w, (uint32_t)i + 1, 0x1000 + 16 * i, 1);
    hpw_field fields[100], statics[100];
    for (int i = 0; i < 100; i++) {
        fields[i] = (hpw_field){ 1, T_OBJECT, 0 };
        statics[i] = (hpw_field){ 1, T_OBJECT, 0 };
    }
    hpw_begin(w, 0x1C);
    for (size_t i = 0; i < n; i++)
        hpw_class_dump(w, 0x1000 + 16 * i, 0, 0, 800, statics, 100, fields, 100);
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

static void test_shared_names_memory(void **state)
{
    (void)state;
    gch_allocator a = { c_malloc, c_realloc, c_free, NULL, NULL };
    double ratio[4];
    size_t peak[4];
    for (int k = 0; k < 4; k++) {
        size_t n = (size_t)25 << k;
        hpw *w = shared_names(n);
        memset(&g_count, 0, sizeof g_count);
        gch_set_allocator(&a);
        gch_dump *d = load(w);
        const gch_heap *h = d->heaps[0];
        assert_int_equal(h->type_count >= n, 1);
        uint32_t t = GCH_NONE;
        for (uint32_t i = 0; i < h->type_count; i++)
            if (h->type_raw_id[i] == 0x1000)
                t = i;
        assert_int_not_equal(t, GCH_NONE);
        assert_int_equal(strlen(gch_type_name(h, t)), LONG_NAME);
        gch_dump_free(d);
        gch_set_allocator(NULL);
        assert_int_equal(g_count.live, 0);
        peak[k] = g_count.peak;
        ratio[k] = (double)g_count.peak / (double)w->len;
        printf("# shared names: %zu classes, input %zu bytes, peak %zu bytes (x%.1f)\n", n, w->len,
               g_count.peak, ratio[k]);
        hpw_free(w);
    }
    for (int k = 0; k < 4; k++)
        if (ratio[k] >= 16)
            fail_msg("shared names: the peak took %.1f times the input of %zu classes", ratio[k],
                     (size_t)25 << k);
    if ((double)peak[3] / (double)peak[0] >= 16)
        fail_msg("shared names: 8x the input took %.1fx the memory", (double)peak[3] / (double)peak[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thread_roots_linear),
        cmocka_unit_test(test_deep_chain_linear),
        cmocka_unit_test(test_thread_names_linear),
        cmocka_unit_test(test_shared_names_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
