/* fuzz_ruby: the Ruby heap dump reader (ObjectSpace.dump_all JSON lines) on
 * arbitrary bytes. Each input is read four ways, which must agree:
 *   1. gch_read_ruby_buffer (in place);
 *   2. gch_read_ruby through a source handing out 1-64 byte chunks;
 *   3. gch_read_ruby_buffer with skip_refs (the same objects, no reference);
 *   4. gch_read_ruby_buffer with keep_payloads (String values kept: the same
 *      heap, and every payload a TEXT inside the string pool);
 *   5. under another hash key (fuzz_check_other_key).
 * A success must pass heap_check_dump, with each object's site an offset
 * into the pool; a failure must be EFORMAT or ELIMIT with a clean message and
 * a line inside the input. Same status, same error line and message.
 * Seeds: tests/fuzz/seeds/ruby/ (hand-written and cut from a real dump).
 */
#include "fuzz_common.h"

#define H "fuzz_ruby"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_extras(const gch_dump *d)
{
    const gch_heap *h = d->heaps[0];
    if (h->object_site)
        for (uint32_t o = 0; o < h->object_count; o++)
            if (h->object_site[o] != GCH_NONE && h->object_site[o] >= h->strings_size)
                fuzz_fail(H, "a site outside the string pool");
    for (size_t i = 0; i < h->payload_count; i++) {
        const gch_payload *p = &h->payloads[i];
        if (p->kind != GCH_PAYLOAD_TEXT || p->offset + p->length >= h->strings_size ||
            (i && h->payloads[i - 1].id >= p->id))
            fuzz_fail(H, "a bad String payload");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t lines = fuzz_line_count(data, size);
    gch_dump *whole = NULL, *streamed = NULL, *skipped = NULL, *texts = NULL;
    gch_error e1, e2, e3, e4;

    gch_status s1 = gch_read_ruby_buffer(data, size, NULL, &whole, &e1);
    if (s1 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(whole));
        check_extras(whole);
    } else if (s1 != GCH_EFORMAT && s1 != GCH_ELIMIT) {
        fuzz_fail(H, "unexpected status (not OK, EFORMAT or ELIMIT)");
    } else {
        FUZZ_CHECK(H, heap_check_error(s1, whole, &e1, lines));
    }

    fuzz_stream fs = { data, size, 0, (uint32_t)size * 2654435761u };
    gch_source src = { fuzz_stream_read, &fs };
    gch_status s2 = gch_read_ruby(&src, NULL, &streamed, &e2);
    if (s2 != s1)
        fuzz_fail(H, "streamed read and buffer read disagree on the status");
    if (s1 == GCH_OK)
        FUZZ_CHECK(H, heap_check_same_dump(whole, streamed, 1));
    else if (e1.line != e2.line || strcmp(e1.message, e2.message) != 0)
        fuzz_fail(H, "streamed read and buffer read report different errors");

    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_refs = 1;
    gch_status s3 = gch_read_ruby_buffer(data, size, &opts, &skipped, &e3);
    if (s3 != s1)
        fuzz_fail(H, "skip_refs read and full read disagree on the status");
    if (s1 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(skipped));
        FUZZ_CHECK(H, heap_check_same_dump(whole, skipped, 0));
    } else if (s1 == GCH_EFORMAT && (e1.line != e3.line || strcmp(e1.message, e3.message) != 0)) {
        fuzz_fail(H, "skip_refs read and full read report different errors");
    }

    memset(&opts, 0, sizeof opts);
    opts.keep_payloads = 1;
    gch_status s4 = gch_read_ruby_buffer(data, size, &opts, &texts, &e4);
    if (s4 != s1 && !(s1 == GCH_OK && s4 == GCH_ELIMIT)) /* values may fill the pool */
        fuzz_fail(H, "keep_payloads read and full read disagree on the status");
    if (s4 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(texts));
        FUZZ_CHECK(H, heap_check_same_dump(whole, texts, 1));
        check_extras(texts);
    }
    fuzz_check_other_key(H, gch_read_ruby_buffer, data, size, s1, whole, &e1);
    gch_dump_free(whole);
    gch_dump_free(streamed);
    gch_dump_free(skipped);
    gch_dump_free(texts);
    return 0;
}
