/* The .gcdump reader (PerfView / dotnet-gcdump heap snapshots).
 *
 * The file is a FastSerialization stream whose entry object, GCHeapDump, holds
 * a MemoryGraph: a type table, a node table and a blob of varint-encoded node
 * records (type, size, children as index deltas), plus one address per node.
 * This file reads the GCHeapDump and MemoryGraph fields (gcdump_decode.c does
 * the primitives and framing) and gcdump_graph.c maps the graph onto the heap
 * builder. The layout as implemented is in docs/gcdump-format.md.
 */
#include <stdio.h>
#include <string.h>

#include "gcdump_decode.h"
#include "gcdump_graph.h"
#include "gcheap/builder.h"
#include "gcheap/alloc.h"
#include "gcheap/load.h"

/* The GCHeapDump layout this reader knows; version 8 and older differ. */
#define GCHEAPDUMP_OLDEST_VERSION 9
#define GCHEAPDUMP_READER_VERSION 10 /* refuse files that need a newer reader */
#define MEMORYGRAPH_READER_VERSION 1

static void free_info(gcd_info *info)
{
    gch_free(info->segments);
    gch_free(info->machine_name);
    gch_free(info->process_name);
    gch_free(info->creation_tool);
}

static void free_graph(gcd_graph *g)
{
    /* Either array may be missing when an allocation failed. */
    for (uint32_t t = 0; g->type_name && t < g->type_count; t++)
        gch_free(g->type_name[t]);
    for (uint32_t t = 0; g->type_module && t < g->type_count; t++)
        gch_free(g->type_module[t]);
    gch_free(g->type_name);
    gch_free(g->type_module);
    gch_free(g->type_size);
}

/* ---- MemoryGraph ---- */

static gch_status read_graph_types(gcd_framing *f, gcd_graph *g)
{
    gcd_cursor *c = &f->c;
    /* Each type takes at least 12 bytes: two string lengths and a size. */
    gch_status st = gcd_read_count(c, 12, &g->type_count, "type count");
    if (st != GCH_OK)
        return st;
    size_t n = g->type_count ? g->type_count : 1;
    g->type_name = gch_calloc(n, sizeof *g->type_name);
    g->type_module = gch_calloc(n, sizeof *g->type_module);
    g->type_size = gch_calloc(n, sizeof *g->type_size);
    if (!g->type_name || !g->type_module || !g->type_size)
        return gch_error_set(c->err, GCH_ENOMEM, "out of memory");
    for (uint32_t t = 0; t < g->type_count; t++) {
        if ((st = gcd_read_string(c, &g->type_name[t], NULL, "a type name")) != GCH_OK ||
            (st = gcd_read_i32(c, &g->type_size[t], "a type size")) != GCH_OK ||
            (st = gcd_read_string(c, &g->type_module[t], NULL, "a module name")) != GCH_OK)
            return st;
    }
    return GCH_OK;
}

/* Node offsets, the blob and the addresses stay in the input buffer; only
 * their positions are recorded, after checking that they fit. */
static gch_status read_graph_nodes(gcd_framing *f, const gcd_type *graph_type, gcd_graph *g)
{
    gcd_cursor *c = &f->c;
    gch_status st = gcd_read_count(c, 4, &g->node_count, "node count");
    if (st != GCH_OK)
        return st;
    g->node_offsets = c->data + c->pos;
    g->node_offsets_at = c->pos;
    c->pos += (size_t)g->node_count * 4;

    uint32_t blob_len;
    if ((st = gcd_read_count(c, 1, &blob_len, "node blob length")) != GCH_OK)
        return st;
    g->blob = c->data + c->pos;
    g->blob_len = blob_len;
    g->blob_at = c->pos;
    c->pos += blob_len;

    if (graph_type->min_reader_version >= 1) {
        /* A deferred region (types named later from symbols): skipped whole
         * through its forward reference. */
        size_t at = c->pos;
        int32_t index;
        uint32_t end;
        if ((st = gcd_read_i32(c, &index, "the deferred-types region")) != GCH_OK ||
            (st = gcd_resolve_forward(f, index, at, &end)) != GCH_OK)
            return st;
        if (end < c->pos)
            return gcd_fail_at(c, at, "the deferred-types region ends before it starts");
        c->pos = end;
        g->has_deferred_types = 1;
    }

    size_t at = c->pos;
    uint32_t address_count;
    if ((st = gcd_read_count(c, 8, &address_count, "address count")) != GCH_OK)
        return st;
    if (address_count != g->node_count)
        return gcd_fail_at(c, at, "%lu addresses for %lu nodes", (unsigned long)address_count,
                           (unsigned long)g->node_count);
    g->addresses = c->data + c->pos;
    c->pos += (size_t)address_count * 8;
    return GCH_OK;
}

