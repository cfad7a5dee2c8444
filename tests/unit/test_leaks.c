/* Leaks across a series of dumps: a heap with a known leak (listeners added
 * in every dump), written as .gclog, .gcdump and Dart, must give exactly the
 * leaked objects (memlab rule, where ids are kept) and the growing path and
 * types, with counts and bytes computed by hand from the scenario; a series
 * that only churns (same shape, new ids) must give nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/leaks.h"
#include "gcheap/load.h"
#include "graph_heap.h"
#include "leak_scenario.h"

typedef void (*writer_fn)(const ls_params *, unsigned char **, size_t *);

static gch_dump *load_scenario(writer_fn write, const ls_params *p)
{
    unsigned char *data;
    size_t size;
    write(p, &data, &size);
    gch_dump *d = NULL;
    gch_error err;
    if (gch_load_buffer(data, size, GCH_FORMAT_AUTO, NULL, &d, &err) != GCH_OK)
        fail_msg("load: %s", err.message);
    free(data);
    return d;
}

/* Runs a series: listeners[k] listeners in dump k, 20 sessions with new ids
 * in every dump, 5 garbage objects. */
static void run_series(writer_fn write, const uint32_t *listeners, size_t dumps, int by_ids,
                       gch_leak_report *rep)
{
    gch_leaks_options o = GCH_LEAKS_OPTIONS_INIT;
    o.by_ids = by_ids;
    gch_leak_series *s;
    assert_int_equal(gch_leaks_new(dumps, &o, &s, NULL), GCH_OK);
    for (size_t k = 0; k < dumps; k++) {
        ls_params p = { listeners[k], 20, 5, (uint32_t)k };
        gch_dump *d = load_scenario(write, &p);
        gch_error err;
        /* the readers do not vouch for these ids; the scenario does (by_ids -1: auto) */
        if (gch_leaks_add(s, d->heaps[0], by_ids != 0 && write != ls_write_dart, &err) != GCH_OK)
            fail_msg("add: %s", err.message);
        gch_dump_free(d);
    }
    assert_int_equal(gch_leaks_finish(s, rep, NULL), GCH_OK);
    gch_leaks_free(s);
}

/* Dart names carry their library: "App.Holder (package:app/app.dart)". */
static int named(const char *name, const char *want)
{
    size_t n = strlen(want);
    return strncmp(name, want, n) == 0 && (name[n] == '\0' || name[n] == ' ');
}

static const gch_growth *find_type(const gch_leak_report *r, const char *want)
{
    for (size_t i = 0; i < r->type_count; i++)
        if (named(r->types[i].key, want))
            return &r->types[i];
    return NULL;
}

static void check_growth(const gch_leak_report *r, const uint32_t *L, size_t dumps)
{
    /* One path: the listeners under the array (the closures' growth is
     * explained by the listeners', the array's count does not grow). */
    assert_int_equal(r->path_count, 1);
    const gch_growth *g = &r->paths[0];
    assert_true(named(g->type, "App.Listener"));
    assert_non_null(strstr(g->key, "App.Holder"));
    assert_non_null(strstr(g->key, "App.Listener[]"));
    for (size_t k = 0; k < dumps; k++) {
        assert_int_equal(g->counts[k], L[k]);
        assert_int_equal(g->retained[k], (uint64_t)L[k] * (LS_LISTENER_SIZE + LS_CLOSURE_SIZE));
    }
    /* Types: Holder, ListenerList and the array grow in retained size,
     * Listener and Closure in count; nothing else. */
    assert_int_equal(r->type_count, 5);
    const gch_growth *holder = find_type(r, "App.Holder"), *list = find_type(r, "App.ListenerList"),
                     *arr = find_type(r, "App.Listener[]"), *lis = find_type(r, "App.Listener"),
                     *clo = find_type(r, "App.Closure");
    assert_non_null(holder);
    assert_non_null(list);
    assert_non_null(arr);
    assert_non_null(lis);
    assert_non_null(clo);
    for (size_t k = 0; k < dumps; k++) {
        uint64_t arr_ret = 16 + 8ull * L[k] + (uint64_t)L[k] * (LS_LISTENER_SIZE + LS_CLOSURE_SIZE);
        assert_int_equal(arr->counts[k], 1);
        assert_int_equal(arr->retained[k], arr_ret);
        assert_int_equal(list->retained[k], 32 + arr_ret);
        assert_int_equal(holder->retained[k], 24 + 32 + arr_ret);
        assert_int_equal(lis->counts[k], L[k]);
        assert_int_equal(clo->counts[k], L[k]);
        assert_int_equal(clo->retained[k], (uint64_t)L[k] * LS_CLOSURE_SIZE);
    }
    /* sorted by growth of retained bytes */
    for (size_t i = 1; i < r->type_count; i++)
        assert_true(r->types[i - 1].retained[dumps - 1] - r->types[i - 1].retained[0] >=
                    r->types[i].retained[dumps - 1] - r->types[i].retained[0]);
}

