/* Dominator tree (Semi-NCA) and retained sizes: see include/gcheap/dominators.h
 * and docs/graph-algorithms.md.
 *
 * Vertices are renumbered in DFS preorder: 0 is the virtual root, 1..N the
 * reachable objects. All per-vertex arrays are indexed by preorder number.
 *
 *   seen        one bit per object: reached by the DFS (during the DFS only)
 *   leaf        one bit per object: it has no references (during the DFS only)
 *   pre[obj]    preorder number of an object, 0 when unreached
 *   vert[i]     object of preorder number i
 *   parent[i]   DFS-tree parent; becomes idom[i] in place
 *   f[i].anc    DFS edge cursor, then GCH_NONE or (upper half of a two-thread
 *               edge classification) a second initial semi value, then:
 *               forest ancestor (path-compressed)
 *   f[i].best   during the DFS the end of i's references, so that the walk
 *               back to i reads one line; then the initial semi value (the
 *               DFS parent, lowered to the smallest predecessor numbered
 *               below i), then the smallest semi value on i's compressed
 *               forest path ("label" as a value)
 *   pairs       the cross and back edges (w, v), v > w, in object order of
 *               the sources (from edge classification to placement)
 *   pstart/preds  predecessors v > w of each vertex w (cross and back edges),
 *               in preorder numbers (without the heap's reverse index)
 *   semi[i]     semidominator
 *
 * No recursion: the DFS walks back up through parent[] (the DFS stack is the
 * parent chain of the current vertex) and keeps per-vertex edge cursors in
 * f[].anc; path compression reverses the ancestor pointers on the way up and
 * restores them (compressed) on the way down.
 */
#include "gcheap/dominators.h"

#include <stdatomic.h>
#include <string.h>
#include <threads.h>

#include "gcheap/alloc.h"
#include "graph_internal.h"
#include "tuning.h"

/* How far ahead the sequential passes prefetch their random accesses. */
enum { AHEAD = 16 };

/* Forest entry of a vertex: ancestor and best value side by side, so that one
 * step of eval touches one cache line. */
typedef struct fnode {
    uint32_t anc;
    uint32_t best;
} fnode;

/* Objects per entry of the DFS's coarse index of reference starts. */
enum { COARSE = 16 };

/* Prefetches out_start[x] and the line where x's references probably start:
 * coarse[] gives the start of x's group of COARSE objects and of the next
 * group, and x's start is guessed in proportion between them. The two
 * fetches then overlap, where reading out_start[x] first would chain them. */
static inline void prefetch_targets(const uint32_t *out_start, const uint32_t *out_target,
                                    const uint32_t *coarse, uint32_t x)
{
    __builtin_prefetch(&out_start[x]);
    uint32_t lo = coarse[x / COARSE], hi = coarse[x / COARSE + 1];
    __builtin_prefetch(&out_target[lo + (uint32_t)((uint64_t)(hi - lo) * (x % COARSE) / COARSE)]);
}

/* ---- touching the DFS's pages ahead of it ----
 *
 * The DFS writes vert[], parent[] and f[] front to back, one slot per new
 * vertex, and the first write to each page faults it in: about 0.08 s of the
 * single-threaded DFS at 10M objects (docs/performance.md, round 5). The other
 * core is idle then, so a helper thread writes one slot of every page ahead of
 * the DFS, and afterwards every page of pre[] (written only after the DFS).
 *
 * No value of the DFS is ever overwritten: the helper owns the slots below
 * `claimed` (moved up by compare-and-swap one stretch at a time) and writes
 * only those; `done` says how far it has finished. The DFS writes freely below
 * its own limit; at the limit it takes the slots the helper has finished, or,
 * if the helper has not got there, everything from `claimed` up with one
 * exchange, after waiting for the stretch in hand. The helper stays within a
 * window ahead of where the DFS last said it was (`at`, told every half
 * window), so it does not fault in the slots of objects the DFS never
 * reaches (the unreachable ones: 30 MB at 10M objects). */
#define TOUCH_STOP UINT32_MAX

typedef struct touch_job {
    uint32_t *vert, *parent, *pre;
    fnode *f;
    uint32_t n1, stretch, window;
    atomic_uint_least32_t claimed, done, at;
} touch_job;

static void touch_slots(uint32_t *a, uint32_t from, uint32_t to)
{
    for (uint32_t k = from; k < to; k += 4096 / sizeof *a)
        a[k] = 0;
}

