/* Bounds-checked primitives and FastSerialization framing for .gcdump files:
 * see gcdump_decode.h and docs/gcdump-format.md. */
#include "gcdump_decode.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/utf8.h"

void gcd_cursor_init(gcd_cursor *c, const void *data, size_t size, uint64_t base, gch_error *err)
{
    c->data = data;
    c->size = size;
    c->pos = 0;
    c->base = base;
    c->err = err;
}

size_t gcd_remaining(const gcd_cursor *c) { return c->size - c->pos; }

/* Fails unless n more bytes are available; the error names the field start. */
static gch_status need(gcd_cursor *c, size_t n, const char *what)
{
    if (gcd_remaining(c) < n)
        return gcd_fail_at(c, c->pos, "unexpected end of file reading %s", what);
    return GCH_OK;
}

/* The n-byte (n <= 8) little-endian integer at the cursor; 0 on failure. */
static gch_status read_le(gcd_cursor *c, size_t n, uint64_t *out, const char *what)
{
    *out = 0;
    gch_status st = need(c, n, what);
    if (st != GCH_OK)
        return st;
    for (size_t i = n; i-- > 0;)
        *out = *out << 8 | c->data[c->pos + i];
    c->pos += n;
    return GCH_OK;
}

/* Two's complement reinterpretation without implementation-defined casts. */
static int32_t as_i32(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1;
}

static int64_t as_i64(uint64_t u)
{
    return u <= INT64_MAX ? (int64_t)u : -(int64_t)(~u) - 1;
}

/* The primitives: a little-endian integer of n bytes, converted. They write
 * *out even on failure (0: the caller stops anyway). */
#define GCD_READ(name, T, n, convert)                                                              \
    gch_status name(gcd_cursor *c, T *out, const char *what)                                      \
    {                                                                                              \
        uint64_t u;                                                                                \
        gch_status st = read_le(c, n, &u, what);                                                   \
        *out = convert;                                                                            \
        return st;                                                                                 \
    }
GCD_READ(gcd_read_u8, uint8_t, 1, (uint8_t)u)
GCD_READ(gcd_read_u32, uint32_t, 4, (uint32_t)u)
GCD_READ(gcd_read_i32, int32_t, 4, as_i32((uint32_t)u))
GCD_READ(gcd_read_i64, int64_t, 8, as_i64(u))

gch_status gcd_read_f32(gcd_cursor *c, float *out, const char *what)
{
    uint32_t u;
    gch_status st = gcd_read_u32(c, &u, what);
    memcpy(out, &u, sizeof *out); /* IEEE single, as C# writes it */
    return st;
}

gch_status gcd_skip(gcd_cursor *c, size_t n, const char *what)
{
    gch_status st = need(c, n, what);
    if (st == GCH_OK)
        c->pos += n;
    return st;
}

gch_status gcd_read_count(gcd_cursor *c, size_t min_item_bytes, uint32_t *out, const char *what)
{
    size_t at = c->pos;
    int32_t n;
    gch_status st = gcd_read_i32(c, &n, what);
    if (st != GCH_OK)
        return st;
    if (n < 0)
        return gcd_fail_at(c, at, "negative %s (%ld)", what, (long)n);
    if (min_item_bytes && (size_t)n > gcd_remaining(c) / min_item_bytes)
        return gcd_fail_at(c, at, "%s %ld does not fit in the %zu bytes left", what, (long)n,
                           gcd_remaining(c));
    *out = (uint32_t)n;
    return GCH_OK;
}

/* ---- strings ---- */

/* Reads one UTF-16 code unit written in 1, 2 or 3 bytes (chosen by the lead
 * byte, as PerfView's reader does; continuation bytes only give their low 6 bits). */
