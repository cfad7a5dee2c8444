/* The Dart snapshot cursor: see src/dart_cursor.h. */
#include "dart_cursor.h"

#include <stdarg.h>
#include <stdio.h>

void gch_dart_cursor_init(gch_dart_cursor *c, const void *data, size_t size, gch_error *err)
{
    c->data = data;
    c->size = data ? size : 0;
    c->pos = 0;
    c->err = err;
}

/* Shared by both LEB decoders: collects up to 10 bytes, stopping after the
 * first byte without the continuation bit. Returns the byte count, or 0 with
 * the error recorded. */
static size_t leb_span(gch_dart_cursor *c, const char *what)
{
    size_t start = c->pos;
    for (size_t n = 0; n < GCH_DART_LEB_MAX_BYTES; n++) {
        if (start + n >= c->size) {
            gch_dart_fail_at(c, start, "truncated input in the %s", what);
            return 0;
        }
        if ((c->data[start + n] & 0x80) == 0)
            return n + 1;
    }
    gch_dart_fail_at(c, start, "%s: varint longer than %d bytes", what, GCH_DART_LEB_MAX_BYTES);
    return 0;
}

gch_status gch_dart_read_uleb(gch_dart_cursor *c, uint64_t *out, const char *what)
{
    size_t n = leb_span(c, what);
    if (n == 0)
        return GCH_EFORMAT;
    const unsigned char *p = c->data + c->pos;
    /* The tenth byte carries bit 63 only. */
    if (n == GCH_DART_LEB_MAX_BYTES && p[n - 1] > 1)
        return gch_dart_fail_at(c, c->pos, "%s: varint overflows 64 bits", what);
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    c->pos += n;
    *out = v;
    return GCH_OK;
}

gch_status gch_dart_read_sleb(gch_dart_cursor *c, int64_t *out, const char *what)
{
    size_t n = leb_span(c, what);
    if (n == 0)
        return GCH_EFORMAT;
    const unsigned char *p = c->data + c->pos;
    /* The tenth byte carries bit 63 and must repeat it in its other bits. */
    if (n == GCH_DART_LEB_MAX_BYTES && p[n - 1] != 0x00 && p[n - 1] != 0x7f)
        return gch_dart_fail_at(c, c->pos, "%s: signed varint overflows 64 bits", what);
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
    unsigned shift = (unsigned)(7 * n);
    if (shift < 64 && (p[n - 1] & 0x40))
        v |= ~(uint64_t)0 << shift; /* sign extension */
    c->pos += n;
    /* Two's complement reinterpretation without implementation-defined conversion. */
    *out = v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
    return GCH_OK;
}

gch_status gch_dart_read_bytes(gch_dart_cursor *c, uint64_t n, const unsigned char **out,
                               const char *what)
{
    if (n > gch_dart_remaining(c))
        return gch_dart_fail_at(c, c->pos, "truncated input in the %s (%llu bytes needed, %llu left)",
                                what, (unsigned long long)n,
                                (unsigned long long)gch_dart_remaining(c));
    *out = c->data + c->pos;
    c->pos += (size_t)n;
    return GCH_OK;
}

gch_status gch_dart_read_string(gch_dart_cursor *c, const char **out, size_t *len, const char *what)
{
    size_t start = c->pos;
    uint64_t n;
    gch_status st = gch_dart_read_uleb(c, &n, what);
    if (st != GCH_OK)
        return st;
    const unsigned char *p;
    if (n > gch_dart_remaining(c)) {
        unsigned long long left = gch_dart_remaining(c);
        c->pos = start;
        return gch_dart_fail_at(c, start, "%s: length %llu exceeds the %llu bytes left", what,
                                (unsigned long long)n, left);
    }
    gch_dart_read_bytes(c, n, &p, what);
    *out = (const char *)p;
    *len = (size_t)n;
    return GCH_OK;
}

gch_status gch_dart_read_count(gch_dart_cursor *c, size_t min_item_bytes, uint64_t *out,
                               const char *what)
{
    size_t start = c->pos;
    uint64_t n;
    gch_status st = gch_dart_read_uleb(c, &n, what);
    if (st != GCH_OK)
        return st;
    if (min_item_bytes && n > gch_dart_remaining(c) / min_item_bytes) {
        unsigned long long left = gch_dart_remaining(c);
        c->pos = start;
        return gch_dart_fail_at(c, start, "%s %llu is more than the %llu bytes left can hold", what,
                                (unsigned long long)n, left);
    }
    *out = n;
    return GCH_OK;
}
