/* The library's long analyses as the commands call them, from the loaded
 * heap (gcheap/analysis.h): computed once, errors as the run's; and the
 * phase line on stderr while they run (see cli_phase). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "run_ctx.h"
#include "platform.h"

static _Thread_local int phase_shown; /* the progress line is on the screen (per thread: per session run) */

void cli_phase(const cli_common *c, const char *what)
{
    if (c->no_progress || c->quiet || !cli_ctx_err_is_tty())
        return;
    plat_clear_line_on_interrupt();
    fprintf(stderr, "\r\033[Kgcheap: %s...", what);
    fflush(stderr);
    phase_shown = 1;
}

void cli_phase_percent(void *what, unsigned percent)
{
    if (!phase_shown)
        return;
    fprintf(stderr, "\r\033[Kgcheap: %s... %u%%", (const char *)what, percent);
    fflush(stderr);
}

void cli_phase_end(void)
{
    if (!phase_shown)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    phase_shown = 0;
}

/* A library status as the run's error: 0 or EXIT_INPUT. */
static int failed(gch_status st, const gch_error *err)
{
    if (st == GCH_OK)
        return 0;
    cli_error("%s", err->message);
    return EXIT_INPUT;
}

int cli_domtree(gch_analysis *an, const gch_heap *h, const cli_common *c, unsigned parts,
                const gch_domtree **t)
{
    gch_error err;
    return failed(gch_analysis_domtree(an, h, c->include_weak, parts, t, &err), &err);
}

int cli_type_retained(gch_analysis *an, const gch_heap *h, const cli_common *c,
                      const uint64_t **per_type, uint64_t *live_bytes)
{
    gch_error err;
    int rc = failed(gch_analysis_type_retained(an, h, c->include_weak, per_type, &err), &err);
    if (rc == 0 && live_bytes)
        rc = failed(gch_analysis_live(an, h, c->include_weak, NULL, NULL, live_bytes, &err), &err);
    return rc;
}

int cli_paths(gch_analysis *an, const gch_heap *h, int include_weak, const gch_paths **p)
{
    gch_error err;
    return failed(gch_analysis_paths(an, h, include_weak, p, &err), &err);
}

int cli_path(gch_analysis *an, const gch_heap *h, int include_weak, uint32_t object,
             gch_path_set *out)
{
    gch_error err;
    return failed(gch_analysis_path(an, h, include_weak, object, out, &err), &err);
}

int cli_live(gch_analysis *an, const gch_heap *h, const cli_common *c, const uint8_t **mask,
             uint64_t *count, uint64_t *bytes)
{
    gch_error err;
    return failed(gch_analysis_live(an, h, c->include_weak, mask, count, bytes, &err), &err);
}

int cli_reverse(gch_analysis *an, const gch_heap *h)
{
    gch_error err;
    return failed(gch_analysis_reverse(an, h, &err), &err);
}
