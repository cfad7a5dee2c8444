/* The index's output as a stream (internal): chunks are handed over one at
 * a time as they become ready and written in the order they were added,
 * each checksummed as it goes, by a writer thread when there is one (else
 * at once, on the adding thread: the same bytes); the table of contents
 * follows the last chunk and the header is written last, at offset 0
 * (docs/index-format.md). Any thread may add or fill (under the stream's
 * mutex); one at a time writes. */
#ifndef GCH_INDEX_STREAM_H
#define GCH_INDEX_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"
#include "gcheap/index.h"

typedef struct gcx_stream gcx_stream;

/* A stream on io, with a writer thread when `threaded` (and the system gives
 * one). NULL when out of memory. */
gcx_stream *gcx_stream_new(const gch_index_io *io, unsigned workers, int threaded);

/* Adds chunk (tag, heap, view) of count elements of elem bytes at data,
 * which must stay unchanged until gcx_stream_finish/abort; alias + 1 names
 * an earlier chunk whose bytes this entry names too (no bytes written).
 * Returns 0 when the stream has failed (out of memory, or a write: then
 * nothing more is written). */
int gcx_stream_add(gcx_stream *s, uint32_t tag, uint16_t heap, uint16_t view, uint32_t elem,
                   const void *data, uint64_t count, size_t alias);

/* Places for n chunks, filled later (gcx_stream_fill), perhaps from other
 * threads and in any order: the writer waits at the first place not yet
 * filled, so the file's order is the places' whatever the timing. Returns
 * the first place's number (0 when the stream has failed). */
size_t gcx_stream_reserve(gcx_stream *s, size_t n);

/* Fills place k, as gcx_stream_add would add it; any thread. */
int gcx_stream_fill(gcx_stream *s, size_t k, uint32_t tag, uint16_t heap, uint16_t view,
                    uint32_t elem, const void *data, uint64_t count, size_t alias);

/* Hands buf (place k's bytes, allocated with gch_malloc) to the stream,
 * which frees it as soon as place k is written (or at the end, when it is
 * not written or must be written again: no write_at). Any thread. */
void gcx_stream_give(gcx_stream *s, size_t k, void *buf);

/* The tag, element size, count and data of chunk k (filled). */
void gcx_stream_chunk(gcx_stream *s, size_t k, uint32_t *tag, uint32_t *elem, uint64_t *count,
                      const void **data);

/* GCH_OK, or what stopped the stream so far (GCH_EIO, GCH_ENOMEM). */
gch_status gcx_stream_status(gcx_stream *s);

/* Waits for the chunks to be written, then writes the table of contents and
 * the header; frees s. GCH_OK, GCH_EIO or GCH_ENOMEM (with err). */
gch_status gcx_stream_finish(gcx_stream *s, gch_error *err);

/* Stops writing (what was written stays incomplete) and frees s. */
void gcx_stream_abort(gcx_stream *s);

#endif
