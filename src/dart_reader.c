/* The Dart VM heap snapshot reader ("dartheap" binary format).
 *
 * The format as implemented, and how it maps onto the heap model, is described
 * in docs/dart-format.md. The reader decodes from one buffer in two passes:
 *
 *   1. scan: decode and check everything (header, classes, every object,
 *      external properties, identity hash codes, padding) and remember each
 *      object's class id, so that references to the synthetic objects (root,
 *      read-only pages, isolates) can be told apart before anything is built;
 *   2. emit: decode the objects again and feed the builder: heap objects with
 *      their labelled references, and the synthetic objects' references as roots.
 *
 * Every count is checked against the bytes left before anything is allocated
 * from it. Errors are GCH_EFORMAT with err->offset set to where the bad item
 * starts.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_cursor.h"
#include "gcheap/alloc.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"

#define DART_MAGIC "dartheap"
#define DART_MAGIC_LEN 8
#define REF_CHUNK 4096                 /* references handed to the builder at a time */
#define PROGRESS_EVERY 65536           /* objects between progress calls */
#define MAX_OBJECTS (UINT32_MAX - 3u)  /* what the builder can index, with room to spare */
#define NO_NAME SIZE_MAX

/* The smallest encodings, used to bound counts by the bytes left. */
#define MIN_CLASS_BYTES 6     /* flags, 4 empty strings, field count */
#define MIN_FIELD_BYTES 4     /* flags, index, 2 empty strings */
#define MIN_OBJECT_BYTES 4    /* class id, size, data tag, reference count */
#define MIN_REF_BYTES 1
#define MIN_PROPERTY_BYTES 3  /* object, size, empty name */

/* Data tags (NonReferenceData). NameData is 8 in the VM's writer. */
enum {
    TAG_NO_DATA = 0,
    TAG_NULL = 1,
    TAG_BOOL = 2,
    TAG_INT = 3,
    TAG_DOUBLE = 4,
    TAG_LATIN1 = 5,
    TAG_UTF16 = 6,
    TAG_LENGTH = 7,
    TAG_NAME = 8
};

/* What the objects of a class are: heap objects or one of the VM's synthetic
 * objects (class ids 1..3, no library), whose references are roots. */
typedef enum class_role { ROLE_HEAP, ROLE_ROOT, ROLE_READ_ONLY_PAGES, ROLE_ISOLATE } class_role;

typedef struct dart_field {
    uint64_t index;  /* 0-origin position in the object's reference list */
    size_t name;     /* offset in reader.names, or NO_NAME */
    size_t order;    /* position in the class record: ties keep the first */
} dart_field;

typedef struct dart_class {
    const char *name;  /* simple name, cut at '@'; points into the input */
    size_t name_len;
    const char *uri;   /* library URI; points into the input */
    size_t uri_len;
    size_t first_field, field_count; /* in reader.fields, sorted by index */
    class_role role;
    int is_mint;       /* "_Mint": IntData is signed LEB128 */
} dart_class;

/* One decoded object record, up to (not including) its references. */
typedef struct dart_object {
    uint64_t index;      /* 1-origin */
    uint64_t class_id;
    uint64_t size;
    uint64_t tag;
    const char *name;    /* NameData, else NULL */
    size_t name_len;
    uint64_t ref_count;
} dart_object;

typedef enum hash_state { HASH_ABSENT, HASH_PRESENT, HASH_ALL_ZERO } hash_state;

typedef struct dart_reader {
    gch_dart_cursor cur;
    const gch_load_options *opts;
    gch_builder *b;
    gch_error *err;

    /* Header. */
    uint64_t flags;
    const char *name;
    size_t name_len;
    uint64_t shallow_size, capacity, external_size;
    uint64_t class_count, reference_count, object_count;

    dart_class *classes;        /* 1..class_count */
    dart_field *fields;
    size_t field_count, field_cap;
    char *names;                /* NUL-terminated field names */
    size_t names_size, names_cap;

    uint32_t *object_class;     /* 1..object_count: class id of each object */
    size_t objects_offset;      /* where the first object record starts */

    /* Found by the scan. */
    uint64_t object_size_sum;
    uint64_t refs_in_records;   /* sum of reference counts, omitted (0) ones included */
    uint64_t synthetic_objects;
    uint64_t property_count, property_size_sum;
    hash_state hashes;
    uint64_t nonzero_hashes;
    uint64_t padding;

    /* Found while emitting. */
    uint64_t dropped_synthetic_refs;
    char *isolates;             /* "name, name" for the meta line */
    size_t isolates_len, isolates_cap;

    /* Scratch. */
    uint64_t *refs;
    const char **labels;
    size_t scratch_cap;
    char *text;
    size_t text_cap;
} dart_reader;

