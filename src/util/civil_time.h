/* Dates as text for `gcheap info`: the readers' timestamps (HPROF's
 * milliseconds since 1970, .gcdump's .NET ticks) in ISO 8601, UTC, without
 * the C library's time zone machinery (no locale, no global state). */
#ifndef GCHEAP_UTIL_CIVIL_TIME_H
#define GCHEAP_UTIL_CIVIL_TIME_H

#include <stddef.h>
#include <stdint.h>

/* "2026-11-24T12:29:30Z" (millis < 0: no fraction) or
 * "2026-11-24T12:29:30.522Z" for seconds since 1970-01-01T00:00:00Z. */
void gch_format_utc(long long seconds, int millis, char *buf, size_t cap);

#endif
