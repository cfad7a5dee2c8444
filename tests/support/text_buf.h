/* text_buf.h - test-only: a growing string built with printf-style appends
 * (the .gclog twins are written with it). Aborts on allocation failure. */
#ifndef GCHEAP_TEST_TEXT_BUF_H
#define GCHEAP_TEST_TEXT_BUF_H

#include <stddef.h>

typedef struct text {
    char *s;     /* NUL-terminated; owned by the caller once built (free) */
    size_t len, cap;
} text;

/* Appends one formatted piece (at most 511 bytes). */
void text_add(text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
