/* hprof_internal.h - the HPROF reader's shared state, internal to the library.
 *
 * The reader (docs/hprof-format.md) decodes one buffer in three passes:
 *   1. scan (hprof_scan.c): check the framing of every record and sub-record,
 *      index the strings, LOAD CLASS and CLASS DUMP records and the threads;
 *   2. classes (hprof_classes.c): Java names, each class's instance fields
 *      flattened through its superclasses, and the object-size rule (decided
 *      from the gaps between object addresses, or given by the caller);
 *   3. emit (hprof_reader.c): roots, class objects, instances and arrays to
 *      the builder.
 * Classes are known before any instance is emitted, so a dump may list an
 * instance before its class, and a pipe is read once (into the buffer).
 */
#ifndef GCHEAP_HPROF_INTERNAL_H
#define GCHEAP_HPROF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "gcheap/error.h"
#include "gcheap/heap.h"
#include "gcheap/reader.h"

/* Top-level record tags. */
enum {
    HP_UTF8 = 0x01, HP_LOAD_CLASS = 0x02, HP_UNLOAD_CLASS = 0x03, HP_FRAME = 0x04,
    HP_TRACE = 0x05, HP_ALLOC_SITES = 0x06, HP_HEAP_SUMMARY = 0x07, HP_START_THREAD = 0x0A,
    HP_END_THREAD = 0x0B, HP_HEAP_DUMP = 0x0C, HP_CPU_SAMPLES = 0x0D,
    HP_CONTROL_SETTINGS = 0x0E, HP_HEAP_DUMP_SEGMENT = 0x1C, HP_HEAP_DUMP_END = 0x2C
};

/* Heap dump sub-record tags (OpenJDK heapDumper.cpp, then ART hprof.cc). */
enum {
    HP_ROOT_UNKNOWN = 0xFF, HP_ROOT_JNI_GLOBAL = 0x01, HP_ROOT_JNI_LOCAL = 0x02,
    HP_ROOT_JAVA_FRAME = 0x03, HP_ROOT_NATIVE_STACK = 0x04, HP_ROOT_STICKY_CLASS = 0x05,
    HP_ROOT_THREAD_BLOCK = 0x06, HP_ROOT_MONITOR_USED = 0x07, HP_ROOT_THREAD_OBJ = 0x08,
    HP_CLASS_DUMP = 0x20, HP_INSTANCE_DUMP = 0x21, HP_OBJ_ARRAY_DUMP = 0x22,
    HP_PRIM_ARRAY_DUMP = 0x23,
    HP_HEAP_DUMP_INFO = 0xFE, HP_ROOT_INTERNED_STRING = 0x89, HP_ROOT_FINALIZING = 0x8A,
    HP_ROOT_DEBUGGER = 0x8B, HP_ROOT_REFERENCE_CLEANUP = 0x8C, HP_ROOT_VM_INTERNAL = 0x8D,
    HP_ROOT_JNI_MONITOR = 0x8E, HP_UNREACHABLE = 0x90, HP_PRIM_ARRAY_NODATA = 0xC3
};

/* Basic types of fields and array elements. */
enum {
    HP_T_ARRAY_OBJECT = 1, HP_T_OBJECT = 2, HP_T_BOOLEAN = 4, HP_T_CHAR = 5, HP_T_FLOAT = 6,
    HP_T_DOUBLE = 7, HP_T_BYTE = 8, HP_T_SHORT = 9, HP_T_INT = 10, HP_T_LONG = 11
};

#define HP_NONE UINT32_MAX

typedef struct hp_string {
    uint64_t id;
    size_t off;       /* the UTF-8 bytes in the buffer */
    uint32_t len;
} hp_string;

/* One instance field declared by a class (not its superclasses). An instance
 * dump writes its class's fields, then its superclass's, and so on: readers
 * walk super_index. */
typedef struct hp_field {
    uint64_t name_id; /* the field name's string id */
    uint8_t type;     /* HP_T_* */
    uint8_t weak;     /* java.lang.ref.Reference.referent: a weak root, not a reference */
    uint32_t label;   /* offset of the NUL-terminated field name in names, or HP_NONE */
} hp_field;

