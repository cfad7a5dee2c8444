/* gcheap leaks: what leaks across a series of dumps (gch_leaks_*), one row
 * per finding. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_ctx.h"
#include "gcheap/leaks.h"
#include "gcheap/limits.h"

static const char description[] =
    "What leaks across a series of dumps of one process, oldest first (three or\n"
    "more for a reliable answer). Only live objects count. Rows:\n"
    "  leak  memlab's rule, where object ids are stable across dumps (V8 node ids;\n"
    "        --stable-ids vouches for other ids): objects live in DUMP2 and in\n"
    "        every later dump whose id no object of DUMP1 has. Grouped by leak\n"
    "        signature: a leaked object counts under the top of its chain of leaked\n"
    "        dominators (a head); heads with the same shortest path from a root\n"
    "        (root, types and field names; array indices as []) form a row:\n"
    "        objects and bytes (own sizes, last dump) of everything under them,\n"
    "        heads, one head's id. A head that is a collection's backing store\n"
    "        (HashMap$Node[] through table, an ArrayList's Object[] through\n"
    "        elementData, a V8 Map's or Set's (array) through its table, ...) is\n"
    "        folded into its owner: the row names the collection.\n"
    "  leak-type  follows each leak row: its leaked objects of one type, exact\n"
    "        count, bytes, heads among them, one id (at most 5 types, most\n"
    "        bytes first).\n"
    "  path  a retainer path (the same notation) whose live instances grew in\n"
    "        every step, and whose parent path's did not: objects and bytes\n"
    "        retained in the last dump, growth of both per step, one instance.\n"
    "  type  a type whose live instance count or retained size grew in every step.\n"
    "Columns: row, objects, bytes, heads (leak rows), count_growth, bytes_growth\n"
    "(per step, oldest first, e.g. \"+100,+100\"), id, what (the signature, path\n"
    "or type name). Ids are addresses in .gclog and .gcdump (a moving GC changes\n"
    "them) and positions in Dart snapshots: growth applies to every format, the\n"
    "memlab rule only where ids are stable. Dumps with several sections are\n"
    "compared section by section, in order (--domain picks one).\n"
    "--fail-on-leak[=SIZE] exits 1 when a leak row has at least SIZE bytes or a\n"
    "path or type row grew by at least SIZE retained bytes from DUMP1 to the last\n"
    "dump (without SIZE: when any row is reported).\n"
    "V8 engine internals ((system), (compiled code), (object shape), feedback,\n"
    "system / ...) are left out as memlab leaves them out; --internals keeps them.\n"
    "Exit status: 0 fine, 1 --fail-on-leak found something, 2 usage or input error.";

typedef struct leaks_state {
    int fail_set;
    uint64_t fail_min;
    int stable_ids;
    int internals;
    /* results, one per section (prepare), freed by release */
    gch_leak_report *reports;
    char **names;
    size_t sections;
    int radix;
    const char *format;
} leaks_state;

static int on_fail(void *state, const char *command, const char *option, const char *value)
{
    leaks_state *s = state;
    s->fail_set = 1;
    s->fail_min = 1;
    gch_error err;
    if (value && gch_parse_size(value, &s->fail_min, &err) != GCH_OK)
        return cli_usage_error(command, "--%s needs a size, not '%s'", option, value);
    return 0;
}

static const cli_option leaks_options[] = {
    OPT_CALLBACK_OPTIONAL("fail-on-leak", on_fail, "[=SIZE]",
                          "exit 1 if a row shows at least SIZE bytes (default: any row)"),
    OPT_BOOL(0, "stable-ids", leaks_state, stable_ids,
             "object ids name the same objects in every dump: apply the memlab rule"),
    OPT_BOOL(0, "internals", leaks_state, internals,
             "keep rows about V8 engine internals (code, shapes, (system), feedback)"),
    OPT_END
};

/* "+100,-3": the change of v per step. */
static const char *steps_text(const uint64_t *v, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 1; k < n && len < cap; k++) {
        int neg = v[k] < v[k - 1];
        uint64_t d = neg ? v[k - 1] - v[k] : v[k] - v[k - 1];
        int w = snprintf(buf + len, cap - len, "%s%c%" PRIu64, k > 1 ? "," : "", neg ? '-' : '+', d);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return buf;
}

static void growth_row(report *rep, const char *kind, const gch_growth *g, size_t dumps, int radix)
{
    char cb[512], bb[512];
    report_cell_text(rep, kind);
    report_cell_u64(rep, g->counts[dumps - 1]);
    report_cell_u64(rep, g->retained[dumps - 1]);
    report_cell_u64(rep, 0);
    report_cell_text(rep, steps_text(g->counts, dumps, cb, sizeof cb));
    report_cell_text(rep, steps_text(g->retained, dumps, bb, sizeof bb));
    report_cell_id(rep, g->example_id, radix);
    report_cell_text(rep, g->key);
}

static uint64_t growth_bytes(const gch_growth *g, size_t dumps)
{
    return g->retained[dumps - 1] > g->retained[0] ? g->retained[dumps - 1] - g->retained[0] : 0;
}