static void leak_found_in(writer_fn write, int ids)
{
    const uint32_t L[] = { 100, 200, 300 };
    gch_leak_report r;
    run_series(write, L, 3, ids ? -1 : 0, &r);
    assert_int_equal(r.dumps, 3);
    check_growth(&r, L, 3);
    if (!ids) {
        assert_int_equal(r.by_ids, 0);
        assert_int_equal(r.group_count, 0);
        assert_int_equal(r.leaked_objects, 0);
        gch_leak_report_free(&r);
        return;
    }
    /* memlab: listeners 100..199 and their closures appeared in dump 2 and
     * live on in dump 3; the arrays and sessions of dump 2 do not. */
    assert_int_equal(r.by_ids, 1);
    assert_int_equal(r.leaked_objects, 200);
    assert_int_equal(r.leaked_bytes, 100 * (LS_LISTENER_SIZE + LS_CLOSURE_SIZE));
    assert_int_equal(r.group_count, 1);
    const gch_leak_group *g = &r.groups[0];
    assert_int_equal(g->heads, 100);
    assert_int_equal(g->objects, 200);
    assert_int_equal(g->bytes, 100 * (LS_LISTENER_SIZE + LS_CLOSURE_SIZE));
    assert_true(named(g->type, "App.Listener"));
    assert_int_equal(g->example_id, ls_listener_id(100));
    if (write == ls_write_gclog)
        assert_string_equal(g->signature, "[static App.Holder] App.Holder -> App.ListenerList -> "
                                          "App.Listener[] -> App.Listener");
    gch_leak_report_free(&r);
}

static void leak_gclog(void **state) { (void)state; leak_found_in(ls_write_gclog, 1); }
static void leak_gcdump(void **state) { (void)state; leak_found_in(ls_write_gcdump, 1); }
static void leak_dart(void **state) { (void)state; leak_found_in(ls_write_dart, 0); }
static void leak_gclog_without_ids(void **state) { (void)state; leak_found_in(ls_write_gclog, 0); }

static void churn_is_not_a_leak(void **state)
{
    (void)state;
    const uint32_t L[] = { 100, 100, 100, 100 };
    writer_fn writers[] = { ls_write_gclog, ls_write_gcdump, ls_write_dart };
    for (size_t w = 0; w < 3; w++) {
        gch_leak_report r;
        run_series(writers[w], L, 4, w < 2 ? 1 : 0, &r);
        assert_int_equal(r.path_count, 0);
        assert_int_equal(r.type_count, 0);
        assert_int_equal(r.group_count, 0);
        assert_int_equal(r.leaked_objects, 0);
        gch_leak_report_free(&r);
    }
}

/* Growth must happen in every step: 100, 200, 200 is not reported. */
static void growth_must_be_every_step(void **state)
{
    (void)state;
    const uint32_t L[] = { 100, 200, 200 };
    gch_leak_report r;
    run_series(ls_write_gclog, L, 3, 1, &r);
    assert_int_equal(r.path_count, 0);
    assert_int_equal(r.type_count, 0);
    /* memlab: listeners 100..199 appeared in dump 2 and live in dump 3 */
    assert_int_equal(r.leaked_objects, 200);
    gch_leak_report_free(&r);
    /* four dumps, growing: the same single path */
    const uint32_t L4[] = { 10, 20, 30, 45 };
    run_series(ls_write_gcdump, L4, 4, 0, &r);
    check_growth(&r, L4, 4);
    gch_leak_report_free(&r);
}

/* A chain of n objects (ids i + 1, 1 byte each) from one root. */
static gch_dump *chain(uint32_t n)
{
    gch_dump *d = th_dump_new(n, 1, 1, n - 1);
    gch_heap *h = d->heaps[0];
    for (uint32_t i = 0; i < n; i++) {
        h->object_size32[i] = 1;
        h->out_start[i] = i;
        if (i + 1 < n)
            h->out_target[i] = i + 1;
    }
    h->out_start[n] = n - 1;
    h->total_size = n;
    h->root_object[0] = 0;
    return d;
}

