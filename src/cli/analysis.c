/* The library's long analyses as the commands call them: errors printed, and
 * a phase line on stderr while they run (see cli_phase). */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "run_ctx.h"
#include "platform.h"

static int phase_shown;

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

static int build_domtree(const gch_heap *h, const cli_common *c, int children, int preorder_only,
                         gch_domtree *t)
{
    gch_error err;
    gch_domtree_options opts = GCH_DOMTREE_OPTIONS_INIT;
    opts.include_weak = c->include_weak;
    opts.children = children;
    opts.preorder_only = preorder_only;
    opts.threads = cli_threads(c);
    static const char what[] = "computing the dominator tree";
    opts.progress = cli_phase_percent;
    opts.progress_ctx = (void *)what;
    cli_phase(c, what);
    gch_status st = gch_domtree_build_ex(h, &opts, t, &err);
    cli_phase_end();
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    return 0;
}

int cli_domtree(const gch_heap *h, const cli_common *c, int children, gch_domtree *t)
{
    return build_domtree(h, c, children, 0, t);
}

int cli_domtree_preorder(const gch_heap *h, const cli_common *c, gch_domtree *t)
{
    return build_domtree(h, c, 0, 1, t);
}

int cli_type_retained(const gch_heap *h, const cli_common *c, uint64_t **per_type,
                      uint64_t *live_bytes)
{
    gch_domtree t;
    gch_error err;
    *per_type = xcalloc(h->type_count, sizeof **per_type);
    int rc = cli_domtree(h, c, 1, &t);
    if (rc == 0 && gch_type_retained(h, &t, *per_type, &err) != GCH_OK) {
        cli_error("%s", err.message);
        rc = EXIT_INPUT;
    }
    if (rc == 0 && live_bytes)
        *live_bytes = t.live_bytes;
    gch_domtree_free(&t);
    if (rc) {
        free(*per_type);
        *per_type = NULL;
    }
    return rc;
}

int cli_paths(const gch_heap *h, const cli_common *c, int include_weak, gch_paths *p)
{
    gch_error err;
    static const char what[] = "finding shortest paths from the roots";
    gch_paths_options opts = { include_weak, cli_phase_percent, (void *)what };
    cli_phase(c, what);
    gch_status st = gch_paths_build_ex(h, &opts, p, &err);
    cli_phase_end();
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    return 0;
}
