/* gcheap objects: one row per object (SOS !dumpheap -type X -min N): its id,
 * size, whether a strong root reaches it, its distance from the nearest
 * strong root in references (as DevTools shows it), and its retained size
 * when asked. The id column feeds `refs`, `retainers` and `objsize`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sort.h"
#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/graph.h"
#include "gcheap/topk.h"
#include "payload.h"
#include "sites.h"
#include "why.h"

typedef struct objects_state {
    const char *type;
    uint64_t min_size, max_size;
    int min_given, max_given;
    int live, dead, retained, values, whole_values, sites;
    uint8_t **masks; /* per section with --type */
    size_t nmasks;
} objects_state;

static const cli_option objects_options[] = {
    OPT_STRING(0, "type", objects_state, type, "PATTERN",
               "only instances of the matching types (NAME, glob, or ~substring)"),
    OPT_SIZE_GIVEN(0, "min-size", objects_state, min_size, min_given, "SIZE",
                   "only objects of at least SIZE bytes"),
    OPT_SIZE_GIVEN(0, "max-size", objects_state, max_size, max_given, "SIZE",
                   "only objects of at most SIZE bytes"),
    OPT_BOOL(0, "live", objects_state, live, "only objects reachable from strong roots"),
    OPT_BOOL(0, "dead", objects_state, dead, "only objects no strong root reaches"),
    OPT_BOOL(0, "retained", objects_state, retained, "add each object's retained size"),
    OPT_BOOL(0, "values", objects_state, values,
             "add a value column: the text of a String (HPROF, Ruby, V8, Dart) or char[] (HPROF)"),
    OPT_BOOL(0, "whole-values", objects_state, whole_values,
             "--values, not cut after " PAYLOAD_VALUE_CHARS_TEXT " characters"),
    OPT_BOOL(0, "sites", objects_state, sites,
             "add a site column: where the object was allocated (Ruby, traced)"),
    OPT_END
};

static const char *const sort_keys[] = { "size", "retained", "distance", "id", "type", NULL };

static const char description[] =
    "One row per object, biggest first (like SOS !dumpheap): id (as the dump\n"
    "writes it: what refs, retainers and objsize take), size (shallow bytes),\n"
    "live (yes when a strong root reaches it; every root with --include-weak),\n"
    "distance (references on the shortest path from the nearest strong root,\n"
    "0 for an object a root names; '-' in tables, empty in tsv/csv, null in\n"
    "json when no root reaches it; a V8 snapshot shows DevTools' distance, from\n"
    "the user roots, docs/v8-format.md), retained (with --retained: the bytes freed\n"
    "if the object went away; '-' for a dead object), type.\n"
    "Filters: --type PATTERN (exact name, glob with * and ?, or ~text for a\n"
    "case-insensitive substring), --min-size/--max-size SIZE, --live/--dead.\n"
    "Sort keys: size (default), retained (needs --retained), distance (nearest\n"
    "first, unreachable last), id (dump order of ids), type (by name).\n"
    "--top N: at most N rows (default 100 in table output, all otherwise).\n"
    "--values (HPROF read from a file; Ruby, V8): the text of each String\n"
    "(Latin-1 or UTF-16 by its coder, or a JDK 8 char[]) and char[], cut after\n"
    PAYLOAD_VALUE_CHARS_TEXT " characters and \"...\" in every format (quoted in tables);\n"
    "--whole-values: the same, whole; '-' (empty, null) for other objects.\n"
    "The characters are read from the dump file again: from a pipe or a gzip\n"
    "file there are none (a warning says so).\n"
    "Ruby: the \"value\" the dump gives a String (ASCII-only ones), kept while\n"
    "loading, so from a pipe or gzip too. Dart: the characters the snapshot\n"
    "records of a string (its first 128, \"...\" after a longer one), from any input.\n"
    "--sites: where each object was allocated (\"file:line\"; Ruby dumps made\n"
    "after ObjectSpace.trace_object_allocations_start); '-' (empty, null) for\n"
    "objects without one; a warning when the dump records none.\n"
    "Columns: id, size, live, distance, [retained,] [value,] [site,] type, domain. json adds\n"
    "per section \"objects\" and \"bytes\": the count and bytes of every\n"
    "object that passed the filters (also those beyond --top).";

