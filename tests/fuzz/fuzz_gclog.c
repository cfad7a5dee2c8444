/* fuzz_gclog: the .gclog reader on arbitrary bytes.
 *
 * Each input is read four ways, which must agree:
 *   1. gch_read_gclog_buffer (the whole input in memory);
 *   2. gch_read_gclog through a callback handing out 1-64 byte chunks;
 *   3. gch_read_gclog_buffer with skip_refs (what `stat --live` and `roots` use);
 *   4. the same with histogram_only (plain `stat`): no object stored, the same
 *      status, error, per-type totals, total size and anomalies as 3;
 *   5. gch_read_gclog_buffer under another hash key (fuzz_check_other_key).
 * Inputs of odd size are read with 200-byte blocks and a longest line of
 * 600 bytes (tuning knobs), so that lines longer than a block, lines over
 * the limit and lines cut at their first bytes (issue 20) are fuzzed too,
 * parsed in place and reassembled from reads alike.
 * A success must pass heap_check_dump (CSR starts monotone, targets <
 * object_count, roots valid or GCH_NONE, total_size == sum of sizes, ...);
 * a failure must be EFORMAT or ELIMIT with a clean message and a line number
 * inside the input. Same status, same error line and message, same heaps.
 */
#include "fuzz_common.h"
#include "tuning.h"

#define H "fuzz_gclog"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t lines = fuzz_line_count(data, size);
    gch_internal_set_tuning(NULL);
    if (size % 2) {
        gch_tuning knobs = gch_tuning_get();
        knobs.read_block = 200;
        knobs.max_line = 600;
        gch_internal_set_tuning(&knobs);
    }
    gch_dump *whole = NULL, *streamed = NULL, *skipped = NULL;
    gch_error e1, e2, e3;

    gch_status s1 = gch_read_gclog_buffer(data, size, NULL, &whole, &e1);
    if (s1 == GCH_OK)
        FUZZ_CHECK(H, heap_check_dump(whole));
    else if (s1 != GCH_EFORMAT && s1 != GCH_ELIMIT)
        fuzz_fail(H, "unexpected status (not OK, EFORMAT or ELIMIT)");
    else
        FUZZ_CHECK(H, heap_check_error(s1, whole, &e1, lines));

    fuzz_stream fs = { data, size, 0, (uint32_t)size * 2654435761u };
    gch_source src = { fuzz_stream_read, &fs };
    gch_status s2 = gch_read_gclog(&src, NULL, &streamed, &e2);
    if (s2 != s1)
        fuzz_fail(H, "streamed read and buffer read disagree on the status");
    if (s1 == GCH_OK)
        FUZZ_CHECK(H, heap_check_same_dump(whole, streamed, 1));
    else if (e1.line != e2.line || strcmp(e1.message, e2.message) != 0)
        fuzz_fail(H, "streamed read and buffer read report different errors");

    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_refs = 1;
    gch_status s3 = gch_read_gclog_buffer(data, size, &opts, &skipped, &e3);
    if (s3 != s1)
        fuzz_fail(H, "skip_refs read and full read disagree on the status");
    if (s1 == GCH_OK) {
        FUZZ_CHECK(H, heap_check_dump(skipped));
        FUZZ_CHECK(H, heap_check_same_dump(whole, skipped, 0));
        for (size_t i = 0; i < skipped->heap_count; i++)
            if (skipped->heaps[i]->refs_loaded || skipped->heaps[i]->ref_count)
                fuzz_fail(H, "skip_refs heap claims to have references");
    } else if (e1.line != e3.line || strcmp(e1.message, e3.message) != 0) {
        fuzz_fail(H, "skip_refs read and full read report different errors");
    }

    gch_dump *counted = NULL;
    gch_error e4;
    opts.histogram_only = 1;
    gch_status s4 = gch_read_gclog_buffer(data, size, &opts, &counted, &e4);
    if (s4 != s3)
        fuzz_fail(H, "histogram_only read and skip_refs read disagree on the status");
    if (s4 == GCH_OK && s3 == GCH_OK) {
        if (counted->heap_count != skipped->heap_count)
            fuzz_fail(H, "histogram_only read has another number of heaps");
        for (size_t i = 0; i < counted->heap_count && i < skipped->heap_count; i++) {
            const gch_heap *c = counted->heaps[i], *k = skipped->heaps[i];
            if (!c->histogram_only || c->object_count != 0 || c->type_count != k->type_count ||
                c->total_size != k->total_size ||
                memcmp(&c->anomalies, &k->anomalies, sizeof c->anomalies) != 0)
                fuzz_fail(H, "histogram_only heap differs from the stored one");
            for (uint32_t t = 0; t < c->type_count && t < k->type_count; t++)
                if (c->type_objects[t] != k->type_objects[t] || c->type_bytes[t] != k->type_bytes[t])
                    fuzz_fail(H, "histogram_only per-type totals differ");
        }
    } else if (s4 == s3 && s3 != GCH_OK && (e3.line != e4.line || strcmp(e3.message, e4.message) != 0)) {
        fuzz_fail(H, "histogram_only read and skip_refs read report different errors");
    }

    fuzz_check_other_key(H, gch_read_gclog_buffer, data, size, s1, whole, &e1);
    gch_dump_free(whole);
    gch_dump_free(streamed);
    gch_dump_free(skipped);
    gch_dump_free(counted);
    return 0;
}
