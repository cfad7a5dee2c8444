/* A growing string for test fixtures: see text_buf.h. */
#include "text_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void text_add(text *t, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line)
        abort();
    while (t->len + (size_t)n + 1 > t->cap) {
        t->cap = t->cap ? t->cap * 2 : 1024;
        t->s = realloc(t->s, t->cap);
        if (!t->s)
            abort();
    }
    memcpy(t->s + t->len, line, (size_t)n + 1);
    t->len += (size_t)n;
}
