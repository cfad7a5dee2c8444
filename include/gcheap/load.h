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
#include "gcheap/reader.h" /* gch_source, gch_load_options: the readers' contract */

/* The formats, one per row of the reader table (src/load/readers.c, in this
 * order): adding a format adds its value here, its word to GCH_FORMAT_WORDS
 * and its row there (docs/conventions.md, "Adding a format"). */
typedef enum gch_format {
    GCH_FORMAT_AUTO = 0,
    GCH_FORMAT_GCLOG,
    GCH_FORMAT_GCDUMP,
    GCH_FORMAT_DART,
    GCH_FORMAT_V8,
    GCH_FORMAT_HPROF,
    GCH_FORMAT_RUBY,
    GCH_FORMAT_JSC
} gch_format;

/* The --input-format words of the formats, as help texts and messages list
 * them (a compile-time string, so that option tables stay constant; the
 * reader table's test checks it against the rows). */
#define GCH_FORMAT_WORDS "gclog, gcdump, dart, v8, hprof, ruby or jsc"

/* Name of a format ("gclog", ...) and the reverse; parse returns -1 if unknown. */
const char *gch_format_name(gch_format format);
int gch_format_parse(const char *name, gch_format *out);

/* Guesses the format from the first n bytes of a dump (n >= 32 is enough;
 * 64 are read), by each reader's signature test (src/load/readers.c):
 * "!FastSerialization" framing is gcdump, "dartheap" is Dart, "JAVA PROFILE 1.0."
 * is HPROF, a JSON object whose first key is "snapshot" (blanks allowed) a V8
 * heap snapshot, a JSON object whose first member is "address":"0x.. or
 * "type":"ROOT" a Ruby heap dump, one whose first key is "version" a
 * JavaScriptCore heap snapshot (JSON formats are told apart by the first object's keys:
 * docs/architecture.md, "Detection"), anything else gclog. gzip is not looked
 * through here: gch_load and gch_load_buffer decompress first. */
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
/* Ruby heap dumps (ObjectSpace.dump_all: one JSON object a line), streamed
 * from a source or parsed in place from a buffer; errors carry line
 * numbers. docs/ruby-format.md. */
gch_status gch_read_ruby(const gch_source *src, const gch_load_options *opts, gch_dump **out,
                         gch_error *err);
gch_status gch_read_ruby_buffer(const void *data, size_t size, const gch_load_options *opts,
                                gch_dump **out, gch_error *err);
/* JavaScriptCore heap snapshots (Safari Web Inspector, Bun): docs/jsc-format.md.
 * Streamed from a source (never held whole) or parsed from a buffer; errors
 * carry byte offsets. */
gch_status gch_read_jsc(const gch_source *src, const gch_load_options *opts, gch_dump **out,
                        gch_error *err);
gch_status gch_read_jsc_buffer(const void *data, size_t size, const gch_load_options *opts,
                               gch_dump **out, gch_error *err);
/* HPROF heap dumps (JAVA PROFILE 1.0.1/1.0.2, ART's 1.0.3): docs/hprof-format.md. */
gch_status gch_read_hprof_buffer(const void *data, size_t size, const gch_load_options *opts,
                                 gch_dump **out, gch_error *err);

#endif
