/* gcheap/histogram.h - per-type counts and bytes (what `stat` reports). */
#ifndef GCHEAP_HISTOGRAM_H
#define GCHEAP_HISTOGRAM_H

#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"

typedef struct gch_type_row {
    uint32_t type;   /* type index (types are unique by name within a heap) */
    uint64_t count;
    uint64_t bytes;  /* exact: never exceeds heap->total_size */
} gch_type_row;

/* Counts objects and bytes per type, over all objects (mask NULL) or over those
 * with mask[i] != 0; for a V8 snapshot read as DevTools shows it
 * (heap->v8_pseudo set), only objects of size > 0, as its Summary counts. *rows receives one row per type with at least one object,
 * in type order, allocated with gch_malloc (free with gch_free); *nrows its length.
 * GCH_ENOMEM on failure. */
gch_status gch_histogram(const gch_heap *heap, const uint8_t *mask, gch_type_row **rows,
                         uint32_t *nrows, gch_error *err);

#endif
