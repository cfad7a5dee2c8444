/* The inflater and the gzip wrapper (src/compress) against streams made by
 * others: the real gzip at every level, zlib with every strategy (made once
 * by tests/tools/make_gzip_fixtures.sh into testdata/gzip), concatenated
 * members, every header flag; hand-assembled DEFLATE blocks; every kind of
 * corruption, and the truncation of a small file at every byte. The expected
 * bytes are the files that were compressed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "gzip.h"
#include "inflate.h"

typedef struct bytes {
    unsigned char *p;
    size_t n;
} bytes;

static bytes slurp_fixture(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/gzip/%s", GCHEAP_TESTDATA, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fprintf(stderr, "cannot open %s\n", path);
    assert_non_null(f);
    bytes b = { NULL, 0 };
    size_t cap = 0;
    for (;;) {
        if (b.n == cap) {
            cap = cap ? cap * 2 : 65536;
            b.p = realloc(b.p, cap);
            assert_non_null(b.p);
        }
        size_t got = fread(b.p + b.n, 1, cap - b.n, f);
        if (got == 0)
            break;
        b.n += got;
    }
    fclose(f);
    return b;
}

static void expect_gunzip(const bytes *gz, const bytes *want)
{
    unsigned char *out;
    size_t n;
    gch_error err;
    gch_status st = gch_gunzip_buffer(gz->p, gz->n, &out, &n, &err);
    if (st != GCH_OK)
        fprintf(stderr, "gunzip: offset %llu: %s\n", (unsigned long long)err.offset, err.message);
    assert_int_equal(st, GCH_OK);
    assert_int_equal(n, want->n);
    assert_memory_equal(out, want->p, n);
    gch_free(out);
}

static void check_fixture(const char *gz_name, const bytes *want)
{
    bytes gz = slurp_fixture(gz_name);
    expect_gunzip(&gz, want);
    free(gz.p);
}

static void test_every_gzip_level(void **state)
{
    (void)state;
    bytes text = slurp_fixture("sample.gclog"), bin = slurp_fixture("sample.bin");
    for (int level = 1; level <= 9; level++) {
        char name[64];
        snprintf(name, sizeof name, "sample.gclog.%d.gz", level);
        check_fixture(name, &text);
        snprintf(name, sizeof name, "sample.bin.%d.gz", level);
        check_fixture(name, &bin);
    }
    free(text.p);
    free(bin.p);
}

static void test_zlib_strategies(void **state)
{
    (void)state;
    static const char *const names[] = { "sample.bin.zlib0.gz", "sample.bin.zlib1.gz", "sample.bin.zlib6.gz",
                                         "sample.bin.zlib9.gz", "sample.bin.fixed.gz", "sample.bin.rle.gz",
                                         "sample.bin.huffman.gz", "sample.bin.window9.gz" };
    bytes bin = slurp_fixture("sample.bin");
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        check_fixture(names[i], &bin);
    free(bin.p);
}

/* A pull that hands the input out in pieces of 1 to 13 bytes: every chunk
 * boundary lands inside codes, headers and trailers somewhere. */
typedef struct dribble {
    const unsigned char *p;
    size_t n, at;
    unsigned step;
} dribble;

static long long dribble_pull(void *ctx, const unsigned char **chunk)
{
    dribble *d = ctx;
    if (d->at == d->n)
        return 0;
    size_t k = 1 + d->step++ % 13;
    if (k > d->n - d->at)
        k = d->n - d->at;
    *chunk = d->p + d->at;
    d->at += k;
    return (long long)k;
}

/* Streams gz through small pulls and reads of `cap` bytes. */
static bytes stream_all(const bytes *gz, size_t cap, unsigned long *members, gch_error *err)
{
    dribble d = { gz->p, gz->n, 0, 0 };
    gch_gunzip *z;
    assert_int_equal(gch_gunzip_new(dribble_pull, &d, &z, NULL), GCH_OK);
    bytes out = { malloc(1 << 20), 0 };
    size_t outcap = 1 << 20;
    long long got;
    while ((got = gch_gunzip_read(z, out.p + out.n, out.n + cap <= outcap ? cap : outcap - out.n)) > 0) {
        out.n += (size_t)got;
        if (out.n == outcap) {
            outcap *= 2;
            out.p = realloc(out.p, outcap);
        }
    }
    *err = *gch_gunzip_error(z);
    if (got < 0) {
        free(out.p);
        out.p = NULL;
    }
    *members = gch_gunzip_members(z);
    gch_gunzip_free(z);
    return out;
}

