/* Tests of the HPROF reader against dumps made by the test writer
 * (tests/support/hprof_writer.c). Expected sizes are computed by hand from
 * the rules in docs/hprof-format.md ("Sizes"); the comments show the sums. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "heap_check.h"
#include "hprof_writer.h"
#include "sweeps.h"

enum {
    S_OBJECT = 1, S_CLASS, S_REFERENCE, S_WEAKREF, S_NODE, S_NEXT, S_VALUE, S_REFERENT, S_HEAD,
    S_OBJARRAY, S_BYTES, S_COUNT, S_LAMBDA, S_INTS2, S_APP
};
enum {
    C_OBJECT = 0x100, C_CLASS = 0x110, C_REFERENCE = 0x120, C_WEAKREF = 0x130, C_NODE = 0x140,
    C_OBJARRAY = 0x150, C_BYTES = 0x160, C_LAMBDA = 0x170, C_INTS2 = 0x180
};

/* The sample heap (both identifier sizes):
 *   segment 1: roots (Java frame, thread object, sticky class, unknown, JNI
 *              global, monitor used, native stack, thread block, JNI local)
 *              and the two app.Node instances, before any class dump;
 *   segment 2: the 9 class dumps, a WeakReference to a byte[5], an Object[3]
 *              {node1, null, node2}, an Object, a lambda, a long[3] (no class
 *              dump for [J) and an empty int[][];
 *   HEAP DUMP END.
 * app.Node: static head -> node1, static int count = 3; fields next (object),
 * value (int), count (long). node1.next = node2. */
static void sample_strings(hpw *w)
{
    static const char *const names[] = {
        NULL, "java/lang/Object", "java/lang/Class", "java/lang/ref/Reference",
        "java/lang/ref/WeakReference", "app/Node", "next", "value", "referent", "head",
        "[Ljava/lang/Object;", "[B", "count", "Leak$$Lambda$1+0x0000000800c01234", "[[I", "app",
    };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    static const uint64_t classes[][2] = {
        { C_OBJECT, S_OBJECT }, { C_CLASS, S_CLASS }, { C_REFERENCE, S_REFERENCE },
        { C_WEAKREF, S_WEAKREF }, { C_NODE, S_NODE }, { C_OBJARRAY, S_OBJARRAY },
        { C_BYTES, S_BYTES }, { C_LAMBDA, S_LAMBDA }, { C_INTS2, S_INTS2 },
    };
    for (unsigned i = 0; i < sizeof classes / sizeof *classes; i++)
        hpw_load_class(w, i + 1, classes[i][0], classes[i][1]);
}

static void node_instance(hpw *w, uint64_t id, uint64_t next, uint32_t value, uint64_t count)
{
    unsigned char v[32];
    size_t n = hpw_value(w, 2, next, v);
    n += hpw_value(w, 10, value, v + n);
    n += hpw_value(w, 11, count, v + n);
    hpw_instance(w, id, C_NODE, v, (uint32_t)n);
}

static void sample_segment1(hpw *w)
{
    hpw_begin(w, 0x1C);
    hpw_root(w, 0x03, 0x1040, 1, 0);  /* Java frame, thread 1 */
    hpw_root(w, 0x08, 0x1050, 1, 0);  /* thread object, serial 1 */
    hpw_root(w, 0x05, C_NODE, 0, 0);  /* sticky class */
    node_instance(w, 0x1000, 0x1010, 7, 9);
    node_instance(w, 0x1010, 0, 8, 10);
    hpw_root(w, 0xFF, 0x1020, 0, 0);  /* unknown */
    hpw_root(w, 0x01, 0x1070, 0x99, 0); /* JNI global */
    hpw_root(w, 0x07, 0x1050, 0, 0);  /* monitor used */
    hpw_root(w, 0x04, 0x1050, 1, 0);  /* native stack */
    hpw_root(w, 0x06, 0x1050, 1, 0);  /* thread block */
    hpw_root(w, 0x02, 0x1050, 1, 0);  /* JNI local */
    hpw_end(w);
}

