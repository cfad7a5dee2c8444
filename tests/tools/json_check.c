/* json_check: the test suite's JSON validator, so that no script starts an
 * interpreter per output it checks.
 *
 *   json_check FILE...        exit 0 when every FILE is one valid JSON text
 *                             (RFC 8259, strict: UTF-8, no trailing commas,
 *                             no leading zeros); otherwise prints
 *                             "FILE: offset N: what" per bad file, exits 1
 *   json_check --rows FILE    validates FILE, then prints the rows of a
 *                             gcheap report as tsv: the keys of the first row,
 *                             then each row's values (strings unquoted),
 *                             taken from sections[*].rows, or from
 *                             sections[0].types when that exists (objsize --stat),
 *                             each row ending with its section's domain as in
 *                             gcheap's tsv
 *
 * A document is parsed into a flat array of values (no recursion limit
 * problems: nesting is bounded by MAX_DEPTH with an explicit stack). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 512 };

typedef struct parser {
    const unsigned char *s;
    size_t n, pos;
    const char *error;
} parser;

static int fail(parser *p, const char *what)
{
    if (!p->error)
        p->error = what;
    return -1;
}

static void skip_ws(parser *p)
{
    while (p->pos < p->n && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
                             p->s[p->pos] == '\r'))
        p->pos++;
}

static int hex4(parser *p, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        if (p->pos >= p->n)
            return fail(p, "truncated \\u escape");
        unsigned char c = p->s[p->pos++];
        unsigned d = c >= '0' && c <= '9' ? c - '0'
                   : c >= 'a' && c <= 'f' ? c - 'a' + 10
                   : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
        if (d == 16)
            return fail(p, "bad hex digit in \\u escape");
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* One UTF-8 sequence starting at p->pos (already known not to be ASCII). */
static int utf8_char(parser *p)
{
    unsigned char c = p->s[p->pos];
    int len = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!len || p->pos + (size_t)len > p->n)
        return fail(p, "invalid UTF-8");
    unsigned cp = c & (0x7f >> len);
    for (int i = 1; i < len; i++) {
        unsigned char d = p->s[p->pos + (size_t)i];
        if ((d & 0xc0) != 0x80)
            return fail(p, "invalid UTF-8");
        cp = cp << 6 | (d & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return fail(p, "invalid UTF-8");
    p->pos += (size_t)len;
    return 0;
}

/* A string; when out is not NULL, its raw contents (escapes decoded for
 * the ASCII ones, others kept) are copied there (cap bytes). */
static int string(parser *p, char *out, size_t cap)
{
    size_t w = 0;
    p->pos++; /* the quote */
    for (;;) {
        if (p->pos >= p->n)
            return fail(p, "unterminated string");
        unsigned char c = p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20)
            return fail(p, "control character in string");
        if (c == '\\') {
            if (++p->pos >= p->n)
                return fail(p, "truncated escape");
            unsigned char e = p->s[p->pos++];
            if (e == 'u') {
                unsigned u;
                if (hex4(p, &u))
                    return -1;
                if (u >= 0xdc00 && u <= 0xdfff)
                    return fail(p, "lone low surrogate");
                if (u >= 0xd800 && u <= 0xdbff) {
                    unsigned lo;
                    if (p->pos + 2 > p->n || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u')
                        return fail(p, "lone high surrogate");
                    p->pos += 2;
                    if (hex4(p, &lo))
                        return -1;
                    if (lo < 0xdc00 || lo > 0xdfff)
                        return fail(p, "bad surrogate pair");
                }
                c = u < 0x80 ? (unsigned char)u : '?';
            } else if (strchr("\"\\/bfnrt", e) && e) {
                c = e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r'
                  : e == 't' ? '\t' : e;
            } else {
                return fail(p, "bad escape");
            }
        } else if (c >= 0x80) {
            size_t at = p->pos;
            if (utf8_char(p))
                return -1;
            while (out && at < p->pos && w + 1 < cap)
                out[w++] = (char)p->s[at++];
            continue;
        } else {
            p->pos++;
        }
        if (out && w + 1 < cap)
            out[w++] = (char)c;
    }
    if (out)
        out[w] = 0;
    return 0;
}

static int number(parser *p)
{
    size_t start = p->pos;
    if (p->s[p->pos] == '-')
        p->pos++;
    if (p->pos >= p->n)
        return fail(p, "bad number");
    if (p->s[p->pos] == '0') {
        p->pos++;
    } else if (p->s[p->pos] >= '1' && p->s[p->pos] <= '9') {
        while (p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
            p->pos++;
    } else {
        return fail(p, "bad number");
    }
    if (p->pos < p->n && p->s[p->pos] == '.') {
        p->pos++;
        size_t d = p->pos;
        while (p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
            p->pos++;
        if (d == p->pos)
            return fail(p, "bad fraction");
    }
    if (p->pos < p->n && (p->s[p->pos] == 'e' || p->s[p->pos] == 'E')) {
        p->pos++;
        if (p->pos < p->n && (p->s[p->pos] == '+' || p->s[p->pos] == '-'))
            p->pos++;
        size_t d = p->pos;
        while (p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9')
            p->pos++;
        if (d == p->pos)
            return fail(p, "bad exponent");
    }
    return p->pos > start ? 0 : fail(p, "bad number");
}

static int literal(parser *p, const char *word)
{
    size_t len = strlen(word);
    if (p->pos + len > p->n || memcmp(p->s + p->pos, word, len) != 0)
        return fail(p, "unexpected character");
    p->pos += len;
    return 0;
}

/* Scalars, or the start of a container (pushed on the caller's stack). */
static int value(parser *p, char *stack, int *depth)
{
    skip_ws(p);
    if (p->pos >= p->n)
        return fail(p, "unexpected end of input");
    unsigned char c = p->s[p->pos];
    if (c == '{' || c == '[') {
        if (*depth >= MAX_DEPTH)
            return fail(p, "nested too deeply");
        stack[(*depth)++] = (char)c;
        p->pos++;
        return 1;
    }
    if (c == '"')
        return string(p, NULL, 0);
    if (c == 't')
        return literal(p, "true");
    if (c == 'f')
        return literal(p, "false");
    if (c == 'n')
        return literal(p, "null");
    if (c == '-' || (c >= '0' && c <= '9'))
        return number(p);
    return fail(p, "unexpected character");
}

/* Validates the whole text; 0 when it is one JSON value and nothing else. */
static int validate(parser *p)
{
    char stack[MAX_DEPTH];
    int depth = 0;
    int r = value(p, stack, &depth);
    if (r < 0)
        return -1;
    int first = r == 1;
    while (depth > 0) {
        skip_ws(p);
        if (p->pos >= p->n)
            return fail(p, "unexpected end of input");
        char open = stack[depth - 1];
        unsigned char c = p->s[p->pos];
        if ((open == '{' && c == '}') || (open == '[' && c == ']')) {
            if (!first && p->s[p->pos - 1] == ',')
                return fail(p, "trailing comma");
            p->pos++;
            depth--;
            first = 0;
            continue;
        }
        if (!first) {
            if (c != ',')
                return fail(p, "expected ',' or a closing bracket");
            p->pos++;
            skip_ws(p);
        }
        first = 0;
        if (open == '{') {
            if (p->pos >= p->n || p->s[p->pos] != '"')
                return fail(p, "expected a member name");
            if (string(p, NULL, 0))
                return -1;
            skip_ws(p);
            if (p->pos >= p->n || p->s[p->pos] != ':')
                return fail(p, "expected ':'");
            p->pos++;
        }
        r = value(p, stack, &depth);
        if (r < 0)
            return -1;
        if (r == 1)
            first = 1;
    }
    skip_ws(p);
    return p->pos == p->n ? 0 : fail(p, "text after the value");
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            }
            buf = nb;
        }
    }
    fclose(f);
    *size = n;
    return buf;
}

/* --rows: finds "rows" (or "types" in the first section) arrays of objects
 * and prints them as tsv. The document is already valid, so this scan only
 * needs to track nesting and member names. */
/* Moves past one value (already validated). */
static void skip_value(parser *p)
{
    int depth = 0;
    do {
        unsigned char c = p->s[p->pos];
        if (c == '"') {
            string(p, NULL, 0);
        } else {
            if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']')
                depth--;
            else if (depth == 0 && (c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t'))
                return;
            p->pos++;
            if (depth < 0)
                return;
        }
    } while (p->pos < p->n && (depth > 0 || !strchr(",}] \n\r\t", p->s[p->pos])));
}

/* Prints a value: strings decoded, anything else as its raw text. */
static void print_value(parser *p)
{
    if (p->s[p->pos] == '"') {
        char buf[4096];
        string(p, buf, sizeof buf);
        fputs(buf, stdout);
        return;
    }
    size_t start = p->pos;
    skip_value(p);
    fwrite(p->s + start, 1, p->pos - start, stdout);
}

/* Each row then ends with its section's domain, as gcheap's tsv does (a
 * last "domain" column on every dump), unless the row has a domain itself. */
static void print_rows(parser *p, int *header_done, const char *domain)
{
    /* p->pos is at '[' of an array of objects. */
    p->pos++;
    for (;;) {
        skip_ws(p);
        if (p->s[p->pos] == ']') {
            p->pos++;
            return;
        }
        if (p->s[p->pos] == ',') {
            p->pos++;
            continue;
        }
        /* an object: first pass for the header, second for the values */
        size_t obj = p->pos;
        for (int pass = *header_done; pass < 2; pass++) {
            p->pos = obj + 1;
            int first = 1, own_domain = 0;
            for (;;) {
                skip_ws(p);
                if (p->s[p->pos] == '}') {
                    p->pos++;
                    break;
                }
                if (p->s[p->pos] == ',') {
                    p->pos++;
                    continue;
                }
                char key[256];
                string(p, key, sizeof key);
                own_domain |= strcmp(key, "domain") == 0;
                skip_ws(p);
                p->pos++; /* ':' */
                skip_ws(p);
                if (!first)
                    putchar('\t');
                first = 0;
                if (pass == 0) {
                    fputs(key, stdout);
                    skip_value(p);
                } else {
                    print_value(p);
                }
            }
            if (!own_domain)
                printf("\t%s", pass == 0 ? "domain" : domain);
            putchar('\n');
        }
        *header_done = 1;
    }
}

static void find_rows(parser *p)
{
    int header_done = 0;
    /* objsize --stat: the first section's "types" array is the table. */
    const char *want = strstr((const char *)p->s, "\"types\": [") || strstr((const char *)p->s, "\"types\":[")
                           ? "types" : "rows";
    char key[256], domain[4096] = "";
    while (p->pos < p->n) {
        if (p->s[p->pos] != '"') {
            p->pos++;
            continue;
        }
        string(p, key, sizeof key);
        skip_ws(p);
        if (p->pos < p->n && p->s[p->pos] == ':') {
            p->pos++;
            skip_ws(p);
            if (strcmp(key, "domain") == 0 && p->s[p->pos] == '"') {
                string(p, domain, sizeof domain);
                continue;
            }
            if (strcmp(key, want) == 0 && p->s[p->pos] == '[') {
                print_rows(p, &header_done, domain);
                if (strcmp(want, "types") == 0)
                    return;
            }
        }
    }
}

int main(int argc, char **argv)
{
    int rows = argc > 1 && strcmp(argv[1], "--rows") == 0;
    int bad = 0;
    for (int i = 1 + rows; i < argc; i++) {
        size_t size = 0;
        unsigned char *text = read_file(argv[i], &size);
        if (!text) {
            fprintf(stderr, "%s: cannot read\n", argv[i]);
            bad = 1;
            continue;
        }
        parser p = { text, size, 0, NULL };
        if (validate(&p) != 0) {
            fprintf(stderr, "%s: offset %zu: %s\n", argv[i], p.pos, p.error);
            bad = 1;
        } else if (rows) {
            parser q = { text, size, 0, NULL };
            find_rows(&q);
        }
        free(text);
    }
    return bad;
}
