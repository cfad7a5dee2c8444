/* dart_writer.h - a test-only writer of Dart VM heap snapshots ("dartheap").
 *
 * It follows the layout of the VM's writer (runtime/vm/object_graph.cc,
 * HeapSnapshotWriter::Write): magic, flags, name, shallow size, capacity,
 * external size, classes (1-origin), reference count, objects (1-origin), external
 * properties, identity hash codes (uleb, optional), zero padding (optional).
 * IntData of a class named "_Mint" is written as signed LEB128, other IntData as
 * the uleb of the 64-bit pattern; NameData is tag 8.
 *
 * dtw_new_vm() adds what the VM writes first: classes 1..3 "Root", "Read-Only
 * Pages", "Isolate" (no library; the Isolate class fields name the static field
 * table) and objects 1 (root), 2 (read-only pages), 3.. (one per isolate, NameData
 * = its name, size 0). At write time the root gets its extra references to object
 * 2 and to every isolate, after the references the test gave it, as the VM does.
 *
 * Aborts on allocation failure (test code).
 */
#ifndef GCHEAP_TEST_DART_WRITER_H
#define GCHEAP_TEST_DART_WRITER_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer with LEB128 encoders. */
typedef struct dtw_buf {
    unsigned char *data;
    size_t size, cap;
} dtw_buf;

void dtw_buf_free(dtw_buf *b);
void dtw_put_byte(dtw_buf *b, unsigned char v);
void dtw_put_bytes(dtw_buf *b, const void *p, size_t n);
void dtw_put_uleb(dtw_buf *b, uint64_t v);
void dtw_put_sleb(dtw_buf *b, int64_t v);
void dtw_put_string(dtw_buf *b, const char *s); /* uleb length + bytes */

/* Data tags as the VM writes them. */
enum { DTW_NO_DATA = 0, DTW_NULL, DTW_BOOL, DTW_INT, DTW_DOUBLE, DTW_LATIN1, DTW_UTF16,
       DTW_LENGTH, DTW_NAME };

typedef struct dtw dtw;

/* An empty snapshot named name. */
dtw *dtw_new(const char *name);
/* The VM's synthetic classes and objects, with isolate_count isolates named
 * isolate_names[i], and the Isolate class fields static_fields[i] at index i (NULL
 * or "" entries give an empty name). */
dtw *dtw_new_vm(const char *name, const char *const *isolate_names, size_t isolate_count,
                const char *const *static_fields, size_t static_field_count);
void dtw_free(dtw *w);

/* Header values; by default shallow size = sum of object sizes, capacity = the
 * same, external size = sum of the external properties. */
void dtw_set_flags(dtw *w, uint64_t flags);
void dtw_set_shallow_size(dtw *w, uint64_t v);
void dtw_set_capacity(dtw *w, uint64_t v);
void dtw_set_external_size(dtw *w, uint64_t v);
/* Adds this much (may be negative) to the header reference count (default: the exact sum). */
void dtw_set_reference_slack(dtw *w, int64_t extra);

/* Adds a class; returns its 1-origin id. */
uint64_t dtw_class(dtw *w, const char *name, const char *library_name, const char *library_uri);
void dtw_field(dtw *w, uint64_t class_id, uint64_t index, const char *name);

/* Adds an object (NoData); returns its 1-origin id. */
uint64_t dtw_object(dtw *w, uint64_t class_id, uint64_t size);
/* Object data (replaces NoData). */
void dtw_data_null(dtw *w, uint64_t obj);
void dtw_data_bool(dtw *w, uint64_t obj, int value);
void dtw_data_int(dtw *w, uint64_t obj, int64_t value); /* signed LEB iff the class is "_Mint" */
void dtw_data_double(dtw *w, uint64_t obj, double value);
void dtw_data_latin1(dtw *w, uint64_t obj, const char *s, uint64_t full_length);
void dtw_data_utf16(dtw *w, uint64_t obj, const uint16_t *units, size_t n, uint64_t full_length);
void dtw_data_length(dtw *w, uint64_t obj, uint64_t length);
void dtw_data_name(dtw *w, uint64_t obj, const char *name);
/* Writes only this tag value (for testing unknown tags). */
void dtw_data_raw_tag(dtw *w, uint64_t obj, uint64_t tag);
/* Appends a reference (0 = omitted). */
void dtw_ref(dtw *w, uint64_t obj, uint64_t target);

void dtw_property(dtw *w, uint64_t obj, uint64_t size, const char *name);
void dtw_hash(dtw *w, uint64_t obj, uint64_t hash);

/* Writes the snapshot into out (which must be zeroed or freed before). */
void dtw_write(const dtw *w, int with_hash_codes, size_t padding, dtw_buf *out);

#endif
