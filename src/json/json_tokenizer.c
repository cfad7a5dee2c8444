/* The streaming JSON tokenizer of the JSON-based readers: see json_tokenizer.h. */
#include "json_tokenizer.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/hex.h"
#include "gcheap/utf8.h"
#include "grow.h"

#define BLOCK_BYTES (4u << 20)     /* source mode: bytes read at a time */
#define PROGRESS_BYTES (8u << 20)  /* input between progress (and release) calls */

void gch_json_init_buffer(gch_json_in *in, const void *data, size_t size, const gch_load_options *opts,
                       gch_error *err)
{
    memset(in, 0, sizeof *in);
    in->win = in->p = data;
    in->end = in->p + size;
    in->released = in->p;
    in->eof = 1;
    in->opts = opts;
    in->err = err;
    in->next_progress = PROGRESS_BYTES;
}

gch_status gch_json_init_source(gch_json_in *in, const gch_source *src, const gch_load_options *opts,
                             gch_error *err)
{
    memset(in, 0, sizeof *in);
    in->src = src;
    in->opts = opts;
    in->err = err;
    in->next_progress = PROGRESS_BYTES;
    in->cap = BLOCK_BYTES;
    in->buf = gch_malloc(in->cap);
    if (!in->buf)
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    in->win = in->p = in->end = in->buf;
    return GCH_OK;
}

void gch_json_free(gch_json_in *in)
{
    gch_free(in->buf);
    gch_free(in->depth);
    in->buf = in->depth = NULL;
}

/* Progress, and in buffer mode the release of parsed bytes. */
static void tick(gch_json_in *in)
{
    uint64_t at = gch_json_offset(in);
    if (at < in->next_progress)
        return;
    in->next_progress = at + PROGRESS_BYTES;
    if (in->opts && in->opts->progress)
        in->opts->progress(in->opts->progress_ctx, at);
    if (!in->src && in->opts && in->opts->release && in->p > in->released) {
        in->opts->release(in->opts->release_ctx, in->released, (size_t)(in->p - in->released));
        in->released = in->p;
    }
}

long long gch_json_fill(gch_json_in *in, size_t want)
{
    tick(in);
    size_t avail = (size_t)(in->end - in->p);
    if (avail >= want || in->eof)
        return (long long)avail;
    /* Source mode: keep the unread bytes, read behind them. */
    in->win_offset += (uint64_t)(in->p - in->win);
    memmove(in->buf, in->p, avail);
    in->win = in->p = in->buf;
    in->end = in->buf + avail;
    while (avail < want && !in->eof) {
        long long got = in->src->read(in->src->ctx, in->buf + avail, in->cap - avail);
        if (got < 0) {
            gch_error_set(in->err, GCH_EIO, "read error");
            return -1;
        }
        if (got == 0)
            in->eof = 1;
        avail += (size_t)got;
        in->end = in->buf + avail;
    }
    return (long long)avail;
}

