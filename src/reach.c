/* Reachability from the roots: see include/gcheap/graph.h. */
#include "gcheap/alloc.h"
#include "gcheap/graph.h"

gch_status gch_live_set(const gch_heap *heap, int include_weak, uint8_t **live_out,
                        uint64_t *live_count, uint64_t *live_bytes, gch_error *err)
{
    uint32_t n = heap->object_count;
    uint8_t *live = gch_calloc(n ? n : 1, 1);
    uint32_t *stack = gch_reallocarray(NULL, n ? n : 1, sizeof *stack);
    if (!live || !stack) {
        gch_free(live);
        gch_free(stack);
        *live_out = NULL;
        return gch_error_set(err, GCH_ENOMEM, "out of memory computing live objects");
    }
    /* Each object is pushed at most once (marked when pushed), so n slots suffice. */
    uint32_t top = 0;
    uint64_t count = 0, bytes = 0;
    for (uint32_t r = 0; r < heap->root_count; r++) {
        uint32_t o = heap->root_object[r];
        if (o == GCH_NONE || live[o] || (!include_weak && (heap->root_flags[r] & GCH_ROOT_WEAK)))
            continue;
        live[o] = 1;
        stack[top++] = o;
    }
    while (top) {
        uint32_t o = stack[--top];
        count++;
        bytes += heap->object_size[o];
        for (uint32_t e = heap->out_start[o]; e < heap->out_start[o + 1]; e++) {
            uint32_t t = heap->out_target[e];
            if (!live[t]) {
                live[t] = 1;
                stack[top++] = t;
            }
        }
    }
    gch_free(stack);
    *live_out = live;
    if (live_count)
        *live_count = count;
    if (live_bytes)
        *live_bytes = bytes;
    return GCH_OK;
}
