/* Leak rules (gcheap/rules.h) on HPROF heaps written by tests/support's
 * writer, against what the test built: which activities it marked destroyed
 * and kept reachable, which class loaders it stopped, and the labels
 * LeakCanary's rules give each step of a known path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "gcheap/paths.h"
#include "gcheap/rules.h"
#include "hprof_writer.h"

enum { /* string ids */
    S_OBJECT = 1, S_CLASS, S_ACTIVITY, S_MAIN, S_HOLDER, S_BUS, S_ARRAY, S_STRING, S_BYTES,
    S_ENUM, S_STATE, S_LOADER_BASE, S_LOADER, S_DESTROYED_F, S_FINISHED_F, S_TARGET_F, S_NEXT_F,
    S_LISTENERS_F, S_VALUE_F, S_CODER_F, S_NAME_F, S_ORDINAL_F, S_AVAILABLE_F, S_STATE_F,
    S_LOADERS_F, S_CLASSLOADER, S_COUNT
};
enum { /* class ids */
    C_OBJECT = 0x100, C_CLASS = 0x110, C_ACTIVITY = 0x120, C_MAIN = 0x130, C_HOLDER = 0x140,
    C_BUS = 0x150, C_ARRAY = 0x160, C_STRING = 0x170, C_BYTES = 0x180, C_ENUM = 0x190,
    C_STATE = 0x1a0, C_LOADER_BASE = 0x1b0, C_LOADER = 0x1c0, C_CLASSLOADER = 0x1d0
};

#define ACTIVITIES 30
#define ACTIVITY_ID(i) (0x10000u + 0x10u * (i))
#define HOLDER_ID(i) (0x20000u + 0x10u * (i))

/* Activity i is destroyed when i % 3 == 0 and kept (through a Holder in the
 * bus's array) when i % 2 == 0; activity 1 (running) also holds, through a
 * Holder, the destroyed activity 3, so that path has a "no" step. */
static int destroyed(unsigned i) { return i % 3 == 0; }
static int kept(unsigned i) { return i % 2 == 0 || i == 1 || i == 3; }

static void strings(hpw *w)
{
    static const char *const names[S_COUNT] = {
        NULL, "java/lang/Object", "java/lang/Class", "android/app/Activity", "app/MainActivity",
        "app/Holder", "app/Bus", "[Ljava/lang/Object;", "java/lang/String", "[B",
        "java/lang/Enum", "org/apache/catalina/LifecycleState",
        "org/apache/catalina/loader/WebappClassLoaderBase",
        "org/apache/catalina/loader/ParallelWebappClassLoader", "mDestroyed", "mFinished",
        "target", "next", "listeners", "value", "coder", "name", "ordinal", "available", "state",
        "loaders", "java/lang/ClassLoader",
    };
    for (unsigned i = 1; i < S_COUNT; i++)
        hpw_string(w, i, names[i]);
    static const uint64_t classes[][2] = {
        { C_OBJECT, S_OBJECT }, { C_CLASS, S_CLASS }, { C_ACTIVITY, S_ACTIVITY },
        { C_MAIN, S_MAIN }, { C_HOLDER, S_HOLDER }, { C_BUS, S_BUS }, { C_ARRAY, S_ARRAY },
        { C_STRING, S_STRING }, { C_BYTES, S_BYTES }, { C_ENUM, S_ENUM }, { C_STATE, S_STATE },
        { C_LOADER_BASE, S_LOADER_BASE }, { C_LOADER, S_LOADER }, { C_CLASSLOADER, S_CLASSLOADER },
    };
    for (unsigned i = 0; i < sizeof classes / sizeof *classes; i++)
        hpw_load_class(w, i + 1, classes[i][0], classes[i][1]);
}

