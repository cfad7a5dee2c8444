/* The .gclog reader: a streaming tokenizer over large blocks.
 *
 * The grammar as implemented is documented in docs/gclog-format.md. Lines are
 * found with memchr and parsed in place in the block buffer; only a line longer
 * than the buffer makes it grow. References of an object are gathered in a
 * fixed chunk and handed to the builder, so no record allocates.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "gcheap/builder.h"
#include "gcheap/alloc.h"
#include "grow.h"
#include "gcheap/heap.h"
#include "gcheap/load.h"
#include "builder_internal.h"
#include "hash.h"
#include "seen_ids.h"
#include "threading.h"
#include "tuning.h"

#define REF_CHUNK 4096
/* Readable bytes after a block's data (zeroed), and after every region the
 * parser is given: its scans read past a line's end without bounds checks. */
#define PAD 16

/* Hex digit value plus one; 0 for anything else. */
static const unsigned char hex_plus_one[256] = {
    ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
    ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};
#define HEX_VALUE(c) ((int)hex_plus_one[(unsigned char)(c)] - 1)

enum { BLOCK_BUSY, BLOCK_FREE, BLOCK_READY };

typedef struct block {
    char *buf;      /* alloc + 1 + PAD bytes */
    size_t alloc;
    size_t n, k;    /* bytes held; end of the complete lines */
    int eof;        /* the input ends after these bytes */
    gch_status st;  /* GCH_EIO or GCH_ENOMEM: producing it failed */
    size_t err_cap; /* for the message of a failed growth */
    int too_long;   /* st GCH_EFORMAT: a line longer than the limit starts the block */
    int state;      /* BLOCK_*, under the reader's mutex */
} block;

/* Block buffers: the block being merged, the one being parsed, and up to
 * four read ahead. A pipe's writer (cat) and the parse share two cores, so
 * the reading runs in bursts; with fewer buffers the parse waited for it
 * (`cat | gcheap stat -` at 10M: 3 buffers 0.51 s, 6 0.46 s, 10 and 16 no
 * better). The blocks are 2 MiB (tuning.c): as fast as 8 MiB from a pipe and
 * from a mapped file, in less memory (docs/performance.md, issue 19, session
 * 3). */
#define BLOCKS 6

