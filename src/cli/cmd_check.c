/* gcheap check: absolute limits on one dump (a CI gate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gate.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "waste_cli.h"

typedef struct check_state {
    int live;
    int waste;        /* --max-waste given: contents are read */
    gate gate;
} check_state;

static int max_bytes(void *state, const char *command, const char *option, const char *value)
{
    check_state *s = state;
    return gate_add_total(&s->gate, command, option, value, MEASURE_BYTES, GCH_BOUND_BYTES);
}

static int max_objects(void *state, const char *command, const char *option, const char *value)
{
    check_state *s = state;
    return gate_add_total(&s->gate, command, option, value, MEASURE_OBJECTS, 0);
}

static int max_waste(void *state, const char *command, const char *option, const char *value)
{
    check_state *s = state;
    s->waste = 1;
    return gate_add_total(&s->gate, command, option, value, MEASURE_WASTE, GCH_BOUND_BYTES);
}

static int max_type(void *state, const char *command, const char *option, const char *value)
{
    check_state *s = state;
    return gate_add_type(&s->gate, command, option, value, 0, strcmp(option, "max-type-total") == 0);
}

static const cli_option check_options[] = {
    OPT_CALLBACK(0, "max-bytes", max_bytes, "SIZE", "exit 1 if the total size exceeds SIZE"),
    OPT_CALLBACK(0, "max-objects", max_objects, "N", "exit 1 if there are more than N objects"),
    OPT_CALLBACK(0, "max-waste", max_waste, "SIZE",
                 "exit 1 if gcheap waste finds more than SIZE wasted bytes (HPROF, V8, Ruby, Dart)"),
    OPT_CALLBACK(0, "max-type", max_type, "SPEC",
                 "exit 1 if any matching type breaks SPEC (each type apart)"),
    OPT_CALLBACK(0, "max-type-total", max_type, "SPEC", "the same on the sum of all matching types"),
    OPT_BOOL(0, "allow-missing", check_state, gate.allow_missing,
             "a type limit may match no type (else exit 2: a misspelled gate never passes)"),
    OPT_BOOL(0, "live", check_state, live, "count only objects reachable from strong roots"),
    OPT_END
};

static const char description[] =
    "Checks one dump against absolute limits, for CI: prints the dump's totals and\n"
    "every limit with its verdict, one line per exceeded limit on stderr, and exits 1\n"
    "when any limit is exceeded. Without limits it reports the totals and passes.\n"
    "Columns: objects, bytes, types, checks (limit checks made), exceeded, status,\n"
    "domain; --format json adds \"pass\" and \"limits\" (one entry per limit and type).\n"
    "\n"
    "SPEC is GLOB=COUNT[:SIZE] or GLOB=:SIZE:\n"
    "  --max-bytes 64MiB --max-objects 500000\n"
    "  --max-waste 8MiB      the wasted bytes `gcheap waste` finds (every section,\n"
    "                        its defaults, no threshold; formats without contents\n"
    "                        count 0 and a warning says so)\n"
    "  --max-type 'MyApp.Session=10'          at most 10 objects of that type\n"
    "  --max-type 'MyApp.Cache.*=1000:16MiB'  each matching type: 1000 objects, 16 MiB\n"
    "  --max-type 'MyApp.*=:1GB'              bytes only\n"
    "  --max-type-total 'MyApp.*=5000'        all matching types together\n"
    "SIZE: bytes, or with B, KB, MB, GB, TB (1000s), KiB, MiB, GiB, TiB (1024s);\n"
    "case-insensitive; fractions round down (1.5MiB). GLOB: '*' any run, '?' one\n"
    "character, '\\' quotes; '[' is literal. Exceeded means strictly greater: a value\n"
    "at the limit passes. Options repeat; limits apply to each section.\n"
    "Exit status: 0 within every limit, 1 a limit was exceeded, 2 usage or input error.";

static int check_needs_refs(const void *state)
{
    const check_state *s = state;
    return (s->live ? CLI_LOAD_REFS : 0) | (s->waste ? CLI_LOAD_PAYLOADS | CLI_LOAD_FIELDS : 0);
}

