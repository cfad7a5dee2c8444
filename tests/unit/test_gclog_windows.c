/* The .gclog reader's window check of skipped references
 * (skip_refs_windows in src/formats/gclog/gclog_reader.c, 64 bytes at a time
 * through generic vectors) against the eight-byte loop it replaces
 * (skip_refs_swar, the old path) and a byte-by-byte oracle written from the
 * grammar: hex digits and blanks, no digit run over 16, then LF or CRLF.
 * Every byte value at every position of template lines, digit runs of 15 to
 * 18 at every offset, CR placements, lines whose end falls before, on and
 * after the window's edge (63, 64, 65 bytes), lines that end where the
 * parsed region ends (the window then must not be used past PAD), and random
 * lines. Then whole chunks: chunk_parse (histogram-only) over random object
 * lines, some corrupted, against the grammar of a plain 'o' line. The buffers
 * are allocated to the byte (region plus PAD), so that ASan sees any read
 * past what the reader may read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Before cmocka.h, whose fail() macro would rename the reader's fail(). */
#include "../../src/formats/gclog/gclog_reader.c"

#include <cmocka.h>

#ifdef SWAR_SKIP

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int is_hex(unsigned char b)
{
    return (b >= '0' && b <= '9') || (b >= 'a' && b <= 'f') || (b >= 'A' && b <= 'F');
}

/* The grammar of the references part, byte by byte: q is not a digit. */
static const unsigned char *oracle_refs(const unsigned char *q)
{
    unsigned run = 0;
    for (;; q++) {
        if (is_hex(*q)) {
            if (++run > 16)
                return NULL;
            continue;
        }
        run = 0;
        if (*q == ' ' || *q == '\t')
            continue;
        if (*q == '\n')
            return q + 1;
        if (*q == '\r' && q[1] == '\n')
            return q + 2;
        return NULL;
    }
}

/* A region holding line (n bytes), then, unless at_end, a last line that
 * the tests never change; PAD bytes after the region, all pad_byte. */
typedef struct region {
    unsigned char *buf;
    size_t size; /* the region's bytes; PAD more are allocated */
} region;

static const char after_line[] = "o 1 2 3 4 5 6 7 8 9 a b c d e f 10 11 12 13 14 15 16 17 18 19\n";

static region make_region(const unsigned char *line, size_t n, int at_end, unsigned char pad_byte)
{
    size_t tail = at_end ? 0 : sizeof after_line - 1;
    region r;
    r.size = n + tail;
    r.buf = malloc(r.size + PAD);
    assert_non_null(r.buf);
    memcpy(r.buf, line, n);
    memcpy(r.buf + n, after_line, tail);
    memset(r.buf + r.size, pad_byte, PAD);
    return r;
}

static unsigned long long compared;

/* skip_refs_windows from q = buf + at, against skip_refs_swar and the
 * oracle: the same next line, or NULL for all three. */
static void check_at(const region *r, size_t at)
{
    const unsigned char *q = r->buf + at, *limit = r->buf + r->size;
    const unsigned char *want = oracle_refs(q);
    const unsigned char *old = skip_refs_swar(q);
    const unsigned char *got = skip_refs_windows(q, limit);
    if (old != want || got != want) {
        fprintf(stderr, "at %zu of %zu: oracle %td, swar %td, windows %td: [", at, r->size,
                want ? want - r->buf : -1, old ? old - r->buf : -1, got ? got - r->buf : -1);
        for (size_t i = 0; i < r->size; i++)
            fprintf(stderr, r->buf[i] >= 0x20 && r->buf[i] < 0x7f ? "%c" : "\\x%02x", r->buf[i]);
        fprintf(stderr, "]\n");
    }
    assert_ptr_equal(old, want);
    assert_ptr_equal(got, want);
    compared++;
}

/* The region with line, in both placements and with zero and hex PAD bytes. */
static void check_line(const unsigned char *line, size_t n, size_t at)
{
    static const unsigned char pads[] = { 0, '7', ' ', '\n' };
    for (int at_end = 0; at_end < 2; at_end++)
        for (size_t k = 0; k < sizeof pads; k++) {
            if (at_end && line[n - 1] != '\n')
                continue; /* a region ends with a line's '\n' */
            region r = make_region(line, n, at_end, pads[k]);
            check_at(&r, at);
            free(r.buf);
        }
}

/* A references part of n bytes: numbers of 1-8 digits and single blanks,
 * then '\n' (n counts it). */
static size_t make_refs(unsigned char *out, size_t n)
{
    size_t i = 0;
    out[i++] = ' ';
    while (i + 1 < n) {
        size_t len = 1 + rnd() % 8;
        for (size_t k = 0; k < len && i + 1 < n; k++)
            out[i++] = "0123456789abcdefABCDEF"[rnd() % 22];
        if (i + 1 < n)
            out[i++] = rnd() % 4 ? ' ' : '\t';
    }
    out[i++] = '\n';
    return i;
}

