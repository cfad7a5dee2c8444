/* Error records: see include/gcheap/error.h. */
#include "gcheap/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gch_error_clear(gch_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

static void set_va(gch_error *err, gch_status status, const char *fmt, va_list ap)
{
    err->status = status;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    /* Messages quote names from the input: no control byte reaches a terminal. */
    for (char *p = err->message; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

gch_status gch_error_set(gch_error *err, gch_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        set_va(err, status, fmt, ap);
        va_end(ap);
    }
    return status;
}

gch_status gch_error_vat(gch_error *err, uint64_t offset, const char *fmt, va_list ap)
{
    if (err) {
        set_va(err, GCH_EFORMAT, fmt, ap);
        err->has_offset = 1;
        err->offset = offset;
    }
    return GCH_EFORMAT;
}

gch_status gch_error_at(gch_error *err, uint64_t offset, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gch_status st = gch_error_vat(err, offset, fmt, ap);
    va_end(ap);
    return st;
}

const char *gch_status_string(gch_status status)
{
    switch (status) {
    case GCH_OK: return "success";
    case GCH_ENOMEM: return "out of memory";
    case GCH_EFORMAT: return "malformed input";
    case GCH_EIO: return "read error";
    case GCH_ELIMIT: return "input exceeds gcheap's limits";
    case GCH_EINVAL: return "invalid argument";
    }
    return "unknown error";
}