/* --max-waste: the section's wasted bytes. */
static int section_waste(const cli_run *run, gch_heap *h, uint64_t *out)
{
    const check_state *s = run->state;
    uint8_t *live = NULL;
    gch_error err;
    if (s->live && gch_live_set_ex(h, &(gch_live_options){ run->c->include_weak, cli_threads(run->c) },
                                   &live, NULL, NULL, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    int rc = waste_total(&run->in[0], h, live, run->c->quiet, out);
    gch_free(live);
    return rc;
}

/* The sections' types as gate sections (new values only). */
static int gate_sections(const cli_run *run, gate_section *secs, named_type **types)
{
    const check_state *s = run->state;
    const cli_input *in = &run->in[0];
    for (size_t i = 0; i < in->count; i++) {
        size_t n;
        int rc = heap_types_for(in->an, in->heaps[i], s->live, 0, run->c, &types[i], &n, NULL);
        if (rc)
            return rc;
        gate_section *sec = &secs[i];
        sec->name = in->heaps[i]->name;
        sec->ntypes = n;
        sec->types = xcalloc(n, sizeof *sec->types);
        for (size_t t = 0; t < n; t++) {
            sec->types[t].name = types[i][t].name;
            sec->types[t].new_count = types[i][t].count;
            sec->types[t].new_bytes = types[i][t].bytes;
            sec->new_count += types[i][t].count;
            sec->new_bytes += types[i][t].bytes;
        }
        if (s->waste && (rc = section_waste(run, in->heaps[i], &sec->new_waste)) != 0)
            return rc;
    }
    return 0;
}

static void print_verdicts(cli_run *run, gate *g, const gate_section *secs, size_t n, int multi)
{
    static const col_spec cols[] = {
        { "objects", COL_COUNT }, { "bytes", COL_BYTES }, { "types", COL_COUNT },
        { "checks", COL_COUNT },  { "exceeded", COL_COUNT }, { "status", COL_TEXT },
        { "domain", COL_TEXT },
    };
    gate_write_json(g, out_json(run->out), 0);
    report *rep = report_new(run->out, REPORT_COLUMNS(cols), 0);
    report_begin_section(rep, "");
    for (size_t i = 0; i < n; i++) {
        uint64_t checked = 0, failed = 0;
        for (size_t r = 0; r < g->nresults; r++)
            if (g->results[r].section == secs[i].name) {
                checked++;
                failed += (uint64_t)g->results[r].exceeded;
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
    for (size_t r = 0; r < g->nresults; r++) {
        char *text = gate_describe(&g->results[r], multi);
        report_note(rep, "%s  %s", g->results[r].exceeded ? "FAIL" : "pass", text);
        free(text);
    }
    if (!g->nresults)
        report_note(rep, "no limits given: pass");
    report_end_section(rep);
}

static int check_report(cli_run *run)
{
    check_state *s = run->state;
    size_t n = run->in[0].count;
    gate_section *secs = xcalloc(n, sizeof *secs);
    named_type **types = xcalloc(n, sizeof *types);
    int rc = gate_sections(run, secs, types);
    if (rc == 0)
        rc = gate_check_missing(&s->gate, "check", secs, n);
    if (rc == 0) {
        int multi = n > 1;
        size_t exceeded = gate_evaluate(&s->gate, secs, n, multi);
        print_verdicts(run, &s->gate, secs, n, multi);
        rc = exceeded ? EXIT_LIMIT : 0;
    }
    for (size_t i = 0; i < n; i++) {
        named_types_free(types[i], secs[i].ntypes);
        free(secs[i].types);
    }
    free(types);
    free(secs);
    return rc;
}

static void check_release(void *state) { gate_free(&((check_state *)state)->gate); }

const cli_spec check_command = {
    .name = "check", .summary = "CI gate: fail when a dump exceeds size/count/type limits",
    .usage = "usage: gcheap check [OPTIONS] DUMP", .description = description,
    .options = check_options, .state_size = sizeof(check_state), .min_args = 1, .max_args = 1,
    .needs_refs = check_needs_refs, .report = check_report, .release = check_release,
};
