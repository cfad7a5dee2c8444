/* Placeholder until the dart reader lands. */
#include "gcheap/load.h"

gch_status gch_read_dart_buffer(const void *data, size_t size, const gch_load_options *opts,
                                 gch_dump **out, gch_error *err)
{
    (void)data;
    (void)size;
    (void)opts;
    *out = NULL;
    gch_error_clear(err);
    return gch_error_set(err, GCH_EFORMAT, "dart input is not supported yet");
}
