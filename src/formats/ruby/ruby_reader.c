/* Ruby heap dumps: ObjectSpace.dump_all's JSON lines (docs/ruby-format.md).
 *
 * One JSON object a line: ROOT lines (a root category and the addresses it
 * holds) then every heap slot in use, in heap order. Lines are parsed one at
 * a time, in place in a buffer or from blocks read from a source, and each
 * object goes to the builder as it comes. What needs the whole dump waits
 * for the end: type names (an object's class line may come after the
 * object), allocation sites and String values (attached to the finished
 * heap by object id). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builder_internal.h"
#include "gcheap/alloc.h"
#include "gcheap/builder.h"
#include "gcheap/load.h"
#include "grow.h"
#include "threading.h"
#include "ruby_line.h"
#include "ruby_pieces.h"
#include "str_table.h"
#include "u64_map.h"

/* The longest line taken, as for .gclog (a ROOT line of millions of
 * addresses fits). */
#define RB_MAX_LINE GCH_GCLOG_MAX_LINE
#define RB_BLOCK ((size_t)1 << 20)
/* Steps taken along superclass links to name an object of an unnamed
 * (singleton or anonymous) class. */
#define RB_SUPER_STEPS 64

/* A class, module or iclass line: what naming an object's class needs. */
typedef struct rb_class {
    uint64_t superclass;
    uint32_t name; /* in r->names, or UINT32_MAX */
} rb_class;

/* Recent allocation sites, by line and file name (objects of a few sites
 * alternate in a dump: a site's hashing is then paid once). */
#define RB_SITE_CACHE 64
#define RB_SITE_FILE 48
typedef struct rb_site_slot {
    uint64_t line;
    uint32_t site;     /* builder pool offset of "file:line" */
    uint32_t len;      /* of the file name; 0: empty slot */
    char file[RB_SITE_FILE];
} rb_site_slot;

/* Class addresses already named types (used_at), by address bits: most
 * objects find theirs here instead of hashing. */
#define RB_USED_CACHE 256

/* An object whose allocation site the dump gives. */
typedef struct rb_site {
    uint64_t record; /* its object record's number, from 0 */
    uint64_t id;
    uint32_t site;   /* builder pool offset of "file:line" */
} rb_site;

typedef struct rb_reader {
    gch_builder *b;
    gch_error *err;
    const gch_load_options *opts;
    int labels, keep_text, skip_refs;
    uint64_t line;      /* the line being read, from 1 */
    uint64_t records;   /* object lines so far */
    uint64_t root_lines;
    rb_refs refs;
    uint64_t *out;      /* references handed to the builder */
    uint32_t *outlab;
    size_t out_cap, outlab_cap;
    uint32_t class_label;
    char *text;         /* an unescaped string */
    size_t text_cap;

    gch_u64_map class_at; /* class address -> index in cls */
    rb_class *cls;
    size_t ncls, cls_cap;
    gch_str_table names;     /* class names */
    /* Types named by a class: the class address is the raw type id. */
    gch_u64_map used_at;  /* class address -> index in used */
    uint64_t *used;
    uint8_t *used_kind;   /* the kind of the first object of that class */
    size_t nused, used_cap;
    /* Types named without a class (imemo_*, Class, hidden String, ...):
     * raw type id 2 * number + 1 (odd: never a slot address). */
    gch_str_table synth;
    /* Roots: (category, address) pairs seen, to give each once. */
    gch_str_table root_cats;
    gch_u64_map root_seen; /* address -> bit set of categories (first 32) */
    gch_str_table sites;      /* "file:line" -> number; pool offset in site_off */
    uint32_t *site_off;
    size_t site_cap;
    rb_site *site_of;
    size_t nsite_of, site_of_cap;
    rb_site_slot site_cache[RB_SITE_CACHE];
    uint64_t used_cache[RB_USED_CACHE]; /* 0: empty */
    gch_payload *pay;
    size_t npay, pay_cap;
    uint64_t bytes_done;   /* for progress */
    const char *data;      /* the buffer read in pieces */
    uint64_t next_progress;
} rb_reader;