/* What the order of the rows depends on. */
typedef struct row_order {
    const gch_heap *heap;
    const uint32_t *dist;
    const uint64_t *retained;
    int key;  /* an index into sort_keys */
} row_order;

static int compare_rows(const void *pa, const void *pb, const void *ctx)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const row_order *ro = ctx;
    const gch_heap *h = ro->heap;
    const uint32_t *sort_dist = ro->dist;
    const uint64_t *sort_retained = ro->retained;
    const int sort_key = ro->key;
    switch (sort_key) {
    case 1: { /* retained */
        uint64_t ra = sort_retained[a], rb = sort_retained[b];
        if (ra != rb)
            return ra > rb ? -1 : 1;
        break;
    }
    case 2: /* distance: nearest first, GCH_NONE (unreachable) last */
        if (sort_dist[a] != sort_dist[b])
            return sort_dist[a] < sort_dist[b] ? -1 : 1;
        break;
    case 3:
        break;
    case 4: {
        int c = strcmp(gch_type_name(h, h->object_type[a]), gch_type_name(h, h->object_type[b]));
        if (c)
            return c;
        break;
    }
    default:
        break;
    }
    if (sort_key != 3 && gch_object_size(h, a) != gch_object_size(h, b))
        return gch_object_size(h, a) > gch_object_size(h, b) ? -1 : 1;
    if (h->object_id[a] != h->object_id[b])
        return h->object_id[a] < h->object_id[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* compare_rows as gch_top_k ranks: candidates are positions in rows. */
typedef struct row_rank {
    const uint32_t *rows;
    const row_order *ro;
} row_rank;

static int row_before(const void *ctx, uint32_t a, uint32_t b)
{
    const row_rank *r = ctx;
    return compare_rows(&r->rows[a], &r->rows[b], r->ro) < 0;
}

/* The first `shown` rows in order: all sorted, or (few of many) the best
 * selected, then sorted: the same rows, compare_rows being a total order. */
static void order_rows(uint32_t *rows, size_t n, size_t shown, const row_order *ro)
{
    if (shown >= n / 2 || n > UINT32_MAX) {
        cli_sort(rows, n, sizeof *rows, compare_rows, ro);
        return;
    }
    row_rank rr = { rows, ro };
    uint32_t *best = xmalloc_array(shown ? shown : 1, sizeof *best);
    size_t k = gch_top_k((uint32_t)n, shown, row_before, &rr, best);
    gch_top_k_sort(best, k, row_before, &rr);
    for (size_t i = 0; i < k; i++)
        best[i] = rows[best[i]];
    memcpy(rows, best, k * sizeof *best);
    free(best);
}

static int key_index(const cli_common *c)
{
    for (int i = 0; c->sort && sort_keys[i]; i++)
        if (strcmp(c->sort, sort_keys[i]) == 0)
            return i;
    return 0;
}

static int objects_check(cli_run *run)
{
    const objects_state *s = run->state;
    if (s->live && s->dead)
        return cli_usage_error("objects", "--live and --dead exclude each other");
    if (s->min_given && s->max_given && s->min_size > s->max_size)
        return cli_usage_error("objects", "--min-size is above --max-size");
    if (key_index(run->c) == 1 && !s->retained)
        return cli_usage_error("objects", "--sort retained needs --retained");
    if (s->type && !s->type[0])
        return cli_usage_error("objects", "--type needs a pattern");
    return 0;
}

static int objects_prepare(cli_run *run)
{
    objects_state *s = run->state;
    const cli_input *in = &run->in[0];
    if (!s->type)
        return 0;
    s->nmasks = in->count;
    return why_match_types("objects", in->path, in->heaps, in->count, s->type, run->c, &s->masks);
}

/* The objects that pass the filters, in index order, into rows (room for
 * every object; only the rows written are touched), their bytes into
 * *bytes; returns how many. One pass without a branch on the object (a
 * type matches at random): each object is written and kept or not. */
static size_t select_rows(const objects_state *s, const gch_heap *h, const uint8_t *mask,
                          const uint32_t *dist, uint32_t *rows, uint64_t *bytes)
{
    size_t n = 0;
    uint64_t sum = 0; /* the builder bounds the heap's total */
    int sized = s->min_given || s->max_given, by_life = s->live || s->dead;
    for (uint32_t o = 0; o < h->object_count; o++) {
        unsigned ok = mask ? mask[h->object_type[o]] != 0 : 1u;
        uint64_t size = gch_object_size(h, o);
        if (sized)
            ok &= !(s->min_given && size < s->min_size) & !(s->max_given && size > s->max_size);
        if (by_life) {
            int live = dist[o] != GCH_NONE;
            ok &= !(s->live && !live) & !(s->dead && live);
        }
        rows[n] = o;
        n += ok;
        sum += ok ? size : 0;
    }
    *bytes = sum;
    return n;
}

static int wants_values(const objects_state *s) { return s->values || s->whole_values; }

/* The value cell of object o (--values): cut after PAYLOAD_VALUE_CHARS in
 * every format, so that the output stays a small multiple of the dump
 * (Strings may share one big array), unless --whole-values. */
static void value_cell(report *rep, payload_file *pf, const gch_heap *h, uint32_t o,
                       const cli_common *c, const objects_state *s, strbuf *text)
{
    sb_reset(text);
    int table = c->format == FMT_TABLE;
    if (table)
        sb_addc(text, '"');
    if (!payload_text(pf, h, o, s->whole_values ? 0 : PAYLOAD_VALUE_CHARS, text)) {
        report_cell_none(rep);
        return;
    }
    if (table)
        sb_addc(text, '"');
    report_cell_text(rep, sb_str(text));
}

static int report_heap(report *rep, const cli_input *in, const gch_heap *h, const uint8_t *mask,
                       const cli_common *c, const objects_state *s)
{
    const char *path = in->path;
    const gch_dump *dump = in->dump;
    gch_error err;
    const uint32_t *dist = NULL;
    gch_domtree t;
    memset(&t, 0, sizeof t);
    const gch_domtree *tree = NULL;
    /* Every object's distance when the filters or the order read them; else
     * only the shown rows' (below: from an index, no array of all). */
    int by_life = s->live || s->dead;
    if (by_life || (key_index(c) == 2 && !h->v8_distance)) {
        cli_phase(c, "measuring distances from the roots");
        gch_status st = gch_analysis_distance(in->an, h, c->include_weak, &dist, &err);
        cli_phase_end();
        if (st != GCH_OK) {
            cli_error("%s", err.message);
            return EXIT_INPUT;
        }
    }
    if (s->retained && cli_domtree(in->an, h, c, GCH_TREE_BY_OBJECT, &tree) != 0)
        return EXIT_INPUT;
    if (tree)
        t = *tree;
    /* A V8 snapshot as DevTools shows it has DevTools' distances (from the
     * user roots, with its edge filter): those are shown and sorted on. */
    const uint32_t *shown_dist = dist;
    uint32_t *v8_dist = NULL;
    if (h->v8_distance) {
        v8_dist = xmalloc_array(h->object_count ? h->object_count : 1, sizeof *v8_dist);
        for (uint32_t o = 0; o < h->object_count; o++)
            v8_dist[o] = h->v8_distance[o] < 0 ? GCH_NONE : (uint32_t)h->v8_distance[o];
        shown_dist = v8_dist;
    }
    uint64_t bytes;
    uint32_t *rows = xmalloc_array(h->object_count ? h->object_count : 1, sizeof *rows);
    size_t n = select_rows(s, h, mask, dist, rows, &bytes);
    row_order ro = { h, shown_dist, t.retained, key_index(c) };
    uint64_t top = why_top(c, 100);
    size_t shown = n < top ? n : (size_t)top;
    order_rows(rows, n, shown, &ro);
    /* The shown rows' distances (by row, not by object). */
    uint32_t *row_dist = xmalloc_array(shown ? shown : 1, sizeof *row_dist);
    gch_status st = GCH_OK;
    if (dist) {
        for (size_t i = 0; i < shown; i++)
            row_dist[i] = dist[rows[i]];
    } else {
        cli_phase(c, "measuring distances from the roots");
        st = gch_analysis_distances_of(in->an, h, c->include_weak, rows, shown, row_dist, &err);
        cli_phase_end();
    }
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        free(rows);
        free(row_dist);
        free(v8_dist);
        return EXIT_INPUT;
    }
    payload_file pf = { NULL, 0, 0 };
    const char *why = NULL;
    if (s->sites)
        sites_warn_none(path, h, c);
    if (wants_values(s) && !payload_open(&pf, path, dump, h, &why) && !c->quiet)
        stderr_printf("gcheap: warning: %s: no values: %s (--values reads the dump file again)\n",
                      cli_display_path(path), why);
    strbuf text = STRBUF_INIT;
    report_begin_section(rep, h->name);
    char tb[8192];
    for (size_t i = 0; i < shown; i++) {
        uint32_t o = rows[i];
        report_cell_id(rep, h->object_id[o], h->id_radix);
        report_cell_u64(rep, gch_object_size(h, o));
        uint32_t d = v8_dist ? v8_dist[o] : row_dist[i];
        report_cell_bool(rep, row_dist[i] != GCH_NONE);
        if (d == GCH_NONE)
            report_cell_none(rep);
        else
            report_cell_u64(rep, d);
        if (s->retained) {
            if (t.idom[o] == GCH_NONE)
                report_cell_none(rep);
            else
                report_cell_u64(rep, t.retained[o]);
        }
        if (wants_values(s))
            value_cell(rep, &pf, h, o, c, s, &text);
        if (s->sites) {
            const char *site = site_of(h, o);
            if (site)
                report_cell_text(rep, site);
            else
                report_cell_none(rep);
        }
        report_cell_text(rep, cli_type_name(h, h->object_type[o], c, tb, sizeof tb));
    }
    report_note_more(rep, shown, n, "objects");
    report_note(rep, "(%zu object%s, %llu bytes)", n, n == 1 ? "" : "s", (unsigned long long)bytes);
    report_section_u64(rep, "objects", n);
    report_section_u64(rep, "bytes", bytes);
    report_end_section(rep);
    if (pf.read_failed && !c->quiet)
        stderr_printf("gcheap: warning: %s: some values could not be read: the file changed since "
                      "it was loaded\n", cli_display_path(path));
    payload_close(&pf);
    sb_free(&text);
    free(rows);
    free(row_dist);
    free(v8_dist);
    return 0;
}

