/* gcheap roots: GC roots by kind and flags, and the list of roots. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sort.h"

typedef struct roots_state {
    int summary_only, list_only;
} roots_state;

static const cli_option roots_options[] = {
    OPT_BOOL(0, "summary", roots_state, summary_only, "only the counts by kind and flags"),
    OPT_BOOL(0, "list", roots_state, list_only, "only the list of roots"),
    OPT_END
};

static const char *const sort_keys[] = { "none", "bytes", "name", "kind", NULL };

static const char description[] =
    "GC roots: a summary by kind and flags (count, objects' bytes), then every root\n"
    "record in dump order with the object it names. Kinds: internal, local,\n"
    "finalizer, handle, static, runtime; flags: pinned, weak, interior (joined\n"
    "with '|', '-' for none). Weak roots do not keep objects alive.\n"
    "Table output shows both parts; tsv/csv show the list unless --summary is given;\n"
    "json has \"summary\" and \"rows\".\n"
    "List columns: id, type, kind, flags, container, size (the rooted object's size).\n"
    "Summary columns: kind, flags, count, bytes.\n"
    "Sort keys for the list: none (dump order, default), bytes, name, kind.";

static uint64_t root_size(const gch_heap *h, uint32_t r)
{
    return h->root_object[r] == GCH_NONE ? 0 : gch_object_size(h, h->root_object[r]);
}

static const char *root_type(const gch_heap *h, uint32_t r)
{
    return h->root_object[r] == GCH_NONE ? "<absent object>" : gch_type_name(h, h->object_type[h->root_object[r]]);
}

/* The list's order: --sort's mode (1 bytes, 2 name, 3 kind) over a heap. */
typedef struct root_order {
    const gch_heap *heap;
    int mode;
} root_order;

static int compare_roots(const void *pa, const void *pb, const void *ctx)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const root_order *ro = ctx;
    const gch_heap *h = ro->heap;
    const int sort_mode = ro->mode;
    int c = 0;
    if (sort_mode == 1) {
        uint64_t sa = root_size(h, a), sb = root_size(h, b);
        c = sa < sb ? 1 : sa > sb ? -1 : 0;
    } else if (sort_mode == 2) {
        c = strcmp(root_type(h, a), root_type(h, b));
    } else if (sort_mode == 3) {
        c = h->root_kind[a] - h->root_kind[b];
        if (!c)
            c = h->root_flags[a] - h->root_flags[b];
    }
    return c ? c : (a < b ? -1 : a > b);
}

static void summary_json(const gch_heap *h, json_writer *w);

static void list_heap(report *rep, const gch_heap *h, const cli_common *c, uint32_t *order)
{
    report_begin_section(rep, h->name);
    json_writer *jw = report_section_json(rep);
    if (jw)
        summary_json(h, jw); /* json sections hold both parts */
    uint64_t shown = h->root_count < c->top ? h->root_count : c->top;
    char tbuf[4096], cbuf[4096], fbuf[64];
    for (uint64_t i = 0; i < shown; i++) {
        uint32_t r = order[i];
        const char *type = root_type(h, r);
        if (h->root_object[r] != GCH_NONE)
            type = cli_type_name(h, h->object_type[h->root_object[r]], c, tbuf, sizeof tbuf);
        cli_root_container_text(h, r, c, cbuf, sizeof cbuf);
        const char *label = gch_heap_string(h, h->root_label[r]);
        report_cell_id(rep, h->root_raw_id[r], h->id_radix);
        report_cell_u64(rep, root_size(h, r));
        report_cell_text(rep, gch_root_kind_name(h->root_kind[r]));
        report_cell_text(rep, cli_root_flags_text(h->root_flags[r], fbuf, sizeof fbuf));
        if (c->format == FMT_TABLE) {
            /* One name column, last: the type, then where the root comes from. */
            char line[8192 + 64];
            if (cbuf[0] && label[0])
                snprintf(line, sizeof line, "%s  (static in %s, %s)", type, cbuf, label);
            else if (cbuf[0])
                snprintf(line, sizeof line, "%s  (static in %s)", type, cbuf);
            else if (label[0])
                snprintf(line, sizeof line, "%s  (%s)", type, label);
            else
                snprintf(line, sizeof line, "%s", type);
            report_cell_text(rep, line);
        } else {
            report_cell_text(rep, type);
            report_cell_text(rep, cbuf);
            report_cell_text(rep, label);
        }
    }
    report_note_more(rep, shown, h->root_count, "roots");
    report_end_section(rep);
}

typedef struct summary_row {
    uint64_t count, bytes;
    int saturated; /* bytes reached 2^64-1: the sum is at least that */
} summary_row;

/* Several roots may hold one object, so a sum of root bytes is not bounded
 * by the heap's total: it saturates at 2^64-1 (and says so) instead of
 * wrapping. */
static void add_bytes(summary_row *s, uint64_t v)
{
    if (s->bytes > UINT64_MAX - v) {
        s->bytes = UINT64_MAX;
        s->saturated = 1;
    } else {
        s->bytes += v;
    }
}

/* Roots by kind x flags (6 x 256 cells: small enough to tabulate). */
static summary_row *tabulate(const gch_heap *h, summary_row *total)
{
    summary_row *t = xcalloc((size_t)GCH_ROOT_KIND_COUNT * 256, sizeof *t);
    memset(total, 0, sizeof *total);
    for (uint32_t r = 0; r < h->root_count; r++) {
        summary_row *s = &t[(size_t)(h->root_kind[r] % GCH_ROOT_KIND_COUNT) * 256 + h->root_flags[r]];
        s->count++;
        add_bytes(s, root_size(h, r));
        total->count++;
        add_bytes(total, root_size(h, r));
    }
    if (total->saturated) {
        char name[512];
        stderr_printf("gcheap: warning: roots [%s]: the bytes held by roots exceed 2^64-1; sums shown as "
                      "18446744073709551615 are at least that (saturated, not wrapped)\n",
                  message_text(h->name, name, sizeof name));
    }
    return t;
}

