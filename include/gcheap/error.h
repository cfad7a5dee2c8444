/* gcheap/error.h - status codes and the error record every library call fills.
 *
 * The library never prints and never exits: a failing call returns a gch_status
 * other than GCH_OK and, when given a gch_error, describes the failure there.
 * The program turns that into "gcheap: FILE:LINE: message" (text formats) or
 * "gcheap: FILE: offset N: message" (binary formats).
 */
#ifndef GCHEAP_ERROR_H
#define GCHEAP_ERROR_H

#include <stdarg.h>
#include <stdint.h>

typedef enum gch_status {
    GCH_OK = 0,
    GCH_ENOMEM,   /* an allocation failed */
    GCH_EFORMAT,  /* the input is malformed; line or offset says where */
    GCH_EIO,      /* the read callback reported an error */
    GCH_ELIMIT,   /* the input exceeds what gcheap can represent (2^32 objects, 2^64 bytes) */
    GCH_EINVAL    /* a caller passed an invalid argument */
} gch_status;

typedef struct gch_error {
    gch_status status;
    uint64_t line;     /* 1-based line of a text input; 0 when not applicable */
    uint64_t offset;   /* byte offset in a binary input; meaningful when has_offset */
    int has_offset;
    char message[256];
} gch_error;

/* Clears err (status GCH_OK, no line, no offset, empty message). err may be NULL. */
void gch_error_clear(gch_error *err);

/* Records a failure in err (which may be NULL) and returns status, so that callers
 * can write `return gch_error_set(err, GCH_EFORMAT, "...", ...)`. The message is
 * printf-formatted and truncated to fit. Line and offset are left unchanged. */
gch_status gch_error_set(gch_error *err, gch_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Malformed binary input: records GCH_EFORMAT with the message and the byte
 * offset where it is wrong (has_offset set) in err (which may be NULL), and
 * returns GCH_EFORMAT. The one "error at offset" of every binary reader. */
gch_status gch_error_at(gch_error *err, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The same with a va_list, for a reader's own printf-like wrapper. */
gch_status gch_error_vat(gch_error *err, uint64_t offset, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 0)))
#endif
    ;

/* A short English description of a status ("out of memory", ...). Static storage. */
const char *gch_status_string(gch_status status);

#endif
