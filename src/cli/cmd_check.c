/* gcheap check: absolute limits on one dump (a CI gate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gate.h"
#include "output.h"

enum { OPT_LIVE = 1, OPT_MAX_BYTES, OPT_MAX_OBJECTS, OPT_MAX_TYPE, OPT_MAX_TYPE_TOTAL };

static const cli_option check_options[] = {
    { "max-bytes", 0, 1, OPT_MAX_BYTES, "SIZE", "exit 1 if the total size exceeds SIZE" },
    { "max-objects", 0, 1, OPT_MAX_OBJECTS, "N", "exit 1 if there are more than N objects" },
    { "max-type", 0, 1, OPT_MAX_TYPE, "SPEC",
      "exit 1 if any matching type breaks SPEC (each type apart)" },
    { "max-type-total", 0, 1, OPT_MAX_TYPE_TOTAL, "SPEC",
      "the same on the sum of all matching types" },
    { "live", 0, 0, OPT_LIVE, NULL, "count only objects reachable from strong roots" },
    { NULL, 0, 0, 0, NULL, NULL }
};

typedef struct check_state {
    int live;
    gate gate;
} check_state;

static int on_option(void *state, int id, const char *value)
{
    check_state *s = state;
    switch (id) {
    case OPT_LIVE: s->live = 1; return 0;
    case OPT_MAX_BYTES:
        return gate_add_total(&s->gate, "check", "max-bytes", value, MEASURE_BYTES, GCH_BOUND_BYTES);
    case OPT_MAX_OBJECTS:
        return gate_add_total(&s->gate, "check", "max-objects", value, MEASURE_OBJECTS, 0);
    case OPT_MAX_TYPE: return gate_add_type(&s->gate, "check", "max-type", value, 0, 0);
    case OPT_MAX_TYPE_TOTAL: return gate_add_type(&s->gate, "check", "max-type-total", value, 0, 1);
    }
    return 0;
}

static const char usage_text[] = "usage: gcheap check [OPTIONS] DUMP";
static const char description[] =
    "Checks one dump against absolute limits, for CI: prints the dump's totals and\n"
    "every limit with its verdict, one line per exceeded limit on stderr, and exits 1\n"
    "when any limit is exceeded. Without limits it reports the totals and passes.\n"
    "Columns: objects, bytes, types, checks (limit checks made), exceeded, status,\n"
    "domain; --format json adds \"pass\" and \"limits\" (one entry per limit and type).\n"
    "\n"
    "SPEC is GLOB=COUNT[:SIZE] or GLOB=:SIZE:\n"
    "  --max-bytes 64MiB --max-objects 500000\n"
    "  --max-type 'MyApp.Session=10'          at most 10 objects of that type\n"
    "  --max-type 'MyApp.Cache.*=1000:16MiB'  each matching type: 1000 objects, 16 MiB\n"
    "  --max-type 'MyApp.*=:1GB'              bytes only\n"
    "  --max-type-total 'MyApp.*=5000'        all matching types together\n"
    "SIZE: bytes, or with B, KB, MB, GB, TB (1000s), KiB, MiB, GiB, TiB (1024s);\n"
    "case-insensitive; fractions round down (1.5MiB). GLOB: '*' any run, '?' one\n"
    "character, '\\' quotes; '[' is literal. Exceeded means strictly greater: a value\n"
    "at the limit passes. Options repeat; limits apply to each section.\n"
    "Exit status: 0 within every limit, 1 a limit was exceeded, 2 usage or input error.";

static const cli_spec check_spec = {
    "check", usage_text, description, check_options, on_option, 1, 1, NULL, 0
};

int cmd_check(int argc, char **argv)
{
    cli_common c;
    cli_args a;
    check_state s;
    memset(&s, 0, sizeof s);
    cli_input in = { NULL, NULL, NULL, 0 };
    gate_section *secs = NULL;
    named_type **types = NULL;
    size_t *ntypes = NULL;
    int rc = cli_start(&check_spec, &s, argc, argv, &c, &a);
    if (rc) {
        rc = rc == CLI_HELP_SHOWN ? EXIT_FINE : rc;
        goto out; /* the limits parsed so far are freed there */
    }
    if (c.sort) {
        rc = cli_usage_error("check", "--sort does not apply to check");
        goto out;
    }
    const char *path = a.positional[0];
    if ((rc = cli_open("check", path, &c, s.live, &in)) != 0)
        goto out;
    cli_warn_input(&in, &c);
    gch_heap **heaps = in.heaps;
    size_t nheaps = in.count;
    secs = calloc(nheaps ? nheaps : 1, sizeof *secs);
    types = calloc(nheaps ? nheaps : 1, sizeof *types);
    ntypes = calloc(nheaps ? nheaps : 1, sizeof *ntypes);
    if (!secs || !types || !ntypes) {
        fputs("gcheap: out of memory\n", stderr);
        exit(EXIT_INPUT);
    }
    for (size_t i = 0; i < nheaps; i++) {
        if ((rc = heap_types_for(heaps[i], s.live, 0, &c, &types[i], &ntypes[i], NULL)) != 0)
            goto out;
        gate_section *sec = &secs[i];
        sec->name = heaps[i]->name;
        sec->ntypes = ntypes[i];
        sec->types = calloc(ntypes[i] ? ntypes[i] : 1, sizeof *sec->types);
        if (!sec->types) {
            fputs("gcheap: out of memory\n", stderr);
            exit(EXIT_INPUT);
        }
        for (size_t t = 0; t < ntypes[i]; t++) {
            sec->types[t].name = types[i][t].name;
            sec->types[t].new_count = types[i][t].count;
            sec->types[t].new_bytes = types[i][t].bytes;
            sec->new_count += types[i][t].count;
            sec->new_bytes += types[i][t].bytes;
        }
    }
    int multi = nheaps > 1;
    size_t exceeded = gate_evaluate(&s.gate, secs, nheaps, multi);

    static const col_spec cols[] = {
        { "objects", COL_COUNT }, { "bytes", COL_BYTES }, { "types", COL_COUNT },
        { "checks", COL_COUNT },  { "exceeded", COL_COUNT }, { "status", COL_TEXT },
        { "domain", COL_TEXT },
    };
    report *rep = report_new(&c, "check", 0, stdout);
    report_columns(rep, cols, 7);
    report_json_field_str(rep, "file", cli_display_path(path));
    report_json_field_str(rep, "format", in.dump->format);
    FILE *jf = report_json_member(rep, "pass");
    if (jf)
        fputs(exceeded ? "false" : "true", jf);
    if ((jf = report_json_member(rep, "limits")) != NULL)
        gate_write_json(&s.gate, jf, 0);
    report_begin_section(rep, "");
    for (size_t i = 0; i < nheaps; i++) {
        uint64_t checked = 0, failed = 0;
        for (size_t r = 0; r < s.gate.nresults; r++)
            if (s.gate.results[r].section == secs[i].name) {
                checked++;
                failed += (uint64_t)s.gate.results[r].exceeded;
            }
        report_cell_u64(rep, secs[i].new_count);
        report_cell_u64(rep, secs[i].new_bytes);
        report_cell_u64(rep, secs[i].ntypes);
        report_cell_u64(rep, checked);
        report_cell_u64(rep, failed);
        report_cell_text(rep, failed ? "fail" : "pass");
        report_cell_text(rep, secs[i].name);
    }
    /* Tables list every limit with its verdict under the totals. */
    for (size_t r = 0; r < s.gate.nresults; r++) {
        char *text = gate_describe(&s.gate.results[r], multi);
        report_note(rep, "%s  %s", s.gate.results[r].exceeded ? "FAIL" : "pass", text);
        free(text);
    }
    if (!s.gate.nresults)
        report_note(rep, "no limits given: pass");
    report_end_section(rep);
    rc = report_finish(rep);
    if (!rc && exceeded)
        rc = EXIT_LIMIT;
out:
    for (size_t i = 0; i < in.count; i++) {
        if (types)
            named_types_free(types[i], ntypes[i]);
        if (secs)
            free(secs[i].types);
    }
    free(types);
    free(ntypes);
    free(secs);
    cli_close(&in);
    gate_free(&s.gate);
    free(a.positional);
    return rc;
}
