/* fuzz_hprof: the HPROF reader on arbitrary bytes: read fully and with
 * skip_refs through fuzz_binary_reader_once (fuzz_common.h), which says what
 * must hold. Seeds: tests/fuzz/seeds/hprof/ (dumps of the test writer, both
 * identifier sizes) and the testdata files ending in .hprof. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_binary_reader_once("fuzz_hprof", gch_read_hprof_buffer, data, size);
    return 0;
}