/* Every byte value at every position of references parts whose '\n' falls
 * inside the first window, on its last byte, just past it, and in the
 * second and third windows. q is the part's first byte (a blank, or the
 * byte that ends the size field: never a digit). */
static void test_every_byte_everywhere(void **state)
{
    (void)state;
    static const size_t lengths[] = { 1, 2, 3, 9, 17, 33, 47, 48, 49, 62, 63, 64, 65, 66, 70, 100,
                                      127, 128, 129, 130, 200 };
    unsigned char line[256];
    for (size_t li = 0; li < sizeof lengths / sizeof *lengths; li++) {
        size_t n = lengths[li] == 1 ? (line[0] = '\n', 1) : make_refs(line, lengths[li]);
        for (size_t pos = 0; pos < n; pos++) {
            unsigned char keep = line[pos];
            for (unsigned v = 0; v < 256; v++) {
                if (pos == 0 && is_hex((unsigned char)v))
                    continue; /* q is just past a number */
                line[pos] = (unsigned char)v;
                check_line(line, n, 0);
            }
            line[pos] = keep;
        }
    }
}

/* A digit run of 15 to 18 (with and without leading zeros) at every offset
 * of a long references part, the line ending at every distance from it. */
static void test_digit_runs(void **state)
{
    (void)state;
    unsigned char line[200];
    for (size_t len = 15; len <= 18; len++)
        for (size_t off = 1; off + len < 150; off++)
            for (size_t end = off + len; end < off + len + 3; end++)
                for (int zeros = 0; zeros < 2; zeros++) {
                    memset(line, ' ', sizeof line);
                    for (size_t k = 0; k < len; k++)
                        line[off + k] = zeros && k + 1 < len ? '0' : "fedcba9876543210"[k % 16];
                    line[end] = '\n';
                    check_line(line, end + 1, 0);
                    /* and with other runs around it, one blank apart */
                    if (off >= 10) {
                        memset(line + off - 9, 'a', 8);
                        check_line(line, end + 1, 0);
                    }
                }
}

/* Digit runs that fill a whole window (63 digits after q, and more), and
 * blanks that fill one: the window then has nothing to end the line on. */
static void test_full_windows(void **state)
{
    (void)state;
    unsigned char line[300];
    for (size_t len = 17; len < 200; len++)
        for (size_t off = 1; off < 70; off++) {
            memset(line, ' ', sizeof line);
            memset(line + off, 'e', len);
            size_t end = off + len + 1 + len % 3;
            line[end] = '\n';
            check_line(line, end + 1, 0);
            memset(line + off, ' ', len); /* blanks only, then the end */
            check_line(line, end + 1, 0);
        }
}

/* A CR at every position, followed by LF, by a blank or by nothing else, in
 * lines whose end falls on each side of the window's edge. */
static void test_carriage_returns(void **state)
{
    (void)state;
    unsigned char line[200];
    for (size_t n = 2; n < 140; n++)
        for (size_t pos = 1; pos < n; pos++) {
            size_t len = make_refs(line, n);
            if (pos >= len)
                break;
            unsigned char keep = line[pos];
            line[pos] = '\r';
            check_line(line, len, 0); /* CR inside the line, or CRLF at its end */
            if (pos + 1 < len) {
                unsigned char next = line[pos + 1];
                line[pos + 1] = '\n';
                check_line(line, len, 0);
                line[pos + 1] = next;
            }
            line[pos] = keep;
        }
}

/* Lines that end near the region's end, q at every distance from it: the
 * window is used only with REF_WINDOW bytes readable (the region's end plus
 * PAD), and the answer is the same either way. */
static void test_region_end(void **state)
{
    (void)state;
    unsigned char line[200];
    for (size_t n = 1; n < 120; n++) {
        size_t len = n == 1 ? (line[0] = '\n', 1) : make_refs(line, n);
        for (size_t at = 0; at < len; at++) {
            if (is_hex(line[at]))
                continue;
            region r = make_region(line, len, 1, 0);
            check_at(&r, at);
            free(r.buf);
        }
    }
}

/* Random lines from an alphabet that is mostly digits and blanks. */
static void test_random_lines(void **state)
{
    (void)state;
    static const char alphabet[] = "0123456789abcdefABCDEF0123456789abcdef      \t\t";
    unsigned char line[300];
    for (int it = 0; it < 200000; it++) {
        size_t n = 1 + rnd() % 250;
        line[0] = ' ';
        for (size_t i = 1; i < n; i++) {
            uint64_t pick = rnd() % 1000;
            if (pick < 3)
                line[i] = (unsigned char)(rnd() % 256);
            else if (pick < 5)
                line[i] = '\r';
            else
                line[i] = (unsigned char)alphabet[rnd() % (sizeof alphabet - 1)];
        }
        line[n] = '\n';
        check_line(line, n + 1, 0);
    }
}

