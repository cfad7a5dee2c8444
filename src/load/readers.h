/* readers.h - the reader table: one row per format (internal to src/load).
 *
 * Everything the load layer knows about a format is its row in
 * src/load/readers.c: the name (as --input-format and the json `format`
 * field spell it), the signature test over the first bytes, the buffer
 * reader, the streaming reader (or NULL: the input is read whole into memory
 * first) and the load options the reader understands. Detection, dispatch,
 * gch_format_name and gch_format_parse all read the table; nothing else
 * lists the formats. Adding a format: docs/conventions.md, "Adding a format".
 */
#ifndef GCH_READERS_H
#define GCH_READERS_H

#include <stddef.h>

#include "gcheap/load.h"

/* What a signature test says about the first n bytes of an input. */
typedef enum gch_signature {
    GCH_SIG_NO = 0, /* not this format */
    GCH_SIG_YES,    /* this format's signature */
    /* The whole input (n bytes) is shorter than the signature and starts
     * like it: a dump cut short, which its reader then reports at an offset
     * (a .gclog message about an unknown record would mislead). Weaker than
     * any format's GCH_SIG_YES. */
    GCH_SIG_CUT
} gch_signature;

/* The load options a reader understands (gch_reader.options): the others
 * are ignored by it. skip_refs, progress and threads are understood by all. */
enum {
    GCH_READS_HISTOGRAM_ONLY = 1u << 0, /* histogram_only */
    GCH_READS_SKIP_LABELS = 1u << 1,    /* skip_labels */
    GCH_READS_SIZE_BUCKETS = 1u << 2,   /* size_buckets */
    GCH_READS_KEEP_MODULES = 1u << 3,   /* keep_modules */
    GCH_READS_NO_READ_AHEAD = 1u << 4,  /* no_read_ahead */
    GCH_READS_RELEASE = 1u << 5,        /* release (from a buffer) */
    GCH_READS_HPROF_REFS = 1u << 6,     /* hprof_compressed_refs */
    GCH_READS_KEEP_PAYLOADS = 1u << 7,  /* keep_payloads (from a buffer) */
    GCH_READS_PAYLOADS_IN_HEAP = 1u << 8 /* keep_payloads, kept in the heap (no offsets
                                            into the input): from any input */
};

typedef struct gch_reader {
    gch_format format;
    const char *name;
    /* The signature test over the first n bytes (at most 64); NULL for the
     * one fallback format that takes whatever no other claims (gclog). */
    gch_signature (*signature)(const unsigned char *head, size_t n);
    /* A format forced with --input-format is refused from its first 64 bytes
     * when they lack the signature (binary formats: their reader's first
     * check is the signature, so there is no need to read the rest). */
    int refuse_unsigned;
    gch_buffer_reader_fn read_buffer;
    gch_stream_reader_fn read_stream; /* NULL: read the input whole, then read_buffer */
    unsigned options;                 /* GCH_READS_* */
} gch_reader;

/* The row of a format, NULL for GCH_FORMAT_AUTO or an unknown value. */
const gch_reader *gch_reader_of(gch_format format);

/* When the bytes start a JSON object whose first key is `key` (blanks
 * allowed around the tokens): the offset just past its ':', so that a test
 * may go on to the value; 0 otherwise. The signature tests of the JSON
 * formats are built on it (docs/architecture.md, "Detection"). */
size_t gch_json_first_key(const unsigned char *p, size_t n, const char *key);

#endif