/* A chain of 1,000,000 that doubles: the second half is leaked (one head,
 * its chain of leaked dominators 1,000,000 long), and one path grew (the
 * first new depth; the deeper ones are explained by it). No recursion. */
static void long_chain(void **state)
{
    (void)state;
    const uint32_t n = 1000000;
    gch_leaks_options o = GCH_LEAKS_OPTIONS_INIT;
    gch_leak_series *s;
    assert_int_equal(gch_leaks_new(2, &o, &s, NULL), GCH_OK);
    gch_dump *a = chain(n), *b = chain(2 * n);
    assert_int_equal(gch_leaks_add(s, a->heaps[0], 1, NULL), GCH_OK);
    assert_int_equal(gch_leaks_add(s, b->heaps[0], 1, NULL), GCH_OK);
    gch_leak_report r;
    assert_int_equal(gch_leaks_finish(s, &r, NULL), GCH_OK);
    assert_int_equal(r.by_ids, 1);
    assert_int_equal(r.leaked_objects, n);
    assert_int_equal(r.leaked_bytes, n);
    assert_int_equal(r.group_count, 1);
    assert_int_equal(r.groups[0].heads, 1);
    assert_int_equal(r.groups[0].example_id, n + 1);
    assert_int_equal(r.path_count, 1);
    assert_int_equal(r.paths[0].counts[0], 0);
    assert_int_equal(r.paths[0].counts[1], 1);
    assert_int_equal(r.paths[0].retained[1], n);
    assert_int_equal(r.paths[0].example_id, n + 1);
    /* "[internal] T0" then n times " -> T0" */
    assert_int_equal(strlen(r.paths[0].key), strlen("[internal] T0") + (size_t)n * strlen(" -> T0"));
    assert_int_equal(r.type_count, 1); /* T0: count and retained grew */
    gch_leak_report_free(&r);
    gch_leaks_free(s);
    gch_dump_free(a);
    gch_dump_free(b);
}

static void misuse_refused(void **state)
{
    (void)state;
    gch_leak_series *s;
    assert_int_equal(gch_leaks_new(1, NULL, &s, NULL), GCH_EINVAL);
    assert_null(s);
    assert_int_equal(gch_leaks_new(2, NULL, &s, NULL), GCH_OK);
    gch_dump *d = th_dump_new(2, 1, 1, 0);
    assert_int_equal(gch_leaks_add(s, d->heaps[0], 0, NULL), GCH_OK);
    gch_leak_report r;
    assert_int_equal(gch_leaks_finish(s, &r, NULL), GCH_EINVAL); /* one dump missing */
    gch_leaks_free(s);
    gch_dump_free(d);
}

static void alloc_failures_clean(void **state)
{
    (void)state;
    ls_params p1 = { 3, 2, 1, 0 }, p2 = { 6, 2, 1, 1 };
    gch_dump *d1 = load_scenario(ls_write_gclog, &p1), *d2 = load_scenario(ls_write_gclog, &p2);
    for (long fail = 0;; fail++) {
        th_alloc_install(fail);
        gch_leak_series *s = NULL;
        gch_leak_report r;
        memset(&r, 0, sizeof r);
        gch_status st = gch_leaks_new(2, NULL, &s, NULL);
        if (st == GCH_OK)
            st = gch_leaks_add(s, d1->heaps[0], 1, NULL);
        if (st == GCH_OK)
            st = gch_leaks_add(s, d2->heaps[0], 1, NULL);
        if (st == GCH_OK)
            st = gch_leaks_finish(s, &r, NULL);
        if (st != GCH_OK)
            assert_int_equal(st, GCH_ENOMEM);
        else
            /* two dumps: everything new in the second is kept: 3 listeners,
             * 3 closures, the array, 2 sessions and their 2 arrays */
            assert_int_equal(r.leaked_objects, 11);
        gch_leak_report_free(&r);
        gch_leaks_free(s);
        size_t live = th_alloc_live_blocks();
        th_alloc_uninstall();
        assert_int_equal(live, 0);
        if (st == GCH_OK)
            break;
    }
    gch_dump_free(d1);
    gch_dump_free(d2);
}

/* ------------------------------------------------- named hand-built heaps */