/* ------------------------------------------------------------------------ */
/* Errors and small helpers */

static gch_status oom(dart_reader *r)
{
    return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
}

static gch_status limit_at(dart_reader *r, size_t offset, const char *fmt, unsigned long long v)
{
    gch_error_set(r->err, GCH_ELIMIT, fmt, v);
    if (r->err) {
        r->err->has_offset = 1;
        r->err->offset = offset;
    }
    return GCH_ELIMIT;
}

/* Puts "context: " before the message of the error just recorded. */
static gch_status with_context(dart_reader *r, gch_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static gch_status with_context(dart_reader *r, gch_status st, const char *fmt, ...)
{
    if (st == GCH_OK || !r->err)
        return st;
    char context[96];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(context, sizeof context - 2, fmt, ap);
    va_end(ap);
    if (n < 0)
        return st;
    size_t prefix = strlen(context);
    memcpy(context + prefix, ": ", 2);
    prefix += 2;
    /* Shift the message right (cutting its end) and put the context first. */
    char *msg = r->err->message;
    size_t cap = sizeof r->err->message, len = strlen(msg);
    if (prefix + len > cap - 1)
        len = cap - 1 - prefix;
    memmove(msg + prefix, msg, len);
    memcpy(msg, context, prefix);
    msg[prefix + len] = '\0';
    return st;
}

static size_t cut_at(const char *s, size_t len, char stop)
{
    const char *p = memchr(s, stop, len);
    return p ? (size_t)(p - s) : len;
}

static int grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return 0;
        ncap *= 2;
    }
    void *np = gch_reallocarray(*p, ncap, elem);
    if (!np)
        return 0;
    *p = np;
    *cap = ncap;
    return 1;
}

/* Formats into r->text, growing it as needed. Returns NULL when out of memory. */
static const char *text_printf(dart_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static const char *text_printf(dart_reader *r, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(r->text, r->text_cap, fmt, ap);
        va_end(ap);
        if (n < 0)
            return NULL;
        if ((size_t)n < r->text_cap)
            return r->text;
        if (!grow_array((void **)&r->text, &r->text_cap, (size_t)n + 1, 1))
            return NULL;
    }
}

static int mem_equals(const char *s, size_t len, const char *lit)
{
    return len == strlen(lit) && memcmp(s, lit, len) == 0;
}

/* ------------------------------------------------------------------------ */
/* Header and classes */

static gch_status read_header(dart_reader *r)
{
    gch_dart_cursor *c = &r->cur;
    const unsigned char *magic;
    if (c->size < DART_MAGIC_LEN || memcmp(c->data, DART_MAGIC, DART_MAGIC_LEN) != 0)
        return gch_dart_fail_at(c, 0, "not a Dart heap snapshot (no \"dartheap\" magic)");
    (void)gch_dart_read_bytes(c, DART_MAGIC_LEN, &magic, "magic");
    gch_status st;
    if ((st = gch_dart_read_uleb(c, &r->flags, "header flags")) != GCH_OK ||
        (st = gch_dart_read_string(c, &r->name, &r->name_len, "snapshot name")) != GCH_OK ||
        (st = gch_dart_read_uleb(c, &r->shallow_size, "header shallow size")) != GCH_OK ||
        (st = gch_dart_read_uleb(c, &r->capacity, "header capacity")) != GCH_OK ||
        (st = gch_dart_read_uleb(c, &r->external_size, "header external size")) != GCH_OK)
        return st;
    size_t at = c->pos;
    if ((st = gch_dart_read_count(c, MIN_CLASS_BYTES, &r->class_count, "class count")) != GCH_OK)
        return st;
    if (r->class_count >= UINT32_MAX)
        return limit_at(r, at, "%llu classes: more than gcheap can index",
                        (unsigned long long)r->class_count);
    return GCH_OK;
}

/* Copies a field name (cut at '@') into the names arena. */
static gch_status keep_field_name(dart_reader *r, const char *s, size_t len, size_t *out)
{
    len = cut_at(s, len, '@');
    len = cut_at(s, len, '\0');
    if (len == 0) {
        *out = NO_NAME;
        return GCH_OK;
    }
    if (!grow_array((void **)&r->names, &r->names_cap, r->names_size + len + 1, 1))
        return oom(r);
    memcpy(r->names + r->names_size, s, len);
    r->names[r->names_size + len] = '\0';
    *out = r->names_size;
    r->names_size += len + 1;
    return GCH_OK;
}

