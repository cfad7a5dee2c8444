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
 *   - suspects and leaks: check_suspects below (sizes within the live total,
 *     each path a chain of references from a root to the accumulation point)
 *     and a series of the same heap twice (nothing leaks, nothing grows);
 *   - diff: read the input twice (or split it at a 0xff byte) and check that
 *     diffing a dump with itself gives all-zero deltas, here below the loop.
 */
#include "fuzz_common.h"
#include "gcheap/leaks.h"

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

static int has_ref(const gch_heap *h, uint32_t a, uint32_t b)
{
    for (uint32_t e = h->out_start[a]; e < h->out_start[a + 1]; e++)
        if (h->out_target[e] == b)
            return 1;
    return 0;
}

static void check_suspects(const gch_heap *h)
{
    gch_suspects s;
    gch_error err;
    if (gch_suspects_find(h, NULL, &s, &err) != GCH_OK)
        fuzz_fail(H, "gch_suspects_find failed on a loaded heap");
    for (size_t k = 0; k < s.count; k++) {
        const gch_suspect *g = &s.items[k];
        if (g->retained > s.live_bytes || g->accumulation_retained > g->retained ||
            g->retained_objects > s.live_count || g->path_len == 0)
            fuzz_fail(H, "suspect sizes out of bounds");
        const uint32_t *p = s.path + g->path_start;
        if (p[g->path_len - 1] != g->accumulation || g->root_record == GCH_NONE ||
            h->root_object[g->root_record] != p[0])
            fuzz_fail(H, "suspect path does not join a root to the accumulation point");
        for (size_t i = 1; i < g->path_len; i++)
            if (!has_ref(h, p[i - 1], p[i]))
                fuzz_fail(H, "suspect path step without a reference");
        uint64_t held = 0;
        for (size_t i = 0; i < g->holds_count; i++)
            held += s.holds[g->holds_start + i].bytes;
        if (held > g->retained)
            fuzz_fail(H, "suspect holds more than it retains");
    }
    gch_suspects_free(&s);
    /* The same heap twice, ids trusted: nothing new, nothing grows. */
    gch_leaks_options o = GCH_LEAKS_OPTIONS_INIT;
    o.by_ids = 1;
    gch_leak_series *series;
    gch_leak_report r;
    if (gch_leaks_new(2, &o, &series, &err) != GCH_OK || gch_leaks_add(series, h, 1, &err) != GCH_OK ||
        gch_leaks_add(series, h, 1, &err) != GCH_OK || gch_leaks_finish(series, &r, &err) != GCH_OK)
        fuzz_fail(H, "gch_leaks_* failed on a loaded heap");
    if (r.leaked_objects || r.group_count || r.path_count || r.type_count)
        fuzz_fail(H, "a heap compared with itself leaks or grows");
    gch_leak_report_free(&r);
    gch_leaks_free(series);
}

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
        if (d->heaps[i]->refs_loaded)
            check_suspects(d->heaps[i]);
    }
    gch_dump_free(d);
    return 0;
}
