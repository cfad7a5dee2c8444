/* Format detection and dispatch to the readers: see include/gcheap/load.h. */
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/load.h"

static const char *const format_names[] = { "auto", "gclog", "gcdump", "dart" };

const char *gch_format_name(gch_format format)
{
    return (unsigned)format < sizeof format_names / sizeof *format_names ? format_names[format] : "?";
}

int gch_format_parse(const char *name, gch_format *out)
{
    for (unsigned i = 0; i < sizeof format_names / sizeof *format_names; i++) {
        if (strcmp(name, format_names[i]) == 0) {
            *out = (gch_format)i;
            return 0;
        }
    }
    return -1;
}

gch_format gch_detect_format(const void *head, size_t n)
{
    static const char fast[] = "!FastSerialization";
    static const unsigned char fast_length[4] = { 20, 0, 0, 0 };
    const unsigned char *p = head;
    if (n >= 8 && memcmp(p, "dartheap", 8) == 0)
        return GCH_FORMAT_DART;
    if (n >= 4 + sizeof fast - 1 && memcmp(p + 4, fast, sizeof fast - 1) == 0)
        return GCH_FORMAT_GCDUMP;
    /* A whole input shorter than its signature that starts like one is a
     * binary dump cut short: its reader says so at an offset (a .gclog
     * message about an unknown record would mislead). */
    if (n > 0 && n < 8 && memcmp(p, "dartheap", n) == 0)
        return GCH_FORMAT_DART;
    if (n > 0 && n < 4 + sizeof fast - 1 &&
        memcmp(p, fast_length, n < 4 ? n : 4) == 0 &&
        (n <= 4 || memcmp(p + 4, fast, n - 4) == 0))
        return GCH_FORMAT_GCDUMP;
    return GCH_FORMAT_GCLOG;
}

/* A source that first replays bytes already read for detection. */
typedef struct replay {
    const gch_source *inner;
    const unsigned char *head;
    size_t head_size, head_pos;
} replay;

static long long replay_read(void *ctx, void *buf, size_t cap)
{
    replay *r = ctx;
    if (r->head_pos < r->head_size) {
        size_t n = r->head_size - r->head_pos;
        if (n > cap)
            n = cap;
        memcpy(buf, r->head + r->head_pos, n);
        r->head_pos += n;
        return (long long)n;
    }
    return r->inner->read(r->inner->ctx, buf, cap);
}

/* Reads the whole source into one buffer (binary formats decode from memory). */
static gch_status slurp(const gch_source *src, unsigned char **out, size_t *size, gch_error *err)
{
    size_t cap = 1u << 20, len = 0;
    unsigned char *buf = gch_malloc(cap);
    if (!buf)
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    for (;;) {
        if (len == cap) {
            unsigned char *nb = cap <= SIZE_MAX / 2 ? gch_realloc(buf, cap * 2) : NULL;
            if (!nb) {
                gch_free(buf);
                return gch_error_set(err, GCH_ENOMEM, "out of memory reading the input");
            }
            buf = nb;
            cap *= 2;
        }
        long long got = src->read(src->ctx, buf + len, cap - len);
        if (got < 0) {
            gch_free(buf);
            return gch_error_set(err, GCH_EIO, "read error");
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    *out = buf;
    *size = len;
    return GCH_OK;
}

gch_status gch_load(const gch_source *src, gch_format format, const gch_load_options *opts,
                    gch_dump **out, gch_error *err)
{
    gch_error_clear(err);
    *out = NULL;
    unsigned char head[64];
    size_t n = 0;
    /* Read the head fully (a pipe may deliver it in pieces). */
    while (n < sizeof head) {
        long long got = src->read(src->ctx, head + n, sizeof head - n);
        if (got < 0)
            return gch_error_set(err, GCH_EIO, "read error");
        if (got == 0)
            break;
        n += (size_t)got;
    }
    if (format == GCH_FORMAT_AUTO)
        format = gch_detect_format(head, n);
    replay rp = { src, head, n, 0 };
    gch_source chained = { replay_read, &rp };
    if (format == GCH_FORMAT_GCLOG)
        return gch_read_gclog(&chained, opts, out, err);

    unsigned char *data = NULL;
    size_t size = 0;
    gch_status st = slurp(&chained, &data, &size, err);
    if (st != GCH_OK)
        return st;
    if (format == GCH_FORMAT_GCDUMP)
        st = gch_read_gcdump_buffer(data, size, opts, out, err);
    else if (format == GCH_FORMAT_DART)
        st = gch_read_dart_buffer(data, size, opts, out, err);
    else
        st = gch_error_set(err, GCH_EINVAL, "unknown input format");
    gch_free(data);
    return st;
}

gch_status gch_load_buffer(const void *data, size_t size, gch_format format,
                           const gch_load_options *opts, gch_dump **out, gch_error *err)
{
    gch_error_clear(err);
    *out = NULL;
    if (format == GCH_FORMAT_AUTO)
        format = gch_detect_format(data, size);
    switch (format) {
    case GCH_FORMAT_GCLOG:
        return gch_read_gclog_buffer(data, size, opts, out, err);
    case GCH_FORMAT_GCDUMP:
        return gch_read_gcdump_buffer(data, size, opts, out, err);
    case GCH_FORMAT_DART:
        return gch_read_dart_buffer(data, size, opts, out, err);
    default:
        return gch_error_set(err, GCH_EINVAL, "unknown input format");
    }
}