static void sample_classes(hpw *w)
{
    const hpw_field referent[] = { { S_REFERENT, 2, 0 } };
    const hpw_field node_statics[] = { { S_HEAD, 2, 0x1000 }, { S_COUNT, 10, 3 } };
    const hpw_field node_fields[] = { { S_NEXT, 2, 0 }, { S_VALUE, 10, 0 }, { S_COUNT, 11, 0 } };
    unsigned id = w->id_size;
    hpw_class_dump(w, C_OBJECT, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_CLASS, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_REFERENCE, C_OBJECT, 0, id, NULL, 0, referent, 1);
    hpw_class_dump(w, C_WEAKREF, C_REFERENCE, 0, id, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_NODE, C_OBJECT, 0, id + 12, node_statics, 2, node_fields, 3);
    hpw_class_dump(w, C_OBJARRAY, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_BYTES, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_LAMBDA, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_INTS2, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
}

static void sample_segment2(hpw *w)
{
    static const uint64_t elems[] = { 0x1000, 0, 0x1010 };
    static const uint64_t longs_be[3] = { 0 };
    unsigned char v[8];
    hpw_begin(w, 0x1C);
    sample_classes(w);
    hpw_instance(w, 0x1020, C_WEAKREF, v, (uint32_t)hpw_value(w, 2, 0x1030, v));
    hpw_prim_array(w, 0x1030, 8, 5, "hello");
    hpw_object_array(w, 0x1040, C_OBJARRAY, elems, 3);
    hpw_instance(w, 0x1050, C_OBJECT, NULL, 0);
    hpw_instance(w, 0x1060, C_LAMBDA, NULL, 0);
    hpw_prim_array(w, 0x1070, 11, 3, longs_be);
    hpw_object_array(w, 0x1080, C_INTS2, NULL, 0);
    hpw_end(w);
}

static hpw *sample(unsigned id_size)
{
    hpw *w = hpw_new("1.0.2", id_size, 1700000000000ull);
    sample_strings(w);
    sample_segment1(w);
    sample_segment2(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

static gch_dump *load(const hpw *w, int refs_mode, gch_error *err)
{
    gch_load_options o;
    memset(&o, 0, sizeof o);
    o.hprof_compressed_refs = refs_mode;
    gch_dump *d = NULL;
    gch_status st = gch_read_hprof_buffer(w->buf, w->len, &o, &d, err);
    if (st != GCH_OK)
        return NULL;
    assert_null(heap_check_dump(d));
    return d;
}

static uint32_t object(const gch_heap *h, uint64_t id)
{
    uint32_t i = gch_heap_find_object(h, id);
    assert_int_not_equal(i, GCH_NONE);
    return i;
}

/* The label of the reference from -> to, or NULL when there is none. */
static const char *ref_label(const gch_heap *h, uint64_t from, uint64_t to)
{
    uint32_t a = object(h, from), b = object(h, to);
    for (uint32_t e = h->out_start[a]; e < h->out_start[a + 1]; e++)
        if (h->out_target[e] == b)
            return h->out_label ? gch_heap_string(h, h->out_label[e]) : "";
    return NULL;
}

static uint32_t refs_of(const gch_heap *h, uint64_t id)
{
    uint32_t i = object(h, id);
    return h->out_start[i + 1] - h->out_start[i];
}

static void assert_type(const gch_heap *h, uint64_t id, const char *name)
{
    assert_string_equal(gch_type_name(h, h->object_type[object(h, id)]), name);
}

/* The root on id with kind and label, or GCH_NONE. */
static uint32_t find_root(const gch_heap *h, uint64_t id, unsigned kind, const char *label)
{
    for (uint32_t r = 0; r < h->root_count; r++)
        if (h->root_raw_id[r] == id && h->root_kind[r] == kind &&
            strcmp(gch_heap_string(h, h->root_label[r]), label) == 0)
            return r;
    return GCH_NONE;
}

static void check_common(const gch_heap *h)
{
    assert_int_equal(h->object_count, 18); /* 9 classes, 9 objects */
    assert_int_equal(h->id_radix, 16);
    assert_type(h, 0x1000, "app.Node");
    assert_type(h, 0x1030, "byte[]");
    assert_type(h, 0x1040, "java.lang.Object[]");
    assert_type(h, 0x1060, "Leak$$Lambda$1/0x0000000800c01234");
    assert_type(h, 0x1070, "long[]");
    assert_type(h, 0x1080, "int[][]");
    assert_type(h, C_NODE, "java.lang.Class");
    assert_int_equal(h->anomalies.dangling_refs, 0);
    assert_int_equal(h->anomalies.dangling_roots, 0);
    assert_int_equal(h->anomalies.unknown_type_objects, 0);
}

static void check_refs(const gch_heap *h)
{
    assert_string_equal(ref_label(h, 0x1000, 0x1010), "next");
    assert_string_equal(ref_label(h, 0x1000, C_NODE), "<class>");
    assert_int_equal(refs_of(h, 0x1000), 2);
    assert_int_equal(refs_of(h, 0x1010), 1);       /* next is null */
    assert_string_equal(ref_label(h, 0x1040, 0x1000), "[0]");
    assert_string_equal(ref_label(h, 0x1040, 0x1010), "[2]");
    assert_int_equal(refs_of(h, 0x1040), 3);       /* <class>, [0], [2] */
    assert_null(ref_label(h, 0x1020, 0x1030));     /* the referent is no reference */
    assert_string_equal(ref_label(h, 0x1030, C_BYTES), "<class>");
    assert_int_equal(refs_of(h, 0x1070), 0);       /* long[]: no class dump */
    assert_string_equal(ref_label(h, C_NODE, 0x1000), "static head");
    assert_string_equal(ref_label(h, C_NODE, C_OBJECT), "<super>");
    assert_string_equal(ref_label(h, C_WEAKREF, C_REFERENCE), "<super>");
}

static void check_roots(const gch_heap *h)
{
    assert_int_not_equal(find_root(h, 0x1040, GCH_ROOT_LOCAL, "Java frame, thread 1 (0x1050)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x1050, GCH_ROOT_RUNTIME, "thread object, thread 1 (0x1050)"), GCH_NONE);
    assert_int_not_equal(find_root(h, C_NODE, GCH_ROOT_RUNTIME, "sticky class"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x1020, GCH_ROOT_INTERNAL, "unknown"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x1070, GCH_ROOT_HANDLE, "JNI global"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x1050, GCH_ROOT_RUNTIME, "monitor used"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x1050, GCH_ROOT_LOCAL, "native stack, thread 1 (0x1050)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x1050, GCH_ROOT_LOCAL, "thread block, thread 1 (0x1050)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x1050, GCH_ROOT_LOCAL, "JNI local, thread 1 (0x1050)"), GCH_NONE);
    uint32_t s = find_root(h, 0x1000, GCH_ROOT_STATIC, "head");
    assert_int_not_equal(s, GCH_NONE);
    assert_true(h->root_has_container[s]);
    assert_string_equal(gch_type_name(h, h->root_container[s]), "app.Node");
    uint32_t weak = find_root(h, 0x1030, GCH_ROOT_HANDLE, "referent of java.lang.ref.WeakReference");
    assert_int_not_equal(weak, GCH_NONE);
    assert_int_equal(h->root_flags[weak], GCH_ROOT_WEAK);
    assert_int_equal(h->root_count, 11);
}

static void test_sample_compressed(void **state)
{
    (void)state;
    hpw *w = sample(8);
    gch_error err;
    gch_dump *d = load(w, GCH_HPROF_REFS_COMPRESSED, &err);
    assert_non_null(d);
    assert_string_equal(d->format, "hprof");
    const gch_heap *h = d->heaps[0];
    check_common(h);
    check_refs(h);
    check_roots(h);
    /* java.lang.Class: header 12 + injected 8+8+4+4 + 3 refs * 4 = 48. */
    assert_int_equal(gch_object_size(h, object(h, C_OBJECT)), 48);
    assert_int_equal(gch_object_size(h, object(h, C_NODE)), 56);   /* 48 + head 4 + count 4 */
    assert_int_equal(gch_object_size(h, object(h, 0x1000)), 32);   /* 12 + 4 + 4 + 8 = 28 */
    assert_int_equal(gch_object_size(h, object(h, 0x1020)), 16);   /* 12 + 4 */
    assert_int_equal(gch_object_size(h, object(h, 0x1030)), 24);   /* 16 + 5 = 21 */
    assert_int_equal(gch_object_size(h, object(h, 0x1040)), 32);   /* 16 + 3 * 4 = 28 */
    assert_int_equal(gch_object_size(h, object(h, 0x1050)), 16);   /* 12 */
    assert_int_equal(gch_object_size(h, object(h, 0x1070)), 40);   /* 16 + 3 * 8 */
    assert_int_equal(gch_object_size(h, object(h, 0x1080)), 16);   /* 16 + 0 */
    /* 8 * 48 + 56 + 2 * 32 + 16 + 24 + 32 + 16 + 16 + 40 + 16 */
    assert_int_equal(h->total_size, 664);
    gch_dump_free(d);
    hpw_free(w);
}

static void test_sample_wide(void **state)
{
    (void)state;
    hpw *w = sample(8);
    gch_error err;
    gch_dump *d = load(w, GCH_HPROF_REFS_WIDE, &err);
    assert_non_null(d);
    const gch_heap *h = d->heaps[0];
    /* The ids give no evidence: the first wide rule (8-byte references,
     * 12-byte header) wins the tie. */
    assert_int_equal(gch_object_size(h, object(h, 0x1000)), 32);   /* 12 + 8 + 4 + 8 = 32 */
    assert_int_equal(gch_object_size(h, object(h, 0x1040)), 40);   /* 16 + 3 * 8 */
    assert_int_equal(gch_object_size(h, object(h, C_OBJECT)), 64); /* 12 + 24 + 3 * 8 = 60 */
    gch_dump_free(d);
    hpw_free(w);
}

static void test_sample_id4(void **state)
{
    (void)state;
    hpw *w = sample(4);
    gch_error err;
    gch_dump *d = load(w, 0, &err);
    assert_non_null(d);
    const gch_heap *h = d->heaps[0];
    check_common(h);
    check_refs(h);
    check_roots(h);
    /* 32-bit: header 8, references 4, arrays 12 (16 for 8-byte elements). */
    assert_int_equal(gch_object_size(h, object(h, C_OBJECT)), 8);
    assert_int_equal(gch_object_size(h, object(h, C_NODE)), 16);   /* 8 + 4 + 4 */
    assert_int_equal(gch_object_size(h, object(h, 0x1000)), 24);   /* 8 + 4 + 4 + 8 */
    assert_int_equal(gch_object_size(h, object(h, 0x1020)), 16);   /* 8 + 4 = 12 */
    assert_int_equal(gch_object_size(h, object(h, 0x1030)), 24);   /* 12 + 5 = 17 */
    assert_int_equal(gch_object_size(h, object(h, 0x1040)), 24);   /* 12 + 12 */
    assert_int_equal(gch_object_size(h, object(h, 0x1070)), 40);   /* 16 + 24 */
    assert_int_equal(gch_object_size(h, object(h, 0x1080)), 16);   /* 12 */
    /* 8 * 8 + 16 + 2 * 24 + 16 + 24 + 24 + 8 + 8 + 40 + 16 */
    assert_int_equal(h->total_size, 264);
    gch_dump_free(d);
    hpw_free(w);
}

/* skip_refs gives the same objects, sizes and roots, and no references. */
static void test_skip_refs(void **state)
{
    (void)state;
    hpw *w = sample(8);
    gch_load_options o;
    memset(&o, 0, sizeof o);
    gch_dump *full = NULL, *lean = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &o, &full, &err), GCH_OK);
    o.skip_refs = 1;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &o, &lean, &err), GCH_OK);
    assert_null(heap_check_same_dump(full, lean, 0));
    assert_int_equal(lean->heaps[0]->ref_count, 0);
    gch_dump_free(full);
    gch_dump_free(lean);
    hpw_free(w);
}

/* Detection by the header, through gch_load_buffer and gch_load (a pipe). */
typedef struct mem_src {
    const unsigned char *p;
    size_t n, pos;
} mem_src;

static long long mem_read(void *ctx, void *buf, size_t cap)
{
    mem_src *m = ctx;
    size_t k = m->n - m->pos < cap ? m->n - m->pos : cap;
    if (k > 7)
        k = 7; /* small pieces, as a pipe may give */
    memcpy(buf, m->p + m->pos, k);
    m->pos += k;
    return (long long)k;
}

static void test_detect_and_pipe(void **state)
{
    (void)state;
    hpw *w = sample(8);
    assert_int_equal(gch_detect_format(w->buf, w->len), GCH_FORMAT_HPROF);
    gch_format f;
    assert_int_equal(gch_format_parse("hprof", &f), 0);
    assert_int_equal(f, GCH_FORMAT_HPROF);
    assert_string_equal(gch_format_name(GCH_FORMAT_HPROF), "hprof");
    gch_dump *a = NULL, *b = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(w->buf, w->len, GCH_FORMAT_AUTO, NULL, &a, &err), GCH_OK);
    mem_src m = { w->buf, w->len, 0 };
    gch_source src = { mem_read, &m };
    assert_int_equal(gch_load(&src, GCH_FORMAT_AUTO, NULL, &b, &err), GCH_OK);
    assert_null(heap_check_same_dump(a, b, 1));
    gch_dump_free(a);
    gch_dump_free(b);
    hpw_free(w);
}

