/* The .gcx layout (docs/index-format.md), shared by the writer and the reader.
 * Every integer is in the byte order of the machine that wrote it (the header
 * says which: a reader on the other order refuses the file), so that arrays
 * are used in place. */
#ifndef GCH_INDEX_FORMAT_H
#define GCH_INDEX_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "gcheap/index.h"

#define GCX_MAGIC "\x89GCX\r\n\x1a\n"
#define GCX_BOM 0x01020304u
#define GCX_HEADER_SIZE 64u
#define GCX_TOC_ENTRY_SIZE 40u
#define GCX_ALIGN 64u
#define GCX_NO_HEAP 0xFFFFu

/* The header: bytes 0..63 of the file. */
typedef struct gcx_header {
    char magic[8];
    uint32_t version;
    uint32_t bom;
    uint64_t file_size;
    uint64_t toc_offset;
    uint32_t chunk_count;
    uint32_t reserved0;
    uint64_t toc_checksum;
    uint64_t reserved1;
    uint64_t header_checksum; /* of bytes 0..55 */
} gcx_header;

/* One entry of the table of contents. */
typedef struct gcx_toc {
    uint32_t tag;
    uint16_t heap;            /* GCX_NO_HEAP for the dump's own chunks */
    uint16_t view;            /* derived chunks: 0 strong roots, 1 with weak roots */
    uint32_t elem_size;
    uint32_t reserved;
    uint64_t offset;
    uint64_t count;           /* elements */
    uint64_t checksum;
} gcx_toc;

#define GCX_TAG(a, b, c, d) \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)

/* The dump's record ('DUMP', bytes): the fixed part, then the dump's file
 * name, NUL-terminated. */
typedef struct gcx_dump_rec {
    uint64_t dump_size;
    int64_t mtime_sec, mtime_nsec;
    uint64_t head_hash, tail_hash;
    gch_index_options options; /* five uint32_t: input_format, size_buckets, module,
                                  hprof_refs, v8_raw */
    uint32_t heap_count;
    uint32_t ids_stable;
    uint32_t reserved;
    char format[16];          /* NUL-terminated */
    char compression[8];      /* "" or "gzip" */
} gcx_dump_rec;
_Static_assert(offsetof(gcx_dump_rec, heap_count) == 60 && sizeof(gcx_dump_rec) == 96,
               "the dump record's layout (docs/index-format.md)");

/* gch_anomalies: 11 counts, then the dangling references' holders (their
 * count, GCH_DANGLING_TOP ids, as many reference counts). */
#define GCX_ANOMALY_WORDS 18

/* A heap's record ('HEAP'): its counts and scalars. */
typedef struct gcx_heap_rec {
    uint64_t strings_size;
    uint64_t meta_count;
    uint64_t ref_count;
    uint64_t total_size;
    uint32_t type_count, object_count, root_count, big_size_count;
    uint32_t reported_types, reported_declared_types;
    int32_t id_radix;
    uint32_t sampled;
    uint32_t refs_loaded;
    uint32_t has;             /* GCX_HAS_* bits: optional chunks present */
    uint64_t anomalies[GCX_ANOMALY_WORDS]; /* gch_anomalies, in its order */
} gcx_heap_rec;

#define GCX_HAS_MODULES   0x1u
#define GCX_HAS_LABELS    0x2u
#define GCX_HAS_ROOT_LABELS 0x4u
#define GCX_HAS_SITES     0x8u
#define GCX_HAS_V8        0x10u
#define GCX_HAS_ID_ORDER  0x20u
#define GCX_HAS_CONTAINERS 0x40u
#define GCX_HAS_TYPE_TOTALS 0x80u
#define GCX_HAS_V8_DOM    0x100u

