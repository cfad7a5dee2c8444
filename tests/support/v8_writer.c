/* A test-only writer of V8 heap snapshots: see v8_writer.h. */
#include "v8_writer.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    char *s;
    size_t len, cap;
    int failed;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->failed = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static void printf_(buf *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    puts_(b, tmp);
}

/* Decodes one UTF-8 sequence at s (valid input assumed); returns its length. */
static size_t utf8_next(const unsigned char *s, uint32_t *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] < 0xe0) {
        *cp = (uint32_t)(s[0] & 0x1f) << 6 | (s[1] & 0x3f);
        return 2;
    }
    if (s[0] < 0xf0) {
        *cp = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 | (s[2] & 0x3f);
        return 3;
    }
    *cp = (uint32_t)(s[0] & 0x07) << 18 | (uint32_t)(s[1] & 0x3f) << 12 | (uint32_t)(s[2] & 0x3f) << 6 |
          (s[3] & 0x3f);
    return 4;
}

static void json_string(buf *b, const char *str, int escape_unicode)
{
    const unsigned char *s = (const unsigned char *)str;
    puts_(b, "\"");
    while (*s) {
        uint32_t cp;
        size_t n = utf8_next(s, &cp);
        if (cp == '"')
            puts_(b, "\\\"");
        else if (cp == '\\')
            puts_(b, "\\\\");
        else if (cp == '\n')
            puts_(b, "\\n");
        else if (cp == '\t')
            puts_(b, "\\t");
        else if (cp < 0x20)
            printf_(b, "\\u%04x", (unsigned)cp);
        else if (cp >= 0x80 && escape_unicode && cp >= 0x10000)
            printf_(b, "\\u%04X\\u%04x", (unsigned)(0xd800 + ((cp - 0x10000) >> 10)),
                    (unsigned)(0xdc00 + ((cp - 0x10000) & 0x3ff)));
        else if (cp >= 0x80 && escape_unicode)
            printf_(b, "\\u%04x", (unsigned)cp);
        else
            put(b, (const char *)s, n);
        s += n;
    }
    puts_(b, "\"");
}

/* The strings table: each distinct string once, in order of first use. */
typedef struct strtab {
    const char **s;
    size_t n, cap;
} strtab;

static size_t intern(strtab *t, const char *s)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->s[i], s) == 0)
            return i;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        const char **ns = realloc(t->s, t->cap * sizeof *ns);
        if (!ns)
            abort();
        t->s = ns;
    }
    t->s[t->n] = s;
    return t->n++;
}

static const char *const node_types[] = { "hidden", "array", "string", "object", "code", "closure",
                                          "regexp", "number", "native", "synthetic",
                                          "concatenated string", "sliced string", "symbol", "bigint",
                                          "object shape" };
static const char *const edge_types[] = { "context", "element", "property", "internal",
                                          "hidden", "shortcut", "weak" };

static unsigned index_of(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return (unsigned)i;
    abort(); /* a test asked for a type V8 does not have */
}

