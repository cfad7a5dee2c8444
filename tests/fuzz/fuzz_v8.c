/* fuzz_v8: the V8 heap snapshot reader on arbitrary bytes: from a buffer,
 * fully and with skip_refs (fuzz_binary_reader_once in fuzz_common.h says
 * what must hold), and through a source in 5-byte reads, which must give the
 * same verdict and, on malformed input, the same offset and message, with
 * references and without (where the buffer reads lean edges). The
 * buffer takes the bulk path where it can and the source never does, so
 * this compares the two; on odd-sized inputs the buffer's bulk parse also
 * hands part of the edges to a second thread (tuning knobs lowered).
 * Seeds: tests/fuzz/seeds/v8/ (hand-written, and the test writer's sample).
 */
#include "fuzz_common.h"
#include "tuning.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct chunks {
    const uint8_t *p;
    size_t left;
} chunks;

static long long chunk_read(void *ctx, void *buf, size_t cap)
{
    chunks *c = ctx;
    size_t n = c->left < 5 ? c->left : 5;
    if (n > cap)
        n = cap;
    memcpy(buf, c->p, n);
    c->p += n;
    c->left -= n;
    return (long long)n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gch_internal_set_tuning(NULL);
    fuzz_binary_reader_once("fuzz_v8", gch_read_v8_buffer, data, size);
    if (size % 2) {
        gch_tuning knobs = gch_tuning_get();
        knobs.parallel_min_refs = 1;
        knobs.default_workers = 2;
        gch_internal_set_tuning(&knobs);
    }

    /* with references, then without (the buffer's lean edges against the
     * stream's every edge) */
    for (int skip = 0; skip < 2; skip++) {
        gch_load_options o = { 0 };
        o.skip_refs = skip;
        gch_dump *whole = NULL, *piped = NULL;
        gch_error e1, e2;
        gch_status s1 = gch_read_v8_buffer(data, size, &o, &whole, &e1);
        chunks c = { data, size };
        gch_source src = { chunk_read, &c };
        gch_status s2 = gch_read_v8(&src, &o, &piped, &e2);
        if (s1 != s2)
            fuzz_fail("fuzz_v8", "buffer and stream disagree");
        if (s1 == GCH_OK)
            FUZZ_CHECK("fuzz_v8", heap_check_same_dump(whole, piped, 0));
        else if (s1 == GCH_EFORMAT && (e1.offset != e2.offset || strcmp(e1.message, e2.message) != 0))
            fuzz_fail("fuzz_v8", "buffer and stream report different errors");
        gch_dump_free(whole);
        gch_dump_free(piped);
    }
    gch_internal_set_tuning(NULL);
    return 0;
}
