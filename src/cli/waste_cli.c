/* Helpers of `waste` and `check --max-waste` (waste_cli.h). */
#include "waste_cli.h"

#include <string.h>

#include "cli.h"
#include "gcheap/limits.h"
#include "gcheap/waste.h"
#include "payload.h"


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
    gch_waste_options o = { .mask = live, .read = read_at, .read_ctx = &pf, .text = pf.in_heap,
                            .js = strcmp(in->dump->format, "v8") == 0, /* as `waste` reads V8 */
                            .dart = strcmp(in->dump->format, "dart") == 0 };
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
