/* The .gcdump reader on files made by the test writer: round trip against a
 * heap described by hand, root mapping, size buckets, modules, sampling,
 * metadata, version checks, the total-size check, and truncation at every byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcdump_writer.h"
#include "gcheap/alloc.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"

/* ---- the sample heap, described once for the writer ---- */

enum {
    T_NET_ROOTS, T_STATIC_VARS, T_STATIC_VAR, T_LOCAL_VARS, T_PINNED_HANDLES, T_FINALIZER,
    T_OTHER_ROOTS, T_STRONG_HANDLES, T_DEPENDENT, T_STRING, T_BYTES, T_BYTES_10K, T_NODE,
    T_UNICODE, T_ORPHAN, T_COUNT
};

/* U+00DC (2 bytes), U+20AC (3 bytes), U+1D11E (a surrogate pair). */
#define UNICODE_NAME "App.\xC3\x9C\xE2\x82\xAC\xF0\x9D\x84\x9E"

static const gcdw_type sample_types[T_COUNT] = {
    [T_NET_ROOTS] = { "[.NET Roots]", NULL },
    [T_STATIC_VARS] = { "[static vars]", NULL },
    [T_STATIC_VAR] = { "[static var App.Cache.items]", NULL },
    [T_LOCAL_VARS] = { "[local vars]", NULL },
    [T_PINNED_HANDLES] = { "[pinned Handles]", NULL },
    [T_FINALIZER] = { "[finalizer Handles]", NULL },
    [T_OTHER_ROOTS] = { "[other roots]", NULL },
    [T_STRONG_HANDLES] = { "[strong Handles]", NULL },
    [T_DEPENDENT] = { "[Dependent Handles]", NULL },
    [T_STRING] = { "System.String", "System.Private.CoreLib.dll" },
    [T_BYTES] = { "System.Byte[]", "System.Private.CoreLib.dll" },
    [T_BYTES_10K] = { "System.Byte[] (Bytes > 10K)", "System.Private.CoreLib.dll" },
    [T_NODE] = { "App.Node", "App.dll" },
    [T_UNICODE] = { UNICODE_NAME, "App.dll" },
    [T_ORPHAN] = { "[orphan]", NULL },
};

static const uint32_t k0[] = { 1, 3, 4, 5, 6 }, k1[] = { 2 }, k2[] = { 7 }, k3[] = { 8, 9 },
                      k4[] = { 10 }, k5[] = { 11 }, k6[] = { 12, 13, 8 }, k7[] = { 8, 9, 2 },
                      k11[] = { 14 }, k12[] = { 7 }, k13[] = { 10 }, k15[] = { 7 }, k16[] = { 8 };
#define KIDS(k) k, (uint32_t)(sizeof k / sizeof *k)

static const gcdw_node sample_nodes[] = {
    /* 0 */ { T_NET_ROOTS, 0, 0, KIDS(k0), 0 },
    /* 1 */ { T_STATIC_VARS, 0, 0, KIDS(k1), 0 },
    /* 2 */ { T_STATIC_VAR, 0, 0, KIDS(k2), 0 },
    /* 3 */ { T_LOCAL_VARS, 0, 0, KIDS(k3), 0 },
    /* 4 */ { T_PINNED_HANDLES, 0, 0, KIDS(k4), 0 },
    /* 5 */ { T_FINALIZER, 0, 0, KIDS(k5), 0 },
    /* 6 */ { T_OTHER_ROOTS, 0, 0, KIDS(k6), 0 },
    /* 7 */ { T_NODE, 24, 0x1000, KIDS(k7), 0 },
    /* 8 */ { T_STRING, 30, 0x2000, NULL, 0, 0 },
    /* 9 */ { T_BYTES_10K, 20000, 0x3000, NULL, 0, 0 },
    /* 10 */ { T_BYTES, 100, 0x4000, NULL, 0, 0 },
    /* 11 */ { T_NODE, 24, 0x5000, KIDS(k11), 0 },
    /* 12 */ { T_STRONG_HANDLES, 0, 0, KIDS(k12), 0 },
    /* 13 */ { T_DEPENDENT, 0, 0, KIDS(k13), 0 },
    /* 14 */ { T_STRING, 0, 0x6000, NULL, 0, 1 }, /* referenced, never defined */
    /* 15 */ { T_UNICODE, 40, 0x7000, KIDS(k15), 0 },
    /* 16 */ { T_ORPHAN, 0, 0, KIDS(k16), 0 }, /* address 0, not under the root */
};
#define SAMPLE_NODE_COUNT (uint32_t)(sizeof sample_nodes / sizeof *sample_nodes)

