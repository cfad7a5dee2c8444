/* Format detection and dispatch to the readers: see include/gcheap/load.h.
 *
 * Order: gzip first (1f 8b: the input is decompressed on the way, and what
 * follows sees the decompressed bytes), then the format from the signature,
 * then, when no format claims the input, what it looks like if it cannot be
 * a dump at all (sniff.h). What each format is, and how it is read, is its
 * row of the reader table (readers.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "gzip.h"
#include "readers.h"
#include "sniff.h"

/* The reader of a known format over a buffer. */
static gch_status read_buffer(const void *data, size_t size, gch_format format,
                              const gch_load_options *opts, gch_dump **out, gch_error *err)
{
    const gch_reader *r = gch_reader_of(format);
    if (!r)
        return gch_error_set(err, GCH_EINVAL, "unknown input format");
    return r->read_buffer(data, size, opts, out, err);
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
        size_t left = r->head_size - r->head_pos, n = left < cap ? left : cap;
        memcpy(buf, r->head + r->head_pos, n);
        r->head_pos += n;
        return (long long)n;
    }
    return r->inner->read(r->inner->ctx, buf, cap);
}

/* Reads the whole source into one buffer (binary formats decode from memory),
 * grown with what arrives. */
static gch_status slurp(const gch_source *src, const char *what, unsigned char **out, size_t *size,
                        gch_error *err)
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
                return gch_error_set(err, GCH_ENOMEM, "out of memory %s (%zu MB held)", what,
                                     len / 1000000);
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

/* The magic check of a binary format, on the first bytes alone: the reader
 * run over them fails as it would over the whole input (its first check is
 * the signature), without reading the rest of a stream that cannot be it. */
static gch_status refuse_early(const unsigned char *head, size_t n, gch_format format,
                               const gch_load_options *opts, gch_dump **out, gch_error *err)
{
    const gch_reader *r = gch_reader_of(format);
    if (!r || !r->refuse_unsigned || gch_detect_format(head, n) == format)
        return GCH_OK;
    gch_status st = read_buffer(head, n, format, opts, out, err);
    if (st == GCH_OK) { /* cannot happen: the signature is not there */
        gch_dump_free(*out);
        *out = NULL;
        st = gch_error_set(err, GCH_EFORMAT, "not a %s file", gch_format_name(format));
    }
    return st;
}

/* Detection on the first bytes: the format, or an error for input that is
 * not a dump. */
static gch_status classify(const unsigned char *head, size_t n, int inside_gzip, gch_format *format,
                           gch_error *err)
{
    if (*format != GCH_FORMAT_AUTO)
        return GCH_OK;
    *format = gch_detect_format(head, n);
    /* Only the fallback format (the one without a signature) may be
     * something else altogether. */
    const gch_reader *r = gch_reader_of(*format);
    const char *looks = r && !r->signature ? gch_sniff_foreign(head, n, inside_gzip) : NULL;
    if (looks)
        return gch_error_set(err, GCH_EFORMAT, "not a heap dump (looks like %s)", looks);
    return GCH_OK;
}

/* A stream whose first n bytes (head) were already read from src. *early
 * (may be NULL) is set when the input was refused from those bytes alone. */
static gch_status load_stream(const gch_source *src, const unsigned char *head, size_t n,
                              gch_format format, int inside_gzip, const gch_load_options *opts,
                              gch_dump **out, gch_error *err, int *early)
{
    gch_status st = classify(head, n, inside_gzip, &format, err);
    if (st == GCH_OK)
        st = refuse_early(head, n, format, opts, out, err);
    if (early)
        *early = st != GCH_OK;
    if (st != GCH_OK)
        return st;
    replay rp = { src, head, n, 0 };
    gch_source chained = { replay_read, &rp };
    const gch_reader *r = gch_reader_of(format);
    if (r && r->read_stream)
        return r->read_stream(&chained, opts, out, err);

    unsigned char *data = NULL;
    size_t size = 0;
    st = slurp(&chained, inside_gzip ? "decompressing the input" : "reading the input", &data, &size,
               err);
    if (st != GCH_OK)
        return st;
    /* Payload offsets would point into this buffer, which goes now; a
     * reader that keeps its payloads in the heap (Dart) keeps them still. */
    gch_load_options whole = opts ? *opts : (gch_load_options){ 0 };
    if (!r || !(r->options & GCH_READS_PAYLOADS_IN_HEAP))
        whole.keep_payloads = 0;
    st = read_buffer(data, size, format, &whole, out, err);
    gch_free(data);
    return st;
}

/* ------------------------------------------------------------------------ */
/* gzip input */

#define GZ_CHUNK (4u << 20) /* compressed bytes handed to the inflater at a time */

typedef struct gz_input {
    /* From memory (a mapped file) ... */
    const unsigned char *data;
    size_t size, given;
    const gch_load_options *release_to; /* parts already inflated are released */
    /* ... or from a source. */
    const gch_source *src;
    unsigned char *buf;

    gch_gunzip *z;
    const gch_load_options *opts; /* the caller's: progress */
    int progress_here;            /* report progress from reads (not on a reader thread) */
    _Atomic uint64_t consumed;    /* compressed bytes inflated, for progress */
} gz_input;

