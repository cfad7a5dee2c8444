/* Report writer: see output.h. */
#include "output.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLS 16

struct report {
    const cli_common *common;
    const char *command;
    int multi;
    FILE *out;
    col_spec cols[MAX_COLS];
    int ncols;

    char *domain;
    int col;          /* next cell's column */
    int in_total;
    int header_done;
    int sections;
    int rows_in_section;

    /* table buffering */
    char **cells;
    size_t ncells, cap;
    char *total[MAX_COLS];
    int has_total;
    char **notes;
    size_t nnotes;

    /* json */
    jbuf total_json;           /* "k":v,... of the totals row */
    char **raw_keys, **raw_vals;
    size_t nraw;
    int json_opened;
    int oom;
};

static void die_oom(void)
{
    fputs("gcheap: out of memory\n", stderr);
    exit(2);
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s);
    char *p = malloc(n + 1);
    if (!p)
        die_oom();
    memcpy(p, s, n + 1);
    return p;
}

/* ---- escaping ---- */

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

/* The one json string escaper; put() receives the escaped text in pieces. */
static void json_escape(const char *str, void (*put)(void *ctx, const char *p, size_t n), void *ctx)
{
    const unsigned char *s = (const unsigned char *)str;
    put(ctx, "\"", 1);
    while (*s) {
        unsigned char c = *s;
        const char *esc = NULL;
        switch (c) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        default: break;
        }
        if (esc) {
            put(ctx, esc, 2);
            s++;
            continue;
        }
        if (c < 0x20 || c == 0x7f) {
            char u[8];
            snprintf(u, sizeof u, "\\u%04x", c);
            put(ctx, u, 6);
            s++;
            continue;
        }
        size_t n = utf8_len(s);
        if (n == 0) {
            put(ctx, "\\ufffd", 6); /* invalid UTF-8 byte */
            s++;
            continue;
        }
        put(ctx, (const char *)s, n);
        s += n;
    }
    put(ctx, "\"", 1);
}

static void put_file(void *ctx, const char *p, size_t n) { fwrite(p, 1, n, (FILE *)ctx); }

void write_json_string(FILE *f, const char *str) { json_escape(str, put_file, f); }

static void jbuf_put(void *ctx, const char *s, size_t n)
{
    jbuf *b = ctx;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->len + n + 1 > cap)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns)
            die_oom();
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void jbuf_raw(jbuf *b, const char *s) { jbuf_put(b, s, strlen(s)); }

void jbuf_u64(jbuf *b, uint64_t v)
{
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, v);
    jbuf_raw(b, num);
}

void jbuf_str(jbuf *b, const char *s) { json_escape(s, jbuf_put, b); }

