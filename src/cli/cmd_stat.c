/* gcheap stat: per-type histogram. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sort.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/histogram.h"
#include "sites.h"
#include "stat_sort.h"
#include "why.h"

typedef struct stat_state {
    int live;
    int retained;
    int by_site;
    const char *type;
    uint8_t **masks; /* per section with --type */
    size_t nmasks;
} stat_state;

static const cli_option stat_options[] = {
    OPT_BOOL(0, "live", stat_state, live, "count only objects reachable from strong roots"),
    OPT_BOOL(0, "retained", stat_state, retained, "add each type's retained size (dominator tree)"),
    OPT_STRING(0, "type", stat_state, type, "PATTERN",
               "only the matching types (NAME, glob, or ~substring)"),
    OPT_BOOL(0, "by-site", stat_state, by_site,
             "one row per allocation site (file:line: Ruby dumps with allocation tracing)"),
    OPT_END
};

static const char *const sort_keys[] = { "bytes", "count", "name", "retained", NULL };

static const char description[] =
    "Per-type histogram: number of objects and their total size for each type,\n"
    "biggest first. Every object in the dump is counted (like SOS !dumpheap -stat);\n"
    "--live counts only objects reachable from strong (non-weak) roots.\n"
    "Sort keys: bytes (default), count, name. Types with the same name are one row.\n"
    "Columns: count, bytes, type, and in tsv/csv a last domain column on every\n"
    "dump (docs/schemas.md). Table output ends with a total line; json has\n"
    "\"total\" and \"types\".\n"
    "--retained adds a retained column before type: the type's retained size, the\n"
    "memory freed if every instance went away (the union of its live instances'\n"
    "dominator subtrees, so a type's own nested instances count once); it allows\n"
    "--sort retained. Types overlap, so the column does not add up: its total is\n"
    "the live bytes (what the virtual root retains).\n"
    "--type PATTERN: only the types matching PATTERN (exact name, glob with * and\n"
    "?, or ~text for a case-insensitive substring); totals cover those types.\n"
    "--by-site: one row per allocation site instead of per type (heapy's\n"
    "question): columns count, bytes, site (\"file:line\"; \"(no site)\" for the\n"
    "objects the dump gives none); json \"sites\". Only Ruby dumps written after\n"
    "ObjectSpace.trace_object_allocations_start record sites: for every other\n"
    "dump a warning says so and all objects are one \"(no site)\" row. Works\n"
    "with --live and --type; sort keys bytes, count, name.";

static int sort_retained(const cli_common *c) { return c->sort && strcmp(c->sort, "retained") == 0; }

/* --sort retained: retained descending, then bytes, count, name. */
typedef struct retained_order {
    const gch_heap *heap;
    const uint64_t *retained;  /* per type */
} retained_order;

static int compare_retained(const void *pa, const void *pb, const void *ctx)
{
    const gch_type_row *a = pa, *b = pb;
    const retained_order *o = ctx;
    const gch_heap *ret_heap = o->heap;
    const uint64_t *ret_of = o->retained;
    uint64_t ra = ret_of[a->type], rb = ret_of[b->type];
    if (ra != rb)
        return ra > rb ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return strcmp(gch_type_name(ret_heap, a->type), gch_type_name(ret_heap, b->type));
}

/* --by-site: the objects grouped by allocation site. */
static int report_sites(report *rep, gch_analysis *an, const char *path, const gch_heap *h,
                        const cli_common *c, const stat_state *s, const uint8_t *mask)
{
    const uint8_t *live = NULL;
    if (s->live && cli_live(an, h, c, &live, NULL, NULL) != 0)
        return EXIT_INPUT;
    sites_warn_none(path, h, c);
    return sites_report_heap(rep, h, c, live, mask);
}