/* The chunks. D: the dump's; the rest one per heap. */
enum {
    GCX_DUMP = GCX_TAG('D', 'U', 'M', 'P'),  /* D: gcx_dump_rec + name */
    GCX_HEAP = GCX_TAG('H', 'E', 'A', 'P'),  /* gcx_heap_rec */
    GCX_HNAM = GCX_TAG('H', 'N', 'A', 'M'),  /* u8: the heap's name, NUL-terminated */
    GCX_META = GCX_TAG('M', 'E', 'T', 'A'),  /* u8: key, value, key, ... each NUL-terminated */
    GCX_STRS = GCX_TAG('S', 'T', 'R', 'S'),  /* u8: the string pool */
    GCX_TNAM = GCX_TAG('T', 'N', 'A', 'M'),  /* u32 per type */
    GCX_TMOD = GCX_TAG('T', 'M', 'O', 'D'),
    GCX_TRID = GCX_TAG('T', 'R', 'I', 'D'),  /* u64 */
    GCX_TDEC = GCX_TAG('T', 'D', 'E', 'C'),  /* u8 */
    GCX_TOBJ = GCX_TAG('T', 'O', 'B', 'J'),  /* u32 */
    GCX_TBYT = GCX_TAG('T', 'B', 'Y', 'T'),  /* u64 */
    GCX_OIDS = GCX_TAG('O', 'I', 'D', 'S'),  /* u64 per object */
    GCX_OTYP = GCX_TAG('O', 'T', 'Y', 'P'),  /* u32 */
    GCX_OSIZ = GCX_TAG('O', 'S', 'I', 'Z'),  /* u32 */
    GCX_BIGO = GCX_TAG('B', 'I', 'G', 'O'),  /* u32 per big size */
    GCX_BIGV = GCX_TAG('B', 'I', 'G', 'V'),  /* u64 */
    GCX_OSTA = GCX_TAG('O', 'S', 'T', 'A'),  /* u32, objects + 1 */
    GCX_OTGT = GCX_TAG('O', 'T', 'G', 'T'),  /* u32 per reference */
    GCX_OLAB = GCX_TAG('O', 'L', 'A', 'B'),  /* u32 per reference */
    GCX_RRID = GCX_TAG('R', 'R', 'I', 'D'),  /* u64 per root */
    GCX_ROBJ = GCX_TAG('R', 'O', 'B', 'J'),  /* u32 */
    GCX_RKND = GCX_TAG('R', 'K', 'N', 'D'),  /* u8 */
    GCX_RFLG = GCX_TAG('R', 'F', 'L', 'G'),  /* u8 */
    GCX_RCON = GCX_TAG('R', 'C', 'O', 'N'),  /* u32 */
    GCX_RCRW = GCX_TAG('R', 'C', 'R', 'W'),  /* u64 */
    GCX_RHCN = GCX_TAG('R', 'H', 'C', 'N'),  /* u8 */
    GCX_RLAB = GCX_TAG('R', 'L', 'A', 'B'),  /* u32 */
    GCX_OSIT = GCX_TAG('O', 'S', 'I', 'T'),  /* u32 per object */
    GCX_V8DI = GCX_TAG('V', '8', 'D', 'I'),  /* i32 per object */
    GCX_V8PS = GCX_TAG('V', '8', 'P', 'S'),  /* u8 per object */
    GCX_V8DT = GCX_TAG('V', '8', 'D', 'T'),  /* u8 per object: DOM state (0, 1, 2) */
    GCX_IDOR = GCX_TAG('I', 'D', 'O', 'R'),  /* u32 per object: indices in id order */
    /* Derived, one per heap (reverse references) or per heap and view
     * (toc.view 0: strong roots, 1: weak roots too; a view 1 entry may
     * name the same bytes as view 0's when the heap has no weak root). */
    GCX_INST = GCX_TAG('I', 'N', 'S', 'T'),  /* u32, objects + 1: in_start */
    GCX_INSR = GCX_TAG('I', 'N', 'S', 'R'),  /* u32 per reference: in_source */
    GCX_DREC = GCX_TAG('D', 'R', 'E', 'C'),  /* u64[2]: live count, live bytes */
    GCX_DPRE = GCX_TAG('D', 'P', 'R', 'E'),  /* u32 per live object: preorder */
    GCX_DPID = GCX_TAG('D', 'P', 'I', 'D'),  /* u32: position of the idom, or GCH_DOM_VROOT */
    GCX_DPSZ = GCX_TAG('D', 'P', 'S', 'Z'),  /* u32: the shallow sizes (as OSIZ) in preorder */
    GCX_DPTY = GCX_TAG('D', 'P', 'T', 'Y'),  /* u16: the types in preorder (at most 65,536 types) */
    GCX_PPAR = GCX_TAG('P', 'P', 'A', 'R'),  /* u32 per object: path parent */
    GCX_PDEP = GCX_TAG('P', 'D', 'E', 'P'),  /* u8 per object: path depth (GCX_DEPTH_*) */
    GCX_PROB = GCX_TAG('P', 'R', 'O', 'B'),  /* u32: root objects, ascending */
    GCX_PREC = GCX_TAG('P', 'R', 'E', 'C'),  /* u32: their first root record */
    GCX_DIST = GCX_TAG('D', 'I', 'S', 'T'),  /* u8 per object: distance (GCX_DIST_*) */
    GCX_DSTX = GCX_TAG('D', 'S', 'T', 'X')   /* gcx_far: the GCX_DIST_FAR objects, ascending */
};

/* DPTY is written when the types fit its 16 bits (optional: an index of
 * version 2 without it is read as before). */
#define GCX_DPTY_TYPES 65536u

/* PDEP: the number of references on the object's path (0: a root object),
 * GCX_DEPTH_DEEP from 255 on and for an object without a path. It is the
 * witness that the path parents hold no cycle: a parent's depth is one
 * less, so only deep objects need a walk. */
#define GCX_DEPTH_DEEP 255u

/* DIST: the distance from the roots (gch_root_distance) below
 * GCX_DIST_FAR; GCX_DIST_FAR: 254 or more, the value in DSTX;
 * GCX_DIST_NONE: unreachable. */
#define GCX_DIST_FAR 254u
#define GCX_DIST_NONE 255u

typedef struct gcx_far {
    uint32_t object;
    uint32_t distance;
} gcx_far;

#endif