static int touch_thread(void *arg)
{
    touch_job *j = arg;
    for (;;) {
        uint_least32_t c = atomic_load(&j->claimed);
        if (c >= j->n1)
            break; /* everything touched, or the DFS took the rest */
        uint_least32_t at = atomic_load_explicit(&j->at, memory_order_relaxed);
        if (c > at && c - at >= j->window) {
            thrd_sleep(&(struct timespec){ .tv_nsec = 100000 }, NULL); /* far enough ahead */
            continue;
        }
        uint32_t next = j->n1 - c > j->stretch ? (uint32_t)c + j->stretch : j->n1;
        if (!atomic_compare_exchange_strong(&j->claimed, &c, next))
            break;
        touch_slots(j->vert, (uint32_t)c, next);
        touch_slots(j->parent, (uint32_t)c, next);
        for (uint32_t k = (uint32_t)c; k < next; k += 4096 / sizeof *j->f)
            j->f[k].anc = 0;
        atomic_store_explicit(&j->done, next, memory_order_release);
    }
    touch_slots(j->pre, 0, j->n1); /* calloc'd: 0 is its value already */
    return 0;
}

/* The DFS is about to write slot n, at or past its limit: returns the new
 * limit (TOUCH_STOP: every slot is the DFS's). */
static uint32_t touch_reach(touch_job *j, uint32_t n)
{
    atomic_store_explicit(&j->at, n, memory_order_relaxed);
    uint_least32_t d = atomic_load_explicit(&j->done, memory_order_acquire);
    if (n < d)
        return d - n > j->window / 2 ? n + j->window / 2 : (uint32_t)d;
    uint_least32_t c = atomic_exchange(&j->claimed, TOUCH_STOP);
    while (atomic_load_explicit(&j->done, memory_order_acquire) < c)
        thrd_yield(); /* one stretch being touched: microseconds */
    return TOUCH_STOP;
}

/* pre[vert[i]] = i and f[i].best = parent[i] for the preorder numbers
 * from..to-1. */
typedef struct number_job {
    const uint32_t *vert, *parent;
    uint32_t *pre;
    fnode *f;
    uint32_t from, to;
} number_job;

static int number_objects(void *arg)
{
    const number_job *j = arg;
    const uint32_t *vert = j->vert, *parent = j->parent, to = j->to;
    uint32_t *pre = j->pre;
    fnode *f = j->f;
    for (uint32_t i = j->from; i < to; i++) {
        if (i + AHEAD < to)
            __builtin_prefetch(&pre[vert[i + AHEAD]], 1);
        pre[vert[i]] = i;
        f[i].best = parent[i];
    }
    return 0;
}

/* Runs fn(a) on this thread and fn(b) (when b is not NULL) on a second one,
 * or after fn(a) here when threaded is 0 or no thread can be created. */
static void run_two(thrd_start_t fn, void *a, void *b, int threaded)
{
    thrd_t th;
    if (b && threaded && thrd_create(&th, fn, b) == thrd_success) {
        fn(a);
        thrd_join(th, NULL);
        return;
    }
    fn(a);
    if (b)
        fn(b);
}

/* Semi-NCA "eval": v is a predecessor of w. Returns the semidominator
 * candidate v contributes: v itself when v is not processed yet (v <= w), else
 * the smallest semi value on v's forest path, after compressing that path. */
static uint32_t eval(fnode *f, uint32_t v, uint32_t w)
{
    if (v <= w)
        return v;
    /* Up: reverse the pointers while the ancestor itself is processed. */
    uint32_t x = v, prev = GCH_NONE;
    while (f[x].anc > w) {
        uint32_t next = f[x].anc;
        f[x].anc = prev;
        prev = x;
        x = next;
    }
    /* x is the topmost processed vertex; f[x].anc is the root of the tree. */
    uint32_t root = f[x].anc;
    /* Down: fold best values and point every vertex at the root. */
    while (prev != GCH_NONE) {
        uint32_t y = prev;
        prev = f[y].anc;
        if (f[x].best < f[y].best)
            f[y].best = f[x].best;
        f[y].anc = root;
        x = y;
    }
    return f[v].best;
}

/* Step 5 of the build in preorder numbers: rsize[i] = retained size of
 * vertex i (rsize[0]: the virtual root, returned: every live byte), given
 * idom[] (in preorder numbers, idom[i] < i). */
/* The sizes of the vertices in preorder (rsize[0] = 0 for the virtual root):
 * random reads of object_size, so on big heaps a second thread does it while
 * the NCA step runs on the first. */
typedef struct gather_job {
    const uint64_t *object_size;
    const uint32_t *vert;
    uint32_t N;
    uint64_t *rsize;
} gather_job;

