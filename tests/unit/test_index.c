/* The persistent index (gcheap/index.h): random heaps written and read back
 * give the same model and, through the analysis, the same dominator trees,
 * paths, reverse references and id lookups as direct builds (the oracle),
 * with nothing computed; hostile indexes (each value out of bounds in turn,
 * with the checksums made right again so that the bounds checks are what
 * must catch it; a wrong checksum; bad headers; truncation) are refused
 * before use, and a damaged derived chunk is computed instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/leaks.h"
#include "gcheap/analysis.h"
#include "gcheap/graph.h"
#include "gcheap/histogram.h"
#include "gcheap/index.h"
#include "fail_alloc.h"
#include "graph_heap.h"
#include "index/index_read.h"
#include "tuning.h"

typedef struct membuf {
    unsigned char *p;
    size_t n, cap;
} membuf;

static int mem_write(void *ctx, const void *data, size_t n)
{
    membuf *b = ctx;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        assert_non_null(b->p);
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
    return 0;
}

static int mem_write_at(void *ctx, uint64_t offset, const void *data, size_t n)
{
    membuf *b = ctx;
    assert_true(offset <= b->n && n <= b->n - offset); /* inside what was written */
    memcpy(b->p + offset, data, n);
    return 0;
}

static membuf write_index(gch_dump *d)
{
    d->format = "gclog"; /* th_dump_new names none; a reader always does */
    gch_analysis *a;
    assert_int_equal(gch_analysis_new(d, NULL, &a, NULL), GCH_OK);
    gch_index_stamp st;
    memset(&st, 0, sizeof st);
    st.dump_size = 1234;
    membuf b = { NULL, 0, 0 };
    gch_index_io io = { mem_write, mem_write_at, &b };
    assert_int_equal(gch_index_write(a, &st, "x.gclog", &io, NULL), GCH_OK);
    gch_analysis_free(a); /* frees d */
    return b;
}

/* Ids that do not rise (so that the index holds an id order), some repeated
 * as a dump with duplicate records never has them: a permutation. */
static void shuffle_ids(th_rng *r, gch_heap *h)
{
    for (uint32_t i = h->object_count; i > 1; i--) {
        uint32_t j = th_below(r, i);
        uint64_t t = h->object_id[i - 1];
        h->object_id[i - 1] = h->object_id[j];
        h->object_id[j] = t;
    }
    for (uint32_t r = 0; r < h->root_count; r++) /* a root names its object by the object's id */
        if (h->root_object[r] != GCH_NONE)
            h->root_raw_id[r] = h->object_id[h->root_object[r]];
}

static void same_arrays(const void *a, const void *b, size_t bytes)
{
    if (bytes)
        assert_memory_equal(a, b, bytes);
}

static void compare_views(gch_heap *want, gch_analysis *ia, gch_heap *got)
{
    for (int v = 0; v < 2; v++) {
        gch_domtree_options o = GCH_DOMTREE_OPTIONS_INIT;
        o.include_weak = v;
        o.children = 0;
        o.preorder_only = 1;
        o.preorder_idom = 1;
        gch_domtree t;
        assert_int_equal(gch_domtree_build_ex(want, &o, &t, NULL), GCH_OK);
        const gch_domtree *it;
        assert_int_equal(gch_analysis_domtree(ia, got, v, GCH_TREE_PREORDER_IDOM, &it, NULL), GCH_OK);
        assert_int_equal(it->live_count, t.live_count);
        assert_int_equal(it->live_bytes, t.live_bytes);
        same_arrays(it->preorder, t.preorder, t.live_count * 4);
        same_arrays(it->preorder_retained, t.preorder_retained, t.live_count * 8);
        same_arrays(it->preorder_idom, t.preorder_idom, t.live_count * 4);
        /* The types and sizes in preorder (DPTY, DPSZ): the heap's own,
         * read at each position's object. */
        assert_non_null(it->preorder_type16);
        assert_non_null(it->preorder_size32);
        for (uint64_t i = 0; i < t.live_count; i++) {
            assert_int_equal(it->preorder_type16[i], want->object_type[t.preorder[i]]);
            assert_int_equal(it->preorder_size32[i], want->object_size32[t.preorder[i]]);
        }
        gch_domtree_free(&t);
        /* By object: derived from the preorder, equal to a whole build. */
        gch_domtree w;
        assert_int_equal(gch_domtree_build(want, v, &w, NULL), GCH_OK);
        assert_int_equal(gch_analysis_domtree(ia, got, v, GCH_TREE_BY_OBJECT, &it, NULL), GCH_OK);
        same_arrays(it->idom, w.idom, want->object_count * 4);
        same_arrays(it->retained, w.retained, want->object_count * 8);
        gch_domtree_free(&w);
        gch_paths p;
        gch_paths_options po = { v, NULL, NULL, NULL, NULL };
        assert_int_equal(gch_paths_build_ex(want, &po, &p, NULL), GCH_OK);
        const gch_paths *ip;
        assert_int_equal(gch_analysis_paths(ia, got, v, &ip, NULL), GCH_OK);
        same_arrays(ip->parent, p.parent, want->object_count * 4);
        assert_int_equal(ip->root_object_count, p.root_object_count);
        same_arrays(ip->root_objects, p.root_objects, p.root_object_count * 4);
        same_arrays(ip->root_records, p.root_records, p.root_object_count * 4);
        gch_paths_free(&p);
        /* Distances and the live set, against a BFS and a marking of the
         * heap itself. */
        uint32_t *d;
        const uint32_t *id;
        assert_int_equal(gch_root_distance(want, v, &d, NULL), GCH_OK);
        assert_int_equal(gch_analysis_distance(ia, got, v, &id, NULL), GCH_OK);
        same_arrays(id, d, want->object_count * 4);
        gch_free(d);
        uint8_t *mask;
        uint64_t lc, lb, ic, ib;
        const uint8_t *imask;
        gch_live_options lo = { v, 1 };
        assert_int_equal(gch_live_set_ex(want, &lo, &mask, &lc, &lb, NULL), GCH_OK);
        assert_int_equal(gch_analysis_live(ia, got, v, &imask, &ic, &ib, NULL), GCH_OK);
        same_arrays(imask, mask, want->object_count);
        assert_int_equal(ic, lc);
        assert_int_equal(ib, lb);
        gch_free(mask);
    }
}

/* The model, the derived structures, and nothing computed. */
static void compare(gch_heap *want, gch_analysis *ia, gch_heap *got)
{
    uint32_t n = want->object_count;
    assert_int_equal(got->object_count, n);
    assert_int_equal(got->type_count, want->type_count);
    assert_int_equal(got->ref_count, want->ref_count);
    assert_int_equal(got->total_size, want->total_size);
    same_arrays(got->object_id, want->object_id, n * 8);
    same_arrays(got->object_type, want->object_type, n * 4);
    same_arrays(got->object_size32, want->object_size32, n * 4);
    same_arrays(got->out_start, want->out_start, (n + 1) * 4);
    same_arrays(got->out_target, want->out_target, want->ref_count * 4);
    same_arrays(got->root_object, want->root_object, want->root_count * 4);
    same_arrays(got->root_flags, want->root_flags, want->root_count);
    assert_string_equal(gch_type_name(got, 0), gch_type_name(want, 0));
    compare_views(want, ia, got);
    assert_int_equal(gch_heap_build_reverse(want, NULL), GCH_OK);
    assert_int_equal(gch_analysis_reverse(ia, got, NULL), GCH_OK);
    same_arrays(got->in_start, want->in_start, (n + 1) * 4);
    same_arrays(got->in_source, want->in_source, want->ref_count * 4);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t o;
        assert_int_equal(gch_analysis_find(ia, got, want->object_id[i], &o, NULL), GCH_OK);
        assert_int_equal(o, gch_heap_find_object(want, want->object_id[i]));
    }
    uint32_t o;
    assert_int_equal(gch_analysis_find(ia, got, UINT64_MAX, &o, NULL), GCH_OK);
    assert_int_equal(o, GCH_NONE);
    assert_int_equal(gch_analysis_count(ia, GCH_STEP_DOMTREE), 0);
    assert_int_equal(gch_analysis_count(ia, GCH_STEP_PATHS), 0);
    assert_int_equal(gch_analysis_count(ia, GCH_STEP_REVERSE), 0);
    assert_int_equal(gch_analysis_count(ia, GCH_STEP_LOOKUP), 0);
    assert_int_equal(gch_analysis_count(ia, GCH_STEP_DISTANCE), 0);
    assert_int_equal(gch_analysis_count(ia, GCH_STEP_LIVE), 0);
    assert_null(gch_analysis_source_error(ia));
}

static gch_error last_err;
static unsigned open_threads = 1; /* gch_index_set_threads of open_index */

static gch_analysis *open_index(membuf *b, gch_status *st)
{
    gch_index *ix;
    *st = gch_index_open(b->p, b->n, &ix, &last_err);
    if (*st != GCH_OK)
        return NULL;
    gch_index_set_threads(ix, open_threads);
    gch_dump *d;
    *st = gch_index_load(ix, 0, 1, NULL, NULL, &d, &last_err);
    if (*st != GCH_OK) {
        gch_index_close(ix);
        return NULL;
    }
    gch_analysis *a;
    assert_int_equal(gch_analysis_new(d, NULL, &a, NULL), GCH_OK);
    return a;
}

