/* Test-only independent MemoryGraph decoder: see gcdump_oracle.h. */
#include "gcdump_oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gco_read_file(const char *path, unsigned char **data, size_t *size)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return -1;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    for (;;) {
        if (n == cap)
            buf = realloc(buf, cap *= 2);
        size_t got = fread(buf + n, 1, cap - n, fp);
        if (got == 0)
            break;
        n += got;
    }
    fclose(fp);
    *data = buf;
    *size = n;
    return 0;
}

typedef struct rd {
    const unsigned char *p;
    size_t n, at;
    int bad;
} rd;

static unsigned byte_at(rd *r)
{
    if (r->at >= r->n) {
        r->bad = 1;
        return 0;
    }
    return r->p[r->at++];
}

static uint64_t little(rd *r, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)byte_at(r) << (8 * i);
    return v;
}

/* A FastSerialization string to UTF-8; surrogate pairs joined. */
static char *utf8_string(rd *r)
{
    int32_t n = (int32_t)(uint32_t)little(r, 4);
    if (n < 0)
        return strdup("");
    if ((size_t)n > r->n) {
        r->bad = 1;
        return strdup("");
    }
    char *out = malloc((size_t)n * 3 + 1);
    size_t len = 0;
    unsigned high = 0;
    for (int32_t i = 0; i < n; i++) {
        unsigned b = byte_at(r), u;
        if (b < 0x80)
            u = b;
        else if (b < 0xE0)
            u = ((b & 0x1F) << 6) | (byte_at(r) & 0x3F);
        else {
            u = (b & 0x0F) << 12;
            u |= (byte_at(r) & 0x3F) << 6;
            u |= byte_at(r) & 0x3F;
        }
        unsigned cp = u;
        if (u >= 0xD800 && u < 0xDC00) {
            high = u;
            continue;
        }
        if (u >= 0xDC00 && u < 0xE000 && high)
            cp = 0x10000 + ((high - 0xD800) << 10) + (u - 0xDC00);
        high = 0;
        if (cp < 0x80)
            out[len++] = (char)cp;
        else if (cp < 0x800) {
            out[len++] = (char)(0xC0 | (cp >> 6));
            out[len++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[len++] = (char)(0xE0 | (cp >> 12));
            out[len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[len++] = (char)(0x80 | (cp & 0x3F));
        } else {
            out[len++] = (char)(0xF0 | (cp >> 18));
            out[len++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            out[len++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[len++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[len] = '\0';
    return out;
}

/* PerfView's Node.ReadCompressedInt, written out step by step. */
static int32_t compressed(rd *r)
{
    unsigned b = byte_at(r);
    int64_t v = (b & 0x40) ? (int64_t)(b & 0x7F) - 128 : (int64_t)(b & 0x7F);
    int more = b & 0x80;
    for (int i = 0; i < 3 && more; i++) {
        b = byte_at(r);
        v = v * 128 + (b & 0x7F);
        more = b & 0x80;
    }
    if (more)
        v = v * 128 + byte_at(r);
    return (int32_t)(uint32_t)(uint64_t)v;
}

/* Header, GCHeapDump type (v10, min 8), MemoryGraph begin and type (v1, min 0). */
static const unsigned char prefix[] =
    "\x14\0\0\0!FastSerialization.1\x04\x04\x01\x0a\0\0\0\x08\0\0\0\x0a\0\0\0GCHeapDump\x06"
    "\x04\x04\x01\x01\0\0\0\0\0\0\0\x12\0\0\0Graphs.MemoryGraph\x06";

int gco_load(const unsigned char *data, size_t size, gco_graph *g)
{
    memset(g, 0, sizeof *g);
    size_t plen = sizeof prefix - 1;
    if (size < plen || memcmp(data, prefix, plen) != 0)
        return -1;
    rd r = { data, size, plen, 0 };
    g->total_size = (int64_t)little(&r, 8);
    g->root = (uint32_t)little(&r, 4);
    g->type_count = (uint32_t)little(&r, 4);
    if (r.bad || g->type_count > size)
        return -1;
    g->type_names = calloc(g->type_count, sizeof *g->type_names);
    int32_t *type_size = calloc(g->type_count, sizeof *type_size);
    for (uint32_t t = 0; t < g->type_count && !r.bad; t++) {
        g->type_names[t] = utf8_string(&r);
        type_size[t] = (int32_t)(uint32_t)little(&r, 4);
        free(utf8_string(&r)); /* module */
    }
    g->node_count = (uint32_t)little(&r, 4);
    if (r.bad || g->node_count > size) {
        free(type_size);
        return -1;
    }
    uint32_t n = g->node_count;
    uint32_t *offsets = malloc(n * sizeof *offsets + 1);
    for (uint32_t i = 0; i < n; i++)
        offsets[i] = (uint32_t)little(&r, 4);
    size_t blob_len = (size_t)little(&r, 4);
    size_t blob_at = r.at;
    r.at += blob_len;
    if (r.bad || r.at > size) {
        free(type_size);
        free(offsets);
        return -1;
    }
    uint32_t address_count = (uint32_t)little(&r, 4);
    g->node_address = malloc(n * sizeof *g->node_address + 1);
    for (uint32_t i = 0; i < n && i < address_count; i++)
        g->node_address[i] = little(&r, 8);

    g->node_type = malloc(n * sizeof *g->node_type + 1);
    g->node_size = malloc(n * sizeof *g->node_size + 1);
    g->node_defined = malloc(n + 1);
    g->child_start = malloc((n + 1) * sizeof *g->child_start);
    size_t cap = 1024, used = 0;
    g->children = malloc(cap * sizeof *g->children);
    rd blob = { data + blob_at, blob_len, 0, 0 };
    for (uint32_t i = 0; i < n; i++) {
        blob.at = offsets[i];
        int32_t ts = compressed(&blob);
        g->node_type[i] = (uint32_t)ts >> 1;
        g->node_size[i] = (ts & 1) ? (uint32_t)compressed(&blob) : (uint32_t)type_size[ts >> 1];
        g->node_defined[i] = offsets[i] != 0;
        int32_t count = compressed(&blob);
        g->child_start[i] = (uint32_t)used;
        for (int32_t k = 0; k < count; k++) {
            if (used == cap)
                g->children = realloc(g->children, (cap *= 2) * sizeof *g->children);
            g->children[used++] = (uint32_t)((int32_t)i + compressed(&blob));
        }
    }
    g->child_start[n] = (uint32_t)used;
    free(type_size);
    free(offsets);
    return (r.bad || blob.bad || address_count != n) ? -1 : 0;
}

void gco_free(gco_graph *g)
{
    for (uint32_t t = 0; g->type_names && t < g->type_count; t++)
        free(g->type_names[t]);
    free(g->type_names);
    free(g->node_type);
    free(g->node_size);
    free(g->node_defined);
    free(g->node_address);
    free(g->child_start);
    free(g->children);
    memset(g, 0, sizeof *g);
}

char *gco_strip_bucket(const char *name)
{
    char *out = strdup(name);
    char *m = strstr(out, "(Bytes > ");
    if (!m)
        return out;
    char *p = m + strlen("(Bytes > ");
    char *digits = p;
    while (*p >= '0' && *p <= '9')
        p++;
    if (p == digits || (*p != 'K' && *p != 'M' && *p != 'G'))
        return out;
    p++;
    if (*p == ')' && p[1] == '\0') {
        while (m > out && m[-1] == ' ')
            m--;
        *m = '\0';
    } else if (*p == ',') {
        memmove(m + 1, p + 1, strlen(p + 1) + 1);
    }
    return out;
}

static int has_word(const char *name, const char *w)
{
    for (; *name; name++) {
        size_t k = 0;
        while (w[k] && (name[k] | 0x20) == w[k])
            k++;
        if (!w[k])
            return 1;
    }
    return 0;
}

/* A weak-handle category such as "[weak Handles]"; not a static variable that
 * happens to be named so ("[static var ...ConditionalWeakTable...]"). */
static int says_weak(const char *name)
{
    return strncmp(name, "[static var", 11) != 0 && has_word(name, "handle") && has_word(name, "weak");
}

void gco_reachable(const gco_graph *g, uint64_t *objects, uint64_t *bytes)
{
    uint32_t n = g->node_count;
    unsigned char *seen = calloc(n + 1, 1);
    uint32_t *stack = malloc((n + 1) * sizeof *stack);
    size_t top = 0;
    *objects = *bytes = 0;
    if (g->root < n) {
        seen[g->root] = 1;
        stack[top++] = g->root;
    }
    while (top > 0) {
        uint32_t p = stack[--top];
        if (g->node_address[p] == 0 && says_weak(g->type_names[g->node_type[p]]))
            continue;
        if (p != g->root && g->node_address[p] != 0 && g->node_defined[p]) {
            (*objects)++;
            *bytes += g->node_size[p];
        }
        for (uint32_t k = g->child_start[p]; k < g->child_start[p + 1]; k++) {
            uint32_t c = g->children[k];
            if (c < n && !seen[c]) {
                seen[c] = 1;
                stack[top++] = c;
            }
        }
    }
    free(seen);
    free(stack);
}
