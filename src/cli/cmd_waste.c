/* gcheap waste: memory that is not leaking but wasted (gch_waste_find):
 * duplicate strings and arrays, empty and under-filled collections,
 * zero-length arrays, boxed primitives; one row per group or type, the
 * sections under --threshold of the heap left out. docs/waste.md. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/limits.h"
#include "gcheap/waste.h"
#include "payload.h"
#include "waste_cli.h"
#include "why.h"

static const char description[] =
    "Memory that is not leaking but wasted, in sections (Eclipse MAT's\n"
    "component report and Java Collections queries, with MAT's defaults):\n"
    "  duplicate-strings        java.lang.String objects with equal values: value\n"
    "                           (quoted and cut after 80 characters in tables,\n"
    "                           whole in tsv/csv/json, as objects --values), count,\n"
    "                           copy (bytes of one String and its value array),\n"
    "                           wasted = (count-1) x copy (a value array shared by\n"
    "                           several of them counts once), length (characters)\n"
    "  duplicate-arrays         primitive arrays with equal contents (not String\n"
    "                           values): count, copy, wasted, length (elements)\n"
    "  empty-collections        java.util collections of size 0, by type: count,\n"
    "                           bytes (with their backing arrays), and with\n"
    "                           --holders the field holding most of them\n"
    "                           (HolderType.field, or an element of an array)\n"
    "  underfilled-collections  collections using less than --fill-below of their\n"
    "                           backing array: fill (percent of the slots used),\n"
    "                           wasted = the unused share of the arrays' bytes\n"
    "  zero-length-arrays       arrays of length 0 by type: one would do\n"
    "  boxed-primitives         java.lang.Integer, Long, ... by type: the\n"
    "                           instances beyond one a distinct value\n"
    "A section is shown when its wasted bytes exceed --threshold of the heap\n"
    "(default 5%, MAT's totalSize/20; the live bytes with --live); --threshold 0\n"
    "shows every section. Groups need --min-count objects (default 10, MAT's\n"
    "duplicate count). Largest waste first in each section; --top N rows a\n"
    "section (default 20 in tables, all otherwise).\n"
    "Columns: section, id (one member, for refs/retainers), count, bytes,\n"
    "wasted, copy, length, fill, detail, type. The total row sums the shown\n"
    "rows. json adds per domain heap_bytes, threshold_bytes, wasted (the shown\n"
    "sections) and wasted_SECTION for every section (shown or not).\n"
    "Contents are read from the dump file again (HPROF read from a file). V8\n"
    "snapshots give duplicate-strings (the texts of string nodes; texts of 1024\n"
    "characters or more, which V8 may have cut, are not grouped) and\n"
    "empty-collections: JS Arrays with no elements, Maps and Sets whose table\n"
    "references nothing (one holding only small integers looks empty). Ruby\n"
    "dumps give duplicate-strings only, from the values dump_all writes\n"
    "(ASCII-only Strings; from pipes and gzip too). Dart snapshots give\n"
    "duplicate-strings (strings of up to 128 characters, which the VM records\n"
    "whole; longer ones, recorded as a prefix only, are not grouped),\n"
    "empty-collections (_GrowableList, _Map, _Set of length 0),\n"
    "underfilled-collections (a _GrowableList and its backing _List) and\n"
    "zero-length-arrays (_List, typed data), from pipes and gzip too. A format\n"
    "that records no contents (.gclog, .gcdump), or an\n"
    "HPROF dump from a pipe or gzip, gets one line saying so, exit 0 and no rows.\n"
    "PCT is a number with an optional '%' (\"5\", \"2.5%\").";

typedef struct waste_state {
    uint64_t threshold;   /* percent x GCH_PERCENT_SCALE */
    uint64_t fill_below;  /* percent x GCH_PERCENT_SCALE */
    uint64_t min_count;
    int live, holders;
    int v8;               /* the dump is a V8 snapshot (check: its first bytes) */
} waste_state;

static const waste_state defaults = { 5ull * GCH_PERCENT_SCALE, 21ull * GCH_PERCENT_SCALE, 10, 0, 0, 0 };

static int on_threshold(void *state, const char *command, const char *option, const char *value)
{
    return cli_parse_pct(command, option, value, &((waste_state *)state)->threshold);
}

static int on_fill(void *state, const char *command, const char *option, const char *value)
{
    waste_state *s = state;
    int rc = cli_parse_pct(command, option, value, &s->fill_below);
    if (rc == 0 && s->fill_below == 0)
        return cli_usage_error(command, "--%s needs a percentage above 0, not '%s'", option, value);
    return rc;
}

