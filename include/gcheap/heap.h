/* gcheap/heap.h - the format-neutral heap model and the builder every reader uses.
 *
 * A dump (gch_dump) holds one or more heaps (a .gclog appdomain section, a
 * .gcdump process heap, a Dart isolate group). A heap is a graph of objects with
 * dense indices 0..object_count-1 stored as a struct of arrays; references are a
 * CSR array of 32-bit object indices; roots live in their own arrays. Types and
 * their names are interned once per heap.
 *
 * Ownership: a gch_dump owns every array and string reachable from it; free it
 * with gch_dump_free(). Arrays are read-only for callers, except where a function
 * below says it fills them (gch_heap_build_reverse). A heap read from an index
 * (gcheap/index.h) borrows its arrays from the index's mapping instead
 * (gch_heap.borrowed): gch_dump_free then frees only what the heap allocated
 * itself and calls the dump's release hook, which lets the mapping go.
 */
#ifndef GCHEAP_HEAP_H
#define GCHEAP_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"

#define GCH_NONE UINT32_MAX  /* "no index": absent object, type or string */

/* Root kinds: the .gclog numbering, which the other readers map onto. */
typedef enum gch_root_kind {
    GCH_ROOT_INTERNAL = 0,
    GCH_ROOT_LOCAL = 1,
    GCH_ROOT_FINALIZER = 2,
    GCH_ROOT_HANDLE = 3,
    GCH_ROOT_STATIC = 4,
    GCH_ROOT_RUNTIME = 5,
    GCH_ROOT_KIND_COUNT = 6
} gch_root_kind;

/* Root flags (bit set). A root with GCH_ROOT_WEAK is not a strong root. */
#define GCH_ROOT_PINNED   0x1u
#define GCH_ROOT_WEAK     0x2u
#define GCH_ROOT_INTERIOR 0x4u

/* Short lowercase name of a root kind ("internal", "local", ...); "unknown" if out of range. */
const char *gch_root_kind_name(unsigned kind);

#define GCH_DANGLING_TOP 3

/* Recoverable anomalies, counted while building a heap. */
typedef struct gch_anomalies {
    uint64_t dangling_refs;        /* references to ids with no object record (dropped) */
    uint64_t first_dangling_ref;   /* id of the first such reference, for messages */
    /* The objects holding those references: how many, and the ids of the
     * (at most) GCH_DANGLING_TOP holding most of them with their counts,
     * most first, ties in object order (`info` names them). */
    uint64_t dangling_holders;
    uint64_t dangling_holder_id[3];
    uint64_t dangling_holder_refs[3];
    uint64_t unknown_type_objects; /* objects whose type id has no type record */
    uint64_t unknown_types;        /* distinct type ids used but never declared */
    uint64_t dangling_roots;       /* roots naming ids with no object record */
    uint64_t duplicate_objects;    /* object records whose id was seen before (ignored) */
    uint64_t first_duplicate_object;
    uint64_t duplicate_types;      /* type records whose id was seen before (first wins) */
    uint64_t absent_containers;    /* static roots whose container type id is not declared */
    uint64_t missing_end;          /* 1 when the section was not closed (truncated dump) */
    uint64_t end_name_mismatch;    /* 1 when the closing record names another section */
} gch_anomalies;

/* One piece of metadata for `gcheap info`: a key and a display value. */
typedef struct gch_meta {
    char *key;
    char *value;
} gch_meta;

/* What a gch_payload describes. */
typedef enum gch_payload_kind {
    /* A primitive array: `length` elements of type `elem` from byte `offset`
     * of the input, each big-endian (as HPROF writes them). */
    GCH_PAYLOAD_ARRAY = 1,
    /* A java.lang.String: `value` is the id of its value array (0 when null),
     * `coder` how that array holds the characters. */
    GCH_PAYLOAD_STRING = 2,
    /* Text the reader kept in the heap's string pool (Ruby: a String's
     * "value"): `length` bytes of UTF-8 from pool offset `offset`, no NUL
     * among them. Needs no file to read it again. */
    GCH_PAYLOAD_TEXT = 3,
    /* An instance (gch_load_options.keep_fields): its field values are
     * `length` bytes from byte `offset` of the input, laid out as the
     * heap's field table for its type says (gch_type_field). */
    GCH_PAYLOAD_INSTANCE = 4,
    /* A length the dump records (Dart's LengthData: an array's or typed
     * data's elements, a growable list's length, a map's or set's used data
     * slots): `value` is the length; `offset` the id of the first object it
     * references that has a GCH_PAYLOAD_LENGTH entry too (a growable list's
     * backing array), 0 when none. */
    GCH_PAYLOAD_LENGTH = 5
} gch_payload_kind;

