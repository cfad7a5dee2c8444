/* objsize: the closure of a set of start objects; see gch_objsize in
 * include/gcheap/graph.h. An iterative DFS with a growing explicit stack and a
 * visited bit per object. */
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "graph_internal.h"

gch_status gch_objsize(const gch_heap *heap, const uint32_t *starts, size_t start_count,
                       uint64_t *count, uint64_t *bytes, uint64_t *per_type_count,
                       uint64_t *per_type_bytes, gch_error *err)
{
    const uint32_t n = heap->object_count;
    if (!heap->refs_loaded)
        return gch_error_set(err, GCH_EINVAL, "objsize needs references, which were not loaded");
    for (size_t k = 0; k < start_count; k++)
        if (starts[k] >= n)
            return gch_error_set(err, GCH_EINVAL, "object index %u out of range",
                                 (unsigned)starts[k]);
    if (per_type_count && heap->type_count)
        memset(per_type_count, 0, (size_t)heap->type_count * sizeof *per_type_count);
    if (per_type_bytes && heap->type_count)
        memset(per_type_bytes, 0, (size_t)heap->type_count * sizeof *per_type_bytes);

    uint8_t *seen = gch_calloc(((size_t)n + 7) / 8 + 1, 1);
    size_t cap = 256, sp = 0;
    uint32_t *stack = gch_reallocarray(NULL, cap, sizeof *stack);
    if (!seen || !stack)
        goto nomem;

    uint64_t c = 0, b = 0;
    size_t next_start = 0;
    for (;;) {
        if (!sp) {
            /* Seed the next unseen start (one at a time keeps the stack small). */
            while (next_start < start_count && gch__bit_get(seen, starts[next_start]))
                next_start++;
            if (next_start == start_count)
                break;
            gch__bit_set(seen, starts[next_start]);
            stack[sp++] = starts[next_start++];
        }
        uint32_t o = stack[--sp];
        uint64_t size = gch_object_size(heap, o);
        c++;
        b += size;
        if (per_type_count)
            per_type_count[heap->object_type[o]]++;
        if (per_type_bytes)
            per_type_bytes[heap->object_type[o]] += size;
        for (uint32_t e = heap->out_start[o]; e < heap->out_start[o + 1]; e++) {
            uint32_t t = heap->out_target[e];
            if (gch__bit_get(seen, t))
                continue;
            if (!gch__stack_room(&stack, &cap, sp))
                goto nomem;
            gch__bit_set(seen, t);
            stack[sp++] = t;
        }
    }
    gch_free(seen);
    gch_free(stack);
    if (count)
        *count = c;
    if (bytes)
        *bytes = b;
    return GCH_OK;

nomem:
    gch_free(seen);
    gch_free(stack);
    return gch_error_set(err, GCH_ENOMEM, "out of memory computing objsize");
}