/* Whether a whole line (without its '\n') is a plain 'o' line that the fast
 * path takes: blanks, 'o', then at least three numbers of 1-16 digits
 * separated by blanks, trailing blanks, an optional CR. Its numbers go to f. */
static int oracle_object_line(const unsigned char *p, const unsigned char *end, uint64_t f[3])
{
    if (end > p && end[-1] == '\r')
        end--;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p + 1 >= end || p[0] != 'o' || (p[1] != ' ' && p[1] != '\t'))
        return 0;
    p++;
    size_t fields = 0;
    for (;;) {
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p == end)
            break;
        const unsigned char *s = p;
        uint64_t v = 0;
        while (p < end && is_hex(*p)) {
            v = v << 4 | (uint64_t)HEX_VALUE(*p);
            p++;
        }
        if (p == s || p - s > 16 || (p < end && *p != ' ' && *p != '\t'))
            return 0;
        if (fields < 3)
            f[fields] = v;
        fields++;
    }
    return fields >= 3;
}

/* chunk_parse over random object lines (a few corrupted, CRLF endings,
 * leading blanks, numbers of up to 18 digits, long reference lists): each
 * line the grammar accepts is an object with its id, type and size, in
 * order; every other line is deferred to the line-by-line parser. */
static void test_chunks(void **state)
{
    (void)state;
    size_t cap = 1 << 20;
    unsigned char *text = malloc(cap);
    assert_non_null(text);
    for (int round = 0; round < 40; round++) {
        size_t n = 0, lines = 0;
        while (n + 600 < cap - 4096) {
            unsigned char *s = text + n;
            size_t i = 0;
            if (rnd() % 50 == 0)
                s[i++] = ' ';
            s[i++] = 'o';
            size_t nums = 3 + (rnd() % 4 == 0 ? rnd() % 40 : rnd() % 4);
            for (size_t k = 0; k < nums; k++) {
                s[i++] = rnd() % 8 ? ' ' : '\t';
                size_t len = 1 + (rnd() % 20 == 0 ? rnd() % 18 : rnd() % 8);
                for (size_t d = 0; d < len; d++)
                    s[i++] = "0123456789abcdefABCDEF"[rnd() % 22];
            }
            if (rnd() % 10 == 0)
                s[i++] = ' ';
            if (rnd() % 10 == 0)
                s[i++] = '\r';
            if (rnd() % 20 == 0)
                s[rnd() % i] = (unsigned char)(rnd() % 256);
            if (memchr(s, '\n', i))
                continue; /* a corruption made a line break: not this line's test */
            s[i++] = '\n';
            n += i;
            lines++;
        }
        /* the region's end with and without a following chunk's bytes */
        unsigned char *buf = malloc(n + PAD);
        assert_non_null(buf);
        memcpy(buf, text, n);
        memset(buf + n, round % 2 ? '5' : 0, PAD);
        chunk c;
        memset(&c, 0, sizeof c);
        c.skip_refs = 1;
        c.hist = 1;
        c.key = gch_hash_key_get();
        c.p = (const char *)buf;
        c.end = (const char *)buf + n;
        chunk_parse(&c);
        assert_int_equal(c.oom, 0);
        assert_int_equal(c.lines, lines);
        size_t obj = 0, deferred_lines = 0;
        for (const unsigned char *p = buf; p < buf + n;) {
            const unsigned char *nl = memchr(p, '\n', (size_t)(buf + n - p));
            uint64_t f[3];
            if (oracle_object_line(p, nl, f)) {
                assert_true(obj < c.nobj);
                assert_int_equal(c.id[obj], f[0]);
                assert_int_equal(c.type_raw[c.type[obj]], f[1]);
                assert_int_equal(c.size[obj], f[2]);
                assert_int_equal(c.count[obj], 0);
                obj++;
            } else {
                deferred_lines++;
            }
            p = nl + 1;
        }
        assert_int_equal(c.nobj, obj);
        assert_int_equal(c.nev, deferred_lines + 1); /* + the chunk's end */
        chunk_free(&c);
        free(buf);
    }
    free(text);
}

static void test_count(void **state)
{
    (void)state;
    fprintf(stderr, "compared %llu windows\n", compared);
    assert_true(compared > 1000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_byte_everywhere),
        cmocka_unit_test(test_digit_runs),
        cmocka_unit_test(test_full_windows),
        cmocka_unit_test(test_carriage_returns),
        cmocka_unit_test(test_region_end),
        cmocka_unit_test(test_random_lines),
        cmocka_unit_test(test_chunks),
        cmocka_unit_test(test_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
    printf("skipped: the window check is built only with GCC or clang on little-endian targets\n");
    return 0;
}

#endif
