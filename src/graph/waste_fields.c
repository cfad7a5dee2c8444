/* Empty and under-filled collections and boxed primitives (gcheap/waste.h),
 * from instance fields read back from the dump. Which fields hold a
 * collection's size and its backing array is Eclipse MAT's table
 * (org.eclipse.mat.internal.collectionextract.KnownCollectionInfo, the
 * OpenJDK 8+ rows); docs/waste.md. Instances are visited in file order so
 * that their field bytes come through the read window. */
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "waste_internal.h"

typedef enum { C_SIZE_ARRAY, C_HEAD_TAIL, C_SIZE_ONLY, C_INNER, C_ARRAY_ONLY, C_BOX } coll_kind;

typedef struct coll_rule {
    const char *cls;
    coll_kind kind;
    const char *size;    /* the int field counting entries (C_HEAD_TAIL: head) */
    const char *array;   /* the backing array (C_INNER: the inner map) */
    const char *tail;    /* C_HEAD_TAIL: tail */
    unsigned slots;      /* array slots an entry takes (IdentityHashMap: 2) */
} coll_rule;

/* Order matters for subclasses, matched by their fields: the first rule
 * whose fields a type has applies. */
static const coll_rule rules[] = {
    { "java.util.ArrayList", C_SIZE_ARRAY, "size", "elementData", NULL, 1 },
    { "java.util.Vector", C_SIZE_ARRAY, "elementCount", "elementData", NULL, 1 },
    { "java.util.PriorityQueue", C_SIZE_ARRAY, "size", "queue", NULL, 1 },
    { "java.util.ArrayDeque", C_HEAD_TAIL, "head", "elements", "tail", 1 },
    { "java.util.IdentityHashMap", C_SIZE_ARRAY, "size", "table", NULL, 2 },
    { "java.util.concurrent.ConcurrentHashMap", C_SIZE_ARRAY, "baseCount", "table", NULL, 1 },
    { "java.util.Hashtable", C_SIZE_ARRAY, "count", "table", NULL, 1 },
    { "java.util.HashMap", C_SIZE_ARRAY, "size", "table", NULL, 1 },
    { "java.util.WeakHashMap", C_SIZE_ARRAY, "size", "table", NULL, 1 },
    { "java.util.HashSet", C_INNER, NULL, "map", NULL, 1 },
    { "java.util.TreeSet", C_INNER, NULL, "m", NULL, 1 },
    { "java.util.TreeMap", C_SIZE_ONLY, "size", NULL, NULL, 1 },
    { "java.util.LinkedList", C_SIZE_ONLY, "size", NULL, NULL, 1 },
    { "java.util.concurrent.CopyOnWriteArrayList", C_ARRAY_ONLY, NULL, "array", NULL, 1 },
    /* Boxes: one "value" field; equal values are duplicates. */
    { "java.lang.Integer", C_BOX, "value", NULL, NULL, 0 },
    { "java.lang.Long", C_BOX, "value", NULL, NULL, 0 },
    { "java.lang.Short", C_BOX, "value", NULL, NULL, 0 },
    { "java.lang.Byte", C_BOX, "value", NULL, NULL, 0 },
    { "java.lang.Character", C_BOX, "value", NULL, NULL, 0 },
    { "java.lang.Boolean", C_BOX, "value", NULL, NULL, 0 },
    { "java.lang.Float", C_BOX, "value", NULL, NULL, 0 },
    { "java.lang.Double", C_BOX, "value", NULL, NULL, 0 },
};
#define NRULES (sizeof rules / sizeof *rules)

/* The classes of rules (test_waste checks that the two lists agree). */
static const char *const field_classes[] = {
    "java.util.ArrayList", "java.util.Vector", "java.util.PriorityQueue", "java.util.ArrayDeque",
    "java.util.IdentityHashMap", "java.util.concurrent.ConcurrentHashMap", "java.util.Hashtable",
    "java.util.HashMap", "java.util.WeakHashMap", "java.util.HashSet", "java.util.TreeSet",
    "java.util.TreeMap", "java.util.LinkedList", "java.util.concurrent.CopyOnWriteArrayList",
    "java.lang.Integer", "java.lang.Long", "java.lang.Short", "java.lang.Byte",
    "java.lang.Character", "java.lang.Boolean", "java.lang.Float", "java.lang.Double", NULL
};

