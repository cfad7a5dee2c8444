/* The V8 reader's bulk parse (internal): the nodes and edges arrays of a
 * snapshot in memory, parsed at once into 32-bit values, by two threads
 * when the caller allows them.
 *
 * It only takes what V8 writes: non-negative integers below 2^32 in JSON
 * syntax, separated by commas, blanks between tokens. Anything else (and a
 * count of values other than the one expected) makes it give up without a
 * message: the reader then parses the same bytes the careful way, which says
 * what is wrong and where.
 */
#ifndef GCHEAP_V8_BULK_H
#define GCHEAP_V8_BULK_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/reader.h"
#include "threading.h"

/* One integer list: the bytes after its '[' up to its ']' (at end). */
typedef struct v8_list {
    const unsigned char *begin, *end;
    uint32_t *out;   /* room for exactly `count` values, or NULL: */
    size_t count;
    /* without out, rows receives the values, row_len to a row, a few
     * thousand rows at a time, on the calling thread, as they are parsed; it
     * returns 0 to stop the parse (v8_bulk_parse then returns 0). */
    int (*rows)(void *ctx, const uint32_t *vals, size_t nrows);
    void *rows_ctx;
    unsigned row_len;
} v8_list;

/* Parses nodes then edges (each into out, or rows; a second thread only
 * takes part of edges that go into out). Returns 1 when each list
 * holds exactly its count of values, 0 otherwise (the outs are then
 * partly written). par: whether a second thread may take part of the edges;
 * opts: its release callback is given the parsed bytes (from either thread). */
int v8_bulk_parse(const v8_list *nodes, const v8_list *edges, const gch_parallel *par,
                  const gch_load_options *opts);

/* Parses one list (into out, or rows) on the calling thread. Returns 1
 * when it holds exactly its count of values, 0 otherwise. */
int v8_bulk_parse_list(const v8_list *l, const gch_load_options *opts);

/* The byte just after the last digit of value `index` of a list that
 * v8_bulk_parse accepted (begin: the byte after its '['). */
const unsigned char *v8_bulk_value_end(const unsigned char *begin, size_t index);

/* Whether [begin, end) (after a '[', up to its ']') is a list of integers
 * below 2^32 as v8_bulk_parse takes them: then the careful path's check of
 * it (gch_json_skip_value) would pass too. */
int v8_bulk_is_list(const unsigned char *begin, const unsigned char *end);

/* The end (just after the closing quote) of the JSON string whose opening
 * quote is at p, when it has no escape and no control byte before its
 * closing quote, which lies before end; else NULL. */
const unsigned char *v8_bulk_plain_string(const unsigned char *p, const unsigned char *end);

#endif
