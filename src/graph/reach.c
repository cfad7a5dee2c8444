/* Reachability from the roots: see include/gcheap/graph.h.
 *
 * Breadth-first marking with a FIFO queue: the objects to visit are known well
 * in advance, so their reference ranges are prefetched (out_start DIST_START
 * objects ahead, then their out_target runs DIST_TARGETS ahead) and the random
 * accesses of a big heap overlap instead of stalling one after another. Marks
 * live in a bitset (n / 8 bytes, cache-resident where a byte array is not);
 * counts and bytes are summed in one sequential pass at the end.
 *
 * On big heaps (at least gch_tuning_knobs.parallel_min_refs references) two
 * threads mark: the deduplicated root objects are split in two halves, each
 * thread runs the same breadth-first walk from its half and claims an object
 * by an atomic fetch-or on its mark word, so every reachable object is queued
 * by exactly one thread. Both queues share one n-entry array: the first grows
 * up from slot 0, the second down from slot n - 1 (together they never hold
 * more than n objects). The marked set, and so every result, is the same as
 * with one thread. */
#include <string.h>
#include <threads.h>

#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "tuning.h"

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#define HAVE_ATOMIC_OR 1
#else
#define PREFETCH(p) ((void)(p))
#define HAVE_ATOMIC_OR 0
#endif

static inline unsigned lowest_bit(uint64_t m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(m);
#else
    unsigned k = 0;
    while (!(m & 1)) {
        m >>= 1;
        k++;
    }
    return k;
#endif
}

#define DIST_START 32
#define DIST_TARGETS 16

typedef struct mark_job {
    const uint32_t *start, *target;
    uint64_t *mark;
    uint32_t *q;  /* queue slot 0 */
    ptrdiff_t step; /* +1: grows up from q; -1: grows down from q */
    uint32_t head, tail;
} mark_job;

#define SLOT(j, k) ((j)->q[(ptrdiff_t)(k) * (j)->step])

/* One thread's breadth-first walk; claim() decides who queues an object. */
#define MARK_LOOP(j, CLAIM)                                                               \
    do {                                                                                  \
        const uint32_t *start = (j)->start, *target = (j)->target;                        \
        uint64_t *mark = (j)->mark;                                                       \
        uint32_t head = (j)->head, tail = (j)->tail;                                      \
        while (head < tail) {                                                             \
            if (tail - head > DIST_START)                                                 \
                PREFETCH(&start[SLOT(j, head + DIST_START)]);                             \
            if (tail - head > DIST_TARGETS)                                               \
                PREFETCH(&target[start[SLOT(j, head + DIST_TARGETS)]]);                   \
            uint32_t o = SLOT(j, head);                                                   \
            head++;                                                                       \
            for (uint32_t e = start[o], end = start[o + 1]; e < end; e++) {               \
                uint32_t t = target[e];                                                   \
                uint64_t bit = (uint64_t)1 << (t & 63);                                   \
                if (!(mark[t >> 6] & bit) && CLAIM(&mark[t >> 6], bit))                   \
                    SLOT(j, tail++) = t;                                                  \
            }                                                                             \
        }                                                                                 \
        (j)->head = head;                                                                 \
        (j)->tail = tail;                                                                 \
    } while (0)

static inline int claim_plain(uint64_t *w, uint64_t bit)
{
    *w |= bit;
    return 1;
}

static void mark_serial(mark_job *j) { MARK_LOOP(j, claim_plain); }

#if HAVE_ATOMIC_OR
static inline int claim_atomic(uint64_t *w, uint64_t bit)
{
    return !(__atomic_fetch_or(w, bit, __ATOMIC_RELAXED) & bit);
}

static int mark_thread(void *arg)
{
    mark_job *j = arg;
    MARK_LOOP(j, claim_atomic);
    return 0;
}
#endif

gch_status gch_live_set(const gch_heap *heap, int include_weak, uint8_t **live_out,
                        uint64_t *live_count, uint64_t *live_bytes, gch_error *err)
{
    uint32_t n = heap->object_count;
    size_t words = ((size_t)n + 63) / 64;
    uint8_t *live = live_out ? gch_malloc(n ? n : 1) : NULL;
    uint64_t *mark = gch_calloc(words ? words : 1, sizeof *mark);
    uint32_t *queue = gch_reallocarray(NULL, n ? n : 1, sizeof *queue);
    if ((live_out && !live) || !mark || !queue) {
        gch_free(live);
        gch_free(mark);
        gch_free(queue);
        if (live_out)
            *live_out = NULL;
        return gch_error_set(err, GCH_ENOMEM, "out of memory computing live objects");
    }
    /* Each object is queued at most once (marked when queued), so n slots suffice. */
    mark_job a = { heap->out_start, heap->out_target, mark, queue, 1, 0, 0 };
    for (uint32_t r = 0; r < heap->root_count; r++) {
        uint32_t o = heap->root_object[r];
        if (o == GCH_NONE || (!include_weak && (heap->root_flags[r] & GCH_ROOT_WEAK)))
            continue;
        uint64_t bit = (uint64_t)1 << (o & 63);
        if (mark[o >> 6] & bit)
            continue;
        mark[o >> 6] |= bit;
        queue[a.tail++] = o;
    }
    uint64_t count;
    int done = 0;
#if HAVE_ATOMIC_OR
    if (a.tail >= 2 && heap->ref_count >= gch_tuning_knobs.parallel_min_refs) {
        /* The second half of the roots moves to the top of the array (its
         * queue grows down; the order of the roots does not matter). */
        uint32_t h = a.tail / 2;
        mark_job b = a;
        b.q = queue + (n - 1);
        b.step = -1;
        b.tail = a.tail - h;
        memmove(queue + (n - b.tail), queue + h, (size_t)b.tail * sizeof *queue);
        a.tail = h;
        thrd_t t;
        if (thrd_create(&t, mark_thread, &b) == thrd_success) {
            mark_thread(&a);
            thrd_join(t, NULL);
            count = (uint64_t)a.tail + b.tail;
            done = 1;
        } else {
            /* No thread: one walk over the whole queue, put back together. */
            memmove(queue + a.tail, queue + (n - b.tail), (size_t)b.tail * sizeof *queue);
            a.tail += b.tail;
        }
    }
#endif
    if (!done) {
        mark_serial(&a);
        count = a.tail;
    }
    gch_free(queue);
    uint64_t bytes = 0;
    for (size_t w = 0; w < words && live; w++) {
        uint64_t m = mark[w];
        uint32_t base = (uint32_t)(w * 64);
        uint32_t lim = n - base < 64 ? n - base : 64;
        for (uint32_t k = 0; k < lim; k++) {
            uint8_t bit = (uint8_t)((m >> k) & 1);
            live[base + k] = bit;
            bytes += heap->object_size[base + k] & (0 - (uint64_t)bit);
        }
    }
    /* Totals only: visit the set bits. */
    for (size_t w = 0; w < words && !live; w++)
        for (uint64_t m = mark[w]; m; m &= m - 1)
            bytes += heap->object_size[w * 64 + lowest_bit(m)];
    gch_free(mark);
    if (live_out)
        *live_out = live;
    if (live_count)
        *live_count = count;
    if (live_bytes)
        *live_bytes = bytes;
    return GCH_OK;
}
