/* Per-type histogram: see include/gcheap/histogram.h. */
#include "gcheap/histogram.h"

#include "gcheap/alloc.h"

gch_status gch_histogram(const gch_heap *heap, const uint8_t *mask, gch_type_row **rows,
                         uint32_t *nrows, gch_error *err)
{
    *rows = NULL;
    *nrows = 0;
    uint32_t nt = heap->type_count;
    gch_type_row *all = gch_calloc(nt ? nt : 1, sizeof *all);
    if (!all)
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    /* A V8 snapshot as DevTools shows it: its Summary leaves out the
     * objects of size 0 (HeapSnapshot.ts buildAggregates, :1919-1967). */
    const int skip_empty = heap->v8_pseudo != NULL;
    if (!mask && heap->type_objects && !skip_empty) {
        /* Every object: the builder's per-type totals. */
        for (uint32_t t = 0; t < nt; t++) {
            all[t].count = heap->type_objects[t];
            all[t].bytes = heap->type_bytes[t];
        }
    } else {
        for (uint32_t i = 0; i < heap->object_count; i++) {
            if ((mask && !mask[i]) || (skip_empty && heap->object_size32[i] == 0))
                continue;
            gch_type_row *r = &all[heap->object_type[i]];
            r->count++;
            r->bytes += gch_object_size(heap, i);
        }
    }
    uint32_t n = 0;
    for (uint32_t t = 0; t < nt; t++) {
        if (!all[t].count)
            continue;
        all[n] = all[t];
        all[n].type = t;
        n++;
    }
    *rows = all;
    *nrows = n;
    return GCH_OK;
}