static void random_heaps(void **state)
{
    (void)state;
    th_rng r = { 0x9e3779b97f4a7c15ULL };
    for (int k = 0; k < 200; k++) {
        th_rng copy = r;
        gch_dump *d = th_random_dump(&r, 60);
        if (k % 2)
            shuffle_ids(&r, d->heaps[0]);
        th_rng again_r = copy;
        gch_dump *want = th_random_dump(&again_r, 60); /* the same heap, kept as the oracle */
        if (k % 2)
            shuffle_ids(&again_r, want->heaps[0]);
        membuf b = write_index(d);
        gch_status st;
        open_threads = 1 + k % 2; /* two: chunks checked beside each other */
        gch_analysis *ia = open_index(&b, &st);
        open_threads = 1;
        if (st != GCH_OK)
            print_message("%s\n", last_err.message);
        assert_int_equal(st, GCH_OK);
        assert_int_equal(gch_index_hash(b.p, 0), 0xEF46DB3751D8E999ULL); /* XXH64 of nothing */
        compare(want->heaps[0], ia, gch_analysis_dump(ia)->heaps[0]);
        gch_analysis_free(ia);
        /* The live set asked for first (refs' live column): from the
         * distance bytes alone, against a marking of the heap. */
        ia = open_index(&b, &st);
        assert_int_equal(st, GCH_OK);
        int v = (k / 2) % 2;
        uint8_t *mask;
        const uint8_t *imask;
        uint64_t lc, lb, ic, ib;
        gch_live_options lo = { v, 1 };
        assert_int_equal(gch_live_set_ex(want->heaps[0], &lo, &mask, &lc, &lb, NULL), GCH_OK);
        assert_int_equal(gch_analysis_live(ia, gch_analysis_dump(ia)->heaps[0], v, &imask, &ic, &ib,
                                           NULL), GCH_OK);
        same_arrays(imask, mask, want->heaps[0]->object_count);
        assert_int_equal(ic, lc);
        assert_int_equal(ib, lb);
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_LIVE), 0);
        assert_null(gch_analysis_source_error(ia));
        gch_free(mask);
        gch_analysis_free(ia);
        /* Each object's path, its distance and whether it is live asked
         * first (retainers, objects, refs from an index): the heap's own
         * search's answers, and nothing computed. */
        ia = open_index(&b, &st);
        assert_int_equal(st, GCH_OK);
        gch_heap *w = want->heaps[0], *g = gch_analysis_dump(ia)->heaps[0];
        gch_paths p;
        gch_paths_options po = { v, NULL, NULL, NULL, NULL };
        uint32_t *bfs;
        assert_int_equal(gch_paths_build_ex(w, &po, &p, NULL), GCH_OK);
        assert_int_equal(gch_root_distance(w, v, &bfs, NULL), GCH_OK);
        for (uint32_t o = 0; o < w->object_count; o++) {
            gch_path_set x, y;
            uint32_t dist;
            uint8_t live;
            assert_int_equal(gch_paths_path(&p, o, &x, NULL), GCH_OK);
            assert_int_equal(gch_analysis_path(ia, g, v, o, &y, NULL), GCH_OK);
            assert_int_equal(y.count, x.count);
            if (x.count) {
                assert_int_equal(y.start[1], x.start[1]);
                same_arrays(y.objects, x.objects, x.start[1] * 4);
                assert_int_equal(y.root_record[0], x.root_record[0]);
            }
            gch_path_set_free(&x);
            gch_path_set_free(&y);
            assert_int_equal(gch_analysis_distances_of(ia, g, v, &o, 1, &dist, NULL), GCH_OK);
            assert_int_equal(dist, bfs[o]);
            assert_int_equal(gch_analysis_live_of(ia, g, v, &o, 1, &live, NULL), GCH_OK);
            assert_int_equal(live, bfs[o] != GCH_NONE);
        }
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_PATHS), 0);
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_DISTANCE), 0);
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_LIVE), 0);
        assert_null(gch_analysis_source_error(ia));
        gch_paths_free(&p);
        gch_free(bfs);
        gch_analysis_free(ia);
        gch_dump_free(want);
        free(b.p);
    }
}

/* Leak suspects from an index (its tree in preorder with the types and
 * sizes beside: labels and holds in one pass without a branch on what is
 * random, the walks and the path parents on a second thread) against the
 * same heap's from the dump, field by field: random heaps, thresholds down to
 * 0 (every top-level object with a size a suspect), both views, one thread
 * and two. */
static void suspects_equal(const gch_suspects *x, const gch_suspects *y)
{
    assert_int_equal(x->live_count, y->live_count);
    assert_int_equal(x->live_bytes, y->live_bytes);
    assert_int_equal(x->count, y->count);
    for (size_t k = 0; k < x->count; k++) {
        const gch_suspect *a = &x->items[k], *b = &y->items[k];
        assert_int_equal(a->group, b->group);
        assert_int_equal(a->object, b->object);
        assert_int_equal(a->type, b->type);
        assert_int_equal(a->instances, b->instances);
        assert_int_equal(a->retained, b->retained);
        assert_int_equal(a->retained_objects, b->retained_objects);
        assert_int_equal(a->accumulation, b->accumulation);
        assert_int_equal(a->accumulation_retained, b->accumulation_retained);
        assert_int_equal(a->accumulation_depth, b->accumulation_depth);
        assert_int_equal(a->root_record, b->root_record);
        assert_int_equal(a->path_len, b->path_len);
        for (size_t i = 0; i < a->path_len; i++)
            assert_int_equal(x->path[a->path_start + i], y->path[b->path_start + i]);
        assert_int_equal(a->holds_count, b->holds_count);
        for (size_t i = 0; i < a->holds_count; i++) {
            const gch_type_row *u = &x->holds[a->holds_start + i], *v = &y->holds[b->holds_start + i];
            assert_int_equal(u->type, v->type);
            assert_int_equal(u->count, v->count);
            assert_int_equal(u->bytes, v->bytes);
        }
    }
}

static void suspects_from_index(void **state)
{
    (void)state;
    static const double thresholds[] = { 0, 5, 10, 30 };
    th_rng r = { 0x5115ULL };
    for (int k = 0; k < 300; k++) {
        th_rng copy = r;
        gch_dump *d = th_random_dump(&r, 60);
        gch_dump *want = th_random_dump(&copy, 60); /* the same heap, kept as the oracle */
        membuf b = write_index(d);
        gch_status st;
        open_threads = 1 + k % 2;
        gch_analysis *ia = open_index(&b, &st);
        open_threads = 1;
        assert_int_equal(st, GCH_OK);
        gch_suspects_options opt = GCH_SUSPECTS_OPTIONS_INIT;
        opt.threshold = thresholds[k % 4];
        opt.include_weak = k % 3 == 0;
        opt.holds_top = k % 5 == 0 ? 2 : 10;
        opt.threads = 1 + k % 2;
        gch_tuning t = gch_tuning_get();
        t.parallel_min_refs = k % 2 ? 0 : (size_t)1 << 40; /* the threaded passes on tiny heaps */
        gch_internal_set_tuning(&t);
        gch_suspects si, sd;
        assert_int_equal(gch_suspects_find_in(ia, gch_analysis_dump(ia)->heaps[0], &opt, &si, NULL),
                         GCH_OK);
        assert_int_equal(gch_suspects_find(want->heaps[0], &opt, &sd, NULL), GCH_OK);
        gch_internal_set_tuning(NULL);
        suspects_equal(&si, &sd);
        assert_null(gch_analysis_source_error(ia));
        gch_suspects_free(&si);
        gch_suspects_free(&sd);
        gch_analysis_free(ia);
        gch_dump_free(want);
        free(b.p);
    }
}

/* ---- hostile indexes ---- */

static uint64_t get64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static void put64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static void put32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }

#define TAG(s) ((uint32_t)(s)[0] | (uint32_t)(s)[1] << 8 | (uint32_t)(s)[2] << 16 | (uint32_t)(s)[3] << 24)

/* The table entry of chunk tag (view), or NULL. */
static unsigned char *entry(membuf *b, const char *tag, unsigned view)
{
    uint32_t count = get32(b->p + 32);
    for (uint32_t i = 0; i < count; i++) {
        unsigned char *e = b->p + get64(b->p + 24) + 40 * (size_t)i;
        if (get32(e) == TAG(tag) && (get32(e + 4) >> 16) == view)
            return e;
    }
    return NULL;
}

static unsigned char *chunk(membuf *b, const char *tag, unsigned view)
{
    unsigned char *e = entry(b, tag, view);
    assert_non_null(e);
    return b->p + get64(e + 16);
}

static void fix(membuf *b)
{
    uint32_t count = get32(b->p + 32);
    for (uint32_t i = 0; i < count; i++) {
        unsigned char *e = b->p + get64(b->p + 24) + 40 * (size_t)i;
        uint64_t at = get64(e + 16), count = get64(e + 24), elem = get32(e + 8);
        if (at > b->n || (elem && count > (b->n - at) / elem))
            continue; /* a hostile entry past the end: no bytes to sum */
        put64(e + 32, gch_index_hash(b->p + at, (size_t)(count * elem)));
    }
    put64(b->p + 40, gch_index_hash(b->p + get64(b->p + 24), (size_t)count * 40));
    put64(b->p + 56, gch_index_hash(b->p, 56));
}

/* A fixed heap: a chain 0 -> 1 -> ... -> 9 from a strong root on 0 and a
 * weak root on 5, ids falling (an id order is written). */
