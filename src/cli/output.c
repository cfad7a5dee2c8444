/* The output layer: see output.h. */
#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Buffered output is written out past this size (at row boundaries). */
#define OUT_FLUSH_BYTES 65536

typedef struct envelope_field {
    const char *key, *value;
} envelope_field;

struct cli_out {
    const cli_common *common;
    const char *command;
    FILE *f;
    strbuf buf;
    json_writer jw;          /* json: the envelope, then the sections */
    envelope_field *fields;
    size_t nfields, cap_fields;
    int started;
    int sections_open;       /* json: the "sections" array is open */
    report *reports;         /* open reports, newest first */
    int write_errno;         /* errno of the first failed write (0: none, or unknown) */
    int write_failed;
};

/* Writes the buffer out, keeping the reason of the first failure (EPIPE,
 * ENOSPC, EBADF...) for the message. */
static void write_buffer(cli_out *o)
{
    if (!o->buf.len)
        return;
    errno = 0;
    if (fwrite(o->buf.s, 1, o->buf.len, o->f) != o->buf.len && !o->write_failed) {
        o->write_failed = 1;
        o->write_errno = errno;
    }
}

typedef struct row_member {
    char *key, *value; /* value NULL: json null */
} row_member;

struct report {
    cli_out *o;
    col_spec *cols;
    size_t ncols;
    int multi;
    int domain_col;          /* tsv/csv: a last "domain" column, on every dump */
    report *next;

    char *domain;
    size_t col;              /* next cell's column */
    int in_total;
    int header_done;
    int sections;
    int record;              /* the current section is a record (info) */

    /* table: the section's cells, kept to align the columns */
    char **cells;
    size_t ncells, cap_cells;
    char **total;
    int has_total;
    char **notes;
    size_t nnotes, cap_notes;

    /* json: the totals row and the section's own members, written at its end */
    strbuf total_json, extra;
    json_writer total_w, extra_w;

    /* json: members of the next row beyond its columns (report_row_json_text) */
    row_member *row_extra;
    size_t nrow_extra, cap_row_extra;
};

static out_format form(const cli_out *o) { return o->common->format; }

/* ---- cli_out ---- */

cli_out *out_new(const cli_common *common, const char *command, FILE *f)
{
    cli_out *o = xcalloc(1, sizeof *o);
    o->common = common;
    o->command = command;
    o->f = f;
    json_init(&o->jw, &o->buf);
    return o;
}

void out_envelope(cli_out *o, const char *key, const char *value)
{
    o->fields = xgrow(o->fields, &o->cap_fields, o->nfields + 1, sizeof *o->fields);
    o->fields[o->nfields].key = key;
    o->fields[o->nfields++].value = value;
}

static void start(cli_out *o)
{
    if (o->started)
        return;
    o->started = 1;
    if (form(o) != FMT_JSON)
        return;
    json_begin_object(&o->jw, NULL);
    json_string(&o->jw, "command", o->command);
    for (size_t i = 0; i < o->nfields; i++)
        json_string(&o->jw, o->fields[i].key, o->fields[i].value);
}

static void flush_some(cli_out *o)
{
    if (o->buf.len < OUT_FLUSH_BYTES)
        return;
    write_buffer(o);
    sb_reset(&o->buf);
}

json_writer *out_json(cli_out *o)
{
    start(o);
    return form(o) == FMT_JSON ? &o->jw : NULL;
}

void out_printf(cli_out *o, const char *fmt, ...)
{
    start(o);
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        sb_addn(&o->buf, small, (size_t)n);
    } else {
        char *big = xmalloc((size_t)n + 1);
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb_addn(&o->buf, big, (size_t)n);
        free(big);
    }
    flush_some(o);
}

void out_text(cli_out *o, escape_form how, const char *s)
{
    start(o);
    sb_escape(&o->buf, how, s);
    flush_some(o);
}

int out_finish(cli_out *o)
{
    while (o->reports)
        report_end(o->reports);
    if (o->started && form(o) == FMT_JSON) {
        if (!o->sections_open)
            json_begin_array(&o->jw, "sections");
        json_end_array(&o->jw);
        json_end_object(&o->jw);
        sb_addc(&o->buf, '\n');
    }
    write_buffer(o);
    errno = 0;
    if (fflush(o->f) != 0 && !o->write_failed) {
        o->write_failed = 1;
        o->write_errno = errno;
    }
    int failed = o->write_failed || ferror(o->f);
    int reason = o->write_errno;
    sb_free(&o->buf);
    free(o->fields);
    free(o);
    if (failed) {
        if (reason)
            cli_error("error writing output: %s", strerror(reason));
        else
            cli_error("error writing output");
        return 2;
    }
    return 0;
}

