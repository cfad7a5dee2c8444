/* fuzz_dartheap: the Dart heap snapshot reader on arbitrary bytes.
 *
 * Each input is read twice, fully and with skip_refs, which must agree. A
 * success must pass heap_check_dump (CSR starts monotone, targets <
 * object_count, roots valid or GCH_NONE, total_size == sum of sizes, ...); a
 * failure must be EFORMAT or ELIMIT (or ENOMEM for absurd sizes) with a clean
 * message and, for EFORMAT, a byte offset inside the input. Seeds: the
 * testdata files ending in .dartheap.
 */
#include "fuzz_common.h"

#define H "fuzz_dartheap"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_failure(gch_status st, const gch_dump *d, const gch_error *e, size_t size)
{
    if (st != GCH_EFORMAT && st != GCH_ELIMIT && st != GCH_ENOMEM)
        fuzz_fail(H, "unexpected status (not OK, EFORMAT, ELIMIT or ENOMEM)");
    if (d)
        fuzz_fail(H, "a failed read handed out a dump");
    if (!e->message[0])
        fuzz_fail(H, "a failed read gave no message");
    for (const char *p = e->message; *p; p++)
        if ((unsigned char)*p < 0x20)
            fuzz_fail(H, "control byte in an error message");
    if (st == GCH_EFORMAT && (!e->has_offset || e->offset > size))
        fuzz_fail(H, "format error without an offset inside the input");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gch_dump *whole = NULL, *skipped = NULL;
    gch_error e1, e2;
    gch_status s1 = gch_read_dart_buffer(data, size, NULL, &whole, &e1);
    if (s1 == GCH_OK)
        FUZZ_CHECK(H, heap_check_dump(whole));
    else
        check_failure(s1, whole, &e1, size);

    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_refs = 1;
    gch_status s2 = gch_read_dart_buffer(data, size, &opts, &skipped, &e2);
    if ((s1 == GCH_OK) != (s2 == GCH_OK))
        fuzz_fail(H, "skip_refs read and full read disagree");
    if (s1 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(skipped));
        FUZZ_CHECK(H, heap_check_same_dump(whole, skipped, 0));
    } else if (s1 == GCH_EFORMAT && s2 == GCH_EFORMAT &&
               (e1.offset != e2.offset || strcmp(e1.message, e2.message) != 0)) {
        fuzz_fail(H, "skip_refs read and full read report different errors");
    }
    gch_dump_free(whole);
    gch_dump_free(skipped);
    return 0;
}
