/* One loaded dump and what is derived from it: see include/gcheap/analysis.h. */
#include <inttypes.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/graph.h"
#include "analysis_internal.h"
#include "gcheap/task.h"
#include "graph_internal.h"

gch_status gch_analysis_new(gch_dump *dump, const gch_analysis_options *opts, gch_analysis **out,
                            gch_error *err)
{
    *out = NULL;
    gch_analysis *a = gch_calloc(1, sizeof *a);
    heap_state *hs = gch_calloc(dump->heap_count ? dump->heap_count : 1, sizeof *hs);
    if (!a || !hs) {
        gch_free(a);
        gch_free(hs);
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < dump->heap_count; i++)
        hs[i].h = dump->heaps[i];
    a->dump = dump;
    a->owns_dump = 1;
    a->hs = hs;
    a->src = dump->source;
    if (opts)
        a->o = *opts;
    *out = a;
    return GCH_OK;
}

gch_status gch_analysis_of_heap(gch_heap *heap, const gch_analysis_options *opts,
                                gch_analysis **out, gch_error *err)
{
    gch_dump one;
    memset(&one, 0, sizeof one);
    one.heap_count = 1;
    one.heaps = &heap;
    gch_status st = gch_analysis_new(&one, opts, out, err);
    if (st != GCH_OK)
        return st;
    gch_analysis *a = *out;
    a->wrapped = heap;
    a->wrapper.heaps = &a->wrapped;
    a->wrapper.heap_count = 1;
    a->wrapper.format = "";
    a->dump = &a->wrapper;
    a->owns_dump = 0;
    a->hs[0].h = heap;
    return GCH_OK;
}

static void view_free(view *v)
{
    if (!v->tree_borrowed)
        gch_domtree_free(&v->tree);
    gch_free(v->type_ret);
    if (!v->paths_borrowed)
        gch_paths_free(&v->paths);
    gch_free(v->live);
    if (!v->dist_borrowed)
        gch_free(v->dist);
    gch_free(v->depth8);
    memset(v, 0, sizeof *v);
}

void gch_analysis_free(gch_analysis *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->dump->heap_count; i++) {
        view_free(&a->hs[i].v[0]);
        view_free(&a->hs[i].v[1]);
        if (!a->hs[i].sorted_borrowed)
            gch_free(a->hs[i].sorted);
    }
    gch_free(a->hs);
    if (a->owns_dump)
        gch_dump_free(a->dump);
    gch_free(a);
}

gch_dump *gch_analysis_dump(const gch_analysis *a) { return a->dump; }

void gch_analysis_set_options(gch_analysis *a, const gch_analysis_options *opts)
{
    static const gch_analysis_options defaults;
    a->o = opts ? *opts : defaults;
}

gch_analysis_options gch_analysis_get_options(const gch_analysis *a) { return a->o; }

const gch_error *gch_analysis_source_error(const gch_analysis *a)
{
    return a->src_failed ? &a->src_err : NULL;
}

static gch_status view_of_objects(gch_analysis *a, const gch_heap *heap, int include_weak,
                                  const uint32_t *objects, size_t n, view **v, gch_error *err);

/* A source's answer: 1 found, 0 not (none, or an error kept: compute). */
static int from_source(gch_analysis *a, gch_status st, int found, const gch_error *e)
{
    if (st == GCH_OK)
        return found;
    if (!a->src_failed) {
        a->src_err = *e;
        a->src_failed = 1;
    }
    return 0;
}

unsigned long gch_analysis_count(const gch_analysis *a, gch_analysis_step step)
{
    return step < GCH_STEP_COUNT ? a->counts[step] : 0;
}

/* The state of heap h, or NULL when h is not one of the dump's. */
static heap_state *state_of(gch_analysis *a, const gch_heap *h, gch_error *err)
{
    for (size_t i = 0; i < a->dump->heap_count; i++)
        if (a->hs[i].h == h)
            return &a->hs[i];
    gch_error_set(err, GCH_EINVAL, "the heap is not one of the analysis's dump");
    return NULL;
}

heap_state *gch__analysis_state(gch_analysis *a, const gch_heap *h, gch_error *err)
{
    return state_of(a, h, err);
}

