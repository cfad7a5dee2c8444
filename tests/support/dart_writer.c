/* Test-only Dart heap snapshot writer: see dart_writer.h. */
#include "dart_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "dart_writer: out of memory\n");
        abort();
    }
    return q;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xrealloc(NULL, n);
    memcpy(d, s, n);
    return d;
}

#define PUSH(arr, count, cap, value)                                   \
    do {                                                               \
        if ((count) == (cap)) {                                        \
            (cap) = (cap) ? (cap) * 2 : 8;                             \
            (arr) = xrealloc((arr), (cap) * sizeof *(arr));            \
        }                                                              \
        (arr)[(count)++] = (value);                                    \
    } while (0)

/* ---- byte buffer ---- */

void dtw_buf_free(dtw_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void dtw_put_bytes(dtw_buf *b, const void *p, size_t n)
{
    if (b->size + n > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->size + n)
            cap *= 2;
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
    }
    if (n)
        memcpy(b->data + b->size, p, n);
    b->size += n;
}

void dtw_put_byte(dtw_buf *b, unsigned char v) { dtw_put_bytes(b, &v, 1); }

void dtw_put_uleb(dtw_buf *b, uint64_t v)
{
    do {
        unsigned char part = v & 0x7f;
        v >>= 7;
        if (v)
            part |= 0x80;
        dtw_put_byte(b, part);
    } while (v);
}

/* As the VM's WriteSigned: stop when the rest is all sign. */
void dtw_put_sleb(dtw_buf *b, int64_t v)
{
    for (;;) {
        unsigned char part = (unsigned char)((uint64_t)v & 0x7f);
        /* Arithmetic shift written portably. */
        v = v < 0 ? -1 - (int64_t)((uint64_t)(-1 - v) >> 7) : (int64_t)((uint64_t)v >> 7);
        if ((v == 0 && !(part & 0x40)) || (v == -1 && (part & 0x40))) {
            dtw_put_byte(b, part);
            return;
        }
        dtw_put_byte(b, part | 0x80);
    }
}

void dtw_put_string(dtw_buf *b, const char *s)
{
    size_t n = strlen(s);
    dtw_put_uleb(b, n);
    dtw_put_bytes(b, s, n);
}

/* ---- model ---- */

typedef struct field {
    uint64_t index;
    char *name;
} field;

typedef struct klass {
    char *name, *library_name, *uri;
    field *fields;
    size_t field_count, field_cap;
} klass;

typedef struct object {
    uint64_t class_id, size;
    int tag;
    uint64_t raw_tag;  /* written instead of the data when tag is -1 */
    uint64_t u;        /* bool, length, full string length */
    int64_t i;
    double d;
    char *str;         /* latin1 bytes or name */
    uint16_t *units;   /* utf16 */
    size_t unit_count;
    uint64_t *refs;
    size_t ref_count, ref_cap;
    uint64_t hash;
} object;

typedef struct property {
    uint64_t object, size;
    char *name;
} property;

struct dtw {
    char *name;
    uint64_t flags;
    int has_shallow, has_capacity, has_external;
    uint64_t shallow, capacity, external;
    int64_t ref_slack;
    klass *classes;
    size_t class_count, class_cap;
    object *objects;
    size_t object_count, object_cap;
    property *props;
    size_t prop_count, prop_cap;
    int vm_layout;
    size_t isolate_count;
};

dtw *dtw_new(const char *name)
{
    dtw *w = xrealloc(NULL, sizeof *w);
    memset(w, 0, sizeof *w);
    w->name = xstrdup(name);
    return w;
}

dtw *dtw_new_vm(const char *name, const char *const *isolate_names, size_t isolate_count,
                const char *const *static_fields, size_t static_field_count)
{
    dtw *w = dtw_new(name);
    w->vm_layout = 1;
    w->isolate_count = isolate_count;
    dtw_class(w, "Root", "", "");
    dtw_class(w, "Read-Only Pages", "", "");
    uint64_t iso = dtw_class(w, "Isolate", "", "");
    for (size_t i = 0; i < static_field_count; i++)
        dtw_field(w, iso, i, static_fields[i] ? static_fields[i] : "");
    dtw_object(w, 1, 0);
    dtw_object(w, 2, 0);
    for (size_t i = 0; i < isolate_count; i++)
        dtw_data_name(w, dtw_object(w, iso, 0), isolate_names[i]);
    return w;
}