const char *const *gch_waste_field_classes(void)
{
    return field_classes;
}

/* A type's fields for its rule (NULL fields where the rule has none). */
typedef struct type_info {
    int rule;            /* index into rules, -1 none */
    const gch_field *size, *array, *tail;
    /* Totals. */
    uint64_t empty, empty_bytes, under, under_bytes, used, capacity, wasted;
    uint32_t first_empty, first_under;
    uint64_t *values;    /* boxes */
    size_t nvalues, cap;
    uint32_t first_box;
    uint64_t box_bytes;
} type_info;

static int has_fields(const gch_heap *h, uint32_t t, const coll_rule *r, type_info *ti)
{
    ti->size = r->size ? gch_type_field(h, t, r->size) : NULL;
    ti->array = r->array ? gch_type_field(h, t, r->array) : NULL;
    ti->tail = r->tail ? gch_type_field(h, t, r->tail) : NULL;
    int ints = r->kind == C_BOX || ((!r->size || (ti->size && ti->size->type == GCH_ELEM_INT)) &&
                                    (!r->tail || (ti->tail && ti->tail->type == GCH_ELEM_INT)));
    return ints && (!r->size || ti->size) && (!r->array || (ti->array && ti->array->type == GCH_ELEM_OBJECT));
}

static void resolve_type(const gch_heap *h, uint32_t t, type_info *ti)
{
    ti->rule = -1;
    const char *name = gch_type_name(h, t);
    for (size_t i = 0; i < NRULES; i++)
        if (strcmp(name, rules[i].cls) == 0) {
            if (has_fields(h, t, &rules[i], ti))
                ti->rule = (int)i;
            return;
        }
    for (size_t i = 0; i < NRULES; i++) /* a subclass: the first rule whose fields it has */
        if (rules[i].kind != C_BOX && has_fields(h, t, &rules[i], ti)) {
            ti->rule = (int)i;
            return;
        }
}

static uint64_t field_at(const unsigned char *fields, const gch_field *f)
{
    return waste_be(fields + f->offset, f->size);
}

/* The backing array (an object array) with id: its slots and bytes. */
static void array_of(const wctx *w, uint64_t id, uint64_t *slots, uint64_t *bytes)
{
    const gch_payload *a = id ? gch_heap_payload(w->h, id) : NULL;
    uint32_t o = a && a->kind == GCH_PAYLOAD_ARRAY ? waste_object_of(w, a) : GCH_NONE;
    *slots = o != GCH_NONE ? a->length : 0;
    /* A zero-length array is not the collection's own: the JDK shares one
     * (ArrayList.EMPTY_ELEMENTDATA and the like). */
    *bytes = o != GCH_NONE && a->length ? gch_object_size(w->h, o) : 0;
}

/* Reads the size, capacity, the bytes a collection owns beyond its own and
 * those of its backing array alone (fields: its field bytes). *ok = 0 when
 * they cannot be told. */