static const cli_option waste_options[] = {
    OPT_CALLBACK(0, "threshold", on_threshold, "PCT",
                 "show a section when it wastes more than PCT of the heap (default 5%)"),
    OPT_UINT(0, "min-count", waste_state, min_count, "N", 2, UINT32_MAX,
             "duplicates: groups of at least N objects (default 10)"),
    OPT_CALLBACK(0, "fill-below", on_fill, "PCT",
                 "under-filled: less than PCT of the capacity used (default 21%)"),
    OPT_BOOL(0, "live", waste_state, live, "only objects reachable from strong roots"),
    OPT_BOOL(0, "holders", waste_state, holders,
             "name the field holding most empty collections of each type (loads references)"),
    OPT_END
};

static const char *const sort_keys[] = { "wasted", NULL };

static int read_at(void *ctx, uint64_t offset, void *buf, size_t n)
{
    payload_file *pf = ctx;
    if (plat_read_at(pf->f, offset, buf, n) != 0) {
        pf->read_failed = 1;
        return 1;
    }
    return 0;
}

#define TABLE_VALUE_CHARS 80

/* payload_open for HPROF, Ruby and Dart (whose contents are kept in the
 * heap); the other formats record no contents waste reads. */
static int hprof_contents(payload_file *pf, const cli_input *in, const gch_heap *h, const char **why)
{
    if (strcmp(in->dump->format, "hprof") != 0 && strcmp(in->dump->format, "ruby") != 0 &&
        strcmp(in->dump->format, "dart") != 0) {
        memset(pf, 0, sizeof *pf);
        *why = "its format records none";
        return 0;
    }
    return payload_open(pf, in->path, in->dump, h, why);
}

/* The detail cell of row r. */
static void detail_cell(report *rep, payload_file *pf, const gch_heap *h, const gch_waste_row *r,
                        const cli_common *c, strbuf *text)
{
    char tb[8192];
    sb_reset(text);
    switch (r->kind) {
    case GCH_WASTE_DUP_STRINGS: {
        int table = c->format == FMT_TABLE;
        if (table)
            sb_addc(text, '"');
        if (!payload_text(pf, h, r->object, table ? TABLE_VALUE_CHARS : 0, text)) {
            report_cell_none(rep);
            return;
        }
        if (table)
            sb_addc(text, '"');
        break;
    }
    case GCH_WASTE_EMPTY:
        if (r->holder_type == GCH_NONE) {
            report_cell_none(rep);
            return;
        }
        sb_add(text, r->holder_label == GCH_WASTE_ELEMENT ? "held by an element of " : "held by ");
        sb_add(text, cli_type_name(h, r->holder_type, c, tb, sizeof tb));
        if (r->holder_label != GCH_WASTE_ELEMENT) {
            const char *l = r->holder_label == GCH_NONE ? "?" : gch_heap_string(h, r->holder_label);
            if (!strchr(".[{", l[0])) /* V8 labels carry their own punctuation */
                sb_addc(text, '.');
            sb_add(text, l);
        }
        snprintf(tb, sizeof tb, " (%" PRIu64 ")", r->holder_count);
        sb_add(text, tb);
        break;
    case GCH_WASTE_UNDERFILLED:
        snprintf(tb, sizeof tb, "%" PRIu64 " of %" PRIu64 " slots used", r->used, r->capacity);
        sb_add(text, tb);
        break;
    case GCH_WASTE_BOXED:
        snprintf(tb, sizeof tb, "%" PRIu64 " distinct value%s", r->distinct, r->distinct == 1 ? "" : "s");
        sb_add(text, tb);
        break;
    default:
        report_cell_none(rep);
        return;
    }
    report_cell_text(rep, sb_str(text));
}