struct chunk;
typedef struct reader {
    const gch_source *src;
    const gch_load_options *opts;
    gch_builder *b;
    gch_error *err;
    size_t cap; /* block size (grows for long lines) */
    block blk[BLOCKS];
    unsigned nblocks; /* buffers in use: BLOCKS read ahead, 3 read in line */
    gch_parallel par; /* threads and thresholds, from opts->threads */
    /* the reader thread */
    int threaded;
    gch_thread thread;
    gch_mutex mtx;
    gch_cond cnd;
    atomic_int stop;
    uint64_t consumed; /* bytes handed to the line parser */
    uint64_t line;
    int sections;
    uint64_t open_timestamp;
    int open_has_timestamp;
    uint64_t refs[REF_CHUNK];
    struct chunk *chunks; /* two sets of PIECES; regions alternate between them */
    /* The open heap's type index of each raw type id below SMALL_TYPE_IDS
     * that a chunk has used (index + 1; 0: not known yet), and those ids, to
     * forget them when the heap ends: every chunk numbers its own types, and
     * mapping them through the builder's table cost more than parsing them. */
    uint32_t *heap_type;
    uint64_t *heap_type_used;
    size_t nheap_type_used, heap_type_used_cap;
    unsigned set;         /* the set the next region is parsed into */
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

/* Every line given to the parser is followed by a byte that is neither a hex
 * digit nor a blank (its '\n', the '\r' of a CRLF, or a '\n' written after
 * the last line), so the scans below stop without bounds checks. */
static inline int parse_hex(const char **pp, const char *end, uint64_t *out)
{
    const unsigned char *p = (const unsigned char *)*pp;
    while (*p == ' ' || *p == '\t')
        p++;
    if ((const char *)p >= end)
        return HEX_MISSING;
    const unsigned char *s = p;
    uint64_t v = 0;
    unsigned d;
    while ((d = hex_plus_one[*p]) != 0) {
        v = (v << 4) | (d - 1);
        p++;
    }
    size_t n = (size_t)(p - s);
    if (n == 0 || ((const char *)p < end && *p != ' ' && *p != '\t')) {
        *pp = (const char *)s;
        return HEX_BAD;
    }
    if (n > 16) {
        /* Leading zeros do not count; the shifts above only dropped zeros then. */
        const unsigned char *q = s;
        while (n > 16 && *q == '0') {
            q++;
            n--;
        }
        if (n > 16) {
            *pp = (const char *)s;
            return HEX_WIDE;
        }
    }
    *pp = (const char *)p;
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
    if (end > p && memchr(p, '\0', (size_t)(end - p)))
        return fail(r, "'%s' record: NUL byte in %s", rec, what);
    if (end > p && memchr(p, '\r', (size_t)(end - p)))
        return fail(r, "'%s' record: carriage return inside the line (line ends must be LF or CRLF)%s",
                    rec, "");
    return GCH_OK;
}

static gch_status end_section(reader *r)
{
    for (size_t k = 0; k < r->nheap_type_used; k++)
        r->heap_type[r->heap_type_used[k]] = 0;
    r->nheap_type_used = 0;
    return gch_builder_end_heap(r->b, r->err);
}

/* The name and optional timestamp of an 'a' or 'c' record, [p, end) trimmed:
 * the last field is a timestamp when it is hex and a name precedes it (so a
 * name alone is never taken for a timestamp, whatever it looks like).
 * Returns whether there is one, in *ts; *name_end is where the name ends. */
static int split_timestamp(const char *p, const char *end, const char **name_end, uint64_t *ts)
{
    const char *last = end;
    while (last > p && !is_space(last[-1]))
        last--;
    *name_end = end;
    if (last == p || !all_hex(last, end, ts)) {
        *ts = 0;
        return 0;
    }
    const char *e = last;
    while (e > p && is_space(e[-1]))
        e--;
    *name_end = e;
    return 1;
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
    const char *name_end;
    uint64_t ts;
    int has_ts = split_timestamp(p, end, &name_end, &ts);
    if (gch_builder_heap_open(r->b)) {
        gch_builder_note_missing_end(r->b);
        if ((st = end_section(r)) != GCH_OK)
            return st;
    }
    if ((st = gch_builder_begin_heap(r->b, p, (size_t)(name_end - p), r->err)) != GCH_OK)
        return st;
    if (r->opts->skip_refs) {
        gch_builder_set_refs_skipped(r->b);
        if (r->opts->histogram_only)
            gch_builder_set_histogram_only(r->b);
    }
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
    const char *name_end;
    uint64_t ts;
    int has_ts = split_timestamp(p, end, &name_end, &ts);
    const char *open_name = gch_builder_heap_name(r->b);
    size_t n = (size_t)(name_end - p);
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

/* With skip_refs the references are not stored, but they are still checked:
 * a file that stat accepts must be one that info accepts. Byte classes keep
 * this loop cheap; an over-long digit run gets the precise check. */
static gch_status check_skipped_refs(reader *r, const char *p, const char *end)
{
    size_t longest = 0, run = 0;
    int bad = 0;
    for (const char *q = p; q < end; q++) {
        if (HEX_VALUE(*q) >= 0) {
            if (++run > longest)
                longest = run;
        } else if (is_space(*q)) {
            run = 0;
        } else {
            bad = 1;
            break;
        }
    }
    if (!bad && longest <= 16)
        return GCH_OK;
    /* Something is off (or a token has leading zeros): re-parse for the message. */
    uint64_t v;
    for (;;) {
        skip_ws(&p, end);
        if (p == end)
            return GCH_OK;
        gch_status st = need_hex(r, &p, end, &v, "reference", "o");
        if (st != GCH_OK)
            return st;
    }
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
    if (r->opts->skip_refs)
        return check_skipped_refs(r, p, end);
    size_t n = 0;
    for (;;) {
        skip_ws(&p, end);
        if (p == end)
            break;
        if ((st = need_hex(r, &p, end, &r->refs[n], "reference", "o")) != GCH_OK)
            return st;
        if (++n == REF_CHUNK) {
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

/* What a line holds, by its record letter. */
typedef enum record_kind {
    RECORD_BLANK,     /* nothing but blanks (and a '\r' before its end) */
    RECORD_APPDOMAIN, /* 'a': opens a section */
    RECORD_TYPE,      /* 't' */
    RECORD_OBJECT,    /* 'o' */
    RECORD_ROOT,      /* 'r' */
    RECORD_CLOSE,     /* 'c': closes a section */
    RECORD_UNKNOWN    /* anything else: parse_line rejects it */
} record_kind;

/* The kind of the line [p, end) (without its '\n'), read the way
 * parse_line reads it: a '\r' at the end is dropped, leading blanks are
 * skipped, then one letter followed by a blank or the end of the line.
 * *fields (may be NULL) receives where the fields start, after the letter;
 * *line_end (may be NULL) the end without the '\r'. */
static record_kind record_kind_of(const char *p, const char *end, const char **fields,
                                  const char **line_end)
{
    if (end > p && end[-1] == '\r')
        end--;
    skip_ws(&p, end);
    if (fields)
        *fields = p < end ? p + 1 : p;
    if (line_end)
        *line_end = end;
    if (p == end)
        return RECORD_BLANK;
    if (p + 1 < end && !is_space(p[1]))
        return RECORD_UNKNOWN;
    switch (*p) {
    case 'a': return RECORD_APPDOMAIN;
    case 't': return RECORD_TYPE;
    case 'o': return RECORD_OBJECT;
    case 'r': return RECORD_ROOT;
    case 'c': return RECORD_CLOSE;
    default: return RECORD_UNKNOWN;
    }
}

static gch_status parse_line(reader *r, const char *p, const char *end)
{
    const char *fields;
    record_kind kind = record_kind_of(p, end, &fields, &end);
    if (kind == RECORD_BLANK)
        return GCH_OK;
    if (kind != RECORD_APPDOMAIN && kind != RECORD_CLOSE && kind != RECORD_UNKNOWN &&
        !gch_builder_heap_open(r->b)) {
        char s[2] = { fields[-1], 0 };
        return fail(r, "'%s' record outside an appdomain section (no 'a' record before it)%s", s, "");
    }
    switch (kind) {
    case RECORD_OBJECT: return record_object(r, fields, end);
    case RECORD_TYPE: return record_type(r, fields, end);
    case RECORD_ROOT: return record_root(r, fields, end);
    case RECORD_APPDOMAIN: return record_appdomain(r, fields, end);
    case RECORD_CLOSE: return record_close(r, fields, end);
    default: {
        char tok[40];
        return fail(r, "unknown record type '%s' (expected a, t, o, r or c)%s",
                    shown(fields - 1, end, tok, sizeof tok), "");
    }
    }
}

/* ---- blocks of lines, parsed in pieces ----
 *
 * The input is read in large blocks. The complete lines of a block form a
 * region; a big region is cut at line boundaries into PIECES pieces, parsed
 * by two threads into chunks. A chunk holds its plain 'o'
 * records in arrays (local type numbers, raw reference ids) and a list of the
 * other lines ('a', 't', 'r', 'c', and any 'o' line the fast path does not
 * accept, malformed ones included), each with its position among the
 * objects. Merging the chunks in order appends the object runs to the builder
 * in bulk and hands the other lines, one by one, to parse_line: the builder
 * sees exactly the sequence of calls a line-by-line reader makes, so sections,
 * first-wins duplicates, type numbering and the first error (with its line
 * number) do not depend on where the region was cut. */

typedef struct deferred {
    uint32_t obj_end;          /* the chunk's objects that precede the line */
    int is_line;               /* 0: the end of the chunk */
    int run_increasing;        /* ids of the run before it strictly increase */
    uint64_t line;             /* chunk-relative, 1-based */
    const char *p, *end;       /* the line, without its '\n' */
    uint64_t run_line;         /* the first object line of the run before it */
    size_t vpos;               /* chunk vints bytes of the objects that precede the line */
    record_kind kind;          /* the line's (record_kind_of), found while parsing */
    const char *run_p, *run_end;
} deferred;

#define TYPE_CACHE 256
/* Chunks a big region is cut into: taken in turn by the two threads. */
#define PIECES 4
/* Raw type ids below this are numbered through a direct table: runtimes
 * number their types densely from 0, and a table lookup is much cheaper than
 * the hash (gendump's 3,400 types missed the 256-entry cache half the time). */
#define SMALL_TYPE_IDS ((uint64_t)1 << 16)

typedef struct chunk {
    const char *p, *end; /* complete lines; end[-1] == '\n' */
    int skip_refs;
    int hist; /* histogram-only: the ids' distances are encoded while parsing */
    /* objects */
    uint64_t *id, *size;
    uint32_t *type, *count;
    size_t nobj, obj_cap;
    uint64_t *refs;
    size_t nrefs, ref_cap;
    /* types, numbered in order of first use within the chunk */
    uint64_t *type_raw;
    uint32_t *type_map; /* local -> builder type index while merging */
    uint32_t *type_objects; /* objects of each local type, and their bytes */
    uint64_t *type_bytes;
    int bytes_overflow;     /* a type_bytes sum passed 2^64 */
    size_t ntypes, type_cap;
    uint32_t *thash;        /* keyed: see hash.h */
    size_t thash_cap;
    gch_hash_key key;
    struct {
        uint64_t raw;
        uint32_t index;
    } tcache[TYPE_CACHE];
    uint32_t *small_type; /* SMALL_TYPE_IDS entries: local number + 1, 0 unset */
    /* other lines, and a final entry for the chunk's end */
    deferred *ev;
    size_t nev, ev_cap;
    /* runs reserved in the builder by chunk_merge, copied by fill_runs */
    struct fill_run {
        uint32_t from, to;
        size_t ref_pos;
        uint64_t nrefs;
        gch_object_slots at;
    } *runs;
    size_t nruns, run_cap;
    uint64_t lines;
    int oom;
    /* histogram-only (hist): the varints of the distances between the ids of
     * consecutive objects (the first from 0), while they strictly increase */
    unsigned char *vints;
    size_t vlen, vcap;
    int increasing;
    uint32_t *type_first; /* the object that first used each local type */
} chunk;

static void chunk_free(chunk *c)
{
    gch_free(c->id);
    gch_free(c->size);
    gch_free(c->type);
    gch_free(c->count);
    gch_free(c->refs);
    gch_free(c->type_raw);
    gch_free(c->type_map);
    gch_free(c->type_objects);
    gch_free(c->type_bytes);
    gch_free(c->runs);
    gch_free(c->thash);
    gch_free(c->ev);
    gch_free(c->small_type);
    gch_free(c->vints);
    gch_free(c->type_first);
}

static int chunk_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return gch_grow(p, cap, need, elem, 1024);
}

static int chunk_grow_objects(chunk *c)
{
    size_t c1 = c->obj_cap, c2 = c1, c3 = c1, c4 = c1;
    if (!chunk_grow((void **)&c->id, &c1, c->nobj + 1, sizeof *c->id) ||
        !chunk_grow((void **)&c->size, &c2, c->nobj + 1, sizeof *c->size) ||
        !chunk_grow((void **)&c->type, &c3, c->nobj + 1, sizeof *c->type) ||
        !chunk_grow((void **)&c->count, &c4, c->nobj + 1, sizeof *c->count))
        return 0;
    c->obj_cap = c1;
    return 1;
}

/* The chunk-local number of raw type id raw; GCH_NONE when out of memory. */
static uint32_t chunk_type_hashed(chunk *c, uint64_t raw);
static uint32_t chunk_new_type(chunk *c, uint64_t raw);

static inline uint32_t chunk_type(chunk *c, uint64_t raw)
{
    if (raw < SMALL_TYPE_IDS) {
        uint32_t t = c->small_type[raw];
        if (t)
            return t - 1;
        t = chunk_new_type(c, raw); /* small ids never go through the hash */
        if (t != GCH_NONE)
            c->small_type[raw] = t + 1;
        return t;
    }
    return chunk_type_hashed(c, raw);
}

static uint64_t chunk_type_hash(const void *ctx, uint32_t t)
{
    const chunk *c = ctx;
    return gch_hash_u64(c->type_raw[t], &c->key);
}

static uint32_t chunk_type_hashed(chunk *c, uint64_t raw)
{
    size_t slot = (size_t)(raw ^ (raw >> 8) ^ (raw >> 16)) & (TYPE_CACHE - 1);
    if (c->tcache[slot].index != GCH_NONE && c->tcache[slot].raw == raw)
        return c->tcache[slot].index;
    size_t mask = c->thash_cap - 1, j = 0;
    if (c->thash_cap) {
        for (j = gch_hash_u64(raw, &c->key) & mask; c->thash[j] != GCH_NONE; j = (j + 1) & mask)
            if (c->type_raw[c->thash[j]] == raw) {
                c->tcache[slot].raw = raw;
                c->tcache[slot].index = c->thash[j];
                return c->thash[j];
            }
    }
    if (gch_table_grows(c->ntypes, c->thash_cap)) {
        if (!gch_table_grow(&c->thash, &c->thash_cap, 256, c->ntypes, 0, chunk_type_hash, c))
            return GCH_NONE;
        mask = c->thash_cap - 1;
        for (j = gch_hash_u64(raw, &c->key) & mask; c->thash[j] != GCH_NONE; j = (j + 1) & mask)
            ;
    }
    uint32_t t = chunk_new_type(c, raw);
    if (t == GCH_NONE)
        return GCH_NONE;
    c->thash[j] = t;
    c->tcache[slot].raw = raw;
    c->tcache[slot].index = t;
    return t;
}

/* A new local type for raw type id raw; GCH_NONE when out of memory. */
static uint32_t chunk_new_type(chunk *c, uint64_t raw)
{
    if (c->ntypes == c->type_cap) {
        size_t c1 = c->type_cap, c2 = c1, c3 = c1, c4 = c1, c5 = c1;
        if (!chunk_grow((void **)&c->type_raw, &c1, c->ntypes + 1, sizeof *c->type_raw) ||
            !chunk_grow((void **)&c->type_map, &c2, c->ntypes + 1, sizeof *c->type_map) ||
            !chunk_grow((void **)&c->type_objects, &c3, c->ntypes + 1, sizeof *c->type_objects) ||
            !chunk_grow((void **)&c->type_bytes, &c4, c->ntypes + 1, sizeof *c->type_bytes) ||
            !chunk_grow((void **)&c->type_first, &c5, c->ntypes + 1, sizeof *c->type_first))
            return GCH_NONE;
        c->type_cap = c1;
    }
    uint32_t t = (uint32_t)c->ntypes++;
    c->type_raw[t] = raw;
    c->type_objects[t] = 0;
    c->type_bytes[t] = 0;
    c->type_first[t] = (uint32_t)c->nobj; /* chunk_object stores its object next */
    return t;
}

/* Byte classes after a hex field: what may follow a number. */
enum { AFTER_BAD = 0, AFTER_BLANK, AFTER_LF, AFTER_CR };
static const unsigned char after_class[256] = {
    [' '] = AFTER_BLANK, ['\t'] = AFTER_BLANK, ['\n'] = AFTER_LF, ['\r'] = AFTER_CR,
};

/* Blanks, then 1-16 hex digits. NULL unless that is what follows q. */
static inline const unsigned char *fast_hex(const unsigned char *q, uint64_t *out)
{
    while (*q == ' ' || *q == '\t')
        q++;
    const unsigned char *s = q;
    uint64_t v = 0;
    unsigned d;
    while ((d = hex_plus_one[*q]) != 0) {
        v = (v << 4) | (d - 1);
        q++;
    }
    if ((size_t)(q - s) - 1 >= 16)
        return NULL;
    *out = v;
    return q;
}

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Eight bytes at a time (SWAR), where the compiler has bit scans and bytes
 * are little-endian: skipped references and hex numbers. Otherwise the byte
 * loops do all. */
#define SWAR_ONES 0x0101010101010101ULL
#define SWAR_HIGH 0x8080808080808080ULL
#define SWAR_SKIP 1

/* High bit of each byte that is zero. */
static inline uint64_t swar_zero(uint64_t v)
{
    return ~(((v & ~SWAR_HIGH) + ~SWAR_HIGH) | v) & SWAR_HIGH;
}

/* High bit of each byte of x that is a hex digit ('0'-'9', 'a'-'f', 'A'-'F'). */
static inline uint64_t swar_hex_digits(uint64_t x)
{
    uint64_t low = x & ~SWAR_HIGH;
    uint64_t digit = (low + SWAR_ONES * (0x80 - '0')) & ~(low + SWAR_ONES * (0x7f - '9'));
    uint64_t f = low | SWAR_ONES * 0x20;
    uint64_t alpha = (f + SWAR_ONES * (0x80 - 'a')) & ~(f + SWAR_ONES * (0x7f - 'f'));
    return (digit | alpha) & ~x & SWAR_HIGH;
}

/* Skipped references. q is just past the size field. Accepts what the byte
 * loop in chunk_object accepts: hex digits and blanks, no digit run longer
 * than 16, then LF or CRLF. Returns the start of the next line, or NULL. Reads
 * up to 7 bytes past the line's '\n' (a line's '\n' is followed by PAD readable
 * bytes). */
static const unsigned char *skip_refs_swar(const unsigned char *q)
{
    unsigned run = 0; /* hex digits just before q (q itself is not one) */
    for (;;) {
        uint64_t x;
        memcpy(&x, q, sizeof x);
        uint64_t hex = swar_hex_digits(x);
        uint64_t blank = swar_zero(x ^ SWAR_ONES * ' ') | swar_zero(x ^ SWAR_ONES * '\t');
        uint64_t other = ~(hex | blank) & SWAR_HIGH;
        unsigned len = other ? (unsigned)__builtin_ctzll(other) / 8 : 8; /* bytes to check */
        uint64_t nothex = ~hex & SWAR_HIGH;
        if (len < 8)
            nothex |= SWAR_HIGH << (8 * len); /* bytes from the line end on */
        if (!nothex) {
            run += 8;
            if (run > 16)
                return NULL;
        } else {
            unsigned lead = (unsigned)__builtin_ctzll(nothex) / 8;
            if (run + lead > 16)
                return NULL;
            /* runs inside the word are shorter than 8; the last one goes on */
            run = len < 8 ? 0 : (unsigned)__builtin_clzll(nothex) / 8;
        }
        if (len < 8) {
            q += len;
            if (*q == '\n')
                return q + 1;
            if (*q == '\r' && q[1] == '\n')
                return q + 2;
            return NULL;
        }
        q += 8;
    }
}

/* Bytes window_masks reads from its start: 64, one bit a byte in a word.
 * The whole window is classified whatever the line's length, so that the
 * line's end costs no branch (ending the eight-byte loop of skip_refs_swar
 * was the parse's most mispredicted branch); 32 or 48 bytes were no faster. */
#define REF_WINDOW 64

/* GCC's and clang's generic vectors (no instruction-set header): sixteen
 * bytes classified at once, as plain SSE2 on x86-64 (NEON on arm64). */
typedef unsigned char vec_u8 __attribute__((vector_size(16)));
typedef signed char vec_s8 __attribute__((vector_size(16)));
typedef uint64_t vec_u64 __attribute__((vector_size(16)));

#if defined(__clang__)
#define VEC_LANES(a, b, i, j) __builtin_shufflevector(a, b, i, j)
#else
#define VEC_LANES(a, b, i, j) __builtin_shuffle(a, b, (vec_u64){ i, j })
#endif

/* Two masks of the 64 bytes at q, one bit a byte (bit i: byte q[i]): the hex
 * digits, and the bytes that are neither hex digits nor blanks. The bytes
 * are classified sixteen at a time into vectors of 0/0xff; bit h of every
 * byte of a class's gathered lane is the class of that byte of the eight-byte
 * word h, so the lane is an 8x8 bit matrix whose transpose (Hacker's
 * Delight, 7-3), done on both lanes at once, is the mask. No multiply and no
 * branch. */
static inline void window_masks(const unsigned char *q, uint64_t *hex, uint64_t *other)
{
    vec_u8 ghex = { 0 }, goth = { 0 };
    for (unsigned k = 0; k < 4; k++) {
        vec_u8 x;
        memcpy(&x, q + 16 * k, sizeof x);
        /* x - '0' < 10 and (x | 0x20) - 'a' < 6 unsigned, as signed compares
         * after moving 0 to -128 (SSE2 compares bytes only signed) */
        vec_s8 dpos = (vec_s8)(x + (unsigned char)(0x80 - '0'));
        vec_s8 apos = (vec_s8)((x | 0x20) + (unsigned char)(0x80 - 'a'));
        vec_u8 digit = (vec_u8)(dpos < -128 + 10);
        vec_u8 alpha = (vec_u8)(apos < -128 + 6);
        vec_u8 hexm = digit | alpha;
        vec_u8 okm = hexm | (vec_u8)(x == ' ') | (vec_u8)(x == '\t');
        /* words 2k and 2k + 1 */
        vec_u8 bit = (vec_u8)(vec_u64){ SWAR_ONES << (2 * k), SWAR_ONES << (2 * k + 1) };
        ghex |= hexm & bit;
        goth |= ~okm & bit;
    }
    vec_u64 m = VEC_LANES((vec_u64)ghex, (vec_u64)goth, 0, 2) |
                VEC_LANES((vec_u64)ghex, (vec_u64)goth, 1, 3);
    vec_u64 t;
    t = (m ^ (m >> 7)) & 0x00AA00AA00AA00AAULL;
    m ^= t ^ (t << 7);
    t = (m ^ (m >> 14)) & 0x0000CCCC0000CCCCULL;
    m ^= t ^ (t << 14);
    t = (m ^ (m >> 28)) & 0x00000000F0F0F0F0ULL;
    m ^= t ^ (t << 28);
    *hex = m[0];
    *other = m[1];
}

/* Where the line in a window ends. other holds the window's bytes that are
 * neither hex digits nor blanks: the first one must be the line's LF or
 * CRLF. Returns the start of the next line and sets *end to the LF's or
 * CR's position; NULL for a bad byte. Without such a byte in the window,
 * *end is its last blank (hex marks its digits; byte 0 is not one) and
 * *next_line is left NULL: the line goes on from there. */
static inline int window_end(const unsigned char *q, uint64_t hex, uint64_t other, unsigned *end,
                             const unsigned char **next_line)
{
    *next_line = NULL;
    if (!other) {
        *end = 63 - (unsigned)__builtin_clzll(~hex);
        return 1;
    }
    unsigned e = (unsigned)__builtin_ctzll(other);
    *end = e;
    if (q[e] == '\n') {
        *next_line = q + e + 1;
        return 1;
    }
    if (q[e] == '\r' && q[e + 1] == '\n') {
        *next_line = q + e + 2;
        return 1;
    }
    return 0;
}

/* Whether the digit runs of hex (one bit a byte) are all 16 bytes or shorter. */
static inline int runs_short(uint64_t hex)
{
    uint64_t run = hex & hex >> 1; /* bit i: bytes i to i + 1 are digits */
    run &= run >> 2;
    run &= run >> 4;
    run &= run >> 8; /* bytes i to i + 15 */
    return !(run & hex >> 16);
}

/* Skipped references from q (just past a number: not a digit), a window of
 * REF_WINDOW bytes at a time while limit is far enough for the window to be
 * readable (a region's end has PAD readable bytes after it), then
 * skip_refs_swar: the same answer as skip_refs_swar(q), with no branch on
 * where the line ends when it ends within a window. */
static inline const unsigned char *skip_refs_windows(const unsigned char *q,
                                                     const unsigned char *limit)
{
    while ((size_t)(limit - q) >= REF_WINDOW - PAD) {
        uint64_t hex, other;
        window_masks(q, &hex, &other);
        const unsigned char *next;
        unsigned end;
        if (!window_end(q, hex, other, &end, &next) || !runs_short(hex & (((uint64_t)1 << end) - 1)))
            return NULL;
        if (next)
            return next;
        if (end == 0)
            return NULL; /* 63 digits in a row */
        q += end;
    }
    return skip_refs_swar(q);
}

/* A number of 1-8 hex digits at q, converted eight bytes at a time: no branch
 * on each digit. Longer numbers (and no number) take fast_hex's byte loop.
 * Reads 9 bytes from q (a line's '\n' is followed by PAD readable bytes). */
static inline const unsigned char *swar_hex(const unsigned char *q, uint64_t *out)
{
    uint64_t x;
    memcpy(&x, q, sizeof x);
    uint64_t nothex = ~swar_hex_digits(x) & SWAR_HIGH;
    unsigned len = nothex ? (unsigned)__builtin_ctzll(nothex) / 8 : 8;
    if (len == 0 || (len == 8 && hex_plus_one[q[8]]))
        return fast_hex(q, out);
    /* Digit values, one per byte ('a'-'f' and 'A'-'F' have bit 6 set), the
     * number's bytes moved to the top, then nibbles packed pairwise. */
    uint64_t v = (x & SWAR_ONES * 0x0f) + 9 * ((x >> 6) & SWAR_ONES);
    if (len < 8)
        v <<= 8 * (8 - len);
    v = (v & 0x000F000F000F000FULL) << 4 | (v & 0x0F000F000F000F00ULL) >> 8;
    v = (v & 0x000000FF000000FFULL) << 8 | (v & 0x00FF000000FF0000ULL) >> 16;
    v = (v & 0x000000000000FFFFULL) << 16 | (v & 0x0000FFFF00000000ULL) >> 32;
    *out = v;
    return q + len;
}
#define REF_HEX swar_hex
#else
#define REF_HEX fast_hex
#endif

/* The fast path for a plain 'o' line: q is just past the 'o'. Returns the start
 * of the next line, or NULL (nothing kept) for the line-by-line parser to
 * handle: malformed input, over-long numbers, out of memory. */
static const unsigned char *chunk_object(chunk *c, const unsigned char *q)
{
    uint64_t id, type, size;
    /* q is just past the 'o', on a blank. The id is long (an address): it
     * converts faster eight bytes at a time; short fields do not. */
    do
        q++;
    while (*q == ' ' || *q == '\t');
    if (!(q = REF_HEX(q, &id)) || after_class[*q] != AFTER_BLANK ||
        !(q = fast_hex(q, &type)) || after_class[*q] != AFTER_BLANK ||
        !(q = fast_hex(q, &size)))
        return NULL;
    size_t refs_before = c->nrefs;
    uint32_t n = 0;
#ifdef SWAR_SKIP
    if (c->skip_refs) {
        if (!(q = skip_refs_windows(q, (const unsigned char *)c->end)))
            return NULL;
        goto done;
    }
#endif
    /* q is just past a number: a blank, the line end or a stray byte follows. */
    for (;;) {
        int cls = after_class[*q];
        if (cls == AFTER_LF) {
            q++;
            break;
        }
        if (cls == AFTER_CR) {
            if (q[1] != '\n')
                goto fail;
            q += 2;
            break;
        }
        if (cls != AFTER_BLANK)
            goto fail; /* a number glued to something else */
        do
            q++;
        while (*q == ' ' || *q == '\t');
        if (after_class[*q] != AFTER_BAD)
            continue; /* trailing blanks */
        uint64_t ref;
        if (!(q = REF_HEX(q, &ref)))
            goto fail;
        if (ref == 0 || c->skip_refs)
            continue;
        if (c->nrefs == c->ref_cap &&
            !chunk_grow((void **)&c->refs, &c->ref_cap, c->nrefs + 1, sizeof *c->refs)) {
            c->oom = 1; /* an allocation failure is reported, never absorbed */
            goto fail;
        }
        if (n == UINT32_MAX)
            goto fail;
        c->refs[c->nrefs++] = ref;
        n++;
    }
#ifdef SWAR_SKIP
done:;
#endif
    uint32_t t = chunk_type(c, type);
    if (t == GCH_NONE || (c->nobj == c->obj_cap && !chunk_grow_objects(c))) {
        c->oom = 1;
        goto fail;
    }
    c->id[c->nobj] = id;
    c->size[c->nobj] = size;
    c->type[c->nobj] = t;
    c->count[c->nobj] = n;
    c->nobj++;
    c->type_objects[t]++;
    if (size > UINT64_MAX - c->type_bytes[t])
        c->bytes_overflow = 1;
    c->type_bytes[t] += size;
    return q;
fail:
    c->nrefs = refs_before;
    return NULL;
}

static int chunk_defer(chunk *c, int is_line, uint64_t line, const char *p, const char *end,
                       deferred *run)
{
    if (!chunk_grow((void **)&c->ev, &c->ev_cap, c->nev + 1, sizeof *c->ev)) {
        c->oom = 1;
        return 0;
    }
    deferred *e = &c->ev[c->nev++];
    *e = *run;
    e->obj_end = (uint32_t)c->nobj;
    e->vpos = c->vlen;
    e->is_line = is_line;
    e->line = line;
    e->p = p;
    e->end = end;
    e->kind = is_line ? record_kind_of(p, end, NULL, NULL) : RECORD_BLANK;
    run->run_p = NULL;
    run->run_increasing = 1;
    return 1;
}

/* Appends the varint of id's distance from the object before it (prev; 0
 * for the first), while the ids strictly increase. */
static void encode_id(chunk *c, uint64_t id, uint64_t prev)
{
    if (c->nobj > 1 && id <= prev) {
        c->increasing = 0;
        return;
    }
    if (c->vcap - c->vlen < 10 &&
        !chunk_grow((void **)&c->vints, &c->vcap, c->vlen + 10, sizeof *c->vints)) {
        c->increasing = 0; /* the merge counts these objects one by one */
        return;
    }
    c->vlen += seen_ids_put_varint(c->vints + c->vlen, c->nobj > 1 ? id - prev : id);
}

static void chunk_parse(chunk *c)
{
    if (c->small_type) {
        for (size_t t = 0; t < c->ntypes; t++)
            if (c->type_raw[t] < SMALL_TYPE_IDS)
                c->small_type[c->type_raw[t]] = 0;
    }
    c->nobj = c->nrefs = c->nev = c->ntypes = 0;
    c->oom = 0;
    if (!c->small_type && !(c->small_type = gch_calloc(SMALL_TYPE_IDS, sizeof *c->small_type))) {
        c->oom = 1; /* an allocation failure is reported, never absorbed */
        return;
    }
    c->bytes_overflow = 0;
    c->vlen = 0;
    c->increasing = 1;
    if (c->thash)
        memset(c->thash, 0xff, c->thash_cap * sizeof *c->thash);
    for (size_t i = 0; i < TYPE_CACHE; i++)
        c->tcache[i].index = GCH_NONE;
    const unsigned char *p = (const unsigned char *)c->p, *end = (const unsigned char *)c->end;
    uint64_t line = 0;
    deferred run = { 0 };
    run.run_increasing = 1;
    uint64_t last_id = 0;
    while (p < end) {
        line++;
        const unsigned char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == 'o' && (q[1] == ' ' || q[1] == '\t')) {
            size_t before = c->nobj;
            const unsigned char *next = chunk_object(c, q + 1);
            if (next) {
                uint64_t id = c->id[before];
                if (!run.run_p) {
                    run.run_p = (const char *)p;
                    run.run_end = (const char *)next - 1;
                    run.run_line = line;
                } else if (id <= last_id) {
                    run.run_increasing = 0;
                }
                if (c->hist && c->increasing)
                    encode_id(c, id, last_id);
                last_id = id;
                p = next;
                continue;
            }
        } else if (*q == '\n') {
            p = q + 1;
            continue;
        }
        const unsigned char *nl = memchr(q, '\n', (size_t)(end - q));
        if (!chunk_defer(c, 1, line, (const char *)p, (const char *)nl, &run))
            return;
        p = nl + 1;
    }
    c->lines = line;
    chunk_defer(c, 0, line, NULL, NULL, &run);
}

/* Copies the chunk's reserved runs into the builder. The copies of a region
 * run while the next region is parsed, on the thread that parses the chunk's
 * half, so that neither the copying nor the page faults of the growing heap
 * arrays hold up the other thread; only reserving stays in line. */
static void fill_runs(gch_builder *b, chunk *c)
{
    for (size_t k = 0; k < c->nruns; k++) {
        const struct fill_run *f = &c->runs[k];
        gch_builder_fill_objects(b, &f->at, f->to - f->from, c->id + f->from, c->type + f->from,
                                 c->size + f->from, c->count + f->from,
                                 f->nrefs ? c->refs + f->ref_pos : NULL, f->nrefs);
    }
    c->nruns = 0;
}

/* Fills every reserved run: before anything may read the heap's arrays. */
static void fill_all_runs(reader *r)
{
    for (unsigned k = 0; k < 2 * PIECES; k++)
        fill_runs(r->b, &r->chunks[k]);
}

/* The open heap's index of raw type id raw, creating an undeclared type on
 * first use (gch_builder_type_index), remembered for the small ids. */
static gch_status heap_type_index(reader *r, uint64_t raw, uint32_t *out)
{
    if (raw < SMALL_TYPE_IDS && r->heap_type && r->heap_type[raw]) {
        *out = r->heap_type[raw] - 1;
        return GCH_OK;
    }
    gch_status st = gch_builder_type_index(r->b, raw, out, r->err);
    if (st != GCH_OK || raw >= SMALL_TYPE_IDS)
        return st;
    if (!r->heap_type && !(r->heap_type = gch_calloc(SMALL_TYPE_IDS, sizeof *r->heap_type)))
        return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
    if (r->nheap_type_used == r->heap_type_used_cap &&
        !chunk_grow((void **)&r->heap_type_used, &r->heap_type_used_cap, r->nheap_type_used + 1,
                    sizeof *r->heap_type_used))
        return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
    r->heap_type_used[r->nheap_type_used++] = raw;
    r->heap_type[raw] = *out + 1;
    return GCH_OK;
}

/* Reserves the chunk's objects [from, to) in the builder (filled later). */
static gch_status merge_run(reader *r, chunk *c, size_t from, size_t to, size_t *ref_pos,
                            int increasing, int count_types)
{
    uint64_t nrefs = 0;
    for (size_t i = from; i < to; i++) {
        uint32_t lt = c->type[i], g = c->type_map[lt];
        if (g == GCH_NONE) {
            gch_status st = heap_type_index(r, c->type_raw[lt], &g);
            if (st != GCH_OK)
                return st;
            c->type_map[lt] = g;
        }
        c->type[i] = g;
        nrefs += c->count[i];
        if (count_types)
            gch_builder_count_type(r->b, g, 1, c->size[i], 0);
    }
    if (c->nruns == c->run_cap &&
        !chunk_grow((void **)&c->runs, &c->run_cap, c->nruns + 1, sizeof *c->runs))
        return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
    struct fill_run *f = &c->runs[c->nruns];
    gch_status st = gch_builder_reserve_objects(r->b, (uint32_t)(to - from), c->id + from,
                                                c->type + from, c->size + from, nrefs,
                                                increasing, &f->at, r->err);
    if (st != GCH_OK)
        return st;
    f->from = (uint32_t)from;
    f->to = (uint32_t)to;
    f->ref_pos = *ref_pos;
    f->nrefs = nrefs;
    c->nruns++;
    *ref_pos += (size_t)nrefs;
    return GCH_OK;
}

/* Whether parse_line may handle a record of this kind while object runs
 * reserved by merge_run are not filled yet (gch_builder_reserve_objects:
 * until then nothing may read the object arrays). Only a type or a root
 * record may: they add to the type and root tables and never read or move
 * an object slot. Everything else waits for the fills: an object record
 * (appended after the reserved runs), a section's start or end (end_heap
 * reads every object), and a blank or malformed line (parse_line returns
 * before the builder for those, but nothing is gained by telling them apart). */
static int record_leaves_objects_alone(record_kind kind)
{
    return kind == RECORD_TYPE || kind == RECORD_ROOT;
}

/* Whether a record opens or closes a section, so that the objects of its
 * chunk may belong to two heaps. */
static int record_changes_section(record_kind kind)
{
    return kind == RECORD_APPDOMAIN || kind == RECORD_CLOSE;
}

/* Whether a histogram-only chunk can be merged by hist_merge: its objects
 * all went through the fast path with strictly increasing ids, past every
 * id of the heap so far (so none is a duplicate), and its other lines are
 * types and roots only (so they all go to the open heap and leave the ids
 * alone). */
static int hist_mergeable(reader *r, const chunk *c)
{
    if (!c->hist || !c->increasing || c->nobj == 0 || !gch_builder_hist_can_append(r->b, c->id[0]))
        return 0;
    for (size_t k = 0; k < c->nev; k++)
        if (c->ev[k].is_line) {
            record_kind kind = c->ev[k].kind;
            if (kind != RECORD_TYPE && kind != RECORD_ROOT)
                return 0;
        }
    return 1;
}

/* Merges a chunk hist_mergeable accepted, making the builder calls in the
 * order chunk_merge's would: each run's new types (in order of first use),
 * then its objects (their ids' varints appended as they are), then the line
 * after it; the per-type totals last (nothing reads them before end_heap). */
static gch_status hist_merge(reader *r, chunk *c)
{
    uint64_t base = r->line;
    size_t obj = 0, next_type = 0;
    gch_status st;
    for (size_t k = 0; k < c->nev; k++) {
        const deferred *e = &c->ev[k];
        for (; next_type < c->ntypes && c->type_first[next_type] < e->obj_end; next_type++)
            if ((st = heap_type_index(r, c->type_raw[next_type], &c->type_map[next_type])) != GCH_OK)
                return st;
        if (e->obj_end > obj) {
            /* The run's first varint is its distance from the object before
             * it, which the builder recomputes from the heap's last id. */
            const unsigned char *v = c->vints + (k ? c->ev[k - 1].vpos : 0), *vend = c->vints + e->vpos;
            while (*v & 0x80)
                v++;
            v++;
            if ((st = gch_builder_hist_append(r->b, e->obj_end - (uint32_t)obj, c->id[obj],
                                              c->id[e->obj_end - 1], v, (size_t)(vend - v),
                                              r->err)) != GCH_OK)
                return st;
            obj = e->obj_end;
        }
        if (!e->is_line)
            break;
        r->line = base + e->line;
        if ((st = parse_line(r, e->p, e->end)) != GCH_OK)
            return st;
    }
    for (size_t t = 0; t < c->ntypes; t++)
        gch_builder_hist_count_type(r->b, c->type_map[t], c->type_objects[t], c->type_bytes[t],
                                    c->bytes_overflow);
    r->line = base + c->lines;
    return GCH_OK;
}

static gch_status chunk_merge(reader *r, chunk *c)
{
    if (c->oom)
        return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
    if (hist_mergeable(r, c))
        return hist_merge(r, c);
    uint64_t base = r->line;
    for (size_t t = 0; t < c->ntypes; t++)
        c->type_map[t] = GCH_NONE;
    /* The per-type totals counted while parsing hold when every object goes
     * to one heap; otherwise each run counts its own objects. */
    int one_heap = 1;
    for (size_t k = 0; k < c->nev && one_heap; k++)
        if (c->ev[k].is_line &&
            record_changes_section(c->ev[k].kind))
            one_heap = 0;
    size_t obj = 0, ref_pos = 0;
    gch_status st;
    for (size_t k = 0; k < c->nev; k++) {
        const deferred *e = &c->ev[k];
        if (e->obj_end > obj) {
            if (!gch_builder_heap_open(r->b)) {
                /* Reports "'o' record outside an appdomain section". */
                r->line = base + e->run_line;
                return parse_line(r, e->run_p, e->run_end);
            }
            st = merge_run(r, c, obj, e->obj_end, &ref_pos, e->run_increasing, !one_heap);
            if (st != GCH_OK)
                return st;
            obj = e->obj_end;
        }
        if (!e->is_line)
            break;
        int sections = r->sections, open = gch_builder_heap_open(r->b);
        r->line = base + e->line;
        if (!record_leaves_objects_alone(e->kind))
            fill_all_runs(r);
        if ((st = parse_line(r, e->p, e->end)) != GCH_OK)
            return st;
        if (sections != r->sections || open != gch_builder_heap_open(r->b))
            for (size_t t = 0; t < c->ntypes; t++)
                c->type_map[t] = GCH_NONE; /* another heap: other type indices */
    }
    if (one_heap)
        for (size_t t = 0; t < c->ntypes; t++)
            if (c->type_objects[t])
                gch_builder_count_type(r->b, c->type_map[t], c->type_objects[t], c->type_bytes[t],
                                       c->bytes_overflow);
    r->line = base + c->lines;
    return GCH_OK;
}

/* Cuts [p, end) after newlines into up to PIECES chunks of about equal size,
 * when it is big enough for two threads; otherwise it all goes to c[0].
 * Returns the number of chunks. */
static unsigned split_region(const gch_parallel *par, chunk *c, const char *p, const char *end)
{
    size_t size = (size_t)(end - p), min = par->knobs.parse_block;
    unsigned n = 0;
    if (par->workers >= 2 && min && size >= min && size >= 2) {
        for (unsigned k = 1; k < PIECES; k++) {
            const char *at = p + size / PIECES * k, *from = n ? c[n - 1].end : p;
            if (at < from)
                at = from;
            const char *nl = memchr(at, '\n', (size_t)(end - at));
            if (!nl || nl + 1 >= end)
                break;
            c[n].p = from;
            c[n].end = nl + 1;
            n++;
        }
    }
    c[n].p = n ? c[n - 1].end : p;
    c[n].end = end;
    return n + 1;
}

/* Merges a set of n chunks, in order. */
static gch_status merge_set(reader *r, chunk *c, unsigned n)
{
    gch_status st = GCH_OK;
    for (unsigned k = 0; k < n && st == GCH_OK; k++)
        st = chunk_merge(r, &c[k]);
    return st;
}

/* Merges the set parse_region_overlapped left parsed, if any. */
static gch_status merge_pending(reader *r, int *prev_n)
{
    int n = *prev_n;
    *prev_n = -1;
    return n >= 0 ? merge_set(r, &r->chunks[PIECES * (r->set ^ 1)], (unsigned)n) : GCH_OK;
}

/* Parses the complete lines [p, end), end[-1] == '\n', into the next set of
 * chunks while the previous region, parsed into the other set, is merged: the
 * serial merge overlaps a parse. The region is cut into pieces (one chunk
 * each) that both threads take in turn, and once the main thread has merged
 * the previous set, they copy its chunks' runs into the builder the same
 * way: so a thread that the system holds up (a pipe's writer shares the two
 * cores) delays the other by one piece at most, not by half the region. A
 * region's bytes must stay readable until the next region has been parsed.
 * *prev_n is the number of chunks of the previous set (-1: there is none to
 * merge); it gets this region's. The new set is left parsed, not merged
 * (merge_pending merges the last one). */
typedef struct overlap_job {
    gch_builder *b;
    chunk *parse;         /* this region's chunks */
    unsigned nparse;
    chunk *fill;          /* the previous set */
    unsigned nfill;
    atomic_uint next_parse, next_fill; /* the next piece to take */
    atomic_int merged;    /* 0: not yet; 1: merged, fill it; 2: failed (no fills) */
} overlap_job;

/* Fills, once the merge is done, and parses pieces until none is left. */
static void overlap_work(overlap_job *j)
{
    for (;;) {
        int m = atomic_load(&j->merged);
        if (m == 1) {
            unsigned k = atomic_fetch_add(&j->next_fill, 1);
            if (k < j->nfill) {
                fill_runs(j->b, &j->fill[k]);
                continue;
            }
        }
        unsigned k = atomic_fetch_add(&j->next_parse, 1);
        if (k < j->nparse) {
            chunk_parse(&j->parse[k]);
            continue;
        }
        if (m == 0) {
            gch_thread_yield(); /* the merge is short next to a parse: rarely waited for */
            continue;
        }
        if (m == 2 || atomic_load(&j->next_fill) >= j->nfill)
            return;
    }
}

static int overlap_thread(void *arg)
{
    overlap_work(arg);
    return 0;
}

static gch_status parse_region_overlapped(reader *r, const char *p, const char *end,
                                          int *prev_n)
{
    chunk *prev = &r->chunks[PIECES * (r->set ^ 1)], *cur = &r->chunks[PIECES * r->set];
    r->set ^= 1;
    overlap_job job;
    job.b = r->b;
    job.parse = cur;
    job.nparse = split_region(&r->par, cur, p, end);
    job.fill = prev;
    job.nfill = *prev_n >= 0 ? (unsigned)*prev_n : 0;
    atomic_init(&job.next_parse, 0);
    atomic_init(&job.next_fill, 0);
    atomic_init(&job.merged, 0);
    gch_thread t;
    int threaded = (job.nparse > 1 || job.nfill > 1) &&
                   gch_thread_start(&t, r->par.workers, overlap_thread, &job);
    gch_status st = *prev_n >= 0 ? merge_set(r, prev, job.nfill) : GCH_OK;
    atomic_store(&job.merged, st == GCH_OK ? 1 : 2);
    overlap_work(&job);
    if (threaded)
        gch_thread_join(&t);
    *prev_n = (int)job.nparse;
    return st;
}

/* ---- reading blocks, ahead of the parser ----
 *
 * A block holds the unparsed tail of the block before it (the start of a
 * line), then bytes read until the block is full or the input ends: its
 * complete lines [0, k) are parsed, and [k, n) starts the next block. A block
 * whose bytes hold no newline before the end of input grows (every later
 * block gets the larger size too), and at the end of input a last line
 * without a newline gets one. So the blocks, and the order in which a read
 * error or an allocation failure is met, do not depend on who reads them.
 *
 * When the first block does not reach the end of input, a reader thread
 * produces the next blocks into free buffers (BLOCKS in all) while block k is
 * parsed and block k-1 merged; the parser hands a buffer back once its block
 * is merged. Without a thread the same function runs in line, one block
 * ahead. */

/* The longest line accepted: see GCH_GCLOG_MAX_LINE. */
static size_t max_line(void)
{
    size_t knob = gch_tuning_get().max_line;
    return knob ? knob : GCH_GCLOG_MAX_LINE;
}

/* Whether the start of a line, [p, p + n) without its end, makes the line an
 * error whatever follows: parse_line rejects a line whose first field is not
 * one record letter. Decided only with 32 bytes from the first non-blank one
 * on, so that the message (which quotes at most 24 bytes) is the one the
 * whole line gives. */
static int hopeless_line(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t'))
        i++;
    if (n - i < 32)
        return 0;
    char rec = p[i], next = p[i + 1];
    int letter = rec == 'a' || rec == 't' || rec == 'o' || rec == 'r' || rec == 'c';
    return !letter || (next != ' ' && next != '\t');
}

static void block_free(block *bl)
{
    gch_free(bl->buf);
    bl->buf = NULL;
    bl->alloc = 0;
}

/* Reads the next block into bl after the tail of prev (NULL for the first). */
static void produce(reader *r, block *bl, const block *prev)
{
    size_t tail = prev ? prev->n - prev->k : 0;
    bl->n = bl->k = 0;
    bl->st = GCH_OK;
    bl->eof = 0;
    bl->err_cap = 0;
    bl->too_long = 0;
    if (bl->alloc < r->cap) {
        char *nb = gch_realloc(bl->buf, r->cap + 1 + PAD); /* + 1: the last line's sentinel */
        if (!nb) {
            bl->st = GCH_ENOMEM;
            return;
        }
        bl->buf = nb;
        bl->alloc = r->cap;
    }
    if (tail)
        memcpy(bl->buf, prev->buf + prev->k, tail);
    size_t n = tail, scanned = tail; /* [0, scanned) holds no newline */
    for (;;) {
        while (n < bl->alloc && !r->stop) {
            long long got = r->src->read(r->src->ctx, bl->buf + n, bl->alloc - n);
            if (got < 0) {
                bl->st = GCH_EIO;
                return;
            }
            if (got == 0) {
                bl->eof = 1;
                break;
            }
            n += (size_t)got;
        }
        if (r->stop) {
            bl->st = GCH_EIO; /* never seen: the parser stopped first */
            return;
        }
        size_t k = n;
        while (k > scanned && bl->buf[k - 1] != '\n')
            k--;
        if (k == scanned)
            k = 0; /* no newline at all */
        if (k || bl->eof) {
            if (k < n && bl->eof) {
                bl->buf[n++] = '\n'; /* the last line has no newline */
                k = n;
            }
            bl->n = n;
            bl->k = k;
            memset(bl->buf + n, 0, PAD);
            return;
        }
        /* One partial line fills the block. When its first bytes already
         * make it an error, it is cut there and reading stops: the parser
         * reports it as it would the whole line (/dev/zero ends here).
         * Otherwise the block grows, up to one byte past the longest line
         * accepted. */
        scanned = n;
        if (hopeless_line(bl->buf, n)) {
            bl->buf[n++] = '\n'; /* the sentinel byte */
            bl->n = bl->k = n;
            bl->eof = 1;
            memset(bl->buf + n, 0, PAD);
            return;
        }
        size_t limit = max_line();
        if (n > limit) {
            bl->st = GCH_EFORMAT;
            bl->too_long = 1;
            return;
        }
        size_t ncap = r->cap <= limit / 2 ? r->cap * 2 : limit + 1;
        char *nb = gch_realloc(bl->buf, ncap + 1 + PAD);
        if (!nb) {
            bl->st = GCH_ENOMEM;
            bl->err_cap = r->cap;
            return;
        }
        bl->buf = nb;
        r->cap = ncap;
        bl->alloc = r->cap;
    }
}

static int reader_thread(void *arg)
{
    reader *r = arg;
    for (unsigned next = 1;; next = (next + 1) % r->nblocks) {
        gch_mutex_lock(&r->mtx);
        while (!r->stop && r->blk[next].state != BLOCK_FREE)
            gch_cond_wait(&r->cnd, &r->mtx);
        int stop = r->stop;
        gch_mutex_unlock(&r->mtx);
        if (stop)
            return 0;
        block *bl = &r->blk[next];
        produce(r, bl, &r->blk[(next + r->nblocks - 1) % r->nblocks]);
        gch_mutex_lock(&r->mtx);
        bl->state = BLOCK_READY;
        gch_cond_broadcast(&r->cnd);
        gch_mutex_unlock(&r->mtx);
        if (bl->eof || bl->st != GCH_OK)
            return 0;
    }
}

static gch_status block_status(reader *r, const block *bl)
{
    if (bl->st == GCH_EIO)
        return gch_error_set(r->err, GCH_EIO, "read error");
    if (bl->too_long) {
        /* Every line before it is parsed: it is the next one. */
        char longest[32];
        snprintf(longest, sizeof longest, "%zu", max_line());
        r->line++;
        return fail(r, "line longer than %s bytes%s", longest, "");
    }
    if (bl->err_cap)
        return gch_error_set(r->err, GCH_ENOMEM, "out of memory (a line of %zu bytes)", bl->err_cap);
    return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
}

/* Stops and joins the reader thread, if any. */
static void stop_reader(reader *r)
{
    if (!r->threaded)
        return;
    gch_mutex_lock(&r->mtx);
    r->stop = 1;
    gch_cond_broadcast(&r->cnd);
    gch_mutex_unlock(&r->mtx);
    gch_thread_join(&r->thread);
    gch_cond_destroy(&r->cnd);
    gch_mutex_destroy(&r->mtx);
    r->threaded = 0;
}

/* n more bytes of input are parsed and merged. */
static void count_consumed(reader *r, uint64_t n)
{
    r->consumed += n;
    if (r->opts->progress)
        r->opts->progress(r->opts->progress_ctx, r->consumed);
}

/* Block bl's region is parsed and merged: count it, hand the buffer back. */
static void block_done(reader *r, block *bl)
{
    count_consumed(r, bl->k);
    if (r->threaded) {
        gch_mutex_lock(&r->mtx);
        bl->state = BLOCK_FREE;
        gch_cond_broadcast(&r->cnd);
        gch_mutex_unlock(&r->mtx);
    }
}

static gch_status parse_blocks(reader *r)
{
    block *cur = &r->blk[0];
    produce(r, cur, NULL);
    if (cur->st == GCH_OK && !cur->eof) {
        /* More to come: the other buffers, for the block before (merged
         * while this one is parsed) and the blocks after (read ahead by a
         * thread if one starts; read in line, one block after is enough). */
        int ahead = r->par.workers >= 2 && !r->par.knobs.no_read_ahead && !r->opts->no_read_ahead;
        r->nblocks = ahead ? BLOCKS : 3;
        for (unsigned k = 1; k < r->nblocks; k++) {
            block *other = &r->blk[k];
            other->buf = gch_malloc(r->cap + 1 + PAD);
            if (!other->buf)
                return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
            other->alloc = r->cap;
            other->state = BLOCK_FREE;
        }
        cur->state = BLOCK_BUSY;
        if (ahead && gch_mutex_init(&r->mtx)) {
            if (gch_cond_init(&r->cnd)) {
                if (gch_thread_start(&r->thread, r->par.workers, reader_thread, r))
                    r->threaded = 1;
                else
                    gch_cond_destroy(&r->cnd);
            }
            if (!r->threaded)
                gch_mutex_destroy(&r->mtx);
        }
    }
    block *pending = NULL; /* parsed; merged while cur is parsed */
    int pending_n = -1;
    unsigned i = 0;
    gch_status st;
    for (;;) {
        if (cur->st != GCH_OK) {
            /* An error earlier in the input is reported first. */
            st = merge_pending(r, &pending_n);
            return st != GCH_OK ? st : block_status(r, cur);
        }
        if (cur->k) {
            st = parse_region_overlapped(r, cur->buf, cur->buf + cur->k, &pending_n);
            if (st != GCH_OK)
                return st;
            if (pending)
                block_done(r, pending);
            pending = cur;
        }
        if (cur->eof) {
            if ((st = merge_pending(r, &pending_n)) != GCH_OK)
                return st;
            if (pending)
                block_done(r, pending);
            fill_all_runs(r);
            return GCH_OK;
        }
        i = (i + 1) % r->nblocks;
        block *next = &r->blk[i];
        if (r->threaded) {
            gch_mutex_lock(&r->mtx);
            while (next->state != BLOCK_READY)
                gch_cond_wait(&r->cnd, &r->mtx);
            next->state = BLOCK_BUSY;
            gch_mutex_unlock(&r->mtx);
        } else {
            produce(r, next, cur);
        }
        cur = next;
    }
}

/* Bytes [p, end) of the buffer are parsed and merged: count them, let them go. */
static void in_place_done(reader *r, const char *p, const char *end)
{
    if (p == end)
        return;
    if (r->opts->release)
        r->opts->release(r->opts->release_ctx, p, (size_t)(end - p));
    count_consumed(r, (uint64_t)(end - p));
}

/* Buffer mode: regions of about a block's size are parsed where they lie in
 * the caller's buffer, with no copy. The parser may read up to PAD bytes past a
 * region's last newline, so the part parsed in place ends at the last newline
 * with PAD bytes after it; the rest, a line or so, then goes through a block as
 * read input does. */
static gch_status parse_in_place(reader *r)
{
    const char *p = r->data;
    const char *limit = r->data_size > PAD ? r->data + (r->data_size - PAD) : r->data;
    const char *parsed = p; /* [parsed, p): the region parsed but not merged yet */
    int prev_n = -1;
    const size_t longest = max_line();
    while (p < limit) {
        const char *s = (size_t)(limit - p) > r->cap ? p + r->cap - 1 : limit - 1;
        /* The line holding s ends within the longest line accepted, or it
         * goes through a block, which reports it. */
        const char *ls = s; /* its start */
        while (ls > p && ls[-1] != '\n')
            ls--;
        size_t used = (size_t)(s - ls), room = (size_t)(limit - s);
        if (used >= longest)
            room = 0;
        else if (longest - used + 1 < room)
            room = longest - used + 1;
        const char *nl = room ? memchr(s, '\n', room) : NULL;
        if (!nl) {
            if (ls == p)
                break;
            nl = ls - 1;
        }
        gch_status st = parse_region_overlapped(r, p, nl + 1, &prev_n);
        if (st != GCH_OK)
            return st;
        in_place_done(r, parsed, p);
        parsed = p;
        p = nl + 1;
    }
    gch_status st = merge_pending(r, &prev_n);
    if (st != GCH_OK)
        return st;
    in_place_done(r, parsed, p);
    r->data_size -= (size_t)(p - r->data);
    r->data = p;
    if (r->data_size + 1 < r->cap)
        r->cap = r->data_size + 1 < 64 ? 64 : r->data_size + 1;
    return GCH_OK;
}

static gch_status parse_all(reader *r)
{
    gch_status st = r->data ? parse_in_place(r) : GCH_OK;
    if (st == GCH_OK)
        st = parse_blocks(r);
    stop_reader(r);
    if (st != GCH_OK)
        return st;
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
    gch_builder_set_threads(r->b, r->opts->threads);
    r->par = gch_parallel_for(r->opts->threads);
    r->cap = r->par.knobs.read_block ? r->par.knobs.read_block : 1;
    if (r->cap > max_line()) /* so that every longer line makes a block grow */
        r->cap = max_line();
    if (r->data && r->data_size + 1 < r->cap)
        r->cap = r->data_size + 1 < 64 ? 64 : r->data_size + 1;
    r->chunks = gch_calloc(2 * PIECES, sizeof *r->chunks);
    if (!r->chunks) {
        gch_builder_free(r->b);
        return gch_error_set(r->err, GCH_ENOMEM, "out of memory");
    }
    for (unsigned k = 0; k < 2 * PIECES; k++) {
        r->chunks[k].skip_refs = r->opts->skip_refs;
        r->chunks[k].hist = r->opts->skip_refs && r->opts->histogram_only;
        r->chunks[k].key = gch_hash_key_get();
    }
    st = parse_all(r);
    if (st == GCH_OK)
        st = gch_builder_finish(r->b, out, r->err);
    if (st != GCH_OK && r->err && r->err->status == GCH_OK)
        r->err->status = st;
    for (unsigned k = 0; k < BLOCKS; k++)
        block_free(&r->blk[k]);
    for (unsigned k = 0; k < 2 * PIECES; k++)
        chunk_free(&r->chunks[k]);
    gch_free(r->chunks);
    gch_free(r->heap_type);
    gch_free(r->heap_type_used);
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