static membuf fixed_index(void)
{
    gch_dump *d = th_dump_new(10, 2, 2, 9);
    gch_heap *h = d->heaps[0];
    uint32_t src[9], dst[9];
    for (uint32_t i = 0; i < 9; i++) {
        src[i] = i;
        dst[i] = i + 1;
    }
    th_set_edges(h, src, dst, 9);
    for (uint32_t i = 0; i < 10; i++) {
        h->object_id[i] = 100 - i;
        th_set_size(h, i, 8 + i);
        h->object_type[i] = i % 2;
    }
    h->total_size = 8 * 10 + 45;
    /* Per-type totals (as a reader keeps them): five objects of each type,
     * 8 + i bytes for object i. */
    h->type_objects = gch_calloc(2, sizeof *h->type_objects);
    h->type_bytes = gch_calloc(2, sizeof *h->type_bytes);
    assert_non_null(h->type_objects);
    assert_non_null(h->type_bytes);
    for (uint32_t i = 0; i < 10; i++) {
        h->type_objects[i % 2]++;
        h->type_bytes[i % 2] += 8 + i;
    }
    h->root_object[0] = 0;
    h->root_object[1] = 5;
    h->root_raw_id[0] = h->object_id[0];
    h->root_raw_id[1] = h->object_id[5];
    h->root_flags[1] = GCH_ROOT_WEAK;
    return write_index(d);
}

typedef struct mutation {
    const char *tag;
    unsigned view;
    size_t at;            /* element */
    unsigned elem;
    uint64_t value;
    int derived;          /* found when the structure is asked for (computed instead) */
} mutation;

static void hostile_values(void **state)
{
    (void)state;
    static const mutation m[] = {
        { "OTYP", 0, 3, 4, 2, 0 },          /* type index = type count */
        { "OTGT", 0, 4, 4, 10, 0 },         /* reference to object 10 of 10 */
        { "OSTA", 0, 5, 4, 0, 0 },          /* starts fall */
        { "OSTA", 0, 10, 4, 8, 0 },         /* last start is not the reference count */
        { "ROBJ", 0, 0, 4, 10, 0 },         /* root on no object */
        { "RKND", 0, 0, 1, 9, 0 },          /* root kind out of range */
        { "RRID", 0, 1, 8, 100, 0 },        /* root on object 5 named by object 0's id (fuzz_index) */
        { "TNAM", 0, 1, 4, 1000000, 0 },    /* name outside the string pool */
        { "OSIZ", 0, 2, 4, 0xFFFFFFFFu, 0 },/* a big size with no big-size entry */
        { "HEAP", 0, 9, 4, 5, 0 },          /* object count disagrees with the chunks */
        { "DPRE", 0, 1, 4, 0, 1 },          /* an object twice in the preorder */
        { "DPID", 0, 2, 4, 5, 1 },          /* an idom after its object */
        { "PPAR", 0, 3, 4, 6, 1 },          /* a cycle of path parents (6 -> 5 -> 4 -> 3 -> 6) */
        { "PROB", 1, 0, 4, 99, 1 },         /* a root object out of range */
        { "INSR", 0, 0, 4, 77, 1 },         /* reverse reference from no object */
        { "INST", 0, 1, 4, 9, 1 },          /* reverse starts fall */
        { "IDOR", 0, 0, 4, 0, 0 },          /* id order not sorted: distinct ids rest on it */
        { "OIDS", 0, 4, 8, 100, 0 },        /* two objects with id 100 (fuzz_index) */
        { "TNAM", 0, 0, 4, 0xFFFFFFFFu, 0 },/* a type without a name (fuzz_index) */
        { "TDEC", 0, 1, 1, 7, 0 },          /* declared flag not 0/1 (fuzz_index) */
        { "DREC", 1, 0, 8, 11, 1 },         /* more live objects than objects */
        { "DREC", 0, 1, 8, 7, 1 },          /* live bytes that the sizes do not add up to */
        { "DPSZ", 1, 3, 4, 1, 1 },          /* a size that is not its object's: the sum disagrees */
        { "PDEP", 0, 4, 1, 9, 1 },          /* a depth that is not the parent's plus one */
        { "PDEP", 1, 0, 1, 1, 1 },          /* a root object not at depth 0 */
        { "DIST", 0, 2, 1, 255, 1 },        /* fewer reached than the tree's live objects */
        { "DIST", 1, 7, 1, 254, 1 },        /* a far distance the far list does not give */
        { "DIST", 0, 3, 1, 10, 1 },         /* a distance of 10 among 10 objects (fuzz_index) */
        { "PPAR", 1, 9, 4, 11, 1 },         /* a parent beyond the objects */
        { "DPTY", 0, 3, 2, 2, 1 },          /* a type in preorder = type count */
        { "DPTY", 1, 0, 2, 1, 1 },          /* type 1 six times: it has five objects */
        { "DPTY", 0, 9, 2, 0xFFFF, 1 },     /* the 16 bits' last type, beyond the count */
    };
    for (size_t k = 0; k < sizeof m / sizeof *m; k++) {
        membuf b = fixed_index();
        unsigned char *c = chunk(&b, m[k].tag, m[k].view);
        if (m[k].elem == 8)
            put64(c + m[k].at * 8, m[k].value);
        else if (m[k].elem == 4)
            put32(c + m[k].at * 4, (uint32_t)m[k].value);
        else if (m[k].elem == 2)
            memcpy(c + m[k].at * 2, &(uint16_t){ (uint16_t)m[k].value }, 2);
        else
            c[m[k].at] = (unsigned char)m[k].value;
        fix(&b);
        gch_status st;
        /* Checked on two threads: the same verdict and the same first error. */
        open_threads = 2;
        gch_analysis *two = open_index(&b, &st);
        gch_status st2 = st;
        char msg2[sizeof last_err.message];
        memcpy(msg2, last_err.message, sizeof msg2);
        if (two) {
            gch_heap *h2 = gch_analysis_dump(two)->heaps[0];
            const gch_domtree *t2;
            (void)gch_analysis_domtree(two, h2, 0, GCH_TREE_PREORDER_IDOM, &t2, NULL);
            st2 = gch_analysis_source_error(two) ? gch_analysis_source_error(two)->status : GCH_OK;
            gch_analysis_free(two);
        }
        open_threads = 1;
        gch_analysis *ia = open_index(&b, &st);
        print_message("%s: %s\n", m[k].tag, st == GCH_OK ? "ok" : last_err.message);
        if (!ia) {
            assert_int_equal(st2, st);
            assert_string_equal(msg2, last_err.message);
        }
        if (!m[k].derived) {
            assert_int_equal(st, GCH_EFORMAT);
            assert_null(ia);
        } else {
            /* The model is fine: the damaged structure is computed instead. */
            assert_int_equal(st, GCH_OK);
            gch_heap *h = gch_analysis_dump(ia)->heaps[0];
            const gch_domtree *t;
            const gch_paths *p;
            uint32_t o;
            for (int v = 0; v < 2; v++) {
                assert_int_equal(gch_analysis_domtree(ia, h, v, GCH_TREE_PREORDER_IDOM, &t, NULL), GCH_OK);
                assert_int_equal(t->live_count, v ? 10 : 10);
                assert_int_equal(gch_analysis_paths(ia, h, v, &p, NULL), GCH_OK);
                assert_int_equal(gch_paths_depth(p, 9), v ? 4 : 9); /* from root 5 with weak roots */
            }
            assert_int_equal(gch_analysis_reverse(ia, h, NULL), GCH_OK);
            assert_int_equal(h->in_source[h->in_start[3]], 2);
            assert_int_equal(gch_analysis_find(ia, h, 97, &o, NULL), GCH_OK);
            assert_int_equal(o, 3);
            for (int v = 0; v < 2; v++) { /* the chain from 0, and from 5 with weak roots */
                const uint32_t *d;
                assert_int_equal(gch_analysis_distance(ia, h, v, &d, NULL), GCH_OK);
                for (uint32_t i = 0; i < 10; i++)
                    assert_int_equal(d[i], v && i >= 5 ? i - 5 : i);
                assert_int_equal(gch_analysis_domtree(ia, h, v, GCH_TREE_BY_OBJECT, &t, NULL), GCH_OK);
                assert_int_equal(t->retained[9], 17); /* object 9's own size */
            }
            assert_non_null(gch_analysis_source_error(ia));
            assert_int_equal(gch_analysis_source_error(ia)->status, GCH_EFORMAT);
            gch_analysis_free(ia);
        }
        free(b.p);
    }
}

static void hostile_files(void **state)
{
    (void)state;
    gch_index *ix;
    gch_error err;
    membuf b = fixed_index();
    /* A checksum: one byte of a chunk changed, checksums left as they were. */
    chunk(&b, "OIDS", 0)[3] ^= 1;
    gch_status st;
    assert_null(open_index(&b, &st));
    assert_int_equal(st, GCH_EFORMAT);
    free(b.p);
    /* Truncated: every length short of the whole. */
    b = fixed_index();
    for (size_t n = 0; n < b.n; n += 7) {
        assert_int_equal(gch_index_open(b.p, n, &ix, &err), GCH_EFORMAT);
    }
    /* Version, byte order, a chunk beyond the end, a huge count. */
    put32(b.p + 8, GCH_INDEX_VERSION - 1); /* an older layout */
    put64(b.p + 56, gch_index_hash(b.p, 56));
    assert_int_equal(gch_index_open(b.p, b.n, &ix, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "version 1 "));
    put32(b.p + 8, GCH_INDEX_VERSION);
    put32(b.p + 12, 0x04030201u);
    put64(b.p + 56, gch_index_hash(b.p, 56));
    assert_int_equal(gch_index_open(b.p, b.n, &ix, &err), GCH_EFORMAT);
    put32(b.p + 12, 0x01020304u);
    unsigned char *e = entry(&b, "OTGT", 0);
    put64(e + 16, b.n + 64);
    fix(&b);
    assert_int_equal(gch_index_open(b.p, b.n, &ix, &err), GCH_EFORMAT);
    put64(e + 16, 64 * 8);
    put64(e + 24, UINT64_MAX / 2);
    fix(&b);
    assert_int_equal(gch_index_open(b.p, b.n, &ix, &err), GCH_EFORMAT);
    free(b.p);
    /* The check finds what a load would. */
    b = fixed_index();
    assert_int_equal(gch_index_open(b.p, b.n, &ix, &err), GCH_OK);
    assert_int_equal(gch_index_check(ix, &err), GCH_OK);
    gch_index_close(ix);
    put32(chunk(&b, "DPID", 1) + 4, 7);
    fix(&b);
    assert_int_equal(gch_index_open(b.p, b.n, &ix, &err), GCH_OK);
    assert_int_equal(gch_index_check(ix, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "DPID"));
    gch_index_close(ix);
    free(b.p);
}