static void row_cells(report *rep, payload_file *pf, const gch_heap *h, const gch_waste_row *r,
                      const cli_common *c, strbuf *text)
{
    char tb[8192];
    report_cell_text(rep, gch_waste_kind_name(r->kind));
    report_cell_id(rep, r->id, h->id_radix);
    report_cell_u64(rep, r->count);
    report_cell_u64(rep, r->bytes);
    report_cell_u64(rep, r->wasted);
    if (r->kind == GCH_WASTE_EMPTY || r->kind == GCH_WASTE_UNDERFILLED)
        report_cell_none(rep);
    else
        report_cell_u64(rep, r->copy);
    if (r->kind == GCH_WASTE_DUP_STRINGS || r->kind == GCH_WASTE_DUP_ARRAYS)
        report_cell_u64(rep, r->length);
    else
        report_cell_none(rep);
    if (r->kind == GCH_WASTE_UNDERFILLED && r->capacity) {
        snprintf(tb, sizeof tb, "%.1Lf", (long double)r->used * 100.0L / (long double)r->capacity);
        report_cell_text(rep, tb);
    } else {
        report_cell_none(rep);
    }
    detail_cell(rep, pf, h, r, c, text);
    report_cell_text(rep, cli_type_name(h, r->type, c, tb, sizeof tb));
}

static void section_keys(report *rep, const gch_waste *w, uint64_t heap_bytes, uint64_t limit,
                         uint64_t shown_wasted)
{
    report_section_u64(rep, "heap_bytes", heap_bytes);
    report_section_u64(rep, "threshold_bytes", limit);
    report_section_u64(rep, "wasted", shown_wasted);
    for (unsigned k = 0; k < GCH_WASTE_KINDS; k++) {
        char key[64];
        snprintf(key, sizeof key, "wasted_%s", gch_waste_kind_name(k));
        for (char *p = key; *p; p++)
            if (*p == '-')
                *p = '_';
        report_section_u64(rep, key, w->wasted[k]);
    }
}