static int gather_sizes(void *arg)
{
    const gather_job *j = arg;
    const uint64_t *object_size = j->object_size;
    const uint32_t *vert = j->vert, N = j->N;
    uint64_t *rsize = j->rsize;
    rsize[0] = 0;
    for (uint32_t i = 1; i <= N; i++) {
        if (i + AHEAD <= N)
            __builtin_prefetch(&object_size[vert[i + AHEAD]]);
        rsize[i] = object_size[vert[i]];
    }
    return 0;
}

/* Turns the sizes in preorder into retained sizes (every vertex is numbered
 * after its immediate dominator); returns the live bytes. */
static uint64_t retained_by_preorder(const uint32_t *idom, uint32_t N, uint64_t *rsize)
{
    for (uint32_t i = N; i >= 1; i--)
        rsize[idom[i]] += rsize[i];
    return rsize[0];
}

/* Step 6 of the build: idom by object (GCH_NONE when unreached), and the
 * number of children of each dominator in cs[] (slot n = virtual root; cs is
 * NULL when the children lists are not built). */
typedef struct idom_job {
    uint32_t n, N;
    const uint32_t *vert, *parent;
    uint32_t *idom, *cs;
} idom_job;

static void idom_scatter(idom_job *j)
{
    const uint32_t n = j->n, N = j->N, *vert = j->vert, *parent = j->parent;
    uint32_t *idom = j->idom, *cs = j->cs;
    memset(idom, 0xff, (size_t)n * sizeof *idom); /* GCH_NONE */
    if (!cs) { /* no children lists: nothing to count */
        for (uint32_t i = 1; i <= N; i++) {
            if (i + AHEAD <= N)
                __builtin_prefetch(&idom[vert[i + AHEAD]], 1);
            uint32_t d = parent[i];
            idom[vert[i]] = d ? vert[d] : GCH_DOM_VROOT;
        }
        return;
    }
    for (uint32_t i = 1; i <= N; i++) {
        if (i + AHEAD <= N)
            __builtin_prefetch(&idom[vert[i + AHEAD]], 1);
        uint32_t d = parent[i];
        uint32_t dobj = d ? vert[d] : GCH_DOM_VROOT;
        idom[vert[i]] = dobj;
        cs[d ? dobj : n]++;
    }
}

static int idom_thread(void *arg)
{
    idom_scatter(arg);
    return 0;
}

/* Step 1b of the build, for the objects lo..hi-1 (those the DFS reached):
 * each edge i -> w (preorder numbers) with w < i (cross or back edge) is
 * counted in cnt[w] and recorded as the pair (w, i) for step 2; one with
 * w > i (tree or forward edge: i is an ancestor of w, eval would return i) is
 * folded into the smallest such i, kept in f[w].best, or in f[w].anc for the
 * upper half of a two-thread run (the DFS left anc = GCH_NONE; semi takes the
 * smaller of the two). Self-edges do nothing.
 *
 * The pairs go to pairs[2 * at], [2 * at + 1]: the lower job counts `at` up
 * from 0, the upper one down from the end of the shared array, which holds
 * every non-tree edge, so the two never meet. Step 2 then reads them in
 * sequence instead of looking up pre[] a second time for every edge. */
typedef struct classify_job {
    uint32_t lo, hi, m;
    int upper;
    const uint32_t *pre, *out_start, *out_target;
    uint32_t *cnt;
    fnode *f;
    uint32_t *pairs;
    int64_t at; /* the next pair's slot; moves by +1 (lower job) or -1 (upper) */
} classify_job;

static int classify_edges(void *arg)
{
    classify_job *j = arg;
    const uint32_t m = j->m, *pre = j->pre, *out_start = j->out_start,
                   *out_target = j->out_target;
    const int upper = j->upper;
    const int64_t step = upper ? -1 : 1;
    uint32_t *cnt = j->cnt, *pairs = j->pairs;
    int64_t at = j->at;
    fnode *f = j->f;
    for (uint32_t o = j->lo; o < j->hi; o++) {
        uint32_t i = pre[o];
        uint32_t e = out_start[o], end = out_start[o + 1];
        if (!i)
            continue;
        for (; e < end; e++) {
            /* Two levels: the target's number, then its count and its
             * forest entry (which of the two is written depends on it). */
            if (e + 2 * AHEAD < m)
                __builtin_prefetch(&pre[out_target[e + 2 * AHEAD]]);
            if (e + AHEAD < m) {
                uint32_t x = pre[out_target[e + AHEAD]];
                __builtin_prefetch(&cnt[x], 1);
                __builtin_prefetch(&f[x], 1);
            }
            uint32_t w = pre[out_target[e]];
            if (w < i) {
                cnt[w]++;
                pairs[2 * at] = w;
                pairs[2 * at + 1] = i;
                at += step;
            } else if (w > i) {
                uint32_t *b = upper ? &f[w].anc : &f[w].best;
                if (i < *b)
                    *b = i;
            }
        }
    }
    j->at = at;
    return 0;
}

