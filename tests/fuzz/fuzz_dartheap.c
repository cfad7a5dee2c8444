/* fuzz_dartheap: the Dart heap snapshot reader on arbitrary bytes: read
 * fully and with skip_refs through fuzz_binary_reader_once (fuzz_common.h),
 * which says what must hold; then with keep_payloads, which must give the
 * same status and heap, payload entries in id order for heap objects (a
 * TEXT inside the string pool, a LENGTH whose backing id has an entry too),
 * and a `gcheap waste` pass over them that succeeds.
 * Seeds: the testdata files ending in .dartheap.
 */
#include "fuzz_common.h"

#include "gcheap/waste.h"

#define H "fuzz_dartheap"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_payloads(gch_heap *h)
{
    for (size_t i = 0; i < h->payload_count; i++) {
        const gch_payload *p = &h->payloads[i];
        if ((i && h->payloads[i - 1].id >= p->id) || gch_heap_find_object(h, p->id) == GCH_NONE)
            fuzz_fail(H, "payloads out of order or of no object");
        if (p->kind == GCH_PAYLOAD_TEXT ? p->offset + p->length >= h->strings_size || p->elem > 3
            : p->kind != GCH_PAYLOAD_LENGTH ||
                  (p->offset && (!gch_heap_payload(h, p->offset) ||
                                 gch_heap_payload(h, p->offset)->kind != GCH_PAYLOAD_LENGTH)))
            fuzz_fail(H, "a bad payload entry");
    }
    gch_waste_options o = { .dart = 1, .text = 1, .min_count = 2, .holders = 1 };
    gch_waste w;
    gch_error e;
    if (gch_waste_find(h, &o, &w, &e) != GCH_OK)
        fuzz_fail(H, "waste failed on a heap the reader accepted");
    for (size_t i = 0; i < w.count; i++)
        if (w.rows[i].wasted > w.rows[i].bytes)
            fuzz_fail(H, "a waste row wastes more than its bytes");
    gch_waste_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_binary_reader_once(H, gch_read_dart_buffer, data, size);

    gch_dump *plain = NULL, *kept = NULL;
    gch_error e1, e2;
    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.keep_payloads = 1;
    gch_status s1 = gch_read_dart_buffer(data, size, NULL, &plain, &e1);
    gch_status s2 = gch_read_dart_buffer(data, size, &opts, &kept, &e2);
    if (s2 != s1 && !(s1 == GCH_OK && s2 == GCH_ELIMIT)) /* texts may fill the pool */
        fuzz_fail(H, "keep_payloads read and full read disagree on the status");
    if (s2 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(kept));
        FUZZ_CHECK(H, heap_check_same_dump(plain, kept, 1));
        check_payloads(kept->heaps[0]);
    }
    gch_dump_free(plain);
    gch_dump_free(kept);
    return 0;
}