/* A heap of n objects with type names, ids, sizes and labelled references
 * (listed by source, in order; lab NULL: unnamed), one root naming object 0. */
typedef struct named_spec {
    uint32_t n, ntypes;
    const char *const *tnames;
    const uint32_t *type, *size;
    const uint64_t *id;
    size_t m;
    const uint32_t *src, *dst;
    const char *const *lab;
} named_spec;

static uint32_t pool_add(gch_heap *h, size_t *used, const char *t)
{
    size_t n = strlen(t) + 1;
    memcpy(h->strings + *used, t, n);
    uint32_t off = (uint32_t)*used;
    *used += n;
    return off;
}

static gch_dump *named_heap(const named_spec *sp)
{
    gch_dump *d = th_dump_new(sp->n, sp->ntypes, 1, sp->m);
    gch_heap *h = d->heaps[0];
    size_t need = 1;
    for (uint32_t t = 0; t < sp->ntypes; t++)
        need += strlen(sp->tnames[t]) + 1;
    for (size_t k = 0; k < sp->m; k++) {
        need += sp->lab && sp->lab[k] ? strlen(sp->lab[k]) + 1 : 0;
        if (k)
            assert_true(sp->src[k - 1] <= sp->src[k]);
    }
    gch_free(h->strings);
    h->strings = gch_calloc(need, 1);
    assert_non_null(h->strings);
    h->strings_size = need;
    size_t used = 1;
    for (uint32_t t = 0; t < sp->ntypes; t++)
        h->type_name[t] = pool_add(h, &used, sp->tnames[t]);
    uint64_t total = 0;
    for (uint32_t i = 0; i < sp->n; i++) {
        h->object_type[i] = sp->type[i];
        h->object_id[i] = sp->id[i];
        h->object_size32[i] = sp->size[i];
        total += sp->size[i];
    }
    h->total_size = total;
    th_set_edges(h, sp->src, sp->dst, sp->m);
    h->out_label = gch_calloc(sp->m ? sp->m : 1, sizeof *h->out_label);
    assert_non_null(h->out_label);
    for (size_t k = 0; k < sp->m; k++)
        h->out_label[k] = sp->lab && sp->lab[k] ? pool_add(h, &used, sp->lab[k]) : GCH_NONE;
    h->root_object[0] = 0;
    return d;
}

/* Holder -holds-> OWNER -FIELD-> STORE, the store holding n entries (each an
 * Entry with a byte[]), ids of the store and the entries new when n > 0. */
enum { E_HOLDER = 16, E_OWNER = 48, E_ENTRY = 24, E_DATA = 40 };
#define MAX_E 40

static gch_dump *owner_heap(const char *owner, const char *store, const char *field, uint32_t n,
                            const char *extra_type)
{
    static const char *tn[6];
    tn[0] = "Holder";
    tn[1] = owner;
    tn[2] = store;
    tn[3] = "Entry";
    tn[4] = "byte[]";
    tn[5] = extra_type ? extra_type : "Unused";
    uint32_t type[3 + 2 * MAX_E + 1], size[3 + 2 * MAX_E + 1], src[2 + 2 * MAX_E + 1],
        dst[2 + 2 * MAX_E + 1];
    uint64_t id[3 + 2 * MAX_E + 1];
    const char *lab[2 + 2 * MAX_E + 1];
    assert_true(n <= MAX_E);
    uint32_t objs = 3 + 2 * n + (extra_type ? 1 : 0);
    size_t m = 0;
    type[0] = 0, size[0] = E_HOLDER, id[0] = 1;
    type[1] = 1, size[1] = E_OWNER, id[1] = 2;
    type[2] = 2, size[2] = 16 + 4 * n, id[2] = n ? 100 : 3;
    src[m] = 0, dst[m] = 1, lab[m++] = "holds";
    if (extra_type) { /* an object of extra_type, new, held by the holder too */
        src[m] = 0, dst[m] = objs - 1, lab[m++] = "extra";
        type[objs - 1] = 5, size[objs - 1] = 8, id[objs - 1] = 900;
    }
    src[m] = 1, dst[m] = 2, lab[m++] = field;
    for (uint32_t i = 0; i < n; i++) {
        static char idx[MAX_E][12];
        snprintf(idx[i], sizeof idx[i], "%u", (unsigned)i);
        type[3 + 2 * i] = 3, size[3 + 2 * i] = E_ENTRY, id[3 + 2 * i] = 1000 + i;
        type[4 + 2 * i] = 4, size[4 + 2 * i] = E_DATA, id[4 + 2 * i] = 2000 + i;
        src[m] = 2, dst[m] = 3 + 2 * i, lab[m++] = idx[i];
    }
    for (uint32_t i = 0; i < n; i++)
        src[m] = 3 + 2 * i, dst[m] = 4 + 2 * i, lab[m++] = "data";
    named_spec sp = { objs, 6, tn, type, size, id, m, src, dst, lab };
    return named_heap(&sp);
}