static int objects_report(cli_run *run)
{
    const objects_state *s = run->state;
    col_spec cols[8];
    size_t nc = 0;
    cols[nc++] = (col_spec){ "id", COL_ID };
    cols[nc++] = (col_spec){ "size", COL_BYTES };
    cols[nc++] = (col_spec){ "live", COL_TEXT };
    cols[nc++] = (col_spec){ "distance", COL_COUNT };
    if (s->retained)
        cols[nc++] = (col_spec){ "retained", COL_BYTES };
    if (wants_values(s))
        cols[nc++] = (col_spec){ "value", COL_TEXT };
    if (s->sites)
        cols[nc++] = (col_spec){ "site", COL_TEXT };
    cols[nc++] = (col_spec){ "type", COL_TEXT };
    const cli_input *in = &run->in[0];
    int multi = in->count > 1;
    report *rep = report_new(run->out, cols, nc, multi);
    int rc = 0;
    for (size_t k = 0; k < in->count && rc == 0; k++)
        rc = report_heap(rep, in, in->heaps[k], s->masks ? s->masks[k] : NULL,
                         run->c, s);
    return rc;
}

/* References always; with --values, where the characters lie in the file. */
static int objects_needs_refs(const void *state)
{
    return CLI_LOAD_REFS | (wants_values(state) ? CLI_LOAD_PAYLOADS : 0);
}

static void objects_release(void *state)
{
    objects_state *s = state;
    why_free_masks(s->masks, s->nmasks);
    s->masks = NULL;
}

const cli_spec objects_command = {
    .name = "objects", .summary = "list objects: id, size, live, distance from the roots",
    .usage = "usage: gcheap objects [OPTIONS] DUMP", .description = description,
    .options = objects_options, .state_size = sizeof(objects_state), .sort_keys = sort_keys,
    .min_args = 1, .max_args = 1, .flags = CLI_NEEDS_REFS | CLI_REFS_LATER | CLI_NO_TYPE_TOTALS, .check = objects_check,
    .needs_refs = objects_needs_refs, .prepare = objects_prepare, .report = objects_report,
    .release = objects_release,
};
