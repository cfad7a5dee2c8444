/* See mcp_json.h. One pass over the text with an explicit stack of open
 * containers; every byte is checked against RFC 8259's grammar (strings:
 * escapes and UTF-8 validity; numbers: the exact number grammar). */
#include "mcp_json.h"

#include <stdlib.h>
#include <string.h>

#include "gcheap/hex.h"

typedef struct parser {
    const char *s;
    size_t n, pos;
    const mj_limits *lim;
    mj_node *nodes;
    size_t count, cap;
    uint32_t *stack;
    size_t depth;
} parser;

const char *mj_status_text(mj_status s)
{
    switch (s) {
    case MJ_OK: return "ok";
    case MJ_ESYNTAX: return "not valid JSON";
    case MJ_EDEPTH: return "nesting too deep";
    case MJ_ESIZE: return "message too large";
    case MJ_ECOUNT: return "too many values";
    case MJ_ENOMEM: return "out of memory";
    }
    return "?";
}

static void skip_ws(parser *p)
{
    while (p->pos < p->n) {
        char c = p->s[p->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        p->pos++;
    }
}

/* A new node at the current position; its count and length come later. */
static mj_status add_node(parser *p, mj_kind kind, size_t *index)
{
    if (p->count >= p->lim->max_nodes)
        return MJ_ECOUNT;
    if (p->count == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 64;
        if (nc > p->lim->max_nodes)
            nc = p->lim->max_nodes;
        if (nc > p->n + 1) /* never more nodes than bytes */
            nc = p->n + 1;
        if (nc <= p->count || nc > SIZE_MAX / sizeof(mj_node))
            return MJ_ECOUNT;
        mj_node *grown = realloc(p->nodes, nc * sizeof(mj_node));
        if (!grown)
            return MJ_ENOMEM;
        p->nodes = grown;
        p->cap = nc;
    }
    mj_node *nd = &p->nodes[p->count];
    nd->kind = (uint32_t)kind;
    nd->start = (uint32_t)p->pos;
    nd->len = 0;
    nd->count = 0;
    nd->next = 0;
    *index = p->count++;
    return MJ_OK;
}

static void finish_node(parser *p, size_t index)
{
    p->nodes[index].len = (uint32_t)(p->pos - p->nodes[index].start);
    p->nodes[index].next = (uint32_t)p->count;
}

/* The length of a valid UTF-8 sequence at s (limit bytes available), 0 when
 * invalid: overlong forms, surrogates, code points past U+10FFFF. */
static size_t utf8_valid(const unsigned char *s, size_t limit)
{
    unsigned c = s[0];
    size_t len;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (len > limit)
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xBF)
            return 0;
    return len;
}

static mj_status scan_string(parser *p)
{
    const unsigned char *s = (const unsigned char *)p->s;
    size_t i = p->pos + 1;
    while (i < p->n) {
        unsigned c = s[i];
        if (c == '"') {
            p->pos = i + 1;
            return MJ_OK;
        }
        if (c < 0x20)
            break;
        if (c == '\\') {
            if (i + 1 >= p->n)
                break;
            char e = (char)s[i + 1];
            if (e == 'u') {
                if (i + 5 >= p->n)
                    break;
                int ok = 1;
                for (size_t k = 2; k < 6; k++)
                    ok &= gch_hex_digit((char)s[i + k]) >= 0;
                if (!ok)
                    break;
                i += 6;
            } else if (strchr("\"\\/bfnrt", e) && e) {
                i += 2;
            } else
                break;
        } else if (c >= 0x80) {
            size_t len = utf8_valid(s + i, p->n - i);
            if (!len)
                break;
            i += len;
        } else
            i++;
    }
    p->pos = i;
    return MJ_ESYNTAX;
}

