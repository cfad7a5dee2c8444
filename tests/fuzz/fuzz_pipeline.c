/* fuzz_pipeline: the whole analysis on arbitrary bytes.
 *
 * gch_load with format detection (so every reader is reached from here once
 * its magic is in the corpus), then for every heap the analyses the commands
 * run, each checked by heap_check_analyses: gch_live_set (strong and with
 * weak roots: live count <= objects, closed under references, equal to an
 * independent BFS), gch_histogram (sums == totals, over all and live objects),
 * gch_heap_build_reverse (reverse edges == forward edges transposed).
 *
 * Where to extend:
 *   - a new reader (.gcdump, Dart): nothing here - gch_load dispatches on the
 *     magic; add seed files under tests/fuzz/seeds/pipeline/ (or testdata) and
 *     a reader harness fuzz_gcdump.c / fuzz_dart.c modelled on fuzz_gclog.c;
 *   - a new analysis (dominators, retained sizes, paths): add its checks to
 *     heap_check_analyses in tests/support/heap_check.c (idom of a live object
 *     is live, retained >= shallow, sum of retained of the virtual root's
 *     children == live bytes...);
 *   - diff: read the input twice (or split it at a 0xff byte) and check that
 *     diffing a dump with itself gives all-zero deltas, here below the loop.
 */
#include "fuzz_common.h"

#include "gcheap/alloc.h"
#include "gzip.h"

#define H "fuzz_pipeline"

/* The lines of the text a .gclog error may point into: the decompressed
 * text for gzip input (any line when it does not decompress). */
static uint64_t text_lines(const uint8_t *data, size_t size)
{
    if (!gch_gzip_magic(data, size))
        return fuzz_line_count(data, size);
    unsigned char *text;
    size_t n;
    if (gch_gunzip_buffer(data, size, &text, &n, NULL) != GCH_OK)
        return UINT64_MAX;
    uint64_t lines = fuzz_line_count(text, n);
    gch_free(text);
    return lines;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_stream fs = { data, size, 0, 0 };
    gch_source src = { fuzz_whole_read, &fs };
    gch_dump *d = NULL;
    gch_error err;
    gch_status st = gch_load(&src, GCH_FORMAT_AUTO, NULL, &d, &err);
    if (st != GCH_OK) {
        if (st != GCH_EFORMAT && st != GCH_ELIMIT)
            fuzz_fail(H, "unexpected load status (not OK, EFORMAT or ELIMIT)");
        /* Binary readers locate errors by offset; only text has lines. */
        FUZZ_CHECK(H, heap_check_error(st, d, &err, text_lines(data, size)));
        return 0;
    }
    FUZZ_CHECK(H, heap_check_dump(d));
    for (size_t i = 0; i < d->heap_count; i++) {
        gch_status ast;
        FUZZ_CHECK(H, heap_check_analyses(d->heaps[i], &ast, NULL));
        if (ast != GCH_OK)
            fuzz_fail(H, "an analysis failed on a loaded heap");
        /* Dominators go here: gch_dominators(d->heaps[i], ...) + checks. */
    }
    gch_dump_free(d);
    return 0;
}
