/* Test-only .gcdump writer: see gcdump_writer.h. Mirrors PerfView's
 * Serializer / GCHeapDump.ToStream / Graph.ToStream / MemoryGraph.ToStream. */
#include "gcdump_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(gcdw_buf *b, size_t n)
{
    if (b->size + n <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->size + n)
        cap *= 2;
    b->data = realloc(b->data, cap);
    if (!b->data) {
        fprintf(stderr, "gcdump_writer: out of memory\n");
        abort();
    }
    b->cap = cap;
}

void gcdw_put_u8(gcdw_buf *b, unsigned v)
{
    reserve(b, 1);
    b->data[b->size++] = (unsigned char)v;
}

void gcdw_put_i32(gcdw_buf *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        gcdw_put_u8(b, (u >> (8 * i)) & 0xFF);
}

void gcdw_put_i64(gcdw_buf *b, int64_t v)
{
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++)
        gcdw_put_u8(b, (unsigned)(u >> (8 * i)) & 0xFF);
}

void gcdw_put_f32(gcdw_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    gcdw_put_i32(b, (int32_t)u);
}

void gcdw_put_bytes(gcdw_buf *b, const void *p, size_t n)
{
    reserve(b, n);
    memcpy(b->data + b->size, p, n);
    b->size += n;
}

void gcdw_patch_i32(gcdw_buf *b, size_t at, int32_t v)
{
    uint32_t u = (uint32_t)v;
    for (int i = 0; i < 4; i++)
        b->data[at + (size_t)i] = (unsigned char)(u >> (8 * i));
}

void gcdw_buf_free(gcdw_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

/* UTF-8 -> UTF-16 code units (the tests give valid UTF-8). */
static size_t to_utf16(const char *s, unsigned *units)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        unsigned cp;
        if (*p < 0x80)
            cp = *p++;
        else if (*p < 0xE0) {
            cp = (unsigned)(p[0] & 0x1F) << 6 | (p[1] & 0x3Fu);
            p += 2;
        } else if (*p < 0xF0) {
            cp = (unsigned)(p[0] & 0x0F) << 12 | (unsigned)(p[1] & 0x3F) << 6 | (p[2] & 0x3Fu);
            p += 3;
        } else {
            cp = (unsigned)(p[0] & 0x07) << 18 | (unsigned)(p[1] & 0x3F) << 12 |
                 (unsigned)(p[2] & 0x3F) << 6 | (p[3] & 0x3Fu);
            p += 4;
        }
        if (cp >= 0x10000) {
            cp -= 0x10000;
            units[n++] = 0xD800 + (cp >> 10);
            units[n++] = 0xDC00 + (cp & 0x3FF);
        } else
            units[n++] = cp;
    }
    return n;
}

void gcdw_put_string(gcdw_buf *b, const char *utf8)
{
    if (!utf8) {
        gcdw_put_i32(b, -1);
        return;
    }
    unsigned *units = malloc((strlen(utf8) + 1) * sizeof *units);
    if (!units)
        abort();
    size_t n = to_utf16(utf8, units);
    gcdw_put_i32(b, (int32_t)n);
    for (size_t i = 0; i < n; i++) {
        unsigned c = units[i];
        if (c < 0x80)
            gcdw_put_u8(b, c);
        else if (c < 0x800) {
            gcdw_put_u8(b, (c >> 6) | 0xC0);
            gcdw_put_u8(b, (c & 0x3F) | 0x80);
        } else {
            gcdw_put_u8(b, ((c >> 12) | 0xE0) & 0xFF);
            gcdw_put_u8(b, ((c >> 6) & 0x3F) | 0x80);
            gcdw_put_u8(b, (c & 0x3F) | 0x80);
        }
    }
    free(units);
}

/* Arithmetic shift right without relying on implementation-defined >> of negatives. */
static int32_t asr(int32_t v, int n) { return v >= 0 ? v >> n : ~(~v >> n); }

static int fits(int32_t v, int bits)
{
    int32_t lo = -((int32_t)1 << (bits - 1)), hi = ((int32_t)1 << (bits - 1)) - 1;
    return v >= lo && v <= hi;
}

void gcdw_put_varint(gcdw_buf *b, int32_t v)
{
    int groups = fits(v, 7) ? 1 : fits(v, 14) ? 2 : fits(v, 21) ? 3 : fits(v, 28) ? 4 : 5;
    for (int g = groups - 1; g >= 1; g--)
        gcdw_put_u8(b, ((unsigned)asr(v, 7 * g) | 0x80) & 0xFF);
    gcdw_put_u8(b, (unsigned)v & 0x7F);
}

/* ---- framing ---- */

enum { NULLREF = 1, OBJREF = 2, BEGIN = 4, END = 6, TBYTE = 8, TINT32 = 10, SKIP = 12, TSTRING = 13, BLOB = 14 };

typedef struct writer {
    gcdw_buf b;
    int32_t forward[8];
    int forward_count;
} writer;

