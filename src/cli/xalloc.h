/* The program's one out-of-memory path: allocation that cannot fail, and
 * die() for the few errors after which a run cannot go on. Inside a command
 * run (run_ctx.h) both end the run: "gcheap: out of memory" (or die's
 * message) becomes the run's error and the run returns status 2 to its caller
 * (cli_session_run), which goes on; what the run had allocated is not
 * reclaimed. Outside a run they print the message and exit 2. The library
 * never uses these: it returns GCH_ENOMEM; only src/cli does. */
#ifndef GCHEAP_CLI_XALLOC_H
#define GCHEAP_CLI_XALLOC_H

#include <stddef.h>

/* Records "gcheap: MESSAGE" as the run's error (run_ctx.h; the caller
 * returns EXIT_INPUT); the run's caller prints it when the run ends. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* cli_error, then ends the run (or, outside a run, the program) with status 2. */
#if defined(__GNUC__)
__attribute__((noreturn, format(printf, 1, 2)))
#endif
void die(const char *fmt, ...);

/* malloc/calloc/realloc that die on failure. A zero size allocates one byte,
 * so the result is never NULL. */
void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/* n elements of size bytes: dies when n * size overflows. */
void *xmalloc_array(size_t n, size_t size);
void *xrealloc_array(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

/* For tests: from now on, on this thread, the allocation number n (0-based)
 * of xmalloc & co. fails as if memory ran out; -1 turns it off. */
void cli_xalloc_fail_at(long n);

/* Grows *p (an array of elem-byte items with *cap allocated) to hold at least
 * need items, doubling; returns the (possibly moved) array. */
void *xgrow(void *p, size_t *cap, size_t need, size_t elem);

#endif
