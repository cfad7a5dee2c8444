/* Builder entry points for the library's own readers (not public): bulk
 * appends used by the parallel .gclog parser. */
#ifndef GCHEAP_BUILDER_INTERNAL_H
#define GCHEAP_BUILDER_INTERNAL_H

#include <stdint.h>
#include "gcheap/builder.h"

/* The type index of raw type id raw, creating an undeclared type on first
 * use (what adding an object of that type does). */
gch_status gch_builder_type_index(gch_builder *b, uint64_t raw, uint32_t *out, gch_error *err);

/* Where gch_builder_reserve_objects put a run of objects. */
typedef struct gch_object_slots {
    uint32_t object_at; /* index of the run's first object */
    uint64_t ref_at;    /* index of its first raw reference */
} gch_object_slots;

/* Appending n objects in bulk, as n gch_builder_object_begin calls followed
 * by their references would, in two steps so that the copying can run on
 * another thread. The run: ids, types (type indices), sizes and per-object
 * reference counts (types and sizes are given to reserve too, which a
 * histogram-only heap counts instead of storing); refs holds the sum of counts raw ids, none of them 0 (may
 * be NULL when that sum is 0); ids_increasing says whether ids is strictly
 * increasing. reserve does everything but copy: it checks the limits,
 * grows the arrays, counts the objects and references as added and notes
 * where they go in *at; ids (the run's ids, n of them) is read, not kept.
 * fill then copies the run into the slots (they are offsets: later calls
 * may grow and move the arrays). Until every reserved run is filled, nothing
 * may read the heap's object arrays or raw references: fill them all before
 * gch_builder_end_heap(). Fills of different runs may run at the same time on
 * different threads, but not alongside any other builder call. */
gch_status gch_builder_reserve_objects(gch_builder *b, uint32_t n, const uint64_t *ids,
                                       const uint32_t *types, const uint64_t *sizes,
                                       uint64_t nrefs, int ids_increasing, gch_object_slots *at,
                                       gch_error *err);
void gch_builder_fill_objects(gch_builder *b, const gch_object_slots *at, uint32_t n,
                              const uint64_t *ids, const uint32_t *types, const uint64_t *sizes,
                              const uint32_t *counts, const uint64_t *refs, uint64_t nrefs);

/* Makes the open heap histogram-only (gch_load_options.histogram_only): call
 * it right after gch_builder_set_refs_skipped, before any object. Objects are
 * then counted per type (type_objects, type_bytes) and not stored: the heap
 * has object_count 0 and histogram_only set. Duplicate objects, undeclared
 * types and roots on absent objects are counted exactly as for a stored heap
 * (the ids are kept: 1-2 bytes an object while they increase, a hash set
 * from the first that does not); a type's bytes add up the first of equal
 * ids only, so a sum past 2^64 is refused exactly when a stored heap's is.
 * gch_builder_count_type is ignored for such a heap: it counts itself. */
void gch_builder_set_histogram_only(gch_builder *b);

/* Histogram-only heaps, in bulk: whether gch_builder_hist_append may add a
 * run of strictly increasing ids starting at first_id (the open heap is
 * histogram-only and its ids so far increase and end before first_id; then
 * none of the run can be a duplicate). */
int gch_builder_hist_can_append(const gch_builder *b, uint64_t first_id);

/* Adds n objects with strictly increasing ids first_id..last_id to the
 * histogram-only heap, after gch_builder_hist_can_append said yes: rest holds
 * the varints of the n - 1 distances between consecutive ids
 * (seen_ids_put_varint). The objects' types are counted separately with
 * gch_builder_hist_count_type. GCH_ELIMIT past the object limit, GCH_ENOMEM. */
gch_status gch_builder_hist_append(gch_builder *b, uint32_t n, uint64_t first_id, uint64_t last_id,
                                   const unsigned char *rest, size_t rest_len, gch_error *err);

/* Counts objects objects of bytes bytes in all in type's totals of a
 * histogram-only heap, for objects added by gch_builder_hist_append (all of
 * them first of their ids). overflowed: the caller's own sum passed 2^64. */
void gch_builder_hist_count_type(gch_builder *b, uint32_t type, uint32_t objects, uint64_t bytes,
                                 int overflowed);