static gch_status measure(wctx *w, type_info *types, const type_info *ti, const unsigned char *fields,
                          uint64_t *size, uint64_t *cap, uint64_t *owned, uint64_t *backing, int *ok,
                          uint8_t *inner)
{
    const coll_rule *r = &rules[ti->rule];
    *ok = 1;
    *size = *cap = *owned = *backing = 0;
    uint64_t slots = 0;
    switch (r->kind) {
    case C_SIZE_ARRAY:
    case C_HEAD_TAIL:
        array_of(w, field_at(fields, ti->array), &slots, owned);
        *backing = *owned;
        *cap = slots / r->slots;
        if (r->kind == C_SIZE_ARRAY) {
            int32_t s = (int32_t)(uint32_t)field_at(fields, ti->size);
            *ok = s >= 0;
            *size = s >= 0 ? (uint64_t)s : 0;
        } else {
            int64_t head = (int32_t)(uint32_t)field_at(fields, ti->size);
            int64_t tail = (int32_t)(uint32_t)field_at(fields, ti->tail);
            int64_t s = tail - head;
            if (s < 0)
                s += (int64_t)slots;
            *ok = s >= 0 && (uint64_t)s <= slots;
            *size = *ok ? (uint64_t)s : 0;
        }
        return GCH_OK;
    case C_SIZE_ONLY: {
        int32_t s = (int32_t)(uint32_t)field_at(fields, ti->size);
        *ok = s >= 0;
        *size = s >= 0 ? (uint64_t)s : 0;
        return GCH_OK;
    }
    case C_ARRAY_ONLY:
        array_of(w, field_at(fields, ti->array), &slots, owned);
        *backing = *owned;
        *size = *cap = slots;
        return GCH_OK;
    case C_INNER: {
        /* HashSet -> its HashMap, TreeSet -> its TreeMap: the inner map's
         * size; its bytes and its table's are the set's. */
        const gch_payload *m = gch_heap_payload(w->h, field_at(fields, ti->array));
        uint32_t mo = waste_object_of(w, m);
        const type_info *mi = mo != GCH_NONE ? &types[w->h->object_type[mo]] : NULL;
        if (!mi || mi->rule < 0 || m->kind != GCH_PAYLOAD_INSTANCE || rules[mi->rule].kind == C_INNER ||
            rules[mi->rule].kind == C_BOX || m->length > 65536) {
            *ok = 0;
            return GCH_OK;
        }
        unsigned char buf[65536];
        gch_status st = waste_read(w, m->offset, buf, m->length);
        if (st != GCH_OK)
            return st;
        uint64_t inner_owned;
        if ((st = measure(w, types, mi, buf, size, cap, &inner_owned, backing, ok, NULL)) != GCH_OK)
            return st;
        if (inner) /* the set's: not counted again as a map of its own */
            inner[m - w->h->payloads] = 1;
        *owned = gch_object_size(w->h, mo) + inner_owned;
        return GCH_OK;
    }
    case C_BOX:
        break;
    }
    *ok = 0;
    return GCH_OK;
}

/* The instance entries to visit, in file order. */
typedef struct visit {
    uint64_t offset;
    uint32_t pay;
    uint8_t set;         /* a set (C_INNER): visited first, so its inner map is known */
} visit;

static int visit_order(const void *pa, const void *pb)
{
    const visit *a = pa, *b = pb;
    if (a->set != b->set)
        return a->set > b->set ? -1 : 1;
    if (a->offset != b->offset)
        return a->offset < b->offset ? -1 : 1;
    return a->pay < b->pay ? -1 : a->pay > b->pay;
}

