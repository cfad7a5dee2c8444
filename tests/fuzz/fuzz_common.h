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
#include "hash.h"
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

/* A reader of a whole input in memory (gch_read_*_buffer). */
typedef gch_status (*fuzz_buffer_reader)(const void *data, size_t size, const gch_load_options *opts,
                                         gch_dump **out, gch_error *err);

/* Output must not depend on the hash key (every table maps keys to indices
 * given in input order; none is walked to make results): reads the input
 * again under another key, derived from the input so that a crash
 * reproduces, and checks that it gives the same status and heaps. */
static inline void fuzz_check_other_key(const char *harness, fuzz_buffer_reader read,
                                        const uint8_t *data, size_t size, gch_status want,
                                        const gch_dump *want_dump, const gch_error *want_err)
{
    uint64_t seed = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < size && i < 64; i++)
        seed = (seed ^ data[i]) * 0x100000001b3ULL;
    gch_internal_set_hash_seed(seed | 1);
    gch_dump *d = NULL;
    gch_error e;
    gch_status st = read(data, size, NULL, &d, &e);
    gch_internal_set_hash_seed(0);
    if (st != want)
        fuzz_fail(harness, "another hash key gives another status");
    if (st == GCH_OK)
        FUZZ_CHECK(harness, heap_check_same_dump(want_dump, d, 1));
    else if (strcmp(e.message, want_err->message) != 0 || e.line != want_err->line ||
             e.offset != want_err->offset)
        fuzz_fail(harness, "another hash key gives another error");
    gch_dump_free(d);
}

/* What the binary readers' harnesses share: read fully and with skip_refs,
 * which must agree; a success passes heap_check_dump and both reads give the
 * same heaps; a failure is EFORMAT, ELIMIT or ENOMEM with a clean message and,
 * for EFORMAT, a byte offset inside the input. */

static inline void fuzz_check_binary_failure(const char *harness, gch_status st, const gch_dump *d,
                                             const gch_error *e, size_t size)
{
    if (st != GCH_EFORMAT && st != GCH_ELIMIT && st != GCH_ENOMEM)
        fuzz_fail(harness, "unexpected status (not OK, EFORMAT, ELIMIT or ENOMEM)");
    if (d)
        fuzz_fail(harness, "a failed read handed out a dump");
    if (!e->message[0])
        fuzz_fail(harness, "a failed read gave no message");
    for (const char *p = e->message; *p; p++)
        if ((unsigned char)*p < 0x20)
            fuzz_fail(harness, "control byte in an error message");
    if (st == GCH_EFORMAT && (!e->has_offset || e->offset > size))
        fuzz_fail(harness, "format error without an offset inside the input");
}

static inline void fuzz_binary_reader_once(const char *harness, fuzz_buffer_reader read,
                                           const uint8_t *data, size_t size)
{
    gch_dump *whole = NULL, *skipped = NULL;
    gch_error e1, e2;
    gch_status s1 = read(data, size, NULL, &whole, &e1);
    if (s1 == GCH_OK)
        FUZZ_CHECK(harness, heap_check_dump(whole));
    else
        fuzz_check_binary_failure(harness, s1, whole, &e1, size);

    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_refs = 1;
    gch_status s2 = read(data, size, &opts, &skipped, &e2);
    if ((s1 == GCH_OK) != (s2 == GCH_OK))
        fuzz_fail(harness, "skip_refs read and full read disagree");
    if (s1 == GCH_OK) {
        FUZZ_CHECK(harness, heap_check_dump(skipped));
        FUZZ_CHECK(harness, heap_check_same_dump(whole, skipped, 0));
    } else if (s1 == GCH_EFORMAT && s2 == GCH_EFORMAT &&
               (e1.offset != e2.offset || strcmp(e1.message, e2.message) != 0)) {
        fuzz_fail(harness, "skip_refs read and full read report different errors");
    }
    fuzz_check_other_key(harness, read, data, size, s1, whole, &e1);
    gch_dump_free(whole);
    gch_dump_free(skipped);
}

#endif