static void classes(hpw *w)
{
    unsigned id = w->id_size;
    const hpw_field activity[] = { { S_DESTROYED_F, 4, 0 }, { S_FINISHED_F, 4, 0 } };
    const hpw_field holder[] = { { S_TARGET_F, 2, 0 } };
    const hpw_field main_fields[] = { { S_NEXT_F, 2, 0 } };
    const hpw_field bus_statics[] = { { S_LISTENERS_F, 2, 0x3000 }, { S_LOADERS_F, 2, 0x3100 } };
    const hpw_field string[] = { { S_VALUE_F, 2, 0 }, { S_CODER_F, 8, 0 } };
    const hpw_field enumf[] = { { S_NAME_F, 2, 0 }, { S_ORDINAL_F, 10, 0 } };
    const hpw_field state[] = { { S_AVAILABLE_F, 4, 0 } };
    const hpw_field loader[] = { { S_STATE_F, 2, 0 } };
    hpw_class_dump(w, C_OBJECT, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_CLASS, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_ACTIVITY, C_OBJECT, 0, 2, NULL, 0, activity, 2);
    hpw_class_dump(w, C_MAIN, C_ACTIVITY, 0, id + 2, NULL, 0, main_fields, 1);
    hpw_class_dump(w, C_HOLDER, C_OBJECT, 0, id, NULL, 0, holder, 1);
    hpw_class_dump(w, C_BUS, C_OBJECT, 0, 0, bus_statics, 2, NULL, 0);
    hpw_class_dump(w, C_ARRAY, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_STRING, C_OBJECT, 0, id + 1, NULL, 0, string, 2);
    hpw_class_dump(w, C_BYTES, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_ENUM, C_OBJECT, 0, id + 4, NULL, 0, enumf, 2);
    hpw_class_dump(w, C_STATE, C_ENUM, 0, id + 5, NULL, 0, state, 1);
    hpw_class_dump(w, C_CLASSLOADER, C_OBJECT, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, C_LOADER_BASE, C_CLASSLOADER, 0, id, NULL, 0, loader, 1);
    hpw_class_dump(w, C_LOADER, C_LOADER_BASE, 0, id, NULL, 0, NULL, 0);
}

static void activity(hpw *w, unsigned i)
{
    unsigned char v[32];
    /* Fields in dump order: the class's own first (next), then Activity's. */
    uint64_t next = i == 1 ? HOLDER_ID(3) : 0;
    size_t n = hpw_value(w, 2, next, v);
    n += hpw_value(w, 4, destroyed(i), v + n);
    n += hpw_value(w, 4, 0, v + n);
    hpw_instance(w, ACTIVITY_ID(i), C_MAIN, v, (uint32_t)n);
}

static void holder(hpw *w, uint64_t id, uint64_t target)
{
    unsigned char v[8];
    hpw_instance(w, id, C_HOLDER, v, (uint32_t)hpw_value(w, 2, target, v));
}

/* A LifecycleState constant: its own field (available), then Enum's (name,
 * ordinal); name is a Latin-1 String. */
static void state(hpw *w, uint64_t id, const char *name, int available, uint64_t sid)
{
    unsigned char v[32];
    size_t n = hpw_value(w, 4, (uint64_t)available, v);
    n += hpw_value(w, 2, sid, v + n);
    n += hpw_value(w, 10, 0, v + n);
    hpw_instance(w, id, C_STATE, v, (uint32_t)n);
    n = hpw_value(w, 2, sid + 1, v);
    n += hpw_value(w, 8, 0, v + n);
    hpw_instance(w, sid, C_STRING, v, (uint32_t)n);
    hpw_prim_array(w, sid + 1, 8, (uint32_t)strlen(name), name);
}

static void loader(hpw *w, uint64_t id, uint64_t state_id)
{
    unsigned char v[8];
    hpw_instance(w, id, C_LOADER, v, (uint32_t)hpw_value(w, 2, state_id, v));
}

