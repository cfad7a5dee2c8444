/* The one-line JSON parser of the Ruby reader (ruby_line.h). */
#include "ruby_line.h"

#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"

static const char *const kind_words[RB_KIND_COUNT] = {
    [RB_ROOT] = "ROOT",       [RB_NONE] = "NONE",       [RB_NIL] = "NIL",
    [RB_OBJECT] = "OBJECT",   [RB_CLASS] = "CLASS",     [RB_ICLASS] = "ICLASS",
    [RB_MODULE] = "MODULE",   [RB_FLOAT] = "FLOAT",     [RB_STRING] = "STRING",
    [RB_REGEXP] = "REGEXP",   [RB_ARRAY] = "ARRAY",     [RB_HASH] = "HASH",
    [RB_STRUCT] = "STRUCT",   [RB_BIGNUM] = "BIGNUM",   [RB_FILE] = "FILE",
    [RB_FIXNUM] = "FIXNUM",   [RB_TRUE] = "TRUE",       [RB_FALSE] = "FALSE",
    [RB_DATA] = "DATA",       [RB_MATCH] = "MATCH",     [RB_SYMBOL] = "SYMBOL",
    [RB_RATIONAL] = "RATIONAL", [RB_COMPLEX] = "COMPLEX", [RB_IMEMO] = "IMEMO",
    [RB_UNDEF] = "UNDEF",     [RB_NODE] = "NODE",       [RB_ZOMBIE] = "ZOMBIE",
    [RB_MOVED] = "MOVED",
};

const char *rb_kind_word(rb_kind k)
{
    return (unsigned)k < RB_KIND_COUNT ? kind_words[k] : NULL;
}

static rb_kind kind_of(rb_str s)
{
    if (s.escaped || s.n == 0 || s.n > 8)
        return RB_UNKNOWN;
    /* the kinds that fill a heap first (one comparison), then the list */
    switch (s.n) {
    case 4:
        if (memcmp(s.p, "HASH", 4) == 0)
            return RB_HASH;
        if (memcmp(s.p, "DATA", 4) == 0)
            return RB_DATA;
        break;
    case 5:
        if (memcmp(s.p, "ARRAY", 5) == 0)
            return RB_ARRAY;
        if (memcmp(s.p, "IMEMO", 5) == 0)
            return RB_IMEMO;
        break;
    case 6:
        if (memcmp(s.p, "STRING", 6) == 0)
            return RB_STRING;
        if (memcmp(s.p, "OBJECT", 6) == 0)
            return RB_OBJECT;
        break;
    default:
        break;
    }
    for (int k = 1; k < RB_KIND_COUNT; k++) /* the first byte first: no strlen per word */
        if (kind_words[k][0] == s.p[0] && strlen(kind_words[k]) == s.n && memcmp(kind_words[k], s.p, s.n) == 0)
            return (rb_kind)k;
    return RB_UNKNOWN;
}

/* The bytes of a word w that end a plain run of string bytes: a quote, a
 * backslash or a control byte (below 0x20) each set their byte's top bit
 * (bytes above a hit may be set falsely; the lowest set one is exact). */
static inline uint64_t stop_bytes(uint64_t w)
{
    uint64_t q = w ^ 0x2222222222222222ULL, b = w ^ 0x5C5C5C5C5C5C5C5CULL;
    return (((q - 0x0101010101010101ULL) & ~q) | ((b - 0x0101010101010101ULL) & ~b) |
            ((w - 0x2020202020202020ULL) & ~w)) &
           0x8080808080808080ULL;
}

/* The index of the lowest byte whose top bit is set in m (m != 0;
 * little-endian loads). */
static inline unsigned first_byte(uint64_t m)
{
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(m) >> 3;
#else
    unsigned i = 0;
    while (!(m & 0x80))
        m >>= 8, i++;
    return i;
#endif
}

/* Whether loads are little-endian (the word tricks above assume it; others
 * take the byte loops). */
static inline int little_endian(void)
{
    const uint16_t one = 1;
    unsigned char c;
    memcpy(&c, &one, 1);
    return c == 1;
}

/* From p, the first byte that is a quote, a backslash or a control byte,
 * or end. */
static inline const char *plain_run(const char *p, const char *end)
{
    if (little_endian()) {
        while (end - p >= 8) {
            uint64_t w;
            memcpy(&w, p, 8);
            uint64_t m = stop_bytes(w);
            if (m)
                return p + first_byte(m);
            p += 8;
        }
    }
    while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        p++;
    return p;
}

