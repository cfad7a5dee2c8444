/* dart_snapshot.h - decoding of Dart VM heap snapshots, internal to the library.
 *
 * gch_dart_scan() decodes and checks a whole snapshot (docs/dart-format.md):
 * the header, the classes (kept, with their fields sorted by index), every
 * object record (only its class id is kept), the external properties, identity
 * hash codes and padding. Afterwards the reader (src/dart_reader.c) moves the
 * cursor back to objects_offset and decodes the objects again with
 * gch_dart_read_object_head() / gch_dart_read_reference() to build the heap.
 * Errors are GCH_EFORMAT with the offset of the bad item (see dart_cursor.h).
 */
#ifndef GCHEAP_DART_SNAPSHOT_H
#define GCHEAP_DART_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "dart_cursor.h"
#include "gcheap/error.h"
#include "gcheap/reader.h"

#define GCH_DART_NO_NAME SIZE_MAX

/* What the objects of a class are: heap objects or one of the VM's synthetic
 * objects (classes 1..3 "Root", "Read-Only Pages", "Isolate" with no library),
 * whose references are roots. */
typedef enum gch_dart_role {
    GCH_DART_HEAP,
    GCH_DART_ROOT,
    GCH_DART_READ_ONLY_PAGES,
    GCH_DART_ISOLATE
} gch_dart_role;

typedef struct gch_dart_field {
    uint64_t index;  /* 0-origin position in the object's reference list */
    size_t name;     /* offset in snapshot.names, or GCH_DART_NO_NAME */
    size_t order;    /* position in the class record: ties keep the first */
} gch_dart_field;

typedef struct gch_dart_class {
    const char *name;  /* simple name, cut at '@'; points into the input */
    size_t name_len;
    const char *uri;   /* library URI; points into the input */
    size_t uri_len;
    size_t first_field, field_count; /* in snapshot.fields, sorted by index, one per
                                        index (the first the class record gives) */
    gch_dart_role role;
    int is_mint;       /* "_Mint": IntData is signed LEB128 */
} gch_dart_class;

/* One decoded object record, up to (not including) its references. */
typedef struct gch_dart_object {
    uint64_t index;      /* 1-origin */
    uint64_t class_id;
    uint64_t size;
    uint64_t tag;
    const char *name;    /* NameData (points into the input), else NULL */
    size_t name_len;
    uint64_t length;     /* Latin-1 / UTF-16 string: its code units; LengthData: the length */
    uint64_t kept;       /* string: the code units recorded (at most length) */
    const unsigned char *chars; /* string: the kept code units (points into the input;
                                   UTF-16 ones little-endian, as the VM writes them) */
    uint64_t ref_count;
} gch_dart_object;

typedef enum gch_dart_hashes {
    GCH_DART_HASHES_ABSENT,
    GCH_DART_HASHES_PRESENT,
    GCH_DART_HASHES_ALL_ZERO   /* only zero bytes followed: all-zero hashes or padding */
} gch_dart_hashes;

typedef struct gch_dart_snapshot {
    gch_dart_cursor cur;
    const gch_load_options *opts;  /* never NULL */
    gch_error *err;                /* may be NULL */

    /* Header. */
    uint64_t flags;
    const char *name;
    size_t name_len;
    uint64_t shallow_size, capacity, external_size;
    uint64_t class_count, reference_count, object_count;

    gch_dart_class *classes;    /* 1..class_count */
    gch_dart_field *fields;
    size_t field_count, field_cap;
    char *names;                /* NUL-terminated field names */
    size_t names_size, names_cap;

    uint32_t *object_class;     /* 1..object_count: class id of each object */
    unsigned char *has_length;  /* opts->keep_payloads: bit i set when object i has
                                   LengthData (tag 7) */
    size_t objects_offset;      /* where the first object record starts */

    /* Found by the scan. */
    uint64_t object_size_sum;
    uint64_t refs_in_records;   /* sum of reference counts, omitted (0) ones included */
    uint64_t synthetic_objects;
    uint64_t property_count, property_size_sum;
    gch_dart_hashes hashes;
    uint64_t nonzero_hashes;
    uint64_t padding;
} gch_dart_snapshot;

/* Decodes and checks the whole input (cur, opts and err must be set). */
gch_status gch_dart_scan(gch_dart_snapshot *s);
/* Frees what the scan allocated. */
void gch_dart_snapshot_free(gch_dart_snapshot *s);

/* Decodes the record of object `index` up to its references. */
gch_status gch_dart_read_object_head(gch_dart_snapshot *s, uint64_t index, gch_dart_object *o);
/* Reads reference k (for messages) of the current object: an object index
 * 1..object_count, or 0 when omitted. */
gch_status gch_dart_read_reference(gch_dart_snapshot *s, uint64_t k, uint64_t *target);
/* Whether object `index` (1..object_count, after a scan with keep_payloads)
 * has LengthData. */
static inline int gch_dart_has_length(const gch_dart_snapshot *s, uint64_t index)
{
    return s->has_length && (s->has_length[index >> 3] >> (index & 7) & 1);
}
/* Whether object `index` (1..object_count, after the scan) is synthetic. */
int gch_dart_is_synthetic(const gch_dart_snapshot *s, uint64_t index);

/* Calls the progress callback, if any. */
void gch_dart_progress(gch_dart_snapshot *s, uint64_t bytes);
/* Puts "CONTEXT: " before the message of the error just recorded (not for
 * GCH_ENOMEM, whose message says all); returns st. */
gch_status gch_dart_with_context(gch_error *err, gch_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Length of s up to the first `stop` byte (all of it if none). */
size_t gch_dart_cut_at(const char *s, size_t len, char stop);
/* Grows *p to hold at least need elements of elem bytes; 0 when out of memory. */
int gch_dart_grow(void **p, size_t *cap, size_t need, size_t elem);

#endif
