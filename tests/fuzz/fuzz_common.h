/* fuzz_common.h - what every harness shares: failing loudly and memory sources.
 *
 * A harness is one file tests/fuzz/fuzz_NAME.c defining LLVMFuzzerTestOneInput;
 * tests/fuzz/CMakeLists.txt builds every such file, and tests/fuzz/run.sh runs
 * every harness it built, seeded from tests/fuzz/seeds/NAME/ and from the
 * testdata files whose extension is NAME (fuzz_pipeline takes all of them).
 * The invariants live in tests/support/heap_check.c, shared with the unit tests.
 */
#ifndef GCHEAP_FUZZ_COMMON_H
#define GCHEAP_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/load.h"
#include "heap_check.h"

/* An invariant failed: say which, then abort so libFuzzer saves the input. */
static inline void fuzz_fail(const char *harness, const char *why)
{
    fprintf(stderr, "%s: invariant violated: %s\n", harness, why);
    abort();
}

#define FUZZ_CHECK(harness, why_expr)       \
    do {                                    \
        const char *why_ = (why_expr);      \
        if (why_)                           \
            fuzz_fail(harness, why_);       \
    } while (0)

/* Number of lines of a text input (for checking error line numbers). */
static inline uint64_t fuzz_line_count(const uint8_t *data, size_t size)
{
    uint64_t n = 1;
    for (size_t i = 0; i < size; i++)
        n += data[i] == '\n';
    return n;
}

/* A source over memory that hands out small, varying chunks, so that the
 * streaming reader's line reassembly is exercised on every input. */
typedef struct fuzz_stream {
    const uint8_t *data;
    size_t size, pos;
    uint32_t rng;
} fuzz_stream;

static inline long long fuzz_stream_read(void *ctx, void *buf, size_t cap)
{
    fuzz_stream *s = ctx;
    if (s->pos == s->size)
        return 0;
    s->rng = s->rng * 1103515245u + 12345u;
    size_t n = 1 + (s->rng >> 16) % 64;
    if (n > cap)
        n = cap;
    if (n > s->size - s->pos)
        n = s->size - s->pos;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (long long)n;
}

/* A source returning the whole input at once (for gch_load). */
static inline long long fuzz_whole_read(void *ctx, void *buf, size_t cap)
{
    fuzz_stream *s = ctx;
    size_t n = s->size - s->pos < cap ? s->size - s->pos : cap;
    memcpy(buf, s->data + s->pos, n);
    s->pos += n;
    return (long long)n;
}

#endif
