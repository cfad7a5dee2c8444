/* Reachability from the roots: see include/gcheap/graph.h.
 *
 * Breadth-first marking with a FIFO queue: the objects to visit are known well
 * in advance, so their reference ranges are prefetched (out_start DIST_START
 * objects ahead, then their out_target runs DIST_TARGETS ahead) and the random
 * accesses of a big heap overlap instead of stalling one after another. Marks
 * live in a bitset (n / 8 bytes, cache-resident where a byte array is not);
 * counts and bytes are summed in one sequential pass at the end.
 *
 * On big heaps (at least parallel_min_refs references, tuning.h), when the
 * caller allows two threads (gch_live_options.threads), two threads mark: the
 * deduplicated root objects are split in two halves, each thread runs the
 * same breadth-first walk from its half and claims an object by an atomic
 * fetch-or on its mark word, so every reachable object is queued by exactly
 * one thread. Every access to a mark word is atomic (relaxed), also the
 * test before the claim: C11 gives a plain read racing an atomic write no
 * meaning. Both queues share one n-entry array: the first grows up from slot
 * 0, the second down from slot n - 1 (together they never hold more than n
 * objects). The marked set, and so every result, is the same as with one
 * thread. */
#include <stdatomic.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "invariant.h"
#include "threading.h"

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
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

/* Mark words are atomic: with two threads one may test a word while the
 * other sets a bit in it. Relaxed order is enough (a mark guards no other
 * data: the object is queued by whoever set its bit, read-only input
 * otherwise); on x86-64 a relaxed load is a plain load, so the single-thread
 * walk pays nothing for it. */
typedef _Atomic uint64_t mark_word;

typedef struct mark_job {
    const uint32_t *start, *target;
    mark_word *mark;
    uint32_t *q;  /* queue slot 0 */
    ptrdiff_t step; /* +1: grows up from q; -1: grows down from q */
    uint32_t head, tail;
} mark_job;

#define SLOT(j, k) ((j)->q[(ptrdiff_t)(k) * (j)->step])

/* One thread's breadth-first walk; CLAIM decides who queues an object. */
#define MARK_LOOP(j, CLAIM)                                                               \
    do {                                                                                  \
        const uint32_t *start = (j)->start, *target = (j)->target;                        \
        mark_word *mark = (j)->mark;                                                      \
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
                mark_word *w = &mark[t >> 6];                                             \
                if (!(atomic_load_explicit(w, memory_order_relaxed) & bit) && CLAIM(w, bit)) \
                    SLOT(j, tail++) = t;                                                  \
            }                                                                             \
        }                                                                                 \
        (j)->head = head;                                                                 \
        (j)->tail = tail;                                                                 \
    } while (0)

/* The only walker: a plain read-modify-write (no locked instruction). */
static inline int claim_alone(mark_word *w, uint64_t bit)
{
    atomic_store_explicit(w, atomic_load_explicit(w, memory_order_relaxed) | bit,
                          memory_order_relaxed);
    return 1;
}

static void mark_serial(mark_job *j) { MARK_LOOP(j, claim_alone); }

/* One of two walkers: whoever sets the bit first queues the object. */
static inline int claim_shared(mark_word *w, uint64_t bit)
{
    return !(atomic_fetch_or_explicit(w, bit, memory_order_relaxed) & bit);
}

static int mark_thread(void *arg)
{
    mark_job *j = arg;
    MARK_LOOP(j, claim_shared);
    return 0;
}

gch_status gch_live_set(const gch_heap *heap, int include_weak, uint8_t **live_out,
                        uint64_t *live_count, uint64_t *live_bytes, gch_error *err)
{
    gch_live_options opts = { 0 };
    opts.include_weak = include_weak;
    return gch_live_set_ex(heap, &opts, live_out, live_count, live_bytes, err);
}

gch_status gch_live_set_ex(const gch_heap *heap, const gch_live_options *opts, uint8_t **live_out,
                           uint64_t *live_count, uint64_t *live_bytes, gch_error *err)
{
    static const gch_live_options defaults;
    if (!opts)
        opts = &defaults;
    const int include_weak = opts->include_weak;
    const gch_parallel par = gch_parallel_for(opts->threads);
    uint32_t n = heap->object_count;
    gch_assert_csr(heap->out_start, n, heap->ref_count, heap->out_target, n);
    size_t words = ((size_t)n + 63) / 64;
    uint8_t *live = live_out ? gch_malloc(n ? n : 1) : NULL;
    /* Zeroed memory is a valid all-zero atomic word on every platform the
     * library supports (lock-free 64-bit atomics, no hidden lock). */
    mark_word *mark = gch_calloc(words ? words : 1, sizeof *mark);
    uint32_t *queue = gch_reallocarray(NULL, n ? n : 1, sizeof *queue);
    if ((live_out && !live) || !mark || !queue) {
        gch_free(live);
        gch_free((void *)mark);
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
        if (atomic_load_explicit(&mark[o >> 6], memory_order_relaxed) & bit)
            continue;
        claim_alone(&mark[o >> 6], bit);
        queue[a.tail++] = o;
    }
    uint64_t count;
    int done = 0;
    if (a.tail >= 2 && gch_parallel_worth(&par, heap->ref_count)) {
        /* The second half of the roots moves to the top of the array (its
         * queue grows down; the order of the roots does not matter). */
        uint32_t h = a.tail / 2;
        mark_job b = a;
        b.q = queue + (n - 1);
        b.step = -1;
        b.tail = a.tail - h;
        memmove(queue + (n - b.tail), queue + h, (size_t)b.tail * sizeof *queue);
        a.tail = h;
        gch_thread t;
        if (gch_thread_start(&t, par.workers, mark_thread, &b)) {
            mark_thread(&a);
            gch_thread_join(&t);
            count = (uint64_t)a.tail + b.tail;
            done = 1;
        } else {
            /* No thread: one walk over the whole queue, put back together. */
            memmove(queue + a.tail, queue + (n - b.tail), (size_t)b.tail * sizeof *queue);
            a.tail += b.tail;
        }
    }
    if (!done) {
        mark_serial(&a);
        count = a.tail;
    }
    GCH_ASSERT(count <= n); /* each object queued at most once */
    gch_free(queue);
    uint64_t bytes = 0;
    for (size_t w = 0; w < words && live; w++) {
        uint64_t m = atomic_load_explicit(&mark[w], memory_order_relaxed);
        uint32_t base = (uint32_t)(w * 64);
        uint32_t lim = n - base < 64 ? n - base : 64;
        for (uint32_t k = 0; k < lim; k++) {
            uint8_t bit = (uint8_t)((m >> k) & 1);
            live[base + k] = bit;
            bytes += gch_object_size(heap, base + k) & (0 - (uint64_t)bit);
        }
    }
    /* Totals only: visit the set bits. */
    for (size_t w = 0; w < words && !live; w++)
        for (uint64_t m = atomic_load_explicit(&mark[w], memory_order_relaxed); m; m &= m - 1)
            bytes += gch_object_size(heap, w * 64 + lowest_bit(m));
    gch_free((void *)mark);
    if (live_out)
        *live_out = live;
    if (live_count)
        *live_count = count;
    if (live_bytes)
        *live_bytes = bytes;
    return GCH_OK;
}