/* 2015-01-05T10:48:40Z in .NET ticks, with DateTimeKind.Utc in the top bits. */
#define SAMPLE_TICKS (635560517200000000LL | (1LL << 62))

static gcdw_desc sample_desc(void)
{
    gcdw_desc d;
    memset(&d, 0, sizeof d);
    d.types = sample_types;
    d.type_count = T_COUNT;
    d.nodes = sample_nodes;
    d.node_count = SAMPLE_NODE_COUNT;
    d.root = 0;
    d.is64 = 1;
    d.process_name = "TestApp";
    d.machine_name = "BUILD01";
    d.creation_tool = "gcheap-test-writer";
    d.process_id = 4242;
    d.time_ticks = SAMPLE_TICKS;
    return d;
}

/* ---- what the heap must look like, worked out by hand from the table above ---- */

typedef struct expected_object {
    uint64_t id;
    const char *type;
    uint64_t size;
    uint64_t refs[3];
    size_t nrefs;
} expected_object;

/* Node 7's child 2 is a pseudo-node (dropped); node 11's child 14 was never
 * defined (a dangling reference). */
static const expected_object expected_objects[] = {
    { 0x1000, "App.Node", 24, { 0x2000, 0x3000 }, 2 },
    { 0x2000, "System.String", 30, { 0 }, 0 },
    { 0x3000, "System.Byte[]", 20000, { 0 }, 0 },
    { 0x4000, "System.Byte[]", 100, { 0 }, 0 },
    { 0x5000, "App.Node", 24, { 0 }, 0 },
    { 0x7000, UNICODE_NAME, 40, { 0x1000 }, 1 },
};
#define EXPECTED_TOTAL (24 + 30 + 20000 + 100 + 24 + 40)

typedef struct expected_root {
    uint64_t id;
    unsigned kind, flags;
    const char *label;
} expected_root;

/* The orphan's edge to 0x2000 is not a root: it is not under the root node. */
static const expected_root expected_roots[] = {
    { 0x2000, GCH_ROOT_LOCAL, 0, "[local vars]" },
    { 0x3000, GCH_ROOT_LOCAL, 0, "[local vars]" },
    { 0x4000, GCH_ROOT_HANDLE, GCH_ROOT_PINNED, "[pinned Handles]" },
    { 0x5000, GCH_ROOT_FINALIZER, 0, "[finalizer Handles]" },
    { 0x2000, GCH_ROOT_RUNTIME, 0, "[other roots]" },
    { 0x1000, GCH_ROOT_STATIC, 0, "[static var App.Cache.items]" },
    { 0x1000, GCH_ROOT_HANDLE, 0, "[strong Handles]" },
    { 0x4000, GCH_ROOT_HANDLE, 0, "[Dependent Handles]" },
};

#define COUNT(a) (sizeof a / sizeof *a)

static gch_status read_desc(const gcdw_desc *d, const gch_load_options *opts, gch_dump **out,
                            gch_error *err, gcdw_result *file)
{
    gcdw_result local;
    gcdw_result *r = file ? file : &local;
    gcdw_write(d, r);
    gch_status st = gch_read_gcdump_buffer(r->data, r->size, opts, out, err);
    if (!file)
        free(r->data);
    return st;
}

static gch_heap *read_ok(const gcdw_desc *d, const gch_load_options *opts, gch_dump **dump)
{
    gch_error err;
    gch_status st = read_desc(d, opts, dump, &err, NULL);
    if (st != GCH_OK)
        fail_msg("read failed: %s (offset %llu)", err.message, (unsigned long long)err.offset);
    assert_non_null(*dump);
    assert_int_equal((*dump)->heap_count, 1);
    return (*dump)->heaps[0];
}

static const char *meta_value(const gch_heap *h, const char *key)
{
    for (size_t i = 0; i < h->meta_count; i++)
        if (strcmp(h->meta[i].key, key) == 0)
            return h->meta[i].value;
    return NULL;
}