static gch_status fail_line(rb_reader *r, const char *fmt, const char *what, size_t col)
{
    r->err->line = r->line;
    if (col != (size_t)-1)
        return gch_error_set(r->err, GCH_EFORMAT, "%s (column %zu)", what, col + 1);
    return gch_error_set(r->err, GCH_EFORMAT, fmt, what);
}

static gch_status oom(rb_reader *r)
{
    return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
}

/* The unescaped text of s in r->text (NUL-terminated); NULL when out of memory. */
static const char *text_of(rb_reader *r, rb_str s, size_t *len)
{
    if (!gch_grow((void **)&r->text, &r->text_cap, s.n + 1, 1, 256))
        return NULL;
    *len = rb_unescape(s, r->text);
    r->text[*len] = '\0';
    return r->text;
}

/* ---- type names ---- */

/* What Ruby calls an object of kind k that has no named class: the class
 * `obj.class` gives for the visible kinds, the T_ constant of
 * ObjectSpace.count_objects for the internal ones. */
static const char *kind_fallback(rb_kind k)
{
    switch (k) {
    case RB_OBJECT: return "Object";
    case RB_CLASS: return "Class";
    case RB_MODULE: return "Module";
    case RB_FLOAT: return "Float";
    case RB_STRING: return "String";
    case RB_REGEXP: return "Regexp";
    case RB_ARRAY: return "Array";
    case RB_HASH: return "Hash";
    case RB_STRUCT: return "Struct";
    case RB_BIGNUM: return "Integer";
    case RB_FILE: return "File";
    case RB_MATCH: return "MatchData";
    case RB_SYMBOL: return "Symbol";
    case RB_RATIONAL: return "Rational";
    case RB_COMPLEX: return "Complex";
    default: return NULL;
    }
}

/* Kinds named after their class (when it has a name). */
static int named_by_class(rb_kind k)
{
    return k == RB_DATA || (kind_fallback(k) != NULL && k != RB_CLASS && k != RB_MODULE);
}

/* Kinds whose "class" is a class, and so a reference the object holds (the
 * dump leaves it out of "references"): all but IMEMO (where that word is
 * another field: a call cache's class, a method entry's owner) and NODE. */
static int class_is_edge(rb_kind k)
{
    return k != RB_IMEMO && k != RB_NODE && k != RB_UNKNOWN;
}

static gch_status synth_type(rb_reader *r, const char *name, size_t len, uint64_t *raw)
{
    uint32_t i;
    int added;
    if (!gch_str_table_put(&r->synth, name, len, &i, &added))
        return oom(r);
    *raw = 2 * (uint64_t)i + 1;
    if (added)
        return gch_builder_add_type(r->b, *raw, name, len, NULL, r->err);
    return GCH_OK;
}

/* A synthetic type named prefix + the text of field, cut to 95 bytes in
 * all. */
static gch_status synth_prefixed(rb_reader *r, const char *prefix, rb_str field, uint64_t *raw)
{
    char buf[96];
    size_t len, plen = strlen(prefix);
    const char *t = text_of(r, field, &len);
    if (!t)
        return oom(r);
    if (len > sizeof buf - 1 - plen)
        len = sizeof buf - 1 - plen;
    memcpy(buf, prefix, plen);
    memcpy(buf + plen, t, len);
    return synth_type(r, buf, plen + len, raw);
}

/* The raw type id of the object in rec. */
static gch_status type_of(rb_reader *r, const rb_record *rec, uint64_t *raw)
{
    char buf[96];
    size_t len;
    const char *t;
    if (named_by_class(rec->kind) && rec->klass) {
        int found;
        uint64_t *cached = &r->used_cache[(rec->klass >> 3) % RB_USED_CACHE];
        *raw = rec->klass;
        if (*cached == rec->klass)
            return GCH_OK;
        *cached = rec->klass;
        if (!gch_u64_map_put(&r->used_at, rec->klass, (uint32_t)r->nused, &found))
            return oom(r);
        if (!found) {
            size_t c1 = r->used_cap, c2 = r->used_cap;
            if (r->nused >= UINT32_MAX - 1 ||
                !gch_grow((void **)&r->used, &c1, r->nused + 1, sizeof *r->used, 256) ||
                !gch_grow((void **)&r->used_kind, &c2, r->nused + 1, 1, 256))
                return oom(r);
            r->used_cap = c1 < c2 ? c1 : c2;
            r->used[r->nused] = rec->klass;
            r->used_kind[r->nused++] = (uint8_t)rec->kind;
        }
        *raw = rec->klass;
        return GCH_OK;
    }
    switch (rec->kind) {
    case RB_IMEMO:
        if (rec->imemo_type.n)
            return synth_prefixed(r, "imemo_", rec->imemo_type, raw);
        return synth_type(r, "T_IMEMO", 7, raw);
    case RB_DATA:
        if (rec->strct.n) {
            if (!(t = text_of(r, rec->strct, &len)))
                return oom(r);
            return synth_type(r, t, len, raw);
        }
        return synth_type(r, "T_DATA", 6, raw);
    case RB_UNKNOWN:
        return synth_prefixed(r, "T_", rec->type, raw);
    default:
        if ((t = kind_fallback(rec->kind)) != NULL)
            return synth_type(r, t, strlen(t), raw);
        snprintf(buf, sizeof buf, "T_%s", rb_kind_word(rec->kind));
        return synth_type(r, buf, strlen(buf), raw);
    }
}