static hpw *sample(unsigned id_size)
{
    hpw *w = hpw_new("1.0.2", id_size, 1700000000000ull);
    strings(w);
    hpw_begin(w, 0x1C);
    classes(w);
    uint64_t listeners[ACTIVITIES];
    uint32_t nl = 0;
    for (unsigned i = 0; i < ACTIVITIES; i++) {
        activity(w, i);
        holder(w, HOLDER_ID(i), ACTIVITY_ID(i));
        if (kept(i) && i != 3) /* 3 is kept through activity 1 only */
            listeners[nl++] = HOLDER_ID(i);
    }
    hpw_object_array(w, 0x3000, C_ARRAY, listeners, nl);
    /* Loaders: stopped (DESTROYED), running (STARTED), never started (NEW). */
    static const uint64_t loaders[] = { 0x4000, 0x4010, 0x4020 };
    hpw_object_array(w, 0x3100, C_ARRAY, loaders, 3);
    state(w, 0x5000, "DESTROYED", 0, 0x6000);
    state(w, 0x5010, "STARTED", 1, 0x6010);
    state(w, 0x5020, "NEW", 0, 0x6020);
    loader(w, 0x4000, 0x5000);
    loader(w, 0x4010, 0x5010);
    loader(w, 0x4020, 0x5020);
    hpw_root(w, 0x05, C_BUS, 0, 0); /* sticky class: Bus's statics are roots */
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

typedef struct buffer_ctx {
    const unsigned char *data;
    size_t size;
} buffer_ctx;

static int read_buffer(void *ctx, uint64_t off, void *buf, size_t n)
{
    const buffer_ctx *b = ctx;
    if (off > b->size || n > b->size - off)
        return 1;
    memcpy(buf, b->data + off, n);
    return 0;
}

static gch_dump *load(const hpw *w, int fields)
{
    gch_load_options o;
    memset(&o, 0, sizeof o);
    o.keep_payloads = 1;
    o.keep_fields = fields;
    o.field_classes = gch_rule_field_classes();
    gch_dump *d = NULL;
    gch_error err;
    assert_int_equal(gch_load_buffer(w->buf, w->len, GCH_FORMAT_AUTO, &o, &d, &err), GCH_OK);
    return d;
}

static uint32_t object(const gch_heap *h, uint64_t id)
{
    uint32_t o = gch_heap_find_object(h, id);
    assert_int_not_equal(o, GCH_NONE);
    return o;
}

/* Reachability by a BFS of its own, for the oracle. */
static uint8_t *live_mask(const gch_heap *h)
{
    gch_paths p;
    gch_error err;
    assert_int_equal(gch_paths_build(h, 0, &p, &err), GCH_OK);
    uint8_t *live = calloc(h->object_count + 1, 1);
    for (uint32_t o = 0; o < h->object_count; o++)
        live[o] = p.parent[o] != GCH_NONE;
    gch_paths_free(&p);
    return live;
}

static void check_findings(unsigned id_size)
{
    hpw *w = sample(id_size);
    gch_dump *d = load(w, 1);
    const gch_heap *h = d->heaps[0];
    uint8_t *live = live_mask(h);
    buffer_ctx b = { w->buf, w->len };
    gch_rules_options opt = { NULL, read_buffer, &b, live };
    gch_rule_findings f;
    gch_error err;
    assert_int_equal(gch_rules_find(h, &opt, &f, &err), GCH_OK);
    assert_int_equal(f.no_fields, 0);
    /* The oracle: destroyed and kept activities, then the one stopped loader. */
    size_t k = 0;
    for (unsigned i = 0; i < ACTIVITIES; i++) {
        if (!destroyed(i) || !kept(i))
            continue;
        assert_true(k < f.count);
        assert_string_equal(f.items[k].rule, "destroyed-activity");
        assert_int_equal(h->object_id[f.items[k].object], ACTIVITY_ID(i));
        assert_string_equal(f.items[k].reason, "Activity.mDestroyed is true");
        k++;
    }
    assert_true(k < f.count);
    assert_string_equal(f.items[k].rule, "stopped-classloader");
    assert_int_equal(h->object_id[f.items[k].object], 0x4000);
    assert_string_equal(f.items[k].reason,
                        "WebappClassLoaderBase.state is DESTROYED: the web application was stopped");
    assert_int_equal(k + 1, f.count);
    gch_rule_findings_free(&f);

    /* One rule alone; an unknown one. */
    const char *const only[] = { "stopped-classloader", NULL };
    opt.rules = only;
    assert_int_equal(gch_rules_find(h, &opt, &f, &err), GCH_OK);
    assert_int_equal(f.count, 1);
    gch_rule_findings_free(&f);
    const char *const bad[] = { "no-such-rule", NULL };
    opt.rules = bad;
    assert_int_equal(gch_rules_find(h, &opt, &f, &err), GCH_EINVAL);
    assert_non_null(strstr(err.message, "no-such-rule"));
    assert_int_equal(f.count, 0);
    free(live);
    gch_dump_free(d);
    hpw_free(w);
}

static void test_findings(void **state)
{
    (void)state;
    check_findings(4);
    check_findings(8);
}

/* The path static Bus.listeners -> Object[] -> Holder(1) -> activity 1
 * (running) -> Holder(3) -> activity 3 (destroyed): labels and window. */
static void test_label_path(void **state)
{
    (void)state;
    hpw *w = sample(8);
    gch_dump *d = load(w, 1);
    const gch_heap *h = d->heaps[0];
    buffer_ctx b = { w->buf, w->len };
    gch_rules_options opt = { NULL, read_buffer, &b, NULL };
    uint32_t path[] = { object(h, 0x3000), object(h, HOLDER_ID(1)), object(h, ACTIVITY_ID(1)),
                        object(h, HOLDER_ID(3)), object(h, ACTIVITY_ID(3)) };
    gch_leaking l[5];
    char reasons[5 * GCH_RULE_REASON_MAX];
    size_t from, to;
    gch_error err;
    assert_int_equal(gch_rules_label_path(h, &opt, path, 5, 1, l, reasons, &from, &to, &err),
                     GCH_OK);
    const gch_leaking want[] = { GCH_LEAKING_NO, GCH_LEAKING_NO, GCH_LEAKING_NO,
                                 GCH_LEAKING_UNKNOWN, GCH_LEAKING_YES };
    for (int i = 0; i < 5; i++)
        assert_int_equal(l[i], want[i]);
    assert_string_equal(reasons + 0 * GCH_RULE_REASON_MAX, "MainActivity below is not leaking");
    assert_string_equal(reasons + 2 * GCH_RULE_REASON_MAX, "Activity.mDestroyed is false");
    assert_string_equal(reasons + 4 * GCH_RULE_REASON_MAX, "Activity.mDestroyed is true");
    assert_int_equal(from, 2);
    assert_int_equal(to, 4);
    assert_string_equal(gch_leaking_name(GCH_LEAKING_UNKNOWN), "unknown");
    gch_dump_free(d);
    hpw_free(w);
}

/* Without field values (no keep_fields) nothing is found and the result
 * says why; a read that fails is GCH_EIO, never a wrong answer. */
static void test_no_fields_and_failed_reads(void **state)
{
    (void)state;
    hpw *w = sample(8);
    gch_dump *d = load(w, 0);
    buffer_ctx b = { w->buf, w->len };
    gch_rules_options opt = { NULL, read_buffer, &b, NULL };
    gch_rule_findings f;
    gch_error err;
    assert_int_equal(gch_rules_find(d->heaps[0], &opt, &f, &err), GCH_OK);
    assert_int_equal(f.count, 0);
    assert_int_equal(f.no_fields, 1);
    gch_dump_free(d);
    d = load(w, 1);
    buffer_ctx short_buf = { w->buf, 64 };
    opt.read_ctx = &short_buf;
    assert_int_equal(gch_rules_find(d->heaps[0], &opt, &f, &err), GCH_EIO);
    assert_int_equal(f.count, 0);
    gch_dump_free(d);
    hpw_free(w);
}

/* Every rule name has a summary; summaries of unknown names are NULL. */
static void test_names(void **state)
{
    (void)state;
    const char *const *names = gch_rule_names();
    size_t n = 0;
    for (; names[n]; n++)
        assert_non_null(gch_rule_summary(names[n]));
    assert_true(n >= 6);
    assert_null(gch_rule_summary("nope"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_findings),
        cmocka_unit_test(test_label_path),
        cmocka_unit_test(test_no_fields_and_failed_reads),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