static uint32_t find_type(const gch_heap *h, const char *name)
{
    for (uint32_t t = 0; t < h->type_count; t++)
        if (strcmp(gch_type_name(h, t), name) == 0)
            return t;
    return GCH_NONE;
}

static void test_round_trip_objects(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);

    assert_string_equal(h->name, "TestApp");
    assert_int_equal(h->id_radix, 16);
    assert_int_equal(h->object_count, COUNT(expected_objects));
    assert_int_equal(h->total_size, EXPECTED_TOTAL);
    for (size_t k = 0; k < COUNT(expected_objects); k++) {
        const expected_object *e = &expected_objects[k];
        uint32_t i = gch_heap_find_object(h, e->id);
        assert_int_not_equal(i, GCH_NONE);
        assert_string_equal(gch_type_name(h, h->object_type[i]), e->type);
        assert_int_equal(gch_object_size(h, i), e->size);
        assert_int_equal(h->out_start[i + 1] - h->out_start[i], e->nrefs);
        for (size_t r = 0; r < e->nrefs; r++)
            assert_int_equal(h->object_id[h->out_target[h->out_start[i] + r]], e->refs[r]);
    }
    /* Merged buckets: System.Byte[] is one type; pseudo-node types are not types. */
    assert_int_equal(h->type_count, 4);
    assert_int_equal(find_type(h, "System.Byte[] (Bytes > 10K)"), GCH_NONE);
    assert_int_equal(find_type(h, "[local vars]"), GCH_NONE);
    assert_int_equal(h->anomalies.dangling_refs, 1);
    assert_int_equal(h->anomalies.first_dangling_ref, 0x6000);
    assert_int_equal(h->anomalies.duplicate_objects, 0);
    assert_int_equal(h->type_module[0], GCH_NONE); /* modules only with keep_modules */
    assert_int_equal(h->sampled, 0);
    gch_dump_free(dump);
}

static void test_round_trip_roots(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    assert_int_equal(h->root_count, COUNT(expected_roots));
    int used[COUNT(expected_roots)] = { 0 };
    for (uint32_t r = 0; r < h->root_count; r++) {
        size_t k = 0;
        for (; k < COUNT(expected_roots); k++) {
            const expected_root *e = &expected_roots[k];
            if (!used[k] && e->id == h->root_raw_id[r] && e->kind == h->root_kind[r] &&
                e->flags == h->root_flags[r] && strcmp(e->label, gch_heap_string(h, h->root_label[r])) == 0)
                break;
        }
        if (k == COUNT(expected_roots))
            fail_msg("unexpected root %llx kind %u flags %u label %s",
                     (unsigned long long)h->root_raw_id[r], h->root_kind[r], h->root_flags[r],
                     gch_heap_string(h, h->root_label[r]));
        used[k] = 1;
        assert_int_not_equal(h->root_object[r], GCH_NONE);
        assert_int_equal(h->root_has_container[r], 0);
    }
    assert_int_equal(h->anomalies.dangling_roots, 0);
    gch_dump_free(dump);
}

static void test_metadata(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    assert_string_equal(meta_value(h, "creating tool"), "gcheap-test-writer");
    assert_string_equal(meta_value(h, "process name"), "TestApp");
    assert_string_equal(meta_value(h, "process id"), "4242");
    assert_string_equal(meta_value(h, "machine name"), "BUILD01");
    assert_string_equal(meta_value(h, "time collected"), "2015-01-05T10:48:40Z");
    assert_string_equal(meta_value(h, "pointer size"), "8 bytes (64-bit process)");
    assert_string_equal(meta_value(h, "total size recorded"), "20218 bytes");
    /* 17 nodes: 10 with address 0 (9 under the root, the orphan), 1 undefined. */
    assert_string_equal(meta_value(h, "nodes"), "17 (10 pseudo-nodes, 1 never defined)");
    assert_string_equal(meta_value(h, "types in file"), "16");
    assert_string_equal(meta_value(h, "sampling"), "none (every object recorded)");
    assert_null(meta_value(h, "segments"));
    gch_dump_free(dump);
}

static void test_absent_fields(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    d.process_name = NULL;
    d.machine_name = NULL;
    d.creation_tool = NULL;
    d.process_id = 0;
    d.time_ticks = 0;
    d.is64 = 0;
    d.no_interop = 1;
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    assert_string_equal(h->name, "gcdump");
    assert_string_equal(meta_value(h, "creating tool"), "not recorded");
    assert_null(meta_value(h, "process name"));
    assert_null(meta_value(h, "time collected"));
    assert_string_equal(meta_value(h, "pointer size"), "4 bytes (32-bit process)");
    gch_dump_free(dump);
}

