/* fuzz_jsc: the JavaScriptCore heap snapshot reader on arbitrary bytes: from
 * a buffer, fully and with skip_refs (fuzz_binary_reader_once in
 * fuzz_common.h says what must hold), and through a source in 5-byte reads,
 * which must give the same verdict and, on malformed input, the same offset
 * and message, and on success the same dump.
 * Seeds: tests/fuzz/seeds/jsc/ (hand-written Inspector and GCDebugging
 * snapshots, and a cut of a real Bun one).
 */
#include "fuzz_common.h"

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
    fuzz_binary_reader_once("fuzz_jsc", gch_read_jsc_buffer, data, size);
    gch_dump *whole = NULL, *piped = NULL;
    gch_error e1, e2;
    gch_status s1 = gch_read_jsc_buffer(data, size, NULL, &whole, &e1);
    chunks c = { data, size };
    gch_source src = { chunk_read, &c };
    gch_status s2 = gch_read_jsc(&src, NULL, &piped, &e2);
    if (s1 != s2)
        fuzz_fail("fuzz_jsc", "buffer and stream disagree");
    if (s1 == GCH_OK)
        FUZZ_CHECK("fuzz_jsc", heap_check_same_dump(whole, piped, 0));
    else if (s1 == GCH_EFORMAT && (e1.offset != e2.offset || strcmp(e1.message, e2.message) != 0))
        fuzz_fail("fuzz_jsc", "buffer and stream report different errors");
    gch_dump_free(whole);
    gch_dump_free(piped);
    return 0;
}