/* The references of s's heap, read now when its source deferred them. */
static gch_status need_refs(gch_analysis *a, heap_state *s, gch_error *err)
{
    if (s->h->out_start || !s->h->refs_loaded || !a->src || !a->src->refs)
        return GCH_OK;
    return a->src->refs(a->src->ctx, s->h, err);
}

/* ---- progress ---- */

typedef struct phase {
    const gch_analysis *a;
    const char *what;
} phase;

static void phase_percent(void *ctx, unsigned percent)
{
    const phase *p = ctx;
    if (p->a->o.progress)
        p->a->o.progress(p->a->o.progress_ctx, p->what, percent > 100 ? 100 : percent);
}

static void phase_edge(const phase *p, unsigned percent)
{
    if (p->a->o.progress)
        p->a->o.progress(p->a->o.progress_ctx, p->what, percent);
}

/* ---- dominator trees ---- */

static unsigned normal_parts(unsigned parts)
{
    if (parts & GCH_TREE_CHILDREN)
        parts |= GCH_TREE_BY_OBJECT;
    if (parts & GCH_TREE_PREORDER_IDOM)
        parts |= GCH_TREE_PREORDER;
    return parts;
}

/* The builder's options for parts: by object (with the preorder arrays kept
 * when asked), or in preorder only. Returns the parts the build gives. */
static unsigned build_options(unsigned parts, gch_domtree_options *o)
{
    if (!(parts & GCH_TREE_BY_OBJECT)) {
        o->children = 0;
        o->preorder_only = 1;
        o->preorder_idom = (parts & GCH_TREE_PREORDER_IDOM) != 0;
        return GCH_TREE_PREORDER | (o->preorder_idom ? GCH_TREE_PREORDER_IDOM : 0);
    }
    o->children = (parts & GCH_TREE_CHILDREN) != 0;
    o->keep_preorder = (parts & GCH_TREE_PREORDER) != 0;
    return GCH_TREE_BY_OBJECT | (o->children ? GCH_TREE_CHILDREN : 0) |
           (o->keep_preorder ? GCH_TREE_PREORDER | GCH_TREE_PREORDER_IDOM : 0);
}

unsigned gch__analysis_normal_parts(unsigned parts) { return normal_parts(parts); }

unsigned gch__analysis_tree_options(unsigned parts, gch_domtree_options *o)
{
    return build_options(normal_parts(parts), o);
}

gch_status gch_analysis_domtree(gch_analysis *a, const gch_heap *heap, int include_weak,
                                unsigned parts, const gch_domtree **out, gch_error *err)
{
    *out = NULL;
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    view *v = &s->v[include_weak != 0];
    parts = normal_parts(parts);
    /* The source has no children lists: a request for them builds. */
    int lacking = !v->parts || (v->tree_borrowed && (v->parts & parts) != parts);
    if (lacking && a->src && a->src->tree && !v->tree_asked && !(parts & GCH_TREE_CHILDREN)) {
        gch_domtree t;
        unsigned got = parts;
        int found = 0;
        gch_error e;
        gch_error_clear(&e);
        memset(&t, 0, sizeof t);
        gch_status st = a->src->tree(a->src->ctx, heap, include_weak, &t, &got, &found, &e);
        if (from_source(a, st, found, &e)) {
            v->tree = t;
            v->parts = got;
            v->tree_borrowed = 1;
        } else {
            v->tree_asked = 1; /* none, or damaged: computed from now on */
        }
    }
    if (v->parts && (v->parts & parts) == parts) {
        *out = &v->tree;
        return GCH_OK;
    }
    /* Build again with what the old tree had too, so that requests
     * alternating between parts do not rebuild each time. */
    unsigned want = a->o.keep_whole_trees ? ALL_PARTS : parts | v->parts;
    gch_status st = need_refs(a, s, err);
    if (st != GCH_OK)
        return st;
    gch_domtree_options o = GCH_DOMTREE_OPTIONS_INIT;
    o.include_weak = include_weak;
    o.threads = a->o.threads;
    unsigned got = build_options(want, &o);
    phase p = { a, "computing the dominator tree" };
    o.progress = phase_percent;
    o.progress_ctx = &p;
    gch_domtree t;
    phase_edge(&p, 0);
    st = gch_domtree_build_ex(heap, &o, &t, err);
    phase_edge(&p, 101);
    a->counts[GCH_STEP_DOMTREE]++;
    if (st != GCH_OK)
        return st;
    if (!v->tree_borrowed)
        gch_domtree_free(&v->tree);
    v->tree_borrowed = 0;
    v->tree = t;
    v->parts = got;
    *out = &v->tree;
    return GCH_OK;
}