/* A CLASS, MODULE or ICLASS line: kept for naming. A second line of the
 * same address is the builder's duplicate; its class facts are ignored. */
static gch_status note_class(rb_reader *r, const rb_record *rec)
{
    int found;
    if (r->ncls >= UINT32_MAX - 1 ||
        !gch_u64_map_put(&r->class_at, rec->address, (uint32_t)r->ncls, &found))
        return oom(r);
    if (found)
        return GCH_OK;
    if (!gch_grow((void **)&r->cls, &r->cls_cap, r->ncls + 1, sizeof *r->cls, 256))
        return oom(r);
    rb_class *c = &r->cls[r->ncls++];
    c->superclass = rec->superclass;
    c->name = UINT32_MAX;
    if (rec->has_name && rec->name.n) {
        size_t len;
        const char *t = text_of(r, rec->name, &len);
        int added;
        if (!t || !gch_str_table_put(&r->names, t, len, &c->name, &added))
            return oom(r);
    }
    return GCH_OK;
}

/* Declares the types named by a class: its name, or the name of the
 * nearest named class along its superclass links (a singleton class has
 * none: its object's class is its superclass), or the kind's. */
static gch_status name_class_types(rb_reader *r)
{
    for (size_t i = 0; i < r->nused; i++) {
        uint64_t a = r->used[i];
        uint32_t name = UINT32_MAX;
        for (int step = 0; step < RB_SUPER_STEPS && a; step++) {
            uint32_t c = gch_u64_map_get(&r->class_at, a);
            if (c == UINT32_MAX)
                break;
            if (r->cls[c].name != UINT32_MAX) {
                name = r->cls[c].name;
                break;
            }
            a = r->cls[c].superclass;
        }
        const char *t = name != UINT32_MAX ? gch_str_table_text(&r->names, name)
                                           : kind_fallback((rb_kind)r->used_kind[i]);
        if (!t)
            t = "T_DATA"; /* a DATA object of a class the dump does not name */
        size_t len = name != UINT32_MAX ? gch_str_table_len(&r->names, name) : strlen(t);
        gch_status st = gch_builder_add_type(r->b, r->used[i], t, len, NULL, r->err);
        if (st != GCH_OK)
            return st;
    }
    return GCH_OK;
}

/* ---- roots ---- */

/* Root categories of gc.c (rb_objspace_reachable_objects_from_root) as
 * gcheap's kinds; the category itself is the root's label. */
static unsigned root_kind(const char *cat)
{
    if (strcmp(cat, "machine_context") == 0)
        return GCH_ROOT_LOCAL;
    if (strcmp(cat, "global_tbl") == 0)
        return GCH_ROOT_STATIC;
    if (strcmp(cat, "global_list") == 0)
        return GCH_ROOT_HANDLE;
    if (strncmp(cat, "finalizer", 9) == 0)
        return GCH_ROOT_FINALIZER;
    if (strcmp(cat, "vm") == 0)
        return GCH_ROOT_RUNTIME;
    return GCH_ROOT_INTERNAL;
}