char *v8w_write(const v8w_spec *sp, size_t *len)
{
    buf b = { 0 };
    strtab st = { 0 };
    const char *nl = sp->blanks ? "\n" : "";
    const char *sep = sp->blanks ? ", " : ",";
    intern(&st, "");
    /* Node fields in declared order: F_* are the positions of the values. */
    enum { F_TYPE, F_NAME, F_ID, F_SIZE, F_EDGES, F_TRACE, F_DET };
    static const char *const fname[] = { "type", "name", "id", "self_size", "edge_count",
                                         "trace_node_id", "detachedness" };
    static const int plain[] = { F_TYPE, F_NAME, F_ID, F_SIZE, F_EDGES, F_TRACE, F_DET };
    static const int moved[] = { F_ID, F_EDGES, F_TYPE, F_TRACE, F_SIZE, F_DET, F_NAME };
    static const int moved6[] = { F_ID, F_EDGES, F_TYPE, F_TRACE, F_SIZE, F_NAME };
    int nf = sp->seven_fields ? 7 : 6;
    const int *order = !sp->reordered ? plain : sp->seven_fields ? moved : moved6;
    enum { E_TYPE, E_NAME, E_TO };
    static const char *const ename[] = { "type", "name_or_index", "to_node" };
    static const int eplain[] = { E_TYPE, E_NAME, E_TO }, emoved[] = { E_TO, E_TYPE, E_NAME };
    const int *eorder = sp->reordered ? emoved : eplain;

    puts_(&b, "{\"snapshot\":{\"meta\":{\"node_fields\":[");
    for (int k = 0; k < nf; k++)
        printf_(&b, "%s\"%s\"", k ? "," : "", fname[order[k]]);
    puts_(&b, "],\"node_types\":[");
    for (int k = 0; k < nf; k++) {
        if (k)
            puts_(&b, ",");
        if (order[k] == F_TYPE) {
            puts_(&b, "[");
            for (size_t t = 0; t < sizeof node_types / sizeof *node_types; t++)
                printf_(&b, "%s\"%s\"", t ? "," : "", node_types[t]);
            puts_(&b, "]");
        } else {
            puts_(&b, order[k] == F_NAME ? "\"string\"" : "\"number\"");
        }
    }
    puts_(&b, "],\"edge_fields\":[");
    for (int k = 0; k < 3; k++)
        printf_(&b, "%s\"%s\"", k ? "," : "", ename[eorder[k]]);
    puts_(&b, "],\"edge_types\":[");
    for (int k = 0; k < 3; k++) {
        if (k)
            puts_(&b, ",");
        if (eorder[k] == E_TYPE) {
            puts_(&b, "[");
            for (size_t t = 0; t < sizeof edge_types / sizeof *edge_types; t++)
                printf_(&b, "%s\"%s\"", t ? "," : "", edge_types[t]);
            puts_(&b, "]");
        } else {
            puts_(&b, eorder[k] == E_NAME ? "\"string_or_number\"" : "\"node\"");
        }
    }
    puts_(&b, "],\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]},");
    printf_(&b, "\"node_count\":%zu,", sp->node_count);
    printf_(&b, "\"edge_count\":%zu,", sp->edge_count);
    puts_(&b, "\"trace_function_count\":0},");
    puts_(&b, nl);

    puts_(&b, "\"nodes\":[");
    for (size_t i = 0; i < sp->node_count; i++) {
        const v8w_node *n = &sp->nodes[i];
        size_t edges = 0;
        for (size_t e = 0; e < sp->edge_count; e++)
            edges += sp->edges[e].from == i;
        uint64_t v[7] = { index_of(node_types, sizeof node_types / sizeof *node_types, n->type),
                          intern(&st, n->name), n->id, n->self_size, edges, 0, n->detachedness };
        for (int k = 0; k < nf; k++)
            printf_(&b, "%s%llu", i == 0 && k == 0 ? "" : k == 0 ? sep : ",", (unsigned long long)v[order[k]]);
        puts_(&b, nl);
    }
    puts_(&b, "],");
    puts_(&b, nl);
    puts_(&b, "\"edges\":[");
    int first = 1;
    for (size_t from = 0; from < sp->node_count; from++) {
        for (size_t e = 0; e < sp->edge_count; e++) {
            const v8w_edge *ed = &sp->edges[e];
            if (ed->from != from)
                continue;
            unsigned t = index_of(edge_types, sizeof edge_types / sizeof *edge_types, ed->type);
            int numbered = strcmp(ed->type, "element") == 0 || strcmp(ed->type, "hidden") == 0;
            uint64_t v[3] = { t, numbered ? ed->index : intern(&st, ed->name), (uint64_t)ed->to * nf };
            for (int k = 0; k < 3; k++)
                printf_(&b, "%s%llu", first && k == 0 ? "" : k == 0 ? sep : ",", (unsigned long long)v[eorder[k]]);
            first = 0;
            puts_(&b, nl);
        }
    }
    puts_(&b, "],");
    puts_(&b, nl);
    if (sp->extra_sections) {
        puts_(&b, "\"trace_function_infos\":[],\"trace_tree\":[],\"samples\":[],\"locations\":[1, 2,3,4],");
        puts_(&b, "\"future_member\":{\"a\":[1,-2.5e+3,0.25,true,false,null,\"x\\u0041\\\"\"],\"b\":{}},");
        puts_(&b, nl);
    }
    puts_(&b, "\"strings\":[");
    for (size_t i = 0; i < st.n; i++) {
        if (i)
            puts_(&b, sep);
        json_string(&b, st.s[i], sp->escape_unicode);
        puts_(&b, nl);
    }
    puts_(&b, "]}");
    puts_(&b, nl);
    free(st.s);
    if (b.failed) {
        free(b.s);
        return NULL;
    }
    *len = b.len;
    return b.s;
}