gch_status gch_analysis_type_retained(gch_analysis *a, const gch_heap *heap, int include_weak,
                                      const uint64_t **per_type, gch_error *err)
{
    *per_type = NULL;
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    view *v = &s->v[include_weak != 0];
    if (!v->type_ret) {
        const gch_domtree *t;
        /* Children lists or the preorder with its idoms both answer: use the
         * tree the view has when it has either. */
        unsigned parts = (v->parts & GCH_TREE_PREORDER_IDOM) ? GCH_TREE_PREORDER_IDOM : GCH_TREE_CHILDREN;
        gch_status st = gch_analysis_domtree(a, heap, include_weak, parts, &t, err);
        if (st != GCH_OK)
            return st;
        uint64_t *r = gch_calloc(heap->type_count ? heap->type_count : 1, sizeof *r);
        if (!r)
            return gch_error_set(err, GCH_ENOMEM, "out of memory computing retained sizes by type");
        if ((st = gch_type_retained(heap, t, r, err)) != GCH_OK) {
            gch_free(r);
            return st;
        }
        v->type_ret = r;
    }
    *per_type = v->type_ret;
    return GCH_OK;
}

/* ---- paths, live set, reverse references ---- */

/* One question to the source for a shortest-path tree (fn: its paths or
 * its parents): 1 with *into filled when it has one. */
static int ask_source(gch_analysis *a, gch_status (*fn)(void *, const gch_heap *, int, gch_paths *,
                                                        int *, gch_error *),
                      const gch_heap *heap, int include_weak, gch_paths *into)
{
    int found = 0;
    gch_error e;
    gch_error_clear(&e);
    gch_paths pt;
    memset(&pt, 0, sizeof pt);
    gch_status st = fn(a->src->ctx, heap, include_weak, &pt, &found, &e);
    if (!from_source(a, st, found, &e))
        return 0;
    *into = pt;
    return 1;
}

/* Asks the source (once) for the paths of view v. */
static void source_paths(gch_analysis *a, const gch_heap *heap, view *v, int include_weak)
{
    if (!v->has_paths && a->src && a->src->paths && !v->paths_asked) {
        v->paths_asked = 1;
        if (ask_source(a, a->src->paths, heap, include_weak, &v->paths)) {
            v->has_paths = 1;
            v->paths_borrowed = 1;
        }
    }
}

int gch__analysis_paths_may_be_ready(gch_analysis *a, const gch_heap *heap, int include_weak)
{
    heap_state *s = state_of(a, heap, NULL);
    if (!s)
        return 0;
    const view *v = &s->v[include_weak != 0];
    return v->has_paths || v->has_parents ||
           (a->src && a->src->parents && !v->parents_asked) ||
           (a->src && a->src->paths && !v->paths_asked);
}

void gch__analysis_parents_ready(gch_analysis *a, const gch_heap *heap, int include_weak,
                                 const gch_paths **out)
{
    *out = NULL;
    heap_state *s = state_of(a, heap, NULL);
    if (!s)
        return;
    view *v = &s->v[include_weak != 0];
    if (!v->has_paths && !v->has_parents && a->src && a->src->parents && !v->parents_asked) {
        v->parents_asked = 1;
        v->has_parents = ask_source(a, a->src->parents, heap, include_weak, &v->parents);
    }
    if (!v->has_paths && !v->has_parents)
        source_paths(a, heap, v, include_weak);
    *out = v->has_paths ? &v->paths : v->has_parents ? &v->parents : NULL;
}