static gch_status read_memory_graph(gcd_framing *f, gcd_graph *g)
{
    gcd_cursor *c = &f->c;
    size_t at = c->pos;
    int present;
    gcd_type type;
    gch_status st = gcd_begin_object(f, "Graphs.MemoryGraph", &present, &type);
    if (st != GCH_OK)
        return st;
    if (!present)
        return gcd_fail_at(c, at, "the GCHeapDump has no MemoryGraph");
    if (type.min_reader_version > MEMORYGRAPH_READER_VERSION)
        return gcd_fail_at(c, at, "this MemoryGraph needs reader version %ld (gcheap reads %d)",
                           (long)type.min_reader_version, MEMORYGRAPH_READER_VERSION);
    g->total_size_at = c->pos;
    if ((st = gcd_read_i64(c, &g->total_size, "total size")) != GCH_OK)
        return st;
    g->root_at = c->pos;
    if ((st = gcd_read_i32(c, &g->root_index, "root index")) != GCH_OK ||
        (st = read_graph_types(f, g)) != GCH_OK ||
        (st = read_graph_nodes(f, &type, g)) != GCH_OK)
        return st;
    if (g->root_index < 0 || (uint32_t)g->root_index >= g->node_count)
        return gcd_fail_at(c, g->root_at, "root index %ld is not one of the %lu nodes",
                           (long)g->root_index, (unsigned long)g->node_count);
    int tagged;
    gcd_try_tag(f, GCD_TAG_BYTE, &tagged);
    if (tagged) {
        uint8_t b;
        if ((st = gcd_read_u8(c, &b, "the graph's Is64Bit")) != GCH_OK)
            return st;
        g->has_is64 = 1;
        g->is64 = b != 0;
    }
    return gcd_end_object(f);
}

/* ---- GCHeapDump ---- */

static gch_status read_segments(gcd_framing *f, gcd_info *info)
{
    gcd_cursor *c = &f->c;
    gch_status st = gcd_read_i64(c, &info->size_of_all_segments, "size of all segments");
    if (st != GCH_OK)
        return st;
    /* A segment object takes at least its tag, a type reference and an end tag. */
    if ((st = gcd_read_count(c, 7, &info->segment_count, "segment count")) != GCH_OK)
        return st;
    info->segments = gch_calloc(info->segment_count ? info->segment_count : 1, sizeof *info->segments);
    if (!info->segments)
        return gch_error_set(c->err, GCH_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < info->segment_count; i++) {
        size_t at = c->pos;
        int present;
        gcd_type type;
        if ((st = gcd_begin_object(f, "GCHeapDumpSegment", &present, &type)) != GCH_OK)
            return st;
        if (!present)
            return gcd_fail_at(c, at, "segment %lu is null", (unsigned long)i);
        /* Version 0 segments have no Gen4End. */
        gcd_segment *s = &info->segments[i];
        s->field_count = type.version >= 1 ? 7 : 6;
        for (int k = 0; k < s->field_count; k++)
            if ((st = gcd_read_i64(c, &s->fields[k], "a segment boundary")) != GCH_OK)
                return st;
        if ((st = gcd_end_object(f)) != GCH_OK)
            return st;
    }
    return GCH_OK;
}

static gch_status read_heap_infos(gcd_framing *f, gcd_info *info)
{
    int present;
    gcd_type type;
    gch_status st = gcd_begin_object(f, "JSHeapInfo", &present, &type);
    if (st == GCH_OK && present)
        st = gcd_end_object(f); /* no fields */
    if (st == GCH_OK)
        st = gcd_begin_object(f, "DotNetHeapInfo", &info->has_dotnet_info, &type);
    if (st == GCH_OK && info->has_dotnet_info) {
        st = read_segments(f, info);
        if (st == GCH_OK)
            st = gcd_end_object(f);
    }
    return st;
}

static gch_status read_process_fields(gcd_cursor *c, gcd_info *info)
{
    gch_status st;
    if ((st = gcd_skip_string(c, NULL, "the collection log")) != GCH_OK)
        return st;
    info->time_at = c->pos;
    if ((st = gcd_read_i64(c, &info->time_collected, "the collection time")) != GCH_OK ||
        (st = gcd_read_string(c, &info->machine_name, NULL, "the machine name")) != GCH_OK ||
        (st = gcd_read_string(c, &info->process_name, NULL, "the process name")) != GCH_OK ||
        (st = gcd_read_i32(c, &info->process_id, "the process id")) != GCH_OK ||
        (st = gcd_read_i64(c, &info->process_commit, "the process commit")) != GCH_OK ||
        (st = gcd_read_i64(c, &info->process_working_set, "the process working set")) != GCH_OK)
        return st;
    if ((st = gcd_read_count(c, 4, &info->count_multiplier_count, "count-multiplier count")) != GCH_OK)
        return st;
    info->count_multipliers = c->data + c->pos;
    c->pos += (size_t)info->count_multiplier_count * 4;
    return GCH_OK;
}

