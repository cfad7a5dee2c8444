/* Reachability from the roots: see include/gcheap/graph.h.
 *
 * Breadth-first marking with a FIFO queue: the objects to visit are known well
 * in advance, so their reference ranges are prefetched (out_start DIST_START
 * objects ahead, then their out_target runs DIST_TARGETS ahead) and the random
 * accesses of a big heap overlap instead of stalling one after another. Marks
 * live in a bitset (n / 8 bytes, cache-resident where a byte array is not);
 * counts and bytes are summed in one sequential pass at the end. */
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/graph.h"

#if defined(__GNUC__)
#define PREFETCH(p) __builtin_prefetch(p)
#else
#define PREFETCH(p) ((void)(p))
#endif

#define DIST_START 32
#define DIST_TARGETS 16

gch_status gch_live_set(const gch_heap *heap, int include_weak, uint8_t **live_out,
                        uint64_t *live_count, uint64_t *live_bytes, gch_error *err)
{
    uint32_t n = heap->object_count;
    size_t words = ((size_t)n + 63) / 64;
    uint8_t *live = gch_malloc(n ? n : 1);
    uint64_t *mark = gch_calloc(words ? words : 1, sizeof *mark);
    uint32_t *queue = gch_reallocarray(NULL, n ? n : 1, sizeof *queue);
    if (!live || !mark || !queue) {
        gch_free(live);
        gch_free(mark);
        gch_free(queue);
        *live_out = NULL;
        return gch_error_set(err, GCH_ENOMEM, "out of memory computing live objects");
    }
    const uint32_t *start = heap->out_start, *target = heap->out_target;
    /* Each object is queued at most once (marked when queued), so n slots suffice. */
    uint32_t head = 0, tail = 0;
    for (uint32_t r = 0; r < heap->root_count; r++) {
        uint32_t o = heap->root_object[r];
        if (o == GCH_NONE || (!include_weak && (heap->root_flags[r] & GCH_ROOT_WEAK)))
            continue;
        uint64_t bit = (uint64_t)1 << (o & 63);
        if (mark[o >> 6] & bit)
            continue;
        mark[o >> 6] |= bit;
        queue[tail++] = o;
    }
    while (head < tail) {
        if (tail - head > DIST_START)
            PREFETCH(&start[queue[head + DIST_START]]);
        if (tail - head > DIST_TARGETS)
            PREFETCH(&target[start[queue[head + DIST_TARGETS]]]);
        uint32_t o = queue[head++];
        for (uint32_t e = start[o], end = start[o + 1]; e < end; e++) {
            uint32_t t = target[e];
            uint64_t bit = (uint64_t)1 << (t & 63);
            if (!(mark[t >> 6] & bit)) {
                mark[t >> 6] |= bit;
                queue[tail++] = t;
            }
        }
    }
    gch_free(queue);
    uint64_t bytes = 0;
    for (size_t w = 0; w < words; w++) {
        uint64_t m = mark[w];
        uint32_t base = (uint32_t)(w * 64);
        uint32_t lim = n - base < 64 ? n - base : 64;
        for (uint32_t k = 0; k < lim; k++) {
            uint8_t bit = (uint8_t)((m >> k) & 1);
            live[base + k] = bit;
            bytes += heap->object_size[base + k] & (0 - (uint64_t)bit);
        }
    }
    gch_free(mark);
    *live_out = live;
    if (live_count)
        *live_count = tail;
    if (live_bytes)
        *live_bytes = bytes;
    return GCH_OK;
}
