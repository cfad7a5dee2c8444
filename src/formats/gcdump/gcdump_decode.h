/* gcdump_decode.h - private to the library (and its unit tests): bounds-checked
 * decoding of the primitives and the FastSerialization framing that .gcdump
 * files are made of. The layout is described in docs/gcdump-format.md.
 *
 * Every function reads through a gcd_cursor and never touches a byte outside
 * [data, data + size). On failure it returns GCH_EFORMAT (or GCH_ENOMEM) with
 * the cursor's error filled in, including the file offset of what was wrong.
 */
#ifndef GCHEAP_GCDUMP_DECODE_H
#define GCHEAP_GCDUMP_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"

/* FastSerialization tag bytes. */
enum {
    GCD_TAG_ERROR = 0,
    GCD_TAG_NULL_REFERENCE = 1,
    GCD_TAG_OBJECT_REFERENCE = 2,
    GCD_TAG_FORWARD_REFERENCE = 3,
    GCD_TAG_BEGIN_OBJECT = 4,
    GCD_TAG_BEGIN_PRIVATE_OBJECT = 5,
    GCD_TAG_END_OBJECT = 6,
    GCD_TAG_FORWARD_DEFINITION = 7,
    GCD_TAG_BYTE = 8,
    GCD_TAG_INT16 = 9,
    GCD_TAG_INT32 = 10,
    GCD_TAG_INT64 = 11,
    GCD_TAG_SKIP_REGION = 12,
    GCD_TAG_STRING = 13,
    GCD_TAG_BLOB = 14
};

/* A read position in a byte range. `base` is the file offset of data[0], so
 * that errors name file offsets even when the range is a slice (the node blob). */
typedef struct gcd_cursor {
    const unsigned char *data;
    size_t size;
    size_t pos;
    uint64_t base;
    gch_error *err;
} gcd_cursor;

void gcd_cursor_init(gcd_cursor *c, const void *data, size_t size, uint64_t base, gch_error *err);

/* Records a format error at file offset c->base + at and returns
 * GCH_EFORMAT (gch_error_at). */
#define gcd_fail_at(c, at, ...) gch_error_at((c)->err, (c)->base + (at), __VA_ARGS__)

size_t gcd_remaining(const gcd_cursor *c);

/* Fixed-size little-endian primitives; `what` names the field in messages. */
gch_status gcd_read_u8(gcd_cursor *c, uint8_t *out, const char *what);
gch_status gcd_read_i32(gcd_cursor *c, int32_t *out, const char *what);
gch_status gcd_read_u32(gcd_cursor *c, uint32_t *out, const char *what);
gch_status gcd_read_i64(gcd_cursor *c, int64_t *out, const char *what);
gch_status gcd_read_f32(gcd_cursor *c, float *out, const char *what);
gch_status gcd_skip(gcd_cursor *c, size_t n, const char *what);

/* An int32 element count, checked to be >= 0 and such that count items of at
 * least min_item_bytes each fit in the remaining bytes: callers may allocate
 * count elements without trusting the file further. */
gch_status gcd_read_count(gcd_cursor *c, size_t min_item_bytes, uint32_t *out, const char *what);

/* A string: int32 count of UTF-16 code units (-1 = null), then each unit in 1,
 * 2 or 3 bytes. *out receives a NUL-terminated UTF-8 copy (surrogate pairs are
 * joined, a lone surrogate becomes U+FFFD) allocated with gch_malloc, or NULL
 * for the null string; *out_len its length in bytes (may be NULL). */
gch_status gcd_read_string(gcd_cursor *c, char **out, size_t *out_len, const char *what);
/* Same framing, nothing kept. *is_null (may be NULL) tells a null string. */
gch_status gcd_skip_string(gcd_cursor *c, int *is_null, const char *what);

/* A node-blob varint: big-endian 7-bit groups, the first group sign-extended,
 * bit 7 set while more bytes follow, a fifth byte contributing 8 bits; the
 * result wraps to 32 bits as PerfView's reader does. */
gch_status gcd_read_varint(gcd_cursor *c, int32_t *out, const char *what);

/* ---- FastSerialization framing ---- */

/* A serialized type (SerializationType): kept by the offset of its definition
 * so later objects can name it by ObjectReference. */
typedef struct gcd_type {
    uint32_t label;            /* offset of the BeginObject byte of its definition */
    int32_t version;
    int32_t min_reader_version;
    char *name;                /* full type name, UTF-8 (never NULL) */
} gcd_type;

typedef struct gcd_framing {
    gcd_cursor c;              /* over the whole file */
    gcd_type *types;
    size_t type_count, type_cap;
    uint32_t *forward;         /* forward-reference table from the trailer */
    uint32_t forward_count;
    size_t trailer_start;      /* offset of the trailer's forward-reference table */
} gcd_framing;

/* Sets up a framing over the whole file (nothing is read yet). */
void gcd_framing_init(gcd_framing *f, const void *data, size_t size, gch_error *err);
void gcd_framing_free(gcd_framing *f);

/* Checks "int32 20, !FastSerialization.1" at the start. */
gch_status gcd_read_header(gcd_framing *f);

/* Reads the trailer from the end of the file: the last 4 bytes locate a label
 * that locates the forward-reference table (int32 count, count labels), which
 * must end exactly at that label. Leaves the cursor where it was. */
gch_status gcd_read_trailer(gcd_framing *f);

/* Resolves forward reference `index` (read at file offset `at`) to a label. */
gch_status gcd_resolve_forward(gcd_framing *f, int32_t index, size_t at, uint32_t *out);

/* Starts reading an object reference that must be null or an inline object of
 * type `expected` (NULL accepts any type): an optional ForwardDefinition, then
 * NullReference (*present = 0) or BeginObject/BeginPrivateObject and the
 * object's type (inline definition or ObjectReference to an earlier one), copied
 * to *type_out (its name stays valid until gcd_framing_free). The cursor is left
 * on the object's first field. */
gch_status gcd_begin_object(gcd_framing *f, const char *expected, int *present, gcd_type *type_out);

/* Skips what is left of the current object - tagged fields a newer writer
 * added, SkipRegions, Blobs - through its EndObject tag. */
gch_status gcd_end_object(gcd_framing *f);

/* If the next byte is `tag`, consumes it and sets *present = 1; otherwise the
 * cursor is unchanged and *present = 0 (end of input counts as absent). */
gch_status gcd_try_tag(gcd_framing *f, uint8_t tag, int *present);

#endif