/* A chain 0 -> 1 -> ... -> n-1 from one strong root on 0: depths and
 * distances past the byte (GCX_DEPTH_DEEP, GCX_DIST_FAR and the far list). */
static membuf chain_index(uint32_t n)
{
    gch_dump *d = th_dump_new(n, 1, 1, n - 1);
    gch_heap *h = d->heaps[0];
    uint32_t *src = malloc(n * sizeof *src), *dst = malloc(n * sizeof *dst);
    for (uint32_t i = 0; i + 1 < n; i++) {
        src[i] = i;
        dst[i] = i + 1;
    }
    th_set_edges(h, src, dst, n - 1);
    free(src);
    free(dst);
    for (uint32_t i = 0; i < n; i++) {
        h->object_id[i] = 1000 + i;
        th_set_size(h, i, 8);
    }
    h->total_size = 8ull * n;
    h->root_object[0] = 0;
    h->root_raw_id[0] = h->object_id[0];
    return write_index(d);
}

/* The chain's structures from the index: every object's distance is its
 * position (a BFS from the root says so too), its path that long. */
static void expect_chain(gch_analysis *ia, uint32_t n, int from_index)
{
    gch_heap *h = gch_analysis_dump(ia)->heaps[0];
    const uint32_t *d;
    const gch_paths *p;
    uint32_t *bfs;
    assert_int_equal(gch_root_distance(h, 0, &bfs, NULL), GCH_OK);
    for (int v = 0; v < 2; v++) {
        assert_int_equal(gch_analysis_distance(ia, h, v, &d, NULL), GCH_OK);
        assert_int_equal(gch_analysis_paths(ia, h, v, &p, NULL), GCH_OK);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(d[i], bfs[i]);
            assert_int_equal(d[i], i);
            assert_int_equal(gch_paths_depth(p, i), i);
        }
    }
    gch_free(bfs);
    if (from_index) {
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_DISTANCE), 0);
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_PATHS), 0);
    }
}

static void deep_chains(void **state)
{
    (void)state;
    const uint32_t n = 600;
    membuf b = chain_index(n);
    gch_status st;
    gch_analysis *ia = open_index(&b, &st);
    assert_int_equal(st, GCH_OK);
    expect_chain(ia, n, 1);
    assert_null(gch_analysis_source_error(ia));
    gch_analysis_free(ia);
    assert_int_equal(get64(entry(&b, "DSTX", 0) + 24), n - 254); /* far: 254 .. n-1 */
    free(b.p);
    /* Hostile: a cycle among deep objects (400 -> 300 -> ... -> 400), whose
     * depths all say "deep"; an unreached parent of a deep object; a far
     * distance below the byte's reach. Each is found, the paths or the
     * distances computed instead. */
    /* Then a depth off in the second half (the witness's second thread)
     * and in both halves (the first half's is named). Each on one thread
     * and on two: the same message. */
    for (int k = 0; k < 5; k++) {
        char first[sizeof last_err.message] = "";
        for (unsigned threads = 1; threads <= 2; threads++) {
            b = chain_index(n);
            if (k == 0)
                put32(chunk(&b, "PPAR", 0) + 300 * 4, 400);
            if (k == 1)
                put32(chunk(&b, "PPAR", 0) + 500 * 4, GCH_NONE);
            if (k == 2)
                put32(chunk(&b, "DSTX", 0) + 4, 3);
            if (k >= 3)
                chunk(&b, "PDEP", 0)[450] = 7;
            if (k == 4)
                chunk(&b, "PDEP", 0)[100] = 7;
            fix(&b);
            open_threads = threads;
            ia = open_index(&b, &st);
            open_threads = 1;
            assert_int_equal(st, GCH_OK);
            expect_chain(ia, n, 0);
            assert_non_null(gch_analysis_source_error(ia));
            const char *msg = gch_analysis_source_error(ia)->message;
            print_message("%s\n", msg);
            if (k >= 3)
                assert_non_null(strstr(msg, k == 3 ? "PDEP of section 0: element 450 "
                                                   : "PDEP of section 0: element 100 "));
            if (threads == 1)
                snprintf(first, sizeof first, "%s", msg);
            else
                assert_string_equal(msg, first);
            gch_analysis_free(ia);
            free(b.p);
        }
    }
}

/* GCH_INDEX_REFS_LATER: the references are not read at load, so damage
 * there does not stop a load nor what the derived chunks answer; an
 * analysis that must compute from them reads and checks them first: the
 * right answer from good ones, an error (never a crash) from bad ones. */
static gch_analysis *open_later(membuf *b, gch_status *st)
{
    gch_index *ix;
    gch_dump *d;
    gch_analysis *a;
    assert_int_equal(gch_index_open(b->p, b->n, &ix, &last_err), GCH_OK);
    *st = gch_index_load(ix, 0, GCH_INDEX_LABELS | GCH_INDEX_REFS_LATER, NULL, NULL, &d, &last_err);
    assert_int_equal(*st, GCH_OK);
    assert_null(d->heaps[0]->out_start);
    assert_int_equal(gch_analysis_new(d, NULL, &a, NULL), GCH_OK);
    return a;
}

static void refs_later(void **state)
{
    (void)state;
    for (int k = 0; k < 3; k++) {
        membuf b = fixed_index();
        if (k >= 1)
            put32(chunk(&b, "OTGT", 0) + 4 * 4, 10); /* a reference to object 10 of 10 */
        if (k == 2)
            put32(chunk(&b, "DPRE", 0) + 4, 0);      /* and a tree that must be computed */
        fix(&b);
        gch_status st;
        gch_analysis *ia = open_later(&b, &st);
        gch_heap *h = gch_analysis_dump(ia)->heaps[0];
        const gch_domtree *t;
        const uint32_t *d;
        st = gch_analysis_domtree(ia, h, 0, GCH_TREE_PREORDER_IDOM, &t, &last_err);
        if (k < 2) { /* from the index: the chain's tree, references unread */
            assert_int_equal(st, GCH_OK);
            assert_int_equal(t->live_count, 10);
            assert_int_equal(t->preorder_retained[0], 8 * 10 + 45);
            assert_int_equal(gch_analysis_distance(ia, h, 0, &d, NULL), GCH_OK);
            assert_int_equal(d[9], 9);
            assert_null(h->out_start);
        } else {
            assert_int_equal(st, GCH_EFORMAT);
            assert_non_null(strstr(last_err.message, "OTGT"));
        }
        /* The paths are served too, references still unread. */
        if (k == 0) {
            const gch_paths *p;
            assert_int_equal(gch_analysis_paths(ia, h, 0, &p, NULL), GCH_OK);
            assert_int_equal(gch_analysis_count(ia, GCH_STEP_PATHS), 0);
            assert_null(h->out_start);
        }
        gch_analysis_free(ia);
        free(b.p);
    }
    /* A computation from good references, deferred: the same answer. */
    membuf b = fixed_index();
    put32(chunk(&b, "PPAR", 0) + 3 * 4, 6); /* a cycle: the paths are computed */
    fix(&b);
    gch_status st;
    gch_analysis *ia = open_later(&b, &st);
    gch_heap *h = gch_analysis_dump(ia)->heaps[0];
    const gch_paths *p;
    assert_int_equal(gch_analysis_paths(ia, h, 0, &p, NULL), GCH_OK);
    assert_non_null(h->out_start);
    assert_int_equal(gch_analysis_count(ia, GCH_STEP_PATHS), 1);
    assert_int_equal(gch_paths_depth(p, 9), 9);
    assert_non_null(gch_analysis_source_error(ia));
    gch_analysis_free(ia);
    free(b.p);
    /* The suspects' own search (the paths damaged: no tree to read them
     * from) with the references deferred: read first (fuzz_index found the
     * search walking absent references), the chain's path. */
    b = fixed_index();
    put32(chunk(&b, "PPAR", 0) + 3 * 4, 6);
    fix(&b);
    ia = open_later(&b, &st);
    h = gch_analysis_dump(ia)->heaps[0];
    gch_suspects s;
    gch_suspects_options so = GCH_SUSPECTS_OPTIONS_INIT;
    assert_int_equal(gch_suspects_find_in(ia, h, &so, &s, NULL), GCH_OK);
    assert_non_null(h->out_start);
    assert_int_equal(s.count, 1);
    assert_int_equal(s.items[0].object, 0);
    assert_int_equal(s.items[0].retained, 8 * 10 + 45);
    /* The path to the accumulation point: along the chain from root 0. */
    assert_int_equal(s.items[0].path_len, s.items[0].accumulation + 1);
    for (size_t i = 0; i < s.items[0].path_len; i++)
        assert_int_equal(s.path[s.items[0].path_start + i], i);
    /* The parents' cycle, met by the suspects' walk up the parents (read
     * without the depths' witness), is the source's error, as when the
     * paths are asked for whole. */
    assert_non_null(gch_analysis_source_error(ia));
    assert_non_null(strstr(gch_analysis_source_error(ia)->message, "PDEP"));
    gch_suspects_free(&s);
    gch_analysis_free(ia);
    free(b.p);
}