static int u64_order(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Adds object o of type t to the totals. */
static gch_status visit_one(wctx *w, type_info *types, uint32_t o, const gch_payload *p,
                            uint8_t *inner, uint32_t **empties, size_t *nempty, size_t *cap_empty)
{
    if (inner[p - w->h->payloads])
        return GCH_OK;
    type_info *ti = &types[w->h->object_type[o]];
    const coll_rule *r = &rules[ti->rule];
    if (p->length > WASTE_WINDOW)
        return GCH_OK;
    const unsigned char *fields;
    gch_status st = waste_window(w, p->offset, p->length, &fields);
    if (st != GCH_OK)
        return st;
    if ((uint64_t)(ti->size ? ti->size->offset + ti->size->size : 0) > p->length ||
        (uint64_t)(ti->array ? ti->array->offset + ti->array->size : 0) > p->length ||
        (uint64_t)(ti->tail ? ti->tail->offset + ti->tail->size : 0) > p->length)
        return GCH_OK;
    uint64_t own = gch_object_size(w->h, o);
    if (r->kind == C_BOX) {
        if (!gch_grow((void **)&ti->values, &ti->cap, ti->nvalues + 1, sizeof *ti->values, 64))
            return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        if (ti->nvalues == 0)
            ti->first_box = o;
        ti->values[ti->nvalues++] = field_at(fields, ti->size);
        ti->box_bytes += own;
        return GCH_OK;
    }
    uint64_t size, cap, owned, backing;
    int ok;
    if ((st = measure(w, types, ti, fields, &size, &cap, &owned, &backing, &ok, inner)) != GCH_OK || !ok)
        return st;
    if (size == 0) {
        if (ti->empty++ == 0)
            ti->first_empty = o;
        ti->empty_bytes += own + owned;
        if (w->o->holders) {
            if (!gch_grow((void **)empties, cap_empty, *nempty + 1, sizeof **empties, 256))
                return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
            (*empties)[(*nempty)++] = o;
        }
    } else if (cap > 0 && (double)size < w->fill_below * (double)cap) {
        if (ti->under++ == 0)
            ti->first_under = o;
        ti->under_bytes += own + owned;
        ti->used += size;
        ti->capacity += cap;
        /* MAT's AbstractFillRatioQuery: the backing array's bytes times the
         * share of its slots not used. */
        ti->wasted += (uint64_t)((long double)backing * (long double)(cap - size) / (long double)cap);
    }
    return GCH_OK;
}

/* A holder found for an empty collection: (collection type, holder type, label). */
typedef struct holder {
    uint32_t coll, type, label;
} holder;

static int holder_order(const void *pa, const void *pb)
{
    const holder *a = pa, *b = pb;
    if (a->coll != b->coll)
        return a->coll < b->coll ? -1 : 1;
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    return a->label < b->label ? -1 : a->label > b->label;
}

#define HOLDER_SCAN 4096 /* references of a holder searched for the field's label */

/* The field of referrer s that points to o: its label, GCH_WASTE_ELEMENT for an
 * array element ("[12]"), GCH_NONE when unknown. */
static uint32_t label_of(const gch_heap *h, uint32_t s, uint32_t o)
{
    if (!h->out_label || h->out_start[s + 1] - h->out_start[s] > HOLDER_SCAN)
        return GCH_NONE;
    for (uint32_t e = h->out_start[s]; e < h->out_start[s + 1]; e++)
        if (h->out_target[e] == o) {
            uint32_t l = h->out_label[e];
            return l != GCH_NONE && gch_heap_string(h, l)[0] == '[' ? GCH_WASTE_ELEMENT : l;
        }
    return GCH_NONE;
}

/* Each empty-collection row's most frequent (holder type, field). */
gch_status waste_find_holders(wctx *w, const uint32_t *empties, size_t n)
{
    gch_heap *h = w->h;
    if (n == 0 || !h->refs_loaded)
        return GCH_OK;
    gch_status st = gch_heap_build_reverse(h, w->err);
    if (st != GCH_OK)
        return st;
    holder *list = NULL;
    size_t count = 0, cap = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t o = empties[i];
        for (uint32_t e = h->in_start[o]; e < h->in_start[o + 1]; e++) {
            uint32_t s = h->in_source[e];
            if (!gch_grow((void **)&list, &cap, count + 1, sizeof *list, 256)) {
                gch_free(list);
                return gch_error_set(w->err, GCH_ENOMEM, "out of memory");
            }
            list[count++] = (holder){ h->object_type[o], h->object_type[s], label_of(h, s, o) };
        }
    }
    if (count)
        qsort(list, count, sizeof *list, holder_order);
    for (size_t i = 0; i < count;) {
        size_t best = i, best_n = 0, j = i;
        while (j < count && list[j].coll == list[i].coll) {
            size_t k = j;
            while (k < count && holder_order(&list[k], &list[j]) == 0)
                k++;
            if (k - j > best_n) {
                best = j;
                best_n = k - j;
            }
            j = k;
        }
        for (size_t r = 0; r < w->count; r++)
            if (w->rows[r].kind == GCH_WASTE_EMPTY && w->rows[r].type == list[best].coll) {
                w->rows[r].holder_type = list[best].type;
                w->rows[r].holder_label = list[best].label;
                w->rows[r].holder_count = best_n;
            }
        i = j;
    }
    gch_free(list);
    return GCH_OK;
}

