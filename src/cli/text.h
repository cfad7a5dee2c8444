/* Text building blocks of the output layer: a growable string, the one
 * escaping rule of each output form, and number formats.
 *
 * Escaping (one function per form, used by every writer of that form):
 *   ESC_TABLE    control bytes (< 0x20, 0x7f) as \xNN; a terminal shows them
 *                harmlessly.
 *   ESC_TSV      \\ \t \n \r, other control bytes \xNN: one record a line.
 *   ESC_CSV      RFC 4180: quoted when it holds , " CR LF or a leading or
 *                trailing space; " doubled.
 *   ESC_JSON     a quoted json string: \" \\ \n \r \t \b \f, other control
 *                bytes \u00NN, each invalid UTF-8 byte U+FFFD.
 *   ESC_MESSAGE  names from a dump inside messages on stderr: control bytes
 *                as '?'.
 *   ESC_FOLDED   a frame of folded stacks (flame graphs): ';' as ':',
 *                control bytes '?'.
 *   ESC_STDERR   a whole diagnostic as written to stderr (every line gcheap
 *                prints there goes through stderr_printf): control bytes but
 *                \n and \t as '?'.
 * Terminal safety, in every form: C1 controls (U+0080-U+009F, the one-byte
 * CSI U+009B among them), stray bytes 0x80-0x9F and the bidi controls
 * (U+061C, U+200E/F, U+202A-E, U+2066-9) are \xNN bytes in table, tsv and
 * csv, '?' in messages and folded stacks, \uNNNN in json. Other bytes
 * >= 0x80 are data (json checks UTF-8). csv also writes C0 controls other
 * than CR/LF as \xNN, and a field starting with = + - @ (tab, CR) that is
 * not a plain number gets a leading ' and quotes (spreadsheet formulas). */
#ifndef GCHEAP_CLI_TEXT_H
#define GCHEAP_CLI_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>

typedef struct strbuf {
    char *s;         /* NUL-terminated once anything was added; may be NULL */
    size_t len, cap;
} strbuf;

#define STRBUF_INIT { NULL, 0, 0 }

void sb_addn(strbuf *b, const char *s, size_t n);
void sb_add(strbuf *b, const char *s);
void sb_addc(strbuf *b, char c);
void sb_addf(strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sb_u64(strbuf *b, uint64_t v);
/* The text so far ("" when empty); stays owned by b. */
const char *sb_str(const strbuf *b);
void sb_reset(strbuf *b);  /* empties, keeps the memory */
void sb_free(strbuf *b);

typedef enum escape_form {
    ESC_TABLE, ESC_TSV, ESC_CSV, ESC_JSON, ESC_MESSAGE, ESC_FOLDED, ESC_STDERR
} escape_form;

/* Appends s escaped for form. */
void sb_escape(strbuf *b, escape_form form, const char *s);
/* The same straight into f. */
void write_escaped(FILE *f, escape_form form, const char *s);
/* Appends the text fmt makes of ap, escaped for form as a whole (the values
 * it formats may hold anything: file names, words from the command line). */
void sb_escape_vf(strbuf *b, escape_form form, const char *fmt, va_list ap);

/* The historical names of the per-form writers (tests and callers). */
void write_json_string(FILE *f, const char *s);
void write_tsv_field(FILE *f, const char *s);
void write_csv_field(FILE *f, const char *s);
void write_table_text(FILE *f, const char *s);

/* "gcheap: " is not added: prints the formatted text on stderr made safe for
 * a terminal (ESC_STDERR). */
void stderr_printf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
void stderr_vprintf(const char *fmt, va_list ap);

/* s escaped for stderr messages into buf (truncated to cap). */
const char *message_text(const char *s, char *buf, size_t cap);

/* Formats bytes with binary units ("1.5 MiB") into buf. */
const char *format_human_bytes(uint64_t v, char *buf, size_t cap);
/* A byte count inside a sentence: "1.5 MiB" when human (-h), else
 * "1536 bytes". */
const char *format_bytes_text(uint64_t v, int human, char *buf, size_t cap);
/* part as a share in percent of whole with one decimal ("61.6"); "0.0" when whole
 * is 0. */
const char *format_share(uint64_t part, uint64_t whole, char *buf, size_t cap);
/* Formats with thousands separators ("1,234,567") into buf. */
const char *format_grouped(uint64_t v, char *buf, size_t cap);
/* An object id as the dump writes it: decimal for radix 10, else hex. */
const char *format_id(uint64_t id, int radix, char *buf, size_t cap);

#endif