/* ------------------------------------------------------------------------ */
/* The size rule from the address gaps */

/* 20 Object[3] arrays at a stride of `stride` bytes: compressed references
 * give 16 + 12 = 28 -> 32, 8-byte references 16 + 24 = 40, 8-byte class
 * pointers too 24 + 24 = 48. */
static uint64_t array_size_at_stride(unsigned stride)
{
    hpw *w = hpw_new("1.0.2", 8, 0);
    hpw_string(w, 1, "[Ljava/lang/Object;");
    hpw_load_class(w, 1, 0x100, 1);
    hpw_begin(w, 0x0C);
    hpw_class_dump(w, 0x100, 0, 0, 0, NULL, 0, NULL, 0);
    static const uint64_t elems[3] = { 0 };
    for (unsigned i = 0; i < 20; i++)
        hpw_object_array(w, 0x10000 + (uint64_t)i * stride, 0x100, elems, 3);
    hpw_end(w);
    gch_error err;
    gch_dump *d = load(w, 0, &err);
    assert_non_null(d);
    const gch_heap *h = d->heaps[0];
    uint64_t size = gch_object_size(h, object(h, 0x10000));
    gch_dump_free(d);
    hpw_free(w);
    return size;
}

static void test_rule_vote(void **state)
{
    (void)state;
    assert_int_equal(array_size_at_stride(32), 32);
    assert_int_equal(array_size_at_stride(40), 40);
    assert_int_equal(array_size_at_stride(48), 48);
}

/* ------------------------------------------------------------------------ */
/* Android */

