/* Decoding of Dart VM heap snapshots ("dartheap"): see src/dart_snapshot.h and
 * docs/dart-format.md. This file checks the whole input (the scan) and decodes
 * object records for the reader (src/dart_reader.c), which maps them onto the
 * heap model. It allocates only the class table, the field names and one class
 * id per object, each from a count already checked against the bytes left.
 */
#include "dart_snapshot.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "grow.h"

#define DART_MAGIC "dartheap"
#define DART_MAGIC_LEN 8
#define PROGRESS_EVERY 65536           /* objects between progress calls */
#define MAX_OBJECTS (UINT32_MAX - 3u)  /* what the builder can index, with room to spare */

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

/* ------------------------------------------------------------------------ */
/* Errors and small helpers */

static gch_status oom(gch_dart_snapshot *s)
{
    return gch_error_set(s->err, GCH_ENOMEM, "out of memory");
}

static gch_status limit_at(gch_dart_snapshot *s, size_t offset, const char *fmt, unsigned long long v)
{
    gch_error_set(s->err, GCH_ELIMIT, fmt, v);
    if (s->err) {
        s->err->has_offset = 1;
        s->err->offset = offset;
    }
    return GCH_ELIMIT;
}

gch_status gch_dart_with_context(gch_error *err, gch_status st, const char *fmt, ...)
{
    if (st == GCH_OK || st == GCH_ENOMEM || !err)
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
    char *msg = err->message;
    size_t cap = sizeof err->message, len = strlen(msg);
    if (prefix + len > cap - 1)
        len = cap - 1 - prefix;
    memmove(msg + prefix, msg, len);
    memcpy(msg, context, prefix);
    msg[prefix + len] = '\0';
    return st;
}

size_t gch_dart_cut_at(const char *s, size_t len, char stop)
{
    const char *p = memchr(s, stop, len);
    return p ? (size_t)(p - s) : len;
}

int gch_dart_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return gch_grow(p, cap, need, elem, 64);
}

static int mem_equals(const char *s, size_t len, const char *lit)
{
    return len == strlen(lit) && memcmp(s, lit, len) == 0;
}

/* ------------------------------------------------------------------------ */
/* Header and classes */

static gch_status read_header(gch_dart_snapshot *s)
{
    gch_dart_cursor *c = &s->cur;
    const unsigned char *magic;
    if (c->size > 0 && c->size < DART_MAGIC_LEN && memcmp(c->data, DART_MAGIC, c->size) == 0)
        return gch_dart_fail_at(c, c->size, "unexpected end of file in the \"dartheap\" magic "
                                            "(a Dart heap snapshot cut short)");
    if (c->size < DART_MAGIC_LEN || memcmp(c->data, DART_MAGIC, DART_MAGIC_LEN) != 0)
        return gch_dart_fail_at(c, 0, "not a Dart heap snapshot (no \"dartheap\" magic)");
    (void)gch_dart_read_bytes(c, DART_MAGIC_LEN, &magic, "magic");
    gch_status st;
    if ((st = gch_dart_read_uleb(c, &s->flags, "header flags")) != GCH_OK ||
        (st = gch_dart_read_string(c, &s->name, &s->name_len, "snapshot name")) != GCH_OK ||
        (st = gch_dart_read_uleb(c, &s->shallow_size, "header shallow size")) != GCH_OK ||
        (st = gch_dart_read_uleb(c, &s->capacity, "header capacity")) != GCH_OK ||
        (st = gch_dart_read_uleb(c, &s->external_size, "header external size")) != GCH_OK)
        return st;
    size_t at = c->pos;
    if ((st = gch_dart_read_count(c, MIN_CLASS_BYTES, &s->class_count, "class count")) != GCH_OK)
        return st;
    if (s->class_count >= UINT32_MAX)
        return limit_at(s, at, "%llu classes: more than gcheap can index",
                        (unsigned long long)s->class_count);
    return GCH_OK;
}

/* Copies a field name (cut at '@') into the names arena. */
static gch_status keep_field_name(gch_dart_snapshot *s, const char *name, size_t len, size_t *out)
{
    len = gch_dart_cut_at(name, len, '@');
    len = gch_dart_cut_at(name, len, '\0');
    if (len == 0) {
        *out = GCH_DART_NO_NAME;
        return GCH_OK;
    }
    if (!gch_dart_grow((void **)&s->names, &s->names_cap, s->names_size + len + 1, 1))
        return oom(s);
    memcpy(s->names + s->names_size, name, len);
    s->names[s->names_size + len] = '\0';
    *out = s->names_size;
    s->names_size += len + 1;
    return GCH_OK;
}

