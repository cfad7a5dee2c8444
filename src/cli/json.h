/* The program's one json writer: every json text gcheap prints is written
 * through it (reports, info, the CI gates' "limits", nested section members).
 *
 * It appends to a strbuf and places the commas itself: a value inside an
 * object takes a key, inside an array (or at the top) key is NULL. Strings are
 * escaped by the ESC_JSON rule of text.h. Numbers are exact 64-bit integers;
 * object ids are strings (they may exceed 2^53). */
#ifndef GCHEAP_CLI_JSON_H
#define GCHEAP_CLI_JSON_H

#include <stdint.h>

#include "text.h"

#define JSON_MAX_DEPTH 32

typedef struct json_writer {
    strbuf *out;
    int depth;
    unsigned char has_items[JSON_MAX_DEPTH];
} json_writer;

/* A writer at the top level of out (one value follows). */
void json_init(json_writer *w, strbuf *out);
/* A writer that continues the members of an object already open in out;
 * after_first: members were written before (the first one takes a comma). */
void json_init_members(json_writer *w, strbuf *out, int after_first);

void json_begin_object(json_writer *w, const char *key);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w, const char *key);
void json_end_array(json_writer *w);

void json_string(json_writer *w, const char *key, const char *value);
void json_u64(json_writer *w, const char *key, uint64_t value);
/* A signed value given as sign and magnitude (exact for every 64-bit pair). */
void json_signed(json_writer *w, const char *key, int negative, uint64_t magnitude);
void json_bool(json_writer *w, const char *key, int value);
void json_null(json_writer *w, const char *key);
/* A value already in json syntax (a number with a fraction, or text built by
 * another json_writer). */
void json_raw(json_writer *w, const char *key, const char *json_text);

#endif
