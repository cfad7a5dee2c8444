/* The program's one out-of-memory path: allocation that cannot fail (it
 * prints "gcheap: out of memory" and exits 2), and die() for the few errors
 * after which the program cannot go on. The library never uses these: it
 * returns GCH_ENOMEM; only src/cli does. */
#ifndef GCHEAP_CLI_XALLOC_H
#define GCHEAP_CLI_XALLOC_H

#include <stddef.h>

/* Prints "gcheap: MESSAGE" on stderr (an error that is not about a file
 * position; the caller returns EXIT_INPUT). */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* cli_error, then exit with status 2. */
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

/* A server that must outlive an allocation failure (gcheap mcp) sets a hook
 * that does not return (it jumps back to its message loop); NULL: exit. */
void xalloc_set_oom_hook(void (*hook)(void));

/* Grows *p (an array of elem-byte items with *cap allocated) to hold at least
 * need items, doubling; returns the (possibly moved) array. */
void *xgrow(void *p, size_t *cap, size_t need, size_t elem);

#endif
