/* The one command lifecycle: see cli_run_command in cli.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_ctx.h"
#include "text.h"

void cli_print_help(const cli_spec *spec)
{
    FILE *f = cli_ctx_get()->out;
    fprintf(f, "%s\n%s\n", spec->usage, spec->description);
    cli_print_options(spec->options);
    cli_print_common_help();
    if (!spec->sort_keys) {
        fprintf(f, "--sort does not apply to %s.\n", spec->name);
        return;
    }
    fputs("--sort keys:", f);
    for (size_t i = 0; spec->sort_keys[i]; i++)
        fprintf(f, "%s %s%s", i ? "," : "", spec->sort_keys[i], i ? "" : " (default)");
    fputc('\n', f);
}

/* The number of positional arguments and --format folded. */
static int check_args(const cli_spec *spec, const cli_common *c, const cli_args *a)
{
    const char *name = spec->name;
    if (a->count == 0 && spec->min_args > 0)
        return cli_usage_error(name, "missing DUMP argument");
    if (a->count < spec->min_args)
        return cli_usage_error(name, "expected %s%d DUMP arguments, got %d",
                               spec->max_args < 0 ? "at least " : "", spec->min_args, a->count);
    if (spec->max_args >= 0 && a->count > spec->max_args) {
        if (spec->too_many)
            return cli_usage_error(name, "too many arguments (expected %s)", spec->too_many);
        return cli_usage_error(name, "too many arguments (expected %d DUMP%s)", spec->max_args,
                               spec->max_args == 1 ? "" : "s");
    }
    if (c->format == FMT_FOLDED && !(spec->flags & CLI_FOLDED_OK))
        return cli_usage_error(name, "--format folded is only for 'dom'");
    return 0;
}

static int needs_refs(const cli_run *run)
{
    if (run->spec->needs_refs)
        return run->spec->needs_refs(run->state);
    return (run->spec->flags & CLI_NEEDS_REFS) != 0;
}

/* What the command needs loaded (CLI_LOAD_* bits). */
static int load_needs(const cli_run *run)
{
    const cli_spec *spec = run->spec;
    int wanted = needs_refs(run);
    /* A hook asking only for contents (payloads, fields) loads no references. */
    int contents = CLI_LOAD_PAYLOADS | CLI_LOAD_FIELDS | CLI_LOAD_RULE_FIELDS | CLI_LOAD_LABELS;
    int refs = ((wanted & ~contents) ? CLI_LOAD_REFS : 0) | (wanted & contents) |
               ((spec->flags & CLI_NEEDS_LABELS) ? CLI_LOAD_LABELS : 0);
    if ((spec->flags & CLI_TYPE_TOTALS_OK) && !(refs & CLI_LOAD_REFS))
        refs |= CLI_LOAD_TYPE_TOTALS;
    if (((spec->flags & CLI_REFS_LATER) || (wanted & CLI_LOAD_REFS_LATER)) && (refs & CLI_LOAD_REFS))
        refs |= CLI_LOAD_REFS_LATER;
    if ((spec->flags & CLI_NO_TYPE_TOTALS) && (refs & CLI_LOAD_REFS))
        refs |= CLI_LOAD_NO_TYPE_TOTALS;
    if ((spec->flags & CLI_NEEDS_REVERSE) && (refs & CLI_LOAD_REFS))
        refs |= CLI_LOAD_REVERSE;
    return refs;
}

/* Loads the dump(s) (or takes them from the session) and selects --domain's
 * sections. */