void jbuf_free(jbuf *b)
{
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

void write_tsv_field(FILE *f, const char *str)
{
    for (const unsigned char *s = (const unsigned char *)str; *s; s++) {
        switch (*s) {
        case '\\': fputs("\\\\", f); break;
        case '\t': fputs("\\t", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (*s < 0x20 || *s == 0x7f)
                fprintf(f, "\\x%02x", *s);
            else
                fputc(*s, f);
        }
    }
}

void write_csv_field(FILE *f, const char *s)
{
    size_t n = strlen(s);
    int quote = n > 0 && (s[0] == ' ' || s[n - 1] == ' ');
    for (size_t i = 0; i < n && !quote; i++)
        if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
            quote = 1;
    if (!quote) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

void write_table_text(FILE *f, const char *str)
{
    /* Control bytes would move a terminal's cursor: show them escaped. */
    for (const unsigned char *s = (const unsigned char *)str; *s; s++) {
        if (*s < 0x20 || *s == 0x7f)
            fprintf(f, "\\x%02x", *s);
        else
            fputc(*s, f);
    }
}

static char *table_text(const char *str)
{
    size_t n = 0;
    for (const unsigned char *s = (const unsigned char *)str; *s; s++)
        n += (*s < 0x20 || *s == 0x7f) ? 4 : 1;
    char *out = malloc(n + 1), *w = out;
    if (!out)
        die_oom();
    for (const unsigned char *s = (const unsigned char *)str; *s; s++) {
        if (*s < 0x20 || *s == 0x7f)
            w += sprintf(w, "\\x%02x", *s);
        else
            *w++ = (char)*s;
    }
    *w = '\0';
    return out;
}

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

/* ---- report ---- */

report *report_new(const cli_common *common, const char *command, int multi_section, FILE *out)
{
    report *r = calloc(1, sizeof *r);
    if (!r)
        die_oom();
    r->common = common;
    r->command = command;
    r->multi = multi_section;
    r->out = out;
    return r;
}

void report_columns(report *r, const col_spec *cols, int ncols)
{
    if (ncols > MAX_COLS)
        ncols = MAX_COLS;
    memcpy(r->cols, cols, sizeof *cols * (size_t)ncols);
    r->ncols = ncols;
}

static void json_open(report *r)
{
    if (r->json_opened)
        return;
    fprintf(r->out, "{\"command\":");
    write_json_string(r->out, r->command);
    r->json_opened = 1;
}

void report_json_field_str(report *r, const char *key, const char *value)
{
    if (r->common->format != FMT_JSON)
        return;
    json_open(r);
    fputc(',', r->out);
    write_json_string(r->out, key);
    fputc(':', r->out);
    write_json_string(r->out, value);
}

FILE *report_json_member(report *r, const char *key)
{
    if (r->common->format != FMT_JSON)
        return NULL;
    json_open(r);
    fputc(',', r->out);
    write_json_string(r->out, key);
    fputc(':', r->out);
    return r->out;
}

static void write_header(report *r)
{
    if (r->header_done)
        return;
    r->header_done = 1;
    int csv = r->common->format == FMT_CSV;
    const char *sep = csv ? "," : "\t";
    if (r->multi)
        fprintf(r->out, "domain%s", sep);
    for (int i = 0; i < r->ncols; i++)
        fprintf(r->out, "%s%s", r->cols[i].name, i + 1 < r->ncols ? sep : "\n");
}

void report_begin_section(report *r, const char *domain)
{
    free(r->domain);
    r->domain = xstrdup(domain ? domain : "");
    r->col = 0;
    r->in_total = 0;
    r->rows_in_section = 0;
    switch (r->common->format) {
    case FMT_TSV:
    case FMT_CSV:
        write_header(r);
        break;
    case FMT_JSON:
        json_open(r);
        fprintf(r->out, r->sections ? "," : ",\"sections\":[");
        fprintf(r->out, "{\"domain\":");
        write_json_string(r->out, r->domain);
        fprintf(r->out, ",\"rows\":[");
        break;
    default:
        break;
    }
    r->sections++;
}

static void store_table_cell(report *r, char *s)
{
    if (r->in_total) {
        r->total[r->col] = s;
        return;
    }
    if (r->ncells == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 256;
        r->cells = realloc(r->cells, r->cap * sizeof *r->cells);
        if (!r->cells)
            die_oom();
    }
    r->cells[r->ncells++] = s;
}

/* Emits one cell: text is the display form, json_raw the json value text
 * (already quoted for strings). */
static void cell(report *r, const char *text, const char *json_raw, const char *json_str)
{
    int c = r->col;
    switch (r->common->format) {
    case FMT_TABLE:
    case FMT_FOLDED:
        store_table_cell(r, table_text(text));
        break;
    case FMT_TSV:
    case FMT_CSV:
        if (r->in_total)
            break;
        if (c == 0 && r->multi) {
            if (r->common->format == FMT_CSV)
                write_csv_field(r->out, r->domain);
            else
                write_tsv_field(r->out, r->domain);
            fputc(r->common->format == FMT_CSV ? ',' : '\t', r->out);
        }
        if (r->common->format == FMT_CSV)
            write_csv_field(r->out, text);
        else
            write_tsv_field(r->out, text);
        fputc(c + 1 < r->ncols ? (r->common->format == FMT_CSV ? ',' : '\t') : '\n', r->out);
        break;
    case FMT_JSON:
        if (r->in_total) {
            /* Built as a string: the totals follow the rows array. */
            char key[128];
            snprintf(key, sizeof key, "%s\"%s\":", c ? "," : "", r->cols[c].name);
            jbuf_raw(&r->total_json, key);
            if (json_raw)
                jbuf_raw(&r->total_json, json_raw);
            else
                jbuf_str(&r->total_json, json_str);
            break;
        }
        if (c == 0)
            fprintf(r->out, "%s{", r->rows_in_section ? "," : "");
        fprintf(r->out, "%s\"%s\":", c ? "," : "", r->cols[c].name);
        if (json_raw)
            fputs(json_raw, r->out);
        else
            write_json_string(r->out, json_str);
        if (c + 1 == r->ncols)
            fputc('}', r->out);
        break;
    }
    if (++r->col == r->ncols) {
        r->col = 0;
        if (r->in_total)
            r->has_total = 1;
        else
            r->rows_in_section++;
        r->in_total = 0;
    }
}

void report_cell_text(report *r, const char *s)
{
    cell(r, s, NULL, s);
}

void report_cell_u64(report *r, uint64_t v)
{
    char num[32], shown[48];
    snprintf(num, sizeof num, "%" PRIu64, v);
    const char *text = num;
    if (r->common->format == FMT_TABLE && r->common->human && r->cols[r->col].kind == COL_BYTES)
        text = format_human_bytes(v, shown, sizeof shown);
    cell(r, text, num, NULL);
}

void report_cell_signed(report *r, int negative, uint64_t magnitude)
{
    char num[40], shown[48];
    if (magnitude == 0)
        negative = 0;
    snprintf(num, sizeof num, "%s%" PRIu64, negative ? "-" : "", magnitude);
    const char *text = num;
    if (r->common->format == FMT_TABLE) {
        if (r->common->human && r->cols[r->col].kind == COL_BYTES) {
            char h[40];
            format_human_bytes(magnitude, h, sizeof h);
            snprintf(shown, sizeof shown, "%s%s", negative ? "-" : (magnitude ? "+" : ""), h);
        } else {
            snprintf(shown, sizeof shown, "%s%" PRIu64, negative ? "-" : (magnitude ? "+" : ""),
                     magnitude);
        }
        text = shown;
    }
    cell(r, text, num, NULL);
}

void report_cell_i64(report *r, int64_t v)
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    report_cell_signed(r, v < 0, mag);
}

void report_cell_id(report *r, uint64_t id, int radix)
{
    char buf[32];
    snprintf(buf, sizeof buf, radix == 10 ? "%" PRIu64 : "%" PRIx64, id);
    cell(r, buf, NULL, buf);
}

void report_note(report *r, const char *fmt, ...)
{
    if (r->common->format != FMT_TABLE)
        return;
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    r->notes = realloc(r->notes, (r->nnotes + 1) * sizeof *r->notes);
    if (!r->notes)
        die_oom();
    r->notes[r->nnotes++] = xstrdup(buf);
}

void report_begin_total(report *r)
{
    r->in_total = 1;
    r->col = 0;
}

void report_section_json_raw(report *r, const char *key, const char *raw_json)
{
    if (r->common->format != FMT_JSON)
        return;
    r->raw_keys = realloc(r->raw_keys, (r->nraw + 1) * sizeof *r->raw_keys);
    r->raw_vals = realloc(r->raw_vals, (r->nraw + 1) * sizeof *r->raw_vals);
    if (!r->raw_keys || !r->raw_vals)
        die_oom();
    r->raw_keys[r->nraw] = xstrdup(key);
    r->raw_vals[r->nraw] = xstrdup(raw_json);
    r->nraw++;
}

static int is_numeric(col_kind k) { return k == COL_COUNT || k == COL_BYTES || k == COL_SIGNED || k == COL_ID; }

static void print_table(report *r)
{
    size_t width[MAX_COLS] = { 0 };
    size_t rows = r->ncols ? r->ncells / (size_t)r->ncols : 0;
    for (int c = 0; c < r->ncols; c++) {
        width[c] = strlen(r->cols[c].name);
        for (size_t i = 0; i < rows; i++) {
            size_t n = strlen(r->cells[i * (size_t)r->ncols + (size_t)c]);
            if (n > width[c])
                width[c] = n;
        }
        if (r->has_total && r->total[c] && strlen(r->total[c]) > width[c])
            width[c] = strlen(r->total[c]);
    }
    if (r->multi) {
        fprintf(r->out, "%s== ", r->sections > 1 ? "\n" : "");
        write_table_text(r->out, r->domain);
        fprintf(r->out, " ==\n");
    }
    for (size_t i = 0; i <= rows + (size_t)(r->has_total ? 1 : 0); i++) {
        for (int c = 0; c < r->ncols; c++) {
            const char *s;
            if (i == 0)
                s = r->cols[c].name;
            else if (i <= rows)
                s = r->cells[(i - 1) * (size_t)r->ncols + (size_t)c];
            else
                s = r->total[c] ? r->total[c] : "";
            int last = c + 1 == r->ncols;
            if (is_numeric(r->cols[c].kind))
                fprintf(r->out, last ? "%*s\n" : "%*s  ", (int)width[c], s);
            else if (last)
                fprintf(r->out, "%s\n", s);
            else
                fprintf(r->out, "%-*s  ", (int)width[c], s);
        }
    }
    for (size_t i = 0; i < r->nnotes; i++)
        fprintf(r->out, "%s\n", r->notes[i]);
}

static void clear_section(report *r)
{
    for (size_t i = 0; i < r->ncells; i++)
        free(r->cells[i]);
    r->ncells = 0;
    for (int c = 0; c < MAX_COLS; c++) {
        free(r->total[c]);
        r->total[c] = NULL;
    }
    r->has_total = 0;
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    r->nnotes = 0;
    jbuf_free(&r->total_json);
    for (size_t i = 0; i < r->nraw; i++) {
        free(r->raw_keys[i]);
        free(r->raw_vals[i]);
    }
    r->nraw = 0;
}

void report_end_section(report *r)
{
    switch (r->common->format) {
    case FMT_TABLE:
    case FMT_FOLDED:
        print_table(r);
        break;
    case FMT_JSON:
        fputc(']', r->out);
        if (r->has_total)
            fprintf(r->out, ",\"total\":{%s}", r->total_json.s ? r->total_json.s : "");
        for (size_t i = 0; i < r->nraw; i++) {
            fputc(',', r->out);
            write_json_string(r->out, r->raw_keys[i]);
            fprintf(r->out, ":%s", r->raw_vals[i]);
        }
        fputc('}', r->out);
        break;
    default:
        break;
    }
    clear_section(r);
}

int report_finish(report *r)
{
    if (r->common->format == FMT_JSON) {
        json_open(r);
        if (!r->sections)
            fprintf(r->out, ",\"sections\":[");
        fprintf(r->out, "]}\n");
    } else if ((r->common->format == FMT_TSV || r->common->format == FMT_CSV) && !r->header_done) {
        write_header(r);
    }
    clear_section(r);
    free(r->cells);
    free(r->notes);
    free(r->raw_keys);
    free(r->raw_vals);
    free(r->domain);
    int failed = fflush(r->out) != 0 || ferror(r->out);
    free(r);
    if (failed) {
        fputs("gcheap: error writing output\n", stderr);
        return 2;
    }
    return 0;
}