static void test_art(void **state)
{
    (void)state;
    hpw *w = hpw_new("1.0.3", 4, 0);
    hpw_string(w, 1, "android/Thing");
    hpw_string(w, 2, "app");
    hpw_string(w, 3, "[C");
    hpw_load_class(w, 1, 0x100, 1);
    hpw_load_class(w, 2, 0x110, 3);
    hpw_begin(w, 0x1C);
    hpw_heap_info(w, 'A', 2);
    hpw_class_dump(w, 0x100, 0, 0, 20, NULL, 0, NULL, 0); /* ART: the object size */
    hpw_class_dump(w, 0x110, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_instance(w, 0x200, 0x100, NULL, 0);
    hpw_prim_array_nodata(w, 0x210, 5, 10);
    hpw_prim_array(w, 0x220, 11, 1, "\0\0\0\0\0\0\0\1");
    hpw_root(w, 0x89, 0x200, 0, 0);
    hpw_root(w, 0x8A, 0x200, 0, 0);
    hpw_root(w, 0x8B, 0x200, 0, 0);
    hpw_root(w, 0x8C, 0x200, 0, 0);
    hpw_root(w, 0x8D, 0x210, 0, 0);
    hpw_root(w, 0x8E, 0x210, 0, 0);
    hpw_root(w, 0x90, 0x220, 0, 0);
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    gch_error err;
    gch_dump *d = load(w, 0, &err);
    assert_non_null(d);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(gch_object_size(h, object(h, 0x200)), 24);  /* 20, aligned */
    assert_int_equal(gch_object_size(h, object(h, 0x210)), 32);  /* 12 + 10 * 2 */
    assert_int_equal(gch_object_size(h, object(h, 0x220)), 24);  /* 16 + 8 */
    assert_type(h, 0x210, "char[]");
    assert_int_not_equal(find_root(h, 0x200, GCH_ROOT_INTERNAL, "interned string"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x200, GCH_ROOT_FINALIZER, "finalizing"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x200, GCH_ROOT_RUNTIME, "debugger"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x200, GCH_ROOT_RUNTIME, "reference cleanup"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x210, GCH_ROOT_INTERNAL, "VM internal"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x210, GCH_ROOT_HANDLE, "JNI monitor, thread 0"), GCH_NONE);
    assert_int_equal(h->root_count, 6); /* "unreachable" is no root */
    int saw_heap = 0;
    for (size_t i = 0; i < h->meta_count; i++)
        saw_heap |= strcmp(h->meta[i].key, "ART heap") == 0 && strcmp(h->meta[i].value, "app: 5 objects") == 0;
    assert_true(saw_heap);
    gch_dump_free(d);
    hpw_free(w);
}

/* ------------------------------------------------------------------------ */
/* @Contended padding (issue 36, finding 11), sizes by hand under the
 * compressed rule (header 12, references 4; docs/hprof-format.md "Sizes"):
 *   Striped64$Cell {long value}, class-level: 12 + 128 = 140, the long at
 *     144..152, + 128 = 280;
 *   java.lang.Thread {int priority; @Contended("tlr") long seed, int probe,
 *     int secondarySeed}: 12 + 4 = 16, + 128 = 144, seed 144..152, probe and
 *     secondarySeed to 160, + 128 = 288;
 *   app.Worker extends Thread {boolean running}: 160 + 128 = 288, the
 *     boolean 288..289, aligned: 296; app.Idle extends Worker (no fields):
 *     289 + 128 = 417 -> 424. */
static void test_contended(void **state)
{
    (void)state;
    hpw *w = hpw_new("1.0.2", 8, 0);
    static const char *const names[] = {
        NULL, "java/lang/Object", "java/util/concurrent/atomic/Striped64$Cell", "value",
        "java/lang/Thread", "priority", "threadLocalRandomSeed", "threadLocalRandomProbe",
        "threadLocalRandomSecondarySeed", "app/Worker", "running", "app/Idle",
    };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    hpw_load_class(w, 1, 0x100, 1);
    hpw_load_class(w, 2, 0x110, 2);
    hpw_load_class(w, 3, 0x120, 4);
    hpw_load_class(w, 4, 0x130, 9);
    hpw_load_class(w, 5, 0x140, 11);
    hpw_begin(w, 0x1C);
    const hpw_field cell[] = { { 3, 11, 0 } };
    const hpw_field thread[] = { { 5, 10, 0 }, { 6, 11, 0 }, { 7, 10, 0 }, { 8, 10, 0 } };
    const hpw_field worker[] = { { 10, 4, 0 } };
    hpw_class_dump(w, 0x100, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, 0x110, 0x100, 0, 8, NULL, 0, cell, 1);
    hpw_class_dump(w, 0x120, 0x100, 0, 20, NULL, 0, thread, 4);
    hpw_class_dump(w, 0x130, 0x120, 0, 1, NULL, 0, worker, 1);
    hpw_class_dump(w, 0x140, 0x130, 0, 0, NULL, 0, NULL, 0);
    unsigned char v[32];
    memset(v, 0, sizeof v);
    hpw_instance(w, 0x1000, 0x110, v, 8);
    hpw_instance(w, 0x2000, 0x120, v, 20);
    hpw_instance(w, 0x3000, 0x130, v, 21);
    hpw_instance(w, 0x4000, 0x140, v, 21);
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    gch_error err;
    gch_dump *d = load(w, GCH_HPROF_REFS_COMPRESSED, &err);
    assert_non_null(d);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(gch_object_size(h, object(h, 0x1000)), 280);
    assert_int_equal(gch_object_size(h, object(h, 0x2000)), 288);
    assert_int_equal(gch_object_size(h, object(h, 0x3000)), 296);
    assert_int_equal(gch_object_size(h, object(h, 0x4000)), 424);
    gch_dump_free(d);
    hpw_free(w);
}

/* ------------------------------------------------------------------------ */
/* Thread names in root labels */

/* A Thread 0x500 named by String 0x510 (value 0x520, coder `coder`) and a
 * second thread 0x600 whose name is UTF-16 little-endian "Ab"; roots: their
 * THREAD OBJECTs (serials 7 and 8) and a Java frame of thread 7. */
static hpw *threads_dump(void)
{
    hpw *w = hpw_new("1.0.2", 8, 0);
    static const char *const names[] = { NULL, "java/lang/Thread", "java/lang/String", "name",
                                         "value", "coder", "[B" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    hpw_load_class(w, 1, 0x100, 1);
    hpw_load_class(w, 2, 0x110, 2);
    hpw_load_class(w, 3, 0x120, 6);
    hpw_begin(w, 0x1C);
    hpw_root(w, 0x08, 0x500, 7, 0);
    hpw_root(w, 0x08, 0x600, 8, 0);
    hpw_root(w, 0x03, 0x520, 7, 0);
    const hpw_field thread_fields[] = { { 3, 2, 0 } };
    const hpw_field string_fields[] = { { 4, 2, 0 }, { 5, 8, 0 } };
    hpw_class_dump(w, 0x100, 0, 0, 8, NULL, 0, thread_fields, 1);
    hpw_class_dump(w, 0x110, 0, 0, 9, NULL, 0, string_fields, 2);
    hpw_class_dump(w, 0x120, 0, 0, 0, NULL, 0, NULL, 0);
    unsigned char v[16];
    hpw_instance(w, 0x500, 0x100, v, (uint32_t)hpw_value(w, 2, 0x510, v));
    size_t n = hpw_value(w, 2, 0x520, v);
    n += hpw_value(w, 8, 0, v + n);
    hpw_instance(w, 0x510, 0x110, v, (uint32_t)n);
    hpw_prim_array(w, 0x520, 8, 4, "main");
    hpw_instance(w, 0x600, 0x100, v, (uint32_t)hpw_value(w, 2, 0x610, v));
    n = hpw_value(w, 2, 0x620, v);
    n += hpw_value(w, 8, 1, v + n);
    hpw_instance(w, 0x610, 0x110, v, (uint32_t)n);
    hpw_prim_array(w, 0x620, 8, 4, "A\0b\0");
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

static void test_thread_names(void **state)
{
    (void)state;
    hpw *w = threads_dump();
    gch_load_options o;
    memset(&o, 0, sizeof o);
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &o, &d, &err), GCH_OK);
    const gch_heap *h = d->heaps[0];
    assert_int_not_equal(find_root(h, 0x520, GCH_ROOT_LOCAL, "Java frame, thread 7 \"main\" (0x500)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x500, GCH_ROOT_RUNTIME, "thread object, thread 7 \"main\" (0x500)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x600, GCH_ROOT_RUNTIME, "thread object, thread 8 \"Ab\" (0x600)"), GCH_NONE);
    gch_dump_free(d);
    /* Without labels: no lookup, threads by number. */
    o.skip_labels = 1;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &o, &d, &err), GCH_OK);
    h = d->heaps[0];
    assert_int_not_equal(find_root(h, 0x520, GCH_ROOT_LOCAL, "Java frame, thread 7 (0x500)"), GCH_NONE);
    assert_null(h->out_label);
    gch_dump_free(d);
    hpw_free(w);
}

/* ------------------------------------------------------------------------ */
/* Stack frames in the labels of stack roots */

static void frame_record(hpw *w, uint64_t id, uint64_t method, uint64_t file, uint32_t class_serial,
                         int32_t line)
{
    hpw_begin(w, 0x04);
    hpw_id(w, id);
    hpw_id(w, method);
    hpw_id(w, 9); /* signature "()V" */
    hpw_id(w, file);
    hpw_u4(w, class_serial);
    hpw_u4(w, (uint32_t)line);
    hpw_end(w);
}

/* Thread serial 7 (object 0x500, STACK TRACE serial 50) with five frames:
 * a line, a native method, no source file, a compiled method without a
 * line, and a frame id no STACK FRAME has; a second trace claims a million
 * frames but holds two ids; a third STACK FRAME record is too short to
 * name anything. Roots: Java frames at every depth (and past the end, and
 * 0xFFFFFFFF, "no frame"), a JNI local at depth 0, a Java frame of a thread
 * serial no THREAD OBJECT names. Each label is written out by hand from the
 * records (the JDK's StackTraceElement.toString forms). */
