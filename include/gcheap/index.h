/* gcheap/index.h - the persistent index: a dump's model, parsed once, kept in
 * one file (.gcx) that later runs map and use in place.
 *
 * The layout is docs/index-format.md: a header, one chunk per array, each
 * with its own checksum, and a table of contents (at the end of the files
 * this library writes; a reader takes it wherever the header says). The
 * library writes an index through callbacks (gch_index_io) and reads one
 * from memory the caller holds (a mapped
 * file): it never opens, maps or names files itself. What identifies the dump
 * an index was built from (its size, modification time, a hash of its head
 * and tail, the load options that change meaning) is recorded by the program
 * in a gch_index_stamp and compared by the program.
 *
 * Reading is checked: gch_index_open checks the header and the table of
 * contents (every chunk inside the file, of the size its counts say);
 * gch_index_load checks each chunk it uses (its checksum, then every value in
 * bounds: references name objects, offsets rise, ids sorted where claimed)
 * before the dump points at it, so that a command pays only for the chunks it
 * reads and a corrupted or hostile index is an error, never a wrong answer, a
 * crash or an allocation the file cannot back.
 *
 * Threads: an index is used by one thread at a time. */
#ifndef GCHEAP_INDEX_H
#define GCHEAP_INDEX_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/analysis.h"
#include "gcheap/error.h"
#include "gcheap/heap.h"

/* The format version this library writes and reads (docs/index-format.md,
 * "Versioning"). */
#define GCH_INDEX_VERSION 2u

/* The load options that change the model built from a dump (--input-format,
 * --size-buckets, --module, --hprof-refs, --v8-raw): an index, like a dump a
 * session keeps, serves only a load with the same ones. */
typedef struct gch_index_options {
    uint32_t input_format, size_buckets, module, hprof_refs, v8_raw;
} gch_index_options;

/* What identifies the dump an index was built from, and how it was loaded.
 * The program fills it; the library stores it and hands it back. */
typedef struct gch_index_stamp {
    uint64_t dump_size;          /* bytes of the dump file as stored (compressed or not) */
    int64_t mtime_sec, mtime_nsec;
    uint64_t head_hash, tail_hash; /* gch_index_hash of its first and last bytes */
    gch_index_options options;
} gch_index_stamp;

/* The checksum of the format (XXH64 with seed 0): of chunks, and of a dump's
 * head and tail in its stamp. */
uint64_t gch_index_hash(const void *data, size_t n);

/* Where gch_index_write puts the file: the caller's output, reached through
 * two callbacks on ctx, each returning 0 when all n bytes were written, else
 * nonzero.
 * - write appends n bytes: the file is written from offset 0 on, in order
 *   (64 bytes the header will fill, the chunks, the table of contents);
 * - write_at writes n bytes at offset, inside what write has already
 *   written: called once, last of all, for the header at offset 0 (its
 *   checksums and the table's place are known only at the end). NULL
 *   for an output that cannot seek (a pipe): then the chunks are only
 *   checksummed as they come and the whole file is appended at the end,
 *   header first (the same bytes, without the overlap).
 * They are never called at once; with two threads (the analysis's threads
 * option, gch_analysis_options) the appends run on a thread of the
 * library's while the caller's computes, so ctx must not be used by anyone
 * else until gch_index_write returns. data is the library's, valid during
 * the call only. After a nonzero return nothing more is written and
 * gch_index_write returns GCH_EIO: the output is then incomplete (the
 * caller discards it, as it does after any error). */
typedef struct gch_index_io {
    int (*write)(void *ctx, const void *data, size_t n);
    int (*write_at)(void *ctx, uint64_t offset, const void *data, size_t n);
    void *ctx;
} gch_index_io;