static gch_status read_code_unit(gcd_cursor *c, unsigned *unit, const char *what)
{
    uint8_t b0, b1, b2;
    gch_status st = gcd_read_u8(c, &b0, what);
    if (st != GCH_OK)
        return st;
    if (b0 < 0x80) {
        *unit = b0;
        return GCH_OK;
    }
    if ((st = gcd_read_u8(c, &b1, what)) != GCH_OK)
        return st;
    if (b0 < 0xE0) {
        *unit = (unsigned)(b0 & 0x1F) << 6 | (b1 & 0x3Fu);
        return GCH_OK;
    }
    if ((st = gcd_read_u8(c, &b2, what)) != GCH_OK)
        return st;
    *unit = (unsigned)(b0 & 0x0F) << 12 | (unsigned)(b1 & 0x3F) << 6 | (b2 & 0x3Fu);
    return GCH_OK;
}

/* Appends code point cp to s as UTF-8 (the library's one encoder). */
static size_t put_utf8(char *o, unsigned cp)
{
    return gch_utf8_encode(cp, (unsigned char *)o);
}

#define REPLACEMENT_CHAR 0xFFFDu
#define IS_HIGH_SURROGATE(u) ((u) >= 0xD800 && (u) <= 0xDBFF)
#define IS_LOW_SURROGATE(u) ((u) >= 0xDC00 && (u) <= 0xDFFF)

/* Reads the int32 unit count; *units = -1 for the null string. Every unit takes
 * at least one byte, so a count larger than the bytes left is refused here. */
static gch_status read_string_length(gcd_cursor *c, int32_t *units, const char *what)
{
    size_t at = c->pos;
    gch_status st = gcd_read_i32(c, units, what);
    if (st != GCH_OK)
        return st;
    if (*units < -1)
        return gcd_fail_at(c, at, "bad length %ld for %s", (long)*units, what);
    if (*units > 0 && (size_t)*units > gcd_remaining(c))
        return gcd_fail_at(c, at, "%s of %ld characters does not fit in the %zu bytes left", what,
                           (long)*units, gcd_remaining(c));
    return GCH_OK;
}

gch_status gcd_read_string(gcd_cursor *c, char **out, size_t *out_len, const char *what)
{
    *out = NULL;
    if (out_len)
        *out_len = 0;
    int32_t units;
    gch_status st = read_string_length(c, &units, what);
    if (st != GCH_OK || units < 0)
        return st;
    /* One unit yields at most 3 UTF-8 bytes (a surrogate pair: 4 for 2 units). */
    char *s = gch_malloc((size_t)units * 3 + 1);
    if (!s)
        return gch_error_set(c->err, GCH_ENOMEM, "out of memory");
    size_t len = 0;
    unsigned pending_high = 0;
    for (int32_t i = 0; i < units; i++) {
        unsigned u;
        if ((st = read_code_unit(c, &u, what)) != GCH_OK) {
            gch_free(s);
            return st;
        }
        if (pending_high) {
            if (IS_LOW_SURROGATE(u)) {
                unsigned cp = 0x10000 + ((pending_high - 0xD800) << 10) + (u - 0xDC00);
                len += put_utf8(s + len, cp);
                pending_high = 0;
                continue;
            }
            len += put_utf8(s + len, REPLACEMENT_CHAR);
            pending_high = 0;
        }
        if (IS_HIGH_SURROGATE(u))
            pending_high = u;
        else
            len += put_utf8(s + len, IS_LOW_SURROGATE(u) ? REPLACEMENT_CHAR : u);
    }
    if (pending_high)
        len += put_utf8(s + len, REPLACEMENT_CHAR);
    s[len] = '\0';
    *out = s;
    if (out_len)
        *out_len = len;
    return GCH_OK;
}

gch_status gcd_skip_string(gcd_cursor *c, int *is_null, const char *what)
{
    int32_t units;
    gch_status st = read_string_length(c, &units, what);
    if (st != GCH_OK)
        return st;
    if (is_null)
        *is_null = units < 0;
    for (int32_t i = 0; i < units && st == GCH_OK; i++) {
        unsigned u;
        st = read_code_unit(c, &u, what);
    }
    return st;
}

/* ---- varints ---- */