static void test_stack_frames(void **state)
{
    (void)state;
    hpw *w = hpw_new("1.0.2", 4, 0);
    static const char *const names[] = { NULL, "com/acme/OrderWorker", "run", "Words.java",
                                         "wait", "java/lang/Object", "poll", "<clinit>", "Object.java",
                                         "()V" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    hpw_load_class(w, 11, 0x100, 1);
    hpw_load_class(w, 12, 0x110, 5);
    frame_record(w, 0x900, 2, 3, 11, 42);
    frame_record(w, 0x901, 4, 8, 12, -3);
    frame_record(w, 0x902, 6, 0, 11, -1);
    frame_record(w, 0x903, 7, 3, 11, -2);
    hpw_begin(w, 0x04); /* too short: an id and a u4 */
    hpw_id(w, 0x904);
    hpw_u4(w, 1);
    hpw_end(w);
    hpw_begin(w, 0x05);
    hpw_u4(w, 50);
    hpw_u4(w, 7);
    hpw_u4(w, 6);
    static const uint32_t frames[] = { 0x900, 0x901, 0x902, 0x903, 0x999, 0x904 };
    for (size_t i = 0; i < 6; i++)
        hpw_id(w, frames[i]);
    hpw_end(w);
    hpw_begin(w, 0x05);
    hpw_u4(w, 60);
    hpw_u4(w, 8);
    hpw_u4(w, 1000000);
    hpw_id(w, 0x901);
    hpw_id(w, 0x900);
    hpw_end(w);
    hpw_begin(w, 0x1C);
    hpw_root(w, 0x08, 0x500, 7, 50);
    hpw_root(w, 0x08, 0x600, 8, 60);
    for (uint32_t depth = 0; depth < 6; depth++)
        hpw_root(w, 0x03, 0x510 + depth, 7, depth);
    hpw_root(w, 0x03, 0x520, 7, 0xFFFFFFFFu);
    hpw_root(w, 0x02, 0x530, 7, 0);
    hpw_root(w, 0x03, 0x540, 9, 0);
    hpw_root(w, 0x03, 0x610, 8, 1);
    hpw_root(w, 0x03, 0x611, 8, 2);
    hpw_class_dump(w, 0x100, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, 0x110, 0, 0, 0, NULL, 0, NULL, 0);
    static const uint64_t objects[] = { 0x500, 0x510, 0x511, 0x512, 0x513, 0x514, 0x515, 0x520,
                                        0x530, 0x540, 0x600, 0x610, 0x611 };
    for (size_t i = 0; i < sizeof objects / sizeof *objects; i++)
        hpw_instance(w, objects[i], 0x100, NULL, 0);
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    gch_error err;
    gch_dump *d = load(w, 0, &err);
    assert_non_null(d);
    const gch_heap *h = d->heaps[0];
    static const struct { uint64_t id; const char *label; } want[] = {
        { 0x510, "Java frame in com.acme.OrderWorker.run (Words.java:42), thread 7 (0x500)" },
        { 0x511, "Java frame in java.lang.Object.wait (Native Method), thread 7 (0x500)" },
        { 0x512, "Java frame in com.acme.OrderWorker.poll (Unknown Source), thread 7 (0x500)" },
        { 0x513, "Java frame in com.acme.OrderWorker.<clinit> (Words.java, Compiled Code), thread 7 (0x500)" },
        { 0x514, "Java frame, thread 7 (0x500)" },   /* no STACK FRAME 0x999 */
        { 0x515, "Java frame, thread 7 (0x500)" },   /* the short record names nothing */
        { 0x520, "Java frame, thread 7 (0x500)" },   /* depth 0xFFFFFFFF: no frame */
        { 0x530, "JNI local in com.acme.OrderWorker.run (Words.java:42), thread 7 (0x500)" },
        { 0x540, "Java frame, thread 9" },           /* no THREAD OBJECT for serial 9 */
        { 0x610, "Java frame in com.acme.OrderWorker.run (Words.java:42), thread 8 (0x600)" },
        { 0x611, "Java frame, thread 8 (0x600)" },   /* past the two ids the record holds */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (find_root(h, want[i].id, GCH_ROOT_LOCAL, want[i].label) == GCH_NONE)
            fail_msg("no root on 0x%llx labelled '%s'", (unsigned long long)want[i].id, want[i].label);
    gch_dump_free(d);
    hpw_free(w);
}

/* Names shared and in every encoding (issue 36: each object read once,
 * the result handed to every thread that names it):
 *   serials 1, 2: two roots on Thread 0x500 -> String 0x510 -> byte[] "main";
 *   serial 3: Thread 0x600 naming the same String 0x510;
 *   serial 4: Thread 0x700 -> String 0x710 (coder 1) -> byte[] UTF-16 with
 *     the zero byte first ("\0W\0k": a big-endian JVM) -> "Wk";
 *   serial 5: Thread 0x800 -> String 0x810 -> char[] "jdk8" (JDK 8);
 *   serial 6: Thread 0x900 -> String 0x910 -> int[1]: no name. */
static void test_thread_names_shared(void **state)
{
    (void)state;
    hpw *w = hpw_new("1.0.2", 8, 0);
    static const char *const names[] = { NULL, "java/lang/Thread", "java/lang/String", "name",
                                         "value", "coder" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    hpw_load_class(w, 1, 0x100, 1);
    hpw_load_class(w, 2, 0x110, 2);
    hpw_begin(w, 0x1C);
    static const uint64_t roots[][2] = { { 0x500, 1 }, { 0x500, 2 }, { 0x600, 3 }, { 0x700, 4 },
                                         { 0x800, 5 }, { 0x900, 6 } };
    for (size_t i = 0; i < 6; i++)
        hpw_root(w, 0x08, roots[i][0], (uint32_t)roots[i][1], 0);
    const hpw_field thread_fields[] = { { 3, 2, 0 } };
    const hpw_field string_fields[] = { { 4, 2, 0 }, { 5, 8, 0 } };
    hpw_class_dump(w, 0x100, 0, 0, 8, NULL, 0, thread_fields, 1);
    hpw_class_dump(w, 0x110, 0, 0, 9, NULL, 0, string_fields, 2);
    unsigned char v[16];
    static const uint64_t threads[][2] = { { 0x500, 0x510 }, { 0x600, 0x510 }, { 0x700, 0x710 },
                                           { 0x800, 0x810 }, { 0x900, 0x910 } };
    for (size_t i = 0; i < 5; i++)
        hpw_instance(w, threads[i][0], 0x100, v, (uint32_t)hpw_value(w, 2, threads[i][1], v));
    static const uint64_t strings[][3] = { { 0x510, 0x520, 0 }, { 0x710, 0x720, 1 },
                                           { 0x810, 0x820, 0 }, { 0x910, 0x920, 0 } };
    for (size_t i = 0; i < 4; i++) {
        size_t n = hpw_value(w, 2, strings[i][1], v);
        n += hpw_value(w, 8, strings[i][2], v + n);
        hpw_instance(w, strings[i][0], 0x110, v, (uint32_t)n);
    }
    hpw_prim_array(w, 0x520, 8, 4, "main");
    hpw_prim_array(w, 0x720, 8, 4, "\0W\0k");
    hpw_prim_array(w, 0x820, 5, 4, "\0j\0d\0k\0" "8");
    hpw_prim_array(w, 0x920, 10, 1, "\0\0\0A");
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    gch_load_options o;
    memset(&o, 0, sizeof o);
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &o, &d, &err), GCH_OK);
    const gch_heap *h = d->heaps[0];
    assert_int_not_equal(find_root(h, 0x500, GCH_ROOT_RUNTIME, "thread object, thread 1 \"main\" (0x500)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x500, GCH_ROOT_RUNTIME, "thread object, thread 2 \"main\" (0x500)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x600, GCH_ROOT_RUNTIME, "thread object, thread 3 \"main\" (0x600)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x700, GCH_ROOT_RUNTIME, "thread object, thread 4 \"Wk\" (0x700)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x800, GCH_ROOT_RUNTIME, "thread object, thread 5 \"jdk8\" (0x800)"), GCH_NONE);
    assert_int_not_equal(find_root(h, 0x900, GCH_ROOT_RUNTIME, "thread object, thread 6 (0x900)"), GCH_NONE);
    gch_dump_free(d);
    hpw_free(w);
}

/* ------------------------------------------------------------------------ */
/* Payloads: where primitive arrays and String values lie (keep_payloads) */

/* Strings of JDK 9+ (value byte[] + coder) or, with jdk8, of JDK 8 (value
 * char[], no coder); the objects are written out of id order (two runs):
 *   0x700 String "caf\xe9" Latin-1 -> 0x710 byte[4]
 *   0x720 String U+2603 U+1F600 'x' UTF-16 -> 0x730 byte[8] (little-endian)
 *   0x6F0 char[2] "hi" (big-endian), 0x6E0 int[2], 0x6D0 NODATA byte[3]
 *   0x740 String with a null value; 0x710 again as an int[2] (a duplicate id:
 *   the payload must belong to the record the builder keeps). */
static const unsigned char utf16_le[8] = { 0x03, 0x26, 0x3D, 0xD8, 0x00, 0xDE, 'x', 0 };
static const unsigned char chars_be[4] = { 0, 'h', 0, 'i' };

static hpw *strings_dump(unsigned id_size, int jdk8)
{
    hpw *w = hpw_new("1.0.2", id_size, 0);
    static const char *const names[] = { NULL, "java/lang/String", "value", "coder", "[B", "[C", "[I" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    hpw_load_class(w, 1, 0x100, 1);
    hpw_load_class(w, 2, 0x110, 4);
    hpw_load_class(w, 3, 0x120, 5);
    hpw_load_class(w, 4, 0x130, 6);
    hpw_begin(w, 0x1C);
    const hpw_field string_fields[] = { { 2, 2, 0 }, { 3, 8, 0 } };
    hpw_class_dump(w, 0x100, 0, 0, id_size + 1, NULL, 0, string_fields, jdk8 ? 1 : 2);
    hpw_class_dump(w, 0x110, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, 0x120, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, 0x130, 0, 0, 0, NULL, 0, NULL, 0);
    unsigned char v[16];
    size_t n = hpw_value(w, 2, 0x710, v);
    if (!jdk8)
        n += hpw_value(w, 8, 0, v + n);
    hpw_instance(w, 0x700, 0x100, v, (uint32_t)n);
    if (jdk8)
        hpw_prim_array(w, 0x710, 5, 2, chars_be);
    else
        hpw_prim_array(w, 0x710, 8, 4, "caf\xe9");
    n = hpw_value(w, 2, 0x730, v);
    if (!jdk8)
        n += hpw_value(w, 8, 1, v + n);
    hpw_instance(w, 0x720, 0x100, v, (uint32_t)n);
    hpw_prim_array(w, 0x730, 8, 8, utf16_le);
    n = hpw_value(w, 2, 0, v);
    if (!jdk8)
        n += hpw_value(w, 8, 0, v + n);
    hpw_instance(w, 0x740, 0x100, v, (uint32_t)n);
    /* A second run, with lower ids. */
    hpw_prim_array_nodata(w, 0x6D0, 8, 3);
    hpw_prim_array(w, 0x6E0, 10, 2, NULL);
    hpw_prim_array(w, 0x6F0, 5, 2, chars_be);
    hpw_prim_array(w, 0x710, 10, 2, NULL);
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

static const gch_payload *expect_array_payload(const hpw *w, const gch_heap *h, uint64_t id, unsigned elem,
                                       uint32_t length, const void *bytes)
{
    const gch_payload *p = gch_heap_payload(h, id);
    assert_non_null(p);
    assert_int_equal(p->kind, GCH_PAYLOAD_ARRAY);
    assert_int_equal(p->elem, elem);
    assert_int_equal(p->length, length);
    size_t n = (size_t)length * gch_elem_size(elem);
    assert_true(p->offset + n <= w->len);
    assert_memory_equal(w->buf + p->offset, bytes, n);
    /* The offset is right after the array's header: id, trace, length, type. */
    assert_int_equal(w->buf[p->offset - 1], elem);
    return p;
}

static void expect_string_payload(const gch_heap *h, uint64_t id, uint64_t value, unsigned coder)
{
    const gch_payload *p = gch_heap_payload(h, id);
    assert_non_null(p);
    assert_int_equal(p->kind, GCH_PAYLOAD_STRING);
    assert_int_equal(p->value, value);
    assert_int_equal(p->coder, coder);
}

static void check_payloads(unsigned id_size, int jdk8)
{
    hpw *w = strings_dump(id_size, jdk8);
    gch_load_options o;
    memset(&o, 0, sizeof o);
    gch_dump *plain = NULL, *kept = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &o, &plain, &err), GCH_OK);
    assert_int_equal(plain->heaps[0]->payloads_kept, 0);
    assert_null(plain->heaps[0]->payloads);
    assert_int_equal(plain->heaps[0]->payload_count, 0);
    o.keep_payloads = 1;
    assert_int_equal(gch_load_buffer(w->buf, w->len, GCH_FORMAT_AUTO, &o, &kept, &err), GCH_OK);
    assert_null(heap_check_dump(kept));
    assert_null(heap_check_same_dump(plain, kept, 1)); /* the model is the same */
    const gch_heap *h = kept->heaps[0];
    assert_int_equal(h->payloads_kept, 1);
    /* 3 Strings, 0x710 (once), 0x730, 0x6E0, 0x6F0; no entry for NODATA. */
    assert_int_equal(h->payload_count, 7);
    for (size_t i = 1; i < h->payload_count; i++)
        assert_true(h->payloads[i - 1].id < h->payloads[i].id);
    unsigned coder = jdk8 ? GCH_CODER_NONE : GCH_CODER_LATIN1;
    expect_string_payload(h, 0x700, 0x710, coder);
    expect_string_payload(h, 0x720, 0x730, jdk8 ? GCH_CODER_NONE : GCH_CODER_UTF16);
    expect_string_payload(h, 0x740, 0, coder);
    /* 0x710: the record the builder kept (the merge of the runs decides). */
    const char *kept_type = NULL;
    for (uint32_t i = 0; i < h->object_count; i++)
        if (h->object_id[i] == 0x710)
            kept_type = gch_type_name(h, h->object_type[i]);
    assert_non_null(kept_type);
    unsigned char zeros[8] = { 0 };
    if (strcmp(kept_type, "int[]") == 0)
        expect_array_payload(w, h, 0x710, GCH_ELEM_INT, 2, zeros);
    else if (jdk8)
        expect_array_payload(w, h, 0x710, GCH_ELEM_CHAR, 2, chars_be);
    else
        expect_array_payload(w, h, 0x710, GCH_ELEM_BYTE, 4, "caf\xe9");
    expect_array_payload(w, h, 0x730, GCH_ELEM_BYTE, 8, utf16_le);
    expect_array_payload(w, h, 0x6F0, GCH_ELEM_CHAR, 2, chars_be);
    expect_array_payload(w, h, 0x6E0, GCH_ELEM_INT, 2, zeros);
    assert_null(gch_heap_payload(h, 0x6D0));
    assert_null(gch_heap_payload(h, 0x110)); /* a class */
    assert_null(gch_heap_payload(h, 0x1));
    gch_dump_free(kept);
    /* From a source (a pipe): the buffer is gone when the load returns. */
    mem_src m = { w->buf, w->len, 0 };
    gch_source src = { mem_read, &m };
    assert_int_equal(gch_load(&src, GCH_FORMAT_AUTO, &o, &kept, &err), GCH_OK);
    assert_int_equal(kept->heaps[0]->payloads_kept, 0);
    assert_null(kept->heaps[0]->payloads);
    assert_null(heap_check_same_dump(plain, kept, 1));
    gch_dump_free(kept);
    gch_dump_free(plain);
    hpw_free(w);
}

static void test_payloads(void **state)
{
    (void)state;
    check_payloads(8, 0);
    check_payloads(4, 0);
    check_payloads(8, 1);
}

/* An Android (ART, 1.0.3) dump of two Strings: ART's String class has count
 * and hash, and hprof.cc adds a value field of its own pointing to a byte[]
 * for a compressed (ASCII) string, a char[] (big-endian) otherwise:
 *   0x900 "hello art" -> 0x910 byte[9];  0x920 U+017E U+2603 -> 0x930 char[2]. */
static const unsigned char art_chars_be[4] = { 0x01, 0x7E, 0x26, 0x03 };

static hpw *art_strings_dump(void)
{
    hpw *w = hpw_new("1.0.3", 4, 0);
    static const char *const names[] = { NULL, "java/lang/String", "count", "hash", "value",
                                         "[B", "[C", "app" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    hpw_load_class(w, 1, 0x100, 1);
    hpw_load_class(w, 2, 0x110, 5);
    hpw_load_class(w, 3, 0x120, 6);
    hpw_begin(w, 0x1C);
    hpw_heap_info(w, 'A', 7);
    const hpw_field fields[] = { { 2, 10, 0 }, { 3, 10, 0 }, { 4, 2, 0 } };
    hpw_class_dump(w, 0x100, 0, 0, 16, NULL, 0, fields, 3);
    hpw_class_dump(w, 0x110, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, 0x120, 0, 0, 0, NULL, 0, NULL, 0);
    unsigned char v[16];
    size_t n = hpw_value(w, 10, 9 << 1 | 1, v);
    n += hpw_value(w, 10, 0, v + n);
    n += hpw_value(w, 2, 0x910, v + n);
    hpw_instance(w, 0x900, 0x100, v, (uint32_t)n);
    hpw_prim_array(w, 0x910, 8, 9, "hello art");
    n = hpw_value(w, 10, 2 << 1, v);
    n += hpw_value(w, 10, 0, v + n);
    n += hpw_value(w, 2, 0x930, v + n);
    hpw_instance(w, 0x920, 0x100, v, (uint32_t)n);
    hpw_prim_array(w, 0x930, 5, 2, art_chars_be);
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

static void test_payloads_art(void **state)
{
    (void)state;
    hpw *w = art_strings_dump();
    gch_load_options o;
    memset(&o, 0, sizeof o);
    o.keep_payloads = 1;
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, &o, &d, &err), GCH_OK);
    const gch_heap *h = d->heaps[0];
    assert_int_equal(h->payload_count, 4);
    expect_string_payload(h, 0x900, 0x910, GCH_CODER_NONE);
    expect_string_payload(h, 0x920, 0x930, GCH_CODER_NONE);
    expect_array_payload(w, h, 0x910, GCH_ELEM_BYTE, 9, "hello art");
    expect_array_payload(w, h, 0x930, GCH_ELEM_CHAR, 2, art_chars_be);
    gch_dump_free(d);
    hpw_free(w);
}

/* Every allocation of a keep_payloads read failing in turn: GCH_ENOMEM, no
 * dump and nothing left allocated (or, for a shrink that may fail, the same
 * dump); then the read that fails nothing. */
typedef union block_header {
    size_t size;
    max_align_t align;
} block_header;

static struct {
    long calls, fail_at, live;
    int hit;
} fa;

static void *fa_malloc(void *ctx, size_t n)
{
    (void)ctx;
    if (++fa.calls == fa.fail_at) {
        fa.hit = 1;
        return NULL;
    }
    block_header *h = malloc(sizeof *h + n);
    if (!h)
        return NULL;
    h->size = n;
    fa.live++;
    return h + 1;
}

static void *fa_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    if (++fa.calls == fa.fail_at) {
        fa.hit = 1;
        return NULL;
    }
    block_header *h = realloc((block_header *)p - 1, sizeof *h + n);
    if (!h)
        return NULL;
    h->size = n;
    return h + 1;
}