static void test_size_buckets_kept(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    gch_load_options opts = { 0 };
    opts.size_buckets = 1;
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    assert_int_equal(h->type_count, 5);
    uint32_t t = find_type(h, "System.Byte[] (Bytes > 10K)");
    assert_int_not_equal(t, GCH_NONE);
    assert_int_equal(h->object_type[gch_heap_find_object(h, 0x3000)], t);
    assert_int_not_equal(h->object_type[gch_heap_find_object(h, 0x4000)], t);
    gch_dump_free(dump);
}

static void test_modules(void **state)
{
    (void)state;
    /* Two types named alike in different modules: one type without
     * keep_modules, two with it. Modules are shown as PerfView shows them:
     * the file name without folder and extension (a full Windows path to a
     * native image is "mscorlib"); a name with no such parts as written. */
    static const gcdw_type types[] = {
        { "[.NET Roots]", NULL }, { "Dup", "A.dll" }, { "Dup", "B.dll" },
        { "System.String",
          "C:\\Windows\\assembly\\NativeImages_v4.0.30319_64\\mscorlib\\0f1e\\mscorlib.ni.dll" },
        { "Tool", "/usr/share/dotnet/tool.EXE" }, { "Other", "Module(0x7f00)" },
    };
    static const uint32_t root_kids[] = { 1, 2, 3, 4, 5 };
    static const gcdw_node nodes[] = {
        { 0, 0, 0, root_kids, 5, 0 },
        { 1, 8, 0x10, NULL, 0, 0 },
        { 2, 8, 0x20, NULL, 0, 0 },
        { 3, 8, 0x30, NULL, 0, 0 },
        { 4, 8, 0x40, NULL, 0, 0 },
        { 5, 8, 0x50, NULL, 0, 0 },
    };
    gcdw_desc d = sample_desc();
    d.types = types;
    d.type_count = 6;
    d.nodes = nodes;
    d.node_count = 6;
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    assert_int_equal(h->type_count, 4);
    assert_int_equal(h->type_module[0], GCH_NONE);
    gch_dump_free(dump);

    opts.keep_modules = 1;
    h = read_ok(&d, &opts, &dump);
    assert_int_equal(h->type_count, 5);
    static const struct { uint64_t id; const char *module; } want[] = {
        { 0x10, "A" }, { 0x20, "B" }, { 0x30, "mscorlib" }, { 0x40, "tool" }, { 0x50, "Module(0x7f00)" },
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        assert_string_equal(
            gch_heap_string(h, h->type_module[h->object_type[gch_heap_find_object(h, want[i].id)]]),
            want[i].module);
    gch_dump_free(dump);
}

static void test_skip_refs(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    gch_load_options opts = { 0 };
    opts.skip_refs = 1;
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    assert_int_equal(h->refs_loaded, 0);
    assert_int_equal(h->ref_count, 0);
    assert_int_equal(h->object_count, COUNT(expected_objects));
    assert_int_equal(h->total_size, EXPECTED_TOTAL);
    assert_int_equal(h->root_count, COUNT(expected_roots));
    gch_dump_free(dump);
}

static void test_sampled(void **state)
{
    (void)state;
    static const float mults[T_COUNT + 1] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4, 1, 2.5f, 1, 1, 1 };
    gcdw_desc d = sample_desc();
    d.count_multipliers = mults;
    d.count_multiplier_count = T_COUNT + 1;
    d.average_count_multiplier = 2.0f;
    d.average_size_multiplier = 1.5f;
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    assert_int_equal(h->sampled, 1);
    /* Counts and sizes stay as recorded. */
    assert_int_equal(h->object_count, COUNT(expected_objects));
    assert_int_equal(h->total_size, EXPECTED_TOTAL);
    assert_non_null(strstr(meta_value(h, "sampling"), "average count multiplier 2"));
    assert_string_equal(meta_value(h, "count multipliers by type"), "16 types, from 1 to 4");
    gch_dump_free(dump);
}

