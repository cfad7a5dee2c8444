/* Leak suspects: a brute-force oracle (retained sets by removing an object
 * and recounting reachability, dominators from them) on thousands of random
 * heaps, and a heap with a known leak in every format (.gclog, .gcdump, Dart)
 * where the suspects must name the leaking structure and where it
 * accumulates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/leaks.h"
#include "gcheap/load.h"
#include "graph_heap.h"
#include "leak_scenario.h"
#include "tuning.h"

/* Every second random heap runs the threaded paths (the dominator tree's and
 * the BFS beside the label and holds passes) as big heaps do. */
static void set_parallel(int on)
{
    gch_tuning t = gch_tuning_get();
    t.parallel_min_refs = on ? 0 : (size_t)1 << 40;
    gch_internal_set_tuning(&t);
}

static int counts(const gch_heap *h, uint32_t r, int weak)
{
    return h->root_object[r] != GCH_NONE && (weak || !(h->root_flags[r] & GCH_ROOT_WEAK));
}

/* reach[v] = 1 when v is reachable from the strong roots without passing
 * through `without` (GCH_NONE: no object removed). */
static void reach(const gch_heap *h, int weak, uint32_t without, uint8_t *seen)
{
    uint32_t n = h->object_count, *stack = malloc(((size_t)n + 1) * sizeof *stack), top = 0;
    memset(seen, 0, n);
    for (uint32_t r = 0; r < h->root_count; r++) {
        uint32_t o = h->root_object[r];
        if (counts(h, r, weak) && o != without && !seen[o]) {
            seen[o] = 1;
            stack[top++] = o;
        }
    }
    while (top) {
        uint32_t o = stack[--top];
        for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++) {
            uint32_t t = h->out_target[e];
            if (t != without && !seen[t]) {
                seen[t] = 1;
                stack[top++] = t;
            }
        }
    }
    free(stack);
}

typedef struct oracle {
    uint32_t n;
    uint8_t *live;
    uint8_t *dom;         /* dom[x * n + v]: x dominates v (x == v included), live x */
    uint64_t *retained;   /* bytes */
    uint64_t *ret_count;  /* objects */
    uint32_t *idom;       /* GCH_DOM_VROOT for top-level, GCH_NONE for dead */
    uint64_t live_bytes;
} oracle;

static void oracle_build(const gch_heap *h, int weak, oracle *o)
{
    uint32_t n = h->object_count;
    o->n = n;
    o->live = malloc(n + 1);
    o->dom = calloc((size_t)n * n + 1, 1);
    o->retained = calloc(n + 1, sizeof *o->retained);
    o->ret_count = calloc(n + 1, sizeof *o->ret_count);
    o->idom = malloc((n + 1) * sizeof *o->idom);
    uint8_t *without = malloc(n + 1);
    reach(h, weak, GCH_NONE, o->live);
    o->live_bytes = 0;
    for (uint32_t x = 0; x < n; x++) {
        if (!o->live[x])
            continue;
        o->live_bytes += gch_object_size(h, x);
        reach(h, weak, x, without);
        for (uint32_t v = 0; v < n; v++)
            if (o->live[v] && !without[v]) {
                o->dom[(size_t)x * n + v] = 1;
                o->retained[x] += gch_object_size(h, v);
                o->ret_count[x]++;
            }
    }
    /* idom: the strict dominator that dominates the fewest objects (the
     * strict dominators of v form a chain). */
    for (uint32_t v = 0; v < n; v++) {
        o->idom[v] = o->live[v] ? GCH_DOM_VROOT : GCH_NONE;
        uint64_t best = UINT64_MAX;
        for (uint32_t x = 0; x < n && o->live[v]; x++)
            if (x != v && o->dom[(size_t)x * n + v] && o->ret_count[x] < best) {
                best = o->ret_count[x];
                o->idom[v] = x;
            }
    }
    free(without);
}

static void oracle_free(oracle *o)
{
    free(o->live);
    free(o->dom);
    free(o->retained);
    free(o->ret_count);
    free(o->idom);
}