static void fa_free(void *ctx, void *p)
{
    (void)ctx;
    if (!p)
        return;
    fa.live--;
    free((block_header *)p - 1);
}

static void test_payloads_alloc_failure(void **state)
{
    (void)state;
    static const gch_allocator failing = { fa_malloc, fa_realloc, fa_free, NULL, NULL };
    hpw *w = strings_dump(8, 0);
    gch_load_options o;
    memset(&o, 0, sizeof o);
    o.keep_payloads = 1;
    gch_set_allocator(&failing);
    long k = 1;
    for (;; k++) {
        memset(&fa, 0, sizeof fa);
        fa.fail_at = k;
        gch_dump *d = NULL;
        gch_error err;
        gch_status st = gch_read_hprof_buffer(w->buf, w->len, &o, &d, &err);
        if (st == GCH_OK) {
            /* A failed shrink keeps the bigger block: the same dump. */
            assert_null(heap_check_dump(d));
            assert_int_equal(d->heaps[0]->payload_count, 7);
            assert_int_equal(d->heaps[0]->payloads_kept, 1);
            gch_dump_free(d);
            assert_int_equal(fa.live, 0);
            if (!fa.hit)
                break;
            continue;
        }
        assert_true(fa.hit);
        assert_int_equal(st, GCH_ENOMEM);
        assert_null(d);
        assert_int_equal(fa.live, 0);
    }
    gch_set_allocator(NULL);
    assert_true(k > 10);
    hpw_free(w);
}