static void test_concatenated_members(void **state)
{
    (void)state;
    bytes text = slurp_fixture("sample.gclog"), bin = slurp_fixture("sample.bin");
    bytes gz = slurp_fixture("concat.gz");
    bytes want = { malloc(text.n * 2 + bin.n), 0 };
    memcpy(want.p, text.p, text.n);
    memcpy(want.p + text.n, bin.p, bin.n);
    memcpy(want.p + text.n + bin.n, text.p, text.n);
    want.n = text.n * 2 + bin.n;
    expect_gunzip(&gz, &want);
    static const size_t caps[] = { 1, 7, 4096, 1 << 20 };
    for (size_t i = 0; i < 4; i++) {
        unsigned long members;
        gch_error err;
        bytes got = stream_all(&gz, caps[i], &members, &err);
        assert_non_null(got.p);
        assert_int_equal(members, 3);
        assert_int_equal(got.n, want.n);
        assert_memory_equal(got.p, want.p, want.n);
        free(got.p);
    }
    free(text.p);
    free(bin.p);
    free(gz.p);
    free(want.p);
}

static void test_every_header_flag(void **state)
{
    (void)state;
    bytes text = slurp_fixture("sample.gclog");
    check_fixture("flags.gz", &text);
    check_fixture("named.gz", &text);
    free(text.p);
}

static void expect_failure(const bytes *gz, const char *needle, uint64_t offset)
{
    unsigned char *out;
    size_t n;
    gch_error err;
    gch_status st = gch_gunzip_buffer(gz->p, gz->n, &out, &n, &err);
    assert_int_equal(st, GCH_EFORMAT);
    assert_true(err.has_offset);
    if (!strstr(err.message, needle))
        fprintf(stderr, "message '%s' lacks '%s'\n", err.message, needle);
    assert_non_null(strstr(err.message, needle));
    if (offset != UINT64_MAX)
        assert_int_equal(err.offset, offset);
}

static void test_header_errors(void **state)
{
    (void)state;
    bytes gz = slurp_fixture("flags.gz");
    /* FHCRC: the two bytes after the comment; the comment ends the header. */
    size_t at = 0;
    for (size_t i = 0; i + 18 <= 400 && !at; i++)
        if (memcmp(gz.p + i, "every header flag", 18) == 0)
            at = i + 18;
    assert_true(at > 0);
    gz.p[at] ^= 0x01;
    expect_failure(&gz, "header CRC mismatch", at);
    gz.p[at] ^= 0x01;
    gz.p[3] |= 0x20;
    expect_failure(&gz, "reserved header flag", 3);
    gz.p[3] &= (unsigned char)~0x20;
    gz.p[2] = 7;
    expect_failure(&gz, "compression method 7", 2);
    free(gz.p);
}

static void test_trailer_errors(void **state)
{
    (void)state;
    bytes gz = slurp_fixture("sample.bin.6.gz");
    gz.p[gz.n - 8] ^= 0x80; /* CRC-32 */
    expect_failure(&gz, "CRC-32 mismatch", gz.n - 8);
    gz.p[gz.n - 8] ^= 0x80;
    gz.p[gz.n - 2] ^= 0x01; /* ISIZE */
    expect_failure(&gz, "length mismatch", gz.n - 4);
    gz.p[gz.n - 2] ^= 0x01;
    /* Bytes after the member that do not start another one. */
    unsigned char *more = realloc(gz.p, gz.n + 4);
    assert_non_null(more);
    gz.p = more;
    memcpy(gz.p + gz.n, "\0\0\0\0", 4);
    gz.n += 4;
    expect_failure(&gz, "trailing garbage", gz.n - 4);
    gz.n -= 3; /* one byte of garbage */
    expect_failure(&gz, "trailing garbage", gz.n - 1);
    free(gz.p);
}

