/* gcheap stat: per-type histogram. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/histogram.h"
#include "output.h"
#include "stat_sort.h"

enum { OPT_LIVE = 1 };

static const cli_option stat_options[] = {
    { "live", 0, 0, OPT_LIVE, NULL, "count only objects reachable from strong roots" },
    { NULL, 0, 0, 0, NULL, NULL }
};

typedef struct stat_state {
    int live;
} stat_state;

static int on_option(void *state, int id, const char *value)
{
    (void)value;
    stat_state *s = state;
    if (id == OPT_LIVE)
        s->live = 1;
    return 0;
}

static const char usage_text[] = "usage: gcheap stat [OPTIONS] DUMP";
static const char description[] =
    "Per-type histogram: number of objects and their total size for each type,\n"
    "biggest first. Every object in the dump is counted (like SOS !dumpheap -stat);\n"
    "--live counts only objects reachable from strong (non-weak) roots.\n"
    "Sort keys: bytes (default), count, name. Types with the same name are one row.\n"
    "Columns: count, bytes, type (tsv/csv/json), with domain first when the dump\n"
    "has several sections. Table output ends with a total line; json has \"total\".";

static int report_heap(report *rep, const gch_heap *h, const cli_common *c, const stat_state *s)
{
    uint8_t *live = NULL;
    gch_error err;
    if (s->live && gch_live_set(h, c->include_weak, &live, NULL, NULL, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    gch_type_row *rows;
    uint32_t n;
    gch_status st = gch_histogram(h, live, &rows, &n, &err);
    gch_free(live);
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    stat_sort_rows(h, rows, n, c->sort);
    uint64_t total_count = 0, total_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        total_count += rows[i].count;
        total_bytes += rows[i].bytes;
    }
    report_begin_section(rep, h->name);
    uint32_t shown = n;
    if (c->top < shown)
        shown = (uint32_t)c->top;
    char buf[8192];
    for (uint32_t i = 0; i < shown; i++) {
        report_cell_u64(rep, rows[i].count);
        report_cell_u64(rep, rows[i].bytes);
        report_cell_text(rep, cli_type_name(h, rows[i].type, c, buf, sizeof buf));
    }
    if (shown < n)
        report_note(rep, "(%u more types not shown)", (unsigned)(n - shown));
    report_begin_total(rep);
    report_cell_u64(rep, total_count);
    report_cell_u64(rep, total_bytes);
    snprintf(buf, sizeof buf, "total (%u type%s)", (unsigned)n, n == 1 ? "" : "s");
    report_cell_text(rep, buf);
    report_end_section(rep);
    gch_free(rows);
    return 0;
}

int cmd_stat(int argc, char **argv)
{
    cli_common c;
    cli_args a;
    stat_state s = { 0 };
    int rc = cli_parse(argc, argv, "stat", stat_options, on_option, &s, &c, &a);
    if (rc)
        goto out_args;
    if (c.help) {
        cli_print_help(usage_text, description, stat_options);
        goto out_args;
    }
    if ((rc = cli_require_dumps("stat", &a, 1, 1)) != 0)
        goto out_args;
    if (!stat_sort_valid(c.sort)) {
        rc = cli_usage_error("stat", "unknown sort key '%s' (bytes, count or name)", c.sort);
        goto out_args;
    }
    if (c.format == FMT_FOLDED) {
        rc = cli_usage_error("stat", "--format folded is only for 'dom'");
        goto out_args;
    }
    gch_dump *dump;
    const char *path = a.positional[0];
    if ((rc = cli_load(path, &c, s.live, &dump)) != 0)
        goto out_args;
    gch_heap **heaps;
    size_t nheaps;
    if ((rc = cli_select("stat", path, dump, &c, &heaps, &nheaps)) != 0)
        goto out_dump;
    for (size_t i = 0; i < nheaps; i++)
        cli_warn_anomalies(path, dump, heaps[i], &c);
    static const col_spec cols[] = { { "count", COL_COUNT }, { "bytes", COL_BYTES }, { "type", COL_TEXT } };
    report *rep = report_new(&c, "stat", nheaps > 1, stdout);
    report_columns(rep, cols, 3);
    report_json_field_str(rep, "file", cli_display_path(path));
    report_json_field_str(rep, "format", dump->format);
    for (size_t i = 0; i < nheaps && rc == 0; i++)
        rc = report_heap(rep, heaps[i], &c, &s);
    int wrc = report_finish(rep);
    if (!rc)
        rc = wrc;
    free(heaps);
out_dump:
    gch_dump_free(dump);
out_args:
    free(a.positional);
    return rc;
}