static gch_status add_roots(rb_reader *r, const rb_record *rec, const uint64_t *refs)
{
    size_t len;
    if (!rec->root.n)
        return fail_line(r, "%s", "ROOT line without a \"root\" category", (size_t)-1);
    const char *cat = text_of(r, rec->root, &len);
    uint32_t ci;
    int added;
    if (!cat || !gch_str_table_put(&r->root_cats, cat, len, &ci, &added))
        return oom(r);
    unsigned kind = root_kind(cat);
    r->root_lines++;
    for (size_t i = 0; i < rec->nrefs; i++) {
        uint64_t a = refs[i];
        if (!a)
            continue;
        /* The vm root names one object many times: once is enough. */
        uint32_t bit = ci < 32 ? 1u << ci : 0;
        int found;
        uint32_t *bits = gch_u64_map_put(&r->root_seen, a, bit, &found);
        if (!bits)
            return oom(r);
        if (found && bit) {
            if (*bits & bit)
                continue;
            *bits |= bit;
        }
        gch_status st = gch_builder_add_root(r->b, a, kind, 0, 0, 0, cat, r->err);
        if (st != GCH_OK)
            return st;
    }
    return GCH_OK;
}

/* ---- objects ---- */

static gch_status push_site(rb_reader *r, const rb_record *rec, uint32_t off)
{
    if (!gch_grow((void **)&r->site_of, &r->site_of_cap, r->nsite_of + 1, sizeof *r->site_of, 1024))
        return oom(r);
    r->site_of[r->nsite_of++] = (rb_site){ r->records, rec->address, off };
    return GCH_OK;
}

static gch_status note_site(rb_reader *r, const rb_record *rec)
{
    rb_site_slot *slot = &r->site_cache[(rec->line * 31 + rec->file.n) % RB_SITE_CACHE];
    int cacheable = !rec->file.escaped && rec->file.n && rec->file.n <= RB_SITE_FILE;
    if (cacheable && slot->len == rec->file.n && slot->line == rec->line &&
        memcmp(rec->file.p, slot->file, rec->file.n) == 0)
        return push_site(r, rec, slot->site);
    size_t len;
    const char *t = text_of(r, rec->file, &len);
    if (!t)
        return oom(r);
    /* "file:line" built in place after the file name (no printf: once an object) */
    if (!gch_grow((void **)&r->text, &r->text_cap, len + 24, 1, 256))
        return oom(r);
    char digits[20];
    int nd = 0;
    uint64_t v = rec->line;
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    r->text[len++] = ':';
    while (nd)
        r->text[len++] = digits[--nd];
    uint32_t i;
    int added;
    if (!gch_str_table_put(&r->sites, r->text, len, &i, &added))
        return oom(r);
    if (added) {
        if (!gch_grow((void **)&r->site_off, &r->site_cap, (size_t)i + 1, sizeof *r->site_off, 256))
            return oom(r);
        gch_status st = gch_builder_append_label(r->b, r->text, len, &r->site_off[i], r->err);
        if (st != GCH_OK)
            return st;
    }
    if (cacheable) {
        memcpy(slot->file, rec->file.p, rec->file.n);
        slot->len = (uint32_t)rec->file.n;
        slot->line = rec->line;
        slot->site = r->site_off[i];
    }
    return push_site(r, rec, r->site_off[i]);
}

static gch_status note_value(rb_reader *r, const rb_record *rec)
{
    size_t len;
    const char *t = text_of(r, rec->value, &len);
    if (!t)
        return oom(r);
    if (len > UINT32_MAX)
        len = UINT32_MAX; /* the payload's length field */
    uint32_t off;
    gch_status st = gch_builder_append_label(r->b, t, len, &off, r->err);
    if (st != GCH_OK)
        return st;
    if (!gch_grow((void **)&r->pay, &r->pay_cap, r->npay + 1, sizeof *r->pay, 1024))
        return oom(r);
    gch_payload *p = &r->pay[r->npay++];
    memset(p, 0, sizeof *p);
    p->id = rec->address;
    p->offset = off;
    p->length = (uint32_t)len;
    p->kind = GCH_PAYLOAD_TEXT;
    return GCH_OK;
}

