/* Empty and under-filled collections and zero-length arrays of Dart heap
 * snapshots (gcheap/waste.h, options.dart), from the lengths the VM's
 * writer records (HeapSnapshotWriter, runtime/vm/object_graph.cc: LengthData
 * for Array, ImmutableArray, GrowableObjectArray (its length), Map and Set
 * (their used data slots), ObjectPool and typed data; the reader keeps them
 * as GCH_PAYLOAD_LENGTH entries, docs/dart-format.md):
 *   - a _GrowableList of length 0 is empty; one using less than fill_below
 *     of its backing _List (the first object it references with a length:
 *     the data array) is under-filled, wasting that array's bytes times the
 *     unused share (MAT's AbstractFillRatioQuery). A backing array of length
 *     0 is the VM's shared _emptyList (growable_array.dart, _allocateData)
 *     and not counted with the list;
 *   - a _Map or _Set (older VMs: _InternalLinkedHashMap / Set) with no used
 *     data is empty; its index and data are then the shared
 *     _uninitializedIndex / _uninitializedData (compact_hash.dart), so only
 *     its own bytes count. Const maps and sets are canonical and left out;
 *   - every other object with a length of 0 (a _List, typed data) is a
 *     zero-length array, except the VM's ObjectPool.
 * No references are needed: --holders alone reads them. */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "waste_internal.h"

typedef enum { D_ARRAY, D_LIST, D_MAP, D_SKIP } dart_kind;

/* Whether a type named "Name (uri)" or "Name" has the simple name `name`. */
static int named(const char *type, const char *name)
{
    size_t n = strlen(name);
    return strncmp(type, name, n) == 0 && (type[n] == '\0' || strncmp(type + n, " (", 2) == 0);
}

static dart_kind kind_of(const gch_heap *h, uint32_t t)
{
    static const char *const maps[] = { "_Map", "_Set", "_InternalLinkedHashMap",
                                        "_InternalLinkedHashSet", NULL };
    static const char *const skip[] = { "_ConstMap", "_ConstSet", "_InternalImmutableLinkedHashMap",
                                        "_InternalImmutableLinkedHashSet", "ObjectPool", NULL };
    const char *name = gch_type_name(h, t);
    if (named(name, "_GrowableList"))
        return D_LIST;
    for (size_t i = 0; maps[i]; i++)
        if (named(name, maps[i]))
            return D_MAP;
    for (size_t i = 0; skip[i]; i++)
        if (named(name, skip[i]))
            return D_SKIP;
    return D_ARRAY;
}

typedef struct dart_type {
    uint8_t kind;        /* dart_kind + 1, 0 until known */
    uint64_t empty, empty_bytes, under, under_bytes, used, capacity, wasted, zero, zero_bytes;
    uint32_t first_empty, first_under, first_zero;
} dart_type;

/* The backing array of list entry p: its length and bytes (0 and 0 when
 * there is none the snapshot names). */
static void backing_of(const wctx *w, const gch_payload *p, uint64_t *cap, uint64_t *bytes)
{
    const gch_heap *h = w->h;
    const gch_payload *q = p->offset ? gch_heap_payload(h, p->offset) : NULL;
    uint32_t ob = q && q->kind == GCH_PAYLOAD_LENGTH ? waste_object_of(w, q) : GCH_NONE;
    *cap = ob != GCH_NONE ? q->value : 0;
    *bytes = ob != GCH_NONE ? gch_object_size(h, ob) : 0;
}

static gch_status add_list(wctx *w, dart_type *d, uint32_t o, const gch_payload *p,
                           uint32_t **empties, size_t *nempty, size_t *cap_empty)
{
    uint64_t own = gch_object_size(w->h, o), len = p->value, cap, backing;
    backing_of(w, p, &cap, &backing);
    if (len == 0) {
        if (d->empty++ == 0)
            d->first_empty = o;
        d->empty_bytes += own + (cap > 0 ? backing : 0);
    } else if (cap > 0 && len < cap && (double)len < w->fill_below * (double)cap) {
        if (d->under++ == 0)
            d->first_under = o;
        d->under_bytes += own + backing;
        d->used += len;
        d->capacity += cap;
        d->wasted += (uint64_t)((long double)backing * (long double)(cap - len) / (long double)cap);
        return GCH_OK;
    } else {
        return GCH_OK;
    }
    if (w->o->holders) {
        if (!gch_grow((void **)empties, cap_empty, *nempty + 1, sizeof **empties, 256))
            return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        (*empties)[(*nempty)++] = o;
    }
    return GCH_OK;
}

