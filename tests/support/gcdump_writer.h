/* gcdump_writer.h - test-only: writes small .gcdump files from a description,
 * following PerfView's writer (FastSerialization framing, GCHeapDump version
 * 10, MemoryGraph with varint node records). Independent of the reader: it
 * shares no code with src/. */
#ifndef GCHEAP_TEST_GCDUMP_WRITER_H
#define GCHEAP_TEST_GCDUMP_WRITER_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer with little-endian writers, also handy for building
 * hand-made framing in tests. Allocation failure aborts (tests only). */
typedef struct gcdw_buf {
    unsigned char *data;
    size_t size, cap;
} gcdw_buf;

void gcdw_put_u8(gcdw_buf *b, unsigned v);
void gcdw_put_i32(gcdw_buf *b, int32_t v);
void gcdw_put_i64(gcdw_buf *b, int64_t v);
void gcdw_put_f32(gcdw_buf *b, float v);
void gcdw_put_bytes(gcdw_buf *b, const void *p, size_t n);
/* A FastSerialization string from UTF-8 (NULL writes the null string -1):
 * UTF-16 code units, each in 1, 2 or 3 bytes, surrogates one at a time. */
void gcdw_put_string(gcdw_buf *b, const char *utf8);
/* PerfView's node-blob compressed int (big-endian 7-bit groups). */
void gcdw_put_varint(gcdw_buf *b, int32_t v);
/* Overwrites 4 bytes at offset at. */
void gcdw_patch_i32(gcdw_buf *b, size_t at, int32_t v);
void gcdw_buf_free(gcdw_buf *b);

typedef struct gcdw_type {
    const char *name;   /* UTF-8; NULL writes a null name */
    const char *module; /* NULL for none */
} gcdw_type;

typedef struct gcdw_node {
    uint32_t type;          /* index into gcdw_desc.types (file type index is type + 1) */
    int32_t size;
    uint64_t address;       /* 0 for pseudo-nodes */
    const uint32_t *children; /* node indices */
    uint32_t child_count;
    int undefined;          /* never defined: points at the UNDEFINED record */
} gcdw_node;

typedef struct gcdw_segment {
    int64_t fields[7];      /* Start, End, Gen0End .. Gen4End */
} gcdw_segment;

typedef struct gcdw_desc {
    /* Types of the description; the writer puts "UNDEFINED" first in the file. */
    const gcdw_type *types;
    uint32_t type_count;
    const gcdw_node *nodes;
    uint32_t node_count;
    uint32_t root;

    int32_t version;            /* GCHeapDump type version; 0 means 10 */
    int is64;
    const char *process_name, *machine_name, *creation_tool; /* NULL: absent */
    int32_t process_id;
    int64_t time_ticks;
    float average_count_multiplier, average_size_multiplier; /* 0 means 1 */
    const float *count_multipliers;
    uint32_t count_multiplier_count;
    const gcdw_segment *segments;   /* with segment_count > 0, a DotNetHeapInfo is written */
    uint32_t segment_count;
    int32_t segment_version;        /* 0: six fields, 1: seven */
    int64_t total_size_delta;       /* added to the true total (to test the check) */
    int deferred_region;            /* write a (skippable) deferred-types region */
    int extra_tagged_fields;        /* unknown tagged fields before GCHeapDump's end */
    int no_interop;                 /* omit the tagged InteropInfo region */
} gcdw_desc;

typedef struct gcdw_result {
    unsigned char *data;    /* malloc'ed; free() it */
    size_t size;
    size_t total_size_at;   /* file offset of the MemoryGraph's totalSize */
    int64_t total_size;     /* the true sum of node sizes */
} gcdw_result;

void gcdw_write(const gcdw_desc *d, gcdw_result *out);

#endif