static int is_blank(int c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

int gch_json_peek(gch_json_in *in)
{
    for (;;) {
        while (in->p < in->end && is_blank(*in->p))
            in->p++;
        if (in->p < in->end)
            return *in->p;
        long long got = gch_json_fill(in, 1);
        if (got < 0)
            return -2;
        if (got == 0)
            return -1;
    }
}

/* The message for an unexpected byte c (or the end of the input). */
static gch_status unexpected(gch_json_in *in, int c, const char *what)
{
    if (c == -2)
        return GCH_EIO;
    if (c == -1)
        return gch_json_fail(in, "the input ends where %s was expected (truncated snapshot?)", what);
    if (c >= 0x20 && c < 0x7f)
        return gch_json_fail(in, "expected %s, found '%c'", what, c);
    return gch_json_fail(in, "expected %s, found byte 0x%02x", what, c);
}

gch_status gch_json_expect(gch_json_in *in, int c, const char *what)
{
    int got = gch_json_peek(in);
    if (got != c)
        return unexpected(in, got, what);
    in->p++;
    return GCH_OK;
}

static int text_put(gch_json_text *out, const void *bytes, size_t n)
{
    if (!out)
        return 1;
    if (out->len + n + 1 < out->len || !gch_grow((void **)&out->s, &out->cap, out->len + n + 1, 1, 64))
        return 0;
    memcpy(out->s + out->len, bytes, n);
    out->len += n;
    out->s[out->len] = '\0';
    return 1;
}

/* Reads the 4 hex digits of a \u escape at p (4 readable bytes). */
static long read_hex4(const unsigned char *p)
{
    long v = 0;
    for (int i = 0; i < 4; i++) {
        int h = gch_hex_digit(p[i]);
        if (h < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* Decodes one escape; in->p is at the backslash and 12 bytes are readable
 * when the input has them. */
static gch_status escape(gch_json_in *in, gch_json_text *out)
{
    long long avail = gch_json_fill(in, 12);
    if (avail < 0)
        return GCH_EIO;
    if (avail < 2)
        return gch_json_fail(in, "the input ends inside a string escape (truncated snapshot?)");
    const unsigned char *p = in->p;
    static const char plain_from[] = "\"\\/bfnrt", plain_to[] = "\"\\/\b\f\n\r\t";
    const char *hit = p[1] ? strchr(plain_from, p[1]) : NULL;
    if (hit) {
        if (!text_put(out, &plain_to[hit - plain_from], 1))
            return gch_error_set(in->err, GCH_ENOMEM, "out of memory");
        in->p += 2;
        return GCH_OK;
    }
    if (p[1] != 'u')
        return gch_json_fail(in, "invalid escape in a string");
    long cp = avail >= 6 ? read_hex4(p + 2) : -1;
    if (cp < 0)
        return gch_json_fail(in, "invalid \\u escape in a string");
    size_t used = 6;
    if (cp >= 0xd800 && cp <= 0xdbff) {
        long lo = avail >= 12 && p[6] == '\\' && p[7] == 'u' ? read_hex4(p + 8) : -1;
        if (lo >= 0xdc00 && lo <= 0xdfff) {
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            used = 12;
        } else {
            cp = 0xfffd;
        }
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        cp = 0xfffd;
    }
    unsigned char u[4];
    if (!text_put(out, u, gch_utf8_encode((uint32_t)cp, u)))
        return gch_error_set(in->err, GCH_ENOMEM, "out of memory");
    in->p += used;
    return GCH_OK;
}

gch_status gch_json_string(gch_json_in *in, gch_json_text *out)
{
    gch_status st = gch_json_expect(in, '"', "a string");
    if (st != GCH_OK)
        return st;
    for (;;) {
        const unsigned char *run = in->p;
        while (in->p < in->end && *in->p != '"' && *in->p != '\\' && *in->p >= 0x20)
            in->p++;
        if (!text_put(out, run, (size_t)(in->p - run)))
            return gch_error_set(in->err, GCH_ENOMEM, "out of memory");
        if (in->p == in->end) {
            long long got = gch_json_fill(in, 1);
            if (got < 0)
                return GCH_EIO;
            if (got == 0)
                return gch_json_fail(in, "the input ends inside a string (truncated snapshot?)");
            continue;
        }
        if (*in->p == '"') {
            in->p++;
            return GCH_OK;
        }
        if (*in->p < 0x20)
            return gch_json_fail(in, "control byte 0x%02x inside a string", *in->p);
        if ((st = escape(in, out)) != GCH_OK)
            return st;
    }
}

gch_status gch_json_uint(gch_json_in *in, uint64_t *out, const char *what)
{
    int c = gch_json_peek(in);
    if (c < '0' || c > '9') {
        if (c == '-')
            return gch_json_fail(in, "%s: negative number", what);
        return unexpected(in, c, what);
    }
    if (gch_json_fill(in, GCH_JSON_NUMBER_BYTES) < 0)
        return GCH_EIO;
    const unsigned char *p = in->p, *end = in->end;
    /* The leading zero first: the verdict must not depend on how many digits
     * the window holds (a stream's window may end before an overflow shows). */
    if (*p == '0' && p + 1 < end && (unsigned)(p[1] - '0') < 10)
        return gch_json_fail(in, "%s: number with a leading zero", what);
    uint64_t v = 0;
    while (p < end && (unsigned)(*p - '0') < 10) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return gch_json_fail(in, "%s: number larger than 2^64-1", what);
        v = v * 10 + d;
        p++;
    }
    if (p < end && (*p == '.' || *p == 'e' || *p == 'E'))
        return gch_json_fail(in, "%s: expected a non-negative integer", what);
    in->p = p;
    *out = v;
    return GCH_OK;
}

/* Checks and skips a JSON number of any form. */
static gch_status skip_number(gch_json_in *in)
{
    if (gch_json_fill(in, GCH_JSON_NUMBER_BYTES) < 0)
        return GCH_EIO;
    const unsigned char *p = in->p, *end = in->end;
    /* A number longer than the window: read it through gch_json_fill byte by byte. */
    int phase = 0; /* 0 sign, 1 int first, 2 int rest, 3 frac first, 4 frac, 5 exp sign, 6 exp first, 7 exp */
    int leading_zero = 0;
    for (;;) {
        if (p == end) {
            in->p = p;
            long long got = gch_json_fill(in, 1);
            if (got < 0)
                return GCH_EIO;
            p = in->p;
            end = in->end;
            if (got == 0)
                break;
        }
        int c = *p;
        int digit = c >= '0' && c <= '9';
        if (phase == 0 && c == '-') {
            phase = 1;
        } else if ((phase == 0 || phase == 1) && digit) {
            leading_zero = c == '0';
            phase = 2;
        } else if (phase == 2 && digit) {
            if (leading_zero) {
                in->p = p;
                return gch_json_fail(in, "number with a leading zero");
            }
        } else if (phase == 2 && c == '.') {
            phase = 3;
        } else if ((phase == 3 || phase == 4) && digit) {
            phase = 4;
        } else if ((phase == 2 || phase == 4) && (c == 'e' || c == 'E')) {
            phase = 5;
        } else if (phase == 5 && (c == '+' || c == '-')) {
            phase = 6;
        } else if ((phase == 5 || phase == 6 || phase == 7) && digit) {
            phase = 7;
        } else {
            break;
        }
        p++;
    }
    in->p = p;
    if (phase != 2 && phase != 4 && phase != 7)
        return gch_json_fail(in, "malformed number");
    return GCH_OK;
}

static gch_status skip_literal(gch_json_in *in)
{
    static const char *const words[] = { "true", "false", "null" };
    long long avail = gch_json_fill(in, 5);
    if (avail < 0)
        return GCH_EIO;
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if ((size_t)avail >= n && memcmp(in->p, words[i], n) == 0) {
            in->p += n;
            return GCH_OK;
        }
    }
    return unexpected(in, *in->p, "a value");
}

gch_status gch_json_skip_value(gch_json_in *in)
{
    size_t depth = 0;
    gch_status st;
    for (;;) {
        /* A value. */
        int c = gch_json_peek(in);
        if (c == '{' || c == '[') {
            if (!gch_grow((void **)&in->depth, &in->depth_cap, depth + 1, 1, 64))
                return gch_error_set(in->err, GCH_ENOMEM, "out of memory");
            in->depth[depth++] = (unsigned char)c;
            in->p++;
            int close = c == '{' ? '}' : ']';
            if (gch_json_peek(in) == close) {
                in->p++;
                depth--;
            } else {
                if (c == '{') {
                    if ((st = gch_json_string(in, NULL)) != GCH_OK ||
                        (st = gch_json_expect(in, ':', "':'")) != GCH_OK)
                        return st;
                }
                continue;
            }
        } else if (c == '"') {
            if ((st = gch_json_string(in, NULL)) != GCH_OK)
                return st;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            if ((st = skip_number(in)) != GCH_OK)
                return st;
        } else if (c == 't' || c == 'f' || c == 'n') {
            if ((st = skip_literal(in)) != GCH_OK)
                return st;
        } else {
            return unexpected(in, c, "a value");
        }
        /* After a value: close containers or move to the next member. */
        for (;;) {
            if (depth == 0)
                return GCH_OK;
            int open = in->depth[depth - 1];
            int close = open == '{' ? '}' : ']';
            c = gch_json_peek(in);
            if (c == close) {
                in->p++;
                depth--;
                continue;
            }
            if (c != ',')
                return unexpected(in, c, open == '{' ? "',' or '}'" : "',' or ']'");
            in->p++;
            if (open == '{' &&
                ((st = gch_json_string(in, NULL)) != GCH_OK || (st = gch_json_expect(in, ':', "':'")) != GCH_OK))
                return st;
            break;
        }
    }
}

gch_status gch_json_uint_batch(gch_json_in *in, int *state, uint64_t *out, size_t max, size_t *n, int *closed,
                         const char *what)
{
    size_t k = 0;
    gch_status st;
    *closed = 0;
    tick(in); /* a mapped file is parsed without refills: report here */
    if (*state == 0) {
        int c = gch_json_peek(in);
        if (c == ']') {
            in->p++;
            *closed = 1;
            *n = 0;
            return GCH_OK;
        }
        if (c < 0)
            return unexpected(in, c, what);
        *state = 1;
        if ((st = gch_json_uint(in, &out[k++], what)) != GCH_OK)
            return st;
    }
    while (k < max) {
        /* The hot loop: ",digits" with blanks allowed, refilled to hold a number. */
        if (in->end - in->p < GCH_JSON_NUMBER_BYTES + 8 && gch_json_fill(in, GCH_JSON_NUMBER_BYTES + 8) < 0)
            return GCH_EIO;
        const unsigned char *p = in->p, *end = in->end;
        while (p < end && is_blank(*p))
            p++;
        if (p < end && *p == ',') {
            p++;
            while (p < end && is_blank(*p))
                p++;
            if (p < end && (unsigned)(*p - '1') < 9) {
                /* Common case: no leading zero, fewer than 20 digits need no overflow check. */
                const unsigned char *start = p;
                uint64_t v = (uint64_t)(*p++ - '0');
                while (p < end && (unsigned)(*p - '0') < 10 && p - start < 19)
                    v = v * 10 + (uint64_t)(*p++ - '0');
                if (p == end || ((unsigned)(*p - '0') >= 10 && *p != '.' && *p != 'e' && *p != 'E')) {
                    in->p = p;
                    out[k++] = v;
                    continue;
                }
                p = start; /* long or odd: the careful path */
            }
            in->p = p;
            if ((st = gch_json_uint(in, &out[k++], what)) != GCH_OK)
                return st;
            continue;
        }
        in->p = p;
        int c = gch_json_peek(in);
        if (c == ']') {
            in->p++;
            *closed = 1;
            break;
        }
        if (c == ',')
            continue;
        return unexpected(in, c, "',' or ']'");
    }
    *n = k;
    return GCH_OK;
}
