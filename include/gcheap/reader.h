/* gcheap/reader.h - the readers' contract: what every reader of a format
 * (src/formats/NAME/) is given and how it is called. Below gcheap/load.h,
 * which detects the format and dispatches through the reader table
 * (src/load/readers.c); a reader includes this header, never load's
 * internals.
 */
#ifndef GCHEAP_READER_H
#define GCHEAP_READER_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"

/* Options given to every reader. */
typedef struct gch_load_options {
    int skip_refs;      /* do not store references (type histograms need none) */
    /* With skip_refs, .gclog only (other formats ignore it): do not store the
     * objects either, only count them per type. Each heap then has
     * histogram_only set, object_count 0 and exact type_objects, type_bytes,
     * total_size and anomalies (duplicates, undeclared types, roots on absent
     * objects): what gch_histogram without a mask needs, nothing that reads
     * objects. Memory: the types, plus 1-2 bytes an object while ids
     * increase (a hash set of the ids from the first id that does not). */
    int histogram_only;
    int v8_raw;         /* V8: the graph as V8 wrote it (older DevTools' rules) instead of the
                           current DevTools' (folded sizes, shape names, distances) */
    int skip_labels;    /* HPROF, V8: do not store reference labels (field names, "[12]": 4 bytes
                           a reference); HPROF: nor look up thread names for root labels (three
                           walks over the dump); root labels then name threads by number */
    int size_buckets;   /* .gcdump: keep "(Bytes > 10K)" types apart */
    int keep_modules;   /* .gcdump: record module names */
    /* Called now and then while reading, with the number of input bytes consumed
     * so far (NULL for none). */
    void (*progress)(void *ctx, uint64_t bytes_read);
    void *progress_ctx;
    /* .gclog: read the input on the calling thread between blocks instead of
     * on a reader thread ahead of the parser. Faster for regular files (their
     * read is a quick page-cache copy, and a third thread slows the two that
     * parse); slower for pipes, where reading ahead overlaps the writer. */
    int no_read_ahead;
    /* .gclog from memory (gch_load_buffer): called, in order, with each part of
     * the buffer that the reader has parsed and will not read again, so that a
     * caller who mapped a file can drop those pages from memory (NULL for
     * none). The bytes must stay readable until the load returns all the same.
     * For gzip input, the compressed parts already inflated are released, from
     * the thread that decompresses (possibly the reader thread). */
    void (*release)(void *ctx, const void *data, size_t size);
    void *release_ctx;
    /* HPROF (64-bit JVMs): how object sizes count references. 0 decides from
     * the dump (the gaps between object addresses), GCH_HPROF_REFS_COMPRESSED
     * takes 4-byte references and class pointers (-XX:+UseCompressedOops),
     * GCH_HPROF_REFS_WIDE 8-byte references (-XX:-UseCompressedOops). */
    int hprof_compressed_refs;
    /* Threads the load may use, the caller's included: 0 (the default) as
     * many as the machine has processors, at most 2 (the code splits work in
     * two); 1 creates no thread at all (the .gclog reader then reads in line
     * and parses in one piece); more than 2 is taken as 2. */
    unsigned threads;
    /* HPROF from memory (gch_load_buffer, gch_read_hprof_buffer, not gzip):
     * record where the elements of every primitive array lie in the buffer,
     * and the value array and coder of every java.lang.String, in the
     * heap's payloads table (gcheap/heap.h). Nothing is copied: the caller
     * reads the bytes from the buffer, or from the file at the same offsets.
     * Costs 32 bytes a primitive array and String; 0 (the default) records
     * nothing. Ignored (payloads_kept stays 0) by the other formats, for
     * gzip input and by gch_load, whose buffer is gone when it returns. */
    int keep_payloads;
    /* HPROF with keep_payloads: also record a GCH_PAYLOAD_ARRAY entry (elem
     * GCH_ELEM_OBJECT) for every object array, a GCH_PAYLOAD_INSTANCE entry
     * (where its field bytes lie) for every instance of the classes named
     * in field_classes or of their subclasses, and the heap's field table
     * (gch_heap.fields), so that gch_instance_field can read the fields.
     * field_classes: Java names ("java.util.HashMap"), NULL-terminated;
     * NULL means every class. 32 bytes an entry. */
    int keep_fields;
    const char *const *field_classes;
} gch_load_options;

#define GCH_HPROF_REFS_AUTO 0
#define GCH_HPROF_REFS_COMPRESSED 1
#define GCH_HPROF_REFS_WIDE 2
/* .gclog: the longest line accepted, in bytes before its newline. A record
 * is one line; this one holds an object with over 3.9 million 64-bit
 * references (7 million 32-bit ones), far more than a .NET Compact
 * Framework heap (tens of MB at most) can give one object. A longer line is
 * an error (GCH_EFORMAT, "line longer than 67108864 bytes", with its line
 * number), so that no input makes the reader buffer more than this for a
 * line: reading /dev/zero or a file of zeros stops after its first block. */
#define GCH_GCLOG_MAX_LINE ((size_t)64 << 20)

/* Reads up to cap bytes into buf. Returns the count read, 0 at end of input,
 * or -1 on error (the reader then fails with GCH_EIO). Calls never overlap,
 * but the .gclog reader may make them from a thread of its own (reading
 * ahead), while the progress callback runs on the caller's thread; all calls
 * have returned when the load returns. */
typedef long long (*gch_read_fn)(void *ctx, void *buf, size_t cap);

typedef struct gch_source {
    gch_read_fn read;
    void *ctx;
} gch_source;

/* The two shapes of a reader's entry point: a buffer reader reads size bytes
 * at data (see gch_load_buffer); a streaming reader pulls its input from src
 * and never holds it whole. On success *out is a dump the caller frees with
 * gch_dump_free; on failure *out is NULL and err says what is wrong. */
typedef gch_status (*gch_buffer_reader_fn)(const void *data, size_t size,
                                          const gch_load_options *opts, gch_dump **out,
                                          gch_error *err);
typedef gch_status (*gch_stream_reader_fn)(const gch_source *src, const gch_load_options *opts,
                                          gch_dump **out, gch_error *err);

#endif