static int big(uint64_t r, double thr, uint64_t live) { return (double)r * 100.0 > thr * (double)live; }

/* Checks one suspect list against the oracle, object by object. */
static void check_against_oracle(const gch_heap *h, const gch_suspects_options *opt,
                                 const gch_suspects *s)
{
    oracle o;
    oracle_build(h, opt->include_weak, &o);
    const uint32_t n = h->object_count, T = h->type_count;
    assert_int_equal(s->live_bytes, o.live_bytes);
    /* Expected suspects: singles, then groups; each one's members. */
    uint8_t *member = calloc((size_t)n * (n + T) + 1, 1); /* member[k * n + v] */
    gch_suspect *want = calloc(n + T + 1, sizeof *want);
    size_t nw = 0;
    uint64_t *gcount = calloc(T + 1, 8), *gbytes = calloc(T + 1, 8);
    uint32_t *gbest = calloc(T + 1, 4);
    for (uint32_t v = 0; v < n; v++) {
        if (o.idom[v] != GCH_DOM_VROOT)
            continue;
        if (big(o.retained[v], opt->threshold, o.live_bytes)) {
            want[nw] = (gch_suspect){ .object = v, .type = h->object_type[v], .instances = 1,
                                      .retained = o.retained[v] };
            member[nw++ * n + v] = 1;
        } else {
            uint32_t t = h->object_type[v];
            if (!gcount[t] || o.retained[v] > o.retained[gbest[t]])
                gbest[t] = v;
            gcount[t]++;
            gbytes[t] += o.retained[v];
        }
    }
    for (uint32_t t = 0; t < T; t++) {
        if (!gcount[t] || !big(gbytes[t], opt->threshold, o.live_bytes))
            continue;
        want[nw] = (gch_suspect){ .group = 1, .object = gbest[t], .type = t,
                                  .instances = gcount[t], .retained = gbytes[t] };
        for (uint32_t v = 0; v < n; v++)
            if (o.idom[v] == GCH_DOM_VROOT && h->object_type[v] == t &&
                !big(o.retained[v], opt->threshold, o.live_bytes))
                member[nw * n + v] = 1;
        nw++;
    }
    assert_int_equal(s->count, nw);
    for (size_t k = 0; k < nw; k++) {
        gch_suspect *w = &want[k];
        /* the walk */
        uint32_t cur = w->object;
        for (;;) {
            uint32_t next = GCH_NONE;
            for (uint32_t v = 0; v < n; v++)
                if (o.idom[v] == cur && (double)o.retained[v] >= opt->big_drop * (double)o.retained[cur] &&
                    (next == GCH_NONE || o.retained[v] > o.retained[next]))
                    next = v;
            if (next == GCH_NONE)
                break;
            cur = next;
            w->accumulation_depth++;
        }
        w->accumulation = cur;
        w->accumulation_retained = o.retained[cur];
        /* find it in the result (order checked below) */
        const gch_suspect *g = NULL;
        for (size_t i = 0; i < s->count; i++)
            if (s->items[i].group == w->group && s->items[i].object == w->object &&
                s->items[i].type == w->type)
                g = &s->items[i];
        assert_non_null(g);
        assert_int_equal(g->instances, w->instances);
        assert_int_equal(g->retained, w->retained);
        assert_int_equal(g->accumulation, w->accumulation);
        assert_int_equal(g->accumulation_retained, w->accumulation_retained);
        assert_int_equal(g->accumulation_depth, w->accumulation_depth);
        /* holds: union of the members' dominated sets, per type */
        uint64_t *c = calloc(T + 1, 8), *b = calloc(T + 1, 8), total = 0;
        for (uint32_t x = 0; x < n; x++) {
            if (!member[k * n + x])
                continue;
            for (uint32_t v = 0; v < n; v++)
                if (o.dom[(size_t)x * n + v]) {
                    c[h->object_type[v]]++;
                    b[h->object_type[v]] += gch_object_size(h, v);
                    total++;
                }
        }
        assert_int_equal(g->retained_objects, total);
        size_t nonzero = 0;
        for (uint32_t t = 0; t < T; t++)
            nonzero += c[t] != 0;
        assert_int_equal(g->holds_count, nonzero < opt->holds_top ? nonzero : opt->holds_top);
        for (size_t i = 0; i < g->holds_count; i++) {
            const gch_type_row *row = &s->holds[g->holds_start + i];
            assert_int_equal(row->count, c[row->type]);
            assert_int_equal(row->bytes, b[row->type]);
            /* no type left out has more bytes than a listed one */
            for (uint32_t t = 0; t < T; t++) {
                int listed = 0;
                for (size_t j = 0; j < g->holds_count; j++)
                    listed |= s->holds[g->holds_start + j].type == t;
                if (!listed && c[t])
                    assert_true(b[t] <= row->bytes);
            }
            if (i)
                assert_true(s->holds[g->holds_start + i - 1].bytes >= row->bytes);
        }
        free(c);
        free(b);
        /* path: the BFS shortest path of gch_paths */
        gch_paths p;
        gch_path_set ps;
        assert_int_equal(gch_paths_build(h, opt->include_weak, &p, NULL), GCH_OK);
        assert_int_equal(gch_paths_path(&p, w->accumulation, &ps, NULL), GCH_OK);
        assert_int_equal(ps.count, 1);
        assert_int_equal(g->path_len, ps.start[1]);
        assert_memory_equal(s->path + g->path_start, ps.objects, g->path_len * sizeof *ps.objects);
        assert_int_equal(g->root_record, ps.root_record[0]);
        gch_path_set_free(&ps);
        gch_paths_free(&p);
    }
    for (size_t i = 1; i < s->count; i++)
        assert_true(s->items[i - 1].retained >= s->items[i].retained);
    free(member);
    free(want);
    free(gcount);
    free(gbytes);
    free(gbest);
    oracle_free(&o);
}