/* ---- reports ---- */

report *report_new(cli_out *o, const col_spec *cols, size_t ncols, int multi_section)
{
    report *r = xcalloc(1, sizeof *r);
    r->o = o;
    r->cols = xmalloc_array(ncols, sizeof *cols);
    memcpy(r->cols, cols, ncols * sizeof *cols);
    r->ncols = ncols;
    r->total = xcalloc(ncols, sizeof *r->total);
    r->multi = multi_section;
    /* One schema whatever the dump: tsv/csv rows always end with the section
     * (domain) they come from, so `cut -f1` is the first column on a one-
     * and a many-section dump alike (unless the report has its own). */
    r->domain_col = 1;
    for (size_t i = 0; i < ncols; i++)
        if (strcmp(cols[i].name, "domain") == 0)
            r->domain_col = 0;
    r->next = o->reports;
    o->reports = r;
    start(o);
    return r;
}

static void write_header(report *r)
{
    if (r->header_done)
        return;
    r->header_done = 1;
    strbuf *b = &r->o->buf;
    char sep = form(r->o) == FMT_CSV ? ',' : '\t';
    for (size_t i = 0; i < r->ncols; i++) {
        sb_add(b, r->cols[i].name);
        sb_addc(b, i + 1 < r->ncols ? sep : r->domain_col ? sep : '\n');
    }
    if (r->domain_col)
        sb_add(b, "domain\n");
}

static void clear_section(report *r)
{
    for (size_t i = 0; i < r->ncells; i++)
        free(r->cells[i]);
    r->ncells = 0;
    for (size_t c = 0; c < r->ncols; c++) {
        free(r->total[c]);
        r->total[c] = NULL;
    }
    r->has_total = 0;
    for (size_t i = 0; i < r->nnotes; i++)
        free(r->notes[i]);
    r->nnotes = 0;
    sb_reset(&r->total_json);
    sb_reset(&r->extra);
}

