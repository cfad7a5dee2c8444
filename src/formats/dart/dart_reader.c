/* The Dart VM heap snapshot reader ("dartheap" binary format).
 *
 * The format as implemented, and how it maps onto the heap model, is described
 * in docs/dart-format.md. The reader works in two passes over one buffer:
 *
 *   1. scan (src/dart_snapshot.c): decode and check everything (header,
 *      classes, every object, external properties, identity hash codes,
 *      padding) and remember each object's class id, so that references to the
 *      synthetic objects (root, read-only pages, isolates) are known before
 *      anything is built;
 *   2. emit (here): decode the objects again and feed the builder: heap objects
 *      with their labelled references, the synthetic objects' references as
 *      roots, then the metadata.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dart_snapshot.h"
#include "gcheap/builder.h"
#include "gcheap/alloc.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "gcheap/utf8.h"
#include "builder_internal.h"

#define REF_CHUNK 4096        /* references handed to the builder at a time */
#define PROGRESS_EVERY 65536  /* objects between progress calls */
#define MAX_NAME_BYTES (1 << 20) /* longer class names and URIs are cut */

typedef struct dart_reader {
    gch_dart_snapshot s;
    gch_builder *b;

    uint64_t dropped_synthetic_refs; /* heap object -> synthetic object */
    char *isolates;                  /* "name, name" for the meta line */
    size_t isolates_len, isolates_cap;

    /* keep_payloads: a TEXT entry per string, a LENGTH entry per object with
     * LengthData (docs/dart-format.md, "Contents"). */
    gch_payload *pay;
    size_t npay, pay_cap;
    uint64_t first_length_ref;       /* of the object being emitted: the first
                                        heap object it references with LengthData */
    unsigned char *utf8;             /* a string's text being converted */
    size_t utf8_cap;

    /* Scratch. */
    uint64_t *refs;
    const char **labels;
    size_t scratch_cap;
    char *text;
    size_t text_cap;
} dart_reader;

static gch_status oom(dart_reader *r)
{
    return gch_error_set(r->s.err, GCH_ENOMEM, "out of memory");
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
        if (!gch_dart_grow((void **)&r->text, &r->text_cap, (size_t)n + 1, 1))
            return NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* Pass 2: emit */

/* A printf precision for a name of len bytes: names longer than 1 MiB are cut. */
static int printable(size_t len)
{
    return len > MAX_NAME_BYTES ? MAX_NAME_BYTES : (int)len;
}

static gch_status declare_types(dart_reader *r)
{
    for (uint64_t id = 1; id <= r->s.class_count; id++) {
        const gch_dart_class *k = &r->s.classes[id];
        if (k->role != GCH_DART_HEAP)
            continue;
        const char *name;
        if (k->name_len == 0)
            name = text_printf(r, "<unnamed class %llu>", (unsigned long long)id);
        else if (k->uri_len == 0)
            name = text_printf(r, "%.*s", printable(k->name_len), k->name);
        else
            name = text_printf(r, "%.*s (%.*s)", printable(k->name_len), k->name,
                               printable(k->uri_len), k->uri);
        if (!name)
            return oom(r);
        uint32_t type;
        gch_status st = gch_builder_add_type(r->b, id, name, strlen(name), &type, r->s.err);
        if (st == GCH_OK && k->uri_len)
            st = gch_builder_set_type_module(r->b, type, k->uri, (size_t)printable(k->uri_len), r->s.err);
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
    if (!gch_dart_grow((void **)&r->refs, &cap, n, sizeof *r->refs))
        return oom(r);
    cap = r->scratch_cap;
    if (!gch_dart_grow((void **)&r->labels, &cap, n, sizeof *r->labels))
        return oom(r);
    r->scratch_cap = cap;
    return GCH_OK;
}

/* Walks a class's fields (sorted by index) alongside increasing positions. */
typedef struct field_walk {
    const dart_reader *r;
    const gch_dart_field *next, *end;
} field_walk;

static void field_walk_init(field_walk *w, const dart_reader *r, const gch_dart_class *k)
{
    w->r = r;
    w->next = w->end = NULL;
    if (k->field_count) {
        w->next = r->s.fields + k->first_field;
        w->end = w->next + k->field_count;
    }
}

/* The field name at position k (positions asked in increasing order), or NULL. */
static const char *field_walk_name(field_walk *w, uint64_t k)
{
    while (w->next < w->end && w->next->index < k)
        w->next++;
    if (w->next < w->end && w->next->index == k && w->next->name != GCH_DART_NO_NAME)
        return w->r->s.names + w->next->name;
    return NULL;
}

/* Remembers target (0 allowed) when it is the object's first reference to a
 * heap object with LengthData (keep_payloads only). */
static void note_length_ref(dart_reader *r, uint64_t target)
{
    if (!r->first_length_ref && target && gch_dart_has_length(&r->s, target) &&
        !gch_dart_is_synthetic(&r->s, target))
        r->first_length_ref = target;
}

/* Reads n references of o starting at position `from` into r->refs, with
 * references to synthetic objects replaced by 0 (dropped), and their labels
 * into r->labels when w is not NULL. */
static gch_status read_reference_chunk(dart_reader *r, uint64_t from, size_t n, field_walk *w)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t target;
        gch_status st = gch_dart_read_reference(&r->s, from + i, &target);
        if (st != GCH_OK)
            return st;
        if (target != 0 && gch_dart_is_synthetic(&r->s, target)) {
            r->dropped_synthetic_refs++;
            target = 0;
        }
        note_length_ref(r, target);
        r->refs[i] = target;
        if (w)
            r->labels[i] = field_walk_name(w, from + i);
    }
    return GCH_OK;
}