static void test_segments(void **state)
{
    (void)state;
    static const gcdw_segment segs[] = {
        { { 0x1000, 0x9000, 0x9000, 0x8000, 0x7000, 0x1000, 0x1000 } },
        { { 0x20000, 0x30000, 0x30000, 0x30000, 0x30000, 0x30000, 0x30000 } },
    };
    gcdw_desc d = sample_desc();
    d.segments = segs;
    d.segment_count = 2;
    for (int version = 0; version <= 1; version++) {
        d.segment_version = version;
        gch_load_options opts = { 0 };
        gch_dump *dump;
        gch_heap *h = read_ok(&d, &opts, &dump);
        assert_string_equal(meta_value(h, "segments"), "98304 bytes in 2 segments");
        const char *s1 = meta_value(h, "segment 1");
        assert_non_null(s1);
        assert_non_null(strstr(s1, "start 0x1000, end 0x9000, gen0 end 0x9000, gen1 end 0x8000"));
        assert_int_equal(strstr(s1, "gen4 end") != NULL, version == 1);
        assert_non_null(meta_value(h, "segment 2"));
        gch_dump_free(dump);
    }
}

static void test_forward_compatible_fields(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    d.deferred_region = 1;
    d.extra_tagged_fields = 1;
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    assert_int_equal(h->object_count, COUNT(expected_objects));
    assert_string_equal(meta_value(h, "creating tool"), "gcheap-test-writer");
    assert_non_null(meta_value(h, "deferred type names"));
    gch_dump_free(dump);
}

static void expect_format_error(const gcdw_desc *d, const char *needle, gcdw_result *file)
{
    gch_load_options opts = { 0 };
    gch_dump *dump = (gch_dump *)1;
    gch_error err;
    gch_status st = read_desc(d, &opts, &dump, &err, file);
    assert_int_equal(st, GCH_EFORMAT);
    assert_null(dump);
    assert_int_equal(err.has_offset, 1);
    if (!strstr(err.message, needle))
        fail_msg("message \"%s\" lacks \"%s\"", err.message, needle);
}

static void test_old_versions_rejected(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    d.version = 7;
    expect_format_error(&d, "version 7", NULL);
    d.version = 8;
    expect_format_error(&d, "version 8", NULL);
    d.version = 9;
    gch_load_options opts = { 0 };
    gch_dump *dump;
    read_ok(&d, &opts, &dump);
    gch_dump_free(dump);
}

static void test_total_size_mismatch(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    d.total_size_delta = 8;
    gcdw_result file;
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_error err;
    gcdw_write(&d, &file);
    assert_int_equal(gch_read_gcdump_buffer(file.data, file.size, &opts, &dump, &err), GCH_EFORMAT);
    assert_int_equal(err.offset, file.total_size_at);
    assert_non_null(strstr(err.message, "20218"));
    free(file.data);
}

static void test_bad_child_index(void **state)
{
    (void)state;
    static const gcdw_type types[] = { { "[.NET Roots]", NULL }, { "X", NULL } };
    static const uint32_t root_kids[] = { 1 }, bad_kids[] = { 5 };
    static const gcdw_node nodes[] = {
        { 0, 0, 0, root_kids, 1, 0 },
        { 1, 8, 0x10, bad_kids, 1, 0 },
    };
    gcdw_desc d = sample_desc();
    d.types = types;
    d.type_count = 2;
    d.nodes = nodes;
    d.node_count = 2;
    expect_format_error(&d, "refers to node 5", NULL);
}

static void test_duplicate_addresses(void **state)
{
    (void)state;
    static const gcdw_type types[] = { { "[.NET Roots]", NULL }, { "A", NULL }, { "B", NULL } };
    static const uint32_t root_kids[] = { 1 };
    static const gcdw_node nodes[] = {
        { 0, 0, 0, root_kids, 1, 0 },
        { 1, 8, 0x10, NULL, 0, 0 },
        { 2, 16, 0x10, NULL, 0, 0 },
    };
    gcdw_desc d = sample_desc();
    d.types = types;
    d.type_count = 3;
    d.nodes = nodes;
    d.node_count = 3;
    gch_load_options opts = { 0 };
    gch_dump *dump;
    gch_heap *h = read_ok(&d, &opts, &dump);
    /* The builder keeps the first object with an address. */
    assert_int_equal(h->object_count, 1);
    assert_int_equal(h->anomalies.duplicate_objects, 1);
    assert_string_equal(gch_type_name(h, h->object_type[0]), "A");
    gch_dump_free(dump);
}

