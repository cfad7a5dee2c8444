/* What the index's files share beyond the layout. */
#ifndef GCH_INDEX_INTERNAL_H
#define GCH_INDEX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "gcheap/heap.h"
#include "index_format.h"

/* gch_anomalies as the GCX_ANOMALY_WORDS words of gcx_heap_rec.anomalies,
 * in its order (the dangling references' holders last). */
_Static_assert(12 + 2 * GCH_DANGLING_TOP == GCX_ANOMALY_WORDS, "gcx_heap_rec.anomalies holds gch_anomalies");

/* Word i of that array: where it lives in a. One list serves both ways, so
 * the writer and the reader cannot disagree on the order. */
static inline uint64_t *gch_index_anomaly_word(gch_anomalies *a, int i)
{
    static const size_t counts[12] = {
        offsetof(gch_anomalies, dangling_refs),        offsetof(gch_anomalies, first_dangling_ref),
        offsetof(gch_anomalies, unknown_type_objects), offsetof(gch_anomalies, unknown_types),
        offsetof(gch_anomalies, dangling_roots),       offsetof(gch_anomalies, duplicate_objects),
        offsetof(gch_anomalies, first_duplicate_object), offsetof(gch_anomalies, duplicate_types),
        offsetof(gch_anomalies, absent_containers),    offsetof(gch_anomalies, missing_end),
        offsetof(gch_anomalies, end_name_mismatch),    offsetof(gch_anomalies, dangling_holders),
    };
    if (i < 12)
        return (uint64_t *)((char *)a + counts[i]);
    i -= 12;
    return i < GCH_DANGLING_TOP ? &a->dangling_holder_id[i]
                                : &a->dangling_holder_refs[i - GCH_DANGLING_TOP];
}

static inline void gch_index_anomalies_put(const gch_anomalies *a, uint64_t w[GCX_ANOMALY_WORDS])
{
    gch_anomalies c = *a;
    for (int i = 0; i < GCX_ANOMALY_WORDS; i++)
        w[i] = *gch_index_anomaly_word(&c, i);
}

static inline void gch_index_anomalies_get(const uint64_t w[GCX_ANOMALY_WORDS], gch_anomalies *a)
{
    for (int i = 0; i < GCX_ANOMALY_WORDS; i++)
        *gch_index_anomaly_word(a, i) = w[i];
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