static gch_status emit_rows(wctx *w, type_info *types)
{
    const gch_heap *h = w->h;
    for (uint32_t t = 0; t < h->type_count; t++) {
        type_info *ti = &types[t];
        gch_waste_row *r;
        if (ti->empty) {
            if (!(r = waste_row(w, GCH_WASTE_EMPTY)))
                return GCH_ENOMEM;
            r->type = t;
            r->object = ti->first_empty;
            r->count = ti->empty;
            r->bytes = r->wasted = ti->empty_bytes;
        }
        if (ti->under) {
            if (!(r = waste_row(w, GCH_WASTE_UNDERFILLED)))
                return GCH_ENOMEM;
            r->type = t;
            r->object = ti->first_under;
            r->count = ti->under;
            r->bytes = ti->under_bytes;
            r->used = ti->used;
            r->capacity = ti->capacity;
            r->wasted = ti->wasted;
        }
        if (ti->nvalues >= w->min_count) {
            qsort(ti->values, ti->nvalues, sizeof *ti->values, u64_order);
            uint64_t distinct = 0;
            for (size_t i = 0; i < ti->nvalues; i++)
                distinct += i == 0 || ti->values[i] != ti->values[i - 1];
            if (distinct < ti->nvalues) {
                if (!(r = waste_row(w, GCH_WASTE_BOXED)))
                    return GCH_ENOMEM;
                r->type = t;
                r->object = ti->first_box;
                r->count = ti->nvalues;
                r->distinct = distinct;
                r->bytes = ti->box_bytes;
                r->copy = gch_object_size(h, ti->first_box);
                /* One instance a distinct value would do. */
                r->wasted = ti->box_bytes - (uint64_t)((long double)ti->box_bytes * distinct / ti->nvalues);
            }
        }
    }
    return GCH_OK;
}

gch_status waste_fields(wctx *w, gch_waste *out)
{
    (void)out;
    gch_heap *h = w->h;
    type_info *types = gch_calloc(h->type_count ? h->type_count : 1, sizeof *types);
    visit *v = gch_reallocarray(NULL, h->payload_count ? h->payload_count : 1, sizeof *v);
    uint8_t *resolved = gch_calloc(h->type_count ? h->type_count : 1, 1);
    uint8_t *inner = gch_calloc(h->payload_count ? h->payload_count : 1, 1);
    uint32_t *empties = NULL;
    size_t nv = 0, nempty = 0, cap_empty = 0;
    gch_status st = GCH_OK;
    if (!types || !v || !resolved || !inner) {
        st = gch_error_set(w->err, GCH_ENOMEM, "out of memory");
        goto done;
    }
    w->limit = 0;
    for (size_t i = 0; i < h->payload_count; i++) {
        const gch_payload *p = &h->payloads[i];
        uint32_t o = w->pidx[i];
        if (p->kind != GCH_PAYLOAD_INSTANCE || !waste_wanted(w, o))
            continue;
        uint32_t t = h->object_type[o];
        if (!resolved[t]) {
            resolve_type(h, t, &types[t]);
            resolved[t] = 1;
        }
        if (types[t].rule < 0)
            continue;
        v[nv].offset = p->offset;
        v[nv].set = rules[types[t].rule].kind == C_INNER;
        v[nv++].pay = (uint32_t)i;
        if (p->offset + p->length > w->limit)
            w->limit = p->offset + p->length;
    }
    /* Inner maps are read by themselves: resolve every type they may have. */
    for (uint32_t t = 0; t < h->type_count; t++)
        if (!resolved[t])
            resolve_type(h, t, &types[t]);
    if (nv)
        qsort(v, nv, sizeof *v, visit_order);
    w->len = 0; /* the window of the duplicates' pass ended elsewhere */
    for (size_t k = 0; k < nv && st == GCH_OK; k++)
        st = visit_one(w, types, w->pidx[v[k].pay], &h->payloads[v[k].pay], inner, &empties, &nempty, &cap_empty);
    if (st == GCH_OK)
        st = emit_rows(w, types);
    if (st == GCH_OK && w->o->holders)
        st = waste_find_holders(w, empties, nempty);
done:
    if (types)
        for (uint32_t t = 0; t < h->type_count; t++)
            gch_free(types[t].values);
    gch_free(types);
    gch_free(v);
    gch_free(resolved);
    gch_free(inner);
    gch_free(empties);
    return st;
}
