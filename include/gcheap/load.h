/* gcheap/load.h - reading dumps: format detection and the readers.
 *
 * The library reads through a callback, so the program decides where bytes come
 * from (a pipe, a file), or from a buffer the caller holds (a mapped file).
 * Text dumps (.gclog) from a callback are streamed in large blocks and never
 * held whole in memory; from a buffer they are parsed in place. Binary dumps
 * (.gcdump, Dart, HPROF) are decoded from one buffer with every offset, count and
 * varint checked.
 */
#ifndef GCHEAP_LOAD_H
#define GCHEAP_LOAD_H

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

typedef enum gch_format {
    GCH_FORMAT_AUTO = 0,
    GCH_FORMAT_GCLOG,
    GCH_FORMAT_GCDUMP,
    GCH_FORMAT_DART,
    GCH_FORMAT_V8,
    GCH_FORMAT_HPROF
} gch_format;

/* Name of a format ("gclog", ...) and the reverse; parse returns -1 if unknown. */
const char *gch_format_name(gch_format format);
int gch_format_parse(const char *name, gch_format *out);

/* Guesses the format from the first n bytes of a dump (n >= 32 is enough):
 * "!FastSerialization" framing is gcdump, "dartheap" is Dart, "JAVA PROFILE 1.0."
 * is HPROF, a JSON object whose first key is "snapshot" (blanks allowed) a V8
 * heap snapshot, gzip (1f 8b) is looked through, anything else gclog. */
gch_format gch_detect_format(const void *head, size_t n);

/* Reads a whole dump from src. format GCH_FORMAT_AUTO detects it from the first
 * bytes. On success *out is a dump the caller frees with gch_dump_free. On
 * failure *out is NULL and err says what is wrong: err->line (gclog) or
 * err->offset (binary formats) locates malformed input.
 *
 * gzip input (first bytes 1f 8b, any number of members) is decompressed on the
 * way, whatever the format: detection, format and readers see the
 * decompressed bytes, and (*out)->compression is "gzip". Corrupt or truncated
 * gzip data is GCH_EFORMAT with err->offset in the compressed input and a
 * message starting "gzip: "; it is reported before anything the reader inside
 * found. Input that no format claims and that cannot be a dump (an empty file,
 * an ELF core, a zip archive, ...) is GCH_EFORMAT "not a heap dump (looks like
 * ...)"; a format forced to gcdump or dart is refused from the first 64 bytes
 * when their signature is not there. */
gch_status gch_load(const gch_source *src, gch_format format, const gch_load_options *opts,
                    gch_dump **out, gch_error *err);

/* Reads a whole dump held in memory: size bytes at data, which must stay
 * readable and unchanged until the call returns (a mapped file is fine; the
 * library only reads it). Like gch_load otherwise: format GCH_FORMAT_AUTO
 * detects the format, *out is freed with gch_dump_free, and on failure *out is
 * NULL and err says what is wrong. .gclog text is parsed in place, without
 * copying it: the fastest way to read a regular file. */
gch_status gch_load_buffer(const void *data, size_t size, gch_format format,
                           const gch_load_options *opts, gch_dump **out, gch_error *err);

/* The readers, for callers that already know the format. The _buffer forms
 * read size bytes at data (see gch_load_buffer). */
gch_status gch_read_gclog(const gch_source *src, const gch_load_options *opts, gch_dump **out,
                          gch_error *err);
gch_status gch_read_gclog_buffer(const void *data, size_t size, const gch_load_options *opts,
                                 gch_dump **out, gch_error *err);
gch_status gch_read_gcdump_buffer(const void *data, size_t size, const gch_load_options *opts,
                                  gch_dump **out, gch_error *err);
/* V8 heap snapshots (.heapsnapshot JSON) are streamed from a source (never
 * held whole) or parsed in place from a buffer; errors carry byte offsets. */
gch_status gch_read_v8(const gch_source *src, const gch_load_options *opts, gch_dump **out,
                       gch_error *err);
gch_status gch_read_v8_buffer(const void *data, size_t size, const gch_load_options *opts,
                              gch_dump **out, gch_error *err);
gch_status gch_read_dart_buffer(const void *data, size_t size, const gch_load_options *opts,
                                gch_dump **out, gch_error *err);
/* HPROF heap dumps (JAVA PROFILE 1.0.1/1.0.2, ART's 1.0.3): docs/hprof-format.md. */
gch_status gch_read_hprof_buffer(const void *data, size_t size, const gch_load_options *opts,
                                 gch_dump **out, gch_error *err);

#endif
