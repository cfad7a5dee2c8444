/* fuzz_inflate: the inflater (src/compress/inflate.c) alone, on arbitrary
 * bytes taken as a raw DEFLATE stream.
 *
 * Each input is decoded two ways, which must agree:
 *   1. gch_inflate_buffer: the whole input at once, into a growing buffer;
 *   2. gch_inflate_run driven by hand: the input pulled in 1-13 byte pieces,
 *      the output into a window of 32 KiB of history plus 1 KiB, slid as the
 *      gzip reader slides it, so decoding stops and resumes everywhere.
 * A failure must be EFORMAT with a message and an offset inside the input;
 * both ways give the same status, message, offset and bytes. A success is
 * then wrapped as a gzip member (its CRC-32 and length from the output) and
 * read back through gch_gunzip_buffer: same bytes.
 */
#include "fuzz_common.h"

#include "gcheap/alloc.h"
#include "gzip.h"
#include "inflate.h"

#define H "fuzz_inflate"
#define HISTORY 32768u
#define CAP (HISTORY + 1024u + GCH_INFLATE_ROOM)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct pieces {
    const uint8_t *p;
    size_t n, at;
    unsigned step;
} pieces;

static long long pieces_pull(void *ctx, const unsigned char **chunk)
{
    pieces *s = ctx;
    if (s->at == s->n)
        return 0;
    size_t k = 1 + (s->step++ * 7u) % 13;
    if (k > s->n - s->at)
        k = s->n - s->at;
    *chunk = s->p + s->at;
    s->at += k;
    return (long long)k;
}

/* Decodes in pieces; checks the output against want[0..want_n) as it comes
 * (want_n is what the whole decode made, up to its error if it failed). */
static gch_inflate_result by_pieces(const uint8_t *data, size_t size, const unsigned char *want, size_t want_n,
                                    gch_inflate *s, gch_bitin *in)
{
    static unsigned char window[CAP];
    pieces src = { data, size, 0, 0 };
    gch_bitin_init(in, pieces_pull, &src);
    s->fixed_loaded = 0;
    gch_inflate_reset(s);
    size_t pos = 0, lo = 0, made = 0;
    for (;;) {
        if (CAP - pos < GCH_INFLATE_ROOM + 1) {
            size_t keep = pos - lo < HISTORY ? pos - lo : HISTORY;
            memmove(window, window + pos - keep, keep);
            lo = 0;
            pos = keep;
        }
        size_t before = pos;
        gch_inflate_result r = gch_inflate_run(s, in, window, lo, &pos, CAP);
        if (r == GCH_INFLATE_ERROR)
            return r; /* the bytes before an error may differ: garbage from padding */
        if (want && (made + (pos - before) > want_n || memcmp(window + before, want + made, pos - before) != 0))
            fuzz_fail(H, "decoding in pieces made other bytes than decoding at once");
        made += pos - before;
        if (r == GCH_INFLATE_END) {
            if (want && made != want_n)
                fuzz_fail(H, "decoding in pieces made fewer bytes than decoding at once");
            return r;
        }
    }
}

static void wrap_and_gunzip(const uint8_t *data, size_t size, const unsigned char *out, size_t n)
{
    /* The stream ends exactly at size (gch_inflate_buffer succeeded). */
    size_t total = 10 + size + 8;
    unsigned char *gz = malloc(total);
    if (!gz)
        return;
    static const unsigned char header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
    memcpy(gz, header, 10);
    memcpy(gz + 10, data, size);
    uint32_t crc = gch_crc32(0, out, n), len = (uint32_t)n;
    for (int i = 0; i < 4; i++) {
        gz[10 + size + i] = (unsigned char)(crc >> (8 * i));
        gz[14 + size + i] = (unsigned char)(len >> (8 * i));
    }
    unsigned char *back;
    size_t back_n;
    gch_error err;
    if (gch_gunzip_buffer(gz, total, &back, &back_n, &err) != GCH_OK)
        fuzz_fail(H, "a good stream wrapped as gzip does not read back");
    if (back_n != n || memcmp(back, out, n) != 0)
        fuzz_fail(H, "a good stream wrapped as gzip reads back other bytes");
    gch_free(back);
    free(gz);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned char *out = NULL;
    size_t n = 0;
    gch_error err;
    gch_status st = gch_inflate_buffer(data, size, &out, &n, &err);
    if (st != GCH_OK && st != GCH_EFORMAT)
        fuzz_fail(H, "unexpected status (not OK or EFORMAT)");
    if (st == GCH_EFORMAT) {
        if (out || !err.has_offset || err.offset > size || !err.message[0])
            fuzz_fail(H, "a failure without a message, or with an offset outside the input");
    }

    static gch_inflate s;
    gch_bitin in;
    /* On failure there is no output to compare with: decode again in pieces
     * and compare only the error. */
    gch_inflate_result r = by_pieces(data, size, st == GCH_OK ? out : NULL, n, &s, &in);
    if (st == GCH_OK) {
        if (r != GCH_INFLATE_END)
            fuzz_fail(H, "decoding in pieces failed where decoding at once succeeded");
        wrap_and_gunzip(data, size, out, n);
    } else if (r == GCH_INFLATE_ERROR) {
        if (strcmp(s.message, err.message) != 0 || s.error_offset != err.offset)
            fuzz_fail(H, "decoding in pieces reports another error");
    }
    else if (!strstr(err.message, "after the end of the deflate stream")) {
        fuzz_fail(H, "decoding in pieces ended where decoding at once failed inside the stream");
    }
    gch_free(out);
    return 0;
}