static int compare_fields(const void *pa, const void *pb)
{
    const gch_dart_field *a = pa, *b = pb;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static gch_status read_field(gch_dart_snapshot *s, gch_dart_field *f)
{
    gch_dart_cursor *c = &s->cur;
    uint64_t flags;
    const char *name, *reserved;
    size_t name_len, reserved_len;
    gch_status st;
    if ((st = gch_dart_read_uleb(c, &flags, "field flags")) != GCH_OK ||
        (st = gch_dart_read_uleb(c, &f->index, "field index")) != GCH_OK ||
        (st = gch_dart_read_string(c, &name, &name_len, "field name")) != GCH_OK ||
        (st = gch_dart_read_string(c, &reserved, &reserved_len, "field reserved string")) != GCH_OK)
        return st;
    return keep_field_name(s, name, name_len, &f->name);
}

static gch_dart_role role_of(uint64_t class_id, const gch_dart_class *k)
{
    if (k->uri_len != 0)
        return GCH_DART_HEAP;
    if (class_id == 1 && mem_equals(k->name, k->name_len, "Root"))
        return GCH_DART_ROOT;
    if (class_id == 2 && mem_equals(k->name, k->name_len, "Read-Only Pages"))
        return GCH_DART_READ_ONLY_PAGES;
    if (class_id == 3 && mem_equals(k->name, k->name_len, "Isolate"))
        return GCH_DART_ISOLATE;
    return GCH_DART_HEAP;
}

static gch_status read_class(gch_dart_snapshot *s, uint64_t class_id)
{
    gch_dart_cursor *c = &s->cur;
    gch_dart_class *k = &s->classes[class_id];
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
    k->name_len = gch_dart_cut_at(k->name, k->name_len, '@');
    k->name_len = gch_dart_cut_at(k->name, k->name_len, '\0');
    k->uri_len = gch_dart_cut_at(k->uri, k->uri_len, '\0');
    k->role = role_of(class_id, k);
    k->is_mint = mem_equals(k->name, k->name_len, "_Mint");
    k->first_field = s->field_count;
    k->field_count = (size_t)field_count;
    if (!gch_dart_grow((void **)&s->fields, &s->field_cap, s->field_count + k->field_count,
                    sizeof *s->fields))
        return oom(s);
    for (size_t i = 0; i < k->field_count; i++) {
        gch_dart_field *f = &s->fields[k->first_field + i];
        f->order = i;
        if ((st = read_field(s, f)) != GCH_OK)
            return gch_dart_with_context(s->err, st, "field %zu", i);
    }
    if (k->field_count > 1) {
        gch_dart_field *f = s->fields + k->first_field;
        qsort(f, k->field_count, sizeof *f, compare_fields);
        /* Only the first field of an index names a position: the others go,
         * so that finding a position's name never walks past more fields
         * than positions (a class whose 160k fields all had index 0 made
         * every object cost 160k steps: issue 20). */
        size_t kept = 1;
        for (size_t i = 1; i < k->field_count; i++)
            if (f[i].index != f[kept - 1].index)
                f[kept++] = f[i];
        k->field_count = kept;
    }
    s->field_count += k->field_count;
    return GCH_OK;
}

static gch_status read_classes(gch_dart_snapshot *s)
{
    s->classes = gch_calloc((size_t)s->class_count + 1, sizeof *s->classes);
    if (!s->classes)
        return oom(s);
    for (uint64_t id = 1; id <= s->class_count; id++) {
        gch_status st = read_class(s, id);
        if (st != GCH_OK)
            return gch_dart_with_context(s->err, st, "class %llu", (unsigned long long)id);
    }
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* Objects */

/* Skips or captures the NonReferenceData of o. */
static gch_status read_object_data(gch_dart_snapshot *s, gch_dart_object *o)
{
    gch_dart_cursor *c = &s->cur;
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
        if (s->classes[o->class_id].is_mint)
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
        o->length = length;
        o->kept = truncated;
        return gch_dart_read_bytes(c, truncated * unit, &o->chars, kind);
    }
    case TAG_LENGTH:
        return gch_dart_read_uleb(c, &o->length, "length");
    case TAG_NAME:
        return gch_dart_read_string(c, &o->name, &o->name_len, "name");
    default:
        return gch_dart_fail_at(c, at, "unknown data tag %llu", (unsigned long long)o->tag);
    }
}