static int compare_fields(const void *pa, const void *pb)
{
    const dart_field *a = pa, *b = pb;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static gch_status read_field(dart_reader *r, dart_field *f)
{
    gch_dart_cursor *c = &r->cur;
    uint64_t flags;
    const char *name, *reserved;
    size_t name_len, reserved_len;
    gch_status st;
    if ((st = gch_dart_read_uleb(c, &flags, "field flags")) != GCH_OK ||
        (st = gch_dart_read_uleb(c, &f->index, "field index")) != GCH_OK ||
        (st = gch_dart_read_string(c, &name, &name_len, "field name")) != GCH_OK ||
        (st = gch_dart_read_string(c, &reserved, &reserved_len, "field reserved string")) != GCH_OK)
        return st;
    return keep_field_name(r, name, name_len, &f->name);
}

static class_role role_of(uint64_t class_id, const dart_class *k)
{
    if (k->uri_len != 0)
        return ROLE_HEAP;
    if (class_id == 1 && mem_equals(k->name, k->name_len, "Root"))
        return ROLE_ROOT;
    if (class_id == 2 && mem_equals(k->name, k->name_len, "Read-Only Pages"))
        return ROLE_READ_ONLY_PAGES;
    if (class_id == 3 && mem_equals(k->name, k->name_len, "Isolate"))
        return ROLE_ISOLATE;
    return ROLE_HEAP;
}

static gch_status read_class(dart_reader *r, uint64_t class_id)
{
    gch_dart_cursor *c = &r->cur;
    dart_class *k = &r->classes[class_id];
    uint64_t flags, field_count;
    const char *library_name, *reserved;
    size_t library_name_len, reserved_len;
    gch_status st;
    if ((st = gch_dart_read_uleb(c, &flags, "class flags")) != GCH_OK ||
        (st = gch_dart_read_string(c, &k->name, &k->name_len, "class name")) != GCH_OK ||
        (st = gch_dart_read_string(c, &library_name, &library_name_len, "library name")) != GCH_OK ||
        (st = gch_dart_read_string(c, &k->uri, &k->uri_len, "library URI")) != GCH_OK ||
        (st = gch_dart_read_string(c, &reserved, &reserved_len, "class reserved string")) != GCH_OK ||
        (st = gch_dart_read_count(c, MIN_FIELD_BYTES, &field_count, "field count")) != GCH_OK)
        return st;
    k->name_len = cut_at(k->name, k->name_len, '@');
    k->role = role_of(class_id, k);
    k->is_mint = mem_equals(k->name, k->name_len, "_Mint");
    k->first_field = r->field_count;
    k->field_count = (size_t)field_count;
    if (!grow_array((void **)&r->fields, &r->field_cap, r->field_count + k->field_count,
                    sizeof *r->fields))
        return oom(r);
    for (size_t i = 0; i < k->field_count; i++) {
        dart_field *f = &r->fields[k->first_field + i];
        f->order = i;
        if ((st = read_field(r, f)) != GCH_OK)
            return with_context(r, st, "field %zu", i);
    }
    r->field_count += k->field_count;
    if (k->field_count > 1)
        qsort(r->fields + k->first_field, k->field_count, sizeof *r->fields, compare_fields);
    return GCH_OK;
}

static gch_status read_classes(dart_reader *r)
{
    r->classes = gch_calloc((size_t)r->class_count + 1, sizeof *r->classes);
    if (!r->classes)
        return oom(r);
    for (uint64_t id = 1; id <= r->class_count; id++) {
        gch_status st = read_class(r, id);
        if (st != GCH_OK)
            return with_context(r, st, "class %llu", (unsigned long long)id);
    }
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* Objects */

/* Skips or captures the NonReferenceData of o. */
static gch_status read_object_data(dart_reader *r, dart_object *o)
{
    gch_dart_cursor *c = &r->cur;
    size_t at = c->pos;
    gch_status st = gch_dart_read_uleb(c, &o->tag, "data tag");
    if (st != GCH_OK)
        return st;
    uint64_t value, length, truncated;
    int64_t signed_value;
    const unsigned char *bytes;
    switch (o->tag) {
    case TAG_NO_DATA:
    case TAG_NULL:
        return GCH_OK;
    case TAG_BOOL:
        return gch_dart_read_uleb(c, &value, "bool value");
    case TAG_INT:
        if (r->classes[o->class_id].is_mint)
            return gch_dart_read_sleb(c, &signed_value, "integer value");
        return gch_dart_read_uleb(c, &value, "integer value");
    case TAG_DOUBLE:
        return gch_dart_read_bytes(c, 8, &bytes, "double value");
    case TAG_LATIN1:
    case TAG_UTF16: {
        const char *kind = o->tag == TAG_LATIN1 ? "Latin-1 string" : "UTF-16 string";
        if ((st = gch_dart_read_uleb(c, &length, "string length")) != GCH_OK)
            return st;
        size_t trunc_at = c->pos;
        if ((st = gch_dart_read_uleb(c, &truncated, "string truncated length")) != GCH_OK)
            return st;
        if (truncated > length)
            return gch_dart_fail_at(c, trunc_at, "%s: %llu code units kept of %llu", kind,
                                    (unsigned long long)truncated, (unsigned long long)length);
        uint64_t unit = o->tag == TAG_LATIN1 ? 1 : 2;
        if (truncated > gch_dart_remaining(c) / unit)
            return gch_dart_fail_at(c, c->pos, "truncated input in the %s (%llu code units)", kind,
                                    (unsigned long long)truncated);
        return gch_dart_read_bytes(c, truncated * unit, &bytes, kind);
    }
    case TAG_LENGTH:
        return gch_dart_read_uleb(c, &length, "length");
    case TAG_NAME:
        return gch_dart_read_string(c, &o->name, &o->name_len, "name");
    default:
        return gch_dart_fail_at(c, at, "unknown data tag %llu", (unsigned long long)o->tag);
    }
}

/* Decodes an object record up to its references. */
static gch_status read_object_head(dart_reader *r, uint64_t index, dart_object *o)
{
    gch_dart_cursor *c = &r->cur;
    memset(o, 0, sizeof *o);
    o->index = index;
    size_t at = c->pos;
    gch_status st = gch_dart_read_uleb(c, &o->class_id, "class id");
    if (st != GCH_OK)
        return st;
    if (o->class_id == 0)
        return gch_dart_fail_at(c, at, "class id 0 (the sentinel; class ids start at 1)");
    if (o->class_id > r->class_count)
        return gch_dart_fail_at(c, at, "class id %llu is out of range (the snapshot has %llu classes)",
                                (unsigned long long)o->class_id,
                                (unsigned long long)r->class_count);
    if ((st = gch_dart_read_uleb(c, &o->size, "shallow size")) != GCH_OK ||
        (st = read_object_data(r, o)) != GCH_OK)
        return st;
    return gch_dart_read_count(c, MIN_REF_BYTES, &o->ref_count, "reference count");
}

/* Reads reference k of o: an object index, 0 when omitted. */
static gch_status read_reference(dart_reader *r, uint64_t k, uint64_t *target)
{
    gch_dart_cursor *c = &r->cur;
    size_t at = c->pos;
    gch_status st = gch_dart_read_uleb(c, target, "reference");
    if (st != GCH_OK)
        return st;
    if (*target > r->object_count)
        return gch_dart_fail_at(c, at, "reference %llu names object %llu, but the snapshot has %llu objects",
                                (unsigned long long)k, (unsigned long long)*target,
                                (unsigned long long)r->object_count);
    return GCH_OK;
}

static int is_synthetic(const dart_reader *r, uint64_t index)
{
    return index == 1 || r->classes[r->object_class[index]].role != ROLE_HEAP;
}

static void report_progress(dart_reader *r, uint64_t bytes)
{
    if (r->opts->progress)
        r->opts->progress(r->opts->progress_ctx, bytes);
}

/* ------------------------------------------------------------------------ */
/* Pass 1: scan and check */

static gch_status scan_object(dart_reader *r, uint64_t index)
{
    dart_object o;
    gch_status st = read_object_head(r, index, &o);
    if (st != GCH_OK)
        return st;
    r->object_class[index] = (uint32_t)o.class_id;
    if (o.size > UINT64_MAX - r->object_size_sum)
        return limit_at(r, r->cur.pos, "object sizes add up to more than 2^64 bytes (at object %llu)",
                        (unsigned long long)index);
    r->object_size_sum += o.size;
    r->refs_in_records += o.ref_count; /* cannot overflow: each takes a byte */
    for (uint64_t k = 0; k < o.ref_count; k++) {
        uint64_t target;
        if ((st = read_reference(r, k, &target)) != GCH_OK)
            return st;
    }
    return GCH_OK;
}

static gch_status scan_objects(dart_reader *r)
{
    gch_dart_cursor *c = &r->cur;
    gch_status st = gch_dart_read_uleb(c, &r->reference_count, "reference count");
    if (st != GCH_OK)
        return st;
    size_t at = c->pos;
    if ((st = gch_dart_read_count(c, MIN_OBJECT_BYTES, &r->object_count, "object count")) != GCH_OK)
        return st;
    if (r->object_count > MAX_OBJECTS)
        return limit_at(r, at, "%llu objects: more than gcheap can index",
                        (unsigned long long)r->object_count);
    r->object_class = gch_calloc((size_t)r->object_count + 1, sizeof *r->object_class);
    if (!r->object_class)
        return oom(r);
    r->objects_offset = c->pos;
    for (uint64_t i = 1; i <= r->object_count; i++) {
        if ((st = scan_object(r, i)) != GCH_OK)
            return with_context(r, st, "object %llu", (unsigned long long)i);
        if (i % PROGRESS_EVERY == 0)
            report_progress(r, c->pos / 2);
    }
    for (uint64_t i = 1; i <= r->object_count; i++)
        if (is_synthetic(r, i))
            r->synthetic_objects++;
    return GCH_OK;
}

static gch_status scan_external_properties(dart_reader *r)
{
    gch_dart_cursor *c = &r->cur;
    gch_status st = gch_dart_read_count(c, MIN_PROPERTY_BYTES, &r->property_count,
                                        "external property count");
    if (st != GCH_OK)
        return st;
    for (uint64_t i = 0; i < r->property_count; i++) {
        uint64_t object, size;
        const char *name;
        size_t name_len, at = c->pos;
        if ((st = gch_dart_read_uleb(c, &object, "object")) != GCH_OK)
            return with_context(r, st, "external property %llu", (unsigned long long)i);
        if (object == 0 || object > r->object_count)
            return gch_dart_fail_at(c, at, "external property %llu: object %llu is out of range "
                                    "(the snapshot has %llu objects)", (unsigned long long)i,
                                    (unsigned long long)object, (unsigned long long)r->object_count);
        at = c->pos;
        if ((st = gch_dart_read_uleb(c, &size, "external size")) != GCH_OK ||
            (st = gch_dart_read_string(c, &name, &name_len, "name")) != GCH_OK)
            return with_context(r, st, "external property %llu", (unsigned long long)i);
        if (size > UINT64_MAX - r->property_size_sum)
            return limit_at(r, at, "external sizes add up to more than 2^64 bytes (property %llu)",
                            (unsigned long long)i);
        r->property_size_sum += size;
    }
    return GCH_OK;
}

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Identity hash codes (one uleb per object, absent in older snapshots), then
 * zero padding. A tail of zero bytes only cannot tell "no hash codes, padding"
 * from "hash codes all zero": see docs/dart-format.md. */
static gch_status scan_hash_codes(dart_reader *r)
{
    gch_dart_cursor *c = &r->cur;
    size_t rest = gch_dart_remaining(c);
    if (rest == 0) {
        r->hashes = HASH_ABSENT;
        return GCH_OK;
    }
    if (all_zero(c->data + c->pos, rest)) {
        if (r->object_count > 0 && rest >= r->object_count) {
            r->hashes = HASH_ALL_ZERO;
            r->padding = rest - r->object_count;
        } else {
            r->hashes = HASH_ABSENT;
            r->padding = rest;
        }
        c->pos = c->size;
        return GCH_OK;
    }
    r->hashes = HASH_PRESENT;
    for (uint64_t i = 1; i <= r->object_count; i++) {
        uint64_t hash;
        gch_status st = gch_dart_read_uleb(c, &hash, "identity hash code");
        if (st != GCH_OK)
            return with_context(r, st, "object %llu", (unsigned long long)i);
        if (hash)
            r->nonzero_hashes++;
    }
    for (size_t at = c->pos; at < c->size; at++)
        if (c->data[at] != 0)
            return gch_dart_fail_at(c, at, "unexpected byte 0x%02x after the identity hash codes "
                                    "(only zero padding may follow them)", c->data[at]);
    r->padding = gch_dart_remaining(c);
    c->pos = c->size;
    return GCH_OK;
}

static gch_status scan(dart_reader *r)
{
    gch_status st;
    if ((st = read_header(r)) != GCH_OK || (st = read_classes(r)) != GCH_OK ||
        (st = scan_objects(r)) != GCH_OK || (st = scan_external_properties(r)) != GCH_OK)
        return st;
    return scan_hash_codes(r);
}

/* ------------------------------------------------------------------------ */
/* Pass 2: emit */

static gch_status declare_types(dart_reader *r)
{
    for (uint64_t id = 1; id <= r->class_count; id++) {
        const dart_class *k = &r->classes[id];
        if (k->role != ROLE_HEAP)
            continue;
        const char *name;
        if (k->name_len == 0)
            name = text_printf(r, "<unnamed class %llu>", (unsigned long long)id);
        else if (k->uri_len == 0)
            name = text_printf(r, "%.*s", (int)k->name_len, k->name);
        else
            name = text_printf(r, "%.*s (%.*s)", (int)k->name_len, k->name, (int)k->uri_len, k->uri);
        if (!name)
            return oom(r);
        uint32_t type;
        gch_status st = gch_builder_add_type(r->b, id, name, strlen(name), &type, r->err);
        if (st == GCH_OK && k->uri_len)
            st = gch_builder_set_type_module(r->b, type, k->uri, k->uri_len, r->err);
        if (st != GCH_OK)
            return st;
    }
    return GCH_OK;
}

static gch_status ensure_scratch(dart_reader *r, size_t n)
{
    if (n <= r->scratch_cap)
        return GCH_OK;
    size_t cap = r->scratch_cap;
    if (!grow_array((void **)&r->refs, &cap, n, sizeof *r->refs))
        return oom(r);
    cap = r->scratch_cap;
    if (!grow_array((void **)&r->labels, &cap, n, sizeof *r->labels))
        return oom(r);
    r->scratch_cap = cap;
    return GCH_OK;
}

/* Walks a class's fields (sorted by index) alongside increasing positions. */
typedef struct field_walk {
    const dart_reader *r;
    const dart_field *next, *end;
} field_walk;

static void field_walk_init(field_walk *w, const dart_reader *r, const dart_class *k)
{
    w->r = r;
    w->next = w->end = NULL;
    if (k->field_count) {
        w->next = r->fields + k->first_field;
        w->end = w->next + k->field_count;
    }
}

/* The field name at position k (positions asked in increasing order), or NULL. */
static const char *field_walk_name(field_walk *w, uint64_t k)
{
    while (w->next < w->end && w->next->index < k)
        w->next++;
    if (w->next < w->end && w->next->index == k && w->next->name != NO_NAME)
        return w->r->names + w->next->name;
    return NULL;
}

/* Reads n references of o starting at position `from` into r->refs, with
 * references to synthetic objects replaced by 0 (dropped), and their labels
 * into r->labels when w is not NULL. */
static gch_status read_reference_chunk(dart_reader *r, uint64_t from, size_t n, field_walk *w)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t target;
        gch_status st = read_reference(r, from + i, &target);
        if (st != GCH_OK)
            return st;
        if (target != 0 && is_synthetic(r, target)) {
            r->dropped_synthetic_refs++;
            target = 0;
        }
        r->refs[i] = target;
        if (w)
            r->labels[i] = field_walk_name(w, from + i);
    }
    return GCH_OK;
}