static const char *skip_blank(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
        p++;
    return p;
}

/* Hex digit values, -1 for other bytes (a table: addresses are most of a dump). */
static const signed char hex_table[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9,
    ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16, ['A'] = 11,
    ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
}; /* value + 1: 0 for a non-digit */

static inline int hexval(unsigned char c)
{
    return hex_table[c] - 1;
}

/* A string whose opening quote is at *pp: *pp moves past its closing
 * quote. Returns NULL or a message. */
static const char *scan_string(const char **pp, const char *end, rb_str *out)
{
    const char *p = *pp + 1;
    out->p = p;
    out->escaped = 0;
    for (;;) {
        p = plain_run(p, end); /* the common run: plain bytes, 8 at a time */
        if (p >= end)
            return "unterminated string";
        if (*p == '"')
            break;
        if ((unsigned char)*p < 0x20) {
            *pp = p;
            return "control character in a string";
        }
        out->escaped = 1;
        if (++p >= end)
            return "unterminated string";
        switch (*p) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            p++;
            break;
        case 'u':
            if (end - p < 5 || hexval((unsigned char)p[1]) < 0 || hexval((unsigned char)p[2]) < 0 ||
                hexval((unsigned char)p[3]) < 0 || hexval((unsigned char)p[4]) < 0) {
                *pp = p;
                return "bad \\u escape";
            }
            p += 5;
            break;
        default:
            *pp = p;
            return "bad escape in a string";
        }
    }
    out->n = (size_t)(p - out->p);
    *pp = p + 1;
    return NULL;
}

/* An address string "0x1f..." (1 to 16 hex digits). */
static const char *scan_address(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    if (p >= end || *p != '"')
        return "expected an address string";
    if (end - p < 4 || p[1] != '0' || p[2] != 'x')
        return "bad address (expected \"0x...\")";
    p += 3;
    uint64_t v = 0;
    int digits = 0, d;
    while (p < end && (d = hexval((unsigned char)*p)) >= 0) {
        if (++digits > 16) {
            *pp = p;
            return "address wider than 64 bits";
        }
        v = v << 4 | (uint64_t)d;
        p++;
    }
    if (digits == 0 || p >= end || *p != '"') {
        *pp = p;
        return "bad address (expected \"0x...\")";
    }
    *pp = p + 1;
    *out = v;
    return NULL;
}

/* A JSON number; *out its value when it is a non-negative integer that fits
 * 64 bits (*is_u64 says so). */
