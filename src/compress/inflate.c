/* DEFLATE decoding (RFC 1951) and CRC-32: see inflate.h.
 *
 * Huffman codes are decoded with tables: a root table indexed by the next 10
 * (literal/length) or 8 (distance) input bits, whose entries either give the
 * symbol at once or point to a second-level table for longer codes, as in
 * zlib's inflate_table. A 64-bit bit buffer holds at least 56 bits at the
 * top of each step, enough for a whole length/distance pair (48 bits at most),
 * so a step refills once, with one unaligned load while 8 input bytes are
 * left in the chunk.
 */
#include "inflate.h"

#include <string.h>
#include <threads.h>

#include "gcheap/alloc.h"

/* ------------------------------------------------------------------------ */
/* Bit input */

static uint64_t load_le64(const unsigned char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
#else
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
#endif
}

void gch_bitin_init(gch_bitin *in, gch_pull_fn pull, void *ctx)
{
    memset(in, 0, sizeof *in);
    in->pull = pull;
    in->ctx = ctx;
}

static int pull_more(gch_bitin *in)
{
    if (in->eof || in->failed)
        return 0;
    const unsigned char *chunk = NULL;
    long long got = in->pull(in->ctx, &chunk);
    if (got > 0) {
        in->next = chunk;
        in->end = chunk + got;
        in->pulled += (uint64_t)got;
        return 1;
    }
    if (got == 0)
        in->eof = 1;
    else
        in->failed = 1;
    return 0;
}

/* Fills the bit buffer to 56..63 bits, a byte at a time, pulling chunks and,
 * past the end of the input, feeding zero bytes. The bits above `count` are
 * either zero or those of the byte at `next` (left by a word-sized refill),
 * so OR-ing that byte in again is harmless. */
static void refill_slow(gch_bitin *in)
{
    while (in->count < 56) {
        if (in->next == in->end && !pull_more(in)) {
            in->pad++;
            in->count += 8;
            continue;
        }
        in->bits |= (uint64_t)*in->next++ << in->count;
        in->count += 8;
    }
}

static void refill(gch_bitin *in)
{
    if (in->end - in->next >= 8) {
        in->bits |= load_le64(in->next) << in->count;
        in->next += (63 - in->count) >> 3;
        in->count |= 56;
    } else {
        refill_slow(in);
    }
}

static void need(gch_bitin *in, unsigned n)
{
    if (in->count < n)
        refill(in);
}

static void drop(gch_bitin *in, unsigned n)
{
    in->bits >>= n;
    in->count -= n;
}

int gch_bitin_overrun(const gch_bitin *in)
{
    return in->count < 8u * in->pad;
}

uint64_t gch_bitin_offset(const gch_bitin *in)
{
    uint64_t at_next = in->pulled - (uint64_t)(in->end - in->next);
    if (gch_bitin_overrun(in))
        return at_next;
    unsigned real = in->count - 8u * in->pad;
    return at_next - (real + 7) / 8;
}

void gch_bitin_align(gch_bitin *in)
{
    drop(in, in->count & 7);
}

int gch_bitin_byte(gch_bitin *in)
{
    if (in->count >= 8) {
        if (in->count <= 8u * in->pad)
            return -1;
        int v = (int)(in->bits & 0xff);
        drop(in, 8);
        return v;
    }
    /* Reading past the bit buffer: it must hold no stale bits of this byte. */
    in->bits = 0;
    if (in->next == in->end && !pull_more(in))
        return -1;
    return *in->next++;
}

int gch_bitin_at_end(gch_bitin *in)
{
    if (in->count > 8u * in->pad)
        return 0;
    if (in->next < in->end)
        return 0;
    return !pull_more(in);
}

/* ------------------------------------------------------------------------ */
/* Decoding tables
 *
 * An entry: bits 0-4 the number of input bits it accounts for (the code
 * length, or the root size for a link), bits 5-9 the extra bits that follow
 * (or the index size of the linked table), bits 10-12 the kind, bits 16-31
 * the value (literal byte, length or distance base, linked table start). */

