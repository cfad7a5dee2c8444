/* The shared start of every command: see cli_start and cli_open in cli.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_start(const cli_spec *spec, void *state, int argc, char **argv, cli_common *c,
              cli_args *a)
{
    int rc = cli_parse(argc, argv, spec->name, spec->options, spec->on_option, state, c, a);
    if (rc == 0 && c->help) {
        cli_print_help(spec->usage, spec->description, spec->options);
        rc = CLI_HELP_SHOWN;
    } else if (rc == 0 && a->count == 0 && spec->min_args > 0) {
        rc = cli_usage_error(spec->name, "missing DUMP argument");
    } else if (rc == 0 && a->count < spec->min_args) {
        rc = cli_usage_error(spec->name, "expected %d DUMP arguments, got %d", spec->min_args,
                             a->count);
    } else if (rc == 0 && spec->max_args >= 0 && a->count > spec->max_args) {
        if (spec->too_many)
            rc = cli_usage_error(spec->name, "too many arguments (expected %s)", spec->too_many);
        else
            rc = cli_usage_error(spec->name, "too many arguments (expected %d DUMP%s)",
                                 spec->max_args, spec->max_args == 1 ? "" : "s");
    } else if (rc == 0 && c->format == FMT_FOLDED && !spec->folded_ok) {
        rc = cli_usage_error(spec->name, "--format folded is only for 'dom'");
    }
    if (rc != 0) {
        free(a->positional);
        a->positional = NULL;
    }
    return rc;
}

int cli_open(const char *command, const char *path, const cli_common *c, int need_refs,
             cli_input *in)
{
    in->path = path;
    in->heaps = NULL;
    in->count = 0;
    /* Labels (reference field names, HPROF thread names in root labels) are
     * printed only by retainers and roots. */
    int labels = strcmp(command, "retainers") == 0 || strcmp(command, "roots") == 0;
    int rc = cli_load(path, c, (need_refs ? 1 : 0) | (labels ? 2 : 0), &in->dump);
    if (rc == 0 && (rc = cli_select(command, path, in->dump, c, &in->heaps, &in->count)) != 0) {
        gch_dump_free(in->dump);
        in->dump = NULL;
    }
    return rc;
}

void cli_warn_input(const cli_input *in, const cli_common *c)
{
    for (size_t i = 0; i < in->count; i++)
        cli_warn_anomalies(in->path, in->dump, in->heaps[i], c);
}

void cli_close(cli_input *in)
{
    free(in->heaps);
    gch_dump_free(in->dump);
    in->heaps = NULL;
    in->dump = NULL;
}