/* A row of a leak or of one type in it: counts from one dump, so no steps. */
static void count_row(report *rep, const char *kind, uint64_t objects, uint64_t bytes,
                      uint64_t heads, uint64_t example_id, int radix, const char *name)
{
    report_cell_text(rep, kind);
    report_cell_u64(rep, objects);
    report_cell_u64(rep, bytes);
    report_cell_u64(rep, heads);
    report_cell_text(rep, "");
    report_cell_text(rep, "");
    report_cell_id(rep, example_id, radix);
    report_cell_text(rep, name);
}

/* Leak-type rows shown under each leak row. */
#define LEAK_TYPES_SHOWN 5

static void leak_type_rows(report *rep, const gch_leak_group *g, int radix)
{
    for (size_t t = 0; t < g->type_count && t < LEAK_TYPES_SHOWN; t++) {
        const gch_leak_type_count *c = &g->types[t];
        count_row(rep, "leak-type", c->objects, c->bytes, c->heads, c->example_id, radix, c->type);
    }
}

/* The rows of one section; *found counts the rows at or above the gate. */
static void report_section(report *rep, const char *name, const gch_leak_report *r, int radix,
                           const cli_common *c, const leaks_state *st, const char *format,
                           uint64_t *found)
{
    report_begin_section(rep, name);
    uint64_t shown = 0, limit = c->top;
    for (size_t i = 0; i < r->group_count && shown < limit; i++, shown++) {
        const gch_leak_group *g = &r->groups[i];
        count_row(rep, "leak", g->objects, g->bytes, g->heads, g->example_id, radix, g->signature);
        leak_type_rows(rep, g, radix);
    }
    for (size_t i = 0; i < r->path_count && shown < limit; i++, shown++)
        growth_row(rep, "path", &r->paths[i], r->dumps, radix);
    for (size_t i = 0; i < r->type_count && shown < limit; i++, shown++)
        growth_row(rep, "type", &r->types[i], r->dumps, radix);
    for (size_t i = 0; i < r->group_count; i++)
        *found += r->groups[i].bytes >= st->fail_min;
    for (size_t i = 0; i < r->path_count; i++)
        *found += growth_bytes(&r->paths[i], r->dumps) >= st->fail_min;
    for (size_t i = 0; i < r->type_count; i++)
        *found += growth_bytes(&r->types[i], r->dumps) >= st->fail_min;
    uint64_t total = r->group_count + r->path_count + r->type_count;
    char hidden[96] = "";
    if (r->internal_rows)
        snprintf(hidden, sizeof hidden, "; %" PRIu64 " row%s of V8 internals left out (--internals)",
                 r->internal_rows, r->internal_rows == 1 ? "" : "s");
    if (r->by_ids)
        report_note(rep, "(%zu dumps; memlab rule: %" PRIu64 " leaked object%s, %" PRIu64
                         " bytes; %" PRIu64 " of %" PRIu64 " rows shown%s)",
                    r->dumps, r->leaked_objects, r->leaked_objects == 1 ? "" : "s",
                    r->leaked_bytes, shown, total, hidden);
    else
        report_note(rep, "(%zu dumps; ids of %s dumps are not stable: growth only; %" PRIu64
                         " of %" PRIu64 " rows shown%s)",
                    r->dumps, format, shown, total, hidden);
    report_section_u64(rep, "dumps", r->dumps);
    json_writer *j = report_section_json(rep);
    if (j)
        json_bool(j, "by_ids", r->by_ids);
    report_section_u64(rep, "leaked_objects", r->leaked_objects);
    report_section_u64(rep, "leaked_bytes", r->leaked_bytes);
    report_section_u64(rep, "internal_rows", r->internal_rows);
    report_end_section(rep);
}

/* Adds the sections of one dump to their series. */
static int add_dump(gch_leak_series **series, size_t sections, gch_heap **heaps,
                    gch_analysis *an, const cli_common *c)
{
    for (size_t i = 0; i < sections; i++) {
        gch_error err;
        cli_phase(c, "comparing dumps");
        gch_status st = gch_leaks_add_in(series[i], an, heaps[i], gch_analysis_dump(an)->ids_stable, &err);
        cli_phase_end();
        if (st != GCH_OK) {
            cli_error("%s", err.message);
            return EXIT_INPUT;
        }
    }
    return 0;
}

/* All the work, before any output: the driver has loaded DUMP1; the others
 * are loaded here one at a time (one heap in memory at a time). */
