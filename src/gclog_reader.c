/* The .gclog reader: a streaming tokenizer over large blocks.
 *
 * The grammar as implemented is documented in docs/gclog-format.md. Lines are
 * found with memchr and parsed in place in the block buffer; only a line longer
 * than the buffer makes it grow. References of an object are gathered in a
 * fixed chunk and handed to the builder, so no record allocates.
 */
#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"

#define BLOCK_SIZE (4u << 20)
#define REF_CHUNK 4096

/* Hex digit value plus one; 0 for anything else. */
static const unsigned char hex_plus_one[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};
#define HEX_VALUE(c) ((int)hex_plus_one[(unsigned char)(c)] - 1)

typedef struct reader {
    const gch_source *src;
    const gch_load_options *opts;
    gch_builder *b;
    gch_error *err;
    char *buf;
    size_t cap, start, end;
    int eof;
    uint64_t consumed; /* bytes handed to the line parser */
    uint64_t line;
    int sections;
    uint64_t open_timestamp;
    int open_has_timestamp;
    uint64_t refs[REF_CHUNK];
    /* buffer mode (no callback) */
    const char *data;
    size_t data_size;
} reader;

static int is_space(char c) { return c == ' ' || c == '\t'; }

static gch_status fail(reader *r, const char *fmt, const char *a, const char *b)
{
    gch_error_set(r->err, GCH_EFORMAT, fmt, a, b);
    if (r->err)
        r->err->line = r->line;
    return GCH_EFORMAT;
}

static void skip_ws(const char **p, const char *end)
{
    while (*p < end && is_space(**p))
        (*p)++;
}