/* Decodes an object record up to its references. */
gch_status gch_dart_read_object_head(gch_dart_snapshot *s, uint64_t index, gch_dart_object *o)
{
    gch_dart_cursor *c = &s->cur;
    memset(o, 0, sizeof *o);
    o->index = index;
    size_t at = c->pos;
    gch_status st = gch_dart_read_uleb(c, &o->class_id, "class id");
    if (st != GCH_OK)
        return st;
    if (o->class_id == 0)
        return gch_dart_fail_at(c, at, "class id 0 (the sentinel; class ids start at 1)");
    if (o->class_id > s->class_count)
        return gch_dart_fail_at(c, at, "class id %llu is out of range (the snapshot has %llu classes)",
                                (unsigned long long)o->class_id,
                                (unsigned long long)s->class_count);
    if ((st = gch_dart_read_uleb(c, &o->size, "shallow size")) != GCH_OK ||
        (st = read_object_data(s, o)) != GCH_OK)
        return st;
    return gch_dart_read_count(c, MIN_REF_BYTES, &o->ref_count, "reference count");
}

/* Reads reference k of o: an object index, 0 when omitted. */
gch_status gch_dart_read_reference(gch_dart_snapshot *s, uint64_t k, uint64_t *target)
{
    gch_dart_cursor *c = &s->cur;
    size_t at = c->pos;
    gch_status st = gch_dart_read_uleb(c, target, "reference");
    if (st != GCH_OK)
        return st;
    if (*target > s->object_count)
        return gch_dart_fail_at(c, at, "reference %llu names object %llu, but the snapshot has %llu objects",
                                (unsigned long long)k, (unsigned long long)*target,
                                (unsigned long long)s->object_count);
    return GCH_OK;
}

int gch_dart_is_synthetic(const gch_dart_snapshot *s, uint64_t index)
{
    return index == 1 || s->classes[s->object_class[index]].role != GCH_DART_HEAP;
}

void gch_dart_progress(gch_dart_snapshot *s, uint64_t bytes)
{
    if (s->opts->progress)
        s->opts->progress(s->opts->progress_ctx, bytes);
}

/* ------------------------------------------------------------------------ */
/* Pass 1: scan and check */

static gch_status scan_object(gch_dart_snapshot *s, uint64_t index)
{
    gch_dart_object o;
    gch_status st = gch_dart_read_object_head(s, index, &o);
    if (st != GCH_OK)
        return st;
    s->object_class[index] = (uint32_t)o.class_id;
    if (s->has_length && o.tag == TAG_LENGTH)
        s->has_length[index >> 3] |= (unsigned char)(1u << (index & 7));
    if (o.size > UINT64_MAX - s->object_size_sum)
        return limit_at(s, s->cur.pos, "object sizes add up to more than 2^64 bytes (at object %llu)",
                        (unsigned long long)index);
    s->object_size_sum += o.size;
    s->refs_in_records += o.ref_count; /* cannot overflow: each takes a byte */
    for (uint64_t k = 0; k < o.ref_count; k++) {
        uint64_t target;
        if ((st = gch_dart_read_reference(s, k, &target)) != GCH_OK)
            return st;
    }
    return GCH_OK;
}

static gch_status scan_objects(gch_dart_snapshot *s)
{
    gch_dart_cursor *c = &s->cur;
    gch_status st = gch_dart_read_uleb(c, &s->reference_count, "reference count");
    if (st != GCH_OK)
        return st;
    size_t at = c->pos;
    if ((st = gch_dart_read_count(c, MIN_OBJECT_BYTES, &s->object_count, "object count")) != GCH_OK)
        return st;
    if (s->object_count > MAX_OBJECTS)
        return limit_at(s, at, "%llu objects: more than gcheap can index",
                        (unsigned long long)s->object_count);
    s->object_class = gch_calloc((size_t)s->object_count + 1, sizeof *s->object_class);
    if (!s->object_class)
        return oom(s);
    if (s->opts->keep_payloads &&
        !(s->has_length = gch_calloc((size_t)(s->object_count >> 3) + 1, 1)))
        return oom(s);
    s->objects_offset = c->pos;
    for (uint64_t i = 1; i <= s->object_count; i++) {
        if ((st = scan_object(s, i)) != GCH_OK)
            return gch_dart_with_context(s->err, st, "object %llu", (unsigned long long)i);
        if (i % PROGRESS_EVERY == 0)
            gch_dart_progress(s, c->pos / 2);
    }
    for (uint64_t i = 1; i <= s->object_count; i++)
        if (gch_dart_is_synthetic(s, i))
            s->synthetic_objects++;
    return GCH_OK;
}