static const char *scan_number(const char **pp, const char *end, uint64_t *out, int *is_u64)
{
    const char *p = *pp;
    int neg = 0, frac = 0, big = 0;
    uint64_t v = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    if (p >= end || *p < '0' || *p > '9')
        return "bad number";
    if (*p == '0') {
        p++;
    } else {
        while (p < end && *p >= '0' && *p <= '9') {
            unsigned d = (unsigned)(*p - '0');
            if (v > (UINT64_MAX - d) / 10)
                big = 1;
            v = v * 10 + d;
            p++;
        }
    }
    if (p < end && *p == '.') {
        frac = 1;
        p++;
        if (p >= end || *p < '0' || *p > '9')
            return "bad number";
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        frac = 1;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return "bad number";
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    *pp = p;
    *is_u64 = !neg && !frac && !big;
    *out = v;
    return NULL;
}

static const char *scan_word(const char **pp, const char *end)
{
    const char *p = *pp;
    size_t left = (size_t)(end - p), n = 0;
    if (left >= 4 && memcmp(p, "true", 4) == 0)
        n = 4;
    else if (left >= 5 && memcmp(p, "false", 5) == 0)
        n = 5;
    else if (left >= 4 && memcmp(p, "null", 4) == 0)
        n = 4;
    if (!n)
        return "unexpected character";
    *pp = p + n;
    return NULL;
}

/* A value with no brackets (a string, number or literal), or NULL with *pp
 * unmoved when it is an array or object (or not a value at all: the caller
 * then lets skip_value say why). *msg is the scalar's error. */
static int skip_scalar(const char **pp, const char *end, const char **msg)
{
    const char *p = *pp;
    rb_str s;
    uint64_t u;
    int is_u64;
    if (p >= end)
        return 0;
    if (*p == '"')
        *msg = scan_string(pp, end, &s);
    else if (*p == '-' || (*p >= '0' && *p <= '9'))
        *msg = scan_number(pp, end, &u, &is_u64);
    else if (*p == 't' || *p == 'f' || *p == 'n')
        *msg = scan_word(pp, end);
    else
        return 0;
    return 1;
}

/* Skips any JSON value at *pp. Nested arrays and objects are walked in a
 * loop (no recursion): a depth counter and, per open bracket, one bit
 * saying whether it is an object; nesting deeper than MAX_DEPTH is
 * refused. */
#define MAX_DEPTH 256
static const char *skip_value(const char **pp, const char *end)
{
    unsigned char open[MAX_DEPTH / 8] = { 0 }; /* bit set: '{' at that depth */
    int depth = 0;
    const char *p = *pp;
    const char *msg = NULL;
    rb_str s;
    uint64_t u;
    int is_u64;
    for (;;) {
        p = skip_blank(p, end);
        if (p >= end) {
            msg = "line ends inside a value";
            break;
        }
        /* a value */
        if (*p == '{' || *p == '[') {
            if (depth >= MAX_DEPTH) {
                msg = "nested too deeply";
                break;
            }
            int obj = *p == '{';
            if (obj)
                open[depth / 8] |= (unsigned char)(1u << depth % 8);
            else
                open[depth / 8] &= (unsigned char)~(1u << depth % 8);
            depth++;
            p = skip_blank(p + 1, end);
            if (p < end && *p == (obj ? '}' : ']')) {
                p++;
                depth--;
                goto after_value;
            }
            if (obj) {
                if (p >= end || *p != '"') {
                    msg = "expected a member name";
                    break;
                }
                if ((msg = scan_string(&p, end, &s)) != NULL)
                    break;
                p = skip_blank(p, end);
                if (p >= end || *p != ':') {
                    msg = "expected ':'";
                    break;
                }
                p++;
            }
            continue;
        } else if (*p == '"') {
            if ((msg = scan_string(&p, end, &s)) != NULL)
                break;
        } else if (*p == '-' || (*p >= '0' && *p <= '9')) {
            if ((msg = scan_number(&p, end, &u, &is_u64)) != NULL)
                break;
        } else if ((msg = scan_word(&p, end)) != NULL) {
            break;
        }
    after_value:
        /* after a value: close brackets or go on to the next element */
        for (;;) {
            if (depth == 0) {
                *pp = p;
                return NULL;
            }
            p = skip_blank(p, end);
            int obj = open[(depth - 1) / 8] >> (depth - 1) % 8 & 1;
            if (p < end && *p == (obj ? '}' : ']')) {
                p++;
                depth--;
                continue;
            }
            if (p >= end || *p != ',') {
                msg = p >= end ? "line ends inside a value" : obj ? "expected ',' or '}'" : "expected ',' or ']'";
                goto out;
            }
            p = skip_blank(p + 1, end);
            if (obj) {
                if (p >= end || *p != '"') {
                    msg = "expected a member name";
                    goto out;
                }
                if ((msg = scan_string(&p, end, &s)) != NULL)
                    goto out;
                p = skip_blank(p, end);
                if (p >= end || *p != ':') {
                    msg = "expected ':'";
                    goto out;
                }
                p++;
            }
            break;
        }
    }
out:
    *pp = p;
    return msg;
}

/* Skips an object at *pp whose member values are all scalars ("flags":
 * {"wb_protected":true, "old":true, ...}, on most lines) without
 * skip_value's bookkeeping. Returns 0 with *pp unmoved at the first thing
 * it does not take (a nested value, an error): skip_value then walks it
 * from the start and says what is wrong, as it would have. */
static int skip_flat_object(const char **pp, const char *end)
{
    const char *p = *pp, *msg = NULL;
    rb_str k;
    if (p >= end || *p != '{')
        return 0;
    p = skip_blank(p + 1, end);
    if (p < end && *p == '}') {
        *pp = p + 1;
        return 1;
    }
    for (;;) {
        if (p >= end || *p != '"' || scan_string(&p, end, &k) != NULL)
            return 0;
        p = skip_blank(p, end);
        if (p >= end || *p != ':')
            return 0;
        p = skip_blank(p + 1, end);
        if (!skip_scalar(&p, end, &msg) || msg)
            return 0;
        p = skip_blank(p, end);
        if (p < end && *p == '}') {
            *pp = p + 1;
            return 1;
        }
        if (p >= end || *p != ',')
            return 0;
        p = skip_blank(p + 1, end);
    }
}

/* Any value: the quick ways first, skip_value for the rest. */
static const char *skip_any(const char **pp, const char *end)
{
    const char *msg = NULL;
    if (skip_scalar(pp, end, &msg) || skip_flat_object(pp, end))
        return msg;
    return skip_value(pp, end);
}

/* The "references" array: addresses only. */
static const char *scan_refs(const char **pp, const char *end, rb_record *r, rb_refs *refs)
{
    const char *p = *pp;
    const char *msg;
    if (p >= end || *p != '[')
        return "references: expected an array";
    p = skip_blank(p + 1, end);
    size_t n = 0, at = refs->at;
    if (p < end && *p == ']') {
        *pp = p + 1;
        r->nrefs = 0;
        return NULL;
    }
    for (;;) {
        if (at + n >= refs->cap &&
            !gch_grow((void **)&refs->v, &refs->cap, at + n + 1, sizeof *refs->v, 64)) {
            *pp = p;
            return "out of memory";
        }
        if ((msg = scan_address(&p, end, &refs->v[at + n])) != NULL) {
            *pp = p;
            return msg;
        }
        n++;
        p = skip_blank(p, end);
        if (p < end && *p == ']')
            break;
        if (p >= end || *p != ',') {
            *pp = p;
            return p >= end ? "line ends inside references" : "expected ',' or ']'";
        }
        p = skip_blank(p + 1, end);
    }
    *pp = p + 1;
    r->nrefs = n;
    return NULL;
}

#define KEY(lit) (k.n == sizeof lit - 1 && memcmp(k.p, lit, sizeof lit - 1) == 0)

/* Expects a string value at *pp into *out. */
static const char *string_member(const char **pp, const char *end, rb_str *out)
{
    if (*pp >= end || **pp != '"')
        return "expected a string";
    return scan_string(pp, end, out);
}

static const char *number_member(const char **pp, const char *end, uint64_t *out)
{
    int is_u64;
    const char *start = *pp;
    const char *msg = scan_number(pp, end, out, &is_u64);
    if (msg)
        return msg;
    if (!is_u64) {
        *pp = start;
        return "expected a non-negative integer below 2^64";
    }
    return NULL;
}

/* One member's value: the ones the reader uses into r, the others skipped. */
static const char *member(rb_str k, const char **pp, const char *end, rb_record *r, rb_refs *refs)
{
    const char *msg;
    if (k.escaped)
        return skip_any(pp, end);
    switch (k.n) {
    case 4:
        if (KEY("type")) {
            if ((msg = string_member(pp, end, &r->type)) == NULL) {
                r->has_type = 1;
                r->kind = kind_of(r->type);
            }
            return msg;
        }
        if (KEY("root"))
            return string_member(pp, end, &r->root);
        if (KEY("name")) {
            r->has_name = 1;
            return string_member(pp, end, &r->name);
        }
        if (KEY("file")) {
            r->has_file = 1;
            return string_member(pp, end, &r->file);
        }
        if (KEY("line")) {
            r->has_line = 1;
            return number_member(pp, end, &r->line);
        }
        break;
    case 5:
        if (KEY("class"))
            return scan_address(pp, end, &r->klass);
        if (KEY("value") && *pp < end && **pp == '"') { /* a FLOAT's is a string too */
            r->has_value = 1;
            return scan_string(pp, end, &r->value);
        }
        break;
    case 6:
        if (KEY("struct"))
            return string_member(pp, end, &r->strct);
        break;
    case 7:
        if (KEY("address")) {
            r->has_address = 1;
            return scan_address(pp, end, &r->address);
        }
        if (KEY("memsize"))
            return number_member(pp, end, &r->memsize);
        break;
    case 10:
        if (KEY("references"))
            return scan_refs(pp, end, r, refs);
        if (KEY("superclass"))
            return scan_address(pp, end, &r->superclass);
        if (KEY("imemo_type"))
            return string_member(pp, end, &r->imemo_type);
        break;
    default:
        break;
    }
    return skip_any(pp, end);
}


/* ---- the fast path: lines as dump_all writes them ----
 *
 * dump_object (objspace_dump.c) writes every object line the same way:
 * {"address":"0x...", "type":"...", then more members each after ", ",
 * with no other blank, and "}" ends the line. rb_parse_line_fast takes exactly
 * such lines (object lines: ROOT lines start with "type") and fills the
 * record as the general parser would; anything else (a blank elsewhere,
 * an escaped member name, a nested array, a number it does not read
 * whole, an error) makes it give up, and the general parser reads the
 * line from its start, which also words the errors. */

/* Whether [p, p + n) is a decimal integer the fast path takes: at most 19
 * digits (no overflow), no leading zero unless it is "0", not followed by
 * a fraction or exponent. *v its value, *pp past it. */
static inline int fast_uint(const char **pp, const char *end, uint64_t *v)
{
    const char *p = *pp;
    uint64_t x = 0;
    int n = 0;
    while (p < end && (unsigned)(*p - '0') < 10 && n < 20) {
        x = x * 10 + (uint64_t)(*p - '0');
        p++;
        n++;
    }
    if (n == 0 || n > 19 || (n > 1 && **pp == '0') ||
        (p < end && (*p == '.' || *p == 'e' || *p == 'E')))
        return 0;
    *v = x;
    *pp = p;
    return 1;
}

/* An address string "0x" + 1 to 16 lowercase or decimal hex digits + quote
 * at *pp (which is at the opening quote). */
static inline int fast_address(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    if (end - p < 5 || p[0] != '"' || p[1] != '0' || p[2] != 'x')
        return 0;
    p += 3;
    const char *start = p;
    uint64_t v = 0;
    int d;
    while (p < end && (d = hexval((unsigned char)*p)) >= 0) {
        v = v << 4 | (uint64_t)d;
        p++;
    }
    if (p == start || p - start > 16 || p >= end || *p != '"')
        return 0;
    *out = v;
    *pp = p + 1;
    return 1;
}

/* Skips the flat object at *pp ("flags"): members whose values are true,
 * false or numbers, after ", ". */
static inline int fast_flags(const char **pp, const char *end)
{
    const char *p = *pp + 1;
    uint64_t u;
    if (p < end && *p == '}') {
        *pp = p + 1;
        return 1;
    }
    for (;;) {
        if (p >= end || *p != '"')
            return 0;
        const char *q = plain_run(p + 1, end);
        if (q >= end || *q != '"' || end - q < 2 || q[1] != ':')
            return 0;
        p = q + 2;
        if (end - p >= 4 && memcmp(p, "true", 4) == 0)
            p += 4;
        else if (end - p >= 5 && memcmp(p, "false", 5) == 0)
            p += 5;
        else if (!fast_uint(&p, end, &u))
            return 0;
        if (p < end && *p == '}') {
            *pp = p + 1;
            return 1;
        }
        if (end - p < 3 || p[0] != ',' || p[1] != ' ')
            return 0;
        p += 2;
    }
}

/* "references": [ addresses after ", " ] (or []). */
static inline int fast_refs(const char **pp, const char *end, rb_record *r, rb_refs *refs)
{
    const char *p = *pp + 1;
    size_t n = 0, at = refs->at;
    if (p < end && *p == ']') {
        *pp = p + 1;
        r->nrefs = 0;
        return 1;
    }
    for (;;) {
        if (at + n >= refs->cap &&
            !gch_grow((void **)&refs->v, &refs->cap, at + n + 1, sizeof *refs->v, 64))
            return 0; /* the general parser says "out of memory" */
        if (!fast_address(&p, end, &refs->v[at + n]))
            return 0;
        n++;
        if (p < end && *p == ']')
            break;
        if (end - p < 3 || p[0] != ',' || p[1] != ' ')
            return 0;
        p += 2;
    }
    *pp = p + 1;
    r->nrefs = n;
    return 1;
}

/* A plain string (no escape) or any string, at *pp. */
static inline int fast_string(const char **pp, const char *end, rb_str *out)
{
    const char *p = *pp;
    if (p >= end || *p != '"')
        return 0;
    const char *q = plain_run(p + 1, end);
    if (q < end && *q == '"') {
        out->p = p + 1;
        out->n = (size_t)(q - out->p);
        out->escaped = 0;
        *pp = q + 1;
        return 1;
    }
    return scan_string(pp, end, out) == NULL;
}

/* Any other member's value: a string, a number, true/false/null or a flat
 * object; arrays and the rest go to the general parser. */
static inline int fast_skip(const char **pp, const char *end)
{
    const char *p = *pp;
    rb_str s;
    uint64_t u;
    int is_u64;
    if (p >= end)
        return 0;
    switch (*p) {
    case '"':
        return fast_string(pp, end, &s);
    case 't':
        if (end - p >= 4 && memcmp(p, "true", 4) == 0) {
            *pp = p + 4;
            return 1;
        }
        return 0;
    case 'f':
        if (end - p >= 5 && memcmp(p, "false", 5) == 0) {
            *pp = p + 5;
            return 1;
        }
        return 0;
    case 'n':
        if (end - p >= 4 && memcmp(p, "null", 4) == 0) {
            *pp = p + 4;
            return 1;
        }
        return 0;
    case '{':
        return fast_flags(pp, end);
    default:
        if (fast_uint(pp, end, &u)) /* most are: the general scan for the rest */
            return 1;
        if (*p == '-' || (*p >= '0' && *p <= '9'))
            return scan_number(pp, end, &u, &is_u64) == NULL;
        return 0;
    }
}

#define FKEY(lit) (n == sizeof lit - 1 && memcmp(k, lit, sizeof lit - 1) == 0)

/* One member named [k, k + n), its value at *pp. */
static inline int fast_member(const char *k, size_t n, const char **pp, const char *end,
                              rb_record *r, rb_refs *refs)
{
    switch (n) {
    case 4:
        if (FKEY("type")) {
            if (!fast_string(pp, end, &r->type))
                return 0;
            r->has_type = 1;
            r->kind = kind_of(r->type);
            return 1;
        }
        if (FKEY("file")) {
            r->has_file = 1;
            return fast_string(pp, end, &r->file);
        }
        if (FKEY("line")) {
            r->has_line = 1;
            return fast_uint(pp, end, &r->line);
        }
        if (FKEY("name")) {
            r->has_name = 1;
            return fast_string(pp, end, &r->name);
        }
        if (FKEY("root"))
            return fast_string(pp, end, &r->root);
        break;
    case 5:
        if (FKEY("class"))
            return fast_address(pp, end, &r->klass);
        if (FKEY("value") && *pp < end && **pp == '"') {
            r->has_value = 1;
            return fast_string(pp, end, &r->value);
        }
        break;
    case 6:
        if (FKEY("struct"))
            return fast_string(pp, end, &r->strct);
        break;
    case 7:
        if (FKEY("memsize"))
            return fast_uint(pp, end, &r->memsize);
        if (FKEY("address")) {
            r->has_address = 1;
            return fast_address(pp, end, &r->address);
        }
        break;
    case 10:
        if (FKEY("references"))
            return *pp < end && **pp == '[' && fast_refs(pp, end, r, refs);
        if (FKEY("superclass"))
            return fast_address(pp, end, &r->superclass);
        if (FKEY("imemo_type"))
            return fast_string(pp, end, &r->imemo_type);
        break;
    default:
        break;
    }
    return fast_skip(pp, end);
}

/* The record of an object line in dump_all's own layout, or 0 (r and the
 * references past refs->at then hold anything: the general parser starts
 * over). r was cleared by the caller. */
static int parse_fast(const char *p, const char *end, rb_record *r, rb_refs *refs)
{
    if (end - p < 16 || memcmp(p, "{\"address\":", 11) != 0)
        return 0;
    p += 11;
    if (!fast_address(&p, end, &r->address))
        return 0;
    r->has_address = 1;
    for (;;) {
        if (end - p == 1 && *p == '}')
            return 1;
        if (end - p < 4 || p[0] != ',' || p[1] != ' ' || p[2] != '"')
            return 0;
        const char *k = p + 3;
        const char *q = plain_run(k, end);
        if (end - q < 2 || q[0] != '"' || q[1] != ':')
            return 0;
        p = q + 2;
        if (!fast_member(k, (size_t)(q - k), &p, end, r, refs))
            return 0;
    }
}

/* An empty record, its strings pointing at the line. Field by field: a
 * memset of the whole record cost a tenth of the parse. */
static inline void rb_clear(rb_record *r, const char *line)
{
    r->kind = RB_UNKNOWN;
    r->address = r->klass = r->superclass = r->memsize = r->line = 0;
    r->has_address = r->has_type = r->has_line = r->has_value = r->has_file = r->has_name = 0;
    r->type.n = r->name.n = r->root.n = r->imemo_type.n = r->strct.n = r->value.n = r->file.n = 0;
    r->type.escaped = r->name.escaped = r->root.escaped = r->imemo_type.escaped = 0;
    r->strct.escaped = r->value.escaped = r->file.escaped = 0;
    r->type.p = r->name.p = r->root.p = r->imemo_type.p = r->strct.p = r->value.p = r->file.p = line;
    r->nrefs = 0;
}

int rb_parse_line_fast(const char *line, const char *end, rb_record *r, rb_refs *refs)
{
    rb_clear(r, line);
    return parse_fast(line, end, r, refs);
}

const char *rb_parse_line(const char *line, const char *end, rb_record *r, rb_refs *refs, size_t *col)
{
    if (rb_parse_line_fast(line, end, r, refs))
        return NULL;
    return rb_parse_line_general(line, end, r, refs, col);
}

const char *rb_parse_line_general(const char *line, const char *end, rb_record *r, rb_refs *refs,
                                  size_t *col)
{
    rb_clear(r, line);
    const char *p = skip_blank(line, end);
    const char *msg = NULL;
    if (p >= end || *p != '{') {
        msg = "expected a JSON object";
        goto fail;
    }
    p = skip_blank(p + 1, end);
    if (p < end && *p == '}') {
        p++;
        goto done;
    }
    for (;;) {
        rb_str k;
        if (p >= end || *p != '"') {
            msg = "expected a member name";
            goto fail;
        }
        /* member names are short and plain: a byte loop, else the careful scan */
        const char *q = plain_run(p + 1, end);
        if (q < end && *q == '"') {
            k.p = p + 1;
            k.n = (size_t)(q - k.p);
            k.escaped = 0;
            p = q + 1;
        } else if ((msg = scan_string(&p, end, &k)) != NULL) {
            goto fail;
        }
        p = skip_blank(p, end);
        if (p >= end || *p != ':') {
            msg = "expected ':'";
            goto fail;
        }
        p = skip_blank(p + 1, end);
        if ((msg = member(k, &p, end, r, refs)) != NULL)
            goto fail;
        p = skip_blank(p, end);
        if (p < end && *p == '}') {
            p++;
            break;
        }
        if (p >= end || *p != ',') {
            msg = p >= end ? "line ends inside the object" : "expected ',' or '}'";
            goto fail;
        }
        p = skip_blank(p + 1, end);
    }
done:
    p = skip_blank(p, end);
    if (p < end) {
        msg = "text after the object";
        goto fail;
    }
    return NULL;
fail:
    *col = (size_t)(p - line);
    return msg;
}

/* Appends code point c as UTF-8 at out; returns the bytes written. */
static size_t put_utf8(char *out, uint32_t c)
{
    if (c < 0x80) {
        out[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        out[0] = (char)(0xC0 | c >> 6);
        out[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | c >> 12);
        out[1] = (char)(0x80 | (c >> 6 & 0x3F));
        out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | c >> 18);
    out[1] = (char)(0x80 | (c >> 12 & 0x3F));
    out[2] = (char)(0x80 | (c >> 6 & 0x3F));
    out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

static uint32_t hex4(const char *p)
{
    return (uint32_t)(hexval((unsigned char)p[0]) << 12 | hexval((unsigned char)p[1]) << 8 |
                      hexval((unsigned char)p[2]) << 4 | hexval((unsigned char)p[3]));
}

size_t rb_unescape(rb_str s, char *out)
{
    const char *p = s.p, *end = s.p + s.n;
    size_t n = 0;
    if (!s.escaped) { /* no escape: the bytes as they are (none below 0x20) */
        memcpy(out, p, s.n);
        return s.n;
    }
    while (p < end) {
        if (*p != '\\') {
            out[n++] = *p++;
            continue;
        }
        p++;
        char c = *p++;
        switch (c) {
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            uint32_t u = hex4(p);
            p += 4;
            if (u >= 0xD800 && u < 0xDC00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
                uint32_t lo = hex4(p + 2);
                if (lo >= 0xDC00 && lo < 0xE000) {
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                    p += 6;
                }
            }
            if (u == 0 || (u >= 0xD800 && u < 0xE000))
                u = 0xFFFD;
            n += put_utf8(out + n, u);
            break;
        }
        default: out[n++] = c; break; /* " \ / */
        }
    }
    return n;
}
