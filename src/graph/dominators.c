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
 *   parent[i]   DFS-tree parent; becomes idom_pre[i], the immediate
 *               dominator in preorder numbers, in place (step 6)
 *   f[i].anc    DFS edge cursor, then GCH_NONE or (upper half of a two-thread
 *               edge classification) a second initial semi value, then (two
 *               threads) the upper half's count and placement cursor of i's
 *               predecessors, then: forest ancestor (path-compressed)
 *   f[i].best   during the DFS the end of i's references, so that the walk
 *               back to i reads one line; then the initial semi value (the
 *               DFS parent, lowered to the smallest predecessor numbered
 *               below i), then the smallest semi value on i's compressed
 *               forest path ("label" as a value)
 *   pairs       the cross and back edges v -> w, v > w, in object order of
 *               the sources, as a marked stream (from edge classification to
 *               placement)
 *   pstart/preds  predecessors v > w of each vertex w (cross and back edges),
 *               in preorder numbers (without the heap's reverse index);
 *               preds in pre's memory
 *   semi[i]     semidominator
 *   rsize[i]    size, then retained size, of vertex i (in f's memory)
 *
 * The build runs as named steps over one state (dom_build, below the step
 * helpers): see "the build, step by step".
 *
 * No recursion: the DFS walks back up through parent[] (the DFS stack is the
 * parent chain of the current vertex) and keeps per-vertex edge cursors in
 * f[].anc; path compression reverses the ancestor pointers on the way up and
 * restores them (compressed) on the way down.
 */
#include "gcheap/dominators.h"

#include <stdatomic.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "graph_internal.h"
#include "search.h"
#include "invariant.h"
#include "threading.h"

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
    uint32_t *pstart; /* step 3's counts (calloc'd; NULL with the reverse index) */
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
            gch_thread_sleep_us(100); /* far enough ahead */
            continue;
        }
        uint32_t next = j->n1 - c > j->stretch ? (uint32_t)c + j->stretch : j->n1;
        if (!atomic_compare_exchange_strong(&j->claimed, &c, next))
            break;
        touch_slots(j->vert, (uint32_t)c, next);
        touch_slots(j->parent, (uint32_t)c, next);
        if (j->pstart) /* indexed by preorder number too; 0 is its value */
            touch_slots(j->pstart, (uint32_t)c, next);
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
        gch_thread_yield(); /* one stretch being touched: microseconds */
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

/* The sizes of the vertices in preorder (rsize[0] = 0 for the virtual root):
 * random reads of object_size32, so on big heaps a second thread does it while
 * the NCA step (6) runs on the first. */
typedef struct gather_job {
    const gch_heap *heap;
    const uint32_t *vert;
    uint32_t N;
    uint64_t *rsize;
} gather_job;

static int gather_sizes(void *arg)
{
    const gather_job *j = arg;
    const gch_heap *heap = j->heap;
    const uint32_t *object_size32 = heap->object_size32;
    const uint32_t *vert = j->vert, N = j->N;
    uint64_t *rsize = j->rsize;
    rsize[0] = 0;
    for (uint32_t i = 1; i <= N; i++) {
        if (i + AHEAD <= N)
            __builtin_prefetch(&object_size32[vert[i + AHEAD]]);
        uint32_t s = object_size32[vert[i]];
        rsize[i] = s != GCH_SIZE_BIG ? s : gch_heap_big_size(heap, vert[i]);
    }
    return 0;
}

/* Turns the sizes in preorder into retained sizes (every vertex is numbered
 * after its immediate dominator, idom[i] < i in preorder numbers); returns
 * the live bytes (rsize[0], the virtual root's). */
static uint64_t retained_by_preorder(const uint32_t *idom, uint32_t N, uint64_t *rsize)
{
    for (uint32_t i = N; i >= 1; i--)
        rsize[idom[i]] += rsize[i];
    return rsize[0];
}

/* Half of step 7: idom by object (GCH_NONE when unreached), and the
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

/* The cross and back edges recorded by step 3, for step 4, are a stream of
 * 32-bit entries: a source marker (its preorder number with PAIR_TAG set)
 * before the first recorded edge of each source, then the targets w of that
 * source's edges, in object order of the sources. With ~2.8 edges recorded
 * per source that is 4 bytes an edge plus 4 a source, where (w, v) pairs
 * took 8 bytes an edge (78 MB at 10M objects). Marked streams need preorder
 * numbers below PAIR_TAG; a heap with 2^31 or more live objects records
 * plain (v, w) pairs instead ("wide"). Either way an edge takes at most two
 * entries, so the room for two entries per non-tree edge always suffices. */
#define PAIR_TAG 0x80000000u

/* Test hook (graph_internal.h): nonzero records wide pairs on any heap. */
static int force_wide_pairs;

void gch__domtree_force_wide_pairs(int on)
{
    force_wide_pairs = on;
}

/* Step 3 of the build, for the objects lo..hi-1 (those the DFS reached):
 * each edge i -> w (preorder numbers) with w < i (cross or back edge) is
 * recorded in the stream for step 4 and, by the lower job, counted in
 * cnt[w]; one with w > i (tree or forward edge: i is an ancestor of w, eval
 * would return i) is folded into the smallest such i, kept in f[w].best, or
 * in f[w].anc for the upper half of a two-thread run (the DFS left anc =
 * GCH_NONE; step 4 merges the two). Self-edges do nothing.
 *
 * The lower job writes its entries up from slot 0, the upper one down from
 * the end of the shared array, which has room for two entries per non-tree
 * edge, so the two never meet. Step 4 then reads them in sequence instead of
 * looking up pre[] a second time for every edge. */
typedef struct classify_job {
    uint32_t lo, hi, m;
    int upper, wide;
    const uint32_t *pre, *out_start, *out_target;
    uint32_t *cnt; /* NULL: the upper job, whose edges step 4 counts */
    fnode *f;
    uint32_t *pairs;
    int64_t at; /* the next entry's slot; moves by +1 (lower job) or -1 (upper) */
} classify_job;

/* The loop, for constant upper and wide (the four callers below), so that
 * neither is tested per edge. */
static inline void classify_range(classify_job *j, const int upper, const int wide)
{
    const uint32_t m = j->m, *pre = j->pre, *out_start = j->out_start,
                   *out_target = j->out_target;
    const int64_t step = upper ? -1 : 1;
    uint32_t *cnt = upper ? NULL : j->cnt, *pairs = j->pairs;
    int64_t at = j->at;
    fnode *f = j->f;
    for (uint32_t o = j->lo; o < j->hi; o++) {
        uint32_t i = pre[o];
        uint32_t e = out_start[o], end = out_start[o + 1];
        if (!i)
            continue;
        int marked = 0;
        for (; e < end; e++) {
            /* Two levels: the target's number, then its forest entry (and
             * its count). */
            if (e + 2 * AHEAD < m)
                __builtin_prefetch(&pre[out_target[e + 2 * AHEAD]]);
            if (e + AHEAD < m) {
                uint32_t x = pre[out_target[e + AHEAD]];
                if (cnt)
                    __builtin_prefetch(&cnt[x], 1);
                __builtin_prefetch(&f[x], 1);
            }
            uint32_t w = pre[out_target[e]];
            if (w < i) {
                if (wide) {
                    pairs[at] = i;
                    at += step;
                } else if (!marked) {
                    pairs[at] = i | PAIR_TAG;
                    at += step;
                    marked = 1;
                }
                pairs[at] = w;
                at += step;
                if (cnt)
                    cnt[w]++;
            } else if (w > i) {
                uint32_t *b = upper ? &f[w].anc : &f[w].best;
                if (i < *b)
                    *b = i;
            }
        }
    }
    j->at = at;
}

static int classify_edges(void *arg)
{
    classify_job *j = arg;
    if (j->upper) {
        if (j->wide)
            classify_range(j, 1, 1);
        else
            classify_range(j, 1, 0);
    } else {
        if (j->wide)
            classify_range(j, 0, 1);
        else
            classify_range(j, 0, 0);
    }
    return 0;
}

/* Calls EDGE(w, v) for every edge v -> w recorded by one classify job in
 * pairs[from], pairs[from + step], ... (`count` entries), with the target of
 * the edge AHEAD entries on in `next` (0 past the end) for prefetching. */
#define FOR_EACH_RECORDED_EDGE(pairs, from, step, count, wide, EDGE)                     \
    do {                                                                                 \
        const uint32_t *p_ = (pairs);                                                    \
        int64_t at_ = (from), end_ = (from) + (step) * (count);                          \
        uint32_t v_ = 0;                                                                 \
        while (at_ != end_) {                                                            \
            int64_t ahead_ = at_ + (step) * AHEAD;                                       \
            uint32_t next = ((step) > 0 ? ahead_ < end_ : ahead_ > end_)                 \
                                ? p_[ahead_] & ~PAIR_TAG : 0;                            \
            uint32_t x_ = p_[at_];                                                       \
            at_ += (step);                                                               \
            if (wide) {                                                                  \
                v_ = x_;                                                                 \
                x_ = p_[at_];                                                            \
                at_ += (step);                                                           \
            } else if (x_ & PAIR_TAG) {                                                  \
                v_ = x_ & ~PAIR_TAG;                                                     \
                continue;                                                                \
            }                                                                            \
            (void)next;                                                                  \
            (void)v_;                                                                    \
            EDGE(x_, v_);                                                                \
        }                                                                                \
    } while (0)

/* Step 4, two threads: the upper job's edges counted in f[w].anc, after its
 * folds there have been merged into f[w].best. Returns how many there are. */
typedef struct count_job {
    const uint32_t *pairs;
    int64_t from, count;
    int wide;
    fnode *f;
} count_job;

static uint32_t count_upper(const count_job *j)
{
    fnode *f = j->f;
    uint32_t edges = 0;
#define COUNT_EDGE(w, v)                                                                 \
    do {                                                                                 \
        __builtin_prefetch(&f[next], 1);                                                 \
        f[w].anc++;                                                                      \
        edges++;                                                                         \
    } while (0)
    FOR_EACH_RECORDED_EDGE(j->pairs, j->from, -1, j->count, j->wide, COUNT_EDGE);
#undef COUNT_EDGE
    return edges;
}

/* Step 4: the edges recorded by one classify job, from slot `from` on in its
 * direction (`count` entries, in object order of the sources), are placed at
 * preds[--cur[w]] = v, where cur[w] is cur[stride * w] (the lower job's
 * cursors are pstart[], the upper job's f[].anc). */
typedef struct place_job {
    const uint32_t *pairs;
    int64_t from, step, count;
    int wide;
    uint32_t *cur;
    size_t stride;
    uint32_t *preds;
} place_job;

static int place_preds(void *arg)
{
    const place_job *j = arg;
    uint32_t *cur = j->cur, *preds = j->preds;
    const size_t stride = j->stride;
#define PLACE_EDGE(w, v)                                                                 \
    do {                                                                                 \
        __builtin_prefetch(&cur[stride * next], 1);                                      \
        preds[--cur[stride * (w)]] = (v);                                                \
    } while (0)
    FOR_EACH_RECORDED_EDGE(j->pairs, j->from, j->step, j->count, j->wide, PLACE_EDGE);
#undef PLACE_EDGE
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

/* ---- the build, step by step ----
 *
 *   1. dfs_number            preorder numbering: vert[], parent[], N
 *   2. index_preorder        pre[] (object -> number), initial semi values
 *   3. classify_edges_all    tree/forward edges folded, cross/back edges
 *                            recorded (no reverse index only)
 *   4. place_predecessors    the recorded edges as a predecessor CSR, in
 *                            pre's memory (no reverse index)
 *   5. semidominators        semi[] by eval over the path-compressed forest
 *   6. nca_idoms             parent[] becomes idom[] in place; meanwhile a
 *                            second thread gathers the sizes in preorder
 *   7. results_preorder / results_by_object
 *                            retained sizes, and idom and retained by object
 *   8. children_lists        the children CSR, each list sorted
 *
 * Each step is a function of the build state below and says what it reads,
 * writes, allocates and frees. Memory is handed from one use to the next
 * where the first use's last reader comes before the second's first writer:
 * the peaks stated in dominators.h and docs/graph-algorithms.md depend on it,
 * and each handover is written out (a field set from another, which becomes
 * NULL). Every buffer of the state is either NULL or owned by it:
 * dom_build_release() frees what is left. */
typedef struct dom_build {
    /* The input and what the caller asked for. */
    const gch_heap *heap;
    int include_weak;
    gch_parallel par;
    uint32_t n, m; /* objects, references */
    const uint32_t *out_start, *out_target;
    int use_reverse; /* the heap's reverse index gives the predecessors */

    uint32_t N;      /* live vertices: preorder numbers 1..N (0: the virtual root) */
    uint32_t starts; /* DFS trees (their roots have no tree edge) */
    uint32_t *vert;   /* [n+1] object of preorder number i; the children lists take it over */
    uint32_t *parent; /* [n+1] DFS-tree parent of i, until step 6 turns it into idom_pre */
    uint32_t *idom_pre; /* [n+1] immediate dominator of i, in preorder numbers: parent's memory */
    fnode *forest;    /* [n+1] f[i] (see the top of the file), steps 1-5 */
    uint64_t *rsize;  /* [n+1] size, then retained size, of vertex i: forest's memory */
    uint32_t *pre;    /* [n+1] preorder number of each object, 0 when unreached; steps 2-5 */

    /* Predecessors without the heap's reverse index (steps 3-5). */
    uint32_t *pairs;      /* the recorded cross and back edges, 2 * pair_room entries */
    int64_t pair_room;    /* edges that are not DFS tree edges: the most recorded */
    int two;              /* step 3 ran in two halves (hi) */
    classify_job lo, hi;  /* step 3's two halves (hi unused with one thread) */
    uint32_t *pstart;     /* [n+2] counts of step 3, then the CSR starts of preds */
    uint32_t *preds;      /* predecessors v > w of each w, in preorder numbers: pre's memory */
    uint32_t *semi;       /* [N+1] semidominators: pstart + 1, or semi_mem */
    uint32_t *semi_mem;   /* semi's own memory, with the reverse index only */
} dom_build;

static void dom_build_release(dom_build *b)
{
    gch_free(b->vert);
    gch_free(b->parent);
    gch_free(b->idom_pre);
    gch_free(b->forest);
    gch_free(b->rsize);
    gch_free(b->pre);
    gch_free(b->pairs);
    gch_free(b->pstart);
    gch_free(b->preds);
    gch_free(b->semi_mem);
    b->vert = b->parent = b->idom_pre = b->pre = b->pairs = NULL;
    b->pstart = b->preds = b->semi = b->semi_mem = NULL;
    b->forest = NULL;
    b->rsize = NULL;
}

/* Step 1: iterative DFS from the virtual root, numbering in preorder.
 * Reads: the heap's roots and references. Writes: vert[0..N], parent[0..N],
 * f[i].anc = GCH_NONE for every finished vertex, N and starts. Allocates and
 * frees: seen, leaf, coarse (n / 8, n / 8 and n / 4 bytes); a page-touching
 * helper thread on big heaps (see touch_job).
 *
 * The current vertex is i; when its edges are exhausted the walk returns to
 * parent[i] and sets f[i].anc = GCH_NONE (see step 3). f[i].anc is the
 * cursor over i's references and f[i].best their end (the cursor's limit
 * beside the cursor: returning to i after a big subtree costs one miss, not
 * vert[i] and then out_start[]). Nothing is classified here: the DFS only
 * reads out_start, out_target and the bitsets, a chain of dependent loads per
 * vertex. A target without references (a leaf: a third of the objects of a
 * typical heap) is numbered and finished where it is found, without reading
 * its out_start[]. */
static gch_status dfs_number(dom_build *b)
{
    const gch_heap *heap = b->heap;
    const uint32_t n = b->n, m = b->m, *out_start = b->out_start, *out_target = b->out_target;
    const size_t n1 = (size_t)n + 1;
    uint32_t *vert = b->vert, *parent = b->parent;
    fnode *f = b->forest;
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
    if (!seen || !coarse || !leaf) {
        gch_free(seen);
        gch_free(coarse);
        gch_free(leaf);
        return GCH_ENOMEM;
    }
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

    const size_t ahead = b->par.knobs.dfs_touch_ahead;
    touch_job touch = { vert, parent, b->pre, b->pstart, f, (uint32_t)n1,
                        (uint32_t)(ahead / 4 + 1), (uint32_t)(4 * ahead), (uint32_t)ahead,
                        (uint32_t)ahead, 0 };
    uint32_t limit = TOUCH_STOP; /* the DFS writes slots below limit freely */
    gch_thread toucher;
    int touching = ahead && n1 > 2 * ahead && gch_parallel_worth(&b->par, m) &&
                   gch_thread_start(&toucher, b->par.workers, touch_thread, &touch);
    if (touching)
        limit = (uint32_t)ahead;
    uint32_t N = 0, starts = 0;
    vert[0] = GCH_NONE;
    parent[0] = 0;
    f[0].anc = f[0].best = 0;
    for (uint32_t r = 0; r < heap->root_count; r++) {
        if (!gch__root_counts(heap, r, b->include_weak))
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
            uint32_t tb = out_start[t], te = out_start[t + 1];
            f[N].anc = tb;
            f[N].best = te;
            /* The targets are visited next: start fetching their edge
             * ranges, and their references where coarse[] says they lie. */
            for (uint32_t k = tb; k < te && k < tb + 8; k++)
                prefetch_targets(out_start, out_target, coarse, out_target[k]);
            i = N;
        }
    }
    if (touching) {
        atomic_store(&touch.claimed, TOUCH_STOP); /* nothing more of vert[] is needed */
        gch_thread_join(&toucher);
    }
    gch_free(seen);
    gch_free(coarse);
    gch_free(leaf);
    b->N = N;
    b->starts = starts;
    return GCH_OK;
}

/* Step 2: pre[vert[i]] = i (a random store per vertex, cheaper here than
 * inside the DFS's chain of dependent loads) and f[i].best = parent[i], the
 * initial semi value. Reads vert, parent; writes pre, forest. On big heaps
 * two threads take half of the vertices each. */
static void index_preorder(dom_build *b)
{
    const uint32_t N = b->N;
    number_job lo = { b->vert, b->parent, b->pre, b->forest, 1, N / 2 + 1 };
    number_job hi = { b->vert, b->parent, b->pre, b->forest, N / 2 + 1, N + 1 };
    gch_run_two(b->par.workers, gch_parallel_worth(&b->par, b->m), number_objects, &lo, &hi);
}

/* Step 3, without the heap's reverse index: every edge of a reached object
 * is classified (classify_edges) by one pass over the references in object
 * order, prefetching pre[]. Reads pre, the references; writes forest (the
 * folds), pstart (counts, allocated with the DFS's arrays) and the recorded
 * edges. Allocates pairs. On big heaps two threads classify the objects
 * below `half` (about half of the references) and the others; only the
 * lower half counts here
 * (step 4 counts the upper half's edges, whose counts would need another n
 * entries now), and each half then has its own part of every predecessor
 * list, placed by its own thread in step 4. The pairs array has room for two
 * entries per edge but the N - starts tree edges (only the entries written
 * are ever touched, and a tree has none). */
static gch_status classify_edges_all(dom_build *b)
{
    const uint32_t n = b->n, m = b->m, *out_start = b->out_start;
    const int64_t room = (int64_t)m - (b->N - b->starts);
    const int wide = force_wide_pairs || b->N >= PAIR_TAG;
    b->pair_room = room;
    b->pairs = gch_reallocarray(NULL, room ? (size_t)room : 1, 2 * sizeof *b->pairs);
    if (!b->pstart || !b->pairs)
        return GCH_ENOMEM;
    uint32_t half = n;
    b->two = n >= 2 && gch_parallel_worth(&b->par, m);
    if (b->two) {
        /* Smallest object whose references start at or after m / 2. */
        half = (uint32_t)GCH_LOWER_BOUND(out_start, 0, n, m / 2);
    }
    b->lo = (classify_job){ 0, half, m, 0, wide, b->pre, out_start, b->out_target, b->pstart,
                            b->forest, b->pairs, 0 };
    b->hi = (classify_job){ half, n, m, 1, wide, b->pre, out_start, b->out_target, NULL,
                            b->forest, b->pairs, 2 * room - 1 };
    gch_run_two(b->par.workers, 1, classify_edges, &b->lo, b->two ? &b->hi : NULL);
    return GCH_OK;
}

/* Objects named by a counted root have the virtual root as predecessor: their
 * initial semi value is 0. Reads pre; writes forest. */
static void fold_root_edges(dom_build *b)
{
    const gch_heap *heap = b->heap;
    for (uint32_t r = 0; r < heap->root_count; r++)
        if (gch__root_counts(heap, r, b->include_weak))
            b->forest[b->pre[heap->root_object[r]]].best = 0;
}

/* Merges the upper half's folds (f[w].anc) into f[w].best and zeroes
 * f[w].anc for counting, for the vertices from..to-1. */
typedef struct merge_job {
    fnode *f;
    uint32_t from, to;
} merge_job;

static int merge_folds(void *arg)
{
    const merge_job *j = arg;
    fnode *f = j->f;
    for (uint32_t w = j->from; w < j->to; w++) {
        if (f[w].anc < f[w].best)
            f[w].best = f[w].anc;
        f[w].anc = 0;
    }
    return 0;
}

/* The number of edges counted in pstart[0..N+1] (one thread, or the lower
 * half). Reads only: pstart's pages not yet written stay unfaulted. */
static uint32_t counted_edges(const uint32_t *pstart, uint32_t N)
{
    uint32_t total = 0;
    for (uint32_t w = 0; w <= N + 1; w++)
        total += pstart[w];
    return total;
}

/* Step 4, without the heap's reverse index: the edges v -> w with v > w in a
 * CSR by w, placed from the recorded edges. Reads pairs, pstart; writes
 * preds and the CSR starts (in pstart). preds takes pre's memory (step 5
 * does not need pre without the reverse index), resized to the number of
 * edges recorded: no fresh pages when there are fewer of them than objects.
 * Frees pairs. semi[] then reuses pstart's memory from slot 1: semi[w] =
 * pstart[w + 1], which step 5 has read for the last time when it is done
 * with w (the lines are in the cache then, where a separate array's would
 * be fetched only to be overwritten).
 *
 * Two halves: the upper half's edges are first counted in f[w].anc (its
 * folds merged into f[w].best, the only fold step 5 reads); w's range is
 * then [start, end): the lower half's edges fill [start, mid) downwards from
 * mid (cursor pstart[w], which ends at start as with one thread), the upper
 * half's fill [mid, end) downwards from end (cursor f[w].anc, not read
 * again before step 5 links w), each half on its own thread. */
static gch_status place_predecessors(dom_build *b)
{
    const uint32_t N = b->N;
    const int64_t room = b->pair_room;
    const int wide = b->lo.wide;
    const int64_t hi_count = b->two ? 2 * room - 1 - b->hi.at : 0;
    uint32_t *pstart = b->pstart;
    fnode *f = b->forest;
    place_job plo = { b->pairs, 0, 1, b->lo.at, wide, pstart, 1, NULL };
    place_job phi = { b->pairs, 2 * room - 1, -1, hi_count, wide, &f[0].anc,
                      sizeof *f / sizeof f[0].anc, NULL };
    uint32_t total = counted_edges(pstart, N);
    if (b->two) {
        merge_job mlo = { f, 1, N / 2 + 1 }, mhi = { f, N / 2 + 1, N + 1 };
        gch_run_two(b->par.workers, 1, merge_folds, &mlo, &mhi);
        count_job cnt = { b->pairs, 2 * room - 1, hi_count, wide, f };
        total += count_upper(&cnt);
    }
    /* pre's memory is cut to the predecessors' size before the starts are
     * summed: summing writes every page of pstart, and this step is the
     * build's peak (docs/graph-algorithms.md, "memory"). */
    uint32_t *preds = gch_realloc(b->pre, (total ? total : 1) * sizeof *preds);
    if (!preds)
        return GCH_ENOMEM; /* b->pre is still owned and freed */
    b->pre = NULL;
    b->preds = plo.preds = phi.preds = preds;
    if (!b->two) {
        /* pstart[w] = end of w's range; placing decrements it to the start. */
        for (uint32_t w = 1; w <= N + 1; w++)
            pstart[w] += pstart[w - 1];
        GCH_ASSERT(pstart[N + 1] == total);
    } else {
        uint32_t sum = 0;
        for (uint32_t w = 0; w <= N + 1; w++) {
            uint32_t lo = pstart[w], hi = w && w <= N ? f[w].anc : 0;
            pstart[w] = sum + lo;
            sum += lo + hi;
            if (w && w <= N)
                f[w].anc = sum;
        }
        GCH_ASSERT(sum == total);
    }
    gch_run_two(b->par.workers, 1, place_preds, &plo, b->two ? &phi : NULL);
    gch_free(b->pairs);
    b->pairs = NULL;
    b->semi = b->pstart + 1;
    return GCH_OK;
}

/* Step 5: semidominators in reverse preorder, linking each vertex to its
 * parent in the forest. The initial value is the smaller of the two folds of
 * step 3. Reads: the predecessors (the heap's reverse index with pre[], or
 * pstart / preds), parent, vert; reads and writes forest; writes semi. Frees
 * preds and pre. */
static void semidominators(dom_build *b)
{
    const uint32_t N = b->N, *vert = b->vert, *parent = b->parent, *pre = b->pre;
    const uint32_t *pstart = b->pstart, *preds = b->preds;
    uint32_t *semi = b->semi;
    fnode *f = b->forest;
    const int use_reverse = b->use_reverse;
    for (uint32_t w = N; w >= 1; w--) {
        uint32_t s = f[w].best; /* the folds of step 3, merged */
        if (use_reverse) {
            /* Prefetch in stages, for vertices further and further ahead:
             * in_start, then in_source, then the sources' numbers. */
            const uint32_t *in_start = b->heap->in_start, *in_source = b->heap->in_source;
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
        GCH_ASSERT(s < w); /* the DFS parent, numbered before w, bounds it */
        semi[w] = s;
        f[w].best = s;
        f[w].anc = parent[w];
    }
    gch_free(b->preds);
    gch_free(b->pre);
    b->preds = b->pre = NULL;
}

/* Step 6: idom(w) is the nearest dominator-tree ancestor of parent(w)
 * numbered at most semi(w). In place: parent[] becomes idom_pre[]. Reads
 * semi; frees semi's memory (pstart or semi_mem). The forest is not needed
 * any more: its memory becomes rsize[], the sizes in preorder (8 bytes per
 * vertex), gathered meanwhile by a second thread on big heaps (random reads
 * of object_size32). */
static void nca_idoms(dom_build *b)
{
    const uint32_t N = b->N, *semi = b->semi;
    b->rsize = (uint64_t *)(void *)b->forest;
    b->forest = NULL;
    gather_job gather = { b->heap, b->vert, N, b->rsize };
    gch_thread gatherer;
    int gathering = gch_parallel_worth(&b->par, b->m) &&
                    gch_thread_start(&gatherer, b->par.workers, gather_sizes, &gather);
    uint32_t *parent = b->parent;
    for (uint32_t w = 1; w <= N; w++) {
        uint32_t d = parent[w];
        while (d > semi[w])
            d = parent[d];
        GCH_ASSERT(d < w); /* every vertex is numbered after its idom */
        parent[w] = d;
    }
    b->idom_pre = b->parent;
    b->parent = NULL;
    gch_free(b->semi_mem);
    gch_free(b->pstart);
    b->semi = b->semi_mem = b->pstart = NULL;
    if (gathering)
        gch_thread_join(&gatherer);
    else
        gather_sizes(&gather);
}

/* The immediate dominators by preorder number as the builder keeps them
 * (idom[1..N], 1-based, 0 for the virtual root) turned, in place, into
 * gch_domtree's preorder_idom (0-based, GCH_DOM_VROOT for the root). */
static uint32_t *preorder_idom_in_place(uint32_t *idom, uint32_t N)
{
    for (uint32_t i = 0; i < N; i++)
        idom[i] = idom[i + 1] ? idom[i + 1] - 1 : GCH_DOM_VROOT;
    return idom;
}

/* Step 7, preorder_only: retained sizes by preorder number (without the
 * scatter to objects), handed over with vert[] both moved down one slot
 * (slot 0 is the virtual root): vert becomes out->preorder, rsize
 * out->preorder_retained. idom_pre becomes out->preorder_idom when keep_idom
 * (positions are preorder numbers minus one; idom GCH_DOM_VROOT is the
 * virtual root), else it is freed. */
static void results_preorder(dom_build *b, gch_domtree *out, int keep_idom)
{
    const uint32_t N = b->N;
    out->live_bytes = retained_by_preorder(b->idom_pre, N, b->rsize);
    memmove(b->vert, b->vert + 1, (size_t)N * sizeof *b->vert);
    memmove(b->rsize, b->rsize + 1, (size_t)N * sizeof *b->rsize);
    out->preorder = b->vert;
    out->preorder_retained = b->rsize;
    b->vert = NULL;
    b->rsize = NULL;
    if (keep_idom)
        out->preorder_idom = preorder_idom_in_place(b->idom_pre, N);
    else
        gch_free(b->idom_pre);
    b->idom_pre = NULL;
}

/* Step 7: retained sizes (accumulated in reverse preorder) and the results
 * by object: out->retained, out->idom and, with children, the number of
 * children of each dominator in out->child_start. The two halves only read
 * vert and idom_pre: on big heaps the idom scatter runs on another thread.
 * Allocates the results (here, on the calling thread); frees rsize and
 * idom_pre. */
static gch_status results_by_object(dom_build *b, gch_domtree *out, int want_children,
                                    int keep_preorder)
{
    const uint32_t n = b->n, N = b->N, *vert = b->vert;
    if (keep_preorder) { /* vert becomes the children lists: the preorder is a copy */
        out->preorder = gch_reallocarray(NULL, N ? N : 1, sizeof *out->preorder);
        if (!out->preorder)
            return GCH_ENOMEM;
        memcpy(out->preorder, vert + 1, (size_t)N * sizeof *vert);
    }
    out->retained = gch_calloc(n ? n : 1, sizeof *out->retained);
    out->idom = gch_reallocarray(NULL, n ? n : 1, sizeof *out->idom);
    if (!out->retained || !out->idom)
        return GCH_ENOMEM;
    if (want_children) {
        out->child_start = gch_calloc((size_t)n + 2, sizeof *out->child_start);
        if (!out->child_start)
            return GCH_ENOMEM;
    }
    idom_job job = { n, N, vert, b->idom_pre, out->idom, out->child_start };
    gch_thread th;
    int threaded = N >= 2 && gch_parallel_worth(&b->par, b->m) &&
                   gch_thread_start(&th, b->par.workers, idom_thread, &job);
    out->live_bytes = retained_by_preorder(b->idom_pre, N, b->rsize);
    const uint64_t *rsize = b->rsize;
    for (uint32_t i = 1; i <= N; i++) {
        if (i + AHEAD <= N)
            __builtin_prefetch(&out->retained[vert[i + AHEAD]], 1);
        out->retained[vert[i]] = rsize[i];
    }
    if (threaded)
        gch_thread_join(&th);
    else
        idom_scatter(&job);
    if (keep_preorder) { /* as results_preorder hands them over */
        memmove(b->rsize, b->rsize + 1, (size_t)N * sizeof *b->rsize);
        out->preorder_retained = b->rsize;
        out->preorder_idom = preorder_idom_in_place(b->idom_pre, N);
    } else {
        gch_free(b->rsize);
        gch_free(b->idom_pre);
    }
    b->rsize = NULL;
    b->idom_pre = NULL;
    return GCH_OK;
}

/* Step 8: the children CSR, in vert's memory (n + 1 >= N entries): cs[k]
 * becomes the end of list k, then placing objects in descending order moves
 * it back to the start, leaving each list in ascending object order; then
 * each list is sorted by retained size. Reads out->idom, out->retained;
 * writes out->child_start, out->children (vert, handed over). */
static gch_status children_lists(dom_build *b, gch_domtree *out)
{
    const uint32_t n = b->n, N = b->N;
    uint32_t *cs = out->child_start, *idom = out->idom;
    out->children = b->vert;
    b->vert = NULL;
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
    GCH_ASSERT(cs[0] == 0); /* each of the N live objects placed once */
    if (gch__sort_lists_by_key_desc(out->children, cs, (size_t)n + 1, out->retained, n) != 0)
        return GCH_ENOMEM;
    return GCH_OK;
}

/* Tells the caller a step ended: percent is the share of the build's usual
 * time (docs/graph-algorithms.md, round 6 at 10M objects) done so far. */
static void step_done(const gch_domtree_options *opts, unsigned percent)
{
    if (opts->progress)
        opts->progress(opts->progress_ctx, percent);
}

/* The steps in order (see above); every failure is an allocation's. */
static gch_status dom_build_run(dom_build *b, const gch_domtree_options *opts, gch_domtree *out)
{
    const size_t n1 = (size_t)b->n + 1;
    b->pre = gch_calloc(n1, sizeof *b->pre);
    b->vert = gch_reallocarray(NULL, n1, sizeof *b->vert);
    b->parent = gch_reallocarray(NULL, n1, sizeof *b->parent);
    b->forest = gch_reallocarray(NULL, n1, sizeof *b->forest);
    /* Step 3's counts, allocated now so that the DFS's page toucher faults
     * their pages in beside vert's (both are indexed by preorder number). */
    if (!b->use_reverse)
        b->pstart = gch_calloc(n1 + 1, sizeof *b->pstart);
    if (!b->pre || !b->vert || !b->parent || !b->forest || (!b->use_reverse && !b->pstart))
        return GCH_ENOMEM;
    gch_status st = dfs_number(b);
    if (st != GCH_OK)
        return st;
    step_done(opts, 40);
    index_preorder(b);
    if (!b->use_reverse && (st = classify_edges_all(b)) != GCH_OK)
        return st;
    fold_root_edges(b);
    step_done(opts, 55);
    if (!b->use_reverse) {
        if ((st = place_predecessors(b)) != GCH_OK)
            return st;
    } else {
        b->semi = b->semi_mem = gch_reallocarray(NULL, (size_t)b->N + 1, sizeof *b->semi);
        if (!b->semi)
            return GCH_ENOMEM;
    }
    step_done(opts, 60);
    semidominators(b);
    step_done(opts, 80);
    nca_idoms(b);
    step_done(opts, 88);
    out->object_count = b->n;
    out->live_count = b->N;
    if (opts->preorder_only) {
        results_preorder(b, out, opts->preorder_idom);
        step_done(opts, 100);
        return GCH_OK;
    }
    if ((st = results_by_object(b, out, opts->children != 0, opts->keep_preorder != 0)) != GCH_OK)
        return st;
    if (!opts->children) { /* no step 8: child_start and children stay NULL */
        step_done(opts, 100);
        return GCH_OK;
    }
    step_done(opts, 94);
    if ((st = children_lists(b, out)) == GCH_OK)
        step_done(opts, 100);
    return st;
}

gch_status gch_domtree_build_ex(const gch_heap *heap, const gch_domtree_options *opts,
                                gch_domtree *out, gch_error *err)
{
    static const gch_domtree_options defaults = GCH_DOMTREE_OPTIONS_INIT;
    if (!opts)
        opts = &defaults;
    memset(out, 0, sizeof *out);
    if (opts->preorder_only && opts->children)
        return gch_error_set(err, GCH_EINVAL,
                             "a dominator tree in preorder only has no children lists");
    if (opts->keep_preorder && opts->preorder_only)
        return gch_error_set(err, GCH_EINVAL, "keep_preorder is for a tree by object");
    if (opts->preorder_idom && !opts->preorder_only)
        return gch_error_set(err, GCH_EINVAL,
                             "preorder_idom is kept only for a dominator tree in preorder only");
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL,
                             "the dominator tree needs references, which were not loaded");
    dom_build b;
    memset(&b, 0, sizeof b);
    b.heap = heap;
    b.include_weak = opts->include_weak;
    b.par = gch_parallel_for(opts->threads);
    b.n = heap->object_count;
    b.out_start = heap->out_start;
    b.out_target = heap->out_target;
    b.m = b.n ? b.out_start[b.n] : 0;
    b.use_reverse = !opts->ignore_reverse && heap->in_start != NULL && heap->in_source != NULL;
    gch_assert_csr(b.out_start, b.n, b.m, b.out_target, b.n);
    if (b.use_reverse)
        gch_assert_csr(heap->in_start, b.n, b.m, heap->in_source, b.n);
    gch_status st = dom_build_run(&b, opts, out);
    dom_build_release(&b);
    if (st == GCH_OK)
        return GCH_OK;
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
