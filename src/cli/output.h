/* The output layer: everything a command prints on stdout goes through one
 * cli_out (made by the driver, see cli.h), in one of four forms chosen by
 * --format: table (aligned, numbers right, the type name last), tsv, csv,
 * json (all exact and escaped by the rules of text.h).
 *
 * Tables of rows: a command opens a report with its columns, then for each
 * heap section begins a section, adds rows (one cell per column, in order)
 * and optionally a totals row, and ends the section. Table output is
 * buffered per section to align columns; tsv/csv rows are streamed with one
 * header (a leading "domain" column when the report is multi-section); json
 * sections are {"domain":..., "rows":[{...}], "total":{...}, ...members} with
 * the same keys as the tsv header.
 *
 * The json of every command is one envelope:
 *   {"command":NAME, <envelope fields: "file", "format" (or "base", "new",
 *    "base_format", "new_format")>, <the command's own members>,
 *    "sections":[...]}
 * The driver adds the envelope fields; a command adds members (out_json)
 * before its first section. Output starts on first use (so a command that
 * fails before printing prints nothing) and the driver ends it (out_finish).
 *
 * Record sections (info): report_begin_record, then named fields: one
 * key/value row each in table/tsv/csv, members of the section object in json.
 */
#ifndef GCHEAP_CLI_OUTPUT_H
#define GCHEAP_CLI_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "options.h"
#include "text.h"

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

/* A static array of col_spec as the (cols, ncols) pair: no counted literals. */
#define REPORT_COLUMNS(array) (array), (sizeof(array) / sizeof *(array))

typedef struct cli_out cli_out;
typedef struct report report;

/* ---- the whole output of one command (the driver makes and ends it) ---- */

cli_out *out_new(const cli_common *common, const char *command, FILE *f);
/* A json envelope field ("file", "format"...); only before output starts. */
void out_envelope(cli_out *o, const char *key, const char *value);
/* The envelope object, for the command's own top-level members before its
 * first section; NULL in the forms other than json. */
json_writer *out_json(cli_out *o);
/* Free-form text (table and folded forms only: retainers' paths, folded
 * stacks); out_text escapes s by form. */
void out_printf(cli_out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void out_text(cli_out *o, escape_form form, const char *s);
/* Ends the open reports and the envelope, writes everything out and frees o.
 * 0, or 2 after printing "gcheap: error writing output". */
int out_finish(cli_out *o);

/* ---- reports (tables of rows) ---- */

/* Opens a report with its columns; multi_section: more than one section will
 * be reported (a domain column / table headings). Several reports may follow
 * one another (and in table output interleave) on one output. */
report *report_new(cli_out *o, const col_spec *cols, size_t ncols, int multi_section);
/* Ends a report before the output ends (tsv/csv: the header if no row came). */
void report_end(report *r);

void report_begin_section(report *r, const char *domain);
/* Cells: call one per column, in order; the row ends after the last column. */
void report_cell_text(report *r, const char *s);
void report_cell_u64(report *r, uint64_t v);
void report_cell_i64(report *r, int64_t v);
/* A member of the next row beyond the report's columns, in json only (a
 * no-op in the other forms): call before the row's last cell; value NULL
 * writes null. For per-row details tsv/csv do not carry (suspects' path
 * steps: field, root_kind, holder). */
void report_row_json_text(report *r, const char *key, const char *value);
/* Signed value given as a sign and a magnitude (exact for every 64-bit pair). */
void report_cell_signed(report *r, int negative, uint64_t magnitude);
void report_cell_id(report *r, uint64_t id, int radix);
/* No value in a numeric column (an unreachable object's distance): "-" in
 * tables, empty in tsv/csv, null in json. */
void report_cell_none(report *r);
/* A yes/no column: "yes"/"no" in tables, tsv and csv; true/false in json. */
void report_cell_bool(report *r, int v);
/* A free-form note printed under the table (table format only), e.g. "... 12 more". */
void report_note(report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The note "(N more WHAT not shown)" when shown < total rows were shown. */
void report_note_more(report *r, uint64_t shown, uint64_t total, const char *what);
/* Starts the totals row: cells follow like a normal row. Tables print it
 * under the rows; json as "total":{...}; tsv/csv leave it out (pure data). */
void report_begin_total(report *r);
/* The label of a total row: "total (3 types)" in a table (noun "type"),
 * "total" in the other formats (json gives the count a key of its own). */
const char *report_total_label(const report *r, uint64_t n, const char *noun, char *buf, size_t cap);
/* Json members of the current section, written after "rows" and "total";
 * NULL in the other forms. */
json_writer *report_section_json(report *r);
/* report_section_json's member key = v, when the form is json. */
void report_section_u64(report *r, const char *key, uint64_t v);
/* The live set's size as the section's json members live_count and
 * live_bytes (what top, dom and suspects measure against). */
void report_section_live(report *r, uint64_t count, uint64_t bytes);
void report_end_section(report *r);

/* Record sections: the report's columns are key, value. */
void report_begin_record(report *r, const char *domain);
void report_field_text(report *r, const char *key, const char *value);
/* kind COL_BYTES: KiB/MiB with -h in tables. */
void report_field_u64(report *r, const char *key, uint64_t v, col_kind kind);
/* A nested json object of fields (plain rows in the other forms). */
void report_field_group(report *r, const char *key);
void report_field_group_end(report *r);

#endif