static int open_inputs(cli_run *run)
{
    const cli_spec *spec = run->spec;
    /* Exactly two: more (a series, report DUMP1 DUMP2 DUMP3 ...) are the
     * command's own to load after DUMP1, one at a time (leak_series.h). */
    int two = (spec->flags & CLI_TWO_DUMPS) != 0 && run->nargs == 2;
    run->load = load_needs(run);
    for (int i = 0; i < 1 + two; i++) {
        cli_input *in = &run->in[i];
        in->path = run->args[i];
        int rc = cli_session_open(run->session, in->path, run->c, run->load, &in->held);
        if (rc == 0) {
            in->dump = cli_held_dump(in->held);
            in->an = cli_held_analysis(in->held);
        }
        if (rc == 0)
            rc = cli_select(spec->name, in->path, in->dump, run->c, two, &in->heaps, &in->count);
        run->ninputs = i + 1;
        if (rc)
            return rc;
    }
    if (two && run->c->domain && run->in[0].count == 0 && run->in[1].count == 0) {
        cli_error("%s: no section named '%s' in %s or %s", spec->name, run->c->domain,
                  cli_display_path(run->in[0].path), cli_display_path(run->in[1].path));
        return EXIT_INPUT;
    }
    return 0;
}

static void warn_inputs(const cli_run *run)
{
    if (run->spec->flags & CLI_NO_WARNINGS)
        return;
    for (int i = 0; i < run->ninputs; i++)
        for (size_t k = 0; k < run->in[i].count; k++)
            cli_warn_anomalies(run->in[i].path, run->in[i].dump, run->in[i].heaps[k], run->c,
                               run->load);
}

static void close_inputs(cli_run *run)
{
    for (int i = 0; i < run->ninputs; i++) {
        /* A derived chunk of an index that failed its checks was computed
         * instead: the answer stands, the index is damaged. */
        const gch_error *e = run->in[i].an ? gch_analysis_source_error(run->in[i].an) : NULL;
        if (e && !run->c->quiet)
            stderr_printf("gcheap: note: the index of %s is damaged (%s%s%s): computed from its "
                          "model instead\n", cli_display_path(run->in[i].path),
                          e->has_offset ? "offset " : "",
                          e->has_offset ? "" : "", e->message);
        free(run->in[i].heaps);
        cli_session_close(run->session, run->in[i].held);
        run->in[i].held = NULL;
        run->in[i].dump = NULL;
    }
    run->ninputs = 0;
}

/* The json envelope's fields naming the input(s). */
static void envelope(cli_run *run)
{
    if (run->ninputs == 2) {
        out_envelope(run->out, "base", cli_display_path(run->in[0].path));
        out_envelope(run->out, "new", cli_display_path(run->in[1].path));
        out_envelope(run->out, "base_format", run->in[0].dump->format);
        out_envelope(run->out, "new_format", run->in[1].dump->format);
    } else if (run->ninputs == 1) {
        out_envelope(run->out, "file", cli_display_path(run->in[0].path));
        out_envelope(run->out, "format", run->in[0].dump->format);
    }
}

static int run_report(cli_run *run)
{
    warn_inputs(run);
    run->out = out_new(run->c, run->spec->name, cli_ctx_get()->out);
    envelope(run);
    int rc = run->spec->report(run);
    int wrc = out_finish(run->out);
    run->out = NULL;
    return wrc > rc ? wrc : rc;
}

int cli_run_command(cli_session *session, const cli_spec *spec, int argc, char **argv)
{
    cli_common c;
    cli_args a = { NULL, 0 };
    void *state = xcalloc(1, spec->state_size);
    if (spec->defaults)
        memcpy(state, spec->defaults, spec->state_size);
    cli_run run = { .spec = spec, .session = session, .argc = argc, .argv = argv, .c = &c,
                    .state = state };
    int rc = cli_parse(argc, argv, spec->name, spec->options, state, spec->sort_keys, &c, &a);
    run.args = a.positional;
    run.nargs = a.count;
    if (rc == 0 && c.help) {
        cli_print_help(spec);
    } else {
        if (rc == 0)
            rc = check_args(spec, &c, &a);
        if (rc == 0 && spec->check)
            rc = spec->check(&run);
        if (rc == 0 && !(spec->flags & CLI_NO_LOAD))
            rc = open_inputs(&run);
        if (rc == 0 && spec->prepare)
            rc = spec->prepare(&run);
        if (rc == 0)
            rc = run_report(&run);
    }
    close_inputs(&run);
    if (spec->release)
        spec->release(state);
    free(state);
    free(a.positional);
    return rc;
}