/* GCH_PAYLOAD_TEXT flags, in gch_payload.elem (0: the whole value, exact). */
#define GCH_TEXT_CUT 1   /* only the value's start was recorded (a Dart string
                            longer than what the VM writes) */
#define GCH_TEXT_LOSSY 2 /* a character was replaced by U+FFFD (U+0000, a lone
                            UTF-16 surrogate): not the value's exact text */

/* Element types of GCH_PAYLOAD_ARRAY: the HPROF basic types. */
enum {
    GCH_ELEM_BOOLEAN = 4, GCH_ELEM_CHAR = 5, GCH_ELEM_FLOAT = 6, GCH_ELEM_DOUBLE = 7,
    GCH_ELEM_BYTE = 8, GCH_ELEM_SHORT = 9, GCH_ELEM_INT = 10, GCH_ELEM_LONG = 11
};
/* A reference: the element type of object arrays (their GCH_PAYLOAD_ARRAY
 * entries, kept with gch_load_options.keep_fields) and of object fields;
 * each element is an object id of the dump's identifier size. */
#define GCH_ELEM_OBJECT 2

/* One instance field of a type, as the dump lays out an instance's field
 * bytes (the type's own fields first, then its superclass's, and so on). */
typedef struct gch_field {
    const char *name;    /* the field's name as the dump writes it ("size", "elementData") */
    uint32_t offset;     /* of its value in the instance's field bytes */
    uint8_t type;        /* GCH_ELEM_* or GCH_ELEM_OBJECT */
    uint8_t size;        /* bytes of the value in the dump (an object id: 4 or 8) */
} gch_field;

/* A field's value: an object id (GCH_ELEM_OBJECT, 0 for null), or the bits of
 * a primitive zero-extended (an int field of -1 reads 0xFFFFFFFF: cast to
 * int32_t; float and double are their IEEE bits). */
typedef struct gch_value {
    uint8_t type;        /* as gch_field.type */
    uint64_t bits;
} gch_value;

/* String coders: JDK 9+ compact strings keep a byte[] value that is Latin-1
 * (one byte a character) or UTF-16 in the JVM's byte order (the dump does
 * not say which; gcheap takes little-endian, as on x86-64 and AArch64). No
 * coder field (GCH_CODER_NONE): a JDK 8 String keeps a char[] (big-endian in
 * the dump); Android ART writes a value field of its own pointing to a
 * char[], or to a byte[] (ASCII) for its compressed strings. */
enum { GCH_CODER_LATIN1 = 0, GCH_CODER_UTF16 = 1, GCH_CODER_NONE = 2 };

typedef struct gch_payload {
    uint64_t id;         /* the object */
    uint64_t offset;     /* ARRAY: offset of the first element in the input */
    uint64_t value;      /* STRING: id of the value array, 0 when null; LENGTH: the length */
    uint32_t length;     /* ARRAY: elements */
    uint8_t kind;        /* gch_payload_kind */
    uint8_t elem;        /* ARRAY: GCH_ELEM_*; TEXT: GCH_TEXT_* flags */
    uint8_t coder;       /* STRING: GCH_CODER_* */
} gch_payload;

