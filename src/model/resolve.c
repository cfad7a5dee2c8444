/* Bulk id resolution: see resolve.h.
 *
 * References point anywhere in the heap, so nearly every lookup misses the
 * cache twice (directory bucket or hash slot, then the id array). The loop is
 * a three-stage software pipeline over the reference array: stage 1 loads the
 * id and prefetches its bucket, stage 2 (DIST references later) reads the
 * bucket and prefetches the ids it names, stage 3 (DIST later again) compares.
 * Many misses are then in flight at once instead of one. */
#include "resolve.h"

#include <string.h>

#include "threading.h"

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

#define NONE UINT32_MAX
#ifndef DIST
#define DIST 16
#endif
#define RING 64 /* power of two > 2 * DIST */

typedef struct range_job {
    const id_lookup *l;
    const unsigned char *src; /* n raw uint64_t ids */
    unsigned char *dst;       /* n uint32_t results; dst <= src, may overlap it */
    uint64_t n;
    uint64_t dangling, first;
} range_job;

/* Lower bound of id in ids[lo, hi), then equality. The binary steps keep the
 * answer in [lo, hi] (hi itself included), the linear scan finishes. */
static inline uint32_t search(const uint64_t *ids, uint32_t lo, uint32_t hi, uint64_t id)
{
    const uint32_t end = hi;
    while (hi - lo > 8) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo < hi && ids[lo] < id)
        lo++;
    return lo < end && ids[lo] == id ? lo : NONE;
}

static inline void emit(range_job *j, uint64_t k, uint32_t target, uint64_t id)
{
    if (target == NONE && j->dangling++ == 0)
        j->first = id;
    memcpy(j->dst + k * 4, &target, sizeof target);
}

/* The sorted directory's pipeline: stage 1 for reference k, stage 2 for
 * k - DIST, stage 3 for k - 2 * DIST, each keeping what the next needs in a
 * small ring (the middle loop runs all three without tests). An id outside
 * [min, max] goes to the directory's empty bucket (bucket_count), so no stage
 * tests for it. */
typedef struct sorted_pipe {
    const uint64_t *ids;
    const uint32_t *first;
    uint64_t min, span;
    uint32_t empty;
    unsigned shift;
    uint32_t b[RING], lo[RING], hi[RING];
} sorted_pipe;

static inline void sorted_stage1(sorted_pipe *p, const unsigned char *src, uint64_t k)
{
    uint64_t id;
    memcpy(&id, src + k * 8, sizeof id);
    uint64_t d = id - p->min;
    uint32_t b = d > p->span ? p->empty : (uint32_t)(d >> p->shift);
    PREFETCH(&p->first[b]);
    p->b[k & (RING - 1)] = b;
}

static inline void sorted_stage2(sorted_pipe *p, uint64_t q)
{
    size_t s = q & (RING - 1);
    uint32_t b = p->b[s], lo = p->first[b];
    PREFETCH(&p->ids[lo]);
    p->lo[s] = lo;
    p->hi[s] = p->first[b + 1];
}

static inline void sorted_stage3(sorted_pipe *p, range_job *j, uint64_t q)
{
    size_t s = q & (RING - 1);
    uint64_t id;
    memcpy(&id, j->src + q * 8, sizeof id);
    emit(j, q, search(p->ids, p->lo[s], p->hi[s], id), id);
}

static void resolve_sorted(range_job *j)
{
    const id_index *ix = &j->l->index;
    sorted_pipe p;
    p.ids = ix->ids;
    p.first = ix->first;
    p.min = ix->min;
    p.span = ix->max - ix->min;
    p.empty = ix->bucket_count;
    p.shift = ix->shift;
    const uint64_t n = j->n;
    if (n < 2 * DIST) {
        for (uint64_t k = 0; k < n; k++) {
            sorted_stage1(&p, j->src, k);
            sorted_stage2(&p, k);
            sorted_stage3(&p, j, k);
        }
        return;
    }
    uint64_t k = 0;
    for (; k < DIST; k++)
        sorted_stage1(&p, j->src, k);
    for (; k < 2 * DIST; k++) {
        sorted_stage1(&p, j->src, k);
        sorted_stage2(&p, k - DIST);
    }
    for (; k < n; k++) {
        sorted_stage1(&p, j->src, k);
        sorted_stage2(&p, k - DIST);
        sorted_stage3(&p, j, k - 2 * DIST);
    }
    for (; k < n + DIST; k++) {
        sorted_stage2(&p, k - DIST);
        sorted_stage3(&p, j, k - 2 * DIST);
    }
    for (; k < n + 2 * DIST; k++)
        sorted_stage3(&p, j, k - 2 * DIST);
}

