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

enum { OPT_LIVE = 1, OPT_RETAINED };

static const cli_option stat_options[] = {
    { "live", 0, 0, OPT_LIVE, NULL, "count only objects reachable from strong roots" },
    { "retained", 0, 0, OPT_RETAINED, NULL, "add each type's retained size (dominator tree)" },
    { NULL, 0, 0, 0, NULL, NULL }
};

typedef struct stat_state {
    int live;
    int retained;
} stat_state;

static int on_option(void *state, int id, const char *value)
{
    (void)value;
    stat_state *s = state;
    if (id == OPT_LIVE)
        s->live = 1;
    else if (id == OPT_RETAINED)
        s->retained = 1;
    return 0;
}

static const char usage_text[] = "usage: gcheap stat [OPTIONS] DUMP";
static const char description[] =
    "Per-type histogram: number of objects and their total size for each type,\n"
    "biggest first. Every object in the dump is counted (like SOS !dumpheap -stat);\n"
    "--live counts only objects reachable from strong (non-weak) roots.\n"
    "Sort keys: bytes (default), count, name. Types with the same name are one row.\n"
    "Columns: count, bytes, type (tsv/csv/json), with domain first when the dump\n"
    "has several sections. Table output ends with a total line; json has \"total\".\n"
    "--retained adds a retained column before type: the type's retained size, the\n"
    "memory freed if every instance went away (the union of its live instances'\n"
    "dominator subtrees, so a type's own nested instances count once); it allows\n"
    "--sort retained. Types overlap, so the column does not add up: its total is\n"
    "the live bytes (what the virtual root retains).";

/* --sort retained: retained descending, then bytes, count, name (qsort has no
 * context argument in C11). */
static const gch_heap *ret_heap;
static const uint64_t *ret_of;

static int compare_retained(const void *pa, const void *pb)
{
    const gch_type_row *a = pa, *b = pb;
    uint64_t ra = ret_of[a->type], rb = ret_of[b->type];
    if (ra != rb)
        return ra > rb ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(gch_type_name(ret_heap, a->type), gch_type_name(ret_heap, b->type));
}

/* Per-type retained sizes into *out (malloc'd) and the live bytes. */
static int report_heap(report *rep, const gch_heap *h, const cli_common *c, const stat_state *s)
{
    uint8_t *live = NULL;
    uint64_t *retained = NULL, live_bytes = 0;
    gch_error err;
    if (s->retained && cli_type_retained(h, c, &retained, &live_bytes) != 0)
        return EXIT_INPUT;
    if (s->live && gch_live_set(h, c->include_weak, &live, NULL, NULL, &err) != GCH_OK) {
        cli_error("%s", err.message);
        free(retained);
        return EXIT_INPUT;
    }
    gch_type_row *rows;
    uint32_t n;
    gch_status st = gch_histogram(h, live, &rows, &n, &err);
    gch_free(live);
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        free(retained);
        return EXIT_INPUT;
    }
    if (c->sort && strcmp(c->sort, "retained") == 0) {
        ret_heap = h;
        ret_of = retained;
        qsort(rows, n, sizeof *rows, compare_retained);
    } else {
        stat_sort_rows(h, rows, n, c->sort);
    }
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
        if (retained)
            report_cell_u64(rep, retained[rows[i].type]);
        report_cell_text(rep, cli_type_name(h, rows[i].type, c, buf, sizeof buf));
    }
    if (shown < n)
        report_note(rep, "(%u more types not shown)", (unsigned)(n - shown));
    report_begin_total(rep);
    report_cell_u64(rep, total_count);
    report_cell_u64(rep, total_bytes);
    if (retained)
        report_cell_u64(rep, live_bytes);
    snprintf(buf, sizeof buf, "total (%u type%s)", (unsigned)n, n == 1 ? "" : "s");
    report_cell_text(rep, buf);
    report_end_section(rep);
    gch_free(rows);
    free(retained);
    return 0;
}

static const cli_spec stat_spec = {
    "stat", usage_text, description, stat_options, on_option, 1, 1, NULL, 0
};

int cmd_stat(int argc, char **argv)
{
    cli_common c;
    cli_args a;
    stat_state s = { 0 };
    int rc = cli_start(&stat_spec, &s, argc, argv, &c, &a);
    if (rc)
        return rc == CLI_HELP_SHOWN ? EXIT_FINE : rc;
    if (c.sort && strcmp(c.sort, "retained") == 0 && !s.retained) {
        rc = cli_usage_error("stat", "--sort retained needs --retained");
        goto out_args;
    }
    if (!stat_sort_valid(c.sort) && !(c.sort && strcmp(c.sort, "retained") == 0)) {
        rc = cli_usage_error("stat", s.retained ? "unknown sort key '%s' (bytes, count, name or retained)"
                                                : "unknown sort key '%s' (bytes, count or name)",
                             c.sort);
        goto out_args;
    }
    cli_input in;
    const char *path = a.positional[0];
    if ((rc = cli_open("stat", path, &c, s.live || s.retained, &in)) != 0)
        goto out_args;
    gch_dump *dump = in.dump;
    gch_heap **heaps = in.heaps;
    size_t nheaps = in.count;
    cli_warn_input(&in, &c);
    static const col_spec cols[] = { { "count", COL_COUNT }, { "bytes", COL_BYTES }, { "type", COL_TEXT } };
    static const col_spec ret_cols[] = {
        { "count", COL_COUNT }, { "bytes", COL_BYTES }, { "retained", COL_BYTES }, { "type", COL_TEXT }
    };
    report *rep = report_new(&c, "stat", nheaps > 1, stdout);
    if (s.retained)
        report_columns(rep, ret_cols, 4);
    else
        report_columns(rep, cols, 3);
    report_json_field_str(rep, "file", cli_display_path(path));
    report_json_field_str(rep, "format", dump->format);
    for (size_t i = 0; i < nheaps && rc == 0; i++)
        rc = report_heap(rep, heaps[i], &c, &s);
    int wrc = report_finish(rep);
    if (!rc)
        rc = wrc;
    cli_close(&in);
out_args:
    free(a.positional);
    return rc;
}