gch_status gcd_read_varint(gcd_cursor *c, int32_t *out, const char *what)
{
    uint8_t b;
    gch_status st = gcd_read_u8(c, &b, what);
    if (st != GCH_OK)
        return st;
    /* The first group's bit 6 is the sign. Arithmetic is done in uint32_t so
     * that it wraps like C#'s unchecked int. */
    uint32_t r = b & 0x7Fu;
    if (r & 0x40u)
        r |= 0xFFFFFF80u;
    for (int i = 1; (b & 0x80) && i < 5; i++) {
        if ((st = gcd_read_u8(c, &b, what)) != GCH_OK)
            return st;
        r = (r << 7) + (i < 4 ? (b & 0x7Fu) : b); /* the fifth byte gives all 8 bits */
        if (i == 4)
            break;
    }
    *out = as_i32(r);
    return GCH_OK;
}

/* ---- framing ---- */

void gcd_framing_init(gcd_framing *f, const void *data, size_t size, gch_error *err)
{
    memset(f, 0, sizeof *f);
    gcd_cursor_init(&f->c, data, size, 0, err);
}

void gcd_framing_free(gcd_framing *f)
{
    for (size_t i = 0; i < f->type_count; i++)
        gch_free(f->types[i].name);
    gch_free(f->types);
    gch_free(f->forward);
    f->types = NULL;
    f->forward = NULL;
    f->type_count = f->type_cap = 0;
    f->forward_count = 0;
}

static const char signature[] = "!FastSerialization.1";

gch_status gcd_read_header(gcd_framing *f)
{
    gcd_cursor *c = &f->c;
    int32_t len;
    gch_status st = gcd_read_i32(c, &len, "the signature length");
    if (st != GCH_OK)
        return st;
    if (len != (int32_t)(sizeof signature - 1))
        return gcd_fail_at(c, 0, "not a FastSerialization file (signature length %ld, expected 20)",
                           (long)len);
    if ((st = need(c, (size_t)len, "the signature")) != GCH_OK)
        return st;
    if (memcmp(c->data + c->pos, signature, (size_t)len) != 0)
        return gcd_fail_at(c, c->pos, "not a FastSerialization file (no \"%s\" signature)", signature);
    c->pos += (size_t)len;
    return GCH_OK;
}

gch_status gcd_read_trailer(gcd_framing *f)
{
    /* Read with a private cursor: the caller's position is not disturbed. */
    gcd_cursor t = f->c;
    t.pos = 0;
    if (t.size < 8 + sizeof signature + 3)
        return gcd_fail_at(&t, t.size, "file too short (%zu bytes) to hold a gcdump", t.size);
    uint32_t suffix, table;
    t.pos = t.size - 4;
    gch_status st = gcd_read_u32(&t, &suffix, "the trailer label");
    if (st != GCH_OK)
        return st;
    if ((uint64_t)suffix + 8 > t.size)
        return gcd_fail_at(&t, t.size - 4,
                           "damaged or truncated file: the trailer label %lu points past the end",
                           (unsigned long)suffix);
    t.pos = suffix;
    if ((st = gcd_read_u32(&t, &table, "the forward-reference table label")) != GCH_OK)
        return st;
    if (table >= suffix)
        return gcd_fail_at(&t, suffix,
                           "damaged or truncated file: forward-reference table label %lu is not "
                           "before the trailer",
                           (unsigned long)table);
    gcd_cursor tc = t;
    tc.pos = table;
    tc.size = suffix; /* the table must end where the trailer label starts */
    uint32_t count = 0;
    if ((st = gcd_read_count(&tc, 4, &count, "forward-reference count")) != GCH_OK)
        return st;
    if ((size_t)count * 4 != gcd_remaining(&tc))
        return gcd_fail_at(&tc, table,
                           "damaged or truncated file: forward-reference table of %lu entries does "
                           "not end at the trailer",
                           (unsigned long)count);
    f->forward = gch_calloc(count ? count : 1, sizeof *f->forward);
    if (!f->forward)
        return gch_error_set(f->c.err, GCH_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < count; i++)
        gcd_read_u32(&tc, &f->forward[i], "a forward-reference label"); /* bounds checked above */
    f->forward_count = count;
    f->trailer_start = table;
    return GCH_OK;
}