gch_status gch__analysis_refs(gch_analysis *a, const gch_heap *heap, gch_error *err)
{
    heap_state *s = state_of(a, heap, err);
    return s ? need_refs(a, s, err) : GCH_EINVAL;
}

gch_status gch_analysis_references(gch_analysis *a, const gch_heap *heap, gch_error *err)
{
    return gch__analysis_refs(a, heap, err);
}

void gch__analysis_paths_ready(gch_analysis *a, const gch_heap *heap, int include_weak,
                               const gch_paths **out)
{
    *out = NULL;
    heap_state *s = state_of(a, heap, NULL);
    if (!s)
        return;
    view *v = &s->v[include_weak != 0];
    source_paths(a, heap, v, include_weak);
    if (v->has_paths)
        *out = &v->paths;
}

gch_status gch_analysis_paths(gch_analysis *a, const gch_heap *heap, int include_weak,
                              const gch_paths **out, gch_error *err)
{
    *out = NULL;
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    view *v = &s->v[include_weak != 0];
    source_paths(a, heap, v, include_weak);
    if (!v->has_paths) {
        gch_status rs = need_refs(a, s, err);
        if (rs != GCH_OK)
            return rs;
        phase p = { a, "finding shortest paths from the roots" };
        gch_paths_options o = { include_weak, phase_percent, &p, NULL, NULL };
        phase_edge(&p, 0);
        gch_status st = gch_paths_build_ex(heap, &o, &v->paths, err);
        phase_edge(&p, 101);
        a->counts[GCH_STEP_PATHS]++;
        if (st != GCH_OK)
            return st;
        v->has_paths = 1;
    }
    *out = &v->paths;
    return GCH_OK;
}

gch_status gch_analysis_path(gch_analysis *a, const gch_heap *heap, int include_weak,
                             uint32_t object, gch_path_set *out, gch_error *err)
{
    memset(out, 0, sizeof *out);
    view *v = NULL;
    gch_status st = view_of_objects(a, heap, include_weak, &object, 1, &v, err);
    if (st != GCH_OK)
        return st;
    const gch_paths *p = NULL;
    if (!v->has_paths) {
        /* One walk up: the source's parents without their witness, the walk
         * bounded; one that does not end asks for the witnessed tree (its
         * check then fails: the tree is computed, the source's error kept). */
        gch__analysis_parents_ready(a, heap, include_weak, &p);
        if (p && p->parent[object] != GCH_NONE && gch__paths_bounded_depth(p, object) == GCH_NONE)
            p = NULL;
    }
    if (!p && (st = gch_analysis_paths(a, heap, include_weak, &p, err)) != GCH_OK)
        return st;
    return gch_paths_path(p, object, out, err);
}

gch_status gch__paths_depths_dist(const gch_heap *heap, int include_weak, gch_paths *paths,
                                  uint8_t **depth8, uint32_t **dist, gch_error *err)
{
    uint32_t n = heap->object_count;
    *depth8 = NULL;
    *dist = NULL;
    uint32_t *d = gch_reallocarray(NULL, n ? n : 1, sizeof *d);
    uint8_t *d8 = gch_malloc(n ? n : 1);
    gch_status st = d && d8 ? GCH_OK
                            : gch_error_set(err, GCH_ENOMEM, "out of memory computing paths to roots");
    if (st == GCH_OK) {
        gch_paths_options o = { .include_weak = include_weak, .dist = d, .depth8 = d8 };
        st = gch_paths_build_ex(heap, &o, paths, err);
    }
    if (st != GCH_OK) {
        gch_free(d);
        gch_free(d8);
        return st;
    }
    *depth8 = d8;
    *dist = d;
    return GCH_OK;
}