static gch_status skip_references(dart_reader *r, const gch_dart_object *o)
{
    for (uint64_t i = 0; i < o->ref_count; i++) {
        uint64_t target;
        gch_status st = gch_dart_read_reference(&r->s, i, &target);
        if (st != GCH_OK)
            return st;
        /* Counted here too: the metadata must not depend on skip_refs. */
        if (target != 0 && gch_dart_is_synthetic(&r->s, target))
            r->dropped_synthetic_refs++;
        else
            note_length_ref(r, target);
    }
    return GCH_OK;
}

/* Emits a heap object. References go to the builder in chunks; the first chunk
 * covers every position a field of the class names, because the builder's
 * chunked form takes no labels. */
static gch_status emit_heap_object(dart_reader *r, const gch_dart_object *o)
{
    const gch_dart_class *k = &r->s.classes[o->class_id];
    gch_status st;
    if (r->s.opts->skip_refs) {
        st = gch_builder_object_begin(r->b, o->index, o->class_id, o->size, r->s.err);
        return st == GCH_OK ? skip_references(r, o) : st;
    }
    uint64_t first = REF_CHUNK;
    if (k->field_count) {
        uint64_t labelled = r->s.fields[k->first_field + k->field_count - 1].index + 1;
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
                                             r->s.err)) != GCH_OK)
        return st;
    for (uint64_t done = first; done < o->ref_count;) {
        size_t n = o->ref_count - done < REF_CHUNK ? (size_t)(o->ref_count - done) : REF_CHUNK;
        if ((st = read_reference_chunk(r, done, n, NULL)) != GCH_OK ||
            (st = gch_builder_object_refs(r->b, r->refs, n, r->s.err)) != GCH_OK)
            return st;
        done += n;
    }
    return GCH_OK;
}

static gch_status note_isolate_name(dart_reader *r, const char *name)
{
    size_t len = strlen(name), sep = r->isolates_len ? 2 : 0;
    if (!gch_dart_grow((void **)&r->isolates, &r->isolates_cap, r->isolates_len + sep + len + 1, 1))
        return oom(r);
    memcpy(r->isolates + r->isolates_len, ", ", sep);
    memcpy(r->isolates + r->isolates_len + sep, name, len + 1);
    r->isolates_len += sep + len;
    return GCH_OK;
}