/* Writes the index of a's dump (loaded with references and labels) with
 * stamp and dump_name (the dump's file name, recorded for messages) through
 * io: the model, and what a computes for it (reverse references, the id
 * order, per view the dominator tree in preorder, the shortest-path tree and
 * the distances from the roots: computed now when a has not yet). Each
 * chunk is written (and checksummed) as soon as it is ready, in a fixed
 * order: the model's while the trees are computed; the bytes are the same
 * whatever the thread count. Memory: the chunks are the heap's and the
 * analysis's arrays (not copied) and a few arrays of the writer's own (sizes,
 * types and distances in preorder, the id order), each freed once written
 * (without write_at: before it returns).
 * GCH_EIO when a callback failed, GCH_ENOMEM, GCH_EINVAL for a dump loaded
 * without references, GCH_ELIMIT for too many sections; any error the
 * analysis met computing. */
gch_status gch_index_write(gch_analysis *a, const gch_index_stamp *stamp,
                           const char *dump_name, const gch_index_io *io, gch_error *err);

typedef struct gch_index gch_index;

/* Reads the header and table of contents of the index in size bytes at data,
 * which must stay readable and unchanged until gch_index_close (and until
 * every dump loaded from it is freed). GCH_EFORMAT with err->offset when it is
 * not an index or is malformed there. */
gch_status gch_index_open(const void *data, size_t size, gch_index **out, gch_error *err);

/* The stamp and dump name recorded in the index. */
const gch_index_stamp *gch_index_stamp_of(const gch_index *ix);
const char *gch_index_dump_name(const gch_index *ix);

/* 1 when data starts with the index signature (n >= 8). */
int gch_index_is_index(const void *data, size_t n);

/* gch_index_load's flags. LABELS: reference labels too. REFS_LATER: the
 * reference chunks are not read (nor checked) now: the heap's out_start,
 * out_target and out_label stay NULL (refs_loaded 1) until an analysis
 * that must compute from the references asks the dump's source for them
 * (gch_analysis_source.refs), for a caller that reads references only
 * through a gch_analysis (its trees, paths, distances). With LABELS, a heap
 * that has labels reads its references now all the same (a caller shows
 * the labels of the heap it holds: retainers' field names). NO_TYPE_TOTALS:
 * the per-type totals are neither read nor checked against the objects
 * (type_objects and type_bytes stay NULL; gch_heap_histogram counts the
 * objects), for a caller that prints no histogram; histogram_only reads
 * them all the same. REVERSE: the reverse references' chunks are checked
 * with the references, on another thread (for a caller that asks the
 * analysis for them next: `refs`); their errors are not the load's (the
 * analysis then computes the reverse references, as without the flag). */
#define GCH_INDEX_LABELS         0x1u
#define GCH_INDEX_REFS_LATER     0x2u
#define GCH_INDEX_NO_TYPE_TOTALS 0x4u
#define GCH_INDEX_REVERSE        0x8u

/* The dump an index holds, its arrays pointing into the index's memory.
 * histogram_only: only the type totals and anomalies, as
 * gch_load_options.histogram_only loads them (no object, reference nor root
 * chunk is read). flags: GCH_INDEX_* bits. The dump's `source` serves
 * the index's derived chunks (dominator trees, paths, reverse references, id
 * order) to the analysis made of it, each checked on first use. On success
 * the dump owns ix (the caller no longer closes it) and gch_dump_free closes
 * it, then calls release(release_ctx) (the caller's unmapping). */
gch_status gch_index_load(gch_index *ix, int histogram_only, unsigned flags,
                          void (*release)(void *ctx), void *release_ctx, gch_dump **out,
                          gch_error *err);

/* How many threads the index may use to check two big chunks at once on
 * their first use, as gch_task_start counts them (0: one per core; 1, the
 * default: none beside the caller's): a command's --threads. The checks and
 * their errors are the same either way. */
void gch_index_set_threads(gch_index *ix, unsigned threads);

/* Checks every chunk of the index (checksums and bounds), as loading them all
 * would: GCH_OK, or what is wrong first. */
gch_status gch_index_check(gch_index *ix, gch_error *err);

/* Chunks, bytes of the file. */
size_t gch_index_chunk_count(const gch_index *ix);

void gch_index_close(gch_index *ix);

#endif
