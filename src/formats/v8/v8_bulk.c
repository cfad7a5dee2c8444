/* The bulk parse of a snapshot's integer arrays: see v8_bulk.h.
 *
 * Each list is cut at commas into pieces of about PIECE bytes (so that the
 * parsed bytes can be released as the parse moves on). With two threads the
 * caller takes the nodes and the first part of the edges, the helper the rest
 * of the edges, where it writes from the index that the commas before its
 * part give (it counts them first: much faster than parsing them).
 */
#include "v8_bulk.h"

#include <string.h>

#include "gcheap/alloc.h"

#define PIECE ((size_t)8 << 20)
#define FAIL SIZE_MAX

static inline int blank(unsigned c)
{
    /* One comparison for the usual byte (a digit or a comma, above ' '). */
    return c <= ' ' && ((1ull << ' ' | 1ull << '\n' | 1ull << '\r' | 1ull << '\t') >> c & 1);
}

/* Parses the values in [s, t) into out (room for max). The byte at t is the
 * ',' or ']' after the last value: not a digit nor a blank, so every loop
 * stops there without a bounds test. Returns how many, or FAIL. */
static size_t parse_piece(const unsigned char *s, const unsigned char *t, uint32_t *out, size_t max)
{
    const unsigned char *p = s;
    size_t k = 0;
    while (blank(*p))
        p++;
    if (p == t)
        return 0;
    for (;;) {
        unsigned d = (unsigned)*p - '0';
        if (d > 9 || k == max)
            return FAIL;
        /* Byte by byte: V8's numbers are mostly one or two digits, which a
         * branch predicts better than 8-byte (SWAR) conversion computes them. */
        const unsigned char *q = p + 1;
        uint64_t v = d;
        if ((d = (unsigned)*q - '0') <= 9) {
            if (v == 0)
                return FAIL; /* a leading zero */
            do {
                v = v * 10 + d;
                q++;
            } while ((d = (unsigned)*q - '0') <= 9 && q - p < 10);
            if (d <= 9 || v > UINT32_MAX)
                return FAIL;
        }
        out[k++] = (uint32_t)v;
        p = q;
        if (*p != ',') {
            while (blank(*p))
                p++;
        }
        if (p == t)
            return k;
        if (*p != ',')
            return FAIL; /* '.', 'e', '-', anything else */
        p++;
        while (blank(*p))
            p++;
    }
}

/* The end of the next piece of [s, t): the first comma at least size bytes
 * in, or t. */
static const unsigned char *piece_end(const unsigned char *s, const unsigned char *t, size_t size)
{
    if ((size_t)(t - s) <= size)
        return t;
    const unsigned char *c = memchr(s + size, ',', (size_t)(t - s) - size);
    return c ? c : t;
}

/* Parses the values in [s, t) piece by piece, releasing the bytes parsed.
 * after_comma: a comma comes before s (so at least one value must follow). */
static size_t parse_range(const unsigned char *s, const unsigned char *t, uint32_t *out, size_t max,
                          int after_comma, const gch_load_options *opts)
{
    size_t got = 0;
    for (;;) {
        const unsigned char *cut = piece_end(s, t, PIECE);
        size_t n = parse_piece(s, cut, out + got, max - got);
        /* Only a whole empty list has no value: not "[,1]", "1,,2", "1,]". */
        if (n == FAIL || (n == 0 && (after_comma || cut != t)))
            return FAIL;
        got += n;
        if (opts && opts->release)
            opts->release(opts->release_ctx, s, (size_t)(cut - s));
        if (cut == t)
            return got;
        s = cut + 1;
        after_comma = 1;
    }
}

/* The commas in [s, t), eight bytes at a time. */
static size_t count_commas(const unsigned char *s, const unsigned char *t)
{
    const uint64_t ones = 0x0101010101010101ull, low7 = 0x7f7f7f7f7f7f7f7full;
    size_t n = 0;
    for (; t - s >= 8; s += 8) {
        uint64_t w;
        memcpy(&w, s, sizeof w);
        w ^= ones * ',';
        /* The high bit of a byte is set exactly when the byte is 0. */
        uint64_t z = ~(((w & low7) + low7) | w | low7) >> 7;
        n += (size_t)((z * ones) >> 56); /* the sum of the eight 0/1 bytes */
    }
    for (; s < t; s++)
        n += *s == ',';
    return n;
}