/* The label of an isolate's roots, "isolate NAME" (NAME: its NameData, the
 * VM writes the main port; "#INDEX" without one), newly allocated. */
static char *isolate_label(dart_reader *r, const gch_dart_object *o)
{
    char *name = o->name ? gch_strndup(o->name, gch_dart_cut_at(o->name, o->name_len, '\0')) : NULL;
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
static gch_status emit_roots(dart_reader *r, const gch_dart_object *o)
{
    const gch_dart_class *k = &r->s.classes[o->class_id];
    unsigned kind;
    char *base;
    if (o->index == 1 || k->role == GCH_DART_ROOT) {
        kind = GCH_ROOT_INTERNAL;
        base = gch_strndup("Root", 4);
    } else if (k->role == GCH_DART_READ_ONLY_PAGES) {
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
        if ((st = gch_dart_read_reference(&r->s, i, &target)) != GCH_OK)
            break;
        const char *field = field_walk_name(&w, i);
        if (target == 0 || gch_dart_is_synthetic(&r->s, target))
            continue;
        const char *label = field ? text_printf(r, "%s: .%s", base, field) : base;
        st = label ? gch_builder_add_root(r->b, target, kind, 0, 0, 0, label, r->s.err) : oom(r);
    }
    gch_free(base);
    return st;
}

/* ------------------------------------------------------------------------ */
/* Contents (keep_payloads): strings' texts and recorded lengths */

/* The kept code units of string o as UTF-8 in r->utf8 (*n bytes); *flags
 * gets GCH_TEXT_LOSSY when U+0000 or a lone surrogate became U+FFFD (the
 * pool holds NUL-free text; two different strings must not look equal). */
static gch_status string_utf8(dart_reader *r, const gch_dart_object *o, size_t *n, uint8_t *flags)
{
    *n = 0;
    /* At most 3 bytes a code unit (a pair: 4 for 2); kept is backed by the input. */
    if (o->kept > (SIZE_MAX - 1) / 3 ||
        !gch_dart_grow((void **)&r->utf8, &r->utf8_cap, (size_t)o->kept * 3 + 1, 1))
        return oom(r);
    for (uint64_t i = 0; i < o->kept; i++) {
        uint32_t cp;
        if (o->tag == 5) {
            cp = o->chars[i];
        } else {
            cp = (uint32_t)o->chars[2 * i] | (uint32_t)o->chars[2 * i + 1] << 8;
            if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < o->kept) {
                uint32_t lo = (uint32_t)o->chars[2 * i + 2] | (uint32_t)o->chars[2 * i + 3] << 8;
                if (lo >= 0xDC00 && lo < 0xE000) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i++;
                }
            }
            if (cp >= 0xD800 && cp < 0xE000)
                cp = 0; /* a lone surrogate */
        }
        if (cp == 0) {
            *flags |= GCH_TEXT_LOSSY;
            cp = 0xFFFD;
        }
        *n += gch_utf8_encode(cp, r->utf8 + *n);
    }
    return GCH_OK;
}

static gch_payload *new_payload(dart_reader *r, uint64_t id, uint8_t kind)
{
    if (!gch_dart_grow((void **)&r->pay, &r->pay_cap, r->npay + 1, sizeof *r->pay))
        return NULL;
    gch_payload *p = &r->pay[r->npay++];
    memset(p, 0, sizeof *p);
    p->id = id;
    p->kind = kind;
    return p;
}