gch_status gch_analysis_path_depths(gch_analysis *a, const gch_heap *heap, int include_weak,
                                    const uint8_t **depth, gch_error *err)
{
    *depth = NULL;
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    view *v = &s->v[include_weak != 0];
    if (!v->depth8) {
        gch_status st = need_refs(a, s, err);
        if (st != GCH_OK)
            return st;
        gch_paths p;
        uint32_t *dist;
        if ((st = gch__paths_depths_dist(heap, include_weak, &p, &v->depth8, &dist, err)) != GCH_OK)
            return st;
        /* Keep the search's tree and distances unless the view has its own
         * (the same values). */
        if (v->has_paths) {
            gch_paths_free(&p);
        } else {
            v->paths = p;
            v->has_paths = 1;
            a->counts[GCH_STEP_PATHS]++;
        }
        if (v->dist) {
            gch_free(dist);
        } else {
            v->dist = dist;
            a->counts[GCH_STEP_DISTANCE]++;
        }
    }
    *depth = v->depth8;
    return GCH_OK;
}

typedef struct paths_job {
    const gch_heap *heap;
    int include_weak;
    gch_paths paths;
    gch_error err;
    gch_status st;
} paths_job;

static int paths_thread(void *arg)
{
    paths_job *j = arg;
    gch_paths_options o = { j->include_weak, NULL, NULL, NULL, NULL };
    j->st = gch_paths_build_ex(j->heap, &o, &j->paths, &j->err);
    return 0;
}

gch_status gch_analysis_domtree_and_paths(gch_analysis *a, const gch_heap *heap, int include_weak,
                                          unsigned parts, const gch_domtree **tree,
                                          const gch_paths **paths, gch_error *err)
{
    *tree = NULL;
    *paths = NULL;
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    view *v = &s->v[include_weak != 0];
    source_paths(a, heap, v, include_weak);
    gch_status st = GCH_OK;
    if (v->has_paths || a->o.threads < 2 || (st = need_refs(a, s, err)) != GCH_OK) {
        if (st == GCH_OK)
            st = gch_analysis_domtree(a, heap, include_weak, parts, tree, err);
        return st == GCH_OK ? gch_analysis_paths(a, heap, include_weak, paths, err) : st;
    }
    paths_job job;
    memset(&job, 0, sizeof job);
    job.heap = heap;
    job.include_weak = include_weak;
    gch_task *task = gch_task_start(a->o.threads, paths_thread, &job);
    st = gch_analysis_domtree(a, heap, include_weak, parts, tree, err);
    gch_task_finish(task);
    if (job.st == GCH_OK) {
        v->paths = job.paths;
        v->has_paths = 1;
        a->counts[GCH_STEP_PATHS]++;
        *paths = &v->paths;
    } else if (st == GCH_OK) {
        *err = job.err;
        st = job.st;
    }
    if (st != GCH_OK)
        *tree = NULL, *paths = NULL;
    return st;
}

/* The source's distances of view v (1 when it has them, now in v->dist). */
static int source_distance(gch_analysis *a, const gch_heap *heap, view *v, int include_weak)
{
    if (v->dist)
        return 1;
    if (!a->src || !a->src->distance || v->dist_asked)
        return 0;
    v->dist_asked = 1;
    int found = 0;
    gch_error e;
    gch_error_clear(&e);
    const uint32_t *d = NULL;
    gch_status st = a->src->distance(a->src->ctx, heap, include_weak, &d, &found, &e);
    if (!from_source(a, st, found, &e))
        return 0;
    v->dist = (uint32_t *)d;
    v->dist_borrowed = 1;
    return 1;
}

gch_status gch_analysis_distance(gch_analysis *a, const gch_heap *heap, int include_weak,
                                 const uint32_t **dist, gch_error *err)
{
    *dist = NULL;
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    view *v = &s->v[include_weak != 0];
    if (!source_distance(a, heap, v, include_weak)) {
        gch_status st = need_refs(a, s, err);
        if (st != GCH_OK)
            return st;
        st = gch_root_distance(heap, include_weak, &v->dist, err);
        a->counts[GCH_STEP_DISTANCE]++;
        if (st != GCH_OK)
            return st;
    }
    *dist = v->dist;
    return GCH_OK;
}

/* The view asked about a few objects (*v), or GCH_EINVAL: a heap not the
 * analysis's, or an object out of bounds. */
static gch_status view_of_objects(gch_analysis *a, const gch_heap *heap, int include_weak,
                                  const uint32_t *objects, size_t n, view **v, gch_error *err)
{
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (objects[i] >= heap->object_count)
            return gch_error_set(err, GCH_EINVAL, "object %" PRIu32 " is not in the heap",
                                 objects[i]);
    *v = &s->v[include_weak != 0];
    return GCH_OK;
}

