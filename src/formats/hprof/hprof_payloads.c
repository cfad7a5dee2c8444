/* Payloads (gch_load_options.keep_payloads): where each primitive array's
 * elements lie in the buffer, and each java.lang.String's value array and
 * coder, so that a command can show string contents or hash arrays later by
 * reading those bytes, without the reader copying them (docs/hprof-format.md,
 * "Strings and primitive arrays"). Nothing here runs without the option. */
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"
#include "hprof_internal.h"

/* Finds the offset of String's field called name (of basic type `type`, or
 * either object type when type is HP_T_OBJECT) in its instance field bytes,
 * or -1. */
static int64_t string_field_at(const hprof_reader *r, const char *name, unsigned type)
{
    size_t len = strlen(name);
    int64_t at = 0;
    for (uint32_t c = r->string_class; c != HP_NONE; c = r->classes[c].super_index) {
        const hp_field *f = r->layout + r->classes[c].layout_first;
        for (uint32_t i = 0; i < r->classes[c].field_count; i++, f++) {
            uint32_t n;
            const char *s = hp_string_get(r, f->name_id, &n);
            int object = f->type == HP_T_OBJECT || f->type == HP_T_ARRAY_OBJECT;
            if (s && n == len && memcmp(s, name, len) == 0 &&
                (type == HP_T_OBJECT ? object : f->type == type))
                return at;
            at += hp_type_size(r, f->type);
        }
    }
    return -1;
}

/* Whether class c or one of its superclasses is named in the caller's list
 * (every class when there is no list). */
static int wanted_class(const hprof_reader *r, uint32_t c)
{
    const char *const *want = r->opts->field_classes;
    if (!want)
        return 1;
    for (unsigned depth = 0; c != HP_NONE && depth < 256; c = r->classes[c].super_index, depth++)
        for (size_t i = 0; want[i]; i++)
            if (strcmp(r->names + r->classes[c].name, want[i]) == 0)
                return 1;
    return 0;
}

void hp_payloads_prepare(hprof_reader *r)
{
    if (r->opts->keep_fields)
        for (size_t i = 0; i < r->class_count; i++)
            r->classes[i].keep_fields = (uint8_t)wanted_class(r, (uint32_t)i);
    r->string_class = HP_NONE;
    r->string_value_at = r->string_coder_at = -1;
    for (size_t i = 0; i < r->class_count; i++) {
        uint32_t len;
        const char *s = r->classes[i].name_id ? hp_string_get(r, r->classes[i].name_id, &len) : NULL;
        if (s && len == 16 && memcmp(s, "java/lang/String", 16) == 0) {
            r->string_class = (uint32_t)i;
            break;
        }
    }
    if (r->string_class == HP_NONE)
        return;
    r->string_value_at = string_field_at(r, "value", HP_T_OBJECT);
    r->string_coder_at = string_field_at(r, "coder", HP_T_BYTE);
}

static gch_payload *new_entry(hprof_reader *r)
{
    if (r->payload_count == r->payload_cap &&
        !gch_grow((void **)&r->payloads, &r->payload_cap, r->payload_count + 1, sizeof *r->payloads,
                  1024))
        return NULL;
    gch_payload *p = &r->payloads[r->payload_count++];
    memset(p, 0, sizeof *p);
    return p;
}

/* An array's entry: its id and length sit at the same offsets in both
 * array records; the element type and where the elements start do not. */
static gch_status array_entry(hprof_reader *r, size_t off, uint8_t elem, size_t elements_at)
{
    const unsigned char *d = r->data + off + 1;
    gch_payload *p = new_entry(r);
    if (!p)
        return hp_oom(r);
    p->kind = GCH_PAYLOAD_ARRAY;
    p->id = hp_id(r, d);
    p->length = hp_u4(d + r->id_size + 4);
    p->elem = elem;
    p->offset = off + 1 + elements_at;
    return GCH_OK;
}

gch_status hp_payload_array(hprof_reader *r, size_t off)
{
    return array_entry(r, off, r->data[off + 1 + r->id_size + 8], r->id_size + 9);
}

gch_status hp_payload_object_array(hprof_reader *r, size_t off)
{
    return array_entry(r, off, GCH_ELEM_OBJECT, 2 * (size_t)r->id_size + 8);
}

gch_status hp_payload_instance(hprof_reader *r, uint64_t id, size_t fields, uint32_t bytes)
{
    gch_payload *p = new_entry(r);
    if (!p)
        return hp_oom(r);
    p->kind = GCH_PAYLOAD_INSTANCE;
    p->id = id;
    p->offset = fields;
    p->length = bytes;
    return GCH_OK;
}

