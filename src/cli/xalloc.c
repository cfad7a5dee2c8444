/* See xalloc.h. */
#include "xalloc.h"
#include "run_ctx.h"
#include "text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "gcheap: MESSAGE\n" into the run's error (file names and values from the
 * command line made safe, as on stderr). */
static void vmessage(const char *fmt, va_list ap)
{
    cli_ctx *ctx = cli_ctx_get();
    strbuf b = STRBUF_INIT;
    sb_add(&b, "gcheap: ");
    sb_escape_vf(&b, ESC_STDERR, fmt, ap);
    sb_addc(&b, '\n');
    cli_ctx_add_error(ctx, b.s, b.len);
    sb_free(&b);
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
}

/* Inside a run: back to the run's start with the error recorded. Outside:
 * the message on stderr and exit 2. */
_Noreturn static void leave_run(void)
{
    cli_ctx *ctx = cli_ctx_get();
    if (ctx->oom)
        longjmp(*ctx->oom, 1);
    cli_ctx_flush_error(ctx, stderr);
    exit(2);
}

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmessage(fmt, ap);
    va_end(ap);
    leave_run();
}

/* Out of memory: the message needs no allocation. */
_Noreturn static void out_of_memory(void)
{
    static const char msg[] = "gcheap: out of memory\n";
    cli_ctx_add_error(cli_ctx_get(), msg, sizeof msg - 1);
    leave_run();
}

/* Tests only (cli_xalloc_fail_at): the allocation that fails, counted per
 * thread; -1: none. */
static _Thread_local long fail_at = -1, calls;

void cli_xalloc_fail_at(long n)
{
    fail_at = n;
    calls = 0;
}

static int injected(void) { return fail_at >= 0 && calls++ == fail_at; }

static void *checked(void *p)
{
    if (!p)
        out_of_memory();
    return p;
}

void *xmalloc(size_t size) { return checked(injected() ? NULL : malloc(size ? size : 1)); }

void *xcalloc(size_t n, size_t size)
{
    return checked(injected() ? NULL : calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t size) { return checked(injected() ? NULL : realloc(p, size ? size : 1)); }

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