/* Elementwise checks run block by block behind the checksum (64 KiB
 * blocks): a value out of bounds in a later block, or in the last bytes
 * below a 32-byte stripe, is found and named with its offset; of two, the
 * first; with the checksum wrong as well, the checksum's error (as when the
 * checksum was checked whole first); on one thread and two alike. */
static void checked_in_blocks(void **state)
{
    (void)state;
    const uint32_t n = 40000; /* OTGT: 39,999 targets, 159,996 bytes: 2 blocks, a part, a tail */
    static const struct {
        size_t at, at2;
        int sum_wrong;
    } c[] = {
        { 20000, 0, 0 },      /* in the second block */
        { 39995, 0, 0 },      /* below the last stripe (bytes 159,968 on) */
        { 30000, 100, 0 },    /* two: the first (100) is named */
        { 30000, 0, 1 },      /* and the checksum wrong: its error first */
        { (size_t)-1, 0, 0 }, /* none: the chain, loaded */
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        for (unsigned threads = 1; threads <= 2; threads++) {
            membuf b = chain_index(n);
            unsigned char *t = chunk(&b, "OTGT", 0);
            uint64_t off = (uint64_t)(t - b.p);
            if (c[k].at != (size_t)-1)
                put32(t + c[k].at * 4, n);
            if (c[k].at2)
                put32(t + c[k].at2 * 4, n + 5);
            fix(&b);
            if (c[k].sum_wrong)
                put32(t + 5 * 4, 7); /* a value in bounds, not the one summed */
            gch_status st;
            open_threads = threads;
            gch_analysis *ia = open_index(&b, &st);
            open_threads = 1;
            if (c[k].at == (size_t)-1) {
                assert_int_equal(st, GCH_OK);
                gch_heap *h = gch_analysis_dump(ia)->heaps[0];
                assert_int_equal(h->out_target[h->out_start[20000]], 20001);
                assert_int_equal(h->out_target[n - 2], n - 1);
                gch_analysis_free(ia);
                free(b.p);
                continue;
            }
            assert_int_equal(st, GCH_EFORMAT);
            assert_null(ia);
            assert_non_null(strstr(last_err.message, "chunk OTGT of section 0"));
            if (c[k].sum_wrong) {
                assert_non_null(strstr(last_err.message, "checksum mismatch"));
                assert_int_equal(last_err.offset, off);
            } else {
                size_t first = c[k].at2 ? c[k].at2 : c[k].at;
                char want[80];
                snprintf(want, sizeof want, "element %zu out of bounds", first);
                assert_non_null(strstr(last_err.message, want));
                assert_int_equal(last_err.offset, off + first * 4);
            }
            free(b.p);
        }
    }
}

/* Checks that carry a value from one 64 KiB piece to the next (CSR starts
 * never falling, ids rising, sizes summed) see a fault on either side of a
 * piece's edge as when they read the chunk whole: the chain's starts are
 * 0, 1, ..., n-1, n-1 (16,384 to a piece), its ids 1000 + i (8,192 to a
 * piece). Each on one thread and on two: the same message. */
static void checked_in_pieces(void **state)
{
    (void)state;
    const uint32_t n = 40000;
    static const struct {
        const char *tag;
        size_t at;
        int derived;       /* reverse starts: computed instead, the error kept */
        const char *want;  /* in the message */
    } c[] = {
        { "OSTA", 16384, 0, "chunk OSTA of section 0: element 16384 out of bounds" },
        { "OSTA", 16383, 0, "chunk OSTA of section 0: element 16383 out of bounds" },
        { "OSTA", 40000, 0, "chunk OSTA of section 0: element 40000 out of bounds" },
        { "INST", 32768, 1, "chunk INST of section 0: element 32768 out of bounds" },
        { "OIDS", 8192, 0, "IDOR" },  /* ids repeat across the edge: an id order is required */
        { "OSIZ", 16384, 0, "object sizes disagree" },
    };
    for (size_t k = 0; k < sizeof c / sizeof *c; k++) {
        char first[sizeof last_err.message] = "";
        for (unsigned threads = 1; threads <= 2; threads++) {
            membuf b = chain_index(n);
            unsigned char *t = chunk(&b, c[k].tag, 0);
            if (strcmp(c[k].tag, "OIDS") == 0)
                put64(t + c[k].at * 8, 1000 + c[k].at - 1);
            else if (strcmp(c[k].tag, "OSIZ") == 0)
                put32(t + c[k].at * 4, GCH_SIZE_BIG); /* with no big size */
            else if (c[k].at == n)
                put32(t + c[k].at * 4, n); /* past the reference count, not falling */
            else
                put32(t + c[k].at * 4, get32(t + (c[k].at - 1) * 4) - 1); /* below the one before */
            fix(&b);
            gch_status st;
            open_threads = threads;
            gch_analysis *ia = open_index(&b, &st);
            open_threads = 1;
            const char *msg = last_err.message;
            if (c[k].derived) {
                assert_int_equal(st, GCH_OK);
                gch_heap *h = gch_analysis_dump(ia)->heaps[0];
                assert_int_equal(gch_analysis_reverse(ia, h, NULL), GCH_OK);
                assert_int_equal(h->in_source[h->in_start[32768]], 32767); /* computed */
                msg = gch_analysis_source_error(ia)->message;
            } else {
                assert_int_equal(st, GCH_EFORMAT);
                assert_null(ia);
            }
            print_message("%s: %s\n", c[k].tag, msg);
            assert_non_null(strstr(msg, c[k].want));
            if (threads == 1)
                snprintf(first, sizeof first, "%s", msg);
            else
                assert_string_equal(msg, first);
            gch_analysis_free(ia);
            free(b.p);
        }
    }
}

/* GCH_INDEX_REVERSE: the reverse references checked at load, beside the
 * forward ones; the analysis then takes them from the index (nothing
 * computed: each object of the chain is referenced by the one before). A
 * damaged reverse chunk does not fail the load: the analysis computes the
 * reverse references instead and keeps the error, as without the flag. On
 * one thread and on two. */
static void reverse_at_load(void **state)
{
    (void)state;
    const uint32_t n = 40000;
    for (int damaged = 0; damaged < 3; damaged++) {
        for (unsigned threads = 1; threads <= 2; threads++) {
            membuf b = chain_index(n);
            if (damaged == 1)
                put32(chunk(&b, "INSR", 0) + 30000 * 4, n); /* a source past the objects */
            if (damaged == 2)
                put32(chunk(&b, "INST", 0) + 20000 * 4, 0); /* starts fall */
            fix(&b);
            gch_index *ix;
            gch_dump *d;
            gch_analysis *a;
            assert_int_equal(gch_index_open(b.p, b.n, &ix, &last_err), GCH_OK);
            gch_index_set_threads(ix, threads);
            assert_int_equal(gch_index_load(ix, 0, GCH_INDEX_REVERSE, NULL, NULL, &d, &last_err),
                             GCH_OK);
            assert_int_equal(gch_analysis_new(d, NULL, &a, NULL), GCH_OK);
            gch_heap *h = d->heaps[0];
            assert_int_equal(gch_analysis_reverse(a, h, NULL), GCH_OK);
            assert_int_equal(h->in_start[0], 0);
            for (uint32_t o = 1; o < n; o += 997) {
                assert_int_equal(h->in_start[o + 1] - h->in_start[o], 1);
                assert_int_equal(h->in_source[h->in_start[o]], o - 1);
            }
            assert_int_equal(gch_analysis_count(a, GCH_STEP_REVERSE), damaged != 0);
            if (damaged)
                assert_non_null(strstr(gch_analysis_source_error(a)->message,
                                       damaged == 1 ? "chunk INSR" : "chunk INST"));
            else
                assert_null(gch_analysis_source_error(a));
            gch_analysis_free(a);
            free(b.p);
        }
    }
}

/* gch_analysis_path: one object's shortest path from the index's path
 * parents walked up (bounded), without the depths' witness: on the
 * 600-object chain the path to i is 0, 1, ..., i (by hand), from root
 * record 0, nothing computed, and damaged depths (PDEP) are never read. A
 * cycle in the parents (300's parent made 400): a path that does not meet
 * it still comes from the parents; one that runs into it asks for the whole
 * tree, whose check fails: the path computed, the error kept. */
static void expect_chain_path(gch_analysis *a, uint32_t object)
{
    gch_heap *h = gch_analysis_dump(a)->heaps[0];
    gch_path_set ps;
    assert_int_equal(gch_analysis_path(a, h, 0, object, &ps, NULL), GCH_OK);
    assert_int_equal(ps.count, 1);
    assert_int_equal(ps.start[1] - ps.start[0], (size_t)object + 1);
    for (uint32_t i = 0; i <= object; i++)
        assert_int_equal(ps.objects[ps.start[0] + i], i);
    assert_int_equal(ps.root_record[0], 0);
    gch_path_set_free(&ps);
}