/* ------------------------------------------------------------------------ */
/* Malformed input */

static void expect_error(const hpw *w, uint64_t offset, const char *fragment)
{
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = gch_read_hprof_buffer(w->buf, w->len, NULL, &d, &err);
    assert_int_equal(st, GCH_EFORMAT);
    assert_null(d);
    assert_true(err.has_offset);
    if (offset != UINT64_MAX)
        assert_int_equal(err.offset, offset);
    if (!strstr(err.message, fragment)) {
        fprintf(stderr, "message: %s\n", err.message);
        fail();
    }
}

static hpw *header_only(unsigned id_size)
{
    hpw *w = hpw_new("1.0.2", id_size, 0);
    hpw_string(w, 1, "A");
    return w;
}

static void test_unknown_tags(void **state)
{
    (void)state;
    hpw *w = header_only(8);
    size_t at = w->len;
    hpw_begin(w, 0x55);
    hpw_end(w);
    expect_error(w, at, "unknown record tag 0x55");
    hpw_free(w);

    w = header_only(8);
    hpw_begin(w, 0x1C);
    at = w->len;
    hpw_u1(w, 0x42);
    hpw_id(w, 1);
    hpw_end(w);
    expect_error(w, at, "unknown heap dump sub-record tag 0x42");
    hpw_free(w);
}

