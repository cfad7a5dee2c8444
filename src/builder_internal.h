/* Builder entry points for the library's own readers (not public): bulk
 * appends used by the parallel .gclog parser. */
#ifndef GCHEAP_BUILDER_INTERNAL_H
#define GCHEAP_BUILDER_INTERNAL_H

#include <stdint.h>
#include "gcheap/heap.h"

/* The type index of raw type id raw, creating an undeclared type on first
 * use (what adding an object of that type does). */
gch_status gch_builder_type_index(gch_builder *b, uint64_t raw, uint32_t *out, gch_error *err);

/* Appends n objects to the open heap, as n gch_builder_object_begin calls
 * followed by their references would: ids, types (type indices), sizes and
 * per-object reference counts; refs holds the sum of counts raw ids, none of
 * them 0 (may be NULL when that sum is 0). ids_increasing says whether ids is
 * strictly increasing. */
gch_status gch_builder_append_objects(gch_builder *b, uint32_t n, const uint64_t *ids,
                                      const uint32_t *types, const uint64_t *sizes,
                                      const uint32_t *counts, const uint64_t *refs, uint64_t nrefs,
                                      int ids_increasing, gch_error *err);

#endif