/* The source's distances of n objects into out (1 when it gave them). */
static int source_distances_of(gch_analysis *a, const gch_heap *heap, int include_weak,
                               const uint32_t *objects, size_t n, uint32_t *out)
{
    if (!a->src || !a->src->distances_of)
        return 0;
    int found = 0;
    gch_error e;
    gch_error_clear(&e);
    gch_status st = a->src->distances_of(a->src->ctx, heap, include_weak, objects, n, out, &found,
                                         &e);
    return from_source(a, st, found, &e);
}

gch_status gch_analysis_distances_of(gch_analysis *a, const gch_heap *heap, int include_weak,
                                     const uint32_t *objects, size_t n, uint32_t *out,
                                     gch_error *err)
{
    view *v = NULL;
    gch_status st = view_of_objects(a, heap, include_weak, objects, n, &v, err);
    if (st != GCH_OK)
        return st;
    if (!v->dist && source_distances_of(a, heap, include_weak, objects, n, out))
        return GCH_OK;
    const uint32_t *dist;
    st = gch_analysis_distance(a, heap, include_weak, &dist, err);
    for (size_t i = 0; st == GCH_OK && i < n; i++)
        out[i] = dist[objects[i]];
    return st;
}

/* The live count and bytes of a reached mask (0 or 1 per object), unless
 * known: in loops without a branch (they vectorize), big sizes after. */
static void live_totals(const gch_heap *heap, const uint8_t *mask, view *v)
{
    if (v->has_totals)
        return;
    uint64_t c = 0, b = 0;
    const uint8_t *restrict m = mask;
    const uint32_t *restrict size32 = heap->object_size32;
    for (uint32_t o = 0; o < heap->object_count; o++) {
        c += m[o];
        b += size32[o] & (0u - (uint32_t)m[o]);
    }
    for (uint32_t k = 0; k < heap->big_size_count; k++) {
        uint32_t o = heap->big_size_object[k];
        if (o < heap->object_count && m[o] && size32[o] == GCH_SIZE_BIG)
            b += heap->big_size_value[k] - GCH_SIZE_BIG;
    }
    v->live_count = c;
    v->live_bytes = b;
    v->has_totals = 1;
}

