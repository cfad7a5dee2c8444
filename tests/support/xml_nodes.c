/* Test-only scanner of PerfView's MemoryGraph XML: see xml_nodes.h. */
#include "xml_nodes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcdump_oracle.h" /* gco_read_file */

/* Unescapes the five XML entities and &#N; / &#xN; (ASCII range is enough here,
 * anything else is written as UTF-8). */
static char *unescape(const char *s, size_t n)
{
    char *out = malloc(n * 4 + 1);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '&') {
            out[len++] = s[i];
            continue;
        }
        static const struct { const char *name; char ch; } ents[] = {
            { "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&apos;", '\'' }
        };
        int done = 0;
        for (size_t k = 0; k < sizeof ents / sizeof *ents && !done; k++) {
            size_t el = strlen(ents[k].name);
            if (i + el <= n && memcmp(s + i, ents[k].name, el) == 0) {
                out[len++] = ents[k].ch;
                i += el - 1;
                done = 1;
            }
        }
        if (!done && i + 2 < n && s[i + 1] == '#') {
            char *end;
            unsigned long cp = s[i + 2] == 'x' ? strtoul(s + i + 3, &end, 16) : strtoul(s + i + 2, &end, 10);
            if (*end == ';') {
                if (cp < 0x80)
                    out[len++] = (char)cp;
                else if (cp < 0x800) {
                    out[len++] = (char)(0xC0 | (cp >> 6));
                    out[len++] = (char)(0x80 | (cp & 0x3F));
                } else {
                    out[len++] = (char)(0xE0 | (cp >> 12));
                    out[len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    out[len++] = (char)(0x80 | (cp & 0x3F));
                }
                i = (size_t)(end - s);
                done = 1;
            }
        }
        if (!done)
            out[len++] = '&';
    }
    out[len] = '\0';
    return out;
}

/* Finds attribute `name` in the tag text [tag, end); returns the value start and length. */
static const char *attribute(const char *tag, const char *end, const char *name, size_t *len)
{
    size_t nl = strlen(name);
    for (const char *p = tag; p + nl + 2 < end; p++) {
        if (p[-1] == ' ' && memcmp(p, name, nl) == 0 && p[nl] == '=' && p[nl + 1] == '"') {
            const char *v = p + nl + 2;
            const char *q = memchr(v, '"', (size_t)(end - v));
            if (!q)
                return NULL;
            *len = (size_t)(q - v);
            return v;
        }
    }
    return NULL;
}

static int number_attr(const char *tag, const char *end, const char *name, uint64_t *out)
{
    size_t len;
    const char *v = attribute(tag, end, name, &len);
    if (!v)
        return -1;
    *out = strtoull(v, NULL, 0); /* "0x.." addresses and decimal numbers */
    return 0;
}

int xml_graph_load(const char *path, xml_graph *g)
{
    memset(g, 0, sizeof *g);
    unsigned char *raw;
    size_t size;
    if (gco_read_file(path, &raw, &size) != 0)
        return -1;
    char *text = realloc(raw, size + 1);
    text[size] = '\0';
    const char *mg = strstr(text, "<MemoryGraph ");
    const char *ri = strstr(text, "<RootIndex>");
    const char *nodes = strstr(text, "<Nodes");
    if (!mg || !ri || !nodes) {
        free(text);
        return -2;
    }
    const char *mg_end = strchr(mg, '>');
    uint64_t v;
    if (number_attr(mg, mg_end, "TotalSize", &v) != 0) {
        free(text);
        return -2;
    }
    g->total_size = (int64_t)v;
    g->root_index = (uint32_t)strtoul(ri + strlen("<RootIndex>"), NULL, 10);

    size_t node_cap = 1024, child_cap = 4096;
    g->nodes = malloc(node_cap * sizeof *g->nodes);
    g->children = malloc(child_cap * sizeof *g->children);
    for (const char *p = strstr(nodes, "<Node "); p; p = strstr(p, "<Node ")) {
        const char *tag_end = strchr(p, '>');
        if (!tag_end)
            break;
        if (g->node_count == node_cap)
            g->nodes = realloc(g->nodes, (node_cap *= 2) * sizeof *g->nodes);
        xml_node *n = &g->nodes[g->node_count++];
        memset(n, 0, sizeof *n);
        uint64_t index = 0, size_v = 0, addr = 0, kids = 0;
        size_t tlen;
        const char *type = attribute(p, tag_end, "Type", &tlen);
        if (number_attr(p, tag_end, "Index", &index) || number_attr(p, tag_end, "Size", &size_v) ||
            number_attr(p, tag_end, "Address", &addr) || number_attr(p, tag_end, "NumChildren", &kids) ||
            !type) {
            free(text);
            return -2;
        }
        n->index = (uint32_t)index;
        n->size = size_v;
        n->address = addr;
        n->num_children = (uint32_t)kids;
        n->type = unescape(type, tlen);
        n->child_start = g->child_total;
        p = tag_end + 1;
        if (tag_end[-1] == '/')
            continue; /* <Node .../>: no children */
        const char *close = strstr(p, "</Node>");
        if (!close) {
            free(text);
            return -2;
        }
        while (p < close) {
            char *end;
            unsigned long c = strtoul(p, &end, 10);
            if (end == p || end > close)
                break;
            if (g->child_total == child_cap)
                g->children = realloc(g->children, (child_cap *= 2) * sizeof *g->children);
            g->children[g->child_total++] = (uint32_t)c;
            p = end;
        }
        n->child_count = g->child_total - n->child_start;
        p = close;
    }
    free(text);
    return 0;
}

void xml_graph_free(xml_graph *g)
{
    for (size_t i = 0; i < g->node_count; i++)
        free(g->nodes[i].type);
    free(g->nodes);
    free(g->children);
    memset(g, 0, sizeof *g);
}
