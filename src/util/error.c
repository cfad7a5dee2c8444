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

gch_status gch_error_set(gch_error *err, gch_status status, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        err->status = status;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        /* Messages quote names from the input: no control byte reaches a terminal. */
        for (char *p = err->message; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                *p = '?';
    }
    return status;
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
