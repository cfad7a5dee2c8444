/* gcheap roots: GC roots by kind and flags, and the list of roots. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"

enum { OPT_SUMMARY = 1, OPT_LIST };

static const cli_option roots_options[] = {
    { "summary", 0, 0, OPT_SUMMARY, NULL, "only the counts by kind and flags" },
    { "list", 0, 0, OPT_LIST, NULL, "only the list of roots" },
    { NULL, 0, 0, 0, NULL, NULL }
};

static const char usage_text[] = "usage: gcheap roots [OPTIONS] DUMP";
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

typedef struct roots_state {
    int summary_only, list_only;
} roots_state;

static int on_option(void *state, int id, const char *value)
{
    (void)value;
    roots_state *s = state;
    if (id == OPT_SUMMARY)
        s->summary_only = 1;
    else if (id == OPT_LIST)
        s->list_only = 1;
    return 0;
}

static const gch_heap *sort_heap;
static int sort_mode; /* 1 bytes, 2 name, 3 kind */

static uint64_t root_size(const gch_heap *h, uint32_t r)
{
    return h->root_object[r] == GCH_NONE ? 0 : h->object_size[h->root_object[r]];
}

static const char *root_type(const gch_heap *h, uint32_t r)
{
    return h->root_object[r] == GCH_NONE ? "<absent object>" : gch_type_name(h, h->object_type[h->root_object[r]]);
}