static void path_of_one(void **state)
{
    (void)state;
    const uint32_t n = 600;
    for (int k = 0; k < 2; k++) {
        membuf b = chain_index(n);
        if (k == 0)
            memset(chunk(&b, "PDEP", 0), 7, n); /* depths that witness nothing */
        else
            put32(chunk(&b, "PPAR", 0) + 300 * 4, 400);
        fix(&b);
        gch_status st;
        gch_analysis *ia = open_index(&b, &st);
        assert_int_equal(st, GCH_OK);
        expect_chain_path(ia, 100);
        expect_chain_path(ia, 0);
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_PATHS), 0);
        assert_null(gch_analysis_source_error(ia));
        if (k == 0) {
            expect_chain_path(ia, n - 1);
            assert_int_equal(gch_analysis_count(ia, GCH_STEP_PATHS), 0);
            assert_null(gch_analysis_source_error(ia));
        } else {
            expect_chain_path(ia, 450); /* 450 -> ... -> 400 -> ... -> 300 -> 400 */
            assert_int_equal(gch_analysis_count(ia, GCH_STEP_PATHS), 1);
            assert_non_null(gch_analysis_source_error(ia));
        }
        gch_heap *h = gch_analysis_dump(ia)->heaps[0];
        gch_path_set ps;
        gch_error e;
        assert_int_equal(gch_analysis_path(ia, h, 0, n, &ps, &e), GCH_EINVAL);
        gch_analysis_free(ia);
        free(b.p);
    }
}

/* gch_analysis_distances_of and gch_analysis_live_of: from the index's
 * distance chunks (near bytes, the far list searched) without an array of
 * every distance, equal to a breadth-first search (gch_root_distance) on the
 * 600-object chain, far ones (254 on) included; from a heap without an
 * index, equal to gch_analysis_distance; damaged far distances: the error
 * kept and the answer computed; an object out of bounds: GCH_EINVAL. */
static void distances_of_few(void **state)
{
    (void)state;
    const uint32_t n = 600;
    static const uint32_t objects[] = { 0, 1, 253, 254, 255, 400, 599, 7, 598 };
    const size_t k = sizeof objects / sizeof *objects;
    for (int damaged = 0; damaged < 2; damaged++) {
        membuf b = chain_index(n);
        if (damaged) {
            put32(chunk(&b, "DSTX", 0) + 4, 3); /* a far distance below the byte's reach */
            fix(&b);
        }
        gch_status st;
        gch_analysis *ia = open_index(&b, &st);
        assert_int_equal(st, GCH_OK);
        gch_heap *h = gch_analysis_dump(ia)->heaps[0];
        uint32_t *bfs, got[sizeof objects / sizeof *objects];
        uint8_t live[sizeof objects / sizeof *objects];
        assert_int_equal(gch_root_distance(h, 0, &bfs, NULL), GCH_OK);
        assert_int_equal(gch_analysis_live_of(ia, h, 0, objects, k, live, NULL), GCH_OK);
        assert_int_equal(gch_analysis_distances_of(ia, h, 0, objects, k, got, NULL), GCH_OK);
        for (size_t i = 0; i < k; i++) {
            assert_int_equal(got[i], bfs[objects[i]]);
            assert_int_equal(live[i], bfs[objects[i]] != GCH_NONE);
        }
        /* Not one array of all distances unless the chunks were damaged. */
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_DISTANCE), damaged);
        if (damaged)
            assert_non_null(strstr(gch_analysis_source_error(ia)->message, "DSTX"));
        else
            assert_null(gch_analysis_source_error(ia));
        uint32_t bad = n;
        gch_error e;
        assert_int_equal(gch_analysis_distances_of(ia, h, 0, &bad, 1, got, &e), GCH_EINVAL);
        assert_int_equal(gch_analysis_live_of(ia, h, 0, &bad, 1, live, &e), GCH_EINVAL);
        gch_free(bfs);
        gch_analysis_free(ia);
        free(b.p);
    }
    /* Without an index: what gch_analysis_distance says, for a random heap
     * with unreached objects (weak and strong views). */
    th_rng r = { 12345 };
    gch_dump *d = th_random_dump(&r, 300);
    gch_analysis *a;
    assert_int_equal(gch_analysis_new(d, NULL, &a, NULL), GCH_OK);
    gch_heap *h = d->heaps[0];
    uint32_t m = h->object_count, all[300], got[300];
    uint8_t live[300];
    for (uint32_t i = 0; i < m; i++)
        all[i] = m - 1 - i;
    for (int v = 0; v < 2; v++) {
        const uint32_t *dist;
        const uint8_t *mask;
        assert_int_equal(gch_analysis_live_of(a, h, v, all, m, live, NULL), GCH_OK);
        assert_int_equal(gch_analysis_distances_of(a, h, v, all, m, got, NULL), GCH_OK);
        assert_int_equal(gch_analysis_distance(a, h, v, &dist, NULL), GCH_OK);
        assert_int_equal(gch_analysis_live(a, h, v, &mask, NULL, NULL, NULL), GCH_OK);
        for (uint32_t i = 0; i < m; i++) {
            assert_int_equal(got[i], dist[m - 1 - i]);
            assert_int_equal(live[i], mask[m - 1 - i]);
        }
    }
    gch_analysis_free(a);
}

/* GCH_INDEX_NO_TYPE_TOTALS: the per-type totals are neither read nor
 * checked (a damaged total does not stop the load; without the flag it
 * does), and the histogram counts the objects: five of each type, 8 + i
 * bytes for object i (by hand). */
static void no_type_totals(void **state)
{
    (void)state;
    membuf b = fixed_index();
    put64(chunk(&b, "TBYT", 0) + 8, 1); /* type 1's bytes */
    fix(&b);
    for (int flag = 0; flag < 2; flag++) {
        gch_index *ix;
        gch_dump *d = NULL;
        assert_int_equal(gch_index_open(b.p, b.n, &ix, &last_err), GCH_OK);
        gch_status st = gch_index_load(ix, 0, flag ? GCH_INDEX_NO_TYPE_TOTALS : 0u, NULL, NULL,
                                       &d, &last_err);
        if (!flag) {
            assert_int_equal(st, GCH_EFORMAT);
            assert_non_null(strstr(last_err.message, "the totals of type 1"));
            gch_index_close(ix);
            continue;
        }
        assert_int_equal(st, GCH_OK);
        gch_heap *h = d->heaps[0];
        assert_null(h->type_objects);
        assert_null(h->type_bytes);
        gch_type_row *rows;
        uint32_t nrows;
        assert_int_equal(gch_histogram(h, NULL, &rows, &nrows, NULL), GCH_OK);
        assert_int_equal(nrows, 2);
        for (size_t i = 0; i < nrows; i++) {
            uint32_t t = rows[i].type;
            assert_int_equal(rows[i].count, 5);
            assert_int_equal(rows[i].bytes, t ? 9 + 11 + 13 + 15 + 17 : 8 + 10 + 12 + 14 + 16);
        }
        gch_free(rows);
        gch_dump_free(d);
    }
    free(b.p);
}

/* The live set asked for first comes from the distance bytes (the source's
 * reached mask): on the chain from root 0, every object (by hand). Damaged
 * distance bytes are an error the analysis keeps while it marks the heap
 * itself: the same set. */
static void live_first(void **state)
{
    (void)state;
    for (int k = 0; k < 2; k++) {
        membuf b = fixed_index();
        if (k == 1) {
            chunk(&b, "DIST", 0)[9] = 255; /* fewer reached than the tree's live objects */
            fix(&b);
        }
        gch_status st;
        gch_analysis *ia = open_index(&b, &st);
        assert_int_equal(st, GCH_OK);
        gch_heap *h = gch_analysis_dump(ia)->heaps[0];
        const uint8_t *m;
        uint64_t c, bytes;
        assert_int_equal(gch_analysis_live(ia, h, 0, &m, &c, &bytes, NULL), GCH_OK);
        for (uint32_t i = 0; i < 10; i++)
            assert_int_equal(m[i], 1);
        assert_int_equal(c, 10);
        assert_int_equal(bytes, 8 * 10 + 45);
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_LIVE), k);
        if (k)
            assert_non_null(strstr(gch_analysis_source_error(ia)->message, "DIST"));
        else
            assert_null(gch_analysis_source_error(ia));
        gch_analysis_free(ia);
        free(b.p);
    }
}

/* The sizes are summed without the big ones, added after, and the per-type
 * totals count a big object's whole size: an index with a big object loads
 * with its sizes and totals; a big slot moved to another object (as many
 * slots as big sizes, but the listed object's is not big) or a type's bytes
 * off by one are refused. */
static void big_sizes_checked(void **state)
{
    (void)state;
    const uint64_t big = 5ull << 32;
    for (int k = 0; k < 3; k++) {
        gch_dump *d = th_dump_new(4, 2, 1, 0);
        gch_heap *h = d->heaps[0];
        h->type_objects = gch_calloc(2, sizeof *h->type_objects);
        h->type_bytes = gch_calloc(2, sizeof *h->type_bytes);
        assert_non_null(h->type_objects);
        assert_non_null(h->type_bytes);
        for (uint32_t i = 0; i < 4; i++) {
            h->object_id[i] = 10 + i;
            h->object_type[i] = i % 2;
            th_set_size(h, i, i == 1 ? big : 16);
            h->type_objects[i % 2]++;
            h->type_bytes[i % 2] += i == 1 ? big : 16;
        }
        h->total_size = 48 + big;
        h->root_object[0] = 0;
        h->root_raw_id[0] = 10;
        membuf b = write_index(d);
        if (k == 1) {
            put32(chunk(&b, "OSIZ", 0) + 4, 16);
            put32(chunk(&b, "OSIZ", 0) + 8, GCH_SIZE_BIG);
        }
        if (k == 2)
            put64(chunk(&b, "TBYT", 0) + 8, 16 + big + 1);
        fix(&b);
        gch_status st;
        gch_analysis *ia = open_index(&b, &st);
        if (k == 0) {
            assert_int_equal(st, GCH_OK);
            gch_heap *g = gch_analysis_dump(ia)->heaps[0];
            assert_int_equal(gch_object_size(g, 1), big);
            assert_int_equal(gch_object_size(g, 2), 16);
            assert_int_equal(g->type_bytes[1], 16 + big);
            gch_analysis_free(ia);
        } else {
            assert_int_equal(st, GCH_EFORMAT);
            assert_non_null(strstr(last_err.message, k == 1 ? "object sizes disagree"
                                                             : "the totals of type 1"));
        }
        free(b.p);
    }
}