typedef struct gch_heap {
    char *name;                 /* section name (appdomain, process, isolate group); never NULL */
    gch_meta *meta;             /* format-specific facts, in the order the reader found them */
    size_t meta_count;
    int id_radix;               /* 16 or 10: how ids are written in this format */

    /* Strings: a pool of NUL-terminated strings addressed by offset. */
    char *strings;
    size_t strings_size;

    /* Types, dense 0..type_count-1. */
    uint32_t type_count;
    uint32_t *type_name;        /* offset of the name in strings */
    uint32_t *type_module;      /* offset of the module name, or GCH_NONE; NULL: no modules kept */
    uint64_t *type_raw_id;      /* the id the dump used for this type */
    uint8_t *type_declared;     /* 0 when no type record declared it */
    /* Objects of each type and their total size, kept by the builder as
     * objects come (NULL in heaps made without it: then count the objects). */
    uint32_t *type_objects;
    uint64_t *type_bytes;
    /* Types as every report counts them (what `info` shows): types merged
     * by name (same name and module: their objects all carry the first one's
     * index) count once, and a type that was never declared and holds no
     * object (only a dropped duplicate record used it) not at all. Of those,
     * how many a type record declared. Set by the builder. */
    uint32_t reported_types, reported_declared_types;

    /* Objects, dense 0..object_count-1, in the order of their records. */
    uint32_t object_count;
    uint64_t *object_id;        /* the id as written in the dump */
    uint32_t *object_type;      /* type index */
    /* Shallow sizes in bytes: read them with gch_object_size(). Stored in 32
     * bits (4 bytes an object: 400 MB at 100M objects): a size of
     * GCH_SIZE_BIG or more is stored as GCH_SIZE_BIG and kept whole in
     * big_size_value[k] for the object big_size_object[k] (ascending). */
    uint32_t *object_size32;
    uint32_t big_size_count;
    uint32_t *big_size_object;
    uint64_t *big_size_value;
    uint64_t total_size;        /* exact sum of the object sizes (the builder rejects overflow) */

    /* Forward references (CSR): the references of object i are
     * out_target[out_start[i] .. out_start[i+1]-1]. out_start has object_count+1 entries.
     * With skip_refs the arrays exist and are empty. */
    uint32_t *out_start;
    uint32_t *out_target;
    uint32_t *out_label;        /* per reference: string offset naming the field, or NULL array */
    uint64_t ref_count;         /* number of resolved references */
    int refs_loaded;            /* 0 when the reader skipped references (skip_refs) */
    int histogram_only;         /* 1 when the objects were only counted per type
                                   (gch_load_options.histogram_only): object_count is 0,
                                   type_objects/type_bytes and the anomalies hold */

    /* Reverse references (CSR), built on demand by gch_heap_build_reverse. */
    uint32_t *in_start;
    uint32_t *in_source;

    /* Roots, in the order of their records. */
    uint32_t root_count;
    uint64_t *root_raw_id;      /* the id the root record named */
    uint32_t *root_object;      /* object index, or GCH_NONE when absent from the dump */
    uint8_t *root_kind;         /* gch_root_kind */
    uint8_t *root_flags;        /* GCH_ROOT_* bits */
    uint32_t *root_container;   /* static roots: type index of the holder, else GCH_NONE */
    uint64_t *root_container_raw; /* the container id as written (0 when none) */
    uint8_t *root_has_container;
    uint32_t *root_label;       /* string offset of a descriptive name (".gcdump" static
                                   field, Dart isolate), or GCH_NONE */

    gch_anomalies anomalies;
    /* Sampled dumps (.gcdump): counts are estimates when nonzero. */
    int sampled;

    /* Where the contents of primitive arrays and the values of
     * java.lang.String objects lie in the input (HPROF read with
     * gch_load_options.keep_payloads; else payloads_kept is 0, payloads NULL).
     * Sorted by id, one entry an id; look up with gch_heap_payload(). */
    gch_payload *payloads;
    size_t payload_count;
    int payloads_kept;

    /* Where each object was allocated, as "file:line" (a string offset, or
     * GCH_NONE for an object the dump gives no site): Ruby dumps made
     * with ObjectSpace.trace_object_allocations. NULL when the dump names
     * no site at all (every other format). */
    uint32_t *object_site;
    /* V8 read as DevTools shows it (not --v8-raw): per object, the distance
     * the DevTools Summary shows (from the user roots, then from the root at
     * 100000000 and up; -5 when none). NULL otherwise. */
    int32_t *v8_distance;
    /* V8 as DevTools shows it: per object, 1 for a pseudo-node (a synthetic
     * node of size 0: the root, "(GC roots)", "(Stack roots)", ...). Such
     * nodes are kept in paths but are never rows of top or dom (their
     * children take their place) nor leak suspects. NULL otherwise. */
    uint8_t *v8_pseudo;
    /* V8 as DevTools shows it, when the snapshot marks DOM nodes (the
     * detachedness node field, or natives named "Detached ..."): per object,
     * the DOM state after DevTools' propagateDOMState: 0 unknown, 1 attached,
     * 2 detached (named "Detached <name>"). NULL otherwise. */
    uint8_t *v8_detachedness;

    /* With gch_load_options.keep_fields: the instance fields of type t are
     * fields[type_fields[t] .. type_fields[t+1]-1] (type_fields has
     * type_count+1 entries); NULL otherwise. Read them with gch_type_field
     * and gch_field_read / gch_instance_field. */
    gch_field *fields;
    uint32_t *type_fields;
    char *field_names;          /* owns the fields' names */

    /* GCH_BORROWED_* bits: which arrays point into memory the heap does not
     * own (an index's mapping) and are never freed nor written. 0 for a heap
     * a reader built. */
    unsigned borrowed;
} gch_heap;

/* gch_heap.borrowed: every array and string of the model (the name, meta
 * entries' strings, the string pool, the type, object, reference and root
 * arrays, sites, V8 arrays); the meta array itself stays owned. */
