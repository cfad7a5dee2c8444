/* The allocation hook: see include/gcheap/alloc.h. */
#include "gcheap/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void *std_malloc(void *ctx, size_t size) { (void)ctx; return malloc(size); }
static void *std_realloc(void *ctx, void *p, size_t size) { (void)ctx; return realloc(p, size); }
static void std_free(void *ctx, void *p) { (void)ctx; free(p); }

static gch_allocator current = { std_malloc, std_realloc, std_free, NULL, NULL };

void gch_set_allocator(const gch_allocator *allocator)
{
    if (allocator) {
        current = *allocator;
    } else {
        current.malloc_fn = std_malloc;
        current.realloc_fn = std_realloc;
        current.free_fn = std_free;
        current.ctx = NULL;
        current.calloc_fn = NULL;
    }
}

void *gch_malloc(size_t size)
{
    return current.malloc_fn(current.ctx, size ? size : 1);
}

void *gch_calloc(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    if (current.calloc_fn)
        return current.calloc_fn(current.ctx, bytes ? count : 1, bytes ? size : 1);
    /* The C library's calloc maps big blocks as fresh zero pages instead of
     * writing zeros over them: no pass over the memory, and its pages are
     * faulted in by whoever first writes them (often another thread). */
    if (current.malloc_fn == std_malloc)
        return calloc(bytes ? count : 1, bytes ? size : 1);
    void *p = gch_malloc(bytes);
    if (p && bytes)
        memset(p, 0, bytes);
    return p;
}

void *gch_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return gch_malloc(size);
    return current.realloc_fn(current.ctx, ptr, size ? size : 1);
}

void *gch_reallocarray(void *ptr, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    return gch_realloc(ptr, count * size);
}

void gch_free(void *ptr)
{
    if (ptr)
        current.free_fn(current.ctx, ptr);
}

char *gch_strndup(const char *s, size_t n)
{
    char *p = gch_malloc(n + 1);
    if (p) {
        if (n)
            memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}
