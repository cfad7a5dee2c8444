/* The gzip wrapper (RFC 1952): see gzip.h. */
#include "gzip.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"

#define HISTORY 32768u        /* the farthest a DEFLATE match reaches back */
#define WORK (1u << 20)       /* output made per refill of the buffer */

/* Header flag bits (RFC 1952, 2.3.1). */
#define FHCRC 0x02
#define FEXTRA 0x04
#define FNAME 0x08
#define FCOMMENT 0x10
#define FRESERVED 0xe0

enum { P_HEADER, P_DATA, P_DONE, P_FAILED };

struct gch_gunzip {
    gch_bitin in;
    int phase;
    unsigned long members;
    uint32_t crc;          /* of the current member's data so far */
    uint32_t isize;        /* its length, modulo 2^32 */
    uint64_t out_total;
    unsigned char *buf;    /* [0, lo) older output, [lo, pos) this member's history and new data */
    size_t cap, lo, pos, given; /* [given, pos) is not handed out yet */
    gch_error err;
    gch_inflate inf;
};

int gch_gzip_magic(const void *head, size_t n)
{
    const unsigned char *p = head;
    return n >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

gch_status gch_gunzip_new(gch_pull_fn pull, void *ctx, gch_gunzip **out, gch_error *err)
{
    *out = NULL;
    gch_gunzip *z = gch_calloc(1, sizeof *z);
    if (z)
        z->buf = gch_malloc(HISTORY + WORK + GCH_INFLATE_ROOM);
    if (!z || !z->buf) {
        gch_free(z);
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    }
    z->cap = HISTORY + WORK + GCH_INFLATE_ROOM;
    gch_bitin_init(&z->in, pull, ctx);
    gch_error_clear(&z->err);
    z->phase = P_HEADER;
    *out = z;
    return GCH_OK;
}

void gch_gunzip_free(gch_gunzip *z)
{
    if (!z)
        return;
    gch_free(z->buf);
    gch_free(z);
}

const gch_error *gch_gunzip_error(const gch_gunzip *z) { return &z->err; }
uint64_t gch_gunzip_in_offset(const gch_gunzip *z) { return gch_bitin_offset(&z->in); }
uint64_t gch_gunzip_out_total(const gch_gunzip *z) { return z->out_total; }
unsigned long gch_gunzip_members(const gch_gunzip *z) { return z->members; }

/* Records a failure at offset (in the compressed input); -1 for the caller. */
static int fail(gch_gunzip *z, uint64_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int fail(gch_gunzip *z, uint64_t offset, const char *fmt, ...)
{
    gch_error *e = &z->err;
    gch_error_clear(e);
    z->phase = P_FAILED;
    if (z->in.failed) {
        e->status = GCH_EIO;
        snprintf(e->message, sizeof e->message, "read error");
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    gch_error_vat(e, offset, fmt, ap);
    va_end(ap);
    return -1;
}

static int truncated(gch_gunzip *z, const char *where)
{
    return fail(z, gch_bitin_offset(&z->in), "gzip: unexpected end of the compressed data in %s "
                                             "(truncated file?)", where);
}

/* A header byte, also counted into the header CRC; -1 at the end. */
static int header_byte(gch_gunzip *z, uint32_t *hcrc)
{
    int b = gch_bitin_byte(&z->in);
    if (b >= 0) {
        unsigned char c = (unsigned char)b;
        *hcrc = gch_crc32(*hcrc, &c, 1);
    }
    return b;
}

/* Skips a zero-terminated header field. */
static int skip_string(gch_gunzip *z, uint32_t *hcrc)
{
    int b;
    while ((b = header_byte(z, hcrc)) > 0)
        ;
    return b < 0 ? truncated(z, "the gzip header") : 0;
}

static int read_header(gch_gunzip *z)
{
    uint64_t at = gch_bitin_offset(&z->in);
    uint32_t hcrc = 0;
    int h[10], n = 0;
    for (; n < 10; n++)
        if ((h[n] = header_byte(z, &hcrc)) < 0)
            break;
    /* Bytes that cannot start a member: after a member, trailing garbage. */
    int magic = n >= 2 ? h[0] == 0x1f && h[1] == 0x8b : n == 0 || h[0] == 0x1f;
    if (!magic) {
        if (z->members)
            return fail(z, at, "gzip: trailing garbage after the compressed data (member %lu ends at "
                               "offset %llu)", z->members, (unsigned long long)at);
        return fail(z, at, "gzip: not gzip data (no 1f 8b signature)");
    }
    if (n < 10)
        return truncated(z, "the gzip header");
    if (h[2] != 8)
        return fail(z, at + 2, "gzip: unknown compression method %d (only 8, deflate, exists)", h[2]);
    int flags = h[3];
    if (flags & FRESERVED)
        return fail(z, at + 3, "gzip: reserved header flag bits set (flags 0x%02x)", flags);
    if (flags & FEXTRA) {
        int lo = header_byte(z, &hcrc), hi = header_byte(z, &hcrc);
        if (lo < 0 || hi < 0)
            return truncated(z, "the gzip header");
        for (unsigned n = (unsigned)lo | (unsigned)hi << 8; n > 0; n--)
            if (header_byte(z, &hcrc) < 0)
                return truncated(z, "the gzip header");
    }
    if ((flags & FNAME) && skip_string(z, &hcrc) < 0)
        return -1;
    if ((flags & FCOMMENT) && skip_string(z, &hcrc) < 0)
        return -1;
    if (flags & FHCRC) {
        uint64_t crc_at = gch_bitin_offset(&z->in);
        uint32_t want = hcrc & 0xffff;
        int lo = gch_bitin_byte(&z->in), hi = gch_bitin_byte(&z->in);
        if (lo < 0 || hi < 0)
            return truncated(z, "the gzip header");
        unsigned got = (unsigned)lo | (unsigned)hi << 8;
        if (got != want)
            return fail(z, crc_at, "gzip: header CRC mismatch (header 0x%04x, stored 0x%04x)",
                        (unsigned)want, got);
    }
    return 0;
}

static uint32_t read_le32(gch_gunzip *z, int *ok)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        int b = gch_bitin_byte(&z->in);
        if (b < 0)
            *ok = 0;
        v |= (uint32_t)(b & 0xff) << (8 * i);
    }
    return v;
}

static int read_trailer(gch_gunzip *z)
{
    gch_bitin_align(&z->in);
    uint64_t at = gch_bitin_offset(&z->in);
    int ok = 1;
    uint32_t crc = read_le32(z, &ok), isize = read_le32(z, &ok);
    if (!ok)
        return truncated(z, "the gzip trailer");
    if (crc != z->crc)
        return fail(z, at, "gzip: CRC-32 mismatch (data 0x%08x, trailer 0x%08x): corrupt data", (unsigned)z->crc,
                    (unsigned)crc);
    if (isize != z->isize)
        return fail(z, at + 4, "gzip: length mismatch (data %u bytes modulo 2^32, trailer %u)",
                    (unsigned)z->isize, (unsigned)isize);
    return 0;
}

/* Keeps the last HISTORY bytes of the member at the front of the buffer. */
static void make_room(gch_gunzip *z)
{
    size_t keep = z->pos - z->lo < HISTORY ? z->pos - z->lo : HISTORY;
    memmove(z->buf, z->buf + z->pos - keep, keep);
    z->lo = 0;
    z->pos = z->given = keep;
}

/* Moves on: a header, some data, or a trailer. 0 or -1 (failed). */
static int step(gch_gunzip *z)
{
    if (z->phase == P_HEADER) {
        if (z->members && gch_bitin_at_end(&z->in)) {
            if (z->in.failed)
                return fail(z, 0, "read error");
            z->phase = P_DONE;
            return 0;
        }
        if (read_header(z) < 0)
            return -1;
        z->members++;
        gch_inflate_reset(&z->inf);
        z->crc = 0;
        z->isize = 0;
        z->lo = z->pos; /* no match reaches into an earlier member */
        z->phase = P_DATA;
        return 0;
    }
    if (z->cap - z->pos < HISTORY / 2)
        make_room(z);
    size_t before = z->pos;
    gch_inflate_result r = gch_inflate_run(&z->inf, &z->in, z->buf, z->lo, &z->pos, z->cap);
    size_t made = z->pos - before;
    z->crc = gch_crc32(z->crc, z->buf + before, made);
    z->isize += (uint32_t)made;
    z->out_total += made;
    if (r == GCH_INFLATE_ERROR) {
        if (strcmp(z->inf.message, "unexpected end of input") == 0)
            return truncated(z, "the deflate data");
        return fail(z, z->inf.error_offset, "gzip: corrupt deflate data: %s", z->inf.message);
    }
    if (r == GCH_INFLATE_END) {
        if (read_trailer(z) < 0)
            return -1;
        z->phase = P_HEADER;
    }
    return 0;
}

long long gch_gunzip_read(gch_gunzip *z, void *buf, size_t cap)
{
    if (cap > (size_t)1 << 30)
        cap = (size_t)1 << 30;
    for (;;) {
        if (z->given < z->pos && cap) {
            size_t n = z->pos - z->given;
            if (n > cap)
                n = cap;
            memcpy(buf, z->buf + z->given, n);
            z->given += n;
            return (long long)n;
        }
        if (z->phase == P_FAILED)
            return -1;
        if (z->phase == P_DONE || !cap)
            return 0;
        if (step(z) < 0)
            return -1;
    }
}

gch_status gch_gunzip_buffer(const void *data, size_t size, unsigned char **out, size_t *out_size,
                             gch_error *err)
{
    *out = NULL;
    *out_size = 0;
    gch_mem_input m = { data, size, 0 };
    gch_gunzip *z;
    gch_status st = gch_gunzip_new(gch_mem_pull, &m, &z, err);
    if (st != GCH_OK)
        return st;
    size_t cap = 1u << 16, len = 0;
    unsigned char *buf = gch_malloc(cap);
    if (!buf) {
        gch_gunzip_free(z);
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    }
    for (;;) {
        if (len == cap) {
            unsigned char *nb = cap <= SIZE_MAX / 2 ? gch_realloc(buf, cap * 2) : NULL;
            if (!nb) {
                st = gch_error_set(err, GCH_ENOMEM, "out of memory (%zu bytes decompressed)", len);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        long long got = gch_gunzip_read(z, buf + len, cap - len);
        if (got < 0) {
            if (err)
                *err = z->err;
            st = z->err.status;
            break;
        }
        if (got == 0)
            break;
        len += (size_t)got;
    }
    gch_gunzip_free(z);
    if (st != GCH_OK) {
        gch_free(buf);
        return st;
    }
    *out = buf;
    *out_size = len;
    return GCH_OK;
}