/* Step 2 of the build: the pairs (w, v) recorded by one classify job, from
 * slot `from` on in its direction (`count` of them, in object order of the
 * sources), are placed at preds[--cur[w]] = v. */
typedef struct place_job {
    const uint32_t *pairs;
    int64_t from, step, count;
    uint32_t *cur, *preds;
} place_job;

static int place_preds(void *arg)
{
    const place_job *j = arg;
    const uint32_t *pairs = j->pairs;
    uint32_t *cur = j->cur, *preds = j->preds;
    const int64_t step = j->step, count = j->count;
    int64_t at = j->from;
    for (int64_t k = 0; k < count; k++, at += step) {
        if (k + AHEAD < count)
            __builtin_prefetch(&cur[pairs[2 * (at + AHEAD * step)]], 1);
        preds[--cur[pairs[2 * at]]] = pairs[2 * at + 1];
    }
    return 0;
}

void gch_domtree_free(gch_domtree *t)
{
    if (!t)
        return;
    gch_free(t->idom);
    gch_free(t->retained);
    gch_free(t->child_start);
    gch_free(t->children);
    gch_free(t->preorder);
    gch_free(t->preorder_retained);
    gch_free(t->preorder_idom);
    memset(t, 0, sizeof *t);
}

gch_status gch_domtree_build(const gch_heap *heap, int include_weak, gch_domtree *out,
                             gch_error *err)
{
    gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
    opts.include_weak = include_weak;
    return gch_domtree_build_ex(heap, &opts, out, err);
}