gch_status hp_payload_string(hprof_reader *r, uint64_t id, const unsigned char *fields)
{
    if (r->string_value_at < 0)
        return GCH_OK; /* a String class without a value field: nothing to point at */
    gch_payload *p = new_entry(r);
    if (!p)
        return hp_oom(r);
    p->kind = GCH_PAYLOAD_STRING;
    p->id = id;
    p->value = hp_id(r, fields + r->string_value_at);
    p->coder = r->string_coder_at < 0 ? GCH_CODER_NONE
             : fields[r->string_coder_at] == 0 ? GCH_CODER_LATIN1 : GCH_CODER_UTF16;
    return GCH_OK;
}

/* Stable merge sort by id (the first of equal ids must stay first). */
static int sort_by_id(gch_payload *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (a[i - 1].id > a[i].id)
            goto unsorted;
    return 1; /* objects came in id order: the usual case */
unsorted:;
    gch_payload *tmp = gch_reallocarray(NULL, n, sizeof *tmp);
    if (!tmp)
        return 0;
    gch_payload *src = a, *dst = tmp;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = src[j].id < src[i].id ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        gch_payload *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
    gch_free(tmp);
    return 1;
}

/* The field table of every type of heap (gch_heap.fields): for a type
 * declared by a class dump, its instance fields through its superclasses, in
 * the order an instance dump writes their values. */
static gch_status attach_fields(hprof_reader *r, gch_heap *heap)
{
    size_t count = 0, name_bytes = 0;
    for (uint32_t t = 0; t < heap->type_count; t++) {
        uint32_t k = hp_class_find(r, heap->type_raw_id[t]);
        for (unsigned depth = 0; k != HP_NONE && depth < 256; k = r->classes[k].super_index, depth++) {
            count += r->classes[k].field_count;
            const hp_field *f = r->layout + r->classes[k].layout_first;
            for (uint32_t i = 0; i < r->classes[k].field_count; i++, f++) {
                uint32_t n = 0;
                hp_string_get(r, f->name_id, &n);
                name_bytes += (size_t)n + 1;
            }
        }
    }
    heap->type_fields = gch_reallocarray(NULL, (size_t)heap->type_count + 1, sizeof *heap->type_fields);
    heap->fields = gch_reallocarray(NULL, count ? count : 1, sizeof *heap->fields);
    heap->field_names = gch_malloc(name_bytes ? name_bytes : 1);
    if (!heap->type_fields || !heap->fields || !heap->field_names || count > UINT32_MAX)
        return hp_oom(r);
    size_t w = 0, at_name = 0;
    for (uint32_t t = 0; t < heap->type_count; t++) {
        heap->type_fields[t] = (uint32_t)w;
        uint32_t k = hp_class_find(r, heap->type_raw_id[t]);
        uint64_t at = 0;
        for (unsigned depth = 0; k != HP_NONE && depth < 256; k = r->classes[k].super_index, depth++) {
            const hp_field *f = r->layout + r->classes[k].layout_first;
            for (uint32_t i = 0; i < r->classes[k].field_count; i++, f++) {
                uint32_t n = 0;
                const char *s = hp_string_get(r, f->name_id, &n);
                gch_field *g = &heap->fields[w++];
                g->name = heap->field_names + at_name;
                if (s)
                    memcpy(heap->field_names + at_name, s, n);
                else
                    n = 0;
                heap->field_names[at_name + n] = '\0';
                at_name += (size_t)n + 1;
                g->type = f->type == HP_T_ARRAY_OBJECT ? HP_T_OBJECT : f->type;
                g->size = (uint8_t)hp_type_size(r, f->type);
                g->offset = at > UINT32_MAX ? UINT32_MAX : (uint32_t)at;
                at += g->size;
            }
        }
    }
    heap->type_fields[heap->type_count] = (uint32_t)w;
    return GCH_OK;
}

gch_status hp_payloads_attach(hprof_reader *r, gch_heap *heap)
{
    if (r->opts->keep_fields && attach_fields(r, heap) != GCH_OK)
        return GCH_ENOMEM;
    size_t n = r->payload_count;
    if (!sort_by_id(r->payloads, n))
        return hp_oom(r);
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (w == 0 || r->payloads[i].id != r->payloads[w - 1].id)
            r->payloads[w++] = r->payloads[i];
    gch_payload *shrunk = w ? gch_reallocarray(r->payloads, w, sizeof *shrunk) : NULL;
    if (w && !shrunk)
        shrunk = r->payloads;
    if (!w)
        gch_free(r->payloads);
    heap->payloads = shrunk;
    heap->payload_count = w;
    heap->payloads_kept = 1;
    r->payloads = NULL;
    r->payload_count = r->payload_cap = 0;
    return GCH_OK;
}