static gch_status scan_external_properties(gch_dart_snapshot *s)
{
    gch_dart_cursor *c = &s->cur;
    gch_status st = gch_dart_read_count(c, MIN_PROPERTY_BYTES, &s->property_count,
                                        "external property count");
    if (st != GCH_OK)
        return st;
    for (uint64_t i = 0; i < s->property_count; i++) {
        uint64_t object, size;
        const char *name;
        size_t name_len, at = c->pos;
        if ((st = gch_dart_read_uleb(c, &object, "object")) != GCH_OK)
            return gch_dart_with_context(s->err, st, "external property %llu", (unsigned long long)i);
        if (object == 0 || object > s->object_count)
            return gch_dart_fail_at(c, at, "external property %llu: object %llu is out of range "
                                    "(the snapshot has %llu objects)", (unsigned long long)i,
                                    (unsigned long long)object, (unsigned long long)s->object_count);
        at = c->pos;
        if ((st = gch_dart_read_uleb(c, &size, "external size")) != GCH_OK ||
            (st = gch_dart_read_string(c, &name, &name_len, "name")) != GCH_OK)
            return gch_dart_with_context(s->err, st, "external property %llu", (unsigned long long)i);
        if (size > UINT64_MAX - s->property_size_sum)
            return limit_at(s, at, "external sizes add up to more than 2^64 bytes (property %llu)",
                            (unsigned long long)i);
        s->property_size_sum += size;
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
static gch_status scan_hash_codes(gch_dart_snapshot *s)
{
    gch_dart_cursor *c = &s->cur;
    size_t rest = gch_dart_remaining(c);
    if (rest == 0) {
        s->hashes = GCH_DART_HASHES_ABSENT;
        return GCH_OK;
    }
    if (all_zero(c->data + c->pos, rest)) {
        if (s->object_count > 0 && rest >= s->object_count) {
            s->hashes = GCH_DART_HASHES_ALL_ZERO;
            s->padding = rest - s->object_count;
        } else {
            s->hashes = GCH_DART_HASHES_ABSENT;
            s->padding = rest;
        }
        c->pos = c->size;
        return GCH_OK;
    }
    s->hashes = GCH_DART_HASHES_PRESENT;
    for (uint64_t i = 1; i <= s->object_count; i++) {
        uint64_t hash;
        gch_status st = gch_dart_read_uleb(c, &hash, "identity hash code");
        if (st != GCH_OK)
            return gch_dart_with_context(s->err, st, "object %llu", (unsigned long long)i);
        if (hash)
            s->nonzero_hashes++;
    }
    for (size_t at = c->pos; at < c->size; at++)
        if (c->data[at] != 0)
            return gch_dart_fail_at(c, at, "unexpected byte 0x%02x after the identity hash codes "
                                    "(only zero padding may follow them)", c->data[at]);
    s->padding = gch_dart_remaining(c);
    c->pos = c->size;
    return GCH_OK;
}

gch_status gch_dart_scan(gch_dart_snapshot *s)
{
    gch_status st;
    if ((st = read_header(s)) != GCH_OK || (st = read_classes(s)) != GCH_OK ||
        (st = scan_objects(s)) != GCH_OK || (st = scan_external_properties(s)) != GCH_OK)
        return st;
    return scan_hash_codes(s);
}


void gch_dart_snapshot_free(gch_dart_snapshot *s)
{
    /* Each pointer is cleared as it goes: a second call frees nothing. */
    gch_free(s->classes), s->classes = NULL;
    gch_free(s->fields), s->fields = NULL;
    gch_free(s->names), s->names = NULL;
    gch_free(s->object_class), s->object_class = NULL;
    gch_free(s->has_length), s->has_length = NULL;
}