static int report_heap(report *rep, const cli_input *in, gch_heap *h, const waste_state *s,
                       const cli_common *c)
{
    payload_file pf;
    memset(&pf, 0, sizeof pf); /* V8: no file is read again */
    const char *why = NULL;
    int js = strcmp(in->dump->format, "v8") == 0, dart = strcmp(in->dump->format, "dart") == 0;
    pf.in_heap = js && h->payloads_kept; /* V8: the texts of string nodes are in the heap */
    report_begin_section(rep, h->name);
    if (!js && !hprof_contents(&pf, in, h, &why)) {
        report_note(rep, "%s: no contents to look at: %s", cli_display_path(in->path), why);
        report_end_section(rep);
        return 0;
    }
    uint8_t *live = NULL;
    uint64_t live_bytes = 0;
    gch_error err;
    if (s->live && gch_live_set_ex(h, &(gch_live_options){ c->include_weak, cli_threads(c) }, &live,
                                   NULL, &live_bytes, &err) != GCH_OK) {
        payload_close(&pf);
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    gch_waste w;
    gch_waste_options o = { .min_count = s->min_count,
                            .fill_below = (double)s->fill_below / (100.0 * GCH_PERCENT_SCALE),
                            .mask = live, .read = read_at, .read_ctx = &pf, .holders = s->holders,
                            .js = js, .text = pf.in_heap, .dart = dart };
    cli_phase(c, "looking for waste");
    gch_status st = gch_waste_find(h, &o, &w, &err);
    cli_phase_end();
    gch_free(live);
    if (st != GCH_OK) {
        payload_close(&pf);
        cli_error("%s: %s", cli_display_path(in->path), err.message);
        return EXIT_INPUT;
    }
    uint64_t heap_bytes = s->live ? live_bytes : h->total_size;
    uint64_t limit = waste_threshold_bytes(heap_bytes, s->threshold);
    uint64_t top = why_top(c, 20), shown_wasted = 0, tc = 0, tb = 0;
    strbuf text = STRBUF_INIT;
    for (unsigned k = 0; k < GCH_WASTE_KINDS; k++) {
        if (w.wasted[k] <= limit || w.wasted[k] == 0)
            continue;
        shown_wasted += w.wasted[k];
        uint64_t n = 0, shown = 0;
        for (size_t i = 0; i < w.count; i++) {
            if (w.rows[i].kind != k)
                continue;
            if (n++ < top) {
                row_cells(rep, &pf, h, &w.rows[i], c, &text);
                shown++;
            }
            tc += w.rows[i].count;
            tb += w.rows[i].bytes;
        }
        report_note_more(rep, shown, n, gch_waste_kind_name(k));
    }
    for (unsigned k = 0; k < GCH_WASTE_KINDS; k++)
        if (w.wasted[k] > 0 && w.wasted[k] <= limit)
            report_note(rep, "(%s: %" PRIu64 " bytes wasted, not above the threshold of %" PRIu64
                        " bytes)", gch_waste_kind_name(k), w.wasted[k], limit);
    if (js)
        report_note(rep, "(V8: duplicate strings and empty Arrays, Maps and Sets only; a Map or Set "
                         "holding only small integers looks empty)");
    else if (dart)
        report_note(rep, "(Dart: duplicate strings of up to 128 characters, the values the VM "
                         "records whole; lists, maps and sets by their recorded lengths)");
    else if (pf.in_heap)
        report_note(rep, "(Ruby: duplicate strings only, from the values dump_all writes: those of "
                         "ASCII-only Strings)");
    else if (!w.fields)
        report_note(rep, "(no collections or boxes: the dump's instance fields were not read)");
    report_begin_total(rep);
    report_cell_text(rep, "total");
    report_cell_none(rep);
    report_cell_u64(rep, tc);
    report_cell_u64(rep, tb);
    report_cell_u64(rep, shown_wasted);
    for (int i = 0; i < 4; i++)
        report_cell_none(rep);
    report_cell_text(rep, "total");
    section_keys(rep, &w, heap_bytes, limit, shown_wasted);
    report_end_section(rep);
    if (pf.read_failed && !c->quiet)
        stderr_printf("gcheap: warning: %s: some values could not be read: the file changed since "
                      "it was loaded\n", cli_display_path(in->path));
    sb_free(&text);
    gch_waste_free(&w);
    payload_close(&pf);
    return 0;
}

static int waste_report(cli_run *run)
{
    static const col_spec cols[] = {
        { "section", COL_TEXT }, { "id", COL_ID }, { "count", COL_COUNT }, { "bytes", COL_BYTES },
        { "wasted", COL_BYTES }, { "copy", COL_BYTES }, { "length", COL_COUNT }, { "fill", COL_TEXT },
        { "detail", COL_TEXT }, { "type", COL_TEXT }
    };
    const cli_input *in = &run->in[0];
    const char *why = NULL;
    int contents = 0;
    for (size_t k = 0; k < in->count; k++) {
        payload_file pf;
        contents |= hprof_contents(&pf, in, in->heaps[k], &why);
        payload_close(&pf);
    }
    contents |= strcmp(in->dump->format, "v8") == 0 && in->count > 0;
    if (!contents && run->c->format == FMT_TABLE) { /* one line, no table */
        out_text(run->out, ESC_TABLE, cli_display_path(in->path));
        out_printf(run->out, ": no contents to look at: %s\n", why ? why : "it has no heap");
        return 0;
    }
    report *rep = report_new(run->out, REPORT_COLUMNS(cols), in->count > 1);
    int rc = 0;
    for (size_t k = 0; k < in->count && rc == 0; k++)
        rc = report_heap(rep, in, in->heaps[k], run->state, run->c);
    return rc;
}

/* A V8 snapshot is read through its references and their labels: its
 * first bytes say which format the dump is before it is loaded. */
static int waste_check(cli_run *run)
{
    waste_state *s = run->state;
    if (strcmp(run->args[0], "-") == 0)
        return 0;
    const char *why;
    plat_file *f = plat_open(run->args[0], &why);
    if (!f)
        return 0; /* the load says why */
    unsigned char head[64];
    uint64_t n = plat_size(f) < sizeof head ? plat_size(f) : sizeof head;
    s->v8 = plat_read_at(f, 0, head, n) == 0 && gch_detect_format(head, (size_t)n) == GCH_FORMAT_V8;
    plat_close(f);
    return 0;
}

static int waste_needs_refs(const void *state)
{
    const waste_state *s = state;
    if (s->v8)
        return CLI_LOAD_REFS | CLI_LOAD_LABELS | CLI_LOAD_PAYLOADS;
    /* References only when asked for: loading them costs more than the rest
     * of the command (docs/waste.md, "Cost"). */
    return CLI_LOAD_PAYLOADS | CLI_LOAD_FIELDS | (s->live || s->holders ? CLI_LOAD_REFS : 0) |
           (s->holders ? CLI_LOAD_LABELS : 0);
}

const cli_spec waste_command = {
    .name = "waste", .summary = "memory wasted: duplicate strings and arrays, empty collections",
    .usage = "usage: gcheap waste [OPTIONS] DUMP", .description = description,
    .options = waste_options, .state_size = sizeof(waste_state), .defaults = &defaults,
    .sort_keys = sort_keys, .min_args = 1, .max_args = 1, .check = waste_check,
    .needs_refs = waste_needs_refs, .report = waste_report,
};