gch_status gcd_resolve_forward(gcd_framing *f, int32_t index, size_t at, uint32_t *out)
{
    if (index < 0 || (uint32_t)index >= f->forward_count)
        return gcd_fail_at(&f->c, at, "forward reference %ld is not in the table of %lu", (long)index,
                           (unsigned long)f->forward_count);
    uint32_t label = f->forward[index];
    if (label >= f->c.size)
        return gcd_fail_at(&f->c, at, "forward reference %ld points past the end of the file",
                           (long)index);
    *out = label;
    return GCH_OK;
}

gch_status gcd_try_tag(gcd_framing *f, uint8_t tag, int *present)
{
    *present = f->c.pos < f->c.size && f->c.data[f->c.pos] == tag;
    if (*present)
        f->c.pos++;
    return GCH_OK;
}

static gch_status expect_tag(gcd_framing *f, uint8_t tag, const char *what)
{
    size_t at = f->c.pos;
    uint8_t got;
    gch_status st = gcd_read_u8(&f->c, &got, what);
    if (st == GCH_OK && got != tag)
        return gcd_fail_at(&f->c, at, "expected %s (tag %u), found tag %u", what, tag, got);
    return st;
}

static const gcd_type *find_type(const gcd_framing *f, uint32_t label)
{
    for (size_t i = 0; i < f->type_count; i++)
        if (f->types[i].label == label)
            return &f->types[i];
    return NULL;
}

/* An inline type definition: BeginObject (already read, at `label`),
 * NullReference (a type's type is null), version, minimum reader version,
 * full name, EndObject. */
static gch_status read_type_definition(gcd_framing *f, uint32_t label, const gcd_type **out)
{
    gcd_type t = { label, 0, 0, NULL };
    gch_status st = expect_tag(f, GCD_TAG_NULL_REFERENCE, "the null type of a type definition");
    if (st == GCH_OK)
        st = gcd_read_i32(&f->c, &t.version, "a type version");
    if (st == GCH_OK)
        st = gcd_read_i32(&f->c, &t.min_reader_version, "a type's minimum reader version");
    size_t name_at = f->c.pos;
    if (st == GCH_OK)
        st = gcd_read_string(&f->c, &t.name, NULL, "a type name");
    if (st == GCH_OK && !t.name)
        st = gcd_fail_at(&f->c, name_at, "a type definition has a null name");
    if (st == GCH_OK)
        st = gcd_end_object(f);
    if (st == GCH_OK && f->type_count == f->type_cap) {
        size_t ncap = f->type_cap ? f->type_cap * 2 : 8;
        gcd_type *nt = gch_reallocarray(f->types, ncap, sizeof *nt);
        if (!nt)
            st = gch_error_set(f->c.err, GCH_ENOMEM, "out of memory");
        else {
            f->types = nt;
            f->type_cap = ncap;
        }
    }
    if (st != GCH_OK) {
        gch_free(t.name);
        return st;
    }
    f->types[f->type_count] = t;
    *out = &f->types[f->type_count++];
    return GCH_OK;
}

/* The type of an object: an inline definition or a reference to an earlier one. */
static gch_status read_type(gcd_framing *f, const gcd_type **out)
{
    size_t at = f->c.pos;
    uint8_t tag;
    gch_status st = gcd_read_u8(&f->c, &tag, "an object's type");
    if (st != GCH_OK)
        return st;
    if (tag == GCD_TAG_BEGIN_OBJECT)
        return read_type_definition(f, (uint32_t)at, out);
    if (tag != GCD_TAG_OBJECT_REFERENCE)
        return gcd_fail_at(&f->c, at, "expected a type definition or reference, found tag %u", tag);
    uint32_t label = 0;
    if ((st = gcd_read_u32(&f->c, &label, "a type reference")) != GCH_OK)
        return st;
    *out = find_type(f, label);
    if (!*out)
        return gcd_fail_at(&f->c, at, "type reference to offset %lu, where no type was defined",
                           (unsigned long)label);
    return GCH_OK;
}