void dtw_free(dtw *w)
{
    if (!w)
        return;
    for (size_t c = 0; c < w->class_count; c++) {
        klass *k = &w->classes[c];
        free(k->name);
        free(k->library_name);
        free(k->uri);
        for (size_t f = 0; f < k->field_count; f++)
            free(k->fields[f].name);
        free(k->fields);
    }
    for (size_t o = 0; o < w->object_count; o++) {
        free(w->objects[o].str);
        free(w->objects[o].units);
        free(w->objects[o].refs);
    }
    for (size_t p = 0; p < w->prop_count; p++)
        free(w->props[p].name);
    free(w->classes);
    free(w->objects);
    free(w->props);
    free(w->name);
    free(w);
}

void dtw_set_flags(dtw *w, uint64_t flags) { w->flags = flags; }
void dtw_set_shallow_size(dtw *w, uint64_t v) { w->shallow = v; w->has_shallow = 1; }
void dtw_set_capacity(dtw *w, uint64_t v) { w->capacity = v; w->has_capacity = 1; }
void dtw_set_external_size(dtw *w, uint64_t v) { w->external = v; w->has_external = 1; }
void dtw_set_reference_slack(dtw *w, int64_t extra) { w->ref_slack = extra; }

uint64_t dtw_class(dtw *w, const char *name, const char *library_name, const char *library_uri)
{
    klass k;
    memset(&k, 0, sizeof k);
    k.name = xstrdup(name);
    k.library_name = xstrdup(library_name);
    k.uri = xstrdup(library_uri);
    PUSH(w->classes, w->class_count, w->class_cap, k);
    return w->class_count;
}

void dtw_field(dtw *w, uint64_t class_id, uint64_t index, const char *name)
{
    klass *k = &w->classes[class_id - 1];
    field f = { index, xstrdup(name) };
    PUSH(k->fields, k->field_count, k->field_cap, f);
}

uint64_t dtw_object(dtw *w, uint64_t class_id, uint64_t size)
{
    object o;
    memset(&o, 0, sizeof o);
    o.class_id = class_id;
    o.size = size;
    o.tag = DTW_NO_DATA;
    PUSH(w->objects, w->object_count, w->object_cap, o);
    return w->object_count;
}

static object *obj_at(dtw *w, uint64_t id) { return &w->objects[id - 1]; }

static object *reset_data(dtw *w, uint64_t id, int tag)
{
    object *o = obj_at(w, id);
    free(o->str);
    free(o->units);
    o->str = NULL;
    o->units = NULL;
    o->tag = tag;
    return o;
}

void dtw_data_null(dtw *w, uint64_t obj) { reset_data(w, obj, DTW_NULL); }
void dtw_data_bool(dtw *w, uint64_t obj, int value) { reset_data(w, obj, DTW_BOOL)->u = value ? 1 : 0; }
void dtw_data_int(dtw *w, uint64_t obj, int64_t value) { reset_data(w, obj, DTW_INT)->i = value; }
void dtw_data_double(dtw *w, uint64_t obj, double value) { reset_data(w, obj, DTW_DOUBLE)->d = value; }
void dtw_data_length(dtw *w, uint64_t obj, uint64_t length) { reset_data(w, obj, DTW_LENGTH)->u = length; }

void dtw_data_latin1(dtw *w, uint64_t obj, const char *s, uint64_t full_length)
{
    object *o = reset_data(w, obj, DTW_LATIN1);
    o->str = xstrdup(s);
    o->u = full_length;
}

void dtw_data_utf16(dtw *w, uint64_t obj, const uint16_t *units, size_t n, uint64_t full_length)
{
    object *o = reset_data(w, obj, DTW_UTF16);
    o->units = xrealloc(NULL, n * sizeof *units);
    if (n)
        memcpy(o->units, units, n * sizeof *units);
    o->unit_count = n;
    o->u = full_length;
}

void dtw_data_name(dtw *w, uint64_t obj, const char *name)
{
    object *o = reset_data(w, obj, DTW_NAME);
    o->str = xstrdup(name);
}

void dtw_data_raw_tag(dtw *w, uint64_t obj, uint64_t tag) { reset_data(w, obj, -1)->raw_tag = tag; }

void dtw_ref(dtw *w, uint64_t obj, uint64_t target)
{
    object *o = obj_at(w, obj);
    PUSH(o->refs, o->ref_count, o->ref_cap, target);
}

void dtw_property(dtw *w, uint64_t obj, uint64_t size, const char *name)
{
    property p = { obj, size, xstrdup(name) };
    PUSH(w->props, w->prop_count, w->prop_cap, p);
}

void dtw_hash(dtw *w, uint64_t obj, uint64_t hash) { obj_at(w, obj)->hash = hash; }

/* ---- writing ---- */

/* References the root gets after the test's own (VM layout only). */
static size_t extra_root_refs(const dtw *w, uint64_t id)
{
    return w->vm_layout && id == 1 ? 1 + w->isolate_count : 0;
}

