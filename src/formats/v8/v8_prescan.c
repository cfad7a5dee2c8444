/* v8_prescan.c - the strings of a V8 snapshot looked at ahead of its
 * edges (v8_prescan.h). A private tokenizer over the same bytes: nothing
 * is reported (the reader's own pass says what is wrong, where), nothing
 * is released. */
#include "v8_prescan.h"

#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "json_tokenizer.h"

static uint8_t name_flag(const char *s, size_t len)
{
    static const struct {
        const char *text;
        size_t len;
        uint8_t flag;
    } known[] = { { "Object", 6, V8_PS_OBJECT },
                  { "Array", 5, V8_PS_ARRAY },
                  { "elements", 8, V8_PS_ELEMENTS },
                  { "system / ExternalStringData", 27, V8_PS_EXTERNAL } };
    const char *nul = memchr(s, '\0', len);
    if (nul) /* the reader's tests are strcmp's: the text ends there */
        len = (size_t)(nul - s);
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
        if (len == known[k].len && memcmp(s, known[k].text, len) == 0)
            return known[k].flag;
    return 0;
}

static int blank(unsigned char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* The last byte before q (not before b) that is c1 or c2, or NULL; eight
 * bytes at a time where none is (a word has a byte equal to c when the
 * word xor c has a zero byte: Hacker's Delight, 6-1). */
static const unsigned char *rfind2(const unsigned char *b, const unsigned char *q, unsigned char c1, unsigned char c2)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u, m1 = ones * c1, m2 = ones * c2;
    while (q - b >= 8) {
        uint64_t w, x, y;
        memcpy(&w, q - 8, 8);
        x = w ^ m1;
        y = w ^ m2;
        if (((x - ones) & ~x & highs) | ((y - ones) & ~y & highs))
            break; /* one of these eight */
        q -= 8;
    }
    while (q > b)
        if (*--q == c1 || *q == c2)
            return q;
    return NULL;
}

/* The last byte before q (not before b) that is not blank, or NULL. */
static const unsigned char *back(const unsigned char *b, const unsigned char *q)
{
    while (q > b && blank(q[-1]))
        q--;
    return q > b ? q - 1 : NULL;
}

/* The flags of the string whose quotes are at o and q (esc: it has a
 * backslash: decoded as the reader's tokenizer decodes it); -1 when it
 * does not decode or without memory. */
static int string_flag(const unsigned char *o, const unsigned char *q, int esc, gch_json_text *tmp)
{
    if (!esc)
        return name_flag((const char *)o + 1, (size_t)(q - o) - 1);
    gch_json_in in;
    gch_error err;
    gch_json_init_buffer(&in, o, (size_t)(q - o) + 1, NULL, &err);
    tmp->len = 0;
    gch_status st = gch_json_string(&in, tmp);
    gch_json_free(&in);
    return st == GCH_OK ? name_flag(tmp->s ? tmp->s : "", tmp->len) : -1;
}

/* The strings array when the snapshot ends with it, as V8 writes it
 * (`"strings":[...]}`), read from the end: back over each string (its
 * opening quote is the first '"' before the closing one with an even run
 * of backslashes before it), so that only the strings' bytes are read, not
 * the lists between the edges and them. The flags come last string first.
 * Returns the array's '[' (*key: the quote opening its key), or NULL. */
static const unsigned char *strings_back(const unsigned char *b, const unsigned char *end, v8_prescan *ps,
                                         const unsigned char **key)
{
    size_t cap = 0;
    gch_json_text tmp = { 0 };
    const unsigned char *q = back(b, end);
    if (!q || *q != '}' || !(q = back(b, q)) || *q != ']')
        return NULL;
    q = back(b, q);
    while (q && *q == '"') {
        const unsigned char *o = q;
        int esc = 0;
        for (;;) {
            if (!(o = rfind2(b, o, '"', '\\')))
                goto fail;
            if (*o == '\\') {
                esc = 1;
                continue;
            }
            /* a quote: escaped when an odd run of backslashes comes before it */
            size_t k = 0;
            while (o - k > b && o[-(ptrdiff_t)k - 1] == '\\')
                k++;
            if (k % 2 == 0)
                break;
            esc = 1;
        }
        int f = string_flag(o, q, esc, &tmp);
        if (f < 0 || ps->n >= UINT32_MAX || !gch_grow((void **)&ps->flag, &cap, ps->n + 1, 1, 1 << 16))
            goto fail;
        ps->flag[ps->n++] = (uint8_t)f;
        if (!(q = back(b, o)) || *q != ',')
            break;
        q = back(b, q);
    }
    gch_free(tmp.s);
    if (!q || *q != '[')
        return NULL;
    const unsigned char *open = q, *c = back(b, q);
    if (!c || *c != ':' || !(c = back(b, c)) || c - b < 8 || memcmp(c - 8, "\"strings\"", 9) != 0)
        return NULL;
    *key = c - 8;
    return open;
fail:
    gch_free(tmp.s);
    return NULL;
}

/* The ']' just before the member "trace_function_infos", which V8 writes
 * right after the edges, when only members whose values are integer lists
 * (trace_tree, samples, locations: V8's order) lie between it and the key
 * at q, found from q backwards; NULL otherwise. The edges' bytes are not
 * read: a wrong guess makes the bulk parse of the edges fail. */
static const unsigned char *edges_close(const unsigned char *b, const unsigned char *q, const unsigned char *end)
{
    static const char after_edges[] = "\"trace_function_infos\"";
    for (;;) {
        const unsigned char *c = back(b, q);
        if (!c || *c != ',' || !(c = back(b, c)) || *c != ']')
            return NULL;
        const unsigned char *close = c;
        if ((size_t)(end - q) >= sizeof after_edges - 1 && memcmp(q, after_edges, sizeof after_edges - 1) == 0)
            return close;
        /* back to the '[' that opens the value (what lies between is the
         * reader's to check: a list of anything else at worst misleads this
         * guess) */
        for (size_t depth = 1; depth;) {
            if (!(c = rfind2(b, c, '[', ']')))
                return NULL;
            depth = *c == ']' ? depth + 1 : depth - 1;
        }
        if (!(c = back(b, c)) || *c != ':' || !(c = back(b, c)) || *c != '"')
            return NULL;
        const unsigned char *k = c; /* a key of letters and underscores */
        while (k > b && (k[-1] == '_' || (k[-1] >= 'a' && k[-1] <= 'z')))
            k--;
        if (k == b || k[-1] != '"')
            return NULL;
        q = k - 1;
    }
}

int v8_prescan_strings(const unsigned char *p, const unsigned char *end, v8_prescan *ps)
{
    memset(ps, 0, sizeof *ps);
    const unsigned char *key, *open = strings_back(p, end, ps, &key);
    if (!open) {
        v8_prescan_free(ps);
        return 0;
    }
    for (size_t i = 0, j = ps->n; i + 1 < j; i++, j--) { /* first string first */
        uint8_t t = ps->flag[i];
        ps->flag[i] = ps->flag[j - 1];
        ps->flag[j - 1] = t;
    }
    ps->open = open + 1;
    ps->edges_close = edges_close(p, key, end);
    return 1;
}

void v8_prescan_free(v8_prescan *ps)
{
    gch_free(ps->flag);
    memset(ps, 0, sizeof *ps);
}
