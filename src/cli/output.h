/* Reports: one writer for table, tsv, csv and json output.
 *
 * A command opens a report, then for each heap section begins a section,
 * adds rows (cells in column order) and optionally a totals row, and ends the
 * section. Table output is buffered per section to align columns (numbers
 * right-aligned, the last column - a type name - left as is); tsv/csv rows are
 * streamed with one header (a leading "domain" column when more than one
 * section is reported); json is {"command":..., "sections":[{"domain":...,
 * "rows":[{...}], "total":{...}}]} with the same keys as the tsv header.
 */
#ifndef GCHEAP_CLI_OUTPUT_H
#define GCHEAP_CLI_OUTPUT_H

#include <stdint.h>
#include <stdio.h>
#include "options.h"

typedef enum col_kind {
    COL_TEXT,   /* left-aligned; json string */
    COL_COUNT,  /* right-aligned integer; json number */
    COL_BYTES,  /* like COUNT; KiB/MiB with -h in tables */
    COL_SIGNED, /* signed integer (deltas): json number, "+N"/"-N" in tables */
    COL_ID      /* an object id: json string (ids may exceed 2^53) */
} col_kind;

typedef struct col_spec {
    const char *name;
    col_kind kind;
} col_spec;

typedef struct report report;

/* Creates a report for command writing to out. multi_section: more than one
 * section will be reported (adds the domain column / table headings). */
report *report_new(const cli_common *common, const char *command, int multi_section, FILE *out);
/* Declares the columns (the same for every section). */
void report_columns(report *r, const col_spec *cols, int ncols);
/* Adds top-level json fields before the sections (ignored in other formats). */
void report_json_field_str(report *r, const char *key, const char *value);
/* Starts a top-level json member before the sections: writes ,"key": and
 * returns the stream, on which the caller writes exactly one json value. NULL
 * (write nothing) in the other formats. */
FILE *report_json_member(report *r, const char *key);

void report_begin_section(report *r, const char *domain);
/* Cells: call one per column, in order; the row ends after the last column. */
void report_cell_text(report *r, const char *s);
void report_cell_u64(report *r, uint64_t v);
void report_cell_i64(report *r, int64_t v);
/* Signed value given as a sign and a magnitude (exact for every 64-bit pair). */
void report_cell_signed(report *r, int negative, uint64_t magnitude);
void report_cell_id(report *r, uint64_t id, int radix);
/* A free-form note printed under the table (table format only), e.g. "... 12 more". */
void report_note(report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Starts the totals row: cells follow like a normal row. Tables print it
 * under the rows; json as "total":{...}; tsv/csv leave it out (pure data). */
void report_begin_total(report *r);
/* Adds a json-only object member to the current section ("key": raw json). */
void report_section_json_raw(report *r, const char *key, const char *raw_json);
void report_end_section(report *r);
/* Finishes output, frees the report; returns 0, or 2 if writing failed. */
int report_finish(report *r);

/* Escapers, shared with commands that print their own layouts. They write to f. */
void write_json_string(FILE *f, const char *s);
void write_tsv_field(FILE *f, const char *s);
void write_csv_field(FILE *f, const char *s);
void write_table_text(FILE *f, const char *s);

/* A growing string of json text (for report_section_json_raw members). */
typedef struct jbuf {
    char *s;
    size_t len, cap;
} jbuf;
void jbuf_raw(jbuf *b, const char *s);
void jbuf_u64(jbuf *b, uint64_t v);
/* A json string, escaped exactly like write_json_string. */
void jbuf_str(jbuf *b, const char *s);
void jbuf_free(jbuf *b);

/* Formats bytes with binary units ("1.5 MiB") into buf. */
const char *format_human_bytes(uint64_t v, char *buf, size_t cap);
/* Formats with thousands separators ("1,234,567") into buf. */
const char *format_grouped(uint64_t v, char *buf, size_t cap);

#endif
