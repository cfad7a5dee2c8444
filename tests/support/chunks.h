/* chunks.h - test-only: a gch_source over a buffer that hands out at most
 * `step` bytes per read, so that a reader meets every token cut at every
 * place (a stream must give what the buffer gives). */
#ifndef GCHEAP_TEST_CHUNKS_H
#define GCHEAP_TEST_CHUNKS_H

#include <stddef.h>
#include <string.h>

typedef struct chunks {
    const char *p;
    size_t left, step;
} chunks;

static inline long long chunk_read(void *ctx, void *buf, size_t cap)
{
    chunks *c = ctx;
    size_t n = c->left < c->step ? c->left : c->step;
    if (n > cap)
        n = cap;
    memcpy(buf, c->p, n);
    c->p += n;
    c->left -= n;
    return (long long)n;
}

#endif