static void two_dump_report(gch_dump *a, gch_dump *b, int internals, gch_leak_report *r)
{
    gch_leaks_options o = GCH_LEAKS_OPTIONS_INIT;
    o.internals = internals;
    gch_leak_series *s;
    assert_int_equal(gch_leaks_new(2, &o, &s, NULL), GCH_OK);
    assert_int_equal(gch_leaks_add(s, a->heaps[0], 1, NULL), GCH_OK);
    assert_int_equal(gch_leaks_add(s, b->heaps[0], 1, NULL), GCH_OK);
    assert_int_equal(gch_leaks_finish(s, r, NULL), GCH_OK);
    gch_leaks_free(s);
}

static const gch_leak_type_count *type_row(const gch_leak_group *g, const char *name)
{
    for (size_t i = 0; i < g->type_count; i++)
        if (strcmp(g->types[i].type, name) == 0)
            return &g->types[i];
    return NULL;
}

/* The store of OWNER, new in the second dump with n entries, is the single
 * head; folded (fold 1) the row is OWNER's, else the store's. Counts by type
 * by hand: n entries, n byte[], one store. */
static void check_fold(const char *owner, const char *store, const char *field, int fold)
{
    const uint32_t n = 30;
    gch_dump *a = owner_heap(owner, store, field, 0, NULL), *b = owner_heap(owner, store, field, n, NULL);
    gch_leak_report r;
    two_dump_report(a, b, 0, &r);
    assert_int_equal(r.leaked_objects, 1 + 2 * n);
    assert_int_equal(r.group_count, 1);
    const gch_leak_group *g = &r.groups[0];
    assert_int_equal(g->objects, 1 + 2 * n);
    assert_int_equal(g->bytes, 16 + 4 * n + n * (E_ENTRY + E_DATA));
    assert_int_equal(g->heads, 1);
    assert_string_equal(g->type, fold ? owner : store);
    assert_int_equal(g->example_id, fold ? 2 : 100);
    char want[256];
    if (fold)
        snprintf(want, sizeof want, " Holder -holds-> %s", owner);
    else
        snprintf(want, sizeof want, " Holder -holds-> %s -%s-> %s", owner, field, store);
    size_t sl = strlen(g->signature), wl = strlen(want);
    assert_true(sl > wl);
    assert_string_equal(g->signature + sl - wl, want);
    /* by type: byte[] (most bytes), Entry, the store (unless a V8 internal,
     * left out of the breakdown by default) */
    const int store_internal = gch_leak_type_internal(store);
    assert_int_equal(g->type_count, 3 - store_internal);
    assert_string_equal(g->types[0].type, "byte[]");
    assert_string_equal(g->types[1].type, "Entry");
    const gch_leak_type_count *e = type_row(g, "Entry"), *st = type_row(g, store);
    assert_int_equal(e->objects, n);
    assert_int_equal(e->bytes, n * E_ENTRY);
    assert_int_equal(e->heads, 0);
    assert_int_equal(e->example_id, 1000);
    assert_int_equal(g->types[0].objects, n);
    if (store_internal) {
        assert_null(st);
    } else {
        assert_string_equal(g->types[2].type, store);
        assert_int_equal(st->objects, 1);
        assert_int_equal(st->heads, fold ? 0 : 1);
    }
    gch_leak_report_free(&r);
    gch_dump_free(a);
    gch_dump_free(b);
}

static void backing_store_folds(void **state)
{
    (void)state;
    check_fold("java.util.HashMap", "java.util.HashMap$Node[]", "table", 1);
    check_fold("java.util.concurrent.ConcurrentHashMap", "java.util.concurrent.ConcurrentHashMap$Node[]",
               "table", 1);
    check_fold("java.util.ArrayList", "java.lang.Object[]", "elementData", 1);
    check_fold("Map", "(array)", "{table}", 1);
    check_fold("Set", "(object elements)", "{elements}", 1);
    check_fold("Map", "system / OrderedHashMap", "table", 1);
    /* not a backing field, not an array: the store stays the head */
    check_fold("Holder2", "java.lang.Object[]", "other", 0);
    check_fold("Thing", "Entry2", "table", 0);
}