/* Every prefix of a small file is an error at or before its end, never a
 * crash and never a success. */
static void test_truncation_at_every_byte(void **state)
{
    (void)state;
    static const char *const names[] = { "sample.bin.6.gz", "sample.bin.9.gz", "flags.gz" };
    for (size_t f = 0; f < sizeof names / sizeof *names; f++) {
        bytes gz = slurp_fixture(names[f]);
        for (size_t cut = 0; cut < gz.n; cut++) {
            unsigned char *copy = malloc(cut ? cut : 1); /* exactly cut bytes: ASan sees overreads */
            memcpy(copy, gz.p, cut);
            unsigned char *out;
            size_t n;
            gch_error err;
            gch_status st = gch_gunzip_buffer(copy, cut, &out, &n, &err);
            assert_int_equal(st, GCH_EFORMAT);
            assert_true(err.has_offset);
            assert_true(err.offset <= cut);
            if (!strstr(err.message, "unexpected end"))
                fprintf(stderr, "cut %zu: %s\n", cut, err.message);
            assert_non_null(strstr(err.message, "unexpected end"));
            free(copy);
        }
        free(gz.p);
    }
}

/* ------------------------------------------------------------------------ */
/* Hand-assembled DEFLATE (RFC 1951, 3.2) */

typedef struct bitw {
    unsigned char buf[512];
    size_t n;
    unsigned used; /* bits of buf[n] used */
} bitw;

static void put(bitw *w, unsigned value, unsigned nbits)
{
    for (unsigned i = 0; i < nbits; i++) {
        if (w->used == 0)
            w->buf[w->n] = 0;
        w->buf[w->n] |= (unsigned char)(((value >> i) & 1) << w->used);
        if (++w->used == 8) {
            w->used = 0;
            w->n++;
        }
    }
}

/* Huffman codes go most significant bit first. */
static void put_code(bitw *w, unsigned code, unsigned len)
{
    for (unsigned i = len; i-- > 0;)
        put(w, (code >> i) & 1, 1);
}

static void align(bitw *w)
{
    if (w->used) {
        w->used = 0;
        w->n++;
    }
}

/* The fixed literal/length code (RFC 1951, 3.2.6). */
static void fixed_sym(bitw *w, unsigned sym)
{
    if (sym < 144)
        put_code(w, 0x30 + sym, 8);
    else if (sym < 256)
        put_code(w, 0x190 + sym - 144, 9);
    else if (sym < 280)
        put_code(w, sym - 256, 7);
    else
        put_code(w, 0xc0 + sym - 280, 8);
}

static gch_status inflate_bits(bitw *w, unsigned char **out, size_t *n, gch_error *err)
{
    align(w);
    return gch_inflate_buffer(w->buf, w->n, out, n, err);
}

static void put_stored(bitw *w, int final, const char *text)
{
    unsigned len = (unsigned)strlen(text);
    put(w, (unsigned)final, 1);
    put(w, 0, 2);
    align(w);
    put(w, len, 16);
    put(w, 0xffff ^ len, 16);
    for (; *text; text++)
        put(w, (unsigned char)*text, 8);
}

/* A dynamic block whose literal/length code has two symbols of one bit ('x'
 * and the end of block) and no distance code; it holds "xxx". The code
 * lengths (258 of them) are sent as: 18 (120 zeros), 1, 18 (135 zeros), 1, 0,
 * with the code-length code 18 -> "0", 0 -> "10", 1 -> "11". */
