/* The reader's state, shared by the files that use chunks. */
#ifndef GCH_INDEX_READ_H
#define GCH_INDEX_READ_H

#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/index.h"
#include "index_format.h"

struct gch_index {
    const unsigned char *data;
    size_t size;
    uint64_t toc_offset;
    size_t chunk_count;
    const gcx_toc *toc;      /* in data (8-aligned, checked) */
    gcx_dump_rec rec;
    gch_index_stamp stamp;
    const char *dump_name;
    uint32_t heap_count;
    uint32_t *heap_first;    /* the chunks of heap h: by_heap[heap_first[h] .. heap_first[h+1]) */
    uint32_t *by_heap;
    unsigned char *checked;  /* per chunk: 1 checksum verified, 2 values checked */
};

#define GCX_SUMMED 1u
#define GCX_VALUES 2u

/* The chunk tag of heap with elem-byte elements, count of them (UINT64_MAX:
 * any count), its checksum verified on first use: *out points at it (NULL
 * when absent and not required: GCH_OK), *pos its table position (may be
 * NULL). Errors name the chunk and its offset. */
gch_status gcx_chunk(gch_index *ix, uint32_t heap, uint32_t tag, uint32_t elem, uint64_t count,
                     int required, const void **out, uint32_t *pos, gch_error *err);

#endif