/* Parses the values in [s, t) and hands them to l->rows row by row, in
 * pieces of about ROW_PIECE bytes (a few thousand rows: they stay in the
 * cache), releasing the bytes parsed every PIECE bytes. Returns how many
 * values, or FAIL. */
#define ROW_PIECE ((size_t)64 << 10)
static size_t parse_rows(const v8_list *l, const unsigned char *s, const unsigned char *t,
                         const gch_load_options *opts)
{
    /* A piece holds at most ROW_PIECE / 2 + 1 values (one comma each but
     * the last), after at most row_len - 1 carried from the one before. */
    const size_t cap = ROW_PIECE / 2 + 1 + l->row_len;
    uint32_t *buf = l->row_len ? gch_reallocarray(NULL, cap, sizeof *buf) : NULL;
    if (!buf)
        return FAIL;
    size_t got = 0, carry = 0;
    const unsigned char *released = s;
    int after_comma = 0;
    for (;;) {
        const unsigned char *cut = piece_end(s, t, ROW_PIECE);
        size_t n = parse_piece(s, cut, buf + carry, cap - carry);
        if (n == FAIL || (n == 0 && (after_comma || cut != t))) {
            got = FAIL;
            break;
        }
        got += n;
        size_t have = carry + n, rows = have / l->row_len;
        if (rows && !l->rows(l->rows_ctx, buf, rows)) {
            got = FAIL;
            break;
        }
        carry = have - rows * l->row_len;
        memmove(buf, buf + rows * l->row_len, carry * sizeof *buf);
        if (opts && opts->release && ((size_t)(cut - released) >= PIECE || cut == t)) {
            opts->release(opts->release_ctx, released, (size_t)(cut - released));
            released = cut;
        }
        if (cut == t)
            break;
        s = cut + 1;
        after_comma = 1;
    }
    gch_free(buf);
    return got;
}

typedef struct bulk_job {
    const unsigned char *s[2], *t[2];
    uint32_t *out[2];
    size_t max[2], got[2];
    unsigned ranges;
    const v8_list *rows[2]; /* ranges that go to a rows callback, not an array */
    /* The helper: its out[0] is base + the commas in [count_s, count_t). */
    const unsigned char *count_s, *count_t;
    uint32_t *base;
    size_t base_max;
    const gch_load_options *opts;
    int ok;
} bulk_job;

static int run_job(void *arg)
{
    bulk_job *j = arg;
    j->ok = 1;
    if (j->count_s) {
        size_t before = count_commas(j->count_s, j->count_t);
        if (before > j->base_max) {
            j->ok = 0;
            return 0;
        }
        j->out[0] = j->base + before;
        j->max[0] = j->base_max - before;
    }
    for (unsigned k = 0; k < j->ranges && j->ok; k++) {
        if (j->rows[k])
            j->got[k] = parse_rows(j->rows[k], j->s[k], j->t[k], j->opts);
        else
            j->got[k] = parse_range(j->s[k], j->t[k], j->out[k], j->max[k], j->count_s != NULL, j->opts);
        j->ok = j->got[k] != FAIL;
    }
    return 0;
}