/* Adds objects objects of bytes bytes in all to type's totals (heap
 * type_objects and type_bytes). Reserved runs are not counted: their reader
 * counts them per type while parsing and reports the sums here, each object
 * once. overflowed says the reader's own sum passed 2^64 (end_heap then
 * refuses the heap, as it does when the totals overflow here). */
void gch_builder_count_type(gch_builder *b, uint32_t type, uint32_t objects, uint64_t bytes,
                            int overflowed);

/* Interns a reference label once (a reader that labels millions of
 * references with a few thousand names looks each name up only once) and
 * gives its offset for gch_builder_add_object_label_offsets. */
gch_status gch_builder_intern_label(gch_builder *b, const char *s, size_t len, uint32_t *out,
                                    gch_error *err);
/* Like gch_builder_intern_label for a label the reader knows to be new: it
 * is appended without looking for an equal one (a repeat only costs its
 * bytes). */
gch_status gch_builder_append_label(gch_builder *b, const char *s, size_t len, uint32_t *out,
                                    gch_error *err);
/* gch_builder_add_object_labeled with labels given as offsets from
 * gch_builder_intern_label (GCH_NONE: no label). */
gch_status gch_builder_add_object_label_offsets(gch_builder *b, uint64_t id, uint64_t raw_type_id,
                                                uint64_t size, const uint64_t *refs,
                                                const uint32_t *label_offsets, size_t nrefs,
                                                gch_error *err);
/* gch_builder_object_refs with label offsets: more references of the open
 * object, in chunks. */
gch_status gch_builder_object_refs_label_offsets(gch_builder *b, const uint64_t *refs,
                                                 const uint32_t *label_offsets, size_t nrefs,
                                                 gch_error *err);
/* For readers whose names come after the references (V8 snapshots): the
 * label offsets given so far were keys 0..n-1 of the reader's own; replaces
 * each by map[key], an offset from gch_builder_intern_label. */
/* Whether ids[0..n) are all distinct: 1, 0, or -1 when out of memory
 * (what adopting them checks, for a reader that must know before). */
int gch_ids_unique(const uint64_t *ids, uint32_t n);
gch_status gch_builder_map_labels(gch_builder *b, const uint32_t *map, size_t n, gch_error *err);
/* Makes room, exactly, for `objects` more objects and `refs` more references
 * (with labels when labeled) in the open heap, so that a reader that knows its
 * counts does not pay the doubling's slack. Counts beyond the limits are left
 * for the adds to report. */
gch_status gch_builder_reserve(gch_builder *b, size_t objects, uint64_t refs, int labeled,
                               gch_error *err);

/* The index path, for a reader that numbers its objects itself (V8: node
 * i is object i, and every edge names its target's position): the open
 * heap's objects are handed over whole, their references as object
 * indices, so that end_heap resolves no id. Call it once, right after
 * begin_heap (and set_refs_skipped, if so), instead of adding objects; types
 * come from gch_builder_type_index. The builder takes the arrays
 * (gch_malloc'd), also on error: n ids, types and sizes; starts (n + 1
 * entries, starts[0] = 0, never decreasing; NULL when the heap's references
 * are skipped, and then targets and labels are NULL too), targets (starts[n]
 * indices, each below n) and labels (NULL, or per reference a label offset
 * or GCH_NONE, or the reader's keys for gch_builder_map_labels). The dump is
 * the one that adding each object with its references given as ids would
 * make, duplicate ids included (end_heap then resolves those ids as the id
 * path does). Fails with GCH_EINVAL when the arrays break these rules. */
gch_status gch_builder_adopt_indexed(gch_builder *b, uint32_t n, uint64_t *ids, uint32_t *types,
                                     uint64_t *sizes, uint32_t *starts, uint32_t *targets,
                                     uint32_t *labels, gch_error *err);
/* A root on the object at index (< n) of an adopted heap: gch_builder_add_root
 * on its id, without looking the id up (unless ids repeat). */
gch_status gch_builder_add_root_at(gch_builder *b, uint32_t index, unsigned kind, unsigned flags,
                                   const char *label, gch_error *err);

#endif