/* Fields added after version 8 are tagged: InteropInfo as a SkipRegion (its
 * forward reference gives the end), then CreationTool as a tagged string. */
static gch_status read_tagged_fields(gcd_framing *f, gcd_info *info)
{
    gcd_cursor *c = &f->c;
    int tagged;
    gch_status st;
    size_t at = c->pos;
    gcd_try_tag(f, GCD_TAG_SKIP_REGION, &tagged);
    if (tagged) {
        int32_t index;
        uint32_t end;
        if ((st = gcd_read_i32(c, &index, "the interop region")) != GCH_OK ||
            (st = gcd_resolve_forward(f, index, at, &end)) != GCH_OK)
            return st;
        if (end < c->pos)
            return gcd_fail_at(c, at, "the interop region ends before it starts");
        info->has_interop = c->pos < c->size && c->data[c->pos] != GCD_TAG_NULL_REFERENCE;
        c->pos = end;
    }
    gcd_try_tag(f, GCD_TAG_STRING, &tagged);
    if (tagged)
        return gcd_read_string(c, &info->creation_tool, NULL, "the creation tool");
    return GCH_OK;
}

static gch_status read_gcheapdump(gcd_framing *f, gcd_graph *g, gcd_info *info)
{
    gcd_cursor *c = &f->c;
    size_t at = c->pos;
    int present;
    gcd_type type;
    gch_status st = gcd_begin_object(f, "GCHeapDump", &present, &type);
    if (st != GCH_OK)
        return st;
    if (!present)
        return gcd_fail_at(c, at, "the entry object is null");
    info->version = type.version;
    info->min_reader_version = type.min_reader_version;
    if (type.version < 8)
        return gcd_fail_at(c, at, "gcdump format version %ld is too old (before PerfView's version 8 "
                                  "layout); not supported",
                           (long)type.version);
    if (type.version < GCHEAPDUMP_OLDEST_VERSION)
        return gcd_fail_at(c, at, "gcdump format version 8 is not supported (PerfView refuses it too)");
    if (type.min_reader_version > GCHEAPDUMP_READER_VERSION)
        return gcd_fail_at(c, at, "this gcdump needs reader version %ld (gcheap reads %d)",
                           (long)type.min_reader_version, GCHEAPDUMP_READER_VERSION);
    uint8_t is64;
    if ((st = read_memory_graph(f, g)) != GCH_OK ||
        (st = gcd_read_u8(c, &is64, "Is64Bit")) != GCH_OK ||
        (st = gcd_read_f32(c, &info->average_count_multiplier, "the count multiplier")) != GCH_OK ||
        (st = gcd_read_f32(c, &info->average_size_multiplier, "the size multiplier")) != GCH_OK ||
        (st = read_heap_infos(f, info)) != GCH_OK ||
        (st = read_process_fields(c, info)) != GCH_OK ||
        (st = read_tagged_fields(f, info)) != GCH_OK ||
        (st = gcd_end_object(f)) != GCH_OK)
        return st;
    /* The graph's own tagged flag wins; the GCHeapDump copy is for old readers. */
    info->is64 = g->has_is64 ? g->is64 : is64 != 0;
    /* The entry object is followed by an extra EndObject and the trailer. */
    if (c->pos + 1 != f->trailer_start || c->data[c->pos] != GCD_TAG_END_OBJECT)
        return gcd_fail_at(c, c->pos, "unexpected data between the GCHeapDump object and the trailer");
    return GCH_OK;
}

gch_status gch_read_gcdump_buffer(const void *data, size_t size, const gch_load_options *opts,
                                  gch_dump **out, gch_error *err)
{
    static const gch_load_options no_options;
    *out = NULL;
    gch_error_clear(err);
    if (!opts)
        opts = &no_options;

    gcd_framing f;
    gcd_graph g;
    gcd_info info;
    memset(&g, 0, sizeof g);
    memset(&info, 0, sizeof info);
    gcd_framing_init(&f, data, size, err);
    gch_builder *b = NULL;

    gch_status st = gcd_read_header(&f);
    if (st == GCH_OK)
        st = gcd_read_trailer(&f);
    if (st == GCH_OK)
        st = read_gcheapdump(&f, &g, &info);
    if (st == GCH_OK && opts->progress)
        opts->progress(opts->progress_ctx, g.blob_at);
    if (st == GCH_OK)
        st = gch_builder_new(&b, "gcdump", err);
    if (st == GCH_OK)
        gch_builder_set_threads(b, opts->threads);
    if (st == GCH_OK)
        st = gcd_build_heap(b, &g, &info, opts, err);
    if (st == GCH_OK)
        st = gch_builder_finish(b, out, err);
    gch_builder_free(b);
    free_graph(&g);
    free_info(&info);
    gcd_framing_free(&f);
    return st;
}