/* BeginObject, then an inline type definition; returns the definition's label. */
static size_t begin_object_new_type(writer *w, const char *type, int32_t version, int32_t min_reader)
{
    gcdw_put_u8(&w->b, BEGIN);
    size_t label = w->b.size;
    gcdw_put_u8(&w->b, BEGIN);
    gcdw_put_u8(&w->b, NULLREF);
    gcdw_put_i32(&w->b, version);
    gcdw_put_i32(&w->b, min_reader);
    gcdw_put_string(&w->b, type);
    gcdw_put_u8(&w->b, END);
    return label;
}

static void begin_object_type_ref(writer *w, size_t label)
{
    gcdw_put_u8(&w->b, BEGIN);
    gcdw_put_u8(&w->b, OBJREF);
    gcdw_put_i32(&w->b, (int32_t)label);
}

static int new_forward(writer *w)
{
    w->forward[w->forward_count] = -1;
    return w->forward_count++;
}

/* ---- the graph ---- */

static void write_blob(const gcdw_desc *d, const int32_t *type_size, gcdw_buf *blob, int32_t *offsets)
{
    /* The UNDEFINED record first, at offset 0: type 0, size 0, no children. */
    gcdw_put_varint(blob, 0);
    gcdw_put_varint(blob, 0);
    for (uint32_t i = 0; i < d->node_count; i++) {
        const gcdw_node *n = &d->nodes[i];
        if (n->undefined) {
            offsets[i] = 0;
            continue;
        }
        offsets[i] = (int32_t)blob->size;
        int32_t file_type = (int32_t)n->type + 1;
        if (type_size[file_type] == n->size)
            gcdw_put_varint(blob, file_type << 1);
        else {
            gcdw_put_varint(blob, file_type << 1 | 1);
            gcdw_put_varint(blob, n->size);
        }
        gcdw_put_varint(blob, (int32_t)n->child_count);
        for (uint32_t k = 0; k < n->child_count; k++)
            gcdw_put_varint(blob, (int32_t)n->children[k] - (int32_t)i);
    }
}

static void write_graph(writer *w, const gcdw_desc *d, gcdw_result *r)
{
    uint32_t ntypes = d->type_count + 1;
    int32_t *type_size = malloc(ntypes * sizeof *type_size);
    int32_t *offsets = malloc((d->node_count + 1) * sizeof *offsets);
    if (!type_size || !offsets)
        abort();
    /* A type's recorded size is its first node's; unused types keep -1. */
    type_size[0] = 0;
    for (uint32_t t = 1; t < ntypes; t++)
        type_size[t] = -1;
    int64_t total = 0;
    for (uint32_t i = 0; i < d->node_count; i++) {
        const gcdw_node *n = &d->nodes[i];
        if (n->undefined)
            continue;
        if (type_size[n->type + 1] < 0)
            type_size[n->type + 1] = n->size;
        total += n->size;
    }
    r->total_size = total;

    begin_object_new_type(w, "Graphs.MemoryGraph", 1, d->deferred_region ? 1 : 0);
    r->total_size_at = w->b.size;
    gcdw_put_i64(&w->b, total + d->total_size_delta);
    gcdw_put_i32(&w->b, (int32_t)d->root);
    gcdw_put_i32(&w->b, (int32_t)ntypes);
    for (uint32_t t = 0; t < ntypes; t++) {
        gcdw_put_string(&w->b, t ? d->types[t - 1].name : "UNDEFINED");
        gcdw_put_i32(&w->b, type_size[t]);
        gcdw_put_string(&w->b, t ? d->types[t - 1].module : NULL);
    }
    gcdw_buf blob = { 0 };
    write_blob(d, type_size, &blob, offsets);
    gcdw_put_i32(&w->b, (int32_t)d->node_count);
    for (uint32_t i = 0; i < d->node_count; i++)
        gcdw_put_i32(&w->b, offsets[i]);
    gcdw_put_i32(&w->b, (int32_t)blob.size);
    gcdw_put_bytes(&w->b, blob.data, blob.size);
    gcdw_buf_free(&blob);
    if (d->deferred_region) {
        /* DeferedRegion: a forward reference to its end, then its fields. */
        int fwd = new_forward(w);
        gcdw_put_i32(&w->b, fwd);
        gcdw_put_i32(&w->b, 1);          /* one deferred type */
        gcdw_put_i32(&w->b, 0x1234);     /* type id */
        gcdw_put_u8(&w->b, NULLREF);     /* module */
        gcdw_put_string(&w->b, "[]");    /* suffix */
        gcdw_put_u8(&w->b, END);         /* WriteTaggedEnd */
        w->forward[fwd] = (int32_t)w->b.size;
    }
    gcdw_put_i32(&w->b, (int32_t)d->node_count);
    for (uint32_t i = 0; i < d->node_count; i++)
        gcdw_put_i64(&w->b, (int64_t)d->nodes[i].address);
    gcdw_put_u8(&w->b, TBYTE); /* WriteTagged(Is64Bit) */
    gcdw_put_u8(&w->b, d->is64 ? 1 : 0);
    gcdw_put_u8(&w->b, END);
    free(type_size);
    free(offsets);
}