static void random_heaps_match_oracle(void **state)
{
    (void)state;
    th_rng r = { 0x5eed5u };
    static const double thresholds[] = { 0, 5, 10, 30, 60 };
    for (int g = 0; g < 3000; g++) {
        gch_dump *d = th_random_dump(&r, 40);
        gch_heap *h = d->heaps[0];
        gch_suspects_options opt = GCH_SUSPECTS_OPTIONS_INIT;
        opt.threshold = thresholds[g % 5];
        opt.include_weak = g % 7 == 0;
        opt.holds_top = g % 3 == 0 ? 2 : 10;
        if (g % 4 == 1)
            opt.big_drop = 0.51;
        gch_suspects s;
        set_parallel(g % 2);
        assert_int_equal(gch_suspects_find(h, &opt, &s, NULL), GCH_OK);
        gch_internal_set_tuning(NULL);
        check_against_oracle(h, &opt, &s);
        gch_suspects_free(&s);
        gch_dump_free(d);
    }
}

static void bad_options_refused(void **state)
{
    (void)state;
    gch_dump *d = th_dump_new(2, 1, 1, 0);
    gch_suspects s;
    gch_suspects_options opt = GCH_SUSPECTS_OPTIONS_INIT;
    opt.big_drop = 0.5;
    assert_int_equal(gch_suspects_find(d->heaps[0], &opt, &s, NULL), GCH_EINVAL);
    assert_null(s.items);
    opt = (gch_suspects_options)GCH_SUSPECTS_OPTIONS_INIT;
    opt.threshold = 101;
    assert_int_equal(gch_suspects_find(d->heaps[0], &opt, &s, NULL), GCH_EINVAL);
    d->heaps[0]->refs_loaded = 0;
    assert_int_equal(gch_suspects_find(d->heaps[0], NULL, &s, NULL), GCH_EINVAL);
    gch_dump_free(d);
}