static gch_status skip_references(dart_reader *r, const dart_object *o)
{
    for (uint64_t i = 0; i < o->ref_count; i++) {
        uint64_t target;
        gch_status st = read_reference(r, i, &target);
        if (st != GCH_OK)
            return st;
    }
    return GCH_OK;
}

/* Emits a heap object. References go to the builder in chunks; the first chunk
 * covers every position a field of the class names, because the builder's
 * chunked form takes no labels. */
static gch_status emit_heap_object(dart_reader *r, const dart_object *o)
{
    const dart_class *k = &r->classes[o->class_id];
    gch_status st;
    if (r->opts->skip_refs) {
        st = gch_builder_object_begin(r->b, o->index, o->class_id, o->size, r->err);
        return st == GCH_OK ? skip_references(r, o) : st;
    }
    uint64_t first = REF_CHUNK;
    if (k->field_count) {
        uint64_t labelled = r->fields[k->first_field + k->field_count - 1].index + 1;
        if (labelled > first)
            first = labelled;
    }
    if (first > o->ref_count)
        first = o->ref_count;
    if ((st = ensure_scratch(r, first > REF_CHUNK ? (size_t)first : REF_CHUNK)) != GCH_OK)
        return st;
    field_walk w;
    field_walk_init(&w, r, k);
    if ((st = read_reference_chunk(r, 0, (size_t)first, &w)) != GCH_OK ||
        (st = gch_builder_add_object_labeled(r->b, o->index, o->class_id, o->size, r->refs,
                                             k->field_count ? r->labels : NULL, (size_t)first,
                                             r->err)) != GCH_OK)
        return st;
    for (uint64_t done = first; done < o->ref_count;) {
        size_t n = o->ref_count - done < REF_CHUNK ? (size_t)(o->ref_count - done) : REF_CHUNK;
        if ((st = read_reference_chunk(r, done, n, NULL)) != GCH_OK ||
            (st = gch_builder_object_refs(r->b, r->refs, n, r->err)) != GCH_OK)
            return st;
        done += n;
    }
    return GCH_OK;
}

