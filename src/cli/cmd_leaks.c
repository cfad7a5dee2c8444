/* gcheap leaks: what leaks across a series of dumps (gch_leaks_*), one row
 * per finding. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/leaks.h"
#include "gcheap/limits.h"
#include "output.h"

enum { OPT_FAIL = 1, OPT_STABLE_IDS };

static const cli_option leaks_options[] = {
    { "fail-on-leak", 0, 2, OPT_FAIL, "[=SIZE]",
      "exit 1 if a row shows at least SIZE bytes (default: any row)" },
    { "stable-ids", 0, 0, OPT_STABLE_IDS, NULL,
      "object ids name the same objects in every dump: apply the memlab rule" },
    { NULL, 0, 0, 0, NULL, NULL }
};

static const char usage_text[] = "usage: gcheap leaks [OPTIONS] DUMP1 DUMP2 [DUMP3 ...]";
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
    "        heads, one head's id.\n"
    "  path  a retainer path (the same notation) whose live instances grew in\n"
    "        every step, and whose parent path's did not: objects and bytes\n"
    "        retained in the last dump, growth of both per step, one instance.\n"
    "  type  a type whose live instance count or retained size grew in every step.\n"
    "Columns: row, objects, bytes, heads (leak rows), count_growth, bytes_growth\n"
    "(per step, oldest first, e.g. \"+100,+100\"), id, what (the signature, path\n"
    "or type name). Ids are addresses in .gclog and .gcdump (a moving GC changes\n"
    "them) and positions in Dart snapshots: growth applies to every format, the\n"
    "memlab rule only where ids are stable.\n"
    "--fail-on-leak[=SIZE] exits 1 when a leak row has at least SIZE bytes or a\n"
    "path or type row grew by at least SIZE retained bytes from DUMP1 to the last\n"
    "dump (without SIZE: when any row is reported).\n"
    "Exit status: 0 fine, 1 --fail-on-leak found something, 2 usage or input error.";

typedef struct leaks_state {
    int fail_set;
    uint64_t fail_min;
    int stable_ids;
} leaks_state;

static int on_option(void *state, int id, const char *value)
{
    leaks_state *s = state;
    if (id == OPT_STABLE_IDS) {
        s->stable_ids = 1;
        return 0;
    }
    s->fail_set = 1;
    s->fail_min = 1;
    gch_error err;
    if (value && gch_parse_size(value, &s->fail_min, &err) != GCH_OK)
        return cli_usage_error("leaks", "--fail-on-leak needs a size, not '%s'", value);
    return 0;
}

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

/* The rows of one section; *found counts the rows at or above the gate. */
static void report_section(report *rep, const char *name, const gch_leak_report *r, int radix,
                           const cli_common *c, const leaks_state *st, const char *format,
                           uint64_t *found)
{
    report_begin_section(rep, name);
    uint64_t shown = 0, limit = c->top;
    for (size_t i = 0; i < r->group_count && shown < limit; i++, shown++) {
        const gch_leak_group *g = &r->groups[i];
        report_cell_text(rep, "leak");
        report_cell_u64(rep, g->objects);
        report_cell_u64(rep, g->bytes);
        report_cell_u64(rep, g->heads);
        report_cell_text(rep, "");
        report_cell_text(rep, "");
        report_cell_id(rep, g->example_id, radix);
        report_cell_text(rep, g->signature);
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
    if (r->by_ids)
        report_note(rep, "(%zu dumps; memlab rule: %" PRIu64 " leaked object%s, %" PRIu64
                         " bytes; %" PRIu64 " of %" PRIu64 " rows shown)",
                    r->dumps, r->leaked_objects, r->leaked_objects == 1 ? "" : "s",
                    r->leaked_bytes, shown, total);
    else
        report_note(rep, "(%zu dumps; ids of %s dumps are not stable: growth only; %" PRIu64
                         " of %" PRIu64 " rows shown)",
                    r->dumps, format, shown, total);
    char num[32];
    snprintf(num, sizeof num, "%zu", r->dumps);
    report_section_json_raw(rep, "dumps", num);
    report_section_json_raw(rep, "by_ids", r->by_ids ? "true" : "false");
    snprintf(num, sizeof num, "%" PRIu64, r->leaked_objects);
    report_section_json_raw(rep, "leaked_objects", num);
    snprintf(num, sizeof num, "%" PRIu64, r->leaked_bytes);
    report_section_json_raw(rep, "leaked_bytes", num);
    report_end_section(rep);
}

static const cli_spec leaks_spec = {
    "leaks", usage_text, description, leaks_options, on_option, 2, -1, NULL, 0
};

int cmd_leaks(int argc, char **argv)
{
    cli_common c;
    cli_args a;
    leaks_state st;
    memset(&st, 0, sizeof st);
    int rc = cli_start(&leaks_spec, &st, argc, argv, &c, &a);
    if (rc)
        return rc == CLI_HELP_SHOWN ? EXIT_FINE : rc;
    const size_t dumps = (size_t)a.count;
    gch_leak_series **series = NULL;
    gch_leak_report *reports = NULL;
    char **names = NULL;
    size_t sections = 0;
    int radix = 16;
    const char *format = "";
    gch_leaks_options lo = GCH_LEAKS_OPTIONS_INIT;
    lo.include_weak = c.include_weak;
    if (st.stable_ids)
        lo.by_ids = 1;
    for (size_t k = 0; k < dumps && rc == 0; k++) {
        cli_input in;
        if ((rc = cli_open("leaks", a.positional[k], &c, 1, &in)) != 0)
            break;
        cli_warn_input(&in, &c);
        if (k == 0) {
            sections = in.count;
            series = calloc(sections ? sections : 1, sizeof *series);
            reports = calloc(sections ? sections : 1, sizeof *reports);
            names = calloc(sections ? sections : 1, sizeof *names);
            if (!series || !reports || !names) {
                cli_error("out of memory");
                rc = EXIT_INPUT;
            }
            for (size_t i = 0; i < sections && rc == 0; i++) {
                gch_error err;
                if (gch_leaks_new(dumps, &lo, &series[i], &err) != GCH_OK) {
                    cli_error("%s", err.message);
                    rc = EXIT_INPUT;
                }
            }
        } else if (in.count != sections) {
            cli_error("%s: %zu sections, but %s has %zu: the dumps must be of one process",
                      cli_display_path(a.positional[k]), in.count,
                      cli_display_path(a.positional[0]), sections);
            rc = EXIT_INPUT;
        }
        for (size_t i = 0; i < sections && rc == 0; i++) {
            gch_error err;
            cli_phase(&c, "comparing dumps");
            gch_status s = gch_leaks_add(series[i], in.heaps[i], in.dump->ids_stable, &err);
            cli_phase_end();
            if (s != GCH_OK) {
                cli_error("%s", err.message);
                rc = EXIT_INPUT;
            }
            if (k + 1 == dumps) {
                size_t len = strlen(in.heaps[i]->name) + 1;
                free(names[i]);
                names[i] = malloc(len);
                if (names[i])
                    memcpy(names[i], in.heaps[i]->name, len);
                radix = in.heaps[i]->id_radix;
            }
        }
        if (k + 1 == dumps)
            format = in.dump->format; /* static storage */
        cli_close(&in);
    }
    for (size_t i = 0; i < sections && rc == 0; i++) {
        gch_error err;
        if (gch_leaks_finish(series[i], &reports[i], &err) != GCH_OK) {
            cli_error("%s", err.message);
            rc = EXIT_INPUT;
        }
    }
    uint64_t found = 0;
    if (rc == 0) {
        static const col_spec cols[] = {
            { "row", COL_TEXT },          { "objects", COL_COUNT },     { "bytes", COL_BYTES },
            { "heads", COL_COUNT },       { "count_growth", COL_TEXT }, { "bytes_growth", COL_TEXT },
            { "id", COL_ID },             { "what", COL_TEXT }
        };
        report *rep = report_new(&c, "leaks", sections > 1, stdout);
        report_columns(rep, cols, 8);
        report_json_field_str(rep, "file", cli_display_path(a.positional[dumps - 1]));
        report_json_field_str(rep, "format", format);
        for (size_t i = 0; i < sections; i++)
            report_section(rep, names[i] ? names[i] : "", &reports[i], radix, &c, &st, format,
                           &found);
        rc = report_finish(rep);
    }
    if (rc == 0 && st.fail_set && found) {
        if (!c.quiet)
            fprintf(stderr, "gcheap: leaks: %" PRIu64 " finding%s at or above --fail-on-leak\n",
                    found, found == 1 ? "" : "s");
        rc = EXIT_LIMIT;
    }
    for (size_t i = 0; i < sections; i++) {
        if (series)
            gch_leaks_free(series[i]);
        if (reports)
            gch_leak_report_free(&reports[i]);
        if (names)
            free(names[i]);
    }
    free(series);
    free(reports);
    free(names);
    free(a.positional);
    return rc;
}