enum { K_LIT = 0, K_LEN = 1, K_END = 2, K_SUB = 3, K_BAD = 4, K_DIST = 5 };

#define E_BITS(e) ((e) & 31u)
#define E_EXTRA(e) (((e) >> 5) & 31u)
#define E_KIND(e) (((e) >> 10) & 7u)
#define E_VAL(e) ((e) >> 16)
#define ENTRY(kind, extra, val) ((uint32_t)(kind) << 10 | (uint32_t)(extra) << 5 | (uint32_t)(val) << 16)
#define LOW_BITS(x, n) ((unsigned)(x) & ((1u << (n)) - 1))

#define LITLEN_ROOT 10
#define DIST_ROOT 8
#define CLEN_ROOT 7

static const uint16_t length_base[29] = { 3,  4,  5,  6,  7,  8,  9,  10, 11,  13,
                                          15, 17, 19, 23, 27, 31, 35, 43, 51,  59,
                                          67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t length_extra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                          2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
static const uint16_t dist_base[30] = { 1,    2,    3,    4,    5,    7,     9,     13,    17,  25,
                                        33,   49,   65,   97,   129,  193,   257,   385,   513, 769,
                                        1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577 };
static const uint8_t dist_extra[30] = { 0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                        6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13 };

enum { CODE_CLEN, CODE_LITLEN, CODE_DIST };

/* What decoding symbol sym of a code means, without its length. */
static uint32_t payload(int which, unsigned sym)
{
    if (which == CODE_CLEN)
        return ENTRY(K_LIT, 0, sym);
    if (which == CODE_LITLEN) {
        if (sym < 256)
            return ENTRY(K_LIT, 0, sym);
        if (sym == 256)
            return ENTRY(K_END, 0, 0);
        if (sym < 286)
            return ENTRY(K_LEN, length_extra[sym - 257], length_base[sym - 257]);
        return ENTRY(K_BAD, 0, 0);
    }
    if (sym < 30)
        return ENTRY(K_DIST, dist_extra[sym], dist_base[sym]);
    return ENTRY(K_BAD, 0, 0);
}

/* Builds the table of the canonical code with lengths lens[0..n) into
 * t[0..cap). Returns NULL, or what is wrong with the code. A code with no
 * symbols makes a table of invalid entries (RFC 1951 allows a block with no
 * distance codes); an incomplete code is accepted only when it is one code of
 * one bit, as zlib does. */
static const char *build(uint32_t *t, unsigned cap, unsigned root, const uint8_t *lens, unsigned n,
                         int which)
{
    unsigned count[16] = { 0 }, offs[16], left[16];
    uint16_t sorted[288];
    for (unsigned s = 0; s < n; s++)
        count[lens[s]]++;
    unsigned max = 15;
    while (max > 0 && count[max] == 0)
        max--;
    unsigned size = 1u << root;
    if (max == 0) {
        for (unsigned i = 0; i < size; i++)
            t[i] = ENTRY(K_BAD, 0, 0);
        return NULL;
    }
    int room = 1;
    for (unsigned len = 1; len <= 15; len++) {
        room = room * 2 - (int)count[len];
        if (room < 0)
            return "over-subscribed code";
    }
    if (room > 0) {
        if (which == CODE_CLEN || max != 1)
            return "incomplete code";
        for (unsigned i = 0; i < size; i++)
            t[i] = ENTRY(K_BAD, 0, 0);
    }
    offs[1] = 0;
    for (unsigned len = 1; len < 15; len++)
        offs[len + 1] = offs[len] + count[len];
    for (unsigned s = 0; s < n; s++)
        if (lens[s])
            sorted[offs[lens[s]]++] = (uint16_t)s;
    unsigned total = n - count[0];
    memcpy(left, count, sizeof left);

    /* huff is the current code bit-reversed (the order bits arrive in); codes
     * longer than root share a second-level table per value of their first
     * root bits, sized for the codes that remain (zlib's method). */
    unsigned huff = 0, used = size, low = ~0u, sub = 0, sub_bits = 0;
    for (unsigned i = 0; i < total; i++) {
        unsigned s = sorted[i], len = lens[s];
        uint32_t pl = payload(which, s);
        if (len <= root) {
            for (unsigned k = huff; k < size; k += 1u << len)
                t[k] = pl | len;
        } else {
            if ((huff & (size - 1)) != low) {
                low = huff & (size - 1);
                sub_bits = len - root;
                int want = 1 << sub_bits;
                while (sub_bits + root < max) {
                    want -= (int)left[sub_bits + root];
                    if (want <= 0)
                        break;
                    sub_bits++;
                    want <<= 1;
                }
                if (used + (1u << sub_bits) > cap)
                    return "code too long"; /* cannot happen for a complete code */
                sub = used;
                used += 1u << sub_bits;
                t[low] = ENTRY(K_SUB, sub_bits, sub) | root;
            }
            for (unsigned k = huff >> root; k < (1u << sub_bits); k += 1u << (len - root))
                t[sub + k] = pl | (len - root);
        }
        left[len]--;
        unsigned incr = 1u << (len - 1);
        while (huff & incr)
            incr >>= 1;
        huff = incr ? (huff & (incr - 1)) + incr : 0;
    }
    return NULL;
}

static void build_fixed(gch_inflate *s)
{
    uint8_t lens[288];
    memset(lens, 8, 144);
    memset(lens + 144, 9, 112);
    memset(lens + 256, 7, 24);
    memset(lens + 280, 8, 8);
    (void)build(s->litlen, GCH_INFLATE_LITLEN_ENTRIES, LITLEN_ROOT, lens, 288, CODE_LITLEN);
    memset(lens, 5, 32);
    (void)build(s->dist, GCH_INFLATE_DIST_ENTRIES, DIST_ROOT, lens, 32, CODE_DIST);
    s->fixed_loaded = 1;
}

/* Reads a dynamic block's code descriptions and builds its tables. */
static const char *read_dynamic(gch_inflate *s, gch_bitin *in)
{
    static const uint8_t order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    need(in, 14);
    unsigned nlen = LOW_BITS(in->bits, 5) + 257, ndist = LOW_BITS(in->bits >> 5, 5) + 1;
    unsigned ncode = LOW_BITS(in->bits >> 10, 4) + 4;
    drop(in, 14);
    if (nlen > 286 || ndist > 30)
        return "too many length or distance symbols";
    uint8_t clen[19] = { 0 };
    for (unsigned i = 0; i < ncode; i++) {
        need(in, 3);
        clen[order[i]] = (uint8_t)LOW_BITS(in->bits, 3);
        drop(in, 3);
    }
    uint32_t ct[1u << CLEN_ROOT];
    if (build(ct, 1u << CLEN_ROOT, CLEN_ROOT, clen, 19, CODE_CLEN))
        return "invalid code lengths set";
    uint8_t lens[286 + 30];
    unsigned total = nlen + ndist;
    for (unsigned i = 0; i < total;) {
        need(in, 14); /* a code (7 bits at most) and its repeat count (7) */
        uint32_t e = ct[LOW_BITS(in->bits, CLEN_ROOT)];
        if (E_KIND(e) == K_BAD)
            return "invalid code lengths set";
        drop(in, E_BITS(e));
        unsigned sym = E_VAL(e), rep, value = 0;
        if (sym < 16) {
            lens[i++] = (uint8_t)sym;
            continue;
        }
        if (sym == 16) {
            if (i == 0)
                return "invalid bit length repeat";
            value = lens[i - 1];
            rep = 3 + LOW_BITS(in->bits, 2);
            drop(in, 2);
        } else if (sym == 17) {
            rep = 3 + LOW_BITS(in->bits, 3);
            drop(in, 3);
        } else {
            rep = 11 + LOW_BITS(in->bits, 7);
            drop(in, 7);
        }
        if (rep > total - i)
            return "invalid bit length repeat";
        memset(lens + i, (int)value, rep);
        i += rep;
    }
    if (lens[256] == 0)
        return "invalid code: missing end-of-block";
    s->fixed_loaded = 0;
    if (build(s->litlen, GCH_INFLATE_LITLEN_ENTRIES, LITLEN_ROOT, lens, nlen, CODE_LITLEN))
        return "invalid literal/lengths set";
    if (build(s->dist, GCH_INFLATE_DIST_ENTRIES, DIST_ROOT, lens + nlen, ndist, CODE_DIST))
        return "invalid distances set";
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Decoding */

enum { S_HEADER, S_STORED, S_HUFFMAN, S_DONE, S_FAILED };

void gch_inflate_reset(gch_inflate *s)
{
    s->state = S_HEADER;
    s->final = 0;
    s->stored_left = 0;
    s->message = NULL;
    s->error_offset = 0;
    /* fixed_loaded and the tables stay: a fixed code is the same in every stream. */
}

static gch_inflate_result fail(gch_inflate *s, const gch_bitin *in, const char *message)
{
    /* Garbage decoded from the padding is a symptom: the cause is the end. */
    if (gch_bitin_overrun(in))
        message = "unexpected end of input";
    if (in->failed)
        message = "read error";
    s->message = message;
    s->error_offset = gch_bitin_offset(in);
    s->state = S_FAILED;
    return GCH_INFLATE_ERROR;
}

/* A block ended: the next one, or the end of the stream. */
static void block_done(gch_inflate *s)
{
    s->state = s->final ? S_DONE : S_HEADER;
}

static const char *read_block_header(gch_inflate *s, gch_bitin *in)
{
    need(in, 3);
    s->final = (int)(in->bits & 1);
    unsigned type = LOW_BITS(in->bits >> 1, 2);
    drop(in, 3);
    switch (type) {
    case 0: {
        gch_bitin_align(in);
        need(in, 32);
        unsigned len = LOW_BITS(in->bits, 16), nlen = LOW_BITS(in->bits >> 16, 16);
        drop(in, 32);
        if (len != (~nlen & 0xffffu))
            return "invalid stored block lengths";
        s->stored_left = len;
        s->state = S_STORED;
        return NULL;
    }
    case 1:
        if (!s->fixed_loaded)
            build_fixed(s);
        s->state = S_HUFFMAN;
        return NULL;
    case 2: {
        const char *msg = read_dynamic(s, in);
        if (msg)
            return msg;
        s->state = S_HUFFMAN;
        return NULL;
    }
    default:
        return "invalid block type";
    }
}

/* Copies stored bytes: from the bit buffer first, then straight from the input. */
static gch_inflate_result copy_stored(gch_inflate *s, gch_bitin *in, unsigned char *out, size_t *pos,
                                      size_t cap)
{
    while (s->stored_left) {
        if (*pos == cap)
            return GCH_INFLATE_MORE;
        if (in->count >= 8) {
            if (in->count <= 8u * in->pad)
                return fail(s, in, "unexpected end of input");
            out[(*pos)++] = (unsigned char)in->bits;
            drop(in, 8);
            s->stored_left--;
            continue;
        }
        in->bits = 0;
        if (in->next == in->end && !pull_more(in))
            return fail(s, in, "unexpected end of input");
        size_t n = (size_t)(in->end - in->next);
        if (n > s->stored_left)
            n = s->stored_left;
        if (n > cap - *pos)
            n = cap - *pos;
        memcpy(out + *pos, in->next, n);
        in->next += n;
        *pos += n;
        s->stored_left -= (uint32_t)n;
    }
    block_done(s);
    return GCH_INFLATE_MORE;
}

/* Copies a match of len bytes from dist bytes back; may write up to 7 bytes
 * past the end of the match (the caller leaves GCH_INFLATE_ROOM). */
static unsigned char *copy_match(unsigned char *op, size_t dist, unsigned len)
{
    const unsigned char *src = op - dist;
    unsigned char *stop = op + len;
    if (dist >= 16) {
        do {
            memcpy(op, src, 16);
            op += 16;
            src += 16;
        } while (op < stop);
    } else if (dist >= 8) {
        do {
            memcpy(op, src, 8);
            op += 8;
            src += 8;
        } while (op < stop);
    } else if (dist == 1) {
        memset(op, *src, len);
    } else {
        do
            *op++ = *src++;
        while (op < stop);
    }
    return stop;
}

/* Decodes a Huffman block until it ends or the output is nearly full. The bit
 * reader's fields live in locals for the loop. */
static gch_inflate_result decode_huffman(gch_inflate *s, gch_bitin *in, unsigned char *out, size_t lo,
                                         size_t *pos, size_t cap)
{
    const uint32_t *lt = s->litlen, *dt = s->dist;
    uint64_t bits = in->bits;
    unsigned count = in->count;
    const unsigned char *next = in->next, *end = in->end;
    unsigned char *op = out + *pos;
    const unsigned char *const limit = out + cap - GCH_INFLATE_ROOM, *const window = out + lo;
    const char *msg = NULL;
    int ended = 0;
    while (op <= limit) {
        if (end - next >= 8) {
            bits |= load_le64(next) << count;
            next += (63 - count) >> 3;
            count |= 56;
        } else {
            in->bits = bits, in->count = count, in->next = next;
            /* Bits past the end were used: stop now, not when the output is
             * full of what the zero padding decodes to. */
            if (gch_bitin_overrun(in))
                break;
            refill_slow(in);
            bits = in->bits, count = in->count, next = in->next, end = in->end;
        }
        uint32_t e = lt[LOW_BITS(bits, LITLEN_ROOT)];
        if (E_KIND(e) == K_SUB) {
            bits >>= LITLEN_ROOT;
            count -= LITLEN_ROOT;
            e = lt[E_VAL(e) + LOW_BITS(bits, E_EXTRA(e))];
        }
        bits >>= E_BITS(e);
        count -= E_BITS(e);
        if (E_KIND(e) == K_LIT) {
            *op++ = (unsigned char)E_VAL(e);
            continue;
        }
        if (E_KIND(e) != K_LEN) {
            if (E_KIND(e) == K_END)
                ended = 1;
            else
                msg = "invalid literal/length code";
            break;
        }
        unsigned len = E_VAL(e) + LOW_BITS(bits, E_EXTRA(e));
        bits >>= E_EXTRA(e);
        count -= E_EXTRA(e);
        e = dt[LOW_BITS(bits, DIST_ROOT)];
        if (E_KIND(e) == K_SUB) {
            bits >>= DIST_ROOT;
            count -= DIST_ROOT;
            e = dt[E_VAL(e) + LOW_BITS(bits, E_EXTRA(e))];
        }
        bits >>= E_BITS(e);
        count -= E_BITS(e);
        if (E_KIND(e) != K_DIST) {
            msg = "invalid distance code";
            break;
        }
        size_t dist = E_VAL(e) + LOW_BITS(bits, E_EXTRA(e));
        bits >>= E_EXTRA(e);
        count -= E_EXTRA(e);
        if (dist > (size_t)(op - window)) {
            msg = "invalid distance too far back";
            break;
        }
        op = copy_match(op, dist, len);
    }
    in->bits = bits, in->count = count, in->next = next;
    *pos = (size_t)(op - out);
    if (msg || gch_bitin_overrun(in))
        return fail(s, in, msg);
    if (ended)
        block_done(s);
    return GCH_INFLATE_MORE;
}

gch_inflate_result gch_inflate_run(gch_inflate *s, gch_bitin *in, unsigned char *out, size_t lo,
                                   size_t *pos, size_t cap)
{
    for (;;) {
        const char *msg;
        gch_inflate_result r;
        switch (s->state) {
        case S_HEADER:
            if ((msg = read_block_header(s, in)) != NULL || gch_bitin_overrun(in))
                return fail(s, in, msg);
            break;
        case S_STORED:
            r = copy_stored(s, in, out, pos, cap);
            if (r != GCH_INFLATE_MORE || s->state == S_STORED)
                return r;
            break;
        case S_HUFFMAN:
            r = decode_huffman(s, in, out, lo, pos, cap);
            if (r != GCH_INFLATE_MORE || s->state == S_HUFFMAN)
                return r;
            break;
        case S_DONE:
            return GCH_INFLATE_END;
        default:
            return GCH_INFLATE_ERROR;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* A whole stream in memory */

long long gch_mem_pull(void *ctx, const unsigned char **chunk)
{
    gch_mem_input *m = ctx;
    if (m->given || m->size == 0)
        return 0;
    m->given = 1;
    *chunk = m->data;
    return (long long)m->size;
}

gch_status gch_inflate_buffer(const void *data, size_t size, unsigned char **out, size_t *out_size,
                              gch_error *err)
{
    *out = NULL;
    *out_size = 0;
    gch_inflate *s = gch_malloc(sizeof *s);
    size_t cap = 1u << 16, pos = 0;
    unsigned char *buf = gch_malloc(cap);
    if (!s || !buf) {
        gch_free(s);
        gch_free(buf);
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    }
    s->fixed_loaded = 0;
    gch_inflate_reset(s);
    gch_mem_input m = { data, size, 0 };
    gch_bitin in;
    gch_bitin_init(&in, gch_mem_pull, &m);
    gch_status st = GCH_OK;
    for (;;) {
        if (cap - pos < 2 * GCH_INFLATE_ROOM) {
            unsigned char *nb = cap <= SIZE_MAX / 2 ? gch_realloc(buf, cap * 2) : NULL;
            if (!nb) {
                st = gch_error_set(err, GCH_ENOMEM, "out of memory (%zu bytes decompressed)", pos);
                break;
            }
            buf = nb;
            cap *= 2;
        }
        gch_inflate_result r = gch_inflate_run(s, &in, buf, 0, &pos, cap);
        if (r == GCH_INFLATE_ERROR) {
            st = gch_error_at(err, s->error_offset, "%s", s->message);
            break;
        }
        if (r == GCH_INFLATE_END) {
            gch_bitin_align(&in);
            if (!gch_bitin_at_end(&in)) {
                st = gch_error_at(err, gch_bitin_offset(&in),
                                  "data after the end of the deflate stream");
            }
            break;
        }
    }
    gch_free(s);
    if (st != GCH_OK) {
        gch_free(buf);
        return st;
    }
    *out = buf;
    *out_size = pos;
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* CRC-32, eight bytes a step ("slicing-by-8") */

static uint32_t crc_table[8][256];
static once_flag crc_once = ONCE_FLAG_INIT;

static void crc_init(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        crc_table[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++)
        for (int k = 1; k < 8; k++)
            crc_table[k][n] = crc_table[0][crc_table[k - 1][n] & 0xff] ^ (crc_table[k - 1][n] >> 8);
}

uint32_t gch_crc32(uint32_t crc, const void *data, size_t n)
{
    call_once(&crc_once, crc_init);
    const unsigned char *p = data;
    crc = ~crc;
    for (; n >= 8; p += 8, n -= 8) {
        uint32_t a = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        uint32_t b = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        crc = crc_table[7][a & 0xff] ^ crc_table[6][(a >> 8) & 0xff] ^ crc_table[5][(a >> 16) & 0xff] ^
              crc_table[4][a >> 24] ^ crc_table[3][b & 0xff] ^ crc_table[2][(b >> 8) & 0xff] ^
              crc_table[1][(b >> 16) & 0xff] ^ crc_table[0][b >> 24];
    }
    while (n--)
        crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}