/* Every prefix of a valid file is malformed: the reader must say so, reading
 * nothing past the prefix (each prefix gets its own exact-size allocation so
 * that ASan catches an overread). */
static void test_truncation_everywhere(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    d.extra_tagged_fields = 1;
    gcdw_result file;
    gcdw_write(&d, &file);
    gch_load_options opts = { 0 };
    for (size_t n = 0; n < file.size; n++) {
        unsigned char *copy = malloc(n ? n : 1);
        assert_non_null(copy);
        memcpy(copy, file.data, n);
        gch_dump *dump = (gch_dump *)1;
        gch_error err;
        gch_status st = gch_read_gcdump_buffer(copy, n, &opts, &dump, &err);
        if (st != GCH_EFORMAT)
            fail_msg("prefix of %zu bytes gave status %d", n, (int)st);
        assert_null(dump);
        assert_true(err.offset <= n);
        free(copy);
    }
    free(file.data);
}

/* Single-byte corruption anywhere must never crash; most give EFORMAT. */
static void test_corruption_never_crashes(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    gcdw_result file;
    gcdw_write(&d, &file);
    gch_load_options opts = { 0 };
    unsigned char *copy = malloc(file.size);
    assert_non_null(copy);
    static const unsigned char values[] = { 0x00, 0x01, 0x06, 0x7F, 0x80, 0xFF };
    for (size_t i = 0; i < file.size; i++) {
        for (size_t v = 0; v < sizeof values; v++) {
            memcpy(copy, file.data, file.size);
            copy[i] = values[v];
            gch_dump *dump = NULL;
            gch_error err;
            gch_status st = gch_read_gcdump_buffer(copy, file.size, &opts, &dump, &err);
            assert_true(st == GCH_OK || st == GCH_EFORMAT);
            gch_dump_free(dump);
        }
    }
    free(copy);
    free(file.data);
}

/* An allocator that fails from the Nth allocation on. */
static long allocs_left;

static void *failing_malloc(void *ctx, size_t size)
{
    (void)ctx;
    return allocs_left-- > 0 ? malloc(size) : NULL;
}

static void *failing_realloc(void *ctx, void *p, size_t size)
{
    (void)ctx;
    return allocs_left-- > 0 ? realloc(p, size) : NULL;
}

static void plain_free(void *ctx, void *p)
{
    (void)ctx;
    free(p);
}

/* Every allocation failure becomes GCH_ENOMEM with nothing leaked (ASan's
 * leak checker watches the sanitized build). */
static void test_allocation_failures(void **state)
{
    (void)state;
    gcdw_desc d = sample_desc();
    d.segments = NULL;
    gcdw_result file;
    gcdw_write(&d, &file);
    const gch_allocator failing = { failing_malloc, failing_realloc, plain_free, NULL, NULL };
    gch_load_options opts = { 0 };
    gch_status st = GCH_ENOMEM;
    long n;
    for (n = 0; st == GCH_ENOMEM && n < 10000; n++) {
        allocs_left = n;
        gch_set_allocator(&failing);
        gch_dump *dump = NULL;
        gch_error err;
        st = gch_read_gcdump_buffer(file.data, file.size, &opts, &dump, &err);
        gch_set_allocator(NULL);
        if (st == GCH_OK)
            gch_dump_free(dump);
        else
            assert_null(dump);
    }
    assert_int_equal(st, GCH_OK);
    assert_true(n > 10); /* the loop did exercise failures */
    free(file.data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_objects),
        cmocka_unit_test(test_round_trip_roots),
        cmocka_unit_test(test_metadata),
        cmocka_unit_test(test_absent_fields),
        cmocka_unit_test(test_size_buckets_kept),
        cmocka_unit_test(test_modules),
        cmocka_unit_test(test_skip_refs),
        cmocka_unit_test(test_sampled),
        cmocka_unit_test(test_segments),
        cmocka_unit_test(test_forward_compatible_fields),
        cmocka_unit_test(test_old_versions_rejected),
        cmocka_unit_test(test_total_size_mismatch),
        cmocka_unit_test(test_bad_child_index),
        cmocka_unit_test(test_duplicate_addresses),
        cmocka_unit_test(test_truncation_everywhere),
        cmocka_unit_test(test_corruption_never_crashes),
        cmocka_unit_test(test_allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
