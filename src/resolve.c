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
#include <threads.h>

#include "tuning.h"

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

/* Group prefetching: batches of GROUP references go through the three stages
 * one batch apart, each stage a tight loop over its batch. */
#define GROUP DIST

typedef struct sorted_batch {
    uint64_t id[GROUP];
    uint64_t b[GROUP];
    uint32_t lo[GROUP], hi[GROUP];
    uint32_t n;
} sorted_batch;

static void sorted_stage1(const id_index *ix, const unsigned char *src, uint64_t n, sorted_batch *s)
{
    s->n = (uint32_t)n;
    for (uint32_t x = 0; x < s->n; x++) {
        uint64_t id;
        memcpy(&id, src + (uint64_t)x * 8, sizeof id);
        uint64_t b = UINT64_MAX;
        if (id >= ix->min && id <= ix->max && ix->count) {
            b = (id - ix->min) >> ix->shift;
            PREFETCH(&ix->first[b]);
        }
        s->id[x] = id;
        s->b[x] = b;
    }
}

static void sorted_stage2(const id_index *ix, sorted_batch *s)
{
    for (uint32_t x = 0; x < s->n; x++) {
        uint32_t lo = 0, hi = 0;
        if (s->b[x] != UINT64_MAX) {
            lo = ix->first[s->b[x]];
            hi = ix->first[s->b[x] + 1];
            PREFETCH(&ix->ids[lo]);
        }
        s->lo[x] = lo;
        s->hi[x] = hi;
    }
}

static void resolve_sorted(range_job *j)
{
    const id_index *ix = &j->l->index;
    sorted_batch ring[3];
    const uint64_t n = j->n;
    uint64_t batches = (n + GROUP - 1) / GROUP;
    for (uint64_t g = 0; g < batches + 2; g++) {
        if (g < batches) {
            uint64_t at = g * GROUP;
            sorted_stage1(ix, j->src + at * 8, n - at < GROUP ? n - at : GROUP, &ring[g % 3]);
        }
        if (g >= 1 && g - 1 < batches)
            sorted_stage2(ix, &ring[(g - 1) % 3]);
        if (g >= 2) {
            sorted_batch *s = &ring[(g - 2) % 3];
            uint64_t at = (g - 2) * GROUP;
            for (uint32_t x = 0; x < s->n; x++)
                emit(j, at + x, search(ix->ids, s->lo[x], s->hi[x], s->id[x]), s->id[x]);
        }
    }
}

static void resolve_hashed(range_job *j)
{
    const id_lookup *l = j->l;
    const uint32_t *table = l->table;
    const uint64_t *ids = l->ids;
    const size_t mask = l->mask;
    uint64_t ring_id[RING];
    size_t ring_slot[RING];
    const uint64_t n = j->n;
    for (uint64_t k = 0; k < n + 2 * DIST; k++) {
        if (k < n) {
            size_t s = k & (RING - 1);
            uint64_t id;
            memcpy(&id, j->src + k * 8, sizeof id);
            size_t slot = gch_mix64(id) & mask;
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
    if (j->l->sorted)
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
                       uint64_t *first_dangling)
{
    range_job a = { l, refs, refs, n, 0, 0 };
    uint64_t min = gch_tuning_knobs.parallel_min_refs;
    thrd_t t;
    if (n >= 2 && n >= min) {
        /* The second half writes its results at the start of its own input, so
         * neither thread overwrites ids the other has yet to read. */
        uint64_t h = n / 2;
        range_job b = { l, refs + h * 8, refs + h * 8, n - h, 0, 0 };
        a.n = h;
        if (thrd_create(&t, resolve_thread, &b) == thrd_success) {
            resolve_range(&a);
            thrd_join(t, NULL);
        } else {
            resolve_range(&a);
            resolve_range(&b);
        }
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