/* XXH64 against the reference implementation: each value is what xxhsum -H1
 * (xxHash 0.8.1, Debian's xxhash) prints for the n bytes (i * 31 + 7) & 255,
 * lengths chosen to end in every branch (the 1-byte, 4-byte and 8-byte
 * tails, the 32-byte stripes). */
static void hash_vectors(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        uint64_t want;
    } v[] = {
        { 1, 0xa96c7f0ce858bbb7ULL },  { 3, 0x56e6957632a487f9ULL },  { 4, 0xc60d15b1e3ff8f04ULL },
        { 7, 0xafbefc3d6c6f9a8eULL },  { 8, 0x3da5c7aa269683e0ULL },  { 12, 0x8fe8ab1c1fd0666eULL },
        { 31, 0x4a74f3a1a39ad4a1ULL }, { 32, 0x8d57d6a4671cc43dULL }, { 33, 0x62c9fd21ed857664ULL },
        { 63, 0x5c320a0d2707057fULL }, { 64, 0x7bbabbc45729d17eULL }, { 100, 0xefa0ad2d3e70c151ULL },
        { 257, 0x6ff15897658784e0ULL },
    };
    unsigned char buf[258];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)((i * 31 + 7) & 255);
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        assert_int_equal(gch_index_hash(buf, v[k].n), v[k].want);
    assert_int_equal(gch_index_hash("abc", 3), 0x44BC2CF5AD770999ULL); /* xxHash's own example */
}

/* Every anomaly count comes back from the index as it was written: distinct
 * values (but for those the reader checks against the model), so a word
 * written twice or dropped shows. */
static void anomalies_kept(void **state)
{
    (void)state;
    th_rng r = { 42 };
    gch_dump *d = th_random_dump(&r, 20);
    gch_anomalies *a = &d->heaps[0]->anomalies;
    uint64_t *words[] = { &a->dangling_refs,        &a->first_dangling_ref,   &a->dangling_holders,
                          &a->dangling_holder_id[0], &a->dangling_holder_id[1], &a->dangling_holder_id[2],
                          &a->dangling_holder_refs[0], &a->dangling_holder_refs[1],
                          &a->dangling_holder_refs[2], &a->unknown_type_objects, &a->unknown_types,
                          &a->dangling_roots,       &a->duplicate_objects,    &a->first_duplicate_object,
                          &a->duplicate_types,      &a->absent_containers,    &a->missing_end,
                          &a->end_name_mismatch };
    _Static_assert(sizeof words / sizeof *words * 8 == sizeof(gch_anomalies), "every member named");
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        *words[i] = 1000 + 17 * i;
    /* what the reader checks against the model (index_model.c) stays true */
    a->dangling_roots = 0;
    for (uint32_t k = 0; k < d->heaps[0]->root_count; k++)
        a->dangling_roots += d->heaps[0]->root_object[k] == GCH_NONE;
    a->missing_end = 1;
    a->end_name_mismatch = 0;
    a->unknown_type_objects = 3;
    gch_anomalies want = *a;
    /* the words as the file holds them (gcx_heap_rec.anomalies, written out by hand) */
    const uint64_t file_words[18] = {
        a->dangling_refs,        a->first_dangling_ref,     a->unknown_type_objects,
        a->unknown_types,        a->dangling_roots,         a->duplicate_objects,
        a->first_duplicate_object, a->duplicate_types,      a->absent_containers,
        a->missing_end,          a->end_name_mismatch,      a->dangling_holders,
        a->dangling_holder_id[0], a->dangling_holder_id[1], a->dangling_holder_id[2],
        a->dangling_holder_refs[0], a->dangling_holder_refs[1], a->dangling_holder_refs[2],
    };
    membuf b = write_index(d);
    size_t at = 0;
    while (at + sizeof file_words <= b.n && memcmp(b.p + at, file_words, sizeof file_words) != 0)
        at += 8;
    assert_true(at + sizeof file_words <= b.n); /* found, in that order */
    gch_status st;
    gch_analysis *ia = open_index(&b, &st);
    if (st != GCH_OK)
        print_message("%s\n", last_err.message);
    assert_int_equal(st, GCH_OK);
    assert_memory_equal(&gch_analysis_dump(ia)->heaps[0]->anomalies, &want, sizeof want);
    gch_analysis_free(ia);
    free(b.p);
}

/* ---- types in preorder (DPTY) ---- */

static void same_suspects(gch_heap *want, gch_analysis *ia, gch_heap *got)
{
    for (int v = 0; v < 2; v++) {
        gch_suspects_options o = GCH_SUSPECTS_OPTIONS_INIT;
        o.include_weak = v;
        o.threshold = 1; /* many suspects, singles and groups */
        gch_suspects a, b;
        assert_int_equal(gch_suspects_find(want, &o, &a, NULL), GCH_OK);
        assert_int_equal(gch_suspects_find_in(ia, got, &o, &b, NULL), GCH_OK);
        assert_true(a.count > 1);
        assert_int_equal(b.count, a.count);
        for (size_t k = 0; k < a.count; k++) {
            const gch_suspect *x = &a.items[k], *y = &b.items[k];
            assert_int_equal(y->group, x->group);
            assert_int_equal(y->object, x->object);
            assert_int_equal(y->type, x->type);
            assert_int_equal(y->instances, x->instances);
            assert_int_equal(y->retained, x->retained);
            assert_int_equal(y->retained_objects, x->retained_objects);
            assert_int_equal(y->accumulation, x->accumulation);
            assert_int_equal(y->path_len, x->path_len);
            same_arrays(b.path + y->path_start, a.path + x->path_start, x->path_len * 4);
            assert_int_equal(y->holds_count, x->holds_count);
            for (size_t i = 0; i < x->holds_count; i++) {
                const gch_type_row *hx = &a.holds[x->holds_start + i], *hy = &b.holds[y->holds_start + i];
                assert_int_equal(hy->type, hx->type);
                assert_int_equal(hy->count, hx->count);
                assert_int_equal(hy->bytes, hx->bytes);
            }
        }
        gch_suspects_free(&a);
        gch_suspects_free(&b);
    }
}

/* A heap of `types` types whose objects use the highest ones: a root on 0
 * holding a chain 1..99 (a single suspect), and a root on each of 100..299
 * (groups by type), the one on 150 weak. */
static gch_dump *typed_heap(uint32_t types)
{
    enum { N = 300, CHAIN = 100 };
    gch_dump *d = th_dump_new(N, types, 1 + N - CHAIN, CHAIN - 1);
    gch_heap *h = d->heaps[0];
    uint32_t src[CHAIN - 1], dst[CHAIN - 1];
    for (uint32_t i = 1; i < CHAIN; i++) {
        src[i - 1] = i - 1;
        dst[i - 1] = i;
    }
    th_set_edges(h, src, dst, CHAIN - 1);
    uint64_t total = 0;
    for (uint32_t i = 0; i < N; i++) {
        h->object_type[i] = types - 1 - i % 7;
        th_set_size(h, i, 16 + i % 13);
        total += 16 + i % 13;
    }
    h->total_size = total;
    for (uint32_t r = 0; r <= N - CHAIN; r++) {
        uint32_t o = r == 0 ? 0 : CHAIN + r - 1;
        h->root_object[r] = o;
        h->root_raw_id[r] = h->object_id[o];
        h->root_flags[r] = o == 150 ? GCH_ROOT_WEAK : 0;
    }
    return d;
}

/* Suspects from an index equal those of the heap itself, with the types in
 * preorder (DPTY: up to 65,536 types) and without (more types: the index
 * has none, as one of before DPTY, and the walk reads the objects' types). */
static void preorder_types(void **state)
{
    (void)state;
    const uint32_t kinds[2] = { 40, 70000 };
    for (int k = 0; k < 2; k++) {
        gch_dump *want = typed_heap(kinds[k]);
        membuf b = write_index(typed_heap(kinds[k]));
        assert_int_equal(entry(&b, "DPTY", 0) != NULL, k == 0);
        gch_status st;
        gch_analysis *ia = open_index(&b, &st);
        assert_int_equal(st, GCH_OK);
        gch_heap *got = gch_analysis_dump(ia)->heaps[0];
        const gch_domtree *t;
        assert_int_equal(gch_analysis_domtree(ia, got, 0, GCH_TREE_PREORDER_IDOM, &t, NULL), GCH_OK);
        assert_int_equal(t->preorder_type16 != NULL, k == 0);
        same_suspects(want->heaps[0], ia, got);
        assert_int_equal(gch_analysis_count(ia, GCH_STEP_DOMTREE), 0);
        assert_null(gch_analysis_source_error(ia));
        gch_analysis_free(ia);
        gch_dump_free(want);
        free(b.p);
    }
}

/* Every allocation of opening, loading and first use failing in turn: each
 * failing run gives GCH_ENOMEM and frees all it took; the run that reaches
 * no failure gives what a run without the allocator gives. On one thread
 * (the counting allocator is not thread-safe) and with labels. */
