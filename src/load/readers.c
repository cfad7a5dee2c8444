/* The reader table: see readers.h. One row per format, in the order of
 * gch_format (include/gcheap/load.h). */
#include "readers.h"

#include <string.h>

/* ---- signature tests ---- */

static int is_blank(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

size_t gch_json_first_key(const unsigned char *p, size_t n, const char *key)
{
    size_t i = 0, len = strlen(key);
    while (i < n && is_blank(p[i]))
        i++;
    if (i >= n || p[i] != '{')
        return 0;
    i++;
    while (i < n && is_blank(p[i]))
        i++;
    if (n - i < len + 2 || p[i] != '"' || memcmp(p + i + 1, key, len) != 0 || p[i + 1 + len] != '"')
        return 0;
    i += len + 2;
    while (i < n && is_blank(p[i]))
        i++;
    return i < n && p[i] == ':' ? i + 1 : 0;
}

/* The bytes start with sig (GCH_SIG_YES), or are all of the input and a
 * prefix of it (GCH_SIG_CUT, when cut_ok). */
static gch_signature magic(const unsigned char *p, size_t n, const void *sig, size_t len, int cut_ok)
{
    if (n >= len)
        return memcmp(p, sig, len) == 0 ? GCH_SIG_YES : GCH_SIG_NO;
    return cut_ok && n > 0 && memcmp(p, sig, n) == 0 ? GCH_SIG_CUT : GCH_SIG_NO;
}

/* .gcdump: a 4-byte length 20, then "!FastSerialization". The reader
 * checks the rest ("!FastSerialization.1"); detection only the name. */
static gch_signature gcdump_signature(const unsigned char *p, size_t n)
{
    static const char frame[] = "\x14\0\0\0!FastSerialization";
    if (n >= sizeof frame - 1)
        return memcmp(p + 4, frame + 4, sizeof frame - 1 - 4) == 0 ? GCH_SIG_YES : GCH_SIG_NO;
    return magic(p, n, frame, sizeof frame - 1, 1);
}

static gch_signature dart_signature(const unsigned char *p, size_t n)
{
    return magic(p, n, "dartheap", 8, 1);
}

/* "JAVA PROFILE 1.0." then 1, 2 (JVMs) or 3 (ART). */
static gch_signature hprof_signature(const unsigned char *p, size_t n)
{
    return magic(p, n, "JAVA PROFILE 1.0.", 17, 0);
}

/* The JSON formats are told apart by the first object's keys
 * (docs/architecture.md, "Detection"); V8: {"snapshot": ... */
static gch_signature v8_signature(const unsigned char *p, size_t n)
{
    return gch_json_first_key(p, n, "snapshot") ? GCH_SIG_YES : GCH_SIG_NO;
}

/* Ruby (ObjectSpace.dump_all, JSON lines): the first line's first member
 * is "address" with a "0x..." value, or "type" with "ROOT" (the roots come
 * first; a dump_all(since:) has none). */
static int json_value_starts(const unsigned char *p, size_t n, size_t at, const char *lit)
{
    size_t len = strlen(lit);
    while (at < n && is_blank(p[at]))
        at++;
    return n - at >= len && memcmp(p + at, lit, len) == 0;
}

static gch_signature ruby_signature(const unsigned char *p, size_t n)
{
    size_t at = gch_json_first_key(p, n, "address");
    if (at && json_value_starts(p, n, at, "\"0x"))
        return GCH_SIG_YES;
    at = gch_json_first_key(p, n, "type");
    return at && json_value_starts(p, n, at, "\"ROOT\"") ? GCH_SIG_YES : GCH_SIG_NO;
}

/* JavaScriptCore (Safari Web Inspector, Bun): {"version": ... (WebKit writes
 * "version" first, then "type" and "nodes"; docs/jsc-format.md). */
static gch_signature jsc_signature(const unsigned char *p, size_t n)
{
    return gch_json_first_key(p, n, "version") ? GCH_SIG_YES : GCH_SIG_NO;
}

/* ---- the table ---- */

static const gch_reader readers[] = {
    { GCH_FORMAT_GCLOG, "gclog", NULL, 0, gch_read_gclog_buffer, gch_read_gclog,
      GCH_READS_HISTOGRAM_ONLY | GCH_READS_NO_READ_AHEAD | GCH_READS_RELEASE },
    { GCH_FORMAT_GCDUMP, "gcdump", gcdump_signature, 1, gch_read_gcdump_buffer, NULL,
      GCH_READS_SIZE_BUCKETS | GCH_READS_KEEP_MODULES },
    /* keep_payloads from a pipe or gzip too: the texts and lengths are in the heap */
    { GCH_FORMAT_DART, "dart", dart_signature, 1, gch_read_dart_buffer, NULL,
      GCH_READS_KEEP_PAYLOADS | GCH_READS_PAYLOADS_IN_HEAP },
    { GCH_FORMAT_V8, "v8", v8_signature, 0, gch_read_v8_buffer, gch_read_v8,
      GCH_READS_SKIP_LABELS | GCH_READS_RELEASE },
    { GCH_FORMAT_HPROF, "hprof", hprof_signature, 1, gch_read_hprof_buffer, NULL,
      GCH_READS_SKIP_LABELS | GCH_READS_KEEP_MODULES | GCH_READS_RELEASE | GCH_READS_HPROF_REFS |
          GCH_READS_KEEP_PAYLOADS },
    /* keep_payloads from a source too: String values are kept in the heap */
    { GCH_FORMAT_RUBY, "ruby", ruby_signature, 0, gch_read_ruby_buffer, gch_read_ruby,
      GCH_READS_SKIP_LABELS | GCH_READS_KEEP_PAYLOADS },
    { GCH_FORMAT_JSC, "jsc", jsc_signature, 0, gch_read_jsc_buffer, gch_read_jsc, GCH_READS_SKIP_LABELS },
};

#define NREADERS (sizeof readers / sizeof *readers)

const gch_reader *gch_reader_of(gch_format format)
{
    size_t i = (size_t)format - 1; /* row i is format i + 1 (checked by test_readers) */
    return format != GCH_FORMAT_AUTO && i < NREADERS && readers[i].format == format ? &readers[i]
                                                                                     : NULL;
}

const char *gch_format_name(gch_format format)
{
    const gch_reader *r = gch_reader_of(format);
    return r ? r->name : format == GCH_FORMAT_AUTO ? "auto" : "?";
}

int gch_format_parse(const char *name, gch_format *out)
{
    if (strcmp(name, "auto") == 0) {
        *out = GCH_FORMAT_AUTO;
        return 0;
    }
    for (size_t i = 0; i < NREADERS; i++) {
        if (strcmp(name, readers[i].name) == 0) {
            *out = readers[i].format;
            return 0;
        }
    }
    return -1;
}

gch_format gch_detect_format(const void *head, size_t n)
{
    const gch_reader *cut = NULL, *fallback = NULL;
    for (size_t i = 0; i < NREADERS; i++) {
        if (!readers[i].signature) {
            fallback = &readers[i];
            continue;
        }
        gch_signature s = readers[i].signature(head, n);
        if (s == GCH_SIG_YES)
            return readers[i].format;
        if (s == GCH_SIG_CUT && !cut)
            cut = &readers[i];
    }
    return cut ? cut->format : fallback ? fallback->format : GCH_FORMAT_AUTO;
}