static void alloc_failures_clean(void **state)
{
    (void)state;
    th_rng r = { 77 };
    gch_dump *d = NULL;
    /* a heap with at least one suspect */
    for (;;) {
        d = th_random_dump(&r, 30);
        gch_suspects s;
        assert_int_equal(gch_suspects_find(d->heaps[0], NULL, &s, NULL), GCH_OK);
        size_t c = s.count;
        gch_suspects_free(&s);
        if (c >= 2)
            break;
        gch_dump_free(d);
    }
    for (long fail = 0;; fail++) {
        th_alloc_install(fail);
        gch_suspects s;
        gch_error err;
        gch_status st = gch_suspects_find(d->heaps[0], NULL, &s, &err);
        if (st == GCH_OK)
            gch_suspects_free(&s);
        else
            assert_int_equal(st, GCH_ENOMEM);
        size_t live = th_alloc_live_blocks();
        th_alloc_uninstall();
        assert_int_equal(live, 0);
        if (st == GCH_OK)
            break;
    }
    gch_dump_free(d);
}

/* A chain of 2,000,000 objects of 1 byte from one root: one suspect (the
 * head, 100%), whose walk goes down while a node keeps 70% of its parent:
 * from r bytes to r - 1 while r - 1 >= 0.7 r, i.e. down to r = 3. No
 * recursion: the walk, the labels and the path are as long as the chain. */
static void long_chain(void **state)
{
    (void)state;
    const uint32_t n = 2000000;
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
    gch_suspects s;
    set_parallel(1);
    assert_int_equal(gch_suspects_find(h, NULL, &s, NULL), GCH_OK);
    gch_internal_set_tuning(NULL);
    assert_int_equal(s.count, 1);
    assert_int_equal(s.items[0].object, 0);
    assert_int_equal(s.items[0].retained, n);
    assert_int_equal(s.items[0].retained_objects, n);
    assert_int_equal(s.items[0].accumulation, n - 3);
    assert_int_equal(s.items[0].accumulation_retained, 3);
    assert_int_equal(s.items[0].accumulation_depth, n - 3);
    assert_int_equal(s.items[0].path_len, n - 2);
    for (uint32_t i = 0; i < n - 2; i += 99991)
        assert_int_equal(s.path[s.items[0].path_start + i], i);
    gch_suspects_free(&s);
    gch_dump_free(d);
}

/* ------------------------------------------------------- the known leak */

typedef void (*writer_fn)(const ls_params *, unsigned char **, size_t *);

static gch_dump *load_scenario(writer_fn write, const ls_params *p)
{
    unsigned char *data;
    size_t size;
    write(p, &data, &size);
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = gch_load_buffer(data, size, GCH_FORMAT_AUTO, NULL, &d, &err);
    if (st != GCH_OK)
        fail_msg("load: %s", err.message);
    free(data);
    return d;
}

/* Dart names carry their library: "App.Holder (package:app/app.dart)". */
static int named(const gch_heap *h, uint32_t type, const char *want)
{
    const char *name = gch_type_name(h, type);
    size_t n = strlen(want);
    return strncmp(name, want, n) == 0 && (name[n] == '\0' || name[n] == ' ');
}

static int object_is(const gch_heap *h, uint32_t o, const char *want)
{
    return named(h, h->object_type[o], want);
}

static void known_leak_in(writer_fn write)
{
    ls_params p = { 300, 20, 5, 2 };
    gch_dump *d = load_scenario(write, &p);
    assert_int_equal(d->heap_count, 1);
    gch_heap *h = d->heaps[0];
    gch_suspects_options opt = GCH_SUSPECTS_OPTIONS_INIT;
    gch_suspects s;
    assert_int_equal(gch_suspects_find(h, &opt, &s, NULL), GCH_OK);
    check_against_oracle(h, &opt, &s);
    /* By hand: holder 24 + 32 + (16 + 8 * 300) + 300 * (40 + 32) = 24072;
     * cache 64 + 10 * 1000 = 10064; 20 sessions of 248 = 4960. */
    assert_int_equal(s.live_bytes, 24072 + 10064 + 4960);
    assert_int_equal(s.count, 3);
    const gch_suspect *a = &s.items[0], *b = &s.items[1], *c = &s.items[2];
    assert_int_equal(a->group, 0);
    assert_true(object_is(h, a->object, "App.Holder"));
    assert_int_equal(a->retained, 24072);
    assert_true(object_is(h, a->accumulation, "App.Listener[]"));
    assert_int_equal(a->accumulation_retained, 24072 - 56);
    assert_int_equal(a->accumulation_depth, 2);
    assert_int_equal(a->path_len, 3); /* Holder -> List -> array */
    assert_true(object_is(h, s.path[a->path_start], "App.Holder"));
    assert_int_equal(a->holds_count, 5); /* Holder, List, array, Listener, Closure */
    assert_true(named(h, s.holds[a->holds_start].type, "App.Listener"));
    assert_int_equal(s.holds[a->holds_start].count, 300);
    assert_int_equal(s.holds[a->holds_start].bytes, 300 * 40);
    assert_true(object_is(h, b->object, "App.Cache"));
    assert_int_equal(b->accumulation, b->object); /* each array keeps 10% of it */
    assert_int_equal(c->group, 1);
    assert_true(named(h, c->type, "App.Session"));
    assert_int_equal(c->instances, 20);
    assert_int_equal(c->retained, 4960);
    gch_suspects_free(&s);
    gch_dump_free(d);
}

