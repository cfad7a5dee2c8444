/* gch_analysis_build_views (include/gcheap/analysis.h): the reverse
 * references and, per view, the dominator tree and the path tree with its
 * depths and distances are independent tasks over one heap that only the
 * reverse references' task writes (heap->in_start/in_source, which the
 * others do not read: the dominator builds ignore them, and are faster for
 * it). The caller and one helper thread (threading.h) take the tasks in a
 * fixed order from a shared list. Each task fills its own slot; the results
 * go into the views on the caller's thread once both workers are done, so
 * that the analysis itself is only ever touched by one thread. A caller's
 * gch_views_ready hears of each task's result on the worker that built it,
 * as soon as it is built: it may use the arrays at once (the index's writer
 * prepares and writes their chunks while the other worker still computes). */
#include <string.h>

#include "analysis_internal.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "threading.h"

enum { T_REVERSE, T_PATHS, T_TREE };

typedef struct task {
    int kind, view;
    gch_status st;
    gch_error err;
    gch_domtree tree;          /* T_TREE */
    unsigned got;
    gch_paths paths;           /* T_PATHS */
    uint8_t *depth8;
    uint32_t *dist;
} task;

typedef struct pool {
    gch_heap *h;
    unsigned want[2];          /* the tree parts to build per view */
    unsigned tree_threads;     /* the dominator builder's threads */
    task tasks[5];
    unsigned count, next;      /* next: under m */
    gch_mutex m;
    const gch_views_ready *ready;
    int keep_paths[2];         /* a paths task's arrays will be the view's */
} pool;

static void run_task(pool *p, task *t)
{
    gch_error_clear(&t->err);
    if (t->kind == T_REVERSE) {
        t->st = gch_heap_build_reverse(p->h, &t->err);
    } else if (t->kind == T_PATHS) {
        t->st = gch__paths_depths_dist(p->h, t->view, &t->paths, &t->depth8, &t->dist, &t->err);
    } else {
        gch_domtree_options o = GCH_DOMTREE_OPTIONS_INIT;
        o.include_weak = t->view;
        o.threads = p->tree_threads;
        o.ignore_reverse = 1;
        t->got = gch__analysis_tree_options(p->want[t->view], &o);
        t->st = gch_domtree_build_ex(p->h, &o, &t->tree, &t->err);
    }
}

/* After task t: the caller's callback for what it built, on this worker,
 * when the analysis will keep those very arrays. */
static void tell(pool *p, task *t)
{
    const gch_views_ready *r = p->ready;
    if (!r || t->st != GCH_OK)
        return;
    if (t->kind == T_REVERSE && r->reverse)
        r->reverse(r->ctx, p->h);
    else if (t->kind == T_TREE && r->tree)
        r->tree(r->ctx, p->h, t->view, &t->tree);
    else if (t->kind == T_PATHS && r->paths && p->keep_paths[t->view])
        r->paths(r->ctx, p->h, t->view, &t->paths, t->depth8, t->dist);
}

static int worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        gch_mutex_lock(&p->m);
        unsigned k = p->next < p->count ? p->next++ : p->count;
        gch_mutex_unlock(&p->m);
        if (k == p->count)
            return 0;
        run_task(p, &p->tasks[k]);
        tell(p, &p->tasks[k]);
    }
}

static void add_task(pool *p, int kind, int view)
{
    task *t = &p->tasks[p->count++];
    memset(t, 0, sizeof *t);
    t->kind = kind;
    t->view = view;
}

/* Moves task t's results into the analysis; a path tree or distances the
 * view had already (asked for alone before) are kept, the task's copies
 * (the same values) freed. */