static void put_dynamic_xxx(bitw *w, int final)
{
    static const unsigned order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    put(w, (unsigned)final, 1);
    put(w, 2, 2);
    put(w, 0, 5);  /* HLIT: 257 */
    put(w, 0, 5);  /* HDIST: 1 */
    put(w, 14, 4); /* HCLEN: 18 (up to symbol 1 in the order) */
    for (unsigned i = 0; i < 18; i++)
        put(w, order[i] == 18 ? 1 : order[i] == 0 || order[i] == 1 ? 2 : 0, 3);
    put_code(w, 0, 1);
    put(w, 120 - 11, 7);
    put_code(w, 3, 2);
    put_code(w, 0, 1);
    put(w, 135 - 11, 7);
    put_code(w, 3, 2);
    put_code(w, 2, 2);
    for (int i = 0; i < 3; i++)
        put_code(w, 0, 1); /* 'x' */
    put_code(w, 1, 1);     /* end of block */
}

static void test_hand_built_blocks(void **state)
{
    (void)state;
    bitw w = { { 0 }, 0, 0 };
    put_stored(&w, 0, "hello");
    put(&w, 0, 1); /* fixed: "abc", then a match of 6 at distance 3 */
    put(&w, 1, 2);
    fixed_sym(&w, 'a');
    fixed_sym(&w, 'b');
    fixed_sym(&w, 'c');
    fixed_sym(&w, 260);
    put_code(&w, 2, 5);
    fixed_sym(&w, 256);
    put_dynamic_xxx(&w, 0);
    put_stored(&w, 1, ""); /* an empty final stored block */
    unsigned char *out;
    size_t n;
    gch_error err;
    assert_int_equal(inflate_bits(&w, &out, &n, &err), GCH_OK);
    assert_int_equal(n, 17);
    assert_memory_equal(out, "helloabcabcabcxxx", 17);
    gch_free(out);
}

/* The stream from the fixture script: stored, fixed and dynamic blocks. */
static void test_all_block_types(void **state)
{
    (void)state;
    bytes raw = slurp_fixture("allblocks.deflate"), bin = slurp_fixture("sample.bin");
    assert_int_equal(raw.p[0] & 7, 0); /* it starts with a stored block, not final */
    unsigned char *out;
    size_t n;
    gch_error err;
    assert_int_equal(gch_inflate_buffer(raw.p, raw.n, &out, &n, &err), GCH_OK);
    assert_int_equal(n, bin.n);
    assert_memory_equal(out, bin.p, n);
    gch_free(out);
    free(raw.p);
    free(bin.p);
}

static void expect_inflate_error(bitw *w, const char *needle)
{
    unsigned char *out = NULL;
    size_t n;
    gch_error err;
    gch_status st = inflate_bits(w, &out, &n, &err);
    assert_int_equal(st, GCH_EFORMAT);
    assert_null(out);
    if (!strstr(err.message, needle))
        fprintf(stderr, "message '%s' lacks '%s'\n", err.message, needle);
    assert_non_null(strstr(err.message, needle));
    assert_true(err.has_offset && err.offset <= w->n);
}

/* A dynamic block header with code-length code lengths lens[] (by symbol). */
static void put_dynamic_header(bitw *w, const unsigned clen[19])
{
    static const unsigned order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    put(w, 1, 1);
    put(w, 2, 2);
    put(w, 0, 5);
    put(w, 0, 5);
    put(w, 15, 4);
    for (unsigned i = 0; i < 19; i++)
        put(w, clen[order[i]], 3);
}