static int leaks_prepare(cli_run *run)
{
    leaks_state *st = run->state;
    const cli_common *c = run->c;
    const size_t dumps = (size_t)run->nargs, sections = run->in[0].count;
    gch_leaks_options lo = GCH_LEAKS_OPTIONS_INIT;
    lo.include_weak = c->include_weak;
    lo.threads = cli_threads(c);
    if (st->stable_ids)
        lo.by_ids = 1;
    lo.internals = st->internals;
    gch_leak_series **series = xcalloc(sections ? sections : 1, sizeof *series);
    int rc = 0;
    for (size_t i = 0; i < sections && rc == 0; i++) {
        gch_error err;
        if (gch_leaks_new(dumps, &lo, &series[i], &err) != GCH_OK) {
            cli_error("%s", err.message);
            rc = EXIT_INPUT;
        }
    }
    if (rc == 0)
        rc = add_dump(series, sections, run->in[0].heaps, run->in[0].an, c);
    const gch_heap *const *last = (const gch_heap *const *)run->in[0].heaps;
    st->format = run->in[0].dump->format;
    cli_held *held = NULL;
    gch_heap **heaps = NULL;
    for (size_t k = 1; k < dumps && rc == 0; k++) {
        size_t count = 0;
        cli_session_close(run->session, held);
        free(heaps);
        held = NULL;
        heaps = NULL;
        const char *path = run->args[k];
        if ((rc = cli_session_open(run->session, path, c, CLI_LOAD_REFS | CLI_LOAD_LABELS, &held)) != 0)
            break;
        gch_dump *later = cli_held_dump(held);
        if ((rc = cli_select("leaks", path, later, c, 0, &heaps, &count)) != 0)
            break;
        if (strcmp(later->format, run->in[0].dump->format) != 0) {
            /* Types, ids and sizes mean different things in another format. */
            cli_error("%s: a %s dump, but %s is a %s dump: a series must be dumps of one "
                      "process, in one format", cli_display_path(path), later->format,
                      cli_display_path(run->args[0]), run->in[0].dump->format);
            rc = EXIT_INPUT;
            break;
        }
        if (count != sections) {
            cli_error("%s: %zu sections, but %s has %zu: the dumps must be of one process",
                      cli_display_path(path), count, cli_display_path(run->args[0]), sections);
            rc = EXIT_INPUT;
            break;
        }
        for (size_t i = 0; i < count; i++)
            cli_warn_anomalies(path, later, heaps[i], c, CLI_LOAD_REFS | CLI_LOAD_LABELS);
        rc = add_dump(series, sections, heaps, cli_held_analysis(held), c);
        last = (const gch_heap *const *)heaps;
        st->format = later->format; /* static storage */
    }
    if (rc == 0) {
        st->reports = xcalloc(sections ? sections : 1, sizeof *st->reports);
        st->names = xcalloc(sections ? sections : 1, sizeof *st->names);
        st->sections = sections;
        st->radix = sections ? last[0]->id_radix : 16;
        for (size_t i = 0; i < sections && rc == 0; i++) {
            gch_error err;
            st->names[i] = xstrdup(last[i]->name);
            if (gch_leaks_finish(series[i], &st->reports[i], &err) != GCH_OK) {
                cli_error("%s", err.message);
                rc = EXIT_INPUT;
            }
        }
    }
    for (size_t i = 0; i < sections; i++)
        gch_leaks_free(series[i]);
    free(series);
    cli_session_close(run->session, held);
    free(heaps);
    return rc;
}

static int leaks_report(cli_run *run)
{
    leaks_state *st = run->state;
    static const col_spec cols[] = {
        { "row", COL_TEXT },          { "objects", COL_COUNT },     { "bytes", COL_BYTES },
        { "heads", COL_COUNT },       { "count_growth", COL_TEXT }, { "bytes_growth", COL_TEXT },
        { "id", COL_ID },             { "what", COL_TEXT }
    };
    json_writer *j = out_json(run->out); /* "file" is DUMP1: the whole series too */
    if (j) {
        json_begin_array(j, "files");
        for (int k = 0; k < run->nargs; k++)
            json_string(j, NULL, cli_display_path(run->args[k]));
        json_end_array(j);
    }
    report *rep = report_new(run->out, REPORT_COLUMNS(cols), st->sections > 1);
    uint64_t found = 0;
    for (size_t i = 0; i < st->sections; i++)
        report_section(rep, st->names[i], &st->reports[i], st->radix, run->c, st, st->format,
                       &found);
    if (st->fail_set && found) {
        if (!run->c->quiet)
            fprintf(cli_ctx_get()->err, "gcheap: leaks: %" PRIu64 " finding%s at or above --fail-on-leak\n",
                    found, found == 1 ? "" : "s");
        return EXIT_LIMIT;
    }
    return 0;
}

static void leaks_release(void *state)
{
    leaks_state *st = state;
    for (size_t i = 0; i < st->sections; i++) {
        if (st->reports)
            gch_leak_report_free(&st->reports[i]);
        if (st->names)
            free(st->names[i]);
    }
    free(st->reports);
    free(st->names);
}

const cli_spec leaks_command = {
    .name = "leaks", .summary = "what leaks across a series of dumps: new objects kept, growing paths",
    .usage = "usage: gcheap leaks [OPTIONS] DUMP1 DUMP2 [DUMP3 ...]", .description = description,
    .options = leaks_options, .state_size = sizeof(leaks_state), .min_args = 2, .max_args = -1,
    .flags = CLI_NEEDS_REFS | CLI_NEEDS_LABELS, .prepare = leaks_prepare, .report = leaks_report,
    .release = leaks_release,
};