static gch_status note_isolate_name(dart_reader *r, const char *name)
{
    size_t len = strlen(name), sep = r->isolates_len ? 2 : 0;
    if (!grow_array((void **)&r->isolates, &r->isolates_cap, r->isolates_len + sep + len + 1, 1))
        return oom(r);
    memcpy(r->isolates + r->isolates_len, ", ", sep);
    memcpy(r->isolates + r->isolates_len + sep, name, len + 1);
    r->isolates_len += sep + len;
    return GCH_OK;
}

/* The label of an isolate's roots, "isolate NAME" (NAME: its NameData, the
 * VM writes the main port; "#INDEX" without one), newly allocated. */
static char *isolate_label(dart_reader *r, const dart_object *o)
{
    char *name = o->name ? gch_strndup(o->name, cut_at(o->name, o->name_len, '\0')) : NULL;
    if (!o->name) {
        const char *t = text_printf(r, "#%llu", (unsigned long long)o->index);
        name = t ? gch_strndup(t, strlen(t)) : NULL;
    }
    if (!name || note_isolate_name(r, name) != GCH_OK) {
        gch_free(name);
        return NULL;
    }
    const char *t = text_printf(r, "isolate %s", name);
    gch_free(name);
    return t ? gch_strndup(t, strlen(t)) : NULL;
}