static gch_status add_object(rb_reader *r, const rb_record *rec, const uint64_t *refs)
{
    if (!rec->has_address)
        return fail_line(r, "%s", "object without an \"address\"", (size_t)-1);
    if (!rec->address)
        return fail_line(r, "%s", "object at address 0x0", (size_t)-1);
    if (!rec->has_type)
        return fail_line(r, "%s", "object without a \"type\"", (size_t)-1);
    uint64_t raw = 0;
    gch_status st = type_of(r, rec, &raw);
    if (st != GCH_OK)
        return st;
    if (rec->kind == RB_CLASS || rec->kind == RB_MODULE || rec->kind == RB_ICLASS) {
        if ((st = note_class(r, rec)) != GCH_OK)
            return st;
    }
    if (rec->has_file && rec->has_line && (st = note_site(r, rec)) != GCH_OK)
        return st;
    if (r->keep_text && rec->kind == RB_STRING && rec->has_value && (st = note_value(r, rec)) != GCH_OK)
        return st;
    r->records++;
    if (r->skip_refs)
        return gch_builder_add_object(r->b, rec->address, raw, rec->memsize, NULL, 0, r->err);

    size_t n = rec->nrefs + 1;
    if (!gch_grow((void **)&r->out, &r->out_cap, n, sizeof *r->out, 256) ||
        (r->labels && !gch_grow((void **)&r->outlab, &r->outlab_cap, n, sizeof *r->outlab, 256)))
        return oom(r);
    size_t k = 0;
    if (rec->klass && class_is_edge(rec->kind)) {
        r->out[k] = rec->klass;
        if (r->labels)
            r->outlab[k] = r->class_label;
        k++;
    }
    if (rec->nrefs)
        memcpy(r->out + k, refs, rec->nrefs * sizeof *r->out);
    if (r->labels)
        for (size_t i = 0; i < rec->nrefs; i++)
            r->outlab[k + i] = GCH_NONE;
    k += rec->nrefs;
    if (r->labels)
        return gch_builder_add_object_label_offsets(r->b, rec->address, raw, rec->memsize, r->out,
                                                    r->outlab, k, r->err);
    return gch_builder_add_object(r->b, rec->address, raw, rec->memsize, r->out, k, r->err);
}

static gch_status add_record(rb_reader *r, const rb_record *rec, const uint64_t *refs)
{
    return rec->kind == RB_ROOT ? add_roots(r, rec, refs) : add_object(r, rec, refs);
}

/* One line [p, end), without its newline. */
static gch_status do_line(rb_reader *r, const char *p, const char *end)
{
    const char *q = p;
    while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
        q++;
    if (q == end)
        return GCH_OK; /* a blank line */
    rb_record rec;
    size_t col;
    const char *msg = rb_parse_line(p, end, &rec, &r->refs, &col);
    if (msg) {
        if (strcmp(msg, "out of memory") == 0)
            return oom(r);
        return fail_line(r, "%s", msg, col);
    }
    return add_record(r, &rec, r->refs.v);
}

static void progress(rb_reader *r, uint64_t bytes)
{
    r->bytes_done = bytes;
    if (r->opts->progress)
        r->opts->progress(r->opts->progress_ctx, bytes);
}

/* A piece of the buffer, parsed (on this thread or another): its records
 * go to the builder in order, then its error if it has one. */
static gch_status take_piece(void *ctx, const rb_piece *pc)
{
    rb_reader *r = ctx;
    uint64_t base = r->line;
    for (size_t i = 0; i < pc->n; i++) {
        const rb_parsed *x = &pc->recs[i];
        r->line = base + x->line;
        /* A piece without references has no array (NULL + 0 is undefined). */
        gch_status st = add_record(r, &x->rec, pc->refs.v ? pc->refs.v + x->ref_at : NULL);
        if (st != GCH_OK)
            return st;
    }
    r->line = base + pc->lines;
    if (pc->msg) {
        if (strcmp(pc->msg, "out of memory") == 0)
            return oom(r);
        return fail_line(r, "%s", pc->msg, pc->col);
    }
    uint64_t done = (uint64_t)(pc->end - r->data);
    if (done >= r->next_progress) {
        progress(r, done);
        r->next_progress = done + (1u << 24);
    }
    return GCH_OK;
}