static long long gz_pull(void *ctx, const unsigned char **chunk)
{
    gz_input *g = ctx;
    if (g->src) {
        long long got = g->src->read(g->src->ctx, g->buf, GZ_CHUNK);
        *chunk = g->buf;
        return got;
    }
    if (g->given >= g->size)
        return 0;
    if (g->given >= 2 * (size_t)GZ_CHUNK && g->release_to && g->release_to->release)
        g->release_to->release(g->release_to->release_ctx, g->data + g->given - 2 * GZ_CHUNK,
                               GZ_CHUNK);
    size_t n = g->size - g->given < GZ_CHUNK ? g->size - g->given : GZ_CHUNK;
    *chunk = g->data + g->given;
    g->given += n;
    return (long long)n;
}

static long long gz_read(void *ctx, void *buf, size_t cap)
{
    gz_input *g = ctx;
    long long got = gch_gunzip_read(g->z, buf, cap);
    atomic_store_explicit(&g->consumed, gch_gunzip_in_offset(g->z), memory_order_relaxed);
    if (g->progress_here && g->opts && g->opts->progress)
        g->opts->progress(g->opts->progress_ctx, atomic_load_explicit(&g->consumed, memory_order_relaxed));
    return got;
}

/* Progress of the reader inside: in compressed bytes, as the caller measures the file. */
static void gz_progress(void *ctx, uint64_t decompressed)
{
    (void)decompressed;
    gz_input *g = ctx;
    g->opts->progress(g->opts->progress_ctx, atomic_load_explicit(&g->consumed, memory_order_relaxed));
}

/* Reads what the reader inside left, so that every member's CRC is checked. */
static int gz_drain(gz_input *g)
{
    unsigned char scratch[1u << 14];
    long long got;
    while ((got = gch_gunzip_read(g->z, scratch, sizeof scratch)) > 0)
        ;
    return got < 0 ? -1 : 0;
}

/* An error of the reader inside with an offset: say which data it is in. */
static void mark_decompressed(gch_error *err)
{
    if (!err || !err->has_offset || err->line)
        return;
    size_t len = strlen(err->message);
    snprintf(err->message + len, sizeof err->message - len, " (in the decompressed data)");
}

static gch_status load_gzip(gz_input *g, gch_format format, const gch_load_options *opts,
                            gch_dump **out, gch_error *err)
{
    static const gch_load_options no_options;
    if (!opts)
        opts = &no_options;
    g->opts = opts;
    if (g->src && !(g->buf = gch_malloc(GZ_CHUNK)))
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    gch_status st = gch_gunzip_new(gz_pull, g, &g->z, err);
    if (st != GCH_OK) {
        gch_free(g->buf);
        return st;
    }
    gch_source inner = { gz_read, g };
    unsigned char head[64];
    size_t n = 0;
    long long got = 0;
    while (n < sizeof head && (got = gz_read(g, head + n, sizeof head - n)) > 0)
        n += (size_t)got;

    /* The reader inside decompresses on its reader thread (ahead of the
     * parser: inflating costs more than reading a file), and its progress is
     * told in compressed bytes. */
    gch_load_options inner_opts = *opts;
    inner_opts.no_read_ahead = 0;
    inner_opts.release = NULL;
    inner_opts.progress = opts->progress ? gz_progress : NULL;
    inner_opts.progress_ctx = g;
    gch_format inside = format == GCH_FORMAT_AUTO ? gch_detect_format(head, n) : format;
    /* Formats read whole into memory are read on this thread: progress from here. */
    const gch_reader *r = gch_reader_of(inside);
    g->progress_here = !r || !r->read_stream;
    int early = 0;
    if (got >= 0)
        st = load_stream(&inner, head, n, format, 1, &inner_opts, out, err, &early);
    /* A gzip error comes first: what the reader saw may be garbage out of
     * corrupt data. Otherwise the rest is read, so every CRC is checked even
     * when the reader stopped early, unless the first bytes were enough to
     * refuse the input (that must not cost a pass over all of it). */
    int gz_failed = gch_gunzip_error(g->z)->status != GCH_OK;
    if (!gz_failed && !early && (st == GCH_OK || st == GCH_EFORMAT))
        gz_failed = gz_drain(g) < 0;
    if (gz_failed) {
        gch_dump_free(*out);
        *out = NULL;
        if (err)
            *err = *gch_gunzip_error(g->z);
        st = gch_gunzip_error(g->z)->status;
    } else if (st == GCH_EFORMAT) {
        mark_decompressed(err);
    }
    if (st == GCH_OK)
        (*out)->compression = "gzip";
    gch_gunzip_free(g->z);
    gch_free(g->buf);
    return st;
}

/* ------------------------------------------------------------------------ */

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
    if (gch_gzip_magic(head, n)) {
        replay rp = { src, head, n, 0 };
        gch_source chained = { replay_read, &rp };
        gz_input g;
        memset(&g, 0, sizeof g);
        g.src = &chained;
        return load_gzip(&g, format, opts, out, err);
    }
    return load_stream(src, head, n, format, 0, opts, out, err, NULL);
}

gch_status gch_load_buffer(const void *data, size_t size, gch_format format,
                           const gch_load_options *opts, gch_dump **out, gch_error *err)
{
    gch_error_clear(err);
    *out = NULL;
    if (gch_gzip_magic(data, size)) {
        gz_input g;
        memset(&g, 0, sizeof g);
        g.data = data;
        g.size = size;
        g.release_to = opts;
        return load_gzip(&g, format, opts, out, err);
    }
    gch_status st = classify(data, size < 64 ? size : 64, 0, &format, err);
    if (st != GCH_OK)
        return st;
    return read_buffer(data, size, format, opts, out, err);
}