static gch_status visit(wctx *w, dart_type *types, size_t i, uint32_t **empties, size_t *nempty,
                        size_t *cap_empty)
{
    const gch_heap *h = w->h;
    const gch_payload *p = &h->payloads[i];
    uint32_t o = w->pidx[i];
    if (p->kind != GCH_PAYLOAD_LENGTH || !waste_wanted(w, o))
        return GCH_OK;
    uint32_t t = h->object_type[o];
    dart_type *d = &types[t];
    if (!d->kind)
        d->kind = (uint8_t)(kind_of(h, t) + 1);
    switch (d->kind - 1) {
    case D_LIST:
        return add_list(w, d, o, p, empties, nempty, cap_empty);
    case D_MAP:
        if (p->value != 0)
            return GCH_OK;
        if (d->empty++ == 0)
            d->first_empty = o;
        d->empty_bytes += gch_object_size(h, o);
        if (w->o->holders) {
            if (!gch_grow((void **)empties, cap_empty, *nempty + 1, sizeof **empties, 256))
                return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
            (*empties)[(*nempty)++] = o;
        }
        return GCH_OK;
    case D_ARRAY:
        if (p->value == 0) {
            if (d->zero++ == 0)
                d->first_zero = o;
            d->zero_bytes += gch_object_size(h, o);
        }
        return GCH_OK;
    default:
        return GCH_OK;
    }
}

static gch_status emit_rows(wctx *w, const dart_type *types)
{
    const gch_heap *h = w->h;
    for (uint32_t t = 0; t < h->type_count; t++) {
        const dart_type *d = &types[t];
        gch_waste_row *r;
        if (d->empty) {
            if (!(r = waste_row(w, GCH_WASTE_EMPTY)))
                return GCH_ENOMEM;
            r->type = t;
            r->object = d->first_empty;
            r->count = d->empty;
            r->bytes = r->wasted = d->empty_bytes;
        }
        if (d->under) {
            if (!(r = waste_row(w, GCH_WASTE_UNDERFILLED)))
                return GCH_ENOMEM;
            r->type = t;
            r->object = d->first_under;
            r->count = d->under;
            r->bytes = d->under_bytes;
            r->used = d->used;
            r->capacity = d->capacity;
            r->wasted = d->wasted;
        }
        if (d->zero && d->zero >= w->min_count) {
            if (!(r = waste_row(w, GCH_WASTE_ZERO_ARRAYS)))
                return GCH_ENOMEM;
            r->type = t;
            r->object = d->first_zero;
            r->count = d->zero;
            r->bytes = d->zero_bytes;
            r->copy = gch_object_size(h, d->first_zero);
            r->wasted = r->bytes - r->copy;
        }
    }
    return GCH_OK;
}

gch_status waste_dart_lengths(wctx *w)
{
    const gch_heap *h = w->h;
    dart_type *types = gch_calloc(h->type_count ? h->type_count : 1, sizeof *types);
    uint32_t *empties = NULL;
    size_t nempty = 0, cap_empty = 0;
    if (!types)
        return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
    gch_status st = GCH_OK;
    for (size_t i = 0; i < h->payload_count && st == GCH_OK; i++)
        st = visit(w, types, i, &empties, &nempty, &cap_empty);
    if (st == GCH_OK)
        st = emit_rows(w, types);
    if (st == GCH_OK && w->o->holders)
        st = waste_find_holders(w, empties, nempty);
    gch_free(types);
    gch_free(empties);
    return st;
}
