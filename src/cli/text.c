/* See text.h. */
#include "text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "run_ctx.h"
#include "xalloc.h"

/* ---- strbuf ---- */

static void sb_reserve(strbuf *b, size_t more)
{
    if (more > SIZE_MAX - b->len - 1)
        die("out of memory");
    b->s = xgrow(b->s, &b->cap, b->len + more + 1, 1);
}

void sb_addn(strbuf *b, const char *s, size_t n)
{
    sb_reserve(b, n);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void sb_add(strbuf *b, const char *s) { sb_addn(b, s, strlen(s)); }

void sb_addc(strbuf *b, char c) { sb_addn(b, &c, 1); }

void sb_addf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    sb_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void sb_u64(strbuf *b, uint64_t v) { sb_addf(b, "%" PRIu64, v); }

const char *sb_str(const strbuf *b) { return b->s ? b->s : ""; }

void sb_reset(strbuf *b)
{
    b->len = 0;
    if (b->s)
        b->s[0] = '\0';
}

void sb_free(strbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* ---- escaping ---- */

static int is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

/* Length of a valid UTF-8 sequence starting at s, or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    size_t n;
    uint32_t cp;
    if (c >= 0xc2 && c <= 0xdf) { n = 2; cp = c & 0x1f; }
    else if (c >= 0xe0 && c <= 0xef) { n = 3; cp = c & 0x0f; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 4; cp = c & 0x07; }
    else return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* The code point of the valid n-byte UTF-8 sequence at s. */
static uint32_t utf8_code_point(const unsigned char *s, size_t n)
{
    if (n == 1)
        return s[0];
    uint32_t cp = s[0] & (n == 2 ? 0x1f : n == 3 ? 0x0f : 0x07);
    for (size_t i = 1; i < n; i++)
        cp = (cp << 6) | (s[i] & 0x3f);
    return cp;
}

/* Code points a terminal acts on or that reorder what it shows: C1 controls
 * (U+0080-U+009F, among them the one-character CSI U+009B) and the bidi
 * marks, embeddings, overrides and isolates. */
static int is_unsafe_code_point(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

/* How many bytes at s form one unsafe unit (an unsafe code point, or a
 * stray byte 0x80-0x9F that some terminals read as a C1 control); 0 when
 * the text at s is safe to show. */
static size_t unsafe_len(const unsigned char *s)
{
    if (*s < 0x80)
        return 0;
    size_t n = utf8_len(s);
    if (n == 0)
        return *s <= 0x9f ? 1 : 0;
    return is_unsafe_code_point(utf8_code_point(s, n)) ? n : 0;
}

static void escape_json(strbuf *b, const unsigned char *s)
{
    sb_addc(b, '"');
    while (*s) {
        const char *esc = NULL;
        switch (*s) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        size_t n = esc || is_control(*s) ? 1 : utf8_len(s);
        if (esc)
            sb_add(b, esc);
        else if (is_control(*s))
            sb_addf(b, "\\u%04x", *s);
        else if (n > 1 && is_unsafe_code_point(utf8_code_point(s, n)))
            sb_addf(b, "\\u%04x", (unsigned)utf8_code_point(s, n));
        else if (n == 0)
            sb_add(b, "\\ufffd"); /* an invalid UTF-8 byte */
        else
            sb_addn(b, (const char *)s, n);
        s += n ? n : 1;
    }
    sb_addc(b, '"');
}

/* A field a spreadsheet would run as a formula: it starts with = + - @ (or a
 * tab or CR, which some strip first), unless it is a plain signed number. */
static int is_formula(const char *s)
{
    if (!s[0] || !s[1] || !strchr("=+-@\t\r", s[0]))
        return 0; /* a lone "-" (no flags) is no formula */
    if ((s[0] == '-' || s[0] == '+') && s[1]) {
        const char *p = s + 1;
        while (*p >= '0' && *p <= '9')
            p++;
        if (!*p)
            return 0;
    }
    return 1;
}

/* RFC 4180, made safe to open: a formula gets a leading ' (OWASP's CSV
 * injection rule) and is quoted; control bytes other than tab, CR and LF
 * (kept inside quotes), C1 controls and bidi marks as \xNN bytes, and a
 * backslash doubled (so \xNN always means an escape: issue 36). */
static void escape_csv(strbuf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str);
    int formula = is_formula(str);
    int quote = formula || (n > 0 && (s[0] == ' ' || s[n - 1] == ' '));
    quote = quote || strpbrk(str, ",\"\n\r") != NULL;
    if (quote)
        sb_addc(b, '"');
    if (formula)
        sb_addc(b, '\'');
    for (size_t i = 0; i < n;) {
        size_t bad = unsafe_len(s + i);
        if (bad) {
            for (size_t k = 0; k < bad; k++)
                sb_addf(b, "\\x%02x", s[i + k]);
            i += bad;
            continue;
        }
        size_t whole = s[i] >= 0x80 ? utf8_len(s + i) : 0;
        if (whole > 1) {
            sb_addn(b, (const char *)s + i, whole);
            i += whole;
            continue;
        }
        if (s[i] == '"')
            sb_addc(b, '"');
        if (s[i] == '\\')
            sb_addc(b, '\\'); /* doubled: a \xNN in a name reads back apart from an escape */
        if (is_control(s[i]) && s[i] != '\n' && s[i] != '\r' && s[i] != '\t')
            sb_addf(b, "\\x%02x", s[i]);
        else
            sb_addc(b, (char)s[i]);
        i++;
    }
    if (quote)
        sb_addc(b, '"');
}

void sb_escape(strbuf *b, escape_form form, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    if (form == ESC_JSON) {
        escape_json(b, s);
        return;
    }
    if (form == ESC_CSV) {
        escape_csv(b, str);
        return;
    }
    for (; *s; s++) {
        unsigned char c = *s;
        size_t bad = unsafe_len(s);
        if (bad) {
            for (size_t k = 0; k < bad; k++) {
                if (form == ESC_MESSAGE || form == ESC_FOLDED || form == ESC_STDERR)
                    sb_addc(b, '?');
                else
                    sb_addf(b, "\\x%02x", s[k]);
            }
            s += bad - 1;
            continue;
        }
        size_t whole = c >= 0x80 ? utf8_len(s) : 0;
        if (whole > 1) { /* a safe multi-byte character: its continuation bytes are no C1 */
            sb_addn(b, (const char *)s, whole);
            s += whole - 1;
            continue;
        }
        if (form == ESC_TSV && (c == '\\' || c == '\t' || c == '\n' || c == '\r'))
            sb_add(b, c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r");
        else if (form == ESC_FOLDED && c == ';')
            sb_addc(b, ':');
        else if (!is_control(c) || (form == ESC_STDERR && (c == '\n' || c == '\t')))
            sb_addc(b, (char)c);
        else if (form == ESC_MESSAGE || form == ESC_FOLDED || form == ESC_STDERR)
            sb_addc(b, '?');
        else
            sb_addf(b, "\\x%02x", c);
    }
}

void write_escaped(FILE *f, escape_form form, const char *s)
{
    strbuf b = STRBUF_INIT;
    sb_escape(&b, form, s);
    fwrite(sb_str(&b), 1, b.len, f);
    sb_free(&b);
}

void write_json_string(FILE *f, const char *s) { write_escaped(f, ESC_JSON, s); }
void write_tsv_field(FILE *f, const char *s) { write_escaped(f, ESC_TSV, s); }
void write_csv_field(FILE *f, const char *s) { write_escaped(f, ESC_CSV, s); }
void write_table_text(FILE *f, const char *s) { write_escaped(f, ESC_TABLE, s); }

void sb_escape_vf(strbuf *b, escape_form form, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n <= 0)
        return;
    char *raw = xmalloc((size_t)n + 1);
    vsnprintf(raw, (size_t)n + 1, fmt, ap);
    sb_escape(b, form, raw);
    free(raw);
}

void stderr_vprintf(const char *fmt, va_list ap)
{
    strbuf b = STRBUF_INIT;
    sb_escape_vf(&b, ESC_STDERR, fmt, ap);
    fwrite(sb_str(&b), 1, b.len, cli_ctx_get()->err);
    sb_free(&b);
}

void stderr_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    stderr_vprintf(fmt, ap);
    va_end(ap);
}

const char *message_text(const char *s, char *buf, size_t cap)
{
    strbuf b = STRBUF_INIT;
    sb_escape(&b, ESC_MESSAGE, s);
    snprintf(buf, cap, "%s", sb_str(&b));
    sb_free(&b);
    return buf;
}

/* ---- numbers ---- */

const char *format_human_bytes(uint64_t v, char *buf, size_t cap)
{
    static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
    if (v < 1024) {
        snprintf(buf, cap, "%" PRIu64 " B", v);
        return buf;
    }
    double d = (double)v;
    int u = -1;
    while (d >= 1024.0 && u < 5) {
        d /= 1024.0;
        u++;
    }
    snprintf(buf, cap, "%.1f %s", d, units[u]);
    return buf;
}

const char *format_bytes_text(uint64_t v, int human, char *buf, size_t cap)
{
    if (human)
        return format_human_bytes(v, buf, cap);
    snprintf(buf, cap, "%" PRIu64 " bytes", v);
    return buf;
}

const char *format_share(uint64_t part, uint64_t whole, char *buf, size_t cap)
{
    long double p = whole ? (long double)part * 100.0L / (long double)whole : 0.0L;
    snprintf(buf, cap, "%.1Lf", p);
    return buf;
}

const char *format_grouped(uint64_t v, char *buf, size_t cap)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%" PRIu64, v);
    size_t w = 0;
    for (int i = 0; i < n && w + 2 < cap; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[w++] = ',';
        buf[w++] = digits[i];
    }
    buf[w] = '\0';
    return buf;
}

const char *format_id(uint64_t id, int radix, char *buf, size_t cap)
{
    snprintf(buf, cap, radix == 10 ? "%" PRIu64 : "%" PRIx64, id);
    return buf;
}