static int is_digit(const parser *p) { return p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9'; }

static mj_status scan_number(parser *p)
{
    if (p->s[p->pos] == '-')
        p->pos++;
    if (!is_digit(p))
        return MJ_ESYNTAX;
    if (p->s[p->pos] == '0')
        p->pos++;
    else
        while (is_digit(p))
            p->pos++;
    if (p->pos < p->n && p->s[p->pos] == '.') {
        p->pos++;
        if (!is_digit(p))
            return MJ_ESYNTAX;
        while (is_digit(p))
            p->pos++;
    }
    if (p->pos < p->n && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->n && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        if (!is_digit(p))
            return MJ_ESYNTAX;
        while (is_digit(p))
            p->pos++;
    }
    return MJ_OK;
}

static mj_status scan_literal(parser *p, const char *word, mj_kind kind)
{
    size_t len = strlen(word), index;
    if (p->n - p->pos < len || memcmp(p->s + p->pos, word, len) != 0)
        return MJ_ESYNTAX;
    mj_status st = add_node(p, kind, &index);
    if (st)
        return st;
    p->pos += len;
    finish_node(p, index);
    return MJ_OK;
}

/* A key string in an object, then ':'. */
static mj_status scan_key(parser *p)
{
    size_t index;
    if (p->pos >= p->n || p->s[p->pos] != '"')
        return MJ_ESYNTAX;
    mj_status st = add_node(p, MJ_STRING, &index);
    if (st || (st = scan_string(p)))
        return st;
    finish_node(p, index);
    p->nodes[p->stack[p->depth - 1]].count++;
    skip_ws(p);
    if (p->pos >= p->n || p->s[p->pos] != ':')
        return MJ_ESYNTAX;
    p->pos++;
    skip_ws(p);
    return MJ_OK;
}

/* One value at pos: a scalar is scanned whole; a container is opened (pushed)
 * and *opened set. */
static mj_status scan_value(parser *p, int *opened)
{
    *opened = 0;
    if (p->pos >= p->n)
        return MJ_ESYNTAX;
    char c = p->s[p->pos];
    size_t index;
    mj_status st;
    if (c == '{' || c == '[') {
        if (p->depth >= p->lim->max_depth)
            return MJ_EDEPTH;
        if ((st = add_node(p, c == '{' ? MJ_OBJECT : MJ_ARRAY, &index)))
            return st;
        p->stack[p->depth++] = (uint32_t)index;
        p->pos++;
        *opened = 1;
        return MJ_OK;
    }
    if (c == '"') {
        if ((st = add_node(p, MJ_STRING, &index)) || (st = scan_string(p)))
            return st;
        finish_node(p, index);
        return MJ_OK;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        if ((st = add_node(p, MJ_NUMBER, &index)) || (st = scan_number(p)))
            return st;
        finish_node(p, index);
        return MJ_OK;
    }
    if (c == 't')
        return scan_literal(p, "true", MJ_TRUE);
    if (c == 'f')
        return scan_literal(p, "false", MJ_FALSE);
    if (c == 'n')
        return scan_literal(p, "null", MJ_NULL);
    return MJ_ESYNTAX;
}

/* Just after '[' or '{' (opened) or after a value: what may come next. Sets
 * *want_value when a value must be scanned next; 0 with depth 0: done. */
static mj_status after(parser *p, int opened, int *want_value)
{
    *want_value = 0;
    while (p->depth > 0) {
        skip_ws(p);
        if (p->pos >= p->n)
            return MJ_ESYNTAX;
        size_t top = p->stack[p->depth - 1];
        int object = p->nodes[top].kind == MJ_OBJECT;
        char c = p->s[p->pos], close = object ? '}' : ']';
        if (c == close && (opened || p->nodes[top].count > 0)) {
            p->pos++;
            finish_node(p, top);
            p->depth--;
            opened = 0;
            continue;
        }
        if (!opened) {
            if (c != ',')
                return MJ_ESYNTAX;
            p->pos++;
            skip_ws(p);
        }
        if (object) {
            mj_status st = scan_key(p);
            if (st)
                return st;
        } else
            p->nodes[top].count++;
        *want_value = 1;
        return MJ_OK;
    }
    return MJ_OK;
}

static mj_status run(parser *p)
{
    skip_ws(p);
    for (;;) {
        int opened, want;
        mj_status st = scan_value(p, &opened);
        if (st)
            return st;
        if (!opened && p->depth == 0)
            break;
        st = after(p, opened, &want);
        if (st)
            return st;
        if (!want)
            break;
    }
    skip_ws(p);
    return p->pos == p->n ? MJ_OK : MJ_ESYNTAX;
}

mj_status mj_parse(const char *text, size_t size, const mj_limits *lim, mj_doc *doc)
{
    memset(doc, 0, sizeof *doc);
    doc->text = text;
    doc->size = size;
    if (size > lim->max_bytes || size >= UINT32_MAX)
        return MJ_ESIZE;
    parser p = { text, size, 0, lim, NULL, 0, 0, NULL, 0 };
    p.stack = malloc((lim->max_depth ? lim->max_depth : 1) * sizeof *p.stack);
    if (!p.stack)
        return MJ_ENOMEM;
    mj_status st = run(&p);
    free(p.stack);
    if (st) {
        free(p.nodes);
        doc->error_at = p.pos;
        return st;
    }
    doc->nodes = p.nodes;
    doc->count = p.count;
    return MJ_OK;
}

void mj_free(mj_doc *doc)
{
    free(doc->nodes);
    doc->nodes = NULL;
    doc->count = 0;
}

/* ---- access ---- */

static void put_utf8(char **o, unsigned cp)
{
    unsigned char *u = (unsigned char *)*o;
    if (cp < 0x80) {
        *u++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *u++ = (unsigned char)(0xC0 | (cp >> 6));
        *u++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *u++ = (unsigned char)(0xE0 | (cp >> 12));
        *u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *u++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else {
        *u++ = (unsigned char)(0xF0 | (cp >> 18));
        *u++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
        *u++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
        *u++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    *o = (char *)u;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++)
        v = v * 16 + (unsigned)gch_hex_digit(s[k]);
    return v;
}

/* Unescapes the raw string body s[0..n) (validated by the parser) into o,
 * which has room for n + 1 bytes: an escape is never shorter than what it
 * stands for (\uXXXX: 6 bytes for at most 3; a pair: 12 for 4). */
static size_t unescape(const char *s, size_t n, char *o, int *has_nul)
{
    char *start = o;
    for (size_t i = 0; i < n;) {
        if (s[i] != '\\') {
            *o++ = s[i++];
            continue;
        }
        char e = s[i + 1];
        i += 2;
        if (e != 'u') {
            *o++ = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e;
            continue;
        }
        unsigned cp = hex4(s + i);
        i += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
            unsigned lo = hex4(s + i + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF)
            cp = 0xFFFD;
        if (cp == 0 && has_nul)
            *has_nul = 1;
        put_utf8(&o, cp);
    }
    *o = '\0';
    return (size_t)(o - start);
}

char *mj_string(const mj_doc *d, size_t node, int *has_nul)
{
    if (has_nul)
        *has_nul = 0;
    if (node >= d->count || d->nodes[node].kind != MJ_STRING)
        return NULL;
    const mj_node *nd = &d->nodes[node];
    char *o = malloc(nd->len);
    if (!o)
        return NULL;
    unescape(d->text + nd->start + 1, nd->len - 2, o, has_nul);
    return o;
}

int mj_string_is(const mj_doc *d, size_t node, const char *s)
{
    if (node >= d->count || d->nodes[node].kind != MJ_STRING)
        return 0;
    const mj_node *nd = &d->nodes[node];
    const char *raw = d->text + nd->start + 1;
    size_t n = nd->len - 2, want = strlen(s);
    if (!memchr(raw, '\\', n))
        return n == want && memcmp(raw, s, n) == 0;
    if (want > n)
        return 0;
    char small[256];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf)
        return 0;
    size_t got = unescape(raw, n, buf, NULL);
    int same = got == want && memcmp(buf, s, want) == 0;
    if (buf != small)
        free(buf);
    return same;
}

long mj_get(const mj_doc *d, size_t obj, const char *key)
{
    if (obj >= d->count || d->nodes[obj].kind != MJ_OBJECT)
        return -1;
    size_t i = obj + 1;
    for (uint32_t m = 0; m < d->nodes[obj].count; m++) {
        size_t value = i + 1;
        if (mj_string_is(d, i, key))
            return (long)value;
        i = d->nodes[value].next;
    }
    return -1;
}

int mj_u64(const mj_doc *d, size_t node, uint64_t *v)
{
    if (node >= d->count || d->nodes[node].kind != MJ_NUMBER)
        return -1;
    const char *s = d->text + d->nodes[node].start;
    size_t n = d->nodes[node].len;
    uint64_t x = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned dg = (unsigned)(s[i] - '0');
        if (x > (UINT64_MAX - dg) / 10)
            return -1;
        x = x * 10 + dg;
    }
    *v = x;
    return 0;
}