gch_status gch_domtree_build_ex(const gch_heap *heap, const gch_domtree_options *opts,
                                gch_domtree *out, gch_error *err)
{
    static const gch_domtree_options defaults = GCH_DOMTREE_OPTIONS_INIT;
    if (!opts)
        opts = &defaults;
    const int include_weak = opts->include_weak, want_children = opts->children != 0;
    const int preorder_only = opts->preorder_only != 0;
    memset(out, 0, sizeof *out);
    if (preorder_only && want_children)
        return gch_error_set(err, GCH_EINVAL,
                             "a dominator tree in preorder only has no children lists");
    if (opts->preorder_idom && !preorder_only)
        return gch_error_set(err, GCH_EINVAL,
                             "preorder_idom is kept only for a dominator tree in preorder only");
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL,
                             "the dominator tree needs references, which were not loaded");
    const uint32_t n = heap->object_count;
    const size_t n1 = (size_t)n + 1;
    const uint32_t *out_start = heap->out_start, *out_target = heap->out_target;
    const uint32_t m = n ? out_start[n] : 0;
    const int use_reverse = heap->in_start != NULL && heap->in_source != NULL;

    uint32_t *pre = gch_calloc(n1, sizeof *pre);
    uint32_t *vert = gch_reallocarray(NULL, n1, sizeof *vert);
    uint32_t *parent = gch_reallocarray(NULL, n1, sizeof *parent);
    fnode *f = gch_reallocarray(NULL, n1, sizeof *f);
    /* Objects the DFS has reached, one bit each (n / 8 bytes: the DFS tests
     * it for every edge, and it stays in cache where pre[] would not). */
    uint64_t *seen = gch_calloc((size_t)n / 64 + 1, sizeof *seen);
    /* Where the references of every 16th object start (n / 4 bytes, cache
     * resident): the DFS guesses from it where an object's references lie
     * before it knows out_start[] of that object (see prefetch_targets). */
    uint32_t *coarse = gch_reallocarray(NULL, (size_t)n / COARSE + 2, sizeof *coarse);
    /* Objects without references, one bit each: the DFS numbers such a
     * target without reading its out_start[] (a miss per leaf otherwise). */
    uint64_t *leaf = gch_calloc((size_t)n / 64 + 1, sizeof *leaf);
    uint32_t *semi = NULL, *semi_mem = NULL, *pstart = NULL, *preds = NULL, *phigh = NULL,
             *pairs = NULL;
    uint64_t *rsize = NULL;
    if (!pre || !vert || !parent || !f || !seen || !coarse || !leaf)
        goto nomem;
    for (uint32_t g = 0; g <= n / COARSE; g++)
        coarse[g] = n ? out_start[g * COARSE] : 0;
    coarse[n / COARSE + 1] = m;
    for (uint32_t w = 0; w < n / 64 + 1; w++) {
        uint64_t bits = 0;
        uint32_t o = w * 64, end = n - o < 64 ? n - o : 64;
        for (uint32_t k = 0; k < end; k++)
            bits |= (uint64_t)(out_start[o + k] == out_start[o + k + 1]) << k;
        leaf[w] = bits;
    }

    /* 1. Iterative DFS from the virtual root, numbering in preorder (vert[];
     * pre[] is filled afterwards). The current vertex is i; when its edges
     * are exhausted the walk returns to parent[i] and sets f[i].anc =
     * GCH_NONE (see step 1b). f[i].best holds the end of i's references (the
     * cursor's limit beside the cursor: returning to i after a big subtree
     * costs one miss, not vert[i] and then out_start[]); it becomes the DFS
     * parent when pre[] is filled. Nothing is classified here: the DFS only
     * reads out_start, out_target and the bitsets, a chain of dependent loads
     * per vertex. A target without references (a leaf: a third of the
     * objects of a typical heap) is numbered and finished where it is found,
     * without reading its out_start[]. */
    const size_t ahead = gch_tuning_knobs.dfs_touch_ahead;
    touch_job touch = { vert, parent, pre, f, (uint32_t)n1, (uint32_t)(ahead / 4 + 1),
                        (uint32_t)(4 * ahead), (uint32_t)ahead, (uint32_t)ahead, 0 };
    uint32_t limit = TOUCH_STOP; /* the DFS writes slots below limit freely */
    thrd_t toucher;
    int touching = ahead && n1 > 2 * ahead && (uint64_t)m >= gch_tuning_knobs.parallel_min_refs &&
                   thrd_create(&toucher, touch_thread, &touch) == thrd_success;
    if (touching)
        limit = (uint32_t)ahead;
    uint32_t N = 0, starts = 0; /* vertices, and DFS trees (their roots have no tree edge) */
    vert[0] = GCH_NONE;
    parent[0] = 0;
    f[0].anc = f[0].best = 0;
    for (uint32_t r = 0; r < heap->root_count; r++) {
        if (!gch__root_counts(heap, r, include_weak))
            continue;
        uint32_t o = heap->root_object[r];
        if (seen[o / 64] >> (o % 64) & 1)
            continue;
        seen[o / 64] |= (uint64_t)1 << (o % 64);
        starts++;
        if (++N >= limit)
            limit = touch_reach(&touch, N);
        vert[N] = o;
        parent[N] = 0;
        f[N].anc = out_start[o];
        f[N].best = out_start[o + 1];
        uint32_t i = N;
        while (i) {
            uint32_t e = f[i].anc, end = f[i].best, t = GCH_NONE;
            for (; e < end; e++) {
                uint32_t x = out_target[e];
                if (seen[x / 64] >> (x % 64) & 1)
                    continue;
                seen[x / 64] |= (uint64_t)1 << (x % 64);
                if (!(leaf[x / 64] >> (x % 64) & 1)) {
                    t = x;
                    break;
                }
                /* A leaf: numbered here, finished at once. */
                if (++N >= limit)
                    limit = touch_reach(&touch, N);
                vert[N] = x;
                parent[N] = i;
                f[N].anc = GCH_NONE;
            }
            if (t == GCH_NONE) {
                f[i].anc = GCH_NONE;
                i = parent[i];
                continue;
            }
            f[i].anc = e + 1;
            if (++N >= limit)
                limit = touch_reach(&touch, N);
            vert[N] = t;
            parent[N] = i;
            uint32_t b = out_start[t], te = out_start[t + 1];
            f[N].anc = b;
            f[N].best = te;
            /* The targets are visited next: start fetching their edge
             * ranges, and their references where coarse[] says they lie. */
            for (uint32_t k = b; k < te && k < b + 8; k++)
                prefetch_targets(out_start, out_target, coarse, out_target[k]);
            i = N;
        }
    }
    if (touching) {
        atomic_store(&touch.claimed, TOUCH_STOP); /* nothing more of vert[] is needed */
        thrd_join(toucher, NULL);
    }
    gch_free(seen);
    gch_free(coarse);
    gch_free(leaf);
    seen = NULL;
    coarse = NULL;
    leaf = NULL;
    /* pre[] from vert[] (a random store per vertex, cheaper here than inside
     * the DFS's chain of dependent loads), and f[i].best = parent[i]; on big
     * heaps two threads take half of the vertices each. */
    {
        number_job lo = { vert, parent, pre, f, 1, N / 2 + 1 };
        number_job hi = { vert, parent, pre, f, N / 2 + 1, N + 1 };
        run_two(number_objects, &lo, &hi, (uint64_t)m >= gch_tuning_knobs.parallel_min_refs);
    }

    /* 1b. Without the heap's reverse index: every edge of a reached object is
     * classified (classify_edges) by one pass over the references in object
     * order, prefetching pre[]. On big heaps two threads do it, for the
     * objects below `half` (about half of the references) and the others,
     * counting in pstart[] and phigh[] apart: each half then has its own part
     * of every predecessor list, placed by its own thread in step 2, in the
     * order one thread would give. The pairs array has room for every edge
     * but the N - starts tree edges (8 bytes each; only the cross and back
     * edges recorded are ever written, and a tree has none). */
    uint32_t half = n;
    classify_job jlo = { 0 }, jhi = { 0 };
    const int64_t room = (int64_t)m - (N - starts); /* pairs, at most */
    if (!use_reverse) {
        pstart = gch_calloc((size_t)n + 2, sizeof *pstart);
        pairs = gch_reallocarray(NULL, room ? (size_t)room : 1, 2 * sizeof *pairs);
        if (!pstart || !pairs)
            goto nomem;
        if (n >= 2 && (uint64_t)m >= gch_tuning_knobs.parallel_min_refs) {
            phigh = gch_calloc((size_t)n + 2, sizeof *phigh);
            if (!phigh)
                goto nomem;
            /* Smallest object whose references start at or after m / 2. */
            uint32_t a = 0, b = n;
            while (a < b) {
                uint32_t mid = a + (b - a) / 2;
                if (out_start[mid] < m / 2)
                    a = mid + 1;
                else
                    b = mid;
            }
            half = a;
        }
        jlo = (classify_job){ 0, half, m, 0, pre, out_start, out_target, pstart, f, pairs, 0 };
        jhi = (classify_job){ half, n, m, 1, pre, out_start, out_target, phigh, f, pairs,
                              room - 1 };
        run_two(classify_edges, &jlo, phigh ? &jhi : NULL, 1);
    }
    /* Objects named by a counted root have the virtual root as predecessor. */
    for (uint32_t r = 0; r < heap->root_count; r++)
        if (gch__root_counts(heap, r, include_weak))
            f[pre[heap->root_object[r]]].best = 0;

    /* 2. Predecessors (without the heap's reverse index): the edges v -> w
     * with v > w in a CSR by w, placed from the recorded pairs. */
    if (!use_reverse) {
        gch_free(pre);
        pre = NULL;
        place_job plo = { pairs, 0, 1, jlo.at, pstart, NULL };
        place_job phi = { pairs, room - 1, -1, room - 1 - jhi.at, phigh, NULL };
        if (!phigh) {
            /* pstart[w] = end of w's range; placing decrements it to the start. */
            for (uint32_t w = 1; w <= N + 1; w++)
                pstart[w] += pstart[w - 1];
            preds = gch_reallocarray(NULL, pstart[N] ? pstart[N] : 1, sizeof *preds);
            if (!preds)
                goto nomem;
            plo.preds = preds;
            place_preds(&plo);
        } else {
            /* w's range is [start, end): the high half's edges fill
             * [start, mid) downwards from mid (phigh[w] = mid, ends at start),
             * the low half's fill [mid, end) downwards from end (pstart[w]). */
            uint32_t sum = 0;
            for (uint32_t w = 0; w <= N + 1; w++) {
                uint32_t lo = pstart[w], hi = phigh[w];
                phigh[w] = sum + hi;
                sum += lo + hi;
                pstart[w] = sum;
            }
            preds = gch_reallocarray(NULL, sum ? sum : 1, sizeof *preds);
            if (!preds)
                goto nomem;
            plo.preds = phi.preds = preds;
            run_two(place_preds, &plo, &phi, 1);
            /* phigh[] now holds the starts (phigh[N + 1] = the total). */
            gch_free(pstart);
            pstart = phigh;
            phigh = NULL;
        }
        gch_free(pairs);
        pairs = NULL;
        /* semi[w] goes to pstart[w + 1], which step 3 has read for the last
         * time when it is done with w: the lines are in the cache then, where
         * a separate array's would be fetched only to be overwritten. */
        semi = pstart + 1;
    } else {
        semi = semi_mem = gch_reallocarray(NULL, (size_t)N + 1, sizeof *semi);
        if (!semi)
            goto nomem;
    }

    /* 3. Semidominators in reverse preorder; link each vertex to its parent.
     * The initial value is the smaller of the two folds of step 1b. */
    for (uint32_t w = N; w >= 1; w--) {
        uint32_t s = f[w].anc < f[w].best ? f[w].anc : f[w].best;
        if (use_reverse) {
            /* Prefetch in stages, for vertices further and further ahead:
             * in_start, then in_source, then the sources' numbers. */
            const uint32_t *in_start = heap->in_start, *in_source = heap->in_source;
            if (w > 3 * AHEAD) {
                __builtin_prefetch(&in_start[vert[w - 3 * AHEAD]]);
                __builtin_prefetch(&in_source[in_start[vert[w - 2 * AHEAD]]]);
                uint32_t a = vert[w - AHEAD], k = in_start[a], ke = in_start[a + 1];
                for (uint32_t q = 0; k < ke && q < 4; k++, q++)
                    __builtin_prefetch(&pre[in_source[k]]);
                a = vert[w - AHEAD / 2], k = in_start[a], ke = in_start[a + 1];
                for (uint32_t q = 0; k < ke && q < 4; k++, q++)
                    __builtin_prefetch(&f[pre[in_source[k]]]);
            }
            uint32_t o = vert[w];
            for (uint32_t e = in_start[o]; e < in_start[o + 1]; e++) {
                uint32_t v = pre[in_source[e]];
                if (v) {
                    uint32_t c = eval(f, v, w);
                    if (c < s)
                        s = c;
                }
            }
        } else {
            /* eval walks from a predecessor up its forest path: fetch the
             * predecessors' entries, then their ancestors', then the
             * ancestors' ancestors', further and further ahead. */
            for (uint32_t p = pstart[w + 1]; p-- > pstart[w];) {
                if (p >= 4 * AHEAD) {
                    __builtin_prefetch(&f[preds[p - 4 * AHEAD]]);
                    uint32_t a = f[preds[p - 2 * AHEAD]].anc;
                    __builtin_prefetch(&f[a < N ? a : 0]);
                    a = f[preds[p - AHEAD]].anc;
                    a = f[a < N ? a : 0].anc;
                    __builtin_prefetch(&f[a < N ? a : 0]);
                }
                uint32_t c = eval(f, preds[p], w);
                if (c < s)
                    s = c;
            }
        }
        semi[w] = s;
        f[w].best = s;
        f[w].anc = parent[w];
    }
    gch_free(preds);
    gch_free(pre);
    preds = pre = NULL;

    /* Sizes in preorder, for step 5, into f's memory (8 bytes per vertex;
     * the forest is not needed any more). */
    rsize = (uint64_t *)(void *)f;
    f = NULL;
    gather_job gather = { heap->object_size, vert, N, rsize };
    thrd_t gatherer;
    int gathering = (uint64_t)m >= gch_tuning_knobs.parallel_min_refs &&
                    thrd_create(&gatherer, gather_sizes, &gather) == thrd_success;

    /* 4. NCA step: idom(w) is the nearest dominator-tree ancestor of parent(w)
     * numbered at most semi(w). In place: parent[] becomes idom[]. */
    for (uint32_t w = 1; w <= N; w++) {
        uint32_t d = parent[w];
        while (d > semi[w])
            d = parent[d];
        parent[w] = d;
    }
    gch_free(semi_mem);
    gch_free(pstart);
    semi = semi_mem = pstart = NULL;
    if (gathering)
        thrd_join(gatherer, NULL);
    else
        gather_sizes(&gather);

    out->object_count = n;
    out->live_count = N;
    if (preorder_only) {
        /* Retained sizes by preorder number (step 5 without the scatter),
         * handed over with vert[] both moved down one slot (slot 0 is the
         * virtual root). */
        out->live_bytes = retained_by_preorder(parent, N, rsize);
        memmove(vert, vert + 1, (size_t)N * sizeof *vert);
        memmove(rsize, rsize + 1, (size_t)N * sizeof *rsize);
        out->preorder = vert;
        out->preorder_retained = rsize;
        vert = NULL;
        rsize = NULL;
        if (opts->preorder_idom) {
            /* Positions are preorder numbers minus one; idom 0 is the
             * virtual root. */
            for (uint32_t i = 0; i < N; i++)
                parent[i] = parent[i + 1] ? parent[i + 1] - 1 : GCH_DOM_VROOT;
            out->preorder_idom = parent;
        } else {
            gch_free(parent);
        }
        return GCH_OK;
    }

    /* 5 and 6 are independent (both only read vert[] and parent[]): on big
     * heaps the second runs on another thread. All results are allocated
     * here, on the calling thread. */
    out->retained = gch_calloc(n ? n : 1, sizeof *out->retained);
    out->idom = gch_reallocarray(NULL, n ? n : 1, sizeof *out->idom);
    if (!out->retained || !out->idom)
        goto nomem;
    if (want_children) {
        out->child_start = gch_calloc((size_t)n + 2, sizeof *out->child_start);
        if (!out->child_start)
            goto nomem;
    }
    {
        idom_job job = { n, N, vert, parent, out->idom, out->child_start };
        int threaded = 0;
        thrd_t th;
        if (N >= 2 && (uint64_t)m >= gch_tuning_knobs.parallel_min_refs &&
            thrd_create(&th, idom_thread, &job) == thrd_success)
            threaded = 1;
        /* 5. Retained sizes by preorder number, accumulated in reverse
         * preorder; then the results by object. */
        out->live_bytes = retained_by_preorder(parent, N, rsize);
        for (uint32_t i = 1; i <= N; i++) {
            if (i + AHEAD <= N)
                __builtin_prefetch(&out->retained[vert[i + AHEAD]], 1);
            out->retained[vert[i]] = rsize[i];
        }
        /* 6. idom by object, and the number of children of each dominator
         * (when the children lists are built). */
        if (threaded)
            thrd_join(th, NULL);
        else
            idom_scatter(&job);
    }
    gch_free(rsize);
    rsize = NULL;
    gch_free(parent);
    parent = NULL;
    if (!want_children) { /* no step 7: child_start and children stay NULL */
        gch_free(vert);
        return GCH_OK;
    }
    uint32_t *cs = out->child_start, *idom = out->idom;

    /* 7. Children CSR, in vert's memory (n + 1 >= N entries): cs[k] becomes
     * the end of list k, then placing objects in descending order moves it
     * back to the start, leaving each list in ascending object order; then
     * each list is sorted. */
    out->children = vert;
    vert = NULL;
    for (uint32_t k = 1; k <= n; k++)
        cs[k] += cs[k - 1];
    cs[n + 1] = N;
    for (uint32_t o = n; o-- > 0;) {
        if (o >= AHEAD) {
            uint32_t a = idom[o - AHEAD];
            __builtin_prefetch(&cs[a == GCH_DOM_VROOT ? n : a < n ? a : 0], 1);
        }
        uint32_t d = idom[o];
        if (d != GCH_NONE)
            out->children[--cs[d == GCH_DOM_VROOT ? n : d]] = o;
    }
    if (gch__sort_lists_by_key_desc(out->children, cs, (size_t)n + 1, out->retained, n) != 0)
        goto nomem;
    return GCH_OK;