static void write_dotnet_info(writer *w, const gcdw_desc *d)
{
    if (d->segment_count == 0) {
        gcdw_put_u8(&w->b, NULLREF);
        return;
    }
    begin_object_new_type(w, "DotNetHeapInfo", 0, 0);
    int64_t sum = 0;
    for (uint32_t i = 0; i < d->segment_count; i++)
        sum += d->segments[i].fields[1] - d->segments[i].fields[0];
    gcdw_put_i64(&w->b, sum);
    gcdw_put_i32(&w->b, (int32_t)d->segment_count);
    size_t seg_type = 0;
    int nfields = d->segment_version >= 1 ? 7 : 6;
    for (uint32_t i = 0; i < d->segment_count; i++) {
        /* The first segment defines the type; the others refer to it. */
        if (i == 0)
            seg_type = begin_object_new_type(w, "GCHeapDumpSegment", d->segment_version,
                                             d->segment_version);
        else
            begin_object_type_ref(w, seg_type);
        for (int k = 0; k < nfields; k++)
            gcdw_put_i64(&w->b, d->segments[i].fields[k]);
        gcdw_put_u8(&w->b, END);
    }
    gcdw_put_u8(&w->b, END);
}

static void write_tagged_fields(writer *w, const gcdw_desc *d)
{
    if (!d->no_interop) {
        /* WriteTaggedObject(null InteropInfo): SkipRegion, forward ref, the object. */
        int fwd = new_forward(w);
        gcdw_put_u8(&w->b, SKIP);
        gcdw_put_i32(&w->b, fwd);
        gcdw_put_u8(&w->b, NULLREF);
        w->forward[fwd] = (int32_t)w->b.size;
    }
    if (d->creation_tool) {
        gcdw_put_u8(&w->b, TSTRING);
        gcdw_put_string(&w->b, d->creation_tool);
    }
    if (d->extra_tagged_fields) {
        /* What a newer writer might add: readers must skip it. */
        gcdw_put_u8(&w->b, TINT32);
        gcdw_put_i32(&w->b, 77);
        gcdw_put_u8(&w->b, TSTRING);
        gcdw_put_string(&w->b, "future field");
        gcdw_put_u8(&w->b, BLOB);
        gcdw_put_i32(&w->b, 3);
        gcdw_put_bytes(&w->b, "\x06\x06\x06", 3); /* bytes that look like end tags */
        gcdw_put_u8(&w->b, TBYTE);
        gcdw_put_u8(&w->b, 1);
    }
}

void gcdw_write(const gcdw_desc *d, gcdw_result *r)
{
    writer w;
    memset(&w, 0, sizeof w);
    memset(r, 0, sizeof *r);
    gcdw_put_i32(&w.b, 20);
    gcdw_put_bytes(&w.b, "!FastSerialization.1", 20);

    begin_object_new_type(&w, "GCHeapDump", d->version ? d->version : 10, 8);
    write_graph(&w, d, r);
    gcdw_put_u8(&w.b, d->is64 ? 1 : 0);
    gcdw_put_f32(&w.b, d->average_count_multiplier != 0 ? d->average_count_multiplier : 1.0f);
    gcdw_put_f32(&w.b, d->average_size_multiplier != 0 ? d->average_size_multiplier : 1.0f);
    gcdw_put_u8(&w.b, NULLREF); /* JSHeapInfo */
    write_dotnet_info(&w, d);
    gcdw_put_string(&w.b, "collection log\r\nline 2");
    gcdw_put_i64(&w.b, d->time_ticks);
    gcdw_put_string(&w.b, d->machine_name);
    gcdw_put_string(&w.b, d->process_name);
    gcdw_put_i32(&w.b, d->process_id);
    gcdw_put_i64(&w.b, 0);
    gcdw_put_i64(&w.b, 0);
    gcdw_put_i32(&w.b, (int32_t)d->count_multiplier_count);
    for (uint32_t i = 0; i < d->count_multiplier_count; i++)
        gcdw_put_f32(&w.b, d->count_multipliers[i]);
    write_tagged_fields(&w, d);
    gcdw_put_u8(&w.b, END);

    /* Trailer: an extra EndObject, the forward-reference table, its label,
     * and the suffix label locating that label. */
    gcdw_put_u8(&w.b, END);
    size_t table = w.b.size;
    gcdw_put_i32(&w.b, w.forward_count);
    for (int i = 0; i < w.forward_count; i++)
        gcdw_put_i32(&w.b, w.forward[i]);
    size_t trailer = w.b.size;
    gcdw_put_i32(&w.b, (int32_t)table);
    gcdw_put_i32(&w.b, (int32_t)trailer);
    r->data = w.b.data;
    r->size = w.b.size;
}