static void test_bad_streams(void **state)
{
    (void)state;
    bitw w = { { 0 }, 0, 0 };
    put(&w, 1, 1);
    put(&w, 3, 2);
    expect_inflate_error(&w, "invalid block type");

    memset(&w, 0, sizeof w);
    put(&w, 1, 1);
    put(&w, 0, 2);
    align(&w);
    put(&w, 5, 16);
    put(&w, 5, 16);
    expect_inflate_error(&w, "invalid stored block lengths");

    memset(&w, 0, sizeof w); /* a match of 3 at distance 2 after one byte */
    put(&w, 1, 1);
    put(&w, 1, 2);
    fixed_sym(&w, 'a');
    fixed_sym(&w, 257);
    put_code(&w, 1, 5);
    fixed_sym(&w, 256);
    expect_inflate_error(&w, "distance too far back");

    memset(&w, 0, sizeof w); /* distance symbol 30 does not exist */
    put(&w, 1, 1);
    put(&w, 1, 2);
    fixed_sym(&w, 'a');
    fixed_sym(&w, 257);
    put_code(&w, 30, 5);
    expect_inflate_error(&w, "invalid distance code");

    memset(&w, 0, sizeof w); /* nor does length symbol 286 */
    put(&w, 1, 1);
    put(&w, 1, 2);
    fixed_sym(&w, 286);
    expect_inflate_error(&w, "invalid literal/length code");

    unsigned clen[19] = { 0 };
    memset(&w, 0, sizeof w); /* 19 codes of one bit: over-subscribed */
    for (int i = 0; i < 19; i++)
        clen[i] = 1;
    put_dynamic_header(&w, clen);
    expect_inflate_error(&w, "invalid code lengths set");

    memset(&w, 0, sizeof w); /* one code of two bits: incomplete */
    memset(clen, 0, sizeof clen);
    clen[0] = 2;
    put_dynamic_header(&w, clen);
    expect_inflate_error(&w, "invalid code lengths set");

    memset(&w, 0, sizeof w); /* 0 and 8 of one bit; 258 lengths of 8: over-subscribed literals */
    memset(clen, 0, sizeof clen);
    clen[0] = clen[8] = 1;
    put_dynamic_header(&w, clen);
    for (int i = 0; i < 258; i++)
        put_code(&w, 1, 1);
    expect_inflate_error(&w, "invalid literal/lengths set");

    memset(&w, 0, sizeof w); /* every length 0: no end-of-block code */
    put_dynamic_header(&w, clen);
    for (int i = 0; i < 258; i++)
        put_code(&w, 0, 1);
    expect_inflate_error(&w, "missing end-of-block");

    memset(&w, 0, sizeof w); /* a repeat (16) with nothing before it */
    memset(clen, 0, sizeof clen);
    clen[16] = clen[0] = 1;
    put_dynamic_header(&w, clen);
    put_code(&w, 1, 1); /* 16: canonical order puts symbol 0 first */
    put(&w, 0, 2);
    expect_inflate_error(&w, "invalid bit length repeat");

    memset(&w, 0, sizeof w); /* a complete stream, then more */
    put_stored(&w, 1, "ok");
    put(&w, 0xff, 8);
    expect_inflate_error(&w, "after the end of the deflate stream");

    memset(&w, 0, sizeof w); /* the dynamic "xxx" block cut in its code lengths */
    put_dynamic_xxx(&w, 1);
    w.n = 6;
    w.used = 0;
    expect_inflate_error(&w, "unexpected end of input");
}

/* ------------------------------------------------------------------------ */
/* Through the loader: detection, the dump's compression, the errors' offsets */

static void test_load_detects_gzip(void **state)
{
    (void)state;
    bytes text = slurp_fixture("sample.gclog"), gz = slurp_fixture("sample.gclog.6.gz");
    gch_dump *plain, *packed;
    gch_error err;
    assert_int_equal(gch_load_buffer(text.p, text.n, GCH_FORMAT_AUTO, NULL, &plain, &err), GCH_OK);
    assert_int_equal(gch_load_buffer(gz.p, gz.n, GCH_FORMAT_AUTO, NULL, &packed, &err), GCH_OK);
    assert_null(plain->compression);
    assert_string_equal(packed->compression, "gzip");
    assert_string_equal(packed->format, "gclog");
    assert_int_equal(plain->heap_count, packed->heap_count);
    for (size_t i = 0; i < plain->heap_count; i++) {
        const gch_heap *a = plain->heaps[i], *b = packed->heaps[i];
        assert_int_equal(a->object_count, b->object_count);
        assert_int_equal(a->total_size, b->total_size);
        assert_int_equal(a->ref_count, b->ref_count);
        assert_memory_equal(a->object_id, b->object_id, a->object_count * sizeof *a->object_id);
        assert_memory_equal(a->out_target, b->out_target, a->ref_count * sizeof *a->out_target);
    }
    gch_dump_free(plain);
    gch_dump_free(packed);

    gz.p[gz.n - 6] ^= 0x10; /* the CRC: the dump is refused, the offset is the trailer's */
    assert_int_equal(gch_load_buffer(gz.p, gz.n, GCH_FORMAT_AUTO, NULL, &packed, &err), GCH_EFORMAT);
    assert_null(packed);
    assert_true(err.has_offset);
    assert_int_equal(err.line, 0);
    assert_int_equal(err.offset, gz.n - 8);
    assert_non_null(strstr(err.message, "CRC-32 mismatch"));
    free(text.p);
    free(gz.p);
}