static void backing_store_names(void **state)
{
    (void)state;
    assert_true(gch_leak_backing_store("java.util.HashMap$Node[]", "table"));
    assert_true(gch_leak_backing_store("java.lang.Object[]", "elementData"));
    assert_true(gch_leak_backing_store("system / OrderedHashMap", "table"));
    assert_false(gch_leak_backing_store("java.lang.Object[]", "[0]"));
    assert_false(gch_leak_backing_store("java.util.HashMap", "table"));
    assert_false(gch_leak_backing_store("(array)", ".table"));
    assert_false(gch_leak_backing_store("(array)", "{other}"));
    assert_false(gch_leak_backing_store(NULL, "table"));
    const char *internal[] = { "(system)", "(compiled code)", "(object shape)", "system / Map",
                               "system / WeakArrayList", "system / FeedbackVector", "(feedback)" };
    for (size_t i = 0; i < sizeof internal / sizeof *internal; i++)
        assert_true(gch_leak_type_internal(internal[i]));
    const char *user[] = { "Map", "(array)", "java.lang.System", "systemd", "(string)", "Object" };
    for (size_t i = 0; i < sizeof user / sizeof *user; i++)
        assert_false(gch_leak_type_internal(user[i]));
}

/* With an internal object leaked beside the store: --internals keeps its
 * rows; by default exactly those rows (brute force: the rows of the full
 * report whose type gch_leak_type_internal names) are left out and counted,
 * the others are the same. */
static void internals_left_out(void **state)
{
    (void)state;
    const char *kinds[] = { "(object shape)", "(compiled code)", "system / WeakArrayList", "Plain" };
    for (size_t k = 0; k < 4; k++) {
        gch_dump *a = owner_heap("Map", "(array)", "{table}", 0, NULL);
        gch_dump *b = owner_heap("Map", "(array)", "{table}", 20, kinds[k]);
        gch_leak_report all, def;
        two_dump_report(a, b, 1, &all);
        two_dump_report(a, b, 0, &def);
        assert_int_equal(all.internal_rows, 0);
        uint64_t want = 0;
        size_t gi = 0, pi = 0, ti = 0;
        for (size_t i = 0; i < all.group_count; i++) {
            if (gch_leak_type_internal(all.groups[i].type)) {
                want++;
                continue;
            }
            assert_true(gi < def.group_count);
            assert_string_equal(def.groups[gi].signature, all.groups[i].signature);
            assert_int_equal(def.groups[gi++].objects, all.groups[i].objects);
        }
        for (size_t i = 0; i < all.path_count; i++) {
            if (gch_leak_type_internal(all.paths[i].type)) {
                want++;
                continue;
            }
            assert_string_equal(def.paths[pi++].key, all.paths[i].key);
        }
        for (size_t i = 0; i < all.type_count; i++) {
            if (gch_leak_type_internal(all.types[i].type)) {
                want++;
                continue;
            }
            assert_string_equal(def.types[ti++].key, all.types[i].key);
        }
        assert_int_equal(gi, def.group_count);
        assert_int_equal(pi, def.path_count);
        assert_int_equal(ti, def.type_count);
        assert_int_equal(def.internal_rows, want);
        /* the internal object is a head of its own: a group, a path, a type */
        assert_int_equal(want, k < 3 ? 3 : 0);
        assert_int_equal(def.leaked_objects, all.leaked_objects);
        gch_leak_report_free(&all);
        gch_leak_report_free(&def);
        gch_dump_free(a);
        gch_dump_free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leak_gclog),
        cmocka_unit_test(leak_gcdump),
        cmocka_unit_test(leak_dart),
        cmocka_unit_test(leak_gclog_without_ids),
        cmocka_unit_test(churn_is_not_a_leak),
        cmocka_unit_test(growth_must_be_every_step),
        cmocka_unit_test(long_chain),
        cmocka_unit_test(misuse_refused),
        cmocka_unit_test(alloc_failures_clean),
        cmocka_unit_test(backing_store_folds),
        cmocka_unit_test(backing_store_names),
        cmocka_unit_test(internals_left_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
