/* Helpers of `waste` and `check --max-waste` (waste_cli.h). */
#include "waste_cli.h"

#include <string.h>

#include "cli.h"
#include "gcheap/limits.h"

int waste_parse_pct(const char *command, const char *opt, const char *value, uint64_t *out)
{
    char buf[64];
    size_t n = strlen(value);
    if (n == 0 || n + 2 > sizeof buf)
        return cli_usage_error(command, "--%s needs a percentage, not '%s'", opt, value);
    memcpy(buf, value, n + 1);
    if (buf[n - 1] != '%') {
        buf[n] = '%';
        buf[n + 1] = '\0';
    }
    gch_error err;
    if (gch_parse_percent(buf, out, &err) != GCH_OK || *out > 100ull * GCH_PERCENT_SCALE)
        return cli_usage_error(command, "--%s needs a percentage from 0 to 100, not '%s'", opt,
                               value);
    return 0;
}

uint64_t waste_threshold_bytes(uint64_t heap_bytes, uint64_t pct)
{
    return (uint64_t)((long double)heap_bytes * (long double)pct / (100.0L * GCH_PERCENT_SCALE));
}