/* The payload entry of heap object o, if its data is a string or a length. */
static gch_status keep_contents(dart_reader *r, const gch_dart_object *o)
{
    if (o->tag == 7) {
        gch_payload *p = new_payload(r, o->index, GCH_PAYLOAD_LENGTH);
        if (!p)
            return oom(r);
        p->value = o->length;
        p->offset = r->first_length_ref;
        return GCH_OK;
    }
    if (o->tag != 5 && o->tag != 6)
        return GCH_OK;
    uint8_t flags = o->kept < o->length ? GCH_TEXT_CUT : 0;
    size_t n;
    uint32_t off;
    gch_status st = string_utf8(r, o, &n, &flags);
    if (st == GCH_OK)
        st = gch_builder_append_label(r->b, n ? (const char *)r->utf8 : "", n, &off, r->s.err);
    if (st != GCH_OK)
        return st;
    gch_payload *p = new_payload(r, o->index, GCH_PAYLOAD_TEXT);
    if (!p)
        return oom(r);
    p->offset = off;
    p->length = (uint32_t)n; /* at most 4 bytes a code unit the input holds */
    p->elem = flags;
    return GCH_OK;
}

static gch_status emit_objects(dart_reader *r)
{
    gch_dart_cursor *c = &r->s.cur;
    c->pos = r->s.objects_offset;
    for (uint64_t i = 1; i <= r->s.object_count; i++) {
        gch_dart_object o;
        gch_status st = gch_dart_read_object_head(&r->s, i, &o);
        r->first_length_ref = 0;
        if (st == GCH_OK)
            st = gch_dart_is_synthetic(&r->s, i) ? emit_roots(r, &o) : emit_heap_object(r, &o);
        if (st == GCH_OK && r->s.opts->keep_payloads && !gch_dart_is_synthetic(&r->s, i))
            st = keep_contents(r, &o);
        if (st != GCH_OK)
            return gch_dart_with_context(r->s.err, st, "object %llu", (unsigned long long)i);
        if (i % PROGRESS_EVERY == 0)
            gch_dart_progress(&r->s, c->size / 2 + c->pos / 2);
    }
    return GCH_OK;
}

/* ------------------------------------------------------------------------ */
/* Metadata */

/* A header line of the heap, its value formatted as printf does. */
#define META(r, ...) gch_builder_add_metaf((r)->b, (r)->s.err, __VA_ARGS__)

static const char *hash_state_text(const dart_reader *r)
{
    switch (r->s.hashes) {
    case GCH_DART_HASHES_PRESENT: return "present";
    case GCH_DART_HASHES_ALL_ZERO: return "all zero (or absent, followed by zero padding)";
    case GCH_DART_HASHES_ABSENT: break;
    }
    return "absent";
}

static gch_status add_meta_lines(dart_reader *r)
{
    typedef unsigned long long ull;
    gch_status st;
    const char *isolates = r->isolates_len ? r->isolates : "none";
    if ((st = META(r, "isolates", "%s", isolates)) != GCH_OK ||
        (st = META(r, "shallow size (header)", "%llu", (ull)r->s.shallow_size)) != GCH_OK ||
        (st = META(r, "shallow size (objects)", "%llu", (ull)r->s.object_size_sum)) != GCH_OK ||
        (st = META(r, "capacity", "%llu", (ull)r->s.capacity)) != GCH_OK ||
        (st = META(r, "external size (header)", "%llu", (ull)r->s.external_size)) != GCH_OK ||
        (st = META(r, "external size (properties)", "%llu in %llu properties",
                   (ull)r->s.property_size_sum, (ull)r->s.property_count)) != GCH_OK ||
        (st = META(r, "snapshot objects", "%llu (%llu synthetic)", (ull)r->s.object_count,
                   (ull)r->s.synthetic_objects)) != GCH_OK ||
        (st = META(r, "classes", "%llu", (ull)r->s.class_count)) != GCH_OK ||
        (st = META(r, "references (header)", "%llu", (ull)r->s.reference_count)) != GCH_OK ||
        (st = META(r, "references (records)", "%llu", (ull)r->s.refs_in_records)) != GCH_OK ||
        (st = META(r, "identity hash codes", "%s", hash_state_text(r))) != GCH_OK ||
        (st = META(r, "padding bytes", "%llu", (ull)r->s.padding)) != GCH_OK)
        return st;
    if (r->s.flags && (st = META(r, "flags", "%llu", (ull)r->s.flags)) != GCH_OK)
        return st;
    if (r->s.shallow_size != r->s.object_size_sum &&
        (st = META(r, "anomaly", "the header's shallow size %llu differs from the sum of object "
                   "sizes %llu", (ull)r->s.shallow_size, (ull)r->s.object_size_sum)) != GCH_OK)
        return st;
    if (r->s.refs_in_records > r->s.reference_count &&
        (st = META(r, "anomaly", "the records hold %llu references, more than the header's %llu",
                   (ull)r->s.refs_in_records, (ull)r->s.reference_count)) != GCH_OK)
        return st;
    if (r->dropped_synthetic_refs &&
        (st = META(r, "dropped references", "%llu to synthetic objects (root, isolates, read-only pages)",
                   (ull)r->dropped_synthetic_refs)) != GCH_OK)
        return st;
    return GCH_OK;
}