typedef struct piece_source {
    const unsigned char *p;
    size_t n, at;
} piece_source;

static long long piece_read(void *ctx, void *buf, size_t cap)
{
    piece_source *s = ctx;
    size_t k = s->n - s->at < 1000 ? s->n - s->at : 1000;
    if (k > cap)
        k = cap;
    memcpy(buf, s->p + s->at, k);
    s->at += k;
    return (long long)k;
}

static void test_load_stream_and_errors(void **state)
{
    (void)state;
    bytes gz = slurp_fixture("sample.gclog.9.gz");
    piece_source ps = { gz.p, gz.n, 0 };
    gch_source src = { piece_read, &ps };
    gch_dump *d;
    gch_error err;
    assert_int_equal(gch_load(&src, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_OK);
    assert_string_equal(d->compression, "gzip");
    gch_dump_free(d);

    /* Cut in the middle: a gzip error, not a .gclog one about a cut line. */
    ps = (piece_source){ gz.p, gz.n / 2, 0 };
    assert_int_equal(gch_load(&src, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_EFORMAT);
    assert_int_equal(err.line, 0);
    assert_true(err.has_offset);
    assert_non_null(strstr(err.message, "unexpected end"));

    /* A binary format forced on the text inside: refused from the first bytes. */
    ps = (piece_source){ gz.p, gz.n, 0 };
    assert_int_equal(gch_load(&src, GCH_FORMAT_DART, NULL, &d, &err), GCH_EFORMAT);
    assert_non_null(strstr(err.message, "dartheap"));
    free(gz.p);
}

/* A gzip file whose content is not a dump says so. */
static void test_not_a_dump_inside(void **state)
{
    (void)state;
    bytes gz = slurp_fixture("sample.bin.1.gz");
    gch_dump *d;
    gch_error err;
    assert_int_equal(gch_load_buffer(gz.p, gz.n, GCH_FORMAT_AUTO, NULL, &d, &err), GCH_EFORMAT);
    assert_string_equal(err.message, "not a heap dump (looks like binary data)");
    free(gz.p);
}

static void test_crc32_known_values(void **state)
{
    (void)state;
    /* The check value of CRC-32/ISO-HDLC, and the empty string. */
    assert_int_equal(gch_crc32(0, "123456789", 9), 0xcbf43926u);
    assert_int_equal(gch_crc32(0, "", 0), 0);
    /* Piecewise equals whole, across the 8-byte steps. */
    const char *s = "The quick brown fox jumps over the lazy dog";
    uint32_t whole = gch_crc32(0, s, strlen(s));
    assert_int_equal(whole, 0x414fa339u);
    for (size_t cut = 0; cut <= strlen(s); cut++)
        assert_int_equal(gch_crc32(gch_crc32(0, s, cut), s + cut, strlen(s) - cut), whole);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_gzip_level),
        cmocka_unit_test(test_zlib_strategies),
        cmocka_unit_test(test_concatenated_members),
        cmocka_unit_test(test_every_header_flag),
        cmocka_unit_test(test_header_errors),
        cmocka_unit_test(test_trailer_errors),
        cmocka_unit_test(test_truncation_at_every_byte),
        cmocka_unit_test(test_hand_built_blocks),
        cmocka_unit_test(test_all_block_types),
        cmocka_unit_test(test_bad_streams),
        cmocka_unit_test(test_load_detects_gzip),
        cmocka_unit_test(test_load_stream_and_errors),
        cmocka_unit_test(test_not_a_dump_inside),
        cmocka_unit_test(test_crc32_known_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
