/* Escaping for the HTML report: see html_escape.h. */
#include "html_escape.h"

#include <stddef.h>
#include <stdint.h>

/* Length of the well-formed UTF-8 sequence at s (2 to 4), or 0 when the
 * bytes there are not one (Unicode 15, table 3-7). s[0] >= 0x80. */
static size_t utf8_sequence(const unsigned char *s)
{
    unsigned char c = s[0];
    unsigned char lo = 0x80, hi = 0xbf;
    size_t len;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f; /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f; /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t k = 2; k < len; k++)
        if (s[k] < 0x80 || s[k] > 0xbf) /* also stops at the terminating NUL */
            return 0;
    return len;
}

/* Whether the well-formed len-byte sequence at s is a C1 control
 * (U+0080-U+009F) or a bidi control (U+061C, U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069): a name holding one would show reversed or garbled in its
 * cell. They are shown as their bytes, \xNN each, as tables, tsv and csv
 * show them (src/cli/text.c). */
static int is_unsafe(const unsigned char *s, size_t len)
{
    uint32_t cp = s[0] & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
    for (size_t k = 1; k < len; k++)
        cp = cp << 6 | (s[k] & 0x3f);
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Writes the bytes of s as text "\xNN" (escape_backslash: "\\xNN", for JSON). */
static void write_bytes_visible(FILE *f, const unsigned char *s, size_t len, int escape_backslash)
{
    for (size_t k = 0; k < len; k++)
        fprintf(f, escape_backslash ? "\\\\x%02x" : "\\x%02x", s[k]);
}

void html_json_string(FILE *f, const char *str)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    putc('"', f);
    while (*s) {
        unsigned char c = *s;
        if (c >= 0x80) {
            size_t len = utf8_sequence(s);
            if (!len) {
                fputs("\\ufffd", f);
                s++;
            } else if (is_unsafe(s, len)) {
                write_bytes_visible(f, s, len, 1);
                s += len;
            } else if (len == 3 && c == 0xe2 && s[1] == 0x80 && (s[2] == 0xa8 || s[2] == 0xa9)) {
                fputs(s[2] == 0xa8 ? "\\u2028" : "\\u2029", f);
                s += 3;
            } else {
                fwrite(s, 1, len, f);
                s += len;
            }
            continue;
        }
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
                fputs("\\u00", f);
                putc(hex[c >> 4], f);
                putc(hex[c & 15], f);
            } else {
                putc(c, f);
            }
        }
        s++;
    }
    putc('"', f);
}

void html_text(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned char c = *s;
        if (c >= 0x80) {
            size_t len = utf8_sequence(s);
            if (!len) {
                fputs("\xef\xbf\xbd", f);
                s++;
            } else if (is_unsafe(s, len)) {
                write_bytes_visible(f, s, len, 0);
                s += len;
            } else {
                fwrite(s, 1, len, f);
                s += len;
            }
            continue;
        }
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: putc(c, f);
        }
        s++;
    }
}