/* Emits the references of a synthetic object as roots: the root object's as
 * internal roots, the read-only pages' as runtime roots, an isolate's as static
 * roots (labelled with the field name when the class gives one). References to
 * other synthetic objects (root -> read-only pages, root -> isolates) are
 * skipped: those objects' own references are roots already. */
static gch_status emit_roots(dart_reader *r, const dart_object *o)
{
    const dart_class *k = &r->classes[o->class_id];
    unsigned kind;
    char *base;
    if (o->index == 1 || k->role == ROLE_ROOT) {
        kind = GCH_ROOT_INTERNAL;
        base = gch_strndup("Root", 4);
    } else if (k->role == ROLE_READ_ONLY_PAGES) {
        kind = GCH_ROOT_RUNTIME;
        base = gch_strndup("Read-Only Pages", 15);
    } else {
        kind = GCH_ROOT_STATIC;
        base = isolate_label(r, o);
    }
    if (!base)
        return oom(r);
    field_walk w;
    field_walk_init(&w, r, k);
    gch_status st = GCH_OK;
    for (uint64_t i = 0; i < o->ref_count && st == GCH_OK; i++) {
        uint64_t target;
        if ((st = read_reference(r, i, &target)) != GCH_OK)
            break;
        const char *field = field_walk_name(&w, i);
        if (target == 0 || is_synthetic(r, target))
            continue;
        const char *label = field ? text_printf(r, "%s: .%s", base, field) : base;
        st = label ? gch_builder_add_root(r->b, target, kind, 0, 0, 0, label, r->err) : oom(r);
    }
    gch_free(base);
    return st;
}

