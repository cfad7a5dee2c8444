/* Strings from the bytes of a dump (payload.h). */
#include "payload.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/utf8.h"
#include "index_cli.h"

int payload_open(payload_file *pf, const char *path, const gch_dump *dump, const gch_heap *h,
                 const char **why)
{
    memset(pf, 0, sizeof pf[0]);
    if (h->payloads_kept && (strcmp(dump->format, "ruby") == 0 || strcmp(dump->format, "v8") == 0 ||
                             strcmp(dump->format, "dart") == 0)) {
        pf->in_heap = 1; /* GCH_PAYLOAD_TEXT: kept whatever the input was */
        return 1;
    }
    if (!h->payloads_kept) {
        *why = strcmp(dump->format, "hprof") != 0 ? "its format records none"
             : dump->compression                  ? "it is compressed"
                                                  : "it was read from a pipe";
        return 0;
    }
    const char *reason;
    char *dump_path = NULL, msg[600];
    if (cli_index_starts_like(path)) {
        /* A .gcx given alone: the values are in the dump it was built from
         * (index_cli.c found it, unchanged, to load the model). */
        if (!(dump_path = cli_index_recorded_dump(path, NULL, msg, sizeof msg))) {
            *why = "its index's dump is not where it was indexed, or it changed";
            return 0;
        }
        path = dump_path;
    }
    pf->f = plat_open(path, &reason);
    free(dump_path);
    if (!pf->f) {
        *why = reason;
        return 0;
    }
    return 1;
}

void payload_close(payload_file *pf)
{
    plat_close(pf->f);
    pf->f = NULL;
}

/* Appends code point c as UTF-8. U+0000 becomes U+FFFD: cells are C strings. */
static void add_utf8(strbuf *out, uint32_t c)
{
    unsigned char b[4];
    if (c == 0)
        c = 0xFFFD;
    size_t n = gch_utf8_encode(c, b);
    sb_addn(out, (const char *)b, n);
}

/* How the characters of an array are stored. */
typedef enum { TEXT_LATIN1, TEXT_UTF16_LE, TEXT_UTF16_BE } text_form;

#define CHUNK 65536 /* bytes read at a time */

/* Decodes `units` code units of form from the file at off. A surrogate pair
 * split between two chunks is joined; a lone surrogate is U+FFFD. */
static int decode(payload_file *pf, uint64_t off, uint64_t units, text_form form, size_t max_chars,
                  strbuf *out)
{
    unsigned char buf[CHUNK];
    unsigned unit = form == TEXT_LATIN1 ? 1 : 2;
    uint64_t done = 0, chars = 0;
    uint32_t high = 0; /* a high surrogate waiting for its pair */
    while (done < units) {
        uint64_t n = units - done < CHUNK / unit ? units - done : CHUNK / unit;
        if (plat_read_at(pf->f, off + done * unit, buf, n * unit) != 0) {
            pf->read_failed = 1;
            return 0;
        }
        for (uint64_t i = 0; i < n; i++) {
            uint32_t c = form == TEXT_LATIN1   ? buf[i]
                       : form == TEXT_UTF16_LE ? (uint32_t)(buf[2 * i] | buf[2 * i + 1] << 8)
                                               : (uint32_t)(buf[2 * i] << 8 | buf[2 * i + 1]);
            if (high && c >= 0xDC00 && c <= 0xDFFF) {
                c = 0x10000 + ((high - 0xD800) << 10) + (c - 0xDC00);
                high = 0;
            } else {
                if (high) {
                    add_utf8(out, 0xFFFD);
                    high = 0;
                    chars++;
                }
                if (c >= 0xD800 && c <= 0xDBFF) {
                    high = c;
                    continue;
                }
                if (c >= 0xDC00 && c <= 0xDFFF)
                    c = 0xFFFD;
            }
            if (max_chars && chars == max_chars) {
                sb_add(out, "...");
                return 1;
            }
            add_utf8(out, c);
            chars++;
        }
        done += n;
    }
    if (high)
        add_utf8(out, 0xFFFD);
    return 1;
}

/* Text kept in the heap's pool (UTF-8 as the dump wrote it), cut after
 * max_chars code points; "..." when it is cut, or when the dump recorded
 * only its start (GCH_TEXT_CUT: a long Dart string). */
static int pool_text(const gch_heap *h, const gch_payload *p, size_t max_chars, strbuf *out)
{
    const char *s = gch_heap_string(h, (uint32_t)p->offset);
    size_t chars = 0, i = 0;
    for (; i < p->length; i++) {
        if (((unsigned char)s[i] & 0xC0) == 0x80)
            continue; /* a continuation byte */
        if (max_chars && chars == max_chars)
            break;
        chars++;
    }
    sb_addn(out, s, i);
    if (i < p->length || (p->elem & GCH_TEXT_CUT))
        sb_add(out, "...");
    return 1;
}

int payload_text(payload_file *pf, const gch_heap *h, uint32_t o, size_t max_chars, strbuf *out)
{
    if (!pf->f && !pf->in_heap)
        return 0;
    const gch_payload *p = gch_heap_payload(h, h->object_id[o]);
    if (!p)
        return 0;
    if (p->kind == GCH_PAYLOAD_TEXT)
        return pool_text(h, p, max_chars, out);
    text_form form = TEXT_UTF16_BE; /* a char[]: u2 elements, big-endian in the dump */
    if (p->kind == GCH_PAYLOAD_STRING) {
        unsigned coder = p->coder;
        p = p->value ? gch_heap_payload(h, p->value) : NULL;
        if (!p || p->kind != GCH_PAYLOAD_ARRAY)
            return 0;
        /* No coder with a byte[]: ART's compressed strings (ASCII). */
        if (p->elem == GCH_ELEM_BYTE && (coder == GCH_CODER_LATIN1 || coder == GCH_CODER_NONE))
            form = TEXT_LATIN1;
        else if (p->elem == GCH_ELEM_BYTE && coder == GCH_CODER_UTF16)
            form = TEXT_UTF16_LE;
        else if (p->elem != GCH_ELEM_CHAR)
            return 0;
    } else if (p->kind != GCH_PAYLOAD_ARRAY || p->elem != GCH_ELEM_CHAR) {
        return 0;
    }
    /* A UTF-16 byte[] holds two bytes a character; an odd last byte is not one. */
    uint64_t units = form == TEXT_UTF16_LE ? p->length / 2 : p->length;
    size_t mark = out->len;
    if (decode(pf, p->offset, units, form, max_chars, out))
        return 1;
    out->len = mark;
    if (out->s)
        out->s[mark] = '\0';
    return 0;
}