static void test_hostile_lengths(void **state)
{
    (void)state;
    /* A record longer than the input. */
    hpw *w = header_only(8);
    size_t at = w->len;
    hpw_begin_raw(w, 0x1C, 0xFFFFFFFFu);
    hpw_u1(w, 0xFF);
    expect_error(w, at, "exceeds");
    hpw_free(w);
    /* An object array of 2^31 elements in a few bytes. */
    w = header_only(8);
    hpw_begin(w, 0x1C);
    at = w->len;
    hpw_u1(w, 0x22);
    hpw_id(w, 0x1000);
    hpw_u4(w, 1);
    hpw_u4(w, 0x80000000u);
    hpw_id(w, 0x100);
    hpw_end(w);
    expect_error(w, at, "exceed");
    hpw_free(w);
    /* An instance claiming 4 GiB of fields. */
    w = header_only(4);
    hpw_begin(w, 0x0C);
    at = w->len;
    hpw_u1(w, 0x21);
    hpw_id(w, 0x1000);
    hpw_u4(w, 1);
    hpw_id(w, 0x100);
    hpw_u4(w, 0xFFFFFFFFu);
    hpw_end(w);
    expect_error(w, at, "instance dump");
    hpw_free(w);
    /* A class dump with 65535 static fields and none written. */
    w = header_only(8);
    hpw_begin(w, 0x0C);
    hpw_u1(w, 0x20);
    hpw_id(w, 0x100);
    hpw_u4(w, 1);
    for (int i = 0; i < 6; i++)
        hpw_id(w, 0);
    hpw_u4(w, 0);
    hpw_u2(w, 0);
    hpw_u2(w, 0xFFFF);
    hpw_end(w);
    expect_error(w, UINT64_MAX, "static field");
    hpw_free(w);
    /* A field of an unknown basic type. */
    w = header_only(8);
    hpw_begin(w, 0x0C);
    const hpw_field bad[] = { { 1, 3, 0 } };
    hpw_class_dump(w, 0x100, 0, 0, 0, NULL, 0, bad, 1);
    hpw_end(w);
    expect_error(w, UINT64_MAX, "unknown type 3");
    hpw_free(w);
}

static void test_bad_header(void **state)
{
    (void)state;
    hpw *w = hpw_new("1.0.2", 3, 0);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    expect_error(w, 19, "identifier size 3");
    hpw_free(w);
    w = hpw_new("1.0.2", 8, 0);
    expect_error(w, w->len, "no HEAP DUMP");
    hpw_free(w);
}

/* An instance whose field bytes disagree with its class, a class that is its
 * own superclass. */
static void test_inconsistent_classes(void **state)
{
    (void)state;
    hpw *w = header_only(8);
    const hpw_field f[] = { { 1, 10, 0 } };
    hpw_begin(w, 0x0C);
    hpw_class_dump(w, 0x100, 0, 0, 4, NULL, 0, f, 1);
    size_t at = w->len;
    hpw_instance(w, 0x1000, 0x100, "\0\0", 2);
    hpw_end(w);
    expect_error(w, at, "has 2 bytes of fields, its class declares 4");
    hpw_free(w);

    w = header_only(8);
    hpw_begin(w, 0x0C);
    hpw_class_dump(w, 0x100, 0x110, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, 0x110, 0x100, 0, 0, NULL, 0, NULL, 0);
    hpw_end(w);
    expect_error(w, UINT64_MAX, "its own superclass");
    hpw_free(w);
}

/* Every prefix of the sample is malformed (the dump ends with HEAP DUMP END
 * after segments) and fails cleanly; the whole dump loads. */
static void test_sweep_truncation(void **state)
{
    (void)state;
    for (unsigned id = 4; id <= 8; id += 4) {
        hpw *w = sample(id);
        for (size_t n = 0; n < w->len; n++) {
            gch_dump *d = NULL;
            gch_error err;
            gch_status st = gch_read_hprof_buffer(w->buf, n, NULL, &d, &err);
            assert_int_equal(st, GCH_EFORMAT);
            assert_null(heap_check_error(st, d, &err, 0));
            assert_true(err.has_offset && err.offset <= n);
        }
        gch_dump *d = NULL;
        gch_error err;
        assert_int_equal(gch_read_hprof_buffer(w->buf, w->len, NULL, &d, &err), GCH_OK);
        gch_dump_free(d);
        hpw_free(w);
    }
}

/* Random byte changes: a clean error or a heap that passes every check. */
static void test_sweep_random_corruption(void **state)
{
    (void)state;
    uint32_t rng = 12345;
    for (unsigned id = 4; id <= 8; id += 4) {
        hpw *w = sample(id);
        unsigned char *copy = malloc(w->len);
        assert_non_null(copy);
        for (int round = 0; round < 1500; round++) {
            memcpy(copy, w->buf, w->len);
            int flips = 1 + round % 4;
            for (int k = 0; k < flips; k++) {
                rng = rng * 1103515245u + 12345u;
                size_t at = 19 + (rng >> 8) % (w->len - 19);
                rng = rng * 1103515245u + 12345u;
                copy[at] = (unsigned char)(rng >> 16);
            }
            gch_dump *d = NULL;
            gch_error err;
            gch_status st = gch_read_hprof_buffer(copy, w->len, NULL, &d, &err);
            if (st == GCH_OK) {
                assert_null(heap_check_dump(d));
                gch_status ast = GCH_OK;
                assert_null(heap_check_analyses(d->heaps[0], &ast, NULL));
                gch_dump_free(d);
            } else {
                const char *why = heap_check_error(st, d, &err, 0);
                if (why)
                    fprintf(stderr, "round %d: status %d: %s (%s)\n", round, st, why, err.message);
                assert_null(why);
            }
        }
        free(copy);
        hpw_free(w);
    }
}

/* With HPROF_WRITE_SEEDS=DIR, writes the sample dumps there (the fuzz seeds
 * in tests/fuzz/seeds/hprof/) instead of testing. */
static int write_seeds(const char *dir)
{
    for (unsigned id = 4; id <= 8; id += 4) {
        char path[4096];
        snprintf(path, sizeof path, "%s/sample-id%u.hprof", dir, id);
        hpw *w = sample(id);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(w->buf, 1, w->len, f) != w->len || fclose(f) != 0)
            return 1;
        hpw_free(w);
        /* Strings and primitive arrays (keep_payloads): JDK 9+ and JDK 8 forms. */
        snprintf(path, sizeof path, "%s/strings-id%u.hprof", dir, id);
        w = strings_dump(id, id == 4);
        f = fopen(path, "wb");
        if (!f || fwrite(w->buf, 1, w->len, f) != w->len || fclose(f) != 0)
            return 1;
        hpw_free(w);
    }
    /* Also testdata/hprof/art-strings.hprof (the golden case of ART strings). */
    char path[4096];
    snprintf(path, sizeof path, "%s/art-strings.hprof", dir);
    hpw *w = art_strings_dump();
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(w->buf, 1, w->len, f) != w->len || fclose(f) != 0)
        return 1;
    hpw_free(w);
    return 0;
}

int main(void)
{
    if (getenv("HPROF_WRITE_SEEDS"))
        return write_seeds(getenv("HPROF_WRITE_SEEDS"));
    sweeps_select();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_compressed),
        cmocka_unit_test(test_sample_wide),
        cmocka_unit_test(test_sample_id4),
        cmocka_unit_test(test_skip_refs),
        cmocka_unit_test(test_detect_and_pipe),
        cmocka_unit_test(test_rule_vote),
        cmocka_unit_test(test_art),
        cmocka_unit_test(test_thread_names),
        cmocka_unit_test(test_contended),
        cmocka_unit_test(test_thread_names_shared),
        cmocka_unit_test(test_payloads),
        cmocka_unit_test(test_payloads_alloc_failure),
        cmocka_unit_test(test_payloads_art),
        cmocka_unit_test(test_unknown_tags),
        cmocka_unit_test(test_stack_frames),
        cmocka_unit_test(test_hostile_lengths),
        cmocka_unit_test(test_bad_header),
        cmocka_unit_test(test_inconsistent_classes),
        cmocka_unit_test(test_sweep_truncation),
        cmocka_unit_test(test_sweep_random_corruption),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