typedef struct hp_class {
    uint64_t id, super_id, loader_id, signers_id, domain_id;
    uint64_t name_id;        /* from LOAD CLASS; 0 when none */
    size_t record;           /* offset of the CLASS DUMP body (after the tag) */
    size_t statics;          /* offset of the static field count */
    size_t fields;           /* offset of the instance field count */
    uint32_t instance_size;  /* as written (OpenJDK: bytes of dumped fields; ART: object size) */
    uint16_t static_count, field_count;
    /* Derived in pass 2. */
    uint32_t name;           /* offset of the Java name in names */
    uint32_t layout_first;   /* its own field_count fields in hprof_reader.layout */
    /* Totals over the class and its superclasses. */
    uint64_t dump_bytes;     /* bytes of field values an instance dump carries */
    uint64_t prim_bytes;     /* bytes of the primitive instance fields */
    uint64_t ref_fields;     /* instance fields of object type */
    uint64_t static_prim_bytes;
    uint32_t static_refs;
    uint32_t static_labels;  /* first of static_count label offsets in static_label */
    uint32_t super_index;    /* class index of the superclass, or HP_NONE */
    uint32_t next_fields;    /* the nearest superclass that declares instance fields, or
                                HP_NONE: walks of an instance's fields skip the classes
                                between (a deep chain of empty classes costs nothing) */
    /* What HotSpot adds to the declared fields (injected fields, @Contended
     * padding), which the dump does not show: bytes, and references. */
    uint32_t hidden_bytes, hidden_refs;
    /* HotSpot's @Contended layout (hprof_classes.c), per 64-bit rule (slot):
     * the offset after the last field and the instance's end before the
     * 8-byte alignment; contended: 0 none, 1 the class or a superclass is
     * one of the JDK's @Contended classes (then these give the size). */
    uint32_t contended_last[3], contended_end[3];
    uint8_t contended;
    uint8_t contended_class;  /* class-level @Contended (padding before and after) */
    const char *const *contended_fields; /* the fields of its @Contended group, or NULL */
    uint8_t is_reference;    /* java.lang.ref.Reference or a subclass */
    uint8_t state;           /* hierarchy totals: 0 not yet, 1 being computed, 2 done */
    uint8_t keep_fields;     /* keep_fields: its instances get GCH_PAYLOAD_INSTANCE entries */
} hp_class;

/* A run of object sub-records with increasing ids, in dump order. */
typedef struct hp_run {
    size_t off, end;         /* its first object sub-record; the end of that record's body */
    uint64_t count;          /* object sub-records in the run */
} hp_run;

#define HP_MAX_RUNS 65536    /* more runs: objects are emitted in dump order */

typedef struct hp_thread {
    uint32_t serial;
    uint64_t object_id;
    uint64_t name_string;    /* the Thread's name field (a String), 0 when unknown */
    uint64_t name_value;     /* that String's value array */
    int coder;               /* String.coder: 0 Latin-1, 1 UTF-16 */
    char name[64];           /* printable, "" when unknown */
    uint32_t trace_serial;   /* its STACK TRACE's serial (ROOT THREAD OBJECT) */
} hp_thread;

/* A STACK FRAME record by its id; a STACK TRACE record (hprof_frames.c). */
typedef struct hp_frame_ref {
    uint64_t id;
    size_t body;             /* offset of the record's body */
} hp_frame_ref;

typedef struct hp_trace {
    uint32_t serial, frame_count; /* frame_count: as many ids as the record holds */
    size_t frames;           /* offset of the frame ids */
} hp_trace;

/* How the JVM that wrote the dump lays objects out (docs/hprof-format.md). */
typedef struct hp_layout_rule {
    unsigned ref_size;       /* bytes of a reference field or array element */
    unsigned header;         /* object header */
    unsigned array_header;   /* header + length, before element alignment */
    int art;                 /* Android: instance sizes come from the class dump */
    int slot;                /* 0-2: the 64-bit rules (hp_class.contended_end), -1 others */
    const char *name;
} hp_layout_rule;