void report_end(report *r)
{
    cli_out *o = r->o;
    if ((form(o) == FMT_TSV || form(o) == FMT_CSV) && !r->header_done)
        write_header(r);
    for (report **p = &o->reports; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    clear_section(r);
    for (size_t i = 0; i < r->nrow_extra; i++) {
        free(r->row_extra[i].key);
        free(r->row_extra[i].value);
    }
    free(r->row_extra);
    free(r->cells);
    free(r->total);
    free(r->notes);
    free(r->cols);
    free(r->domain);
    sb_free(&r->total_json);
    sb_free(&r->extra);
    free(r);
}

static void begin(report *r, const char *domain, int record)
{
    cli_out *o = r->o;
    free(r->domain);
    r->domain = xstrdup(domain ? domain : "");
    r->col = 0;
    r->in_total = 0;
    r->record = record;
    switch (form(o)) {
    case FMT_TSV:
    case FMT_CSV:
        write_header(r);
        break;
    case FMT_JSON:
        if (!o->sections_open)
            json_begin_array(&o->jw, "sections");
        o->sections_open = 1;
        json_begin_object(&o->jw, NULL);
        if (!record) {
            json_string(&o->jw, "domain", r->domain);
            json_begin_array(&o->jw, "rows");
        }
        json_init_members(&r->total_w, &r->total_json, 0);
        json_init_members(&r->extra_w, &r->extra, 1);
        break;
    default:
        break;
    }
    r->sections++;
}

void report_begin_section(report *r, const char *domain) { begin(r, domain, 0); }

void report_begin_record(report *r, const char *domain) { begin(r, domain, 1); }

static char *escaped_copy(escape_form how, const char *s)
{
    strbuf b = STRBUF_INIT;
    sb_escape(&b, how, s);
    return b.s ? b.s : xstrdup("");
}

static void store_table_cell(report *r, char *s)
{
    if (r->in_total) {
        r->total[r->col] = s;
        return;
    }
    r->cells = xgrow(r->cells, &r->cap_cells, r->ncells + 1, sizeof *r->cells);
    r->cells[r->ncells++] = s;
}

/* Emits one cell: text is the display form; json_number the json value when
 * it is a number (NULL: json_string is the string value). */
static void cell(report *r, const char *text, const char *json_number, const char *json_str)
{
    cli_out *o = r->o;
    size_t c = r->col;
    int last = c + 1 == r->ncols;
    switch (form(o)) {
    case FMT_TABLE:
    case FMT_FOLDED:
        store_table_cell(r, escaped_copy(ESC_TABLE, text));
        break;
    case FMT_TSV:
    case FMT_CSV: {
        if (r->in_total)
            break;
        escape_form how = form(o) == FMT_CSV ? ESC_CSV : ESC_TSV;
        char sep = form(o) == FMT_CSV ? ',' : '\t';
        sb_escape(&o->buf, how, text);
        sb_addc(&o->buf, last && !r->domain_col ? '\n' : sep);
        if (last && r->domain_col) {
            sb_escape(&o->buf, how, r->domain);
            sb_addc(&o->buf, '\n');
        }
        break;
    }
    case FMT_JSON: {
        json_writer *w = r->in_total ? &r->total_w : &o->jw;
        if (c == 0 && !r->in_total)
            json_begin_object(w, NULL);
        if (json_number)
            json_raw(w, r->cols[c].name, json_number);
        else
            json_string(w, r->cols[c].name, json_str);
        if (last && !r->in_total) {
            for (size_t i = 0; i < r->nrow_extra; i++) {
                row_member *m = &r->row_extra[i];
                if (m->value)
                    json_string(w, m->key, m->value);
                else
                    json_null(w, m->key);
                free(m->key);
                free(m->value);
            }
            r->nrow_extra = 0;
            json_end_object(w);
        }
        break;
    }
    }
    if (++r->col == r->ncols) {
        r->col = 0;
        if (r->in_total)
            r->has_total = 1;
        r->in_total = 0;
        flush_some(o);
    }
}

void report_cell_text(report *r, const char *s) { cell(r, s, NULL, s); }

void report_row_json_text(report *r, const char *key, const char *value)
{
    if (form(r->o) != FMT_JSON)
        return;
    r->row_extra = xgrow(r->row_extra, &r->cap_row_extra, r->nrow_extra + 1, sizeof *r->row_extra);
    row_member *m = &r->row_extra[r->nrow_extra++];
    m->key = xstrdup(key);
    m->value = value ? xstrdup(value) : NULL;
}

static int human_bytes(const report *r, col_kind kind)
{
    return form(r->o) == FMT_TABLE && r->o->common->human && kind == COL_BYTES;
}

void report_cell_u64(report *r, uint64_t v)
{
    char num[32], shown[48];
    snprintf(num, sizeof num, "%" PRIu64, v);
    const char *text = num;
    if (human_bytes(r, r->cols[r->col].kind))
        text = format_human_bytes(v, shown, sizeof shown);
    cell(r, text, num, NULL);
}

void report_cell_signed(report *r, int negative, uint64_t magnitude)
{
    char num[40], shown[48], h[40];
    if (magnitude == 0)
        negative = 0;
    snprintf(num, sizeof num, "%s%" PRIu64, negative ? "-" : "", magnitude);
    const char *text = num;
    if (form(r->o) == FMT_TABLE) {
        const char *sign = negative ? "-" : (magnitude ? "+" : "");
        if (human_bytes(r, r->cols[r->col].kind))
            snprintf(shown, sizeof shown, "%s%s", sign, format_human_bytes(magnitude, h, sizeof h));
        else
            snprintf(shown, sizeof shown, "%s%" PRIu64, sign, magnitude);
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
    format_id(id, radix, buf, sizeof buf);
    cell(r, buf, NULL, buf);
}

void report_cell_none(report *r)
{
    cell(r, form(r->o) == FMT_TABLE ? "-" : "", "null", NULL);
}

void report_cell_bool(report *r, int v)
{
    cell(r, v ? "yes" : "no", v ? "true" : "false", NULL);
}

void report_note(report *r, const char *fmt, ...)
{
    if (form(r->o) != FMT_TABLE)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = xmalloc(n > 0 ? (size_t)n + 1 : 1);
    va_start(ap, fmt);
    vsnprintf(text, n > 0 ? (size_t)n + 1 : 1, fmt, ap);
    va_end(ap);
    r->notes = xgrow(r->notes, &r->cap_notes, r->nnotes + 1, sizeof *r->notes);
    r->notes[r->nnotes++] = text;
}

void report_note_more(report *r, uint64_t shown, uint64_t total, const char *what)
{
    if (shown < total)
        report_note(r, "(%" PRIu64 " more %s not shown)", total - shown, what);
}

void report_begin_total(report *r)
{
    r->in_total = 1;
    r->col = 0;
}

const char *report_total_label(const report *r, uint64_t n, const char *noun, char *buf, size_t cap)
{
    if (form(r->o) == FMT_TABLE)
        snprintf(buf, cap, "total (%" PRIu64 " %s%s)", n, noun, n == 1 ? "" : "s");
    else
        snprintf(buf, cap, "total");
    return buf;
}

json_writer *report_section_json(report *r)
{
    return form(r->o) == FMT_JSON ? &r->extra_w : NULL;
}

void report_section_u64(report *r, const char *key, uint64_t v)
{
    json_writer *w = report_section_json(r);
    if (w)
        json_u64(w, key, v);
}

void report_section_live(report *r, uint64_t count, uint64_t bytes)
{
    report_section_u64(r, "live_count", count);
    report_section_u64(r, "live_bytes", bytes);
}

static int is_numeric(col_kind k) { return k != COL_TEXT; }

static void print_table(report *r)
{
    strbuf *b = &r->o->buf;
    size_t *width = xcalloc(r->ncols, sizeof *width);
    size_t rows = r->ncells / r->ncols;
    for (size_t c = 0; c < r->ncols; c++) {
        width[c] = strlen(r->cols[c].name);
        for (size_t i = 0; i < rows; i++) {
            size_t n = strlen(r->cells[i * r->ncols + c]);
            if (n > width[c])
                width[c] = n;
        }
        if (r->has_total && r->total[c] && strlen(r->total[c]) > width[c])
            width[c] = strlen(r->total[c]);
    }
    if (r->multi) {
        sb_add(b, r->sections > 1 ? "\n== " : "== ");
        sb_escape(b, ESC_TABLE, r->domain);
        sb_add(b, " ==\n");
    }
    for (size_t i = 0; i <= rows + (size_t)(r->has_total ? 1 : 0); i++) {
        for (size_t c = 0; c < r->ncols; c++) {
            const char *s;
            if (i == 0)
                s = r->cols[c].name;
            else if (i <= rows)
                s = r->cells[(i - 1) * r->ncols + c];
            else
                s = r->total[c] ? r->total[c] : "";
            int last = c + 1 == r->ncols;
            if (is_numeric(r->cols[c].kind))
                sb_addf(b, last ? "%*s\n" : "%*s  ", (int)width[c], s);
            else if (last)
                sb_addf(b, "%s\n", s);
            else
                sb_addf(b, "%-*s  ", (int)width[c], s);
        }
        flush_some(r->o);
    }
    for (size_t i = 0; i < r->nnotes; i++)
        sb_addf(b, "%s\n", r->notes[i]);
    free(width);
}

void report_end_section(report *r)
{
    cli_out *o = r->o;
    switch (form(o)) {
    case FMT_TABLE:
    case FMT_FOLDED:
        print_table(r);
        break;
    case FMT_JSON:
        if (!r->record)
            json_end_array(&o->jw);
        if (r->has_total) {
            sb_add(&o->buf, ",\"total\":{");
            sb_add(&o->buf, sb_str(&r->total_json));
            sb_addc(&o->buf, '}');
        }
        sb_add(&o->buf, sb_str(&r->extra));
        json_end_object(&o->jw);
        break;
    default:
        break;
    }
    clear_section(r);
    flush_some(o);
}

/* ---- record sections ---- */

void report_field_text(report *r, const char *key, const char *value)
{
    if (form(r->o) == FMT_JSON) {
        json_string(&r->o->jw, key, value);
        return;
    }
    report_cell_text(r, key);
    report_cell_text(r, value);
}

void report_field_u64(report *r, const char *key, uint64_t v, col_kind kind)
{
    if (form(r->o) == FMT_JSON) {
        json_u64(&r->o->jw, key, v);
        return;
    }
    char buf[64];
    if (human_bytes(r, kind))
        format_human_bytes(v, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "%" PRIu64, v);
    report_cell_text(r, key);
    report_cell_text(r, buf);
}

void report_field_group(report *r, const char *key)
{
    if (form(r->o) == FMT_JSON)
        json_begin_object(&r->o->jw, key);
}

void report_field_group_end(report *r)
{
    if (form(r->o) == FMT_JSON)
        json_end_object(&r->o->jw);
}
