/* fuzz_gcdump: the .gcdump reader (PerfView / dotnet-gcdump) on arbitrary bytes: read
 * fully and with skip_refs through fuzz_binary_reader_once (fuzz_common.h),
 * which says what must hold. Seeds: the testdata files ending in .gcdump.
 */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_binary_reader_once("fuzz_gcdump", gch_read_gcdump_buffer, data, size);
    return 0;
}