/* Lines of a buffer in place, in pieces parsed on up to two threads. */
static gch_status parse_buffer(rb_reader *r, const char *data, size_t size)
{
    gch_parallel par = gch_parallel_for(r->opts->threads);
    r->data = data;
    r->next_progress = 1u << 24;
    gch_status st = rb_parse_pieces(data, size, &par, RB_MAX_LINE, take_piece, r);
    if (st == GCH_ENOMEM)
        return oom(r);
    if (st == GCH_OK)
        progress(r, size);
    return st;
}

/* Lines from a source, a block at a time; a line longer than the block
 * grows it (up to RB_MAX_LINE). */
static gch_status parse_source(rb_reader *r, const gch_source *src)
{
    size_t cap = RB_BLOCK, len = 0, start = 0;
    char *buf = gch_malloc(cap);
    if (!buf)
        return oom(r);
    gch_status st = GCH_OK;
    uint64_t total = 0;
    int eof = 0;
    while (!eof || start < len) {
        /* the complete lines in buf[start, len) */
        char *nl;
        while ((nl = memchr(buf + start, '\n', len - start)) != NULL) {
            r->line++;
            if ((st = do_line(r, buf + start, nl)) != GCH_OK)
                goto out;
            start = (size_t)(nl - buf) + 1;
        }
        if (eof) { /* the last line, without its newline */
            if (start < len) {
                r->line++;
                st = do_line(r, buf + start, buf + len);
            }
            goto out;
        }
        memmove(buf, buf + start, len - start);
        len -= start;
        start = 0;
        if (len == cap) {
            if (cap > RB_MAX_LINE) {
                r->line++;
                st = fail_line(r, "line longer than %s bytes", "67108864", (size_t)-1);
                goto out;
            }
            char *nb = gch_realloc(buf, cap * 2);
            if (!nb) {
                st = oom(r);
                goto out;
            }
            buf = nb;
            cap *= 2;
        }
        long long got = src->read(src->ctx, buf + len, cap - len);
        if (got < 0) {
            st = gch_error_set(r->err, GCH_EIO, "read error");
            goto out;
        }
        if (got == 0)
            eof = 1;
        len += (size_t)got;
        total += (uint64_t)got;
        progress(r, total);
    }
out:
    gch_free(buf);
    return st;
}

/* ---- the end: what needs the finished heap ---- */

static int cmp_payload(const void *a, const void *b)
{
    const gch_payload *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->offset < y->offset ? -1 : x->offset > y->offset; /* the first record first */
}

static void attach_payloads(rb_reader *r, gch_heap *h)
{
    if (!r->keep_text)
        return;
    if (r->npay) {
        qsort(r->pay, r->npay, sizeof *r->pay, cmp_payload);
        size_t w = 0;
        for (size_t i = 0; i < r->npay; i++)
            if (w == 0 || r->pay[w - 1].id != r->pay[i].id)
                r->pay[w++] = r->pay[i];
        h->payloads = r->pay;
        h->payload_count = w;
        r->pay = NULL;
    }
    h->payloads_kept = 1;
}

static int cmp_u64_pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* Each object's site, by object index: the object records are the heap's
 * objects in order unless ids repeated (then by id, the first record's). */
static gch_status attach_sites(rb_reader *r, gch_heap *h)
{
    if (!r->nsite_of)
        return GCH_OK;
    uint32_t *site = gch_malloc((h->object_count ? h->object_count : 1) * sizeof *site);
    if (!site)
        return oom(r);
    for (uint32_t o = 0; o < h->object_count; o++)
        site[o] = GCH_NONE;
    if (h->object_count == r->records) {
        for (size_t i = 0; i < r->nsite_of; i++)
            site[r->site_of[i].record] = r->site_of[i].site;
    } else {
        /* (id, index) sorted; each site goes to its id's object */
        uint64_t *byid = gch_reallocarray(NULL, (size_t)h->object_count + 1, 2 * sizeof *byid);
        if (!byid) {
            gch_free(site);
            return oom(r);
        }
        for (uint32_t o = 0; o < h->object_count; o++) {
            byid[2 * o] = h->object_id[o];
            byid[2 * o + 1] = o;
        }
        qsort(byid, h->object_count, 2 * sizeof *byid, cmp_u64_pair);
        for (size_t i = 0; i < r->nsite_of; i++) {
            size_t lo = 0, hi = h->object_count;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (byid[2 * mid] < r->site_of[i].id)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < h->object_count && byid[2 * lo] == r->site_of[i].id &&
                site[byid[2 * lo + 1]] == GCH_NONE)
                site[byid[2 * lo + 1]] = r->site_of[i].site;
        }
        gch_free(byid);
    }
    h->object_site = site;
    return GCH_OK;
}