static int compare_roots(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const gch_heap *h = sort_heap;
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

static void list_heap(report *rep, const gch_heap *h, const cli_common *c, uint32_t *order)
{
    report_begin_section(rep, h->name);
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
    if (shown < h->root_count)
        report_note(rep, "(%" PRIu64 " more roots not shown)", (uint64_t)h->root_count - shown);
    report_end_section(rep);
}

typedef struct summary_row {
    uint64_t count, bytes;
} summary_row;

/* Roots by kind x flags (6 x 256 cells: small enough to tabulate). */
static summary_row *tabulate(const gch_heap *h, summary_row *total)
{
    summary_row *t = calloc((size_t)GCH_ROOT_KIND_COUNT * 256, sizeof *t);
    if (!t) {
        cli_error("out of memory");
        exit(EXIT_INPUT);
    }
    total->count = total->bytes = 0;
    for (uint32_t r = 0; r < h->root_count; r++) {
        summary_row *s = &t[(size_t)(h->root_kind[r] % GCH_ROOT_KIND_COUNT) * 256 + h->root_flags[r]];
        s->count++;
        s->bytes += root_size(h, r);
        total->count++;
        total->bytes += root_size(h, r);
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
    report_end_section(rep);
    free(t);
}

/* The summary as a json array, for the "summary" member of a json section. */
static void summary_json(const gch_heap *h, jbuf *b)
{
    summary_row total;
    summary_row *t = tabulate(h, &total);
    char fbuf[64];
    int first = 1;
    jbuf_raw(b, "[");
    for (unsigned k = 0; k < GCH_ROOT_KIND_COUNT; k++) {
        for (unsigned f = 0; f < 256; f++) {
            summary_row *s = &t[k * 256 + f];
            if (!s->count)
                continue;
            jbuf_raw(b, first ? "{\"kind\":" : ",{\"kind\":");
            jbuf_str(b, gch_root_kind_name(k));
            jbuf_raw(b, ",\"flags\":");
            jbuf_str(b, cli_root_flags_text(f, fbuf, sizeof fbuf));
            jbuf_raw(b, ",\"count\":");
            jbuf_u64(b, s->count);
            jbuf_raw(b, ",\"bytes\":");
            jbuf_u64(b, s->bytes);
            jbuf_raw(b, "}");
            first = 0;
        }
    }
    jbuf_raw(b, "]");
    free(t);
}

/* Root record indices in the order --sort asks for. malloc'd. */
static uint32_t *sorted_roots(const gch_heap *h)
{
    uint32_t *order = malloc(sizeof *order * (h->root_count ? h->root_count : 1));
    if (!order) {
        cli_error("out of memory");
        exit(EXIT_INPUT);
    }
    for (uint32_t r = 0; r < h->root_count; r++)
        order[r] = r;
    sort_heap = h;
    qsort(order, h->root_count, sizeof *order, compare_roots);
    return order;
}

static const cli_spec roots_spec = {
    "roots", usage_text, description, roots_options, on_option, 1, 1, NULL, 0
};

int cmd_roots(int argc, char **argv)
{
    cli_common c;
    cli_args a;
    roots_state s = { 0, 0 };
    int rc = cli_start(&roots_spec, &s, argc, argv, &c, &a);
    if (rc)
        return rc == CLI_HELP_SHOWN ? EXIT_FINE : rc;
    if (c.sort && strcmp(c.sort, "bytes") && strcmp(c.sort, "name") && strcmp(c.sort, "kind") &&
        strcmp(c.sort, "none")) {
        rc = cli_usage_error("roots", "unknown sort key '%s' (none, bytes, name or kind)", c.sort);
        goto out_args;
    }
    if (s.summary_only && s.list_only) {
        rc = cli_usage_error("roots", "--summary and --list exclude each other");
        goto out_args;
    }
    cli_input in;
    const char *path = a.positional[0];
    if ((rc = cli_open("roots", path, &c, 0, &in)) != 0)
        goto out_args;
    gch_dump *dump = in.dump;
    gch_heap **heaps = in.heaps;
    size_t nheaps = in.count;
    cli_warn_input(&in, &c);

    int machine = c.format == FMT_TSV || c.format == FMT_CSV;
    int want_summary = !s.list_only && (!machine || s.summary_only);
    int want_list = !s.summary_only;
    static const col_spec summary_cols[] = {
        { "kind", COL_TEXT }, { "flags", COL_TEXT }, { "count", COL_COUNT }, { "bytes", COL_BYTES }
    };
    static const col_spec list_table_cols[] = {
        { "id", COL_ID }, { "size", COL_BYTES }, { "kind", COL_TEXT }, { "flags", COL_TEXT }, { "type", COL_TEXT }
    };
    static const col_spec list_cols[] = {
        { "id", COL_ID }, { "size", COL_BYTES }, { "kind", COL_TEXT }, { "flags", COL_TEXT },
        { "type", COL_TEXT }, { "container", COL_TEXT }, { "label", COL_TEXT }
    };
    sort_mode = !c.sort || !strcmp(c.sort, "none") ? 0 : !strcmp(c.sort, "bytes") ? 1 : !strcmp(c.sort, "name") ? 2 : 3;

    if (c.format == FMT_JSON) {
        /* One object per section with both parts. */
        report *rep = report_new(&c, "roots", nheaps > 1, stdout);
        report_columns(rep, list_cols, 7);
        report_json_field_str(rep, "file", cli_display_path(path));
        report_json_field_str(rep, "format", dump->format);
        for (size_t i = 0; i < nheaps; i++) {
            const gch_heap *h = heaps[i];
            uint32_t *order = sorted_roots(h);
            jbuf summary = { NULL, 0, 0 };
            summary_json(h, &summary);
            report_section_json_raw(rep, "summary", summary.s);
            jbuf_free(&summary);
            list_heap(rep, h, &c, order);
            free(order);
        }
        int wrc = report_finish(rep);
        if (!rc)
            rc = wrc;
        goto out_input;
    }

    if (want_summary) {
        report *rep = report_new(&c, "roots", nheaps > 1, stdout);
        report_columns(rep, summary_cols, 4);
        for (size_t i = 0; i < nheaps; i++)
            summary_heap(rep, heaps[i]);
        rc = report_finish(rep);
    }
    if (want_list && rc == 0) {
        if (want_summary)
            printf("\n");
        report *rep = report_new(&c, "roots", nheaps > 1, stdout);
        if (c.format == FMT_TABLE)
            report_columns(rep, list_table_cols, 5);
        else
            report_columns(rep, list_cols, 7);
        for (size_t i = 0; i < nheaps; i++) {
            const gch_heap *h = heaps[i];
            uint32_t *order = sorted_roots(h);
            list_heap(rep, h, &c, order);
            free(order);
        }
        rc = report_finish(rep);
    }
out_input:
    cli_close(&in);
out_args:
    free(a.positional);
    return rc;
}