typedef struct hprof_reader {
    const unsigned char *data;
    size_t size;
    size_t body;             /* offset of the first record */
    unsigned id_size;
    char version[32];
    uint64_t timestamp_ms;
    const gch_load_options *opts;
    gch_error *err;

    hp_string *strings;       /* sorted by id after the scan */
    size_t string_count, string_cap;
    hp_class *classes;        /* sorted by id after the scan */
    size_t class_count, class_cap;
    uint32_t *class_hash;     /* open addressing over classes, by id */
    size_t class_hash_cap;
    gch_hash_key class_hash_key;
    uint64_t *load_class;     /* pairs (class id, name id), sorted by class id */
    size_t load_class_count, load_class_cap;
    hp_thread *threads;
    size_t thread_count, thread_cap;
    hp_frame_ref *frames;     /* sorted by id after the scan */
    size_t frame_count, frame_cap;
    hp_trace *traces;         /* sorted by serial after the scan */
    size_t trace_count, trace_cap;
    struct hp_loader *loaders; /* with keep_modules: the class loaders, sorted by id */
    size_t loader_count;
    uint64_t *class_serials;  /* pairs (LOAD CLASS serial, name id), sorted by serial */
    size_t class_serial_count, class_serial_cap;
    uint64_t *thread_by_serial; /* serial << 32 | thread index, sorted: hp_thread_find */
    hp_run *runs;
    size_t run_count, run_cap;
    uint64_t run_last_id;
    int runs_overflow;

    hp_field *layout;
    size_t layout_count, layout_cap;
    uint32_t *static_label;
    size_t static_label_count, static_label_cap;
    char *names;              /* NUL-terminated names and labels */
    size_t names_size, names_cap;
    /* Per string (index in strings): its copies in names, HP_NONE until made,
     * so that a name shared by many fields, statics or classes is copied once. */
    uint32_t *field_label_of, *static_label_of, *class_name_of;

    /* Counts from the scan. */
    uint64_t records, heap_records, sub_records, objects, roots, art_records, segments;
    int ended;                /* HEAP DUMP END after the last segment */
    uint64_t ref_bound;       /* references the objects can have at most (each backed by input bytes) */
    int art;
    hp_layout_rule rule;
    uint64_t gaps_sampled, gaps_matched;

    /* Payloads (gch_load_options.keep_payloads, hprof_payloads.c). */
    gch_payload *payloads;
    size_t payload_count, payload_cap;
    uint32_t string_class;   /* java.lang.String, or HP_NONE */
    int64_t string_value_at, string_coder_at; /* offsets in its field bytes, -1 when absent */

    /* The classes every dump has (HP_NONE when absent). */
    uint32_t class_class, reference_class;
    uint64_t prim_array_class[12];  /* class id of boolean[]... by HP_T_*, 0 when absent */
} hprof_reader;

/* Records a format error at offset and returns GCH_EFORMAT (gch_error_at). */
#define hp_fail(r, offset, ...) gch_error_at((r)->err, (offset), __VA_ARGS__)
gch_status hp_oom(hprof_reader *r);

