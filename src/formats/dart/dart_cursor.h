/* dart_cursor.h - a bounds-checked reading cursor over a Dart heap snapshot.
 *
 * Internal to the library (and its unit tests). Every read checks the bytes
 * left; a failing read records GCH_EFORMAT in the error with has_offset = 1 and
 * offset = where the item being read starts, and leaves the cursor unchanged.
 * `what` names the item for the message ("class count", "reference 3 of
 * object 12", ...).
 */
#ifndef GCHEAP_DART_CURSOR_H
#define GCHEAP_DART_CURSOR_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"

/* The longest LEB128 encoding of a 64-bit value. */
#define GCH_DART_LEB_MAX_BYTES 10

typedef struct gch_dart_cursor {
    const unsigned char *data;
    size_t size;
    size_t pos;
    gch_error *err;
} gch_dart_cursor;

void gch_dart_cursor_init(gch_dart_cursor *c, const void *data, size_t size, gch_error *err);

static inline size_t gch_dart_remaining(const gch_dart_cursor *c) { return c->size - c->pos; }

/* Records a format error located at offset and returns GCH_EFORMAT (the
 * library's one error at an offset, gch_error_at). */
#define gch_dart_fail_at(c, offset, ...) gch_error_at((c)->err, (offset), __VA_ARGS__)

/* Unsigned LEB128: at most 10 bytes, the value must fit in 64 bits. */
gch_status gch_dart_read_uleb(gch_dart_cursor *c, uint64_t *out, const char *what);
/* Signed LEB128 (how the VM writes _Mint values): at most 10 bytes, must fit in int64_t. */
gch_status gch_dart_read_sleb(gch_dart_cursor *c, int64_t *out, const char *what);
/* n raw bytes; *out points into the buffer. */
gch_status gch_dart_read_bytes(gch_dart_cursor *c, uint64_t n, const unsigned char **out,
                               const char *what);
/* A Utf8String: uleb length then that many bytes (not NUL-terminated). */
gch_status gch_dart_read_string(gch_dart_cursor *c, const char **out, size_t *len, const char *what);
/* A uleb count of items that each take at least min_item_bytes: fails when the
 * remaining input cannot hold that many, so callers may allocate from it. */
gch_status gch_dart_read_count(gch_dart_cursor *c, size_t min_item_bytes, uint64_t *out,
                               const char *what);

#endif