static int report_heap(report *rep, gch_analysis *an, const gch_heap *h, const cli_common *c,
                       const stat_state *s, const uint8_t *mask)
{
    const uint8_t *live = NULL;
    const uint64_t *retained = NULL;
    uint64_t live_bytes = 0;
    gch_error err;
    if (s->retained && cli_type_retained(an, h, c, &retained, &live_bytes) != 0)
        return EXIT_INPUT;
    if (s->live && cli_live(an, h, c, &live, NULL, NULL) != 0)
        return EXIT_INPUT;
    gch_type_row *rows;
    uint32_t n;
    gch_status st = gch_histogram(h, live, &rows, &n, &err);
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    if (mask) { /* --type: only the matching rows (totals over them too) */
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++)
            if (mask[rows[i].type])
                rows[k++] = rows[i];
        n = k;
    }
    if (sort_retained(c)) {
        retained_order o = { h, retained };
        cli_sort(rows, n, sizeof *rows, compare_retained, &o);
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
    report_note_more(rep, shown, n, "types");
    report_begin_total(rep);
    report_cell_u64(rep, total_count);
    report_cell_u64(rep, total_bytes);
    if (retained)
        report_cell_u64(rep, live_bytes);
    /* json: "total":{..., "type":"total"} and a number "types" (docs/schemas.md) */
    report_cell_text(rep, report_total_label(rep, n, "type", buf, sizeof buf));
    report_section_u64(rep, "types", n);
    report_end_section(rep);
    gch_free(rows);
    return 0;
}

static int stat_check(cli_run *run)
{
    const stat_state *s = run->state;
    if (sort_retained(run->c) && !s->retained)
        return cli_usage_error("stat", "--sort retained needs --retained");
    if (s->by_site && s->retained)
        return cli_usage_error("stat", "--by-site and --retained exclude each other");
    return 0;
}

static int stat_needs_refs(const void *state)
{
    const stat_state *s = state;
    return s->live || s->retained || s->by_site; /* --by-site reads the objects */
}

static int stat_report(cli_run *run)
{
    const stat_state *s = run->state;
    static const col_spec cols[] = { { "count", COL_COUNT }, { "bytes", COL_BYTES }, { "type", COL_TEXT } };
    static const col_spec ret_cols[] = {
        { "count", COL_COUNT }, { "bytes", COL_BYTES }, { "retained", COL_BYTES }, { "type", COL_TEXT }
    };
    static const col_spec site_cols[] = { { "count", COL_COUNT }, { "bytes", COL_BYTES },
                                          { "site", COL_TEXT } };
    const cli_input *in = &run->in[0];
    if (s->by_site) {
        report *rep = report_new(run->out, REPORT_COLUMNS(site_cols), in->count > 1);
        int rc = 0;
        for (size_t i = 0; i < in->count && rc == 0; i++)
            rc = report_sites(rep, in->an, in->path, in->heaps[i], run->c, s, s->masks ? s->masks[i] : NULL);
        return rc;
    }
    report *rep = s->retained ? report_new(run->out, REPORT_COLUMNS(ret_cols), in->count > 1)
                              : report_new(run->out, REPORT_COLUMNS(cols), in->count > 1);
    int rc = 0;
    for (size_t i = 0; i < in->count && rc == 0; i++)
        rc = report_heap(rep, in->an, in->heaps[i], run->c, s, s->masks ? s->masks[i] : NULL);
    return rc;
}

static int stat_prepare(cli_run *run)
{
    stat_state *s = run->state;
    const cli_input *in = &run->in[0];
    if (!s->type)
        return 0;
    s->nmasks = in->count;
    return why_match_types("stat", in->path, in->heaps, in->count, s->type, run->c, &s->masks);
}

static void stat_release(void *state)
{
    stat_state *s = state;
    why_free_masks(s->masks, s->nmasks);
    s->masks = NULL;
}

const cli_spec stat_command = {
    .name = "stat", .summary = "per-type histogram: count and bytes, biggest first",
    .usage = "usage: gcheap stat [OPTIONS] DUMP", .description = description,
    .options = stat_options, .state_size = sizeof(stat_state), .sort_keys = sort_keys,
    .min_args = 1, .max_args = 1, .flags = CLI_TYPE_TOTALS_OK, .needs_refs = stat_needs_refs,
    .check = stat_check, .prepare = stat_prepare, .report = stat_report, .release = stat_release,
};