gch_status gch_analysis_live(gch_analysis *a, const gch_heap *heap, int include_weak,
                             const uint8_t **live, uint64_t *count, uint64_t *bytes,
                             gch_error *err)
{
    if (live)
        *live = NULL;
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    view *v = &s->v[include_weak != 0];
    if (!v->has_totals && v->parts) { /* a tree knows the totals */
        v->live_count = v->tree.live_count;
        v->live_bytes = v->tree.live_bytes;
        v->has_totals = 1;
    }
    if (live && !v->live && !v->parts && !v->dist && a->src && a->src->reached &&
        !v->reached_asked) {
        /* The source says which objects are reached: no distances built. */
        v->reached_asked = 1;
        uint32_t n = heap->object_count;
        uint8_t *mask = gch_calloc(n ? n : 1, 1);
        if (!mask)
            return gch_error_set(err, GCH_ENOMEM, "out of memory");
        int found = 0;
        gch_error e;
        gch_error_clear(&e);
        gch_status st = a->src->reached(a->src->ctx, heap, include_weak, mask, &found, &e);
        if (from_source(a, st, found, &e)) {
            live_totals(heap, mask, v);
            v->live = mask;
        } else {
            gch_free(mask);
        }
    }
    if (live && !v->live && !v->parts && source_distance(a, heap, v, include_weak)) {
        /* The source's distances say which objects are reached: no walk. */
        uint32_t n = heap->object_count;
        uint8_t *mask = gch_calloc(n ? n : 1, 1);
        if (!mask)
            return gch_error_set(err, GCH_ENOMEM, "out of memory");
        uint64_t c = 0, b = 0;
        /* No branch, no call, no pointer reloaded after a byte store: the
         * loop vectorizes. */
        const uint32_t *restrict dist = v->dist, *restrict size32 = heap->object_size32;
        uint8_t *restrict m = mask;
        for (uint32_t o = 0; o < n; o++) {
            uint32_t in = dist[o] != GCH_NONE;
            m[o] = (uint8_t)in;
            c += in;
            b += size32[o] & (0u - in);
        }
        /* A big size counted as GCH_SIZE_BIG above: the rest of it. */
        for (uint32_t k = 0; k < heap->big_size_count; k++) {
            uint32_t o = heap->big_size_object[k];
            if (o < n && mask[o] && heap->object_size32[o] == GCH_SIZE_BIG)
                b += heap->big_size_value[k] - GCH_SIZE_BIG;
        }
        v->live = mask;
        if (!v->has_totals) {
            v->live_count = c;
            v->live_bytes = b;
            v->has_totals = 1;
        }
    }
    if (live && !v->live && v->tree_borrowed && (v->parts & GCH_TREE_PREORDER)) {
        /* The tree the source gave lists the live objects: no walk. */
        uint8_t *mask = gch_calloc(heap->object_count ? heap->object_count : 1, 1);
        if (!mask)
            return gch_error_set(err, GCH_ENOMEM, "out of memory");
        for (uint64_t i = 0; i < v->tree.live_count; i++)
            mask[v->tree.preorder[i]] = 1;
        v->live = mask;
    }
    if ((live && !v->live) || !v->has_totals) {
        gch_live_options o = { include_weak, a->o.threads };
        uint8_t *mask = NULL;
        uint64_t c, b;
        gch_status st = need_refs(a, s, err);
        if (st != GCH_OK)
            return st;
        st = gch_live_set_ex(heap, &o, live ? &mask : NULL, &c, &b, err);
        a->counts[GCH_STEP_LIVE]++;
        if (st != GCH_OK)
            return st;
        if (mask)
            v->live = mask;
        v->live_count = c;
        v->live_bytes = b;
        v->has_totals = 1;
    }
    if (live)
        *live = v->live;
    if (count)
        *count = v->live_count;
    if (bytes)
        *bytes = v->live_bytes;
    return GCH_OK;
}

gch_status gch_analysis_live_of(gch_analysis *a, const gch_heap *heap, int include_weak,
                                const uint32_t *objects, size_t n, uint8_t *out, gch_error *err)
{
    view *v = NULL;
    gch_status st = view_of_objects(a, heap, include_weak, objects, n, &v, err);
    if (st != GCH_OK)
        return st;
    if (!v->live && !v->dist && !v->parts && n) {
        uint32_t *d = gch_reallocarray(NULL, n, sizeof *d);
        if (!d)
            return gch_error_set(err, GCH_ENOMEM, "out of memory");
        int found = source_distances_of(a, heap, include_weak, objects, n, d);
        for (size_t i = 0; found && i < n; i++)
            out[i] = d[i] != GCH_NONE;
        gch_free(d);
        if (found)
            return GCH_OK;
    }
    const uint8_t *mask;
    st = gch_analysis_live(a, heap, include_weak, &mask, NULL, NULL, err);
    for (size_t i = 0; st == GCH_OK && i < n; i++)
        out[i] = mask[objects[i]];
    return st;
}

gch_status gch_analysis_reverse(gch_analysis *a, const gch_heap *heap, gch_error *err)
{
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    if (s->h->in_start)
        return GCH_OK;
    if (a->src && a->src->reverse && !s->reverse_asked) {
        s->reverse_asked = 1;
        int found = 0;
        gch_error e;
        gch_error_clear(&e);
        gch_status st = a->src->reverse(a->src->ctx, s->h, &found, &e);
        if (from_source(a, st, found, &e) && s->h->in_start)
            return GCH_OK;
    }
    gch_status st = need_refs(a, s, err);
    if (st != GCH_OK)
        return st;
    a->counts[GCH_STEP_REVERSE]++;
    return gch_heap_build_reverse(s->h, err);
}

/* ---- id lookup ---- */

static int id_before(const void *ctx, uint32_t x, uint32_t y)
{
    const uint64_t *id = ctx;
    return id[x] != id[y] ? id[x] < id[y] : x < y;
}

