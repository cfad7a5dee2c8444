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
#include "gcheap/utf8.h"
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

/* ------------------------------------------------------------------------ */
/* Duplicate strings of a V8 snapshot: a string node's name is its text
 * (V8's HeapSnapshotGenerator names a sequential or external string by its
 * characters; concatenated and sliced strings are named "(concatenated
 * string)" and "(sliced string)" and are left out, as their characters are
 * not in the snapshot). The reader keeps each distinct text once in the
 * heap's pool (GCH_PAYLOAD_TEXT), so equal texts have equal offsets. V8 cuts
 * a name at --heap-snapshot-string-limit (1024) characters: a text that long
 * may be the start of longer, different strings and is not grouped. */

#define V8_STRING_LIMIT 1024 /* V8's heap_snapshot_string_limit default (flag-definitions.h) */

typedef struct text_member {
    uint64_t offset;   /* of the text in the heap's pool */
    uint32_t object;
} text_member;

static int member_order(const void *pa, const void *pb)
{
    const text_member *a = pa, *b = pb;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return (a->object > b->object) - (a->object < b->object);
}

gch_status waste_js_strings(wctx *w)
{
    const gch_heap *h = w->h;
    text_member *m = gch_reallocarray(NULL, h->payload_count ? h->payload_count : 1, sizeof *m);
    if (!m)
        return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < h->payload_count; i++) {
        const gch_payload *p = &h->payloads[i];
        uint32_t o = w->pidx[i];
        if (p->kind != GCH_PAYLOAD_TEXT || !waste_wanted(w, o) ||
            gch_utf16_units(gch_heap_string(h, (uint32_t)p->offset), p->length) >= V8_STRING_LIMIT)
            continue;
        m[n].offset = p->offset;
        m[n++].object = o;
    }
    qsort(m, n, sizeof *m, member_order);
    gch_status st = GCH_OK;
    for (size_t a = 0, b; a < n && st == GCH_OK; a = b) {
        for (b = a + 1; b < n && m[b].offset == m[a].offset; b++)
            ;
        if (b - a < w->min_count || b - a < 2)
            continue;
        gch_waste_row *r = waste_row(w, GCH_WASTE_DUP_STRINGS);
        if (!r) {
            st = GCH_ENOMEM;
            break;
        }
        r->object = m[a].object;
        r->type = h->object_type[r->object];
        r->count = b - a;
        r->copy = gch_object_size(h, r->object);
        for (size_t k = a; k < b; k++)
            r->bytes += gch_object_size(h, m[k].object);
        r->wasted = r->bytes - r->copy;
        const char *text = gch_heap_string(h, (uint32_t)m[a].offset);
        r->length = gch_utf16_units(text, strlen(text));
    }
    gch_free(m);
    return st;
}
