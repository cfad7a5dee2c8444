/* Contents the dump holds for an object: a java.lang.String's characters, a
 * char[] as text. The HPROF reader records only where they lie in the file
 * (gch_heap payloads, with CLI_LOAD_PAYLOADS); this reads the bytes there
 * again, so loading costs nothing for commands that never show them. */
#ifndef GCHEAP_CLI_PAYLOAD_H
#define GCHEAP_CLI_PAYLOAD_H

#include <stddef.h>
#include "gcheap/heap.h"
#include "platform.h"
#include "text.h"

/* The one default length of a value in every output (objects --values, and
 * the waste command, the report and the MCP server when they show values):
 * characters kept before "..." is appended. Whole values need an explicit
 * option (objects --whole-values): 100 Strings sharing one 16 KiB array
 * would otherwise print 1.6 MB from a 22 KB dump (issue 36). Named in
 * docs/reliability.md and the objects help. */
#define PAYLOAD_VALUE_CHARS 80
#define PAYLOAD_VALUE_CHARS_TEXT "80" /* the same, for help texts */

typedef struct payload_file {
    plat_file *f;       /* NULL: contents cannot be read (see payload_open) */
    int in_heap;        /* the texts are in the heap (Ruby, V8): no file needed */
    int read_failed;    /* a read failed: the file changed since it was loaded */
} payload_file;

/* Opens path again to read the contents of h's objects. Returns 1 when they
 * can be read; 0 when h has no payloads: the dump came through a pipe or
 * was gzip-compressed (the offsets then point into bytes that are gone), or
 * the format has none. *why then says which (static text). */
int payload_open(payload_file *pf, const char *path, const gch_dump *dump, const gch_heap *h,
                 const char **why);
void payload_close(payload_file *pf);

/* Appends to out the text of object o (UTF-8): a String's characters
 * (Latin-1 or UTF-16 by its coder, or a JDK 8 char[]), or a char[]'s.
 * max_chars > 0 stops after that many characters and appends "...".
 * Returns 1 when o has such a value, 0 otherwise (other objects, a String
 * whose value array is not in the dump, a failed read). */
int payload_text(payload_file *pf, const gch_heap *h, uint32_t o, size_t max_chars, strbuf *out);

#endif