static gch_status build_lookup(gch_analysis *a, heap_state *s, gch_error *err)
{
    const gch_heap *h = s->h;
    const uint32_t n = h->object_count;
    if (a->src && a->src->lookup) {
        const uint32_t *order = NULL;
        int increasing = 0, found = 0;
        gch_error e;
        gch_error_clear(&e);
        gch_status st = a->src->lookup(a->src->ctx, h, &order, &increasing, &found, &e);
        if (from_source(a, st, found, &e)) {
            s->ids_increasing = increasing;
            s->sorted = (uint32_t *)order;
            s->sorted_borrowed = !increasing;
            s->lookup_done = 1;
            return GCH_OK;
        }
    }
    a->counts[GCH_STEP_LOOKUP]++;
    uint32_t i = 1;
    while (i < n && h->object_id[i - 1] < h->object_id[i])
        i++;
    if (i >= n) {
        s->ids_increasing = 1;
        s->lookup_done = 1;
        return GCH_OK;
    }
    uint32_t *sorted = gch_reallocarray(NULL, n, sizeof *sorted);
    if (!sorted)
        return gch_error_set(err, GCH_ENOMEM, "out of memory indexing object ids");
    for (uint32_t k = 0; k < n; k++)
        sorted[k] = k;
    gch__sort_u32(sorted, n, id_before, h->object_id);
    s->sorted = sorted;
    s->lookup_done = 1;
    return GCH_OK;
}

gch_status gch_analysis_find(gch_analysis *a, const gch_heap *heap, uint64_t id, uint32_t *index,
                             gch_error *err)
{
    *index = GCH_NONE;
    heap_state *s = state_of(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    gch_status st;
    if (!s->lookup_done && (st = build_lookup(a, s, err)) != GCH_OK)
        return st;
    const uint64_t *ids = heap->object_id;
    size_t lo = 0, hi = heap->object_count;
    while (lo < hi) { /* the first position whose id is >= id */
        size_t mid = lo + (hi - lo) / 2;
        uint32_t o = s->ids_increasing ? (uint32_t)mid : s->sorted[mid];
        if (ids[o] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < heap->object_count) {
        uint32_t o = s->ids_increasing ? (uint32_t)lo : s->sorted[lo];
        if (ids[o] == id)
            *index = o; /* the first record with that id, as a linear scan finds */
    }
    return GCH_OK;
}

/* ---- memory ---- */

static size_t heap_bytes(const gch_heap *h)
{
    size_t n = h->object_count, m = (size_t)h->ref_count, r = h->root_count, t = h->type_count;
    size_t b = h->strings_size + n * (8 + 4 + 4 + 4) + m * 4 + r * 28 + t * 32 +
               (size_t)h->big_size_count * 12 + h->payload_count * sizeof(gch_payload);
    if (h->out_label)
        b += m * 4;
    if (h->in_start)
        b += n * 4 + m * 4;
    return b;
}

static size_t view_bytes(const view *v, size_t n, size_t types)
{
    size_t b = 0, live = (size_t)v->tree.live_count;
    if (v->tree.idom)
        b += n * 12;
    if (v->tree.children)
        b += n * 4 + live * 4;
    if (v->tree.preorder)
        b += live * 12;
    if (v->tree.preorder_idom)
        b += live * 4;
    if (v->type_ret)
        b += types * 8;
    if (v->has_paths)
        b += n * 4 + (size_t)v->paths.root_object_count * 8;
    if (v->live)
        b += n;
    if (v->dist)
        b += n * 4;
    if (v->depth8)
        b += n;
    return b;
}

size_t gch_analysis_memory(const gch_analysis *a)
{
    size_t b = sizeof *a;
    for (size_t i = 0; i < a->dump->heap_count; i++) {
        const heap_state *s = &a->hs[i];
        b += heap_bytes(s->h);
        for (int k = 0; k < 2; k++)
            b += view_bytes(&s->v[k], s->h->object_count, s->h->type_count);
        if (s->sorted)
            b += (size_t)s->h->object_count * 4;
    }
    return b;
}
