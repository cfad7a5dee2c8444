/* fuzz_dartheap: the Dart heap snapshot reader on arbitrary bytes: read
 * fully and with skip_refs through fuzz_binary_reader_once (fuzz_common.h),
 * which says what must hold. Seeds: the testdata files ending in .dartheap.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_binary_reader_once("fuzz_dartheap", gch_read_dart_buffer, data, size);
    return 0;
}