static void summary_heap(report *rep, const gch_heap *h)
{
    summary_row total;
    summary_row *t = tabulate(h, &total);
    report_begin_section(rep, h->name);
    char fbuf[64];
    for (unsigned k = 0; k < GCH_ROOT_KIND_COUNT; k++) {
        for (unsigned f = 0; f < 256; f++) {
            summary_row *s = &t[k * 256 + f];
            if (!s->count)
                continue;
            report_cell_text(rep, gch_root_kind_name(k));
            report_cell_text(rep, cli_root_flags_text(f, fbuf, sizeof fbuf));
            report_cell_u64(rep, s->count);
            report_cell_u64(rep, s->bytes);
        }
    }
    report_begin_total(rep);
    report_cell_text(rep, "total");
    report_cell_text(rep, "");
    report_cell_u64(rep, total.count);
    report_cell_u64(rep, total.bytes);
    if (total.saturated)
        report_note(rep, "(bytes saturated at 2^64-1: the true sum is larger)");
    report_end_section(rep);
    free(t);
}

/* The summary as the json member "summary" of a section. */
static void summary_json(const gch_heap *h, json_writer *w)
{
    summary_row total;
    summary_row *t = tabulate(h, &total);
    char fbuf[64];
    json_begin_array(w, "summary");
    for (unsigned k = 0; k < GCH_ROOT_KIND_COUNT; k++) {
        for (unsigned f = 0; f < 256; f++) {
            summary_row *s = &t[k * 256 + f];
            if (!s->count)
                continue;
            json_begin_object(w, NULL);
            json_string(w, "kind", gch_root_kind_name(k));
            json_string(w, "flags", cli_root_flags_text(f, fbuf, sizeof fbuf));
            json_u64(w, "count", s->count);
            json_u64(w, "bytes", s->bytes);
            if (s->saturated)
                json_bool(w, "bytes_saturated", 1);
            json_end_object(w);
        }
    }
    json_end_array(w);
    free(t);
}

/* Root record indices in the order --sort asks for. malloc'd. */
static uint32_t *sorted_roots(const gch_heap *h, const cli_common *c)
{
    const char *key = c->sort;
    root_order ro = { h, !key || !strcmp(key, "none") ? 0 : !strcmp(key, "bytes") ? 1
                         : !strcmp(key, "name")       ? 2
                                                      : 3 };
    uint32_t *order = xmalloc_array(h->root_count, sizeof *order);
    for (uint32_t r = 0; r < h->root_count; r++)
        order[r] = r;
    cli_sort(order, h->root_count, sizeof *order, compare_roots, &ro);
    return order;
}

static int roots_check(cli_run *run)
{
    const roots_state *s = run->state;
    if (s->summary_only && s->list_only)
        return cli_usage_error("roots", "--summary and --list exclude each other");
    return 0;
}

static void list_report(cli_run *run, int table)
{
    static const col_spec table_cols[] = {
        { "id", COL_ID }, { "size", COL_BYTES }, { "kind", COL_TEXT }, { "flags", COL_TEXT }, { "type", COL_TEXT }
    };
    static const col_spec cols[] = {
        { "id", COL_ID }, { "size", COL_BYTES }, { "kind", COL_TEXT }, { "flags", COL_TEXT },
        { "type", COL_TEXT }, { "container", COL_TEXT }, { "label", COL_TEXT }
    };
    const cli_input *in = &run->in[0];
    report *rep = table ? report_new(run->out, REPORT_COLUMNS(table_cols), in->count > 1)
                        : report_new(run->out, REPORT_COLUMNS(cols), in->count > 1);
    for (size_t i = 0; i < in->count; i++) {
        uint32_t *order = sorted_roots(in->heaps[i], run->c);
        list_heap(rep, in->heaps[i], run->c, order);
        free(order);
    }
    report_end(rep);
}

static int roots_report(cli_run *run)
{
    const roots_state *s = run->state;
    const cli_common *c = run->c;
    const cli_input *in = &run->in[0];
    int machine = c->format == FMT_TSV || c->format == FMT_CSV;
    /* json: one object per section with both parts (list_heap adds the summary) */
    int want_summary = c->format != FMT_JSON && !s->list_only && (!machine || s->summary_only);
    int want_list = !s->summary_only || c->format == FMT_JSON;
    if (want_summary) {
        static const col_spec cols[] = {
            { "kind", COL_TEXT }, { "flags", COL_TEXT }, { "count", COL_COUNT }, { "bytes", COL_BYTES }
        };
        report *rep = report_new(run->out, REPORT_COLUMNS(cols), in->count > 1);
        for (size_t i = 0; i < in->count; i++)
            summary_heap(rep, in->heaps[i]);
        report_end(rep);
    }
    if (want_list) {
        if (want_summary)
            out_printf(run->out, "\n");
        list_report(run, c->format == FMT_TABLE);
    }
    return 0;
}

const cli_spec roots_command = {
    .name = "roots", .summary = "GC roots by kind and flags, and the list of roots",
    .usage = "usage: gcheap roots [OPTIONS] DUMP", .description = description,
    .options = roots_options, .state_size = sizeof(roots_state), .sort_keys = sort_keys,
    .min_args = 1, .max_args = 1, .flags = CLI_NEEDS_LABELS, .check = roots_check,
    .report = roots_report,
};
