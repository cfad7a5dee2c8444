/* See xalloc.h. */
#include "xalloc.h"
#include "text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vmessage(const char *fmt, va_list ap)
{
    fputs("gcheap: ", stderr);
    stderr_vprintf(fmt, ap); /* file names and values from the command line, made safe */
    fputc('\n', stderr);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    exit(2);
}

static void (*oom_hook)(void);

void xalloc_set_oom_hook(void (*hook)(void)) { oom_hook = hook; }

/* The one out-of-memory exit (or the hook a server set). */
static void out_of_memory(void)
{
    if (oom_hook)
        oom_hook();
    die("out of memory");
}

static void *checked(void *p)
{
    if (!p)
        out_of_memory();
    return p;
}

void *xmalloc(size_t size) { return checked(malloc(size ? size : 1)); }

void *xcalloc(size_t n, size_t size) { return checked(calloc(n ? n : 1, size ? size : 1)); }

void *xrealloc(void *p, size_t size) { return checked(realloc(p, size ? size : 1)); }

static size_t array_bytes(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        out_of_memory();
    return n * size;
}

void *xmalloc_array(size_t n, size_t size) { return xmalloc(array_bytes(n, size)); }

void *xrealloc_array(void *p, size_t n, size_t size) { return xrealloc(p, array_bytes(n, size)); }

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

void *xgrow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t nc = *cap ? *cap : 64;
    while (nc < need) {
        if (nc > SIZE_MAX / 2)
            out_of_memory();
        nc *= 2;
    }
    p = xrealloc_array(p, nc, elem);
    *cap = nc;
    return p;
}