int v8_bulk_parse(const v8_list *nodes, const v8_list *edges, const gch_parallel *par,
                  const gch_load_options *opts)
{
    bulk_job a = { .s = { nodes->begin, edges->begin }, .t = { nodes->end, edges->end },
                   .out = { nodes->out, edges->out }, .max = { nodes->count, edges->count },
                   .ranges = 2, .rows = { nodes->out ? NULL : nodes, edges->out ? NULL : edges },
                   .opts = opts };
    bulk_job b = { .ranges = 1, .opts = opts };
    size_t nb = (size_t)(nodes->end - nodes->begin), eb = (size_t)(edges->end - edges->begin);
    const unsigned char *cut = NULL;
    if (edges->out && gch_parallel_worth(par, edges->count)) {
        /* The caller's x bytes of edges and the helper's rest take the same
         * time when 1.3 nb + x = 0.1 x + (eb - x): the node pass adds about
         * a third to the nodes' parse, counting commas costs about a tenth
         * of parsing them. */
        size_t mine = 10 * eb > 13 * nb ? (10 * eb - 13 * nb) / 19 : 0;
        if (mine < eb)
            cut = memchr(edges->begin + mine, ',', eb - mine);
    }
    if (cut) {
        a.t[1] = cut;
        b.s[0] = cut + 1;
        b.t[0] = edges->end;
        b.count_s = edges->begin;
        b.count_t = cut + 1; /* with the cut's own comma: the helper's first value */
        b.base = edges->out;
        b.base_max = edges->count;
    }
    gch_thread helper;
    int started = cut && gch_thread_start(&helper, par->workers, run_job, &b);
    run_job(&a);
    if (started)
        gch_thread_join(&helper);
    else if (cut)
        run_job(&b);
    if (!a.ok || a.got[0] != nodes->count)
        return 0;
    if (!cut)
        return a.got[1] == edges->count;
    /* The caller's part ends where the helper's begins. */
    return b.ok && (size_t)(b.out[0] - edges->out) == a.got[1] && a.got[1] + b.got[0] == edges->count;
}

int v8_bulk_parse_list(const v8_list *l, const gch_load_options *opts)
{
    bulk_job a = { .s = { l->begin }, .t = { l->end }, .out = { l->out }, .max = { l->count }, .ranges = 1,
                   .rows = { l->out ? NULL : l }, .opts = opts };
    run_job(&a);
    return a.ok && a.got[0] == l->count;
}

const unsigned char *v8_bulk_value_end(const unsigned char *begin, size_t index)
{
    const unsigned char *p = begin;
    for (size_t k = 0;; k++) {
        while (blank(*p) || *p == ',')
            p++;
        while ((unsigned)*p - '0' <= 9)
            p++;
        if (k == index)
            return p;
    }
}

int v8_bulk_is_list(const unsigned char *begin, const unsigned char *end)
{
    enum { CHUNK = 4096 };
    uint32_t scratch[CHUNK + 64]; /* a piece of 2 * CHUNK bytes holds CHUNK values */
    const unsigned char *s = begin;
    int after_comma = 0;
    /* In chunks cut at commas, as parse_range does, into a scratch array. */
    for (;;) {
        const unsigned char *cut = end;
        if ((size_t)(end - s) > 2 * CHUNK) {
            const unsigned char *c = memchr(s + CHUNK, ',', (size_t)(end - s) - CHUNK);
            cut = c ? c : end;
        }
        size_t n = parse_piece(s, cut, scratch, sizeof scratch / sizeof *scratch);
        if (n == FAIL || (n == 0 && (after_comma || cut != end)))
            return 0;
        if (cut == end)
            return 1;
        s = cut + 1;
        after_comma = 1;
    }
}

const unsigned char *v8_bulk_plain_string(const unsigned char *p, const unsigned char *end)
{
    const unsigned char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
    if (!q)
        return NULL;
    /* Eight bytes at a time: a byte below 0x20 or equal to '\\' (as in
     * count_commas, the high bit of each byte says). */
    const uint64_t ones = 0x0101010101010101ull, low7 = 0x7f7f7f7f7f7f7f7full;
    const unsigned char *c = p + 1;
    uint64_t bad = 0;
    for (; q - c >= 8; c += 8) {
        uint64_t w, b;
        memcpy(&w, c, sizeof w);
        b = w ^ (ones * '\\');
        bad |= ~(((b & low7) + low7) | b | low7);  /* bytes equal to '\\' */
        bad |= ~(((w & low7) + (ones * (0x80 - 0x20))) | w | low7); /* bytes below 0x20 */
    }
    for (; c < q; c++)
        bad |= (uint64_t)((*c < 0x20) | (*c == '\\'));
    return bad ? NULL : q + 1;
}