/* The rank form's pipeline: stage 1 for reference k loads the id and
 * prefetches its line, stage 2 for k - RANK_DIST reads the line. One miss
 * per reference instead of the directory's two, so one stage of lead time:
 * twice DIST keeps as many lines in flight as the directory's two stages. */
#ifndef RANK_DIST
#define RANK_DIST (2 * DIST)
#endif
_Static_assert(RANK_DIST < RING, "the ring holds the positions in flight");

static void resolve_rank(range_job *j)
{
    const id_index *ix = &j->l->index;
    uint64_t ring[RING];
    const uint64_t n = j->n;
    for (uint64_t k = 0; k < n + RANK_DIST; k++) {
        if (k < n) {
            uint64_t id;
            memcpy(&id, j->src + k * 8, sizeof id);
            uint64_t p = id_rank_position(ix, id);
            if (p != UINT64_MAX)
                PREFETCH(&ix->rank[p / ID_RANK_BITS]);
            ring[k & (RING - 1)] = p;
        }
        if (k >= RANK_DIST) {
            uint64_t q = k - RANK_DIST, p = ring[q & (RING - 1)], id;
            memcpy(&id, j->src + q * 8, sizeof id);
            emit(j, q, p == UINT64_MAX ? NONE : id_rank_index(ix, p), id);
        }
    }
}

static void resolve_hashed(range_job *j)
{
    const id_lookup *l = j->l;
    const uint32_t *table = l->table;
    const uint64_t *ids = l->ids;
    const size_t mask = l->mask;
    const gch_hash_key key = l->key;
    uint64_t ring_id[RING];
    size_t ring_slot[RING];
    const uint64_t n = j->n;
    for (uint64_t k = 0; k < n + 2 * DIST; k++) {
        if (k < n) {
            size_t s = k & (RING - 1);
            uint64_t id;
            memcpy(&id, j->src + k * 8, sizeof id);
            size_t slot = gch_hash_u64(id, &key) & mask;
            PREFETCH(&table[slot]);
            ring_id[s] = id;
            ring_slot[s] = slot;
        }
        if (k >= DIST && k - DIST < n) {
            size_t s = (k - DIST) & (RING - 1);
            uint32_t t = table[ring_slot[s]];
            if (t != NONE)
                PREFETCH(&ids[t]);
        }
        if (k >= 2 * DIST) {
            uint64_t q = k - 2 * DIST;
            size_t s = q & (RING - 1);
            uint64_t id = ring_id[s];
            uint32_t target = NONE;
            for (size_t x = ring_slot[s]; table[x] != NONE; x = (x + 1) & mask)
                if (ids[table[x]] == id) {
                    target = table[x];
                    break;
                }
            emit(j, q, target, id);
        }
    }
}

static void resolve_range(range_job *j)
{
    if (j->l->sorted && j->l->index.rank)
        resolve_rank(j);
    else if (j->l->sorted)
        resolve_sorted(j);
    else
        resolve_hashed(j);
}

static int resolve_thread(void *arg)
{
    resolve_range(arg);
    return 0;
}

void id_lookup_resolve(const id_lookup *l, unsigned char *refs, uint64_t n, uint64_t *dangling,
                       uint64_t *first_dangling, const gch_parallel *par)
{
    if (n && l->sorted && l->index.count == 0) {
        /* No objects (so no id array): every id is absent. Index k is written
         * at 4k, below the id still to read at 8k. */
        uint64_t first;
        memcpy(&first, refs, sizeof first);
        for (uint64_t k = 0; k < n; k++) {
            uint32_t none = UINT32_MAX;
            memcpy(refs + k * 4, &none, sizeof none);
        }
        if (*dangling == 0)
            *first_dangling = first;
        *dangling += n;
        return;
    }
    range_job a = { l, refs, refs, n, 0, 0 };
    if (n >= 2 && gch_parallel_worth(par, n)) {
        /* The second half writes its results at the start of its own input, so
         * neither thread overwrites ids the other has yet to read. */
        uint64_t h = n / 2;
        range_job b = { l, refs + h * 8, refs + h * 8, n - h, 0, 0 };
        a.n = h;
        gch_run_two(par->workers, 1, resolve_thread, &a, &b);
        memmove(refs + h * 4, refs + h * 8, (size_t)(n - h) * 4);
        if (a.dangling == 0 && b.dangling)
            a.first = b.first;
        a.dangling += b.dangling;
    } else {
        resolve_range(&a);
    }
    if (a.dangling && *dangling == 0)
        *first_dangling = a.first;
    *dangling += a.dangling;
}
