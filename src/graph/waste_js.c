/* Empty JS collections in V8 heap snapshots (gcheap/waste.h, options.js).
 * A snapshot records no lengths, only edges (V8's
 * HeapSnapshotGenerator, src/profiler/heap-snapshot-generator.cc):
 *   - a JSArray whose elements are the shared empty FixedArray has no
 *     "elements" edge (V8 leaves that array out as not essential), so an
 *     Array with no edge but its prototype and its map holds nothing (one
 *     with named properties, as Array.prototype, is left out);
 *   - a JSMap / JSSet (and their subclasses, named by their class) has an
 *     internal "table" edge to its OrderedHashMap / OrderedHashSet, whose
 *     entries are edges to the keys and values that are heap objects. A table
 *     with no edge but its "map" holds no such entry: the collection is empty,
 *     or holds only small integers (Smis are not nodes), which the snapshot
 *     cannot tell apart (docs/waste.md).
 * Needs the references and their labels (docs/v8-format.md: "{table}" for an
 * internal edge, ".name" for a property). */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "waste_internal.h"

static int label_is(const gch_heap *h, uint32_t e, const char *name)
{
    return h->out_label[e] != GCH_NONE && strcmp(gch_heap_string(h, h->out_label[e]), name) == 0;
}

/* The bytes an empty collection o holds (its own, and its table's), or 0
 * when o is not an empty JS collection. */
static uint64_t empty_bytes(const gch_heap *h, uint32_t o, int is_array)
{
    uint32_t table = GCH_NONE;
    for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++) {
        /* An Array with anything but its prototype and its shape (elements,
         * properties, the methods of Array.prototype) is not taken. */
        if (is_array && !label_is(h, e, ".__proto__") && !label_is(h, e, "{map}"))
            return 0;
        if (!is_array && table == GCH_NONE && label_is(h, e, "{table}"))
            table = h->out_target[e];
    }
    if (is_array)
        return gch_object_size(h, o);
    if (table == GCH_NONE || strcmp(gch_type_name(h, h->object_type[table]), "(array)") != 0)
        return 0;
    for (uint32_t e = h->out_start[table]; e < h->out_start[table + 1]; e++)
        if (!label_is(h, e, "{map}"))
            return 0;
    return gch_object_size(h, o) + gch_object_size(h, table);
}

gch_status waste_js_collections(wctx *w)
{
    const gch_heap *h = w->h;
    if (!h->refs_loaded || !h->out_label || h->type_count == 0)
        return GCH_OK;
    uint64_t *count = gch_calloc(h->type_count, sizeof *count);
    uint64_t *bytes = gch_calloc(h->type_count, sizeof *bytes);
    uint32_t *first = gch_reallocarray(NULL, h->type_count, sizeof *first);
    uint32_t *empties = NULL;
    size_t nempty = 0, cap = 0;
    gch_status st = GCH_OK;
    if (!count || !bytes || !first) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    uint32_t array_type = GCH_NONE;
    for (uint32_t t = 0; t < h->type_count; t++)
        if (strcmp(gch_type_name(h, t), "Array") == 0)
            array_type = t;
    for (uint32_t o = 0; o < h->object_count; o++) {
        if (!waste_wanted(w, o))
            continue;
        uint32_t t = h->object_type[o];
        uint64_t b = empty_bytes(h, o, t == array_type);
        if (b == 0)
            continue;
        if (count[t]++ == 0)
            first[t] = o;
        bytes[t] += b;
        if (w->o->holders) {
            if (!gch_grow((void **)&empties, &cap, nempty + 1, sizeof *empties, 256)) {
                st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
                goto done;
            }
            empties[nempty++] = o;
        }
    }
    for (uint32_t t = 0; t < h->type_count; t++) {
        if (!count[t])
            continue;
        gch_waste_row *r = waste_row(w, GCH_WASTE_EMPTY);
        if (!r) {
            st = GCH_ENOMEM;
            goto done;
        }
        r->type = t;
        r->object = first[t];
        r->count = count[t];
        r->bytes = r->wasted = bytes[t];
    }
    if (w->o->holders)
        st = waste_find_holders(w, empties, nempty);
done:
    gch_free(count);
    gch_free(bytes);
    gch_free(first);
    gch_free(empties);
    return st;
}
