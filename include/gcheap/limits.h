/* gcheap/limits.h - the limits of the CI gates (`gcheap check`, `gcheap diff`):
 * parsing sizes, counts, percentages and type limits, glob matching, and exact
 * threshold comparisons. Pure logic: nothing here prints or reads a dump.
 *
 * Grammar (every parser rejects leading/trailing spaces and empty input):
 *
 *   COUNT    decimal digits: 0 .. 2^64-1                        "500000"
 *   SIZE     NUMBER [UNIT]; NUMBER is digits with an optional fraction of
 *            at most 9 digits ("1.5"); UNIT is case-insensitive:
 *              B                          1
 *              KB  MB  GB  TB             1000, 1000^2, 1000^3, 1000^4
 *              KiB MiB GiB TiB            1024, 1024^2, 1024^3, 1024^4
 *            no unit means bytes. A fractional result is rounded DOWN to a
 *            whole byte: for whole-byte measurements, "v > floor(t)" is the
 *            same test as "v > t", so this loses nothing ("1.3KiB" = 1331).
 *   PERCENT  NUMBER "%" with at most 9 decimals ("5%", "0.5%"), at most
 *            1,000,000,000%. Kept exactly as percent x 10^9.
 *
 *   bound    what one limit compares against (gch_parse_bound):
 *              VALUE          max: the measured value itself
 *              +VALUE         growth: new - base (diff only)
 *              +PERCENT       growth relative to base (diff only)
 *            VALUE is a SIZE for byte limits, a COUNT for object limits.
 *
 *   type limit   PATTERN=COUNTBOUND[:SIZEBOUND] | PATTERN=:SIZEBOUND
 *            The split is at the LAST '=' (type names may contain '=', a
 *            bound never does), then at the first ':' after it.
 *            "MyApp.Session=10", "MyApp.*=:64MiB", "MyApp.*=+100:+1MiB".
 *
 *   PATTERN  a glob over whole type names, case-sensitive: '*' matches any run
 *            of characters (dots included), '?' exactly one character, '\'
 *            makes the next character literal ("System.Int32\*"). Every other
 *            character - '[' and ']' of array types included - is literal.
 *
 * Exceeded means strictly greater than the threshold: a value exactly at the
 * threshold passes. Growth limits only trigger on growth (new > base); a
 * percentage growth from base 0 to anything above 0 is infinite and exceeds
 * every percentage. All comparisons are exact integer arithmetic (128-bit
 * products where needed), for any 64-bit values.
 */
#ifndef GCHEAP_LIMITS_H
#define GCHEAP_LIMITS_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"

/* Percentages are stored as percent x GCH_PERCENT_SCALE (5% = 5000000000). */
#define GCH_PERCENT_SCALE 1000000000u
#define GCH_PERCENT_MAX_DIGITS 9

/* Parses a COUNT. GCH_EINVAL (with a message naming s) on bad input. */
gch_status gch_parse_count(const char *s, uint64_t *out, gch_error *err);
/* Parses a SIZE into bytes (rounded down). GCH_EINVAL on bad input or overflow. */
gch_status gch_parse_size(const char *s, uint64_t *out, gch_error *err);
/* Parses a PERCENT ("5%", "0.25%") into percent x GCH_PERCENT_SCALE. */
gch_status gch_parse_percent(const char *s, uint64_t *out, gch_error *err);

typedef enum gch_bound_kind {
    GCH_BOUND_NONE = 0,       /* no limit (e.g. the size part of "NAME=10") */
    GCH_BOUND_MAX,            /* value > threshold */
    GCH_BOUND_GROWTH,         /* value - base > threshold */
    GCH_BOUND_GROWTH_PERCENT  /* (value - base) / base > threshold / 100 */
} gch_bound_kind;

typedef struct gch_bound {
    gch_bound_kind kind;
    /* MAX, GROWTH: objects or bytes; GROWTH_PERCENT: percent x GCH_PERCENT_SCALE. */
    uint64_t threshold;
    /* The value as written, without the '+' ("2MiB", "5%"), for messages;
     * truncated to fit. */
    char text[48];
} gch_bound;

/* Flags for gch_parse_bound. */
#define GCH_BOUND_BYTES   0x1u  /* the value is a SIZE (else a COUNT) */
#define GCH_BOUND_GROWTH_OK 0x2u /* "+VALUE" and "+PERCENT" are accepted */
#define GCH_BOUND_GROWTH_ONLY 0x4u /* growth even without '+' (--fail-on-growth) */

/* Parses one bound from s[0..len) (not necessarily NUL-terminated). A bound
 * with '+' or a percentage without GCH_BOUND_GROWTH_OK / _ONLY is an error
 * ("growth needs two dumps"); a percentage needs growth ("+5%"). */
gch_status gch_parse_bound(const char *s, size_t len, unsigned flags, gch_bound *out,
                           gch_error *err);

/* 1 when value (the new or only measurement) breaks the bound given base (the
 * baseline measurement; ignored for MAX), else 0. NONE never breaks. */
int gch_bound_exceeded(const gch_bound *bound, uint64_t base, uint64_t value);

typedef struct gch_type_limit {
    char *pattern;     /* the glob (gch_malloc'd) */
    gch_bound count;   /* objects; kind NONE when not given */
    gch_bound bytes;   /* bytes; kind NONE when not given */
} gch_type_limit;

/* Parses a type limit. growth_ok: '+' bounds allowed (diff). On success
 * out->pattern must be released with gch_type_limit_free. GCH_EINVAL with a
 * message naming the bad part, GCH_ENOMEM. */
gch_status gch_parse_type_limit(const char *spec, int growth_ok, gch_type_limit *out,
                                gch_error *err);
void gch_type_limit_free(gch_type_limit *limit);

/* 1 when name matches the glob pattern (whole string), else 0. */
int gch_glob_match(const char *pattern, const char *name);
/* 1 when pattern has no wildcard (it matches one name only). */
int gch_glob_is_literal(const char *pattern);

/* The growth of value over base as a percentage, for display only (not used
 * by any comparison). Returns 0 when value <= base; HUGE_VAL-free: base 0 and
 * value > 0 give -1 (meaning "infinite"). */
double gch_growth_percent(uint64_t base, uint64_t value);

#endif
