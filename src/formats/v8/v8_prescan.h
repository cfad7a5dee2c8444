/* The V8 reader's look ahead at the strings (internal): before the edges
 * are parsed, which string indices hold the few names that decide which
 * edges DevTools' view needs without references (`stat`). V8 writes the
 * strings after the edges, so the reader can then keep only those edges
 * instead of every edge (v8_reader.c, "lean" edges).
 *
 * The answer is a hint: the reader checks later that the strings it reads
 * are the very bytes looked at here, and reads again the usual way when
 * they are not.
 */
#ifndef GCHEAP_V8_PRESCAN_H
#define GCHEAP_V8_PRESCAN_H

#include <stddef.h>
#include <stdint.h>

/* A string's flags: its text is exactly one of these. */
enum v8_prescan_flag {
    V8_PS_OBJECT = 1,   /* "Object" (a plain object's node name) */
    V8_PS_ARRAY = 2,    /* "Array" */
    V8_PS_EXTERNAL = 4, /* "system / ExternalStringData" */
    V8_PS_ELEMENTS = 8  /* "elements" (an edge name) */
};

typedef struct v8_prescan {
    uint8_t *flag;              /* per string index: v8_prescan_flag bits */
    size_t n;                   /* strings */
    const unsigned char *open;  /* the byte after the strings' '[' */
    const unsigned char *edges_close; /* the edges' ']' found back from the strings
                                         (NULL: not found that way) */
} v8_prescan;

/* Finds the "strings" array that ends the snapshot held in [p, end) (p:
 * the byte after the edges' '['; V8 writes the strings last), from the end
 * so that only its bytes are read, and classifies each string; then, back
 * over the integer lists between (V8's order), the edges' ']', which saves
 * reading the edges' tail to find it. Returns 1 when the strings are found
 * and well-formed (ps filled, ps->flag the caller's to free with
 * v8_prescan_free); 0 otherwise, also without memory (nothing to free). */
int v8_prescan_strings(const unsigned char *p, const unsigned char *end, v8_prescan *ps);

void v8_prescan_free(v8_prescan *ps);

#endif