gch_status gcd_begin_object(gcd_framing *f, const char *expected, int *present, gcd_type *type_out)
{
    *present = 0;
    memset(type_out, 0, sizeof *type_out);
    size_t at = f->c.pos;
    uint8_t tag;
    gch_status st = gcd_read_u8(&f->c, &tag, "an object tag");
    if (st != GCH_OK)
        return st;
    if (tag == GCD_TAG_NULL_REFERENCE)
        return GCH_OK;
    if (tag == GCD_TAG_FORWARD_DEFINITION) {
        int32_t index;
        if ((st = gcd_read_i32(&f->c, &index, "a forward definition")) != GCH_OK)
            return st;
        at = f->c.pos;
        if ((st = gcd_read_u8(&f->c, &tag, "an object tag")) != GCH_OK)
            return st;
        if (tag != GCD_TAG_BEGIN_OBJECT)
            return gcd_fail_at(&f->c, at, "a forward definition is not followed by an object");
    }
    if (tag == GCD_TAG_OBJECT_REFERENCE || tag == GCD_TAG_FORWARD_REFERENCE)
        return gcd_fail_at(&f->c, at, "expected %s object written in place, found a reference "
                                      "(not supported)",
                           expected ? expected : "an");
    if (tag != GCD_TAG_BEGIN_OBJECT && tag != GCD_TAG_BEGIN_PRIVATE_OBJECT)
        return gcd_fail_at(&f->c, at, "expected %s object, found tag %u", expected ? expected : "an",
                           tag);
    const gcd_type *t;
    if ((st = read_type(f, &t)) != GCH_OK)
        return st;
    if (expected && strcmp(t->name, expected) != 0)
        return gcd_fail_at(&f->c, at, "expected a %s object, found a %.100s", expected, t->name);
    *type_out = *t; /* a copy: the table may move as more types are read */
    *present = 1;
    return GCH_OK;
}

gch_status gcd_end_object(gcd_framing *f)
{
    gcd_cursor *c = &f->c;
    unsigned nesting = 0;
    for (;;) {
        size_t at = c->pos;
        uint8_t tag;
        int32_t n;
        uint32_t label = 0;
        gch_status st = gcd_read_u8(c, &tag, "the end of an object");
        if (st != GCH_OK)
            return st;
        switch (tag) {
        case GCD_TAG_END_OBJECT:
            if (nesting == 0)
                return GCH_OK;
            nesting--;
            break;
        case GCD_TAG_NULL_REFERENCE:
            break;
        case GCD_TAG_BEGIN_OBJECT:
        case GCD_TAG_BEGIN_PRIVATE_OBJECT:
            nesting++;
            break;
        case GCD_TAG_BYTE:
            st = gcd_skip(c, 1, "a tagged byte");
            break;
        case GCD_TAG_INT16:
            st = gcd_skip(c, 2, "a tagged int16");
            break;
        case GCD_TAG_INT32:
        case GCD_TAG_FORWARD_DEFINITION:
        case GCD_TAG_FORWARD_REFERENCE:
        case GCD_TAG_OBJECT_REFERENCE:
            st = gcd_skip(c, 4, "a tagged 4-byte value");
            break;
        case GCD_TAG_INT64:
            st = gcd_skip(c, 8, "a tagged int64");
            break;
        case GCD_TAG_STRING:
            st = gcd_skip_string(c, NULL, "a tagged string");
            break;
        case GCD_TAG_BLOB:
            if ((st = gcd_read_count(c, 1, &label, "blob size")) == GCH_OK)
                st = gcd_skip(c, label, "a blob");
            break;
        case GCD_TAG_SKIP_REGION:
            if ((st = gcd_read_i32(c, &n, "a skip region")) != GCH_OK)
                return st;
            if ((st = gcd_resolve_forward(f, n, at, &label)) != GCH_OK)
                return st;
            /* Only forward jumps: the loop always makes progress. */
            if (label < c->pos)
                return gcd_fail_at(c, at, "skip region ends at %lu, before itself",
                                   (unsigned long)label);
            c->pos = label;
            break;
        default:
            return gcd_fail_at(c, at, "unexpected tag %u while looking for the end of an object", tag);
        }
        if (st != GCH_OK)
            return st;
    }
}
