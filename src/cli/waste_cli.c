/* Helpers of `waste` and `check --max-waste` (waste_cli.h). */
#include "waste_cli.h"

#include <string.h>

#include "cli.h"
#include "gcheap/limits.h"
#include "gcheap/waste.h"
#include "payload.h"

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

static int read_at(void *ctx, uint64_t offset, void *buf, size_t n)
{
    payload_file *pf = ctx;
    return plat_read_at(pf->f, offset, buf, n) != 0;
}

int waste_total(const cli_input *in, gch_heap *h, const uint8_t *live, int quiet, uint64_t *total)
{
    payload_file pf;
    const char *why = NULL;
    *total = 0;
    if (!payload_open(&pf, in->path, in->dump, h, &why)) {
        if (!quiet)
            stderr_printf("gcheap: warning: %s: no waste to measure: %s\n", cli_display_path(in->path), why);
        return 0;
    }
    gch_waste w;
    gch_waste_options o = { .mask = live, .read = read_at, .read_ctx = &pf };
    gch_error err;
    gch_status st = gch_waste_find(h, &o, &w, &err);
    payload_close(&pf);
    if (st != GCH_OK) {
        cli_error("%s: %s", cli_display_path(in->path), err.message);
        return EXIT_INPUT;
    }
    for (unsigned k = 0; k < GCH_WASTE_KINDS; k++)
        *total += w.wasted[k];
    gch_waste_free(&w);
    return 0;
}