static gch_status add_meta_u64(rb_reader *r, const char *key, uint64_t v)
{
    return gch_builder_add_metaf(r->b, r->err, key, "%llu", (unsigned long long)v);
}

static void reader_free(rb_reader *r)
{
    gch_builder_free(r->b);
    gch_free(r->refs.v);
    gch_free(r->out);
    gch_free(r->outlab);
    gch_free(r->text);
    gch_u64_map_free(&r->class_at);
    gch_free(r->cls);
    gch_str_table_free(&r->names);
    gch_u64_map_free(&r->used_at);
    gch_free(r->used);
    gch_free(r->used_kind);
    gch_str_table_free(&r->synth);
    gch_str_table_free(&r->root_cats);
    gch_u64_map_free(&r->root_seen);
    gch_str_table_free(&r->sites);
    gch_free(r->site_off);
    gch_free(r->site_of);
    gch_free(r->pay);
}

static gch_status read_ruby(const char *data, size_t size, const gch_source *src,
                            const gch_load_options *opts, gch_dump **out, gch_error *err)
{
    static const gch_load_options no_options;
    rb_reader r;
    memset(&r, 0, sizeof r);
    gch_error_clear(err);
    *out = NULL;
    r.err = err;
    r.opts = opts ? opts : &no_options;
    r.skip_refs = r.opts->skip_refs;
    r.labels = !r.skip_refs && !r.opts->skip_labels;
    r.keep_text = r.opts->keep_payloads;
    gch_str_table_init(&r.names);
    gch_str_table_init(&r.synth);
    gch_str_table_init(&r.root_cats);
    gch_str_table_init(&r.sites);

    gch_status st = gch_builder_new(&r.b, "ruby", err);
    if (st == GCH_OK) {
        gch_builder_set_threads(r.b, r.opts->threads);
        st = gch_builder_begin_heap(r.b, "ruby", 4, err);
    }
    if (st == GCH_OK && r.skip_refs)
        gch_builder_set_refs_skipped(r.b);
    if (st == GCH_OK && r.labels)
        st = gch_builder_intern_label(r.b, "<class>", 7, &r.class_label, err);
    if (st == GCH_OK)
        st = src ? parse_source(&r, src) : parse_buffer(&r, data, size);
    if (st == GCH_OK && r.records == 0 && r.root_lines == 0) {
        err->line = r.line ? r.line : 1;
        st = gch_error_set(err, GCH_EFORMAT, "no object in the dump");
    }
    if (st == GCH_OK)
        st = name_class_types(&r);
    if (st == GCH_OK)
        st = add_meta_u64(&r, "object_lines", r.records);
    if (st == GCH_OK)
        st = add_meta_u64(&r, "root_lines", r.root_lines);
    if (st == GCH_OK)
        st = add_meta_u64(&r, "classes", r.ncls);
    if (st == GCH_OK)
        st = add_meta_u64(&r, "allocation_sites", r.sites.n);
    if (st == GCH_OK) {
        err->line = 0;
        st = gch_builder_end_heap(r.b, err);
    }
    gch_dump *dump = NULL;
    if (st == GCH_OK)
        st = gch_builder_finish(r.b, &dump, err);
    if (st == GCH_OK) {
        gch_heap *h = dump->heaps[0];
        attach_payloads(&r, h);
        st = attach_sites(&r, h);
    }
    reader_free(&r);
    if (st != GCH_OK) {
        gch_dump_free(dump);
        return st;
    }
    *out = dump;
    return GCH_OK;
}

gch_status gch_read_ruby(const gch_source *src, const gch_load_options *opts, gch_dump **out,
                         gch_error *err)
{
    return read_ruby(NULL, 0, src, opts, out, err);
}

gch_status gch_read_ruby_buffer(const void *data, size_t size, const gch_load_options *opts,
                                gch_dump **out, gch_error *err)
{
    return read_ruby(data, size, NULL, opts, out, err);
}
