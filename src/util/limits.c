/* Limits of the CI gates: see include/gcheap/limits.h. */
#include "gcheap/limits.h"

#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"

#define TOKEN_MAX 64

/* ---- exact 64x64 -> 128-bit products ---- */

typedef struct u128 {
    uint64_t hi, lo;
} u128;

static u128 mul64(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    u128 r;
    r.lo = (p00 & 0xffffffffu) | (mid << 32);
    r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    return r;
}

static int u128_greater(u128 a, u128 b)
{
    return a.hi > b.hi || (a.hi == b.hi && a.lo > b.lo);
}

/* ---- numbers ---- */

/* Copies s[0..len) for a message: at most TOKEN_MAX bytes, control bytes as '?'. */
static const char *quoted(const char *s, size_t len, char *buf, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len && n + 4 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        buf[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (n < len && n + 4 <= cap) {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

typedef struct decimal {
    uint64_t whole;
    uint64_t frac;      /* the fraction digits as an integer */
    unsigned frac_digits;
    int has_point;
} decimal;

static const uint64_t pow10_table[] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u
};

/* Reads DIGITS[.DIGITS] from s[0..len). Returns the number of bytes used, or
 * 0 with *why set when there is no number or it does not fit. */
static size_t read_decimal(const char *s, size_t len, decimal *d, const char **why)
{
    size_t i = 0;
    memset(d, 0, sizeof *d);
    *why = NULL;
    if (i == len || s[i] < '0' || s[i] > '9') {
        *why = "expected a number";
        return 0;
    }
    while (i < len && s[i] >= '0' && s[i] <= '9') {
        unsigned dg = (unsigned)(s[i] - '0');
        if (d->whole > (UINT64_MAX - dg) / 10) {
            *why = "too large";
            return 0;
        }
        d->whole = d->whole * 10 + dg;
        i++;
    }
    if (i < len && s[i] == '.') {
        d->has_point = 1;
        i++;
        if (i == len || s[i] < '0' || s[i] > '9') {
            *why = "expected digits after '.'";
            return 0;
        }
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (d->frac_digits == GCH_PERCENT_MAX_DIGITS) {
                *why = "at most 9 digits after '.'";
                return 0;
            }
            d->frac = d->frac * 10 + (uint64_t)(s[i] - '0');
            d->frac_digits++;
            i++;
        }
    }
    return i;
}

static gch_status bad(gch_error *err, const char *what, const char *s, size_t len, const char *why)
{
    char buf[TOKEN_MAX + 8];
    return gch_error_set(err, GCH_EINVAL, "bad %s '%s': %s", what, quoted(s, len, buf, sizeof buf),
                         why);
}

/* read_decimal, or the error "bad WHAT '...': why" (then 0). */
static size_t read_number(const char *s, size_t len, decimal *d, const char *what, gch_error *err)
{
    const char *why;
    size_t used = read_decimal(s, len, d, &why);
    if (!used)
        bad(err, what, s, len, why);
    return used;
}

static gch_status parse_count_n(const char *s, size_t len, uint64_t *out, gch_error *err)
{
    decimal d;
    size_t used = read_number(s, len, &d, "count", err);
    if (!used)
        return GCH_EINVAL;
    if (d.has_point)
        return bad(err, "count", s, len, "expected a whole number");
    if (used != len)
        return bad(err, "count", s, len, "expected digits only");
    *out = d.whole;
    return GCH_OK;
}

typedef struct unit {
    const char *name;
    uint64_t mult;
} unit;

static const unit units[] = {
    { "B", 1u },
    { "KB", 1000u }, { "MB", 1000000u }, { "GB", 1000000000u }, { "TB", 1000000000000u },
    { "KiB", 1024u }, { "MiB", 1048576u }, { "GiB", 1073741824u }, { "TiB", 1099511627776u },
};

static int same_ci(const char *a, size_t alen, const char *b)
{
    size_t n = strlen(b);
    if (alen != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z')
            x = (char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (char)(y - 'A' + 'a');
        if (x != y)
            return 0;
    }
    return 1;
}

static gch_status parse_size_n(const char *s, size_t len, uint64_t *out, gch_error *err)
{
    decimal d;
    size_t used = read_number(s, len, &d, "size", err);
    uint64_t mult = 0;
    if (!used)
        return GCH_EINVAL;
    if (used == len) {
        mult = 1;
    } else {
        for (size_t i = 0; i < sizeof units / sizeof *units; i++)
            if (same_ci(s + used, len - used, units[i].name))
                mult = units[i].mult;
        if (!mult) {
            char ubuf[TOKEN_MAX + 8], sbuf[TOKEN_MAX + 8];
            return gch_error_set(err, GCH_EINVAL,
                                 "bad size '%s': unknown unit '%s' (B, KB, MB, GB, TB, KiB, MiB, "
                                 "GiB, TiB)",
                                 quoted(s, len, sbuf, sizeof sbuf),
                                 quoted(s + used, len - used, ubuf, sizeof ubuf));
        }
    }
    if (d.whole > UINT64_MAX / mult)
        return bad(err, "size", s, len, "too large (more than 2^64-1 bytes)");
    uint64_t v = d.whole * mult;
    if (d.frac_digits) {
        /* floor(frac * mult / 10^k) exactly: mult = q*D + r, so
         * frac*mult/D = frac*q + frac*r/D with frac*r < D*D <= 10^18. */
        uint64_t den = pow10_table[d.frac_digits];
        uint64_t q = mult / den, r = mult % den;
        uint64_t part = d.frac * q + d.frac * r / den;
        if (v > UINT64_MAX - part)
            return bad(err, "size", s, len, "too large (more than 2^64-1 bytes)");
        v += part;
    }
    *out = v;
    return GCH_OK;
}

static gch_status parse_percent_n(const char *s, size_t len, uint64_t *out, gch_error *err)
{
    if (len == 0 || s[len - 1] != '%')
        return bad(err, "percentage", s, len, "expected a number and '%'");
    decimal d;
    size_t used = read_number(s, len - 1, &d, "percentage", err);
    if (!used)
        return GCH_EINVAL;
    if (used != len - 1)
        return bad(err, "percentage", s, len, "expected a number and '%'");
    if (d.whole > 1000000000u)
        return bad(err, "percentage", s, len, "at most 1000000000%");
    *out = d.whole * GCH_PERCENT_SCALE + d.frac * pow10_table[GCH_PERCENT_MAX_DIGITS - d.frac_digits];
    return GCH_OK;
}

gch_status gch_parse_count(const char *s, uint64_t *out, gch_error *err)
{
    return parse_count_n(s, strlen(s), out, err);
}

gch_status gch_parse_size(const char *s, uint64_t *out, gch_error *err)
{
    return parse_size_n(s, strlen(s), out, err);
}

gch_status gch_parse_percent(const char *s, uint64_t *out, gch_error *err)
{
    return parse_percent_n(s, strlen(s), out, err);
}

/* ---- bounds ---- */

gch_status gch_parse_bound(const char *s, size_t len, unsigned flags, gch_bound *out,
                           gch_error *err)
{
    memset(out, 0, sizeof *out);
    const char *what = (flags & GCH_BOUND_BYTES) ? "size" : "count";
    int growth_ok = (flags & (GCH_BOUND_GROWTH_OK | GCH_BOUND_GROWTH_ONLY)) != 0;
    if (len == 0)
        return gch_error_set(err, GCH_EINVAL, "empty %s", what);
    int plus = s[0] == '+';
    const char *body = s + plus;
    size_t blen = len - (size_t)plus;
    if (plus && !growth_ok) {
        char buf[TOKEN_MAX + 8];
        return gch_error_set(err, GCH_EINVAL,
                             "'%s': a '+' growth limit needs two dumps (use gcheap diff)",
                             quoted(s, len, buf, sizeof buf));
    }
    gch_status st;
    if (blen > 0 && body[blen - 1] == '%') {
        if (!growth_ok) {
            char buf[TOKEN_MAX + 8];
            return gch_error_set(err, GCH_EINVAL,
                                 "'%s': a percentage limit is a growth limit and needs two dumps "
                                 "(use gcheap diff)",
                                 quoted(s, len, buf, sizeof buf));
        }
        if (!plus && !(flags & GCH_BOUND_GROWTH_ONLY)) {
            char buf[TOKEN_MAX + 8];
            return gch_error_set(err, GCH_EINVAL,
                                 "'%s': a percentage is a growth: write '+%s'",
                                 quoted(s, len, buf, sizeof buf), buf);
        }
        if ((st = parse_percent_n(body, blen, &out->threshold, err)) != GCH_OK)
            return st;
        out->kind = GCH_BOUND_GROWTH_PERCENT;
    } else {
        st = (flags & GCH_BOUND_BYTES) ? parse_size_n(body, blen, &out->threshold, err)
                                       : parse_count_n(body, blen, &out->threshold, err);
        if (st != GCH_OK)
            return st;
        out->kind = (plus || (flags & GCH_BOUND_GROWTH_ONLY)) ? GCH_BOUND_GROWTH : GCH_BOUND_MAX;
    }
    quoted(body, blen, out->text, sizeof out->text);
    return GCH_OK;
}

int gch_bound_exceeded(const gch_bound *b, uint64_t base, uint64_t value)
{
    switch (b->kind) {
    case GCH_BOUND_NONE:
        return 0;
    case GCH_BOUND_MAX:
        return value > b->threshold;
    case GCH_BOUND_GROWTH:
        return value > base && value - base > b->threshold;
    case GCH_BOUND_GROWTH_PERCENT:
        if (value <= base)
            return 0;
        if (base == 0)
            return 1; /* infinite growth */
        /* (value-base)/base*100 > P/SCALE  <=>  (value-base)*100*SCALE > base*P */
        return u128_greater(mul64(value - base, 100u * (uint64_t)GCH_PERCENT_SCALE),
                            mul64(base, b->threshold));
    }
    return 0;
}

double gch_growth_percent(uint64_t base, uint64_t value)
{
    if (value <= base)
        return 0.0;
    if (base == 0)
        return -1.0;
    return (double)(value - base) * 100.0 / (double)base;
}

/* ---- type limits ---- */

static gch_status wrap(gch_error *err, const char *spec, gch_status st)
{
    if (err) {
        char inner[sizeof err->message], buf[TOKEN_MAX + 8];
        memcpy(inner, err->message, sizeof inner);
        gch_error_set(err, st, "type limit '%s': %s", quoted(spec, strlen(spec), buf, sizeof buf),
                      inner);
    }
    return st;
}

gch_status gch_parse_type_limit(const char *spec, int growth_ok, gch_type_limit *out,
                                gch_error *err)
{
    char buf[TOKEN_MAX + 8];
    memset(out, 0, sizeof *out);
    const char *eq = strrchr(spec, '=');
    if (!eq)
        return gch_error_set(err, GCH_EINVAL,
                             "type limit '%s' has no '=' (expected NAME=COUNT[:SIZE] or NAME=:SIZE)",
                             quoted(spec, strlen(spec), buf, sizeof buf));
    if (eq == spec)
        return gch_error_set(err, GCH_EINVAL, "type limit '%s' has no type name before '='",
                             quoted(spec, strlen(spec), buf, sizeof buf));
    const char *v = eq + 1;
    if (!*v)
        return gch_error_set(err, GCH_EINVAL,
                             "type limit '%s' has nothing after '=' (expected COUNT[:SIZE] or :SIZE)",
                             quoted(spec, strlen(spec), buf, sizeof buf));
    unsigned growth = growth_ok ? GCH_BOUND_GROWTH_OK : 0u;
    const char *colon = strchr(v, ':');
    size_t count_len = colon ? (size_t)(colon - v) : strlen(v);
    gch_status st;
    if (count_len && (st = gch_parse_bound(v, count_len, growth, &out->count, err)) != GCH_OK)
        return wrap(err, spec, st);
    if (colon) {
        const char *sz = colon + 1;
        if (!*sz)
            return gch_error_set(err, GCH_EINVAL, "type limit '%s' has no size after ':'",
                                 quoted(spec, strlen(spec), buf, sizeof buf));
        if ((st = gch_parse_bound(sz, strlen(sz), growth | GCH_BOUND_BYTES, &out->bytes, err)) !=
            GCH_OK)
            return wrap(err, spec, st);
    }
    out->pattern = gch_strndup(spec, (size_t)(eq - spec));
    if (!out->pattern)
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    return GCH_OK;
}

void gch_type_limit_free(gch_type_limit *limit)
{
    if (!limit)
        return;
    gch_free(limit->pattern);
    limit->pattern = NULL;
}

/* ---- globs ---- */

int gch_glob_match(const char *p, const char *s)
{
    const char *star_p = NULL, *star_s = NULL;
    while (*s) {
        if (*p == '*') {
            while (*p == '*')
                p++;
            star_p = p;
            star_s = s;
            continue;
        }
        if (*p == '?') {
            p++;
            s++;
            while ((*s & 0xc0) == 0x80) /* one UTF-8 character */
                s++;
            continue;
        }
        if (*p) {
            char c = *p;
            const char *next = p + 1;
            if (c == '\\' && p[1]) {
                c = p[1];
                next = p + 2;
            }
            if (c == *s) {
                p = next;
                s++;
                continue;
            }
        }
        if (!star_p)
            return 0;
        /* Let the last '*' swallow one more character and retry. */
        p = star_p;
        s = ++star_s;
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

int gch_glob_is_literal(const char *p)
{
    for (; *p; p++) {
        if (*p == '*' || *p == '?')
            return 0;
        if (*p == '\\' && p[1])
            p++;
    }
    return 1;
}
