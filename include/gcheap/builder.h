/* gcheap/builder.h - how readers produce heaps (the builder API).
 *
 * Consumers of a loaded dump need only heap.h; readers (the library's own and
 * test writers) fill a dump through the calls below.
 */
#ifndef GCHEAP_BUILDER_H
#define GCHEAP_BUILDER_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"

/* Builder: how readers produce heaps. Not needed by consumers.
 *
 * Usage: gch_builder_new; for each section gch_builder_begin_heap, then any
 * mix of add_type / add_object / add_root, then gch_builder_end_heap; finally
 * gch_builder_finish returns the dump. Object and type ids are the dump's own
 * 64-bit ids; references are resolved to indices at end_heap. On any error the
 * builder must still be released with gch_builder_free. */

typedef struct gch_builder gch_builder;


gch_status gch_builder_new(gch_builder **out, const char *format, gch_error *err);
void gch_builder_free(gch_builder *b);
/* How many threads gch_builder_end_heap may use to index ids and resolve
 * references: 0 (the default) as many as the machine has, at most 2; 1 none
 * besides the caller's. Readers pass gch_load_options.threads. */
void gch_builder_set_threads(gch_builder *b, unsigned threads);

/* Opens a heap named name (copied). */
gch_status gch_builder_begin_heap(gch_builder *b, const char *name, size_t name_len, gch_error *err);
/* Adds a metadata line to the open heap (both strings copied). */
gch_status gch_builder_add_meta(gch_builder *b, const char *key, const char *value, gch_error *err);
/* The same with the value formatted as printf does (cut at 255 bytes): the
 * readers' header lines ("records", "12 (3 heap dump records, ...)"). */
gch_status gch_builder_add_metaf(gch_builder *b, gch_error *err, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* Sets the open heap's id radix (16 by default). */
void gch_builder_set_id_radix(gch_builder *b, int radix);
/* Marks the open heap's counts as estimates (sampled dump). */
void gch_builder_set_sampled(gch_builder *b, int sampled);

/* Strings given to the builder are cut at their first NUL byte.
 *
 * Declares type raw_id with name (name_len bytes, copied). A second declaration of
 * the same id is counted as an anomaly and ignored. *out_index (may be NULL)
 * receives the type index. */
gch_status gch_builder_add_type(gch_builder *b, uint64_t raw_id, const char *name, size_t name_len,
                                uint32_t *out_index, gch_error *err);
/* Sets the module name of a declared type (copied). */
gch_status gch_builder_set_type_module(gch_builder *b, uint32_t type_index, const char *module,
                                       size_t module_len, gch_error *err);

/* Adds an object. refs (nrefs ids; id 0 is null and ignored) are copied. labels, if
 * not NULL, gives one field name per ref (NULL entries for none). */
gch_status gch_builder_add_object(gch_builder *b, uint64_t id, uint64_t raw_type_id, uint64_t size,
                                  const uint64_t *refs, size_t nrefs, gch_error *err);
gch_status gch_builder_add_object_labeled(gch_builder *b, uint64_t id, uint64_t raw_type_id,
                                          uint64_t size, const uint64_t *refs,
                                          const char *const *labels, size_t nrefs, gch_error *err);
/* Incremental form for huge reference lists: object_begin, then object_refs in
 * chunks. The object stays open until the next object_begin (or end_heap), so
 * object_refs may also follow add_object / add_object_labeled to append more
 * references (unlabelled) to the same object. */
gch_status gch_builder_object_begin(gch_builder *b, uint64_t id, uint64_t raw_type_id, uint64_t size,
                                    gch_error *err);
gch_status gch_builder_object_refs(gch_builder *b, const uint64_t *refs, size_t nrefs, gch_error *err);
/* Records that the open heap's references were not read (skip_refs). Call it
 * right after begin_heap and add no references to that heap: end_heap then
 * gives every object zero references without having stored any count. */
void gch_builder_set_refs_skipped(gch_builder *b);

/* Adds a root on object id. has_container/container_raw name the type holding a
 * static; label (may be NULL) is a display name such as a static field. */
gch_status gch_builder_add_root(gch_builder *b, uint64_t id, unsigned kind, unsigned flags,
                                int has_container, uint64_t container_raw, const char *label,
                                gch_error *err);

/* Records that the open section had no end record / a mismatched one. */
void gch_builder_note_missing_end(gch_builder *b);
void gch_builder_note_end_mismatch(gch_builder *b);

/* Closes the open heap: resolves ids, drops duplicate objects and dangling
 * references (counting them), names undeclared types "<unknown type ID>", checks
 * that the total size fits in 64 bits (GCH_ELIMIT otherwise). */
gch_status gch_builder_end_heap(gch_builder *b, gch_error *err);
/* Whether a heap is open. */
int gch_builder_heap_open(const gch_builder *b);
/* The name of the open heap, or NULL. */
const char *gch_builder_heap_name(const gch_builder *b);

/* Hands over the finished dump (*out, caller frees with gch_dump_free). The
 * builder keeps nothing and must still be freed. Fails with GCH_EINVAL if a heap is open. */
gch_status gch_builder_finish(gch_builder *b, gch_dump **out, gch_error *err);

/* Frees the type table of a finished heap (type_name, type_module,
 * type_raw_id, type_declared, type_objects, type_bytes), for a reader that
 * replaces it after gch_builder_finish (V8 as DevTools shows it): the
 * caller sets the six columns and type_count anew. */
void gch_heap_free_types(gch_heap *h);

#endif
