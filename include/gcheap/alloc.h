/* gcheap/alloc.h - the allocation hook used by every library allocation.
 *
 * Tests install failing allocators through it to check that every allocation
 * failure becomes GCH_ENOMEM, without leaks or crashes.
 */
#ifndef GCHEAP_ALLOC_H
#define GCHEAP_ALLOC_H

#include <stddef.h>

typedef struct gch_allocator {
    void *(*malloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t size);
    void (*free_fn)(void *ctx, void *ptr);
    void *ctx;
    /* Zeroed memory for count * size bytes (never overflowing: the library
     * checks). May be NULL: malloc_fn, then the bytes set to zero. */
    void *(*calloc_fn)(void *ctx, size_t count, size_t size);
} gch_allocator;

/* Installs the allocator used by all later library calls; NULL restores the C
 * library's malloc/realloc/free. Not thread-safe: call it before any other
 * library call. Memory must be freed by the allocator that made it. */
void gch_set_allocator(const gch_allocator *allocator);

/* The library's allocation entry points. Size 0 behaves like size 1 so that a
 * NULL result always means failure. gch_free(NULL) does nothing. */
void *gch_malloc(size_t size);
void *gch_calloc(size_t count, size_t size);   /* NULL on overflow of count*size */
void *gch_realloc(void *ptr, size_t size);
void *gch_reallocarray(void *ptr, size_t count, size_t size); /* NULL on overflow */
void gch_free(void *ptr);
char *gch_strndup(const char *s, size_t n);     /* always NUL-terminated */

#endif
