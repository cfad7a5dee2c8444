/* Sorting with a context: C11's qsort has none, and the program keeps no
 * file-scope state for a comparison (a session runs many commands, an MCP
 * server many requests, each with its own order). */
#ifndef GCHEAP_CLI_SORT_H
#define GCHEAP_CLI_SORT_H

#include <stddef.h>

/* Negative when a comes before b, positive after, 0 when equal. */
typedef int (*cli_cmp_fn)(const void *a, const void *b, const void *ctx);

/* Sorts base[0..n-1] (elements of size bytes) by cmp with ctx: a stable
 * merge sort (equal elements keep their order, as glibc's qsort, which is a
 * merge sort, kept them), no recursion; n * size bytes of scratch memory
 * (xmalloc). */
void cli_sort(void *base, size_t n, size_t size, cli_cmp_fn cmp, const void *ctx);

#endif
