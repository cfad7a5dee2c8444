/* Escaping for the HTML report: JSON strings safe inside a
 * <script type="application/json"> element, and HTML text. */
#ifndef GCHEAP_CLI_REPORT_HTML_ESCAPE_H
#define GCHEAP_CLI_REPORT_HTML_ESCAPE_H

#include <stdio.h>

/* Writes s as a JSON string (with its quotes) that stays inert inside a
 * <script> element: besides what JSON requires (quote, backslash, control
 * characters), '<', '>' and '&' are written as \u003c, \u003e and \u0026 (so
 * neither "</script" nor "<!--" can appear), U+2028 and U+2029 as \u2028 and
 * \u2029, DEL as \u007f, and every byte that is not part of well-formed UTF-8
 * (stray continuation bytes, overlong forms, surrogates, code points above
 * U+10FFFF, truncated sequences) as \ufffd, one per byte; C1 controls
 * (U+0080-U+009F) and bidi controls (U+061C, U+200E/F, U+202A-U+202E,
 * U+2066-U+2069) as the visible text \xNN per byte (the JSON "\\xNN"), as
 * tables, tsv and csv show them; other well-formed UTF-8 passes as it is. */
void html_json_string(FILE *f, const char *s);

/* Writes s as HTML text: '&', '<', '>', '"' and '\'' as character
 * references; ill-formed UTF-8 bytes as U+FFFD; C1 and bidi controls as the
 * text \xNN per byte. */
void html_text(FILE *f, const char *s);

#endif