static void install(gch_analysis *a, heap_state *s, task *t)
{
    view *v = &s->v[t->view];
    if (t->kind == T_REVERSE) {
        a->counts[GCH_STEP_REVERSE]++;
    } else if (t->kind == T_TREE) {
        a->counts[GCH_STEP_DOMTREE]++;
        if (!v->tree_borrowed)
            gch_domtree_free(&v->tree);
        v->tree_borrowed = 0;
        v->tree = t->tree;
        v->parts = t->got;
    } else {
        v->depth8 = t->depth8;
        if (v->has_paths) {
            gch_paths_free(&t->paths);
        } else {
            v->paths = t->paths;
            v->has_paths = 1;
            a->counts[GCH_STEP_PATHS]++;
        }
        if (v->dist) {
            gch_free(t->dist);
        } else {
            v->dist = t->dist;
            a->counts[GCH_STEP_DISTANCE]++;
        }
    }
}

/* With a source, each structure is asked of it first: one after the other. */
static gch_status build_in_turn(gch_analysis *a, const gch_heap *heap, int views, unsigned parts,
                                gch_error *err)
{
    gch_status st = gch_analysis_reverse(a, heap, err);
    for (int v = 0; v < views && st == GCH_OK; v++) {
        const gch_domtree *t;
        const uint8_t *d;
        if ((st = gch_analysis_domtree(a, heap, v, parts, &t, err)) == GCH_OK)
            st = gch_analysis_path_depths(a, heap, v, &d, err);
    }
    return st;
}

gch_status gch_analysis_build_views(gch_analysis *a, const gch_heap *heap, int views,
                                    unsigned parts, gch_error *err)
{
    return gch_analysis_build_views_then(a, heap, views, parts, NULL, err);
}

gch_status gch_analysis_build_views_then(gch_analysis *a, const gch_heap *heap, int views,
                                         unsigned parts, const gch_views_ready *ready,
                                         gch_error *err)
{
    heap_state *s = gch__analysis_state(a, heap, err);
    if (!s)
        return GCH_EINVAL;
    views = views < 1 ? 1 : views > 2 ? 2 : views;
    if (a->src || !heap->refs_loaded || !heap->out_start)
        return build_in_turn(a, heap, views, parts, err);
    pool p;
    memset(&p, 0, sizeof p);
    p.h = s->h;
    p.ready = ready;
    /* The order the two workers take them in: the reverse references first
     * (so that a caller hears of them early), then the trees, the larger
     * view's first, then the searches, so that both workers finish about
     * together. */
    if (!heap->in_start)
        add_task(&p, T_REVERSE, 0);
    for (int v = views - 1; v >= 0; v--) {
        const view *w = &s->v[v];
        p.want[v] = a->o.keep_whole_trees ? ALL_PARTS : parts | w->parts;
        unsigned need = gch__analysis_normal_parts(parts);
        if (!w->parts || (w->parts & need) != need)
            add_task(&p, T_TREE, v);
    }
    for (int v = views - 1; v >= 0; v--)
        if (!s->v[v].depth8)
            add_task(&p, T_PATHS, v);
    for (int v = 0; v < views; v++) /* else install keeps the view's own, frees the task's */
        p.keep_paths[v] = !s->v[v].has_paths && !s->v[v].dist;
    if (!gch_mutex_init(&p.m))
        return gch_error_set(err, GCH_ENOMEM, "cannot create a mutex");
    gch_parallel par = gch_parallel_for(a->o.threads);
    int two = p.count >= 2 && gch_parallel_worth(&par, heap->ref_count);
    /* Two trees at once each get one thread; alone, a tree gets them all. */
    p.tree_threads = two ? 1 : a->o.threads;
    gch_run_two(par.workers, two, worker, &p, two ? &p : NULL);
    gch_mutex_destroy(&p.m);
    gch_status st = GCH_OK;
    for (unsigned k = 0; k < p.count; k++) {
        task *t = &p.tasks[k];
        if (t->st == GCH_OK) {
            install(a, s, t);
        } else if (st == GCH_OK) {
            st = t->st;
            if (err)
                *err = t->err;
        }
    }
    return st;
}
