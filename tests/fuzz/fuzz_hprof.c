/* fuzz_hprof: the HPROF reader on arbitrary bytes: read fully and with
 * skip_refs through fuzz_binary_reader_once (fuzz_common.h), which says what
 * must hold; then with keep_payloads, which must give the same result and a
 * payload table that is sorted, unique, and points inside the input.
 * Seeds: tests/fuzz/seeds/hprof/ (dumps of the test writer, both identifier
 * sizes) and the testdata files ending in .hprof. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What must hold of a heap's payloads; NULL when it does. */
static const char *payloads_wrong(const gch_heap *h, size_t size)
{
    if (!h->payloads_kept)
        return "keep_payloads: payloads_kept is 0";
    for (size_t i = 0; i < h->payload_count; i++) {
        const gch_payload *p = &h->payloads[i];
        if (i && h->payloads[i - 1].id >= p->id)
            return "payloads not sorted by id, or an id twice";
        if (gch_heap_payload(h, p->id) != p)
            return "gch_heap_payload does not find an entry";
        if (p->kind == GCH_PAYLOAD_ARRAY) {
            uint64_t bytes = (uint64_t)p->length * gch_elem_size(p->elem);
            if (gch_elem_size(p->elem) == 0 || p->offset > size || bytes > size - p->offset)
                return "an array payload outside the input";
        } else if (p->kind != GCH_PAYLOAD_STRING || p->coder > GCH_CODER_NONE) {
            return "a payload of an unknown kind or coder";
        }
    }
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_binary_reader_once("fuzz_hprof", gch_read_hprof_buffer, data, size);

    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    gch_dump *plain = NULL, *kept = NULL;
    gch_error e1, e2;
    gch_status s1 = gch_read_hprof_buffer(data, size, &opts, &plain, &e1);
    opts.keep_payloads = 1;
    gch_status s2 = gch_read_hprof_buffer(data, size, &opts, &kept, &e2);
    if (s1 != s2)
        fuzz_fail("fuzz_hprof", "keep_payloads changes the status");
    if (s1 == GCH_OK) {
        FUZZ_CHECK("fuzz_hprof", heap_check_same_dump(plain, kept, 1));
        FUZZ_CHECK("fuzz_hprof", payloads_wrong(kept->heaps[0], size));
        if (plain->heaps[0]->payloads_kept || plain->heaps[0]->payloads)
            fuzz_fail("fuzz_hprof", "payloads without keep_payloads");
    } else if (s1 == GCH_EFORMAT && (e1.offset != e2.offset || strcmp(e1.message, e2.message) != 0)) {
        fuzz_fail("fuzz_hprof", "keep_payloads changes the error");
    }
    gch_dump_free(plain);
    gch_dump_free(kept);
    return 0;
}
