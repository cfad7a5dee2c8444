/* hprof_writer.h - a test-only HPROF writer (big-endian, identifier size 4
 * or 8), following the record layouts of OpenJDK's heapDumper.cpp and ART's
 * hprof.cc (docs/hprof-format.md). It writes what it is told, also what no
 * JVM writes (hostile lengths, unknown tags), so tests can build malformed
 * dumps too. Records get their length patched when they end. Out of memory
 * aborts (tests only).
 */
#ifndef GCHEAP_TEST_HPROF_WRITER_H
#define GCHEAP_TEST_HPROF_WRITER_H

#include <stddef.h>
#include <stdint.h>

typedef struct hpw {
    unsigned char *buf;
    size_t len, cap;
    unsigned id_size;
    size_t record;           /* start of the open record, or SIZE_MAX */
} hpw;

/* A dump with header "JAVA PROFILE <version>" ("1.0.2", "1.0.3", ...). */
hpw *hpw_new(const char *version, unsigned id_size, uint64_t timestamp_ms);
void hpw_free(hpw *w);

void hpw_u1(hpw *w, unsigned v);
void hpw_u2(hpw *w, unsigned v);
void hpw_u4(hpw *w, uint32_t v);
void hpw_u8(hpw *w, uint64_t v);
void hpw_id(hpw *w, uint64_t v);
void hpw_bytes(hpw *w, const void *p, size_t n);

/* Top-level records: begin writes tag, time 0 and a length patched by end. */
void hpw_begin(hpw *w, unsigned tag);
void hpw_end(hpw *w);
/* The same with an explicit (possibly false) length, not patched. */
void hpw_begin_raw(hpw *w, unsigned tag, uint32_t length);

void hpw_string(hpw *w, uint64_t id, const char *text);
void hpw_load_class(hpw *w, uint32_t serial, uint64_t class_id, uint64_t name_id);

/* Field descriptions for class dumps. */
typedef struct hpw_field {
    uint64_t name_id;
    unsigned type;           /* 2 object, 4 boolean, 5 char, ... 11 long */
    uint64_t value;          /* static fields only: written in the type's size */
} hpw_field;

/* Sub-records (inside hpw_begin(HEAP DUMP or SEGMENT) ... hpw_end). */
void hpw_class_dump(hpw *w, uint64_t class_id, uint64_t super_id, uint64_t loader_id,
                    uint32_t instance_size, const hpw_field *statics, size_t nstatics,
                    const hpw_field *fields, size_t nfields);
/* values: the instance's field values, already encoded (see hpw_value). */
void hpw_instance(hpw *w, uint64_t id, uint64_t class_id, const void *values, uint32_t n);
void hpw_object_array(hpw *w, uint64_t id, uint64_t class_id, const uint64_t *elems, uint32_t n);
/* data: n elements of the type's size (NULL: zeros). nodata: ART's 0xC3. */
void hpw_prim_array(hpw *w, uint64_t id, unsigned type, uint32_t n, const void *data);
void hpw_prim_array_nodata(hpw *w, uint64_t id, unsigned type, uint32_t n);
/* A root sub-record: tag, object id, then the tag's extra u4s / ids as the
 * format defines them (thread serial, frame number, JNI global ref id, ...). */
void hpw_root(hpw *w, unsigned tag, uint64_t id, uint32_t a, uint32_t b);
void hpw_heap_info(hpw *w, uint32_t heap_type, uint64_t name_id);

/* Encodes a value of basic type `type` into out (big-endian); returns its size. */
size_t hpw_value(const hpw *w, unsigned type, uint64_t v, unsigned char *out);

#endif