#define GCH_BORROWED_MODEL   0x1u
/* in_start/in_source (reverse references read from an index). */
#define GCH_BORROWED_REVERSE 0x2u

typedef struct gch_dump {
    const char *format;         /* "gclog", "gcdump", "dart", "v8", ... (static storage) */
    const char *compression;    /* "gzip" when the input was decompressed on the way, else
                                   NULL (static storage) */
    gch_heap **heaps;
    size_t heap_count;
    /* Nonzero when an object keeps its id across the dumps of one process
     * (V8 node ids), so that ids can be matched between dumps (`gcheap
     * leaks`). 0 (the default) when ids are addresses that a moving GC
     * changes (.gclog, .gcdump, HPROF) or positions in the snapshot (Dart). */
    int ids_stable;
    /* Called by gch_dump_free after the heaps are freed (when not NULL): a
     * dump whose heaps borrow from an index lets the mapping go here. */
    void (*release)(void *ctx);
    void *release_ctx;
    /* Structures computed before (an index's dominator trees, paths, reverse
     * references, id order), which gch_analysis_new uses instead of
     * computing them (gcheap/analysis.h); NULL for a dump a reader made. Owned
     * by whoever set release. */
    const struct gch_analysis_source *source;
} gch_dump;

/* The payload entry of the object with id (binary search), or NULL when the
 * heap has none for it (not a primitive array or String, or payloads were
 * not kept). */
const gch_payload *gch_heap_payload(const gch_heap *heap, uint64_t id);

/* Instance fields (HPROF loaded with keep_payloads and keep_fields).
 *
 * The field of type t called name, the most derived one when a subclass and
 * a superclass both declare it; NULL when the heap keeps no field table or t
 * has no such field. */
const gch_field *gch_type_field(const gch_heap *heap, uint32_t t, const char *name);

/* Reads n bytes at offset of the input the heap was read from into buf (the
 * caller reopens the file: the heap keeps only offsets). Returns 0 when all
 * n bytes were read, nonzero otherwise. */
typedef int (*gch_read_at_fn)(void *ctx, uint64_t offset, void *buf, size_t n);

/* Decodes field f of the instance whose payload is p (a GCH_PAYLOAD_INSTANCE
 * entry) into *out, reading its bytes through read. Returns 1 on success, 0
 * when p is no instance or f lies outside its field bytes, -1 when the read
 * failed (the file changed since it was loaded). */
int gch_field_read(const gch_payload *p, const gch_field *f, gch_read_at_fn read, void *ctx,
                   gch_value *out);

/* The value of object o's field called name: gch_type_field on o's type,
 * gch_heap_payload on its id, gch_field_read. Returns 1 on success, 0 when o
 * has no such field or no instance payload (its class was not among
 * gch_load_options.field_classes), -1 when the read failed. */
int gch_instance_field(const gch_heap *heap, uint32_t o, const char *name, gch_read_at_fn read,
                       void *ctx, gch_value *out);

/* Bytes of one element of a GCH_ELEM_* type (0 for an unknown type). */
unsigned gch_elem_size(unsigned elem);

/* The 32-bit stand-in of a size that the heap keeps in big_size_value. */
#define GCH_SIZE_BIG UINT32_MAX

/* The whole size of object o when its 32-bit slot says GCH_SIZE_BIG (a binary
 * search of big_size_object). */
uint64_t gch_heap_big_size(const gch_heap *heap, uint32_t o);

/* Shallow size of object o (o < object_count), in bytes. */
static inline uint64_t gch_object_size(const gch_heap *heap, uint32_t o)
{
    uint32_t s = heap->object_size32[o];
    return s != GCH_SIZE_BIG ? s : gch_heap_big_size(heap, o);
}

/* Frees a dump and everything it owns. NULL is allowed. */
void gch_dump_free(gch_dump *dump);

/* The string at offset off in heap's pool, or "" for GCH_NONE. */
const char *gch_heap_string(const gch_heap *heap, uint32_t off);

/* Name of type t. */
const char *gch_type_name(const gch_heap *heap, uint32_t t);

/* Builds in_start/in_source from the forward references if not built yet.
 * Returns GCH_OK or GCH_ENOMEM (the heap is then unchanged). */
gch_status gch_heap_build_reverse(gch_heap *heap, gch_error *err);

/* Finds the object with dump id `id`; GCH_NONE if absent. A linear scan: meant
 * for the handful of ids a user types, not for bulk lookups. */
uint32_t gch_heap_find_object(const gch_heap *heap, uint64_t id);

#endif