nomem:
    gch_free(rsize);
    gch_free(seen);
    gch_free(coarse);
    gch_free(leaf);
    gch_free(pre);
    gch_free(vert);
    gch_free(parent);
    gch_free(f);
    gch_free(semi_mem);
    gch_free(pstart);
    gch_free(phigh);
    gch_free(pairs);
    gch_free(preds);
    gch_domtree_free(out);
    return gch_error_set(err, GCH_ENOMEM, "out of memory computing the dominator tree");
}

const uint32_t *gch_domtree_children(const gch_domtree *t, uint32_t node, uint32_t *count)
{
    uint32_t slot;
    *count = 0;
    if (!t->child_start) /* built without children lists */
        return NULL;
    if (node == GCH_DOM_VROOT)
        slot = t->object_count;
    else if (node < t->object_count && t->idom && t->idom[node] != GCH_NONE)
        slot = node;
    else
        return NULL;
    *count = t->child_start[slot + 1] - t->child_start[slot];
    return t->children + t->child_start[slot];
}

gch_status gch_dom_chain(const gch_domtree *t, uint32_t object, uint32_t **chain_out,
                         size_t *len_out, gch_error *err)
{
    *chain_out = NULL;
    *len_out = 0;
    if (!t->idom)
        return gch_error_set(err, GCH_EINVAL, "the dominator tree was built in preorder only");
    if (object >= t->object_count)
        return gch_error_set(err, GCH_EINVAL, "object index %u out of range", (unsigned)object);
    size_t len = 0;
    for (uint32_t d = t->idom[object]; d != GCH_NONE && d != GCH_DOM_VROOT; d = t->idom[d])
        len++;
    if (!len)
        return GCH_OK;
    uint32_t *chain = gch_reallocarray(NULL, len, sizeof *chain);
    if (!chain)
        return gch_error_set(err, GCH_ENOMEM, "out of memory listing dominators");
    size_t k = 0;
    for (uint32_t d = t->idom[object]; d != GCH_NONE && d != GCH_DOM_VROOT; d = t->idom[d])
        chain[k++] = d;
    *chain_out = chain;
    *len_out = len;
    return GCH_OK;
}