/* Big-endian reads; callers check the bounds first. */
static inline uint32_t hp_u4(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint16_t hp_u2(const unsigned char *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint64_t hp_u8(const unsigned char *p)
{
    return (uint64_t)hp_u4(p) << 32 | hp_u4(p + 4);
}
static inline uint64_t hp_id(const hprof_reader *r, const unsigned char *p)
{
    return r->id_size == 8 ? hp_u8(p) : hp_u4(p);
}

/* Bytes of a value of basic type t in the dump, or 0 for an invalid type. */
unsigned hp_type_size(const hprof_reader *r, unsigned t);
/* Bytes of an array element of type t in the JVM's heap (0 when invalid):
 * gch_elem_size (gcheap/heap.h), whose GCH_ELEM_* are HPROF's numbers. */

/* Walks the heap sub-records of a scanned dump: hp_walk_init, then
 * hp_walk_next until it returns 0. */
typedef struct hp_walk {
    size_t off, end;         /* the next sub-record, the end of its record body */
    size_t rec;              /* the next top-level record */
} hp_walk;
void hp_walk_init(const hprof_reader *r, hp_walk *w);
/* 1 with *off at the tag and *next after the sub-record; 0 at the end or on
 * an error (then r->err says it; scanned dumps have none). */
int hp_walk_next(hprof_reader *r, hp_walk *w, size_t *off, size_t *next);

/* Whether a sub-record tag is an object (class, instance or array dump). */
static inline int hp_is_object(unsigned tag)
{
    return tag == HP_CLASS_DUMP || tag == HP_INSTANCE_DUMP || tag == HP_OBJ_ARRAY_DUMP ||
           tag == HP_PRIM_ARRAY_DUMP || tag == HP_PRIM_ARRAY_NODATA;
}

/* Finds the extent of the heap sub-record whose tag is at off, in a record
 * body ending at end: *next receives the offset after it. Errors name the
 * offset of the sub-record. */
gch_status hp_sub_record_end(hprof_reader *r, size_t off, size_t end, size_t *next);

/* Pass 1: header and scan (hprof_scan.c). */
gch_status hp_scan(hprof_reader *r);
/* The string with id, or NULL (*len receives its length). */
const char *hp_string_get(const hprof_reader *r, uint64_t id, uint32_t *len);
/* The index in strings of the string with id, or HP_NONE. */
uint32_t hp_string_index(const hprof_reader *r, uint64_t id);
/* The class index of id, or HP_NONE. */
uint32_t hp_class_find(const hprof_reader *r, uint64_t id);
/* The thread of a thread serial number, or NULL. */
const hp_thread *hp_thread_find(const hprof_reader *r, uint32_t serial);
/* Reads the threads' names (hprof_threads.c): after hp_prepare_classes. */
gch_status hp_thread_names(hprof_reader *r);

/* Stack frames (hprof_frames.c): the scan adds the records, then indexes
 * them; hp_frame_text writes "Class.method (File.java:42)" for frame depth
 * of the trace with trace_serial: its length, 0 (buf "") when unknown. */
gch_status hp_add_frame(hprof_reader *r, size_t body, size_t len);
gch_status hp_add_trace(hprof_reader *r, size_t body, size_t len);
gch_status hp_add_class_serial(hprof_reader *r, size_t body);
void hp_index_frames(hprof_reader *r);
size_t hp_frame_text(const hprof_reader *r, uint32_t trace_serial, uint32_t depth, char *buf,
                     size_t cap);

/* Class loaders (hprof_loaders.c), with keep_modules, after
 * hp_prepare_classes: hp_loaders_find reads the class of every loader;
 * hp_loader_text writes its name ("...$AppClassLoader", "X@0x7f00" when
 * several loaders share the class, "loader 0x7f00" when its instance is
 * missing). */
gch_status hp_loaders_find(hprof_reader *r);
const char *hp_loader_text(const hprof_reader *r, uint64_t id, char *buf, size_t cap);

/* Pass 2 (hprof_classes.c): names, layouts and the size rule. */
gch_status hp_prepare_classes(hprof_reader *r);
/* Shallow sizes under the chosen rule. */
uint64_t hp_instance_size(const hprof_reader *r, const hp_class *k);
uint64_t hp_class_object_size(const hprof_reader *r, const hp_class *k);
uint64_t hp_array_size(const hprof_reader *r, unsigned elem_bytes, uint64_t length);
/* Appends a NUL-terminated copy of s to names; *off receives its offset. */
gch_status hp_name_add(hprof_reader *r, const char *s, size_t len, uint32_t *off);

/* Payloads (hprof_payloads.c), with gch_load_options.keep_payloads: after
 * hp_prepare_classes, hp_payloads_prepare finds java.lang.String's value and
 * coder fields; while emitting, hp_payload_array records a PRIMITIVE ARRAY
 * DUMP at off and hp_payload_string an instance of String (its field bytes
 * at fields); hp_payloads_attach sorts them by id (the first of equal ids
 * stays, as the builder keeps the first object) and hands them to the heap. */
void hp_payloads_prepare(hprof_reader *r);
gch_status hp_payload_array(hprof_reader *r, size_t off);
gch_status hp_payload_string(hprof_reader *r, uint64_t id, const unsigned char *fields);
/* With keep_fields: an OBJECT ARRAY DUMP at off (elem GCH_ELEM_OBJECT), and
 * an instance of a class marked keep_fields whose `bytes` field bytes start
 * at offset fields of the buffer. */
gch_status hp_payload_object_array(hprof_reader *r, size_t off);
gch_status hp_payload_instance(hprof_reader *r, uint64_t id, size_t fields, uint32_t bytes);
/* Hands the payloads to the heap; with keep_fields also the field table of
 * every type (gch_heap.fields). */
gch_status hp_payloads_attach(hprof_reader *r, gch_heap *heap);

#endif
