/* gcdump_graph.h - private to the library: what the .gcdump reader extracted
 * from the file, and the functions that turn it into a heap. */
#ifndef GCHEAP_GCDUMP_GRAPH_H
#define GCHEAP_GCDUMP_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/error.h"
#include "gcheap/builder.h"
#include "gcheap/reader.h"

/* The MemoryGraph. The node offsets, blob and addresses point into the input
 * buffer (already checked to fit); *_at are their file offsets, for messages. */
typedef struct gcd_graph {
    int64_t total_size;
    size_t total_size_at;
    int32_t root_index;
    size_t root_at;

    uint32_t type_count;
    char **type_name;          /* UTF-8, or NULL when the file has a null name */
    char **type_module;        /* UTF-8 or NULL */
    int32_t *type_size;        /* size of the type's first node; -1 when unused */

    uint32_t node_count;
    const unsigned char *node_offsets; /* node_count little-endian int32 blob offsets */
    size_t node_offsets_at;
    const unsigned char *blob;
    size_t blob_len, blob_at;
    const unsigned char *addresses;    /* node_count little-endian int64 */

    int has_is64, is64;        /* the graph's tagged Is64Bit */
    int has_deferred_types;    /* a deferred-types region was present (skipped) */
} gcd_graph;

typedef struct gcd_segment {
    int field_count;           /* 6 (version 0) or 7 */
    int64_t fields[7];         /* Start, End, Gen0End .. Gen4End */
} gcd_segment;

/* The GCHeapDump fields besides the graph. */
typedef struct gcd_info {
    int32_t version, min_reader_version;
    int is64;
    float average_count_multiplier, average_size_multiplier;
    int has_dotnet_info;
    int64_t size_of_all_segments;
    uint32_t segment_count;
    gcd_segment *segments;
    int64_t time_collected;    /* .NET ticks with the DateTimeKind bits */
    size_t time_at;
    char *machine_name, *process_name; /* NULL when absent */
    int32_t process_id;
    int64_t process_commit, process_working_set;
    uint32_t count_multiplier_count;
    const unsigned char *count_multipliers; /* little-endian floats in the input */
    int has_interop;
    char *creation_tool;
} gcd_info;

/* Adds the heap the graph describes to b (begin_heap .. end_heap): objects,
 * references, roots from the pseudo-nodes, types and metadata. */
gch_status gcd_build_heap(gch_builder *b, const gcd_graph *g, const gcd_info *info,
                          const gch_load_options *opts, gch_error *err);

/* Adds the metadata lines for `gcheap info` to the open heap. */
gch_status gcd_add_meta(gch_builder *b, const gcd_graph *g, const gcd_info *info,
                        uint32_t pseudo_nodes, uint32_t undefined_nodes, gch_error *err);

/* Formats .NET ticks (100 ns since 0001-01-01, DateTimeKind in the top 2 bits)
 * as ISO 8601 "YYYY-MM-DDTHH:MM:SSZ". buf needs 32 bytes. */
void gcd_format_ticks(int64_t ticks, char *buf, size_t cap);

/* Length of `name` once a dotnet-gcdump size-bucket marker is removed, writing
 * the result to out (cap >= strlen(name) + 1): " (Bytes > 10K)" at the end goes,
 * and "(Bytes > 1K,NoPtrs,...)" becomes "(NoPtrs,...)". Other names are copied. */
size_t gcd_strip_size_bucket(const char *name, char *out);

#endif