static void known_leak_gclog(void **state) { (void)state; known_leak_in(ls_write_gclog); }
static void known_leak_gcdump(void **state) { (void)state; known_leak_in(ls_write_gcdump); }
static void known_leak_dart(void **state) { (void)state; known_leak_in(ls_write_dart); }

/* More suspects than a label byte holds (255 and up: labels of four bytes):
 * threshold 0 makes every top-level object with a size a suspect. Chains of
 * three objects under R roots (R suspects) around the switch, and chains
 * that share their last objects (shared ones are top-level too), on one
 * thread and two, checked against the oracle. */
static void many_suspects_wide_labels(void **state)
{
    (void)state;
    static const uint32_t chains[] = { 200, 254, 255, 256, 400 };
    th_rng r = { 0x3a11u };
    for (size_t c = 0; c < sizeof chains / sizeof *chains; c++) {
        for (int par = 0; par < 2; par++) {
            uint32_t R = chains[c], n = 3 * R;
            gch_dump *d = th_dump_new(n, 3, R, 0);
            gch_heap *h = d->heaps[0];
            for (uint32_t i = 0; i < n; i++) {
                h->object_type[i] = i % 3;
                h->object_size32[i] = 1 + th_below(&r, 99);
                h->total_size += h->object_size32[i];
            }
            uint32_t *src = malloc(3 * (size_t)n * sizeof *src), *dst = malloc(3 * (size_t)n * sizeof *dst);
            assert_non_null(src);
            assert_non_null(dst);
            size_t m = 0;
            for (uint32_t k = 0; k < R; k++) {
                src[m] = 3 * k, dst[m++] = 3 * k + 1;
                src[m] = 3 * k + 1, dst[m++] = 3 * k + 2;
                if (R == 400 && k % 5 == 0 && k + 1 < R)
                    src[m] = 3 * k + 1, dst[m++] = 3 * (k + 1) + 2;
                h->root_object[k] = 3 * k;
                h->root_raw_id[k] = 3 * k + 1ULL;
            }
            th_set_edges(h, src, dst, m);
            free(src);
            free(dst);
            gch_suspects_options opt = GCH_SUSPECTS_OPTIONS_INIT;
            opt.threshold = 0;
            opt.holds_top = 2;
            gch_suspects s;
            set_parallel(par);
            assert_int_equal(gch_suspects_find(h, &opt, &s, NULL), GCH_OK);
            gch_internal_set_tuning(NULL);
            assert_true(s.count >= R);
            check_against_oracle(h, &opt, &s);
            gch_suspects_free(&s);
            gch_dump_free(d);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_heaps_match_oracle),
        cmocka_unit_test(bad_options_refused),
        cmocka_unit_test(alloc_failures_clean),
        cmocka_unit_test(long_chain),
        cmocka_unit_test(many_suspects_wide_labels),
        cmocka_unit_test(known_leak_gclog),
        cmocka_unit_test(known_leak_gcdump),
        cmocka_unit_test(known_leak_dart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
