/* What the index's files share beyond the layout. */
#ifndef GCH_INDEX_INTERNAL_H
#define GCH_INDEX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gcheap/heap.h"

/* gch_anomalies as the 11 words of gcx_heap_rec.anomalies, in its order. */
static inline void gch_index_anomalies_put(const gch_anomalies *a, uint64_t w[11])
{
    const uint64_t v[11] = { a->dangling_refs, a->first_dangling_ref, a->unknown_type_objects,
                             a->unknown_types, a->dangling_roots, a->duplicate_objects,
                             a->first_duplicate_object, a->duplicate_types, a->absent_containers,
                             a->missing_end, a->end_name_mismatch };
    for (int i = 0; i < 11; i++)
        w[i] = v[i];
}

static inline void gch_index_anomalies_get(const uint64_t w[11], gch_anomalies *a)
{
    a->dangling_refs = w[0];
    a->first_dangling_ref = w[1];
    a->unknown_type_objects = w[2];
    a->unknown_types = w[3];
    a->dangling_roots = w[4];
    a->duplicate_objects = w[5];
    a->first_duplicate_object = w[6];
    a->duplicate_types = w[7];
    a->absent_containers = w[8];
    a->missing_end = w[9];
    a->end_name_mismatch = w[10];
}

/* The format name recorded in an index as the static string gch_dump.format
 * wants ("" for a name this gcheap does not write). */
static inline const char *gch_index_static_name(const char *name)
{
    static const char *const names[] = { "gclog", "gcdump", "dart", "v8", "hprof", "java",
                                         "ruby", "jsc" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return names[i];
    return "";
}

#endif