static gch_status emit(dart_reader *r)
{
    static const char default_name[] = "dart";
    size_t name_len = gch_dart_cut_at(r->s.name, r->s.name_len, '\0');
    const char *name = name_len ? r->s.name : default_name;
    if (!name_len)
        name_len = sizeof default_name - 1;
    gch_status st = gch_builder_begin_heap(r->b, name, name_len, r->s.err);
    if (st != GCH_OK)
        return st;
    gch_builder_set_id_radix(r->b, 10);
    if (r->s.opts->skip_refs)
        gch_builder_set_refs_skipped(r->b);
    if ((st = declare_types(r)) != GCH_OK || (st = emit_objects(r)) != GCH_OK ||
        (st = add_meta_lines(r)) != GCH_OK)
        return st;
    return gch_builder_end_heap(r->b, r->s.err);
}

static void reader_free(dart_reader *r)
{
    gch_builder_free(r->b);
    gch_dart_snapshot_free(&r->s);
    gch_free(r->isolates);
    gch_free(r->refs);
    gch_free(r->labels);
    gch_free(r->text);
    gch_free(r->pay);
    gch_free(r->utf8);
}

/* The payload entries onto the finished heap (made in id order). */
static void attach_payloads(dart_reader *r, gch_dump *d)
{
    if (!r->s.opts->keep_payloads || !d || d->heap_count == 0)
        return;
    gch_heap *h = d->heaps[0];
    h->payloads = r->pay;
    h->payload_count = r->npay;
    h->payloads_kept = 1;
    r->pay = NULL;
}

gch_status gch_read_dart_buffer(const void *data, size_t size, const gch_load_options *opts,
                                gch_dump **out, gch_error *err)
{
    static const gch_load_options no_options;
    gch_error_clear(err);
    *out = NULL;
    dart_reader r;
    memset(&r, 0, sizeof r);
    r.s.opts = opts ? opts : &no_options;
    r.s.err = err;
    gch_dart_cursor_init(&r.s.cur, data, size, err);
    gch_status st = gch_dart_scan(&r.s);
    if (st == GCH_OK)
        st = gch_builder_new(&r.b, "dart", err);
    if (st == GCH_OK)
        gch_builder_set_threads(r.b, r.s.opts->threads);
    if (st == GCH_OK)
        st = emit(&r);
    if (st == GCH_OK)
        st = gch_builder_finish(r.b, out, err);
    if (st == GCH_OK)
        attach_payloads(&r, *out);
    if (st == GCH_OK)
        gch_dart_progress(&r.s, size);
    if (st != GCH_OK && err && err->status == GCH_OK)
        err->status = st;
    reader_free(&r);
    return st;
}
