/* json/json_tokenizer.h - a streaming JSON tokenizer for the JSON-based
 * readers (V8 heap snapshots today; any format under src/formats/ may use it:
 * the layer src/json/ uses only util).
 *
 * It reads through a window over the input: the whole buffer when the input
 * is in memory, or a block refilled from a gch_source. Nothing is recursive
 * (nesting depth lives in a growable stack) and no token is limited by the
 * window: strings are copied out in runs, numbers get a window refilled to at
 * least GCH_JSON_NUMBER_BYTES before they are read.
 */
#ifndef GCHEAP_JSON_TOKENIZER_H
#define GCHEAP_JSON_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"
#include "gcheap/reader.h"

#define GCH_JSON_NUMBER_BYTES 32 /* longer than any integer that fits 64 bits */

typedef struct gch_json_in {
    const unsigned char *p, *end; /* unread bytes of the window */
    const unsigned char *win;     /* start of the window */
    uint64_t win_offset;          /* input offset of win */
    const gch_source *src;        /* NULL when reading a buffer */
    unsigned char *buf;           /* the block (source mode) */
    size_t cap;
    int eof;                      /* the source returned 0 */
    const gch_load_options *opts;
    uint64_t next_progress;       /* input offset of the next progress call */
    const unsigned char *released; /* buffer mode: bytes before this were handed to release */
    gch_error *err;
    unsigned char *depth;         /* nesting stack of skip_value: '{' or '[' */
    size_t depth_cap;
} gch_json_in;

/* Opens a window over size bytes at data. */
void gch_json_init_buffer(gch_json_in *in, const void *data, size_t size, const gch_load_options *opts,
                       gch_error *err);
/* Opens a window over a source, read in blocks. */
gch_status gch_json_init_source(gch_json_in *in, const gch_source *src, const gch_load_options *opts,
                             gch_error *err);
void gch_json_free(gch_json_in *in);

/* Input offset of the next unread byte. */
static inline uint64_t gch_json_offset(const gch_json_in *in)
{
    return in->win_offset + (uint64_t)(in->p - in->win);
}

/* Fails with GCH_EFORMAT at input offset `at` (gch_error_at, the library's
 * one error at an offset). */
#define gch_json_fail_at(in, at, ...) gch_error_at((in)->err, (at), __VA_ARGS__)
/* Fails with GCH_EFORMAT at the offset of the next unread byte. */
#define gch_json_fail(in, ...) gch_json_fail_at((in), gch_json_offset(in), __VA_ARGS__)

/* Makes at least want bytes readable when the input has them (source mode:
 * moves the unread bytes to the front of the block and reads). Returns the
 * bytes readable, fewer than want only at the end of the input; -1 on a read
 * error (err is set). Also reports progress. */
long long gch_json_fill(gch_json_in *in, size_t want);

/* Skips whitespace; returns the next byte without consuming it, -1 at the end
 * of the input, -2 on a read error. */
int gch_json_peek(gch_json_in *in);
/* Skips whitespace and consumes the byte c, or fails naming what was expected. */
gch_status gch_json_expect(gch_json_in *in, int c, const char *what);

/* A growable byte buffer for decoded strings. */
typedef struct gch_json_text {
    char *s;
    size_t len, cap;
} gch_json_text;

/* Reads a JSON string (the next non-blank byte must be '"'), appending its
 * decoded UTF-8 bytes to out (NULL: only checked). \uXXXX escapes are decoded,
 * surrogate pairs joined, lone surrogates replaced by U+FFFD. */
gch_status gch_json_string(gch_json_in *in, gch_json_text *out);
/* Reads a non-negative integer (JSON syntax, no fraction or exponent). */
gch_status gch_json_uint(gch_json_in *in, uint64_t *out, const char *what);
/* Checks and skips one JSON value of any kind. */
gch_status gch_json_skip_value(gch_json_in *in);

/* Reads integers of a JSON array whose '[' was consumed: up to max values go
 * to out, *n receives how many; *closed becomes 1 when the ']' was read
 * (state: 0 before the first value, 1 after a value). */
gch_status gch_json_uint_batch(gch_json_in *in, int *state, uint64_t *out, size_t max, size_t *n, int *closed,
                         const char *what);

#endif