/* Prints a field for a message: at most 24 bytes, control bytes as '?'. */
static const char *shown(const char *p, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    while (p < end && !is_space(*p) && n + 4 < cap && n < 24) {
        unsigned char c = (unsigned char)*p++;
        out[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (p < end && !is_space(*p) && n + 4 < cap) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

enum { HEX_OK, HEX_MISSING, HEX_BAD, HEX_WIDE };

static int parse_hex(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    skip_ws(&p, end);
    if (p == end)
        return HEX_MISSING;
    uint64_t v = 0;
    const char *s = p;
    while (p < end && !is_space(*p)) {
        int d = HEX_VALUE(*p);
        if (d < 0) {
            *pp = s;
            return HEX_BAD;
        }
        if (v >> 60) {
            *pp = s;
            return HEX_WIDE;
        }
        v = (v << 4) | (uint64_t)d;
        p++;
    }
    *pp = p;
    *out = v;
    return HEX_OK;
}

/* Parses a required hex field; reports a precise error naming what and rec. */
static gch_status need_hex(reader *r, const char **p, const char *end, uint64_t *out, const char *what,
                           const char *rec)
{
    const char *s = *p;
    int rc = parse_hex(p, end, out);
    if (rc == HEX_OK)
        return GCH_OK;
    char tok[40], msg[160];
    if (rc == HEX_MISSING) {
        snprintf(msg, sizeof msg, "'%s' record: missing %s", rec, what);
        return fail(r, "%s%s", msg, "");
    }
    skip_ws(&s, end);
    if (rc == HEX_WIDE) {
        snprintf(msg, sizeof msg, "'%s' record: %s '%s' is wider than 64 bits", rec, what,
                 shown(s, end, tok, sizeof tok));
        return fail(r, "%s%s", msg, "");
    }
    const char *q = s;
    while (q < end && !is_space(*q) && HEX_VALUE(*q) >= 0)
        q++;
    if (q < end && *q == '\r')
        snprintf(msg, sizeof msg,
                 "'%s' record: carriage return inside the line (line ends must be LF or CRLF)", rec);
    else if (q < end && *q == '\0')
        snprintf(msg, sizeof msg, "'%s' record: NUL byte in %s", rec, what);
    else
        snprintf(msg, sizeof msg, "'%s' record: %s '%s' is not a hexadecimal number", rec, what,
                 shown(s, end, tok, sizeof tok));
    return fail(r, "%s%s", msg, "");
}

static gch_status no_more_fields(reader *r, const char *p, const char *end, const char *rec)
{
    skip_ws(&p, end);
    if (p == end)
        return GCH_OK;
    char tok[40];
    return fail(r, "'%s' record: unexpected extra field '%s'", rec, shown(p, end, tok, sizeof tok));
}

/* Trims spaces and tabs at both ends of [*p, *end). */
static void trim(const char **p, const char **end)
{
    skip_ws(p, *end);
    while (*end > *p && is_space((*end)[-1]))
        (*end)--;
}

static int all_hex(const char *p, const char *end, uint64_t *v)
{
    const char *q = p;
    return parse_hex(&q, end, v) == HEX_OK && q == end;
}

static gch_status text_field_check(reader *r, const char *p, const char *end, const char *rec,
                                   const char *what)
{
    if (memchr(p, '\0', (size_t)(end - p)))
        return fail(r, "'%s' record: NUL byte in %s", rec, what);
    if (memchr(p, '\r', (size_t)(end - p)))
        return fail(r, "'%s' record: carriage return inside the line (line ends must be LF or CRLF)%s",
                    rec, "");
    return GCH_OK;
}

static gch_status end_section(reader *r)
{
    return gch_builder_end_heap(r->b, r->err);
}

static gch_status record_appdomain(reader *r, const char *p, const char *end)
{
    uint64_t version;
    gch_status st = need_hex(r, &p, end, &version, "format version", "a");
    if (st != GCH_OK)
        return st;
    trim(&p, &end);
    if (p == end)
        return fail(r, "'%s' record: missing %s", "a", "appdomain name");
    if ((st = text_field_check(r, p, end, "a", "the appdomain name")) != GCH_OK)
        return st;
    /* The timestamp is optional: it is the last field when that field is hex and
     * a name precedes it. */
    const char *last = end;
    while (last > p && !is_space(last[-1]))
        last--;
    uint64_t ts = 0;
    int has_ts = 0;
    const char *name_end = end;
    if (last > p && all_hex(last, end, &ts)) {
        has_ts = 1;
        name_end = last;
        while (name_end > p && is_space(name_end[-1]))
            name_end--;
    }
    if (gch_builder_heap_open(r->b)) {
        gch_builder_note_missing_end(r->b);
        if ((st = end_section(r)) != GCH_OK)
            return st;
    }
    if ((st = gch_builder_begin_heap(r->b, p, (size_t)(name_end - p), r->err)) != GCH_OK)
        return st;
    if (r->opts->skip_refs)
        gch_builder_set_refs_skipped(r->b);
    r->sections++;
    char buf[64];
    snprintf(buf, sizeof buf, "%llx", (unsigned long long)version);
    if ((st = gch_builder_add_meta(r->b, "version", buf, r->err)) != GCH_OK)
        return st;
    r->open_has_timestamp = has_ts;
    r->open_timestamp = ts;
    if (has_ts) {
        snprintf(buf, sizeof buf, "%llx", (unsigned long long)ts);
        if ((st = gch_builder_add_meta(r->b, "start timestamp", buf, r->err)) != GCH_OK)
            return st;
    }
    return GCH_OK;
}

static gch_status record_close(reader *r, const char *p, const char *end)
{
    if (!gch_builder_heap_open(r->b))
        return fail(r, "'%s' record: %s", "c", "no appdomain section is open");
    trim(&p, &end);
    gch_status st;
    if ((st = text_field_check(r, p, end, "c", "the appdomain name")) != GCH_OK)
        return st;
    const char *last = end;
    while (last > p && !is_space(last[-1]))
        last--;
    uint64_t ts = 0;
    int has_ts = 0;
    const char *name_end = end;
    if (last > p && all_hex(last, end, &ts)) {
        has_ts = 1;
        name_end = last;
        while (name_end > p && is_space(name_end[-1]))
            name_end--;
    }
    const char *open_name = gch_builder_heap_name(r->b);
    size_t n = (size_t)(name_end - p);
    if (n == 0 && has_ts) {
        /* "c 1234": a hex-looking name with no timestamp */
        n = (size_t)(end - p);
        has_ts = 0;
    }
    if (strlen(open_name) != n || memcmp(open_name, p, n) != 0)
        gch_builder_note_end_mismatch(r->b);
    char buf[64];
    if (has_ts) {
        snprintf(buf, sizeof buf, "%llx", (unsigned long long)ts);
        if ((st = gch_builder_add_meta(r->b, "end timestamp", buf, r->err)) != GCH_OK)
            return st;
        if (r->open_has_timestamp && ts >= r->open_timestamp) {
            snprintf(buf, sizeof buf, "%llu ms", (unsigned long long)(ts - r->open_timestamp));
            if ((st = gch_builder_add_meta(r->b, "time span", buf, r->err)) != GCH_OK)
                return st;
        }
    }
    return end_section(r);
}

static gch_status record_type(reader *r, const char *p, const char *end)
{
    uint64_t id;
    gch_status st = need_hex(r, &p, end, &id, "type id", "t");
    if (st != GCH_OK)
        return st;
    trim(&p, &end);
    if (p == end)
        return fail(r, "'%s' record: missing %s", "t", "type name");
    if ((st = text_field_check(r, p, end, "t", "the type name")) != GCH_OK)
        return st;
    return gch_builder_add_type(r->b, id, p, (size_t)(end - p), NULL, r->err);
}

static gch_status record_object(reader *r, const char *p, const char *end)
{
    uint64_t id, type, size;
    gch_status st;
    if ((st = need_hex(r, &p, end, &id, "object id", "o")) != GCH_OK ||
        (st = need_hex(r, &p, end, &type, "type id", "o")) != GCH_OK ||
        (st = need_hex(r, &p, end, &size, "object size", "o")) != GCH_OK)
        return st;
    if ((st = gch_builder_object_begin(r->b, id, type, size, r->err)) != GCH_OK)
        return st;
    /* With skip_refs the references are still checked (a malformed record is
     * an error for every command), just not stored. */
    int keep = !r->opts->skip_refs;
    size_t n = 0;
    for (;;) {
        skip_ws(&p, end);
        if (p == end)
            break;
        if ((st = need_hex(r, &p, end, &r->refs[n], "reference", "o")) != GCH_OK)
            return st;
        if (keep && ++n == REF_CHUNK) {
            if ((st = gch_builder_object_refs(r->b, r->refs, n, r->err)) != GCH_OK)
                return st;
            n = 0;
        }
    }
    return n ? gch_builder_object_refs(r->b, r->refs, n, r->err) : GCH_OK;
}

static gch_status record_root(reader *r, const char *p, const char *end)
{
    uint64_t id, kind, flags, container = 0;
    gch_status st;
    if ((st = need_hex(r, &p, end, &id, "object id", "r")) != GCH_OK ||
        (st = need_hex(r, &p, end, &kind, "root kind", "r")) != GCH_OK ||
        (st = need_hex(r, &p, end, &flags, "root flags", "r")) != GCH_OK)
        return st;
    skip_ws(&p, end);
    int has_container = p < end;
    if (has_container && (st = need_hex(r, &p, end, &container, "container type id", "r")) != GCH_OK)
        return st;
    if ((st = no_more_fields(r, p, end, "r")) != GCH_OK)
        return st;
    char buf[32];
    if (kind >= GCH_ROOT_KIND_COUNT) {
        snprintf(buf, sizeof buf, "%llx", (unsigned long long)kind);
        return fail(r, "'r' record: root kind %s is not one of 0-5%s", buf, "");
    }
    if (flags > 0xff) {
        snprintf(buf, sizeof buf, "%llx", (unsigned long long)flags);
        return fail(r, "'r' record: root flags %s do not fit in 8 bits%s", buf, "");
    }
    return gch_builder_add_root(r->b, id, (unsigned)kind, (unsigned)flags, has_container, container,
                                NULL, r->err);
}

static gch_status parse_line(reader *r, const char *p, const char *end)
{
    if (end > p && end[-1] == '\r')
        end--;
    skip_ws(&p, end);
    if (p == end)
        return GCH_OK;
    char rec = *p++;
    if (p < end && !is_space(*p)) {
        char tok[40];
        return fail(r, "unknown record type '%s' (expected a, t, o, r or c)%s",
                    shown(p - 1, end, tok, sizeof tok), "");
    }
    if (rec != 'a' && !gch_builder_heap_open(r->b)) {
        if (rec == 't' || rec == 'o' || rec == 'r') {
            char s[2] = { rec, 0 };
            return fail(r, "'%s' record outside an appdomain section (no 'a' record before it)%s", s,
                        "");
        }
    }
    switch (rec) {
    case 'o': return record_object(r, p, end);
    case 't': return record_type(r, p, end);
    case 'r': return record_root(r, p, end);
    case 'a': return record_appdomain(r, p, end);
    case 'c': return record_close(r, p, end);
    default: {
        char tok[40];
        return fail(r, "unknown record type '%s' (expected a, t, o, r or c)%s",
                    shown(p - 1, end, tok, sizeof tok), "");
    }
    }
}

/* Moves the unparsed tail to the front and reads more; grows the buffer when a
 * single line fills it. Returns GCH_OK, sets r->eof at end of input. */
static gch_status refill(reader *r)
{
    size_t tail = r->end - r->start;
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, tail);
        r->start = 0;
        r->end = tail;
    }
    if (r->end == r->cap) {
        if (r->cap > SIZE_MAX / 2)
            return gch_error_set(r->err, GCH_ENOMEM, "line too long");
        char *nb = gch_realloc(r->buf, r->cap * 2);
        if (!nb)
            return gch_error_set(r->err, GCH_ENOMEM, "out of memory (a line of %zu bytes)", r->cap);
        r->buf = nb;
        r->cap *= 2;
    }
    long long got = r->src->read(r->src->ctx, r->buf + r->end, r->cap - r->end);
    if (got < 0)
        return gch_error_set(r->err, GCH_EIO, "read error");
    if (got == 0)
        r->eof = 1;
    r->end += (size_t)got;
    return GCH_OK;
}

static gch_status parse_all(reader *r)
{
    gch_status st;
    size_t scanned = 0; /* bytes after start known to hold no '\n' (kept by refill) */
    for (;;) {
        char *base = r->buf + r->start;
        char *nl = memchr(base + scanned, '\n', r->end - r->start - scanned);
        if (!nl) {
            scanned = r->end - r->start;
            if (r->eof) {
                if (r->end > r->start) {
                    r->line++;
                    if ((st = parse_line(r, base, r->buf + r->end)) != GCH_OK)
                        return st;
                }
                break;
            }
            if ((st = refill(r)) != GCH_OK)
                return st;
            if (r->opts->progress)
                r->opts->progress(r->opts->progress_ctx, r->consumed + (r->end - r->start));
            continue;
        }
        scanned = 0;
        r->line++;
        if ((st = parse_line(r, base, nl)) != GCH_OK)
            return st;
        r->consumed += (uint64_t)(nl + 1 - base);
        r->start = (size_t)(nl + 1 - r->buf);
    }
    if (gch_builder_heap_open(r->b)) {
        gch_builder_note_missing_end(r->b);
        if ((st = end_section(r)) != GCH_OK)
            return st;
    }
    if (r->sections == 0) {
        gch_error_set(r->err, GCH_EFORMAT, "no 'a' record: not a .gclog heap dump (empty input?)");
        return GCH_EFORMAT;
    }
    return GCH_OK;
}

static long long buffer_read(void *ctx, void *buf, size_t cap)
{
    reader *r = ctx;
    size_t n = r->data_size < cap ? r->data_size : cap;
    if (n)
        memcpy(buf, r->data, n);
    r->data += n;
    r->data_size -= n;
    return (long long)n;
}

static gch_status run(reader *r, gch_dump **out)
{
    static const gch_load_options no_options;
    if (!r->opts)
        r->opts = &no_options;
    *out = NULL;
    gch_status st = gch_builder_new(&r->b, "gclog", r->err);
    if (st != GCH_OK)
        return st;
    r->cap = BLOCK_SIZE;
    if (r->data && r->data_size + 1 < r->cap)
        r->cap = r->data_size + 1 < 64 ? 64 : r->data_size + 1;
    r->buf = gch_malloc(r->cap);
    if (!r->buf) {
        gch_builder_free(r->b);
        return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
    }
    st = parse_all(r);
    if (st == GCH_OK)
        st = gch_builder_finish(r->b, out, r->err);
    if (st != GCH_OK && r->err && r->err->status == GCH_OK)
        r->err->status = st;
    gch_free(r->buf);
    gch_builder_free(r->b);
    return st;
}

gch_status gch_read_gclog(const gch_source *src, const gch_load_options *opts, gch_dump **out,
                          gch_error *err)
{
    gch_error_clear(err);
    reader *r = gch_calloc(1, sizeof *r);
    if (!r) {
        *out = NULL;
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    }
    r->src = src;
    r->opts = opts;
    r->err = err;
    gch_status st = run(r, out);
    gch_free(r);
    return st;
}

gch_status gch_read_gclog_buffer(const void *data, size_t size, const gch_load_options *opts,
                                 gch_dump **out, gch_error *err)
{
    gch_error_clear(err);
    reader *r = gch_calloc(1, sizeof *r);
    if (!r) {
        *out = NULL;
        return gch_error_set(err, GCH_ENOMEM, "out of memory");
    }
    gch_source src = { buffer_read, r };
    r->data = data;
    r->data_size = size;
    r->src = &src;
    r->opts = opts;
    r->err = err;
    gch_status st = run(r, out);
    gch_free(r);
    return st;
}