static gch_status emit_objects(dart_reader *r)
{
    gch_dart_cursor *c = &r->cur;
    c->pos = r->objects_offset;
    for (uint64_t i = 1; i <= r->object_count; i++) {
        dart_object o;
        gch_status st = read_object_head(r, i, &o);
        if (st == GCH_OK)
            st = is_synthetic(r, i) ? emit_roots(r, &o) : emit_heap_object(r, &o);
        if (st != GCH_OK)
            return with_context(r, st, "object %llu", (unsigned long long)i);
        if (i % PROGRESS_EVERY == 0)
            report_progress(r, c->size / 2 + c->pos / 2);
    }
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* Metadata */

static gch_status meta(dart_reader *r, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static gch_status meta(dart_reader *r, const char *key, const char *fmt, ...)
{
    char value[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    return gch_builder_add_meta(r->b, key, value, r->err);
}

static const char *hash_state_text(const dart_reader *r)
{
    switch (r->hashes) {
    case HASH_PRESENT: return "present";
    case HASH_ALL_ZERO: return "all zero (or absent, followed by zero padding)";
    case HASH_ABSENT: break;
    }
    return "absent";
}

static gch_status add_meta_lines(dart_reader *r)
{
    typedef unsigned long long ull;
    gch_status st;
    const char *isolates = r->isolates_len ? r->isolates : "none";
    if ((st = meta(r, "isolates", "%s", isolates)) != GCH_OK ||
        (st = meta(r, "shallow size (header)", "%llu", (ull)r->shallow_size)) != GCH_OK ||
        (st = meta(r, "shallow size (objects)", "%llu", (ull)r->object_size_sum)) != GCH_OK ||
        (st = meta(r, "capacity", "%llu", (ull)r->capacity)) != GCH_OK ||
        (st = meta(r, "external size (header)", "%llu", (ull)r->external_size)) != GCH_OK ||
        (st = meta(r, "external size (properties)", "%llu in %llu properties",
                   (ull)r->property_size_sum, (ull)r->property_count)) != GCH_OK ||
        (st = meta(r, "snapshot objects", "%llu (%llu synthetic)", (ull)r->object_count,
                   (ull)r->synthetic_objects)) != GCH_OK ||
        (st = meta(r, "classes", "%llu", (ull)r->class_count)) != GCH_OK ||
        (st = meta(r, "references (header)", "%llu", (ull)r->reference_count)) != GCH_OK ||
        (st = meta(r, "references (records)", "%llu", (ull)r->refs_in_records)) != GCH_OK ||
        (st = meta(r, "identity hash codes", "%s", hash_state_text(r))) != GCH_OK ||
        (st = meta(r, "padding bytes", "%llu", (ull)r->padding)) != GCH_OK)
        return st;
    if (r->flags && (st = meta(r, "flags", "%llu", (ull)r->flags)) != GCH_OK)
        return st;
    if (r->shallow_size != r->object_size_sum &&
        (st = meta(r, "anomaly", "the header's shallow size %llu differs from the sum of object "
                   "sizes %llu", (ull)r->shallow_size, (ull)r->object_size_sum)) != GCH_OK)
        return st;
    if (r->refs_in_records > r->reference_count &&
        (st = meta(r, "anomaly", "the records hold %llu references, more than the header's %llu",
                   (ull)r->refs_in_records, (ull)r->reference_count)) != GCH_OK)
        return st;
    if (r->dropped_synthetic_refs &&
        (st = meta(r, "dropped references", "%llu to synthetic objects (root, isolates, read-only pages)",
                   (ull)r->dropped_synthetic_refs)) != GCH_OK)
        return st;
    return GCH_OK;
}

static gch_status emit(dart_reader *r)
{
    static const char default_name[] = "dart";
    size_t name_len = cut_at(r->name, r->name_len, '\0');
    const char *name = name_len ? r->name : default_name;
    if (!name_len)
        name_len = sizeof default_name - 1;
    gch_status st = gch_builder_begin_heap(r->b, name, name_len, r->err);
    if (st != GCH_OK)
        return st;
    gch_builder_set_id_radix(r->b, 10);
    if (r->opts->skip_refs)
        gch_builder_set_refs_skipped(r->b);
    if ((st = declare_types(r)) != GCH_OK || (st = emit_objects(r)) != GCH_OK ||
        (st = add_meta_lines(r)) != GCH_OK)
        return st;
    return gch_builder_end_heap(r->b, r->err);
}

/* ------------------------------------------------------------------------ */

static void reader_free(dart_reader *r)
{
    gch_builder_free(r->b);
    gch_free(r->classes);
    gch_free(r->fields);
    gch_free(r->names);
    gch_free(r->object_class);
    gch_free(r->isolates);
    gch_free(r->refs);
    gch_free(r->labels);
    gch_free(r->text);
}

gch_status gch_read_dart_buffer(const void *data, size_t size, const gch_load_options *opts,
                                gch_dump **out, gch_error *err)
{
    static const gch_load_options no_options;
    gch_error_clear(err);
    *out = NULL;
    dart_reader r;
    memset(&r, 0, sizeof r);
    r.opts = opts ? opts : &no_options;
    r.err = err;
    gch_dart_cursor_init(&r.cur, data, size, err);
    gch_status st = scan(&r);
    if (st == GCH_OK)
        st = gch_builder_new(&r.b, "dart", err);
    if (st == GCH_OK)
        st = emit(&r);
    if (st == GCH_OK)
        st = gch_builder_finish(r.b, out, err);
    if (st == GCH_OK)
        report_progress(&r, size);
    if (st != GCH_OK && err && err->status == GCH_OK)
        err->status = st;
    reader_free(&r);
    return st;
}