static void write_class(const klass *k, dtw_buf *out)
{
    dtw_put_uleb(out, 0); /* flags */
    dtw_put_string(out, k->name);
    dtw_put_string(out, k->library_name);
    dtw_put_string(out, k->uri);
    dtw_put_string(out, ""); /* reserved */
    dtw_put_uleb(out, k->field_count);
    for (size_t f = 0; f < k->field_count; f++) {
        dtw_put_uleb(out, 1); /* strong */
        dtw_put_uleb(out, k->fields[f].index);
        dtw_put_string(out, k->fields[f].name);
        dtw_put_string(out, ""); /* reserved */
    }
}

static void write_data(const dtw *w, const object *o, dtw_buf *out)
{
    if (o->tag < 0) {
        dtw_put_uleb(out, o->raw_tag);
        return;
    }
    dtw_put_uleb(out, (uint64_t)o->tag);
    switch (o->tag) {
    case DTW_BOOL:
    case DTW_LENGTH:
        dtw_put_uleb(out, o->u);
        break;
    case DTW_INT:
        if (strcmp(w->classes[o->class_id - 1].name, "_Mint") == 0)
            dtw_put_sleb(out, o->i);
        else
            dtw_put_uleb(out, (uint64_t)o->i); /* the 64-bit pattern */
        break;
    case DTW_DOUBLE: {
        unsigned char bytes[8];
        uint64_t bits;
        memcpy(&bits, &o->d, 8);
        for (int i = 0; i < 8; i++)
            bytes[i] = (unsigned char)(bits >> (8 * i)); /* little-endian */
        dtw_put_bytes(out, bytes, 8);
        break;
    }
    case DTW_LATIN1: {
        size_t n = strlen(o->str);
        dtw_put_uleb(out, o->u);
        dtw_put_uleb(out, n);
        dtw_put_bytes(out, o->str, n);
        break;
    }
    case DTW_UTF16:
        dtw_put_uleb(out, o->u);
        dtw_put_uleb(out, o->unit_count);
        for (size_t i = 0; i < o->unit_count; i++) {
            dtw_put_byte(out, (unsigned char)(o->units[i] & 0xff));
            dtw_put_byte(out, (unsigned char)(o->units[i] >> 8));
        }
        break;
    case DTW_NAME:
        dtw_put_string(out, o->str);
        break;
    default:
        break;
    }
}

void dtw_write(const dtw *w, int with_hash_codes, size_t padding, dtw_buf *out)
{
    uint64_t shallow = 0, external = 0, refs = 0;
    for (size_t i = 0; i < w->object_count; i++) {
        shallow += w->objects[i].size;
        refs += w->objects[i].ref_count + extra_root_refs(w, i + 1);
    }
    for (size_t i = 0; i < w->prop_count; i++)
        external += w->props[i].size;

    dtw_put_bytes(out, "dartheap", 8);
    dtw_put_uleb(out, w->flags);
    dtw_put_string(out, w->name);
    dtw_put_uleb(out, w->has_shallow ? w->shallow : shallow);
    dtw_put_uleb(out, w->has_capacity ? w->capacity : shallow);
    dtw_put_uleb(out, w->has_external ? w->external : external);

    dtw_put_uleb(out, w->class_count);
    for (size_t c = 0; c < w->class_count; c++)
        write_class(&w->classes[c], out);

    dtw_put_uleb(out, refs + (uint64_t)w->ref_slack);
    dtw_put_uleb(out, w->object_count);
    for (size_t i = 0; i < w->object_count; i++) {
        const object *o = &w->objects[i];
        dtw_put_uleb(out, o->class_id);
        dtw_put_uleb(out, o->size);
        write_data(w, o, out);
        size_t extra = extra_root_refs(w, i + 1);
        dtw_put_uleb(out, o->ref_count + extra);
        for (size_t r = 0; r < o->ref_count; r++)
            dtw_put_uleb(out, o->refs[r]);
        for (size_t r = 0; r < extra; r++)
            dtw_put_uleb(out, 2 + r); /* read-only pages, then the isolates */
    }

    dtw_put_uleb(out, w->prop_count);
    for (size_t p = 0; p < w->prop_count; p++) {
        dtw_put_uleb(out, w->props[p].object);
        dtw_put_uleb(out, w->props[p].size);
        dtw_put_string(out, w->props[p].name);
    }

    if (with_hash_codes)
        for (size_t i = 0; i < w->object_count; i++)
            dtw_put_uleb(out, w->objects[i].hash);
    for (size_t i = 0; i < padding; i++)
        dtw_put_byte(out, 0);
}
