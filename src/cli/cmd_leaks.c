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
#include "leak_series.h"

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
    leak_series series;      /* the results, one per section (prepare), freed by release */
    cli_session *session;
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

/* One row of the report (leak_series.h gives them in leaks' order). */
typedef struct row_ctx {
    report *rep;
    int radix;
} row_ctx;

static void row_cells(void *ctx, const leak_row *r)
{
    const row_ctx *x = ctx;
    report_cell_text(x->rep, r->kind);
    report_cell_u64(x->rep, r->objects);
    report_cell_u64(x->rep, r->bytes);
    report_cell_u64(x->rep, r->heads);
    report_cell_text(x->rep, r->count_growth);
    report_cell_text(x->rep, r->bytes_growth);
    report_cell_id(x->rep, r->example_id, x->radix);
    report_cell_text(x->rep, r->what);
}

/* The rows of one section; *found counts the rows at or above the gate. */
static void report_section(report *rep, const char *name, const gch_leak_report *r, int radix,
                           const cli_common *c, const leaks_state *st, const char *format,
                           uint64_t *found)
{
    report_begin_section(rep, name);
    row_ctx x = { rep, radix };
    uint64_t shown = leak_rows_each(r, c->top, row_cells, &x);
    for (size_t i = 0; i < r->group_count; i++)
        *found += r->groups[i].bytes >= st->fail_min;
    for (size_t i = 0; i < r->path_count; i++)
        *found += leak_growth_bytes(&r->paths[i], r->dumps) >= st->fail_min;
    for (size_t i = 0; i < r->type_count; i++)
        *found += leak_growth_bytes(&r->types[i], r->dumps) >= st->fail_min;
    uint64_t total = leak_rows_total(r);
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

/* All the work, before any output (leak_series.h: the driver has loaded
 * DUMP1; the others are loaded one at a time). */
static int leaks_prepare(cli_run *run)
{
    leaks_state *st = run->state;
    st->session = run->session;
    return leak_series_run(run, st->stable_ids, st->internals, 0, &st->series);
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
    report *rep = report_new(run->out, REPORT_COLUMNS(cols), st->series.sections > 1);
    uint64_t found = 0;
    const leak_series *ls = &st->series;
    for (size_t i = 0; i < ls->sections; i++)
        report_section(rep, ls->names[i], &ls->reports[i], ls->radix, run->c, st, ls->format,
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
    leak_series_free(st->session, &st->series);
}

const cli_spec leaks_command = {
    .name = "leaks", .summary = "what leaks across a series of dumps: new objects kept, growing paths",
    .usage = "usage: gcheap leaks [OPTIONS] DUMP1 DUMP2 [DUMP3 ...]", .description = description,
    .options = leaks_options, .state_size = sizeof(leaks_state), .min_args = 2, .max_args = -1,
    .flags = CLI_NEEDS_REFS | CLI_NEEDS_LABELS, .prepare = leaks_prepare, .report = leaks_report,
    .release = leaks_release,
};