static gch_status open_load_ask(const membuf *b, uint64_t *live_bytes)
{
    gch_index *ix;
    gch_error err;
    gch_dump *d = NULL;
    gch_status st = gch_index_open(b->p, b->n, &ix, &err);
    if (st != GCH_OK)
        return st;
    gch_index_set_threads(ix, 1);
    st = gch_index_load(ix, 0, GCH_INDEX_LABELS, NULL, NULL, &d, &err);
    if (st != GCH_OK) {
        gch_index_close(ix);
        return st;
    }
    gch_analysis *a = NULL;
    st = gch_analysis_new(d, NULL, &a, &err);
    if (st == GCH_OK) {
        gch_heap *h = d->heaps[0];
        const gch_domtree *t;
        const gch_paths *p;
        const uint32_t *dist;
        st = gch_analysis_domtree(a, h, 0, GCH_TREE_BY_OBJECT, &t, &err);
        if (st == GCH_OK)
            *live_bytes = t->live_bytes;
        if (st == GCH_OK)
            st = gch_analysis_paths(a, h, 1, &p, &err);
        if (st == GCH_OK)
            st = gch_analysis_distance(a, h, 0, &dist, &err);
        if (st == GCH_OK)
            st = gch_analysis_reverse(a, h, &err);
        /* a derived chunk that could not be read for want of memory is
         * computed instead, or fails as memory fails: either way no answer
         * differs (checked by the run without failures) */
        if (st == GCH_OK && gch_analysis_source_error(a) &&
            gch_analysis_source_error(a)->status == GCH_ENOMEM)
            st = GCH_ENOMEM;
        gch_analysis_free(a); /* and the dump it owns */
    } else {
        gch_dump_free(d);
    }
    return st;
}

static void alloc_failure(void **state)
{
    (void)state;
    membuf b = fixed_index();
    uint64_t want = 0, got = 0;
    assert_int_equal(open_load_ask(&b, &want), GCH_OK);
    long failing = 0;
    for (long n = 1;; n++) {
        fail_alloc_install(n);
        got = 0;
        gch_status st = open_load_ask(&b, &got);
        fail_alloc_remove();
        if (fail_alloc.live != 0)
            fail_msg("allocation %ld failed: %ld blocks leaked (status %d)", n, fail_alloc.live, (int)st);
        if (!fail_alloc.hit) {
            assert_int_equal(st, GCH_OK);
            assert_int_equal(got, want);
            break;
        }
        failing++;
        if (st == GCH_OK)
            assert_int_equal(got, want); /* a shrinking realloc may fail harmlessly */
        else if (st != GCH_ENOMEM)
            fail_msg("allocation %ld failed: status %d, expected GCH_ENOMEM", n, (int)st);
    }
    print_message("failed each of %ld allocations in turn\n", failing);
    assert_true(failing > 10);
    free(b.p);
}

/* ---- retained sizes in preorder (gcx_retained) ---- */

/* A tree in preorder positions: the parent's position pid (below its own,
 * or GCH_DOM_VROOT), the shallow size psz (GCH_SIZE_BIG: the heap's big
 * size of the object pre[i]) and size, each position's whole size. */
typedef struct ret_case {
    uint32_t n;
    uint32_t *pre, *pid, *psz;
    uint64_t *size;
    gch_dump *d;             /* the big sizes' heap (NULL: none) */
} ret_case;

static ret_case ret_case_new(th_rng *r, uint32_t n, int big)
{
    ret_case c = { n, calloc(n, 4), calloc(n, 4), calloc(n, 4), calloc(n, 8),
                   big ? th_dump_new(n, 1, 0, 0) : NULL };
    assert_true(c.pre && c.pid && c.psz && c.size);
    for (uint32_t i = 0; i < n; i++) { /* objects in a shuffled order */
        uint32_t j = r ? th_below(r, i + 1) : i;
        c.pre[i] = c.pre[j];
        c.pre[j] = i;
    }
    return c;
}

static void ret_case_size(ret_case *c, uint32_t i, uint64_t size)
{
    c->size[i] = size;
    c->psz[i] = size < GCH_SIZE_BIG ? (uint32_t)size : GCH_SIZE_BIG;
    if (size >= GCH_SIZE_BIG)
        th_set_size(c->d->heaps[0], c->pre[i], size);
}

static void ret_case_free(ret_case *c)
{
    free(c->pre);
    free(c->pid);
    free(c->psz);
    free(c->size);
    gch_dump_free(c->d);
}

/* The oracle: each position's size added to it and to every position up
 * its chain of parents (a walk, no recursion), and to the roots' total. */
static uint64_t ret_oracle(const ret_case *c, uint64_t *want)
{
    uint64_t roots = 0;
    memset(want, 0, (size_t)c->n * 8);
    for (uint32_t j = 0; j < c->n; j++) {
        for (uint32_t k = j; k != GCH_DOM_VROOT; k = c->pid[k])
            want[k] += c->size[j];
        roots += c->size[j];
    }
    return roots;
}

static void expect_retained(const ret_case *c, const uint64_t *want, uint64_t roots)
{
    uint64_t *got = calloc(c->n + 1, 8);
    assert_non_null(got);
    const gch_heap *h = c->d ? c->d->heaps[0] : NULL;
    assert_int_equal(gcx_retained(c->pre, c->pid, c->psz, c->n, h, got), roots);
    assert_int_equal(got[c->n], roots);
    for (uint32_t i = 0; i < c->n; i++)
        if (got[i] != want[i])
            fail_msg("position %u: %llu, want %llu", i, (unsigned long long)got[i],
                     (unsigned long long)want[i]);
    free(got);
}

static void expect_oracle(const ret_case *c)
{
    uint64_t *want = malloc((size_t)c->n * 8);
    assert_non_null(want);
    expect_retained(c, want, ret_oracle(c, want));
    free(want);
}

/* A preorder of a random tree: each position's parent is on the path to
 * the one before (a random number of steps back up it). */
static void random_preorder(th_rng *r, ret_case *c)
{
    uint32_t *path = malloc((size_t)c->n * 4), depth = 0;
    assert_non_null(path);
    for (uint32_t i = 0; i < c->n; i++) {
        if (depth && th_below(r, 2))
            depth -= th_below(r, depth + 1);
        c->pid[i] = depth ? path[depth - 1] : GCH_DOM_VROOT;
        path[depth++] = i;
    }
    free(path);
}

/* Random trees, as preorders of the dominator tree and as the index keeps
 * them, the graph's DFS order (any parent before its child), with small
 * and big sizes, and parents that no preorder has (idom_before lets them
 * through): the oracle's values. */
static void retained_random_trees(void **state)
{
    (void)state;
    th_rng r = { 33 };
    for (int k = 0; k < 60; k++) {
        ret_case c = ret_case_new(&r, 1 + th_below(&r, 150), 1);
        if (k % 2)
            random_preorder(&r, &c);
        else
            for (uint32_t i = 0; i < c.n; i++)
                c.pid[i] = i && th_below(&r, 8) ? th_below(&r, i) : GCH_DOM_VROOT;
        for (uint32_t i = 0; i < c.n; i++)
            ret_case_size(&c, i, th_below(&r, 20) ? th_below(&r, 1000)
                                                  : th_rand(&r) | (1ull << 40));
        expect_oracle(&c);
        ret_case_free(&c);
    }
}

/* One chain two million long (position i's parent i - 1, no recursion
 * anywhere): each total is the sum of the sizes i + 1 from there down,
 * n(n+1)/2 - i(i+1)/2. */
static void retained_long_chain(void **state)
{
    (void)state;
    const uint32_t n = 2000000;
    ret_case c = ret_case_new(NULL, n, 0);
    uint64_t *want = malloc((size_t)n * 8);
    assert_non_null(want);
    for (uint32_t i = 0; i < n; i++) {
        c.pid[i] = i ? i - 1 : GCH_DOM_VROOT;
        ret_case_size(&c, i, i + 1ull);
        want[i] = ((uint64_t)n * (n + 1) - (uint64_t)i * (i + 1)) / 2;
    }
    expect_retained(&c, want, want[0]);
    free(want);
    ret_case_free(&c);
}

/* Big sizes near 2^63: the totals wrap around 2^64 (the oracle's sums wrap
 * alike; that they do wrap is checked). */
static void retained_big_sizes(void **state)
{
    (void)state;
    th_rng r = { 11 };
    ret_case c = ret_case_new(&r, 400, 1);
    random_preorder(&r, &c);
    uint64_t sum = 0;
    int wrapped = 0;
    for (uint32_t i = 0; i < c.n; i++) {
        ret_case_size(&c, i, i % 3 ? th_below(&r, 100) : (1ull << 63) - th_below(&r, 1000));
        wrapped |= sum + c.size[i] < sum;
        sum += c.size[i];
    }
    assert_true(wrapped);
    expect_oracle(&c);
    ret_case_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_heaps),
        cmocka_unit_test(suspects_from_index),
        cmocka_unit_test(retained_random_trees),
        cmocka_unit_test(retained_long_chain),
        cmocka_unit_test(retained_big_sizes),
        cmocka_unit_test(hash_vectors),
        cmocka_unit_test(anomalies_kept),
        cmocka_unit_test(hostile_values),
        cmocka_unit_test(hostile_files),
        cmocka_unit_test(deep_chains),
        cmocka_unit_test(refs_later),
        cmocka_unit_test(checked_in_blocks),
        cmocka_unit_test(checked_in_pieces),
        cmocka_unit_test(distances_of_few),
        cmocka_unit_test(reverse_at_load),
        cmocka_unit_test(path_of_one),
        cmocka_unit_test(no_type_totals),
        cmocka_unit_test(big_sizes_checked),
        cmocka_unit_test(live_first),
        cmocka_unit_test(preorder_types),
        cmocka_unit_test(alloc_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
