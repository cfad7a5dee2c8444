/* gcheap objsize: what an object keeps reachable (SOS !objsize) and retains. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/alloc.h"
#include "output.h"
#include "stat_sort.h"
#include "why.h"

enum { OPT_STAT = 1, OPT_TYPE };

static const cli_option objsize_options[] = {
    { "stat", 0, 0, OPT_STAT, NULL, "break what is reachable down by type" },
    { "type", 0, 1, OPT_TYPE, "NAME", "all instances of type NAME (* and ? are wildcards)" },
    { NULL, 0, 0, 0, NULL, NULL }
};

static const char usage_text[] =
    "usage: gcheap objsize [OPTIONS] DUMP ID...\n"
    "       gcheap objsize [OPTIONS] DUMP --type NAME";
static const char description[] =
    "What an object keeps reachable, like SOS !objsize: reach_count and\n"
    "reach_bytes count every object reachable from ID by following references,\n"
    "ID included, each once, whether or not ID is live. retained is what ID\n"
    "alone keeps alive (its dominator subtree); 0 when ID is not live (reachable\n"
    "from no strong root), which table output notes under the table and\n"
    "tsv/csv/json give as live = 0.\n"
    "Columns: id, size, reach_count, reach_bytes, retained, live (not in table\n"
    "output), type; one row per ID, in the order given.\n"
    "--type NAME: every instance of the types named NAME (exactly, or a glob when\n"
    "NAME has * or ?); one row per matching type with columns count (instances),\n"
    "reach_count, reach_bytes (the union of what the instances reach), retained\n"
    "(the type's retained size: the union of its instances' dominator subtrees),\n"
    "type; biggest retained first.\n"
    "--stat: the objects reachable from all IDs (or all matching instances)\n"
    "together, each counted once, by type: columns count, bytes, type; sort keys\n"
    "bytes (default), count, name. Table output shows both tables; tsv/csv only\n"
    "the breakdown; json adds it to each section as \"types\" and \"types_total\".";

typedef struct objsize_state {
    int stat;
    const char *type;
} objsize_state;

static int on_option(void *state, int id, const char *value)
{
    objsize_state *s = state;
    if (id == OPT_STAT)
        s->stat = 1;
    else if (id == OPT_TYPE)
        s->type = value;
    return 0;
}

static void oom(void)
{
    cli_error("out of memory");
    exit(EXIT_INPUT);
}

static int run_objsize(const gch_heap *h, const uint32_t *starts, size_t n, uint64_t *count,
                       uint64_t *bytes, uint64_t *per_count, uint64_t *per_bytes)
{
    gch_error err;
    if (gch_objsize(h, starts, n, count, bytes, per_count, per_bytes, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    return 0;
}

/* The by-type breakdown of what starts reach, as rows in the current section
 * (breakdown report) and/or as the json members "types" and "types_total". */
static int breakdown(report *rep, const gch_heap *h, const cli_common *c, const uint32_t *starts,
                     size_t n, int as_rows, int as_json)
{
    uint64_t *pc = calloc(h->type_count ? h->type_count : 1, sizeof *pc);
    uint64_t *pb = calloc(h->type_count ? h->type_count : 1, sizeof *pb);
    gch_type_row *rows = malloc(sizeof *rows * (h->type_count ? h->type_count : 1));
    if (!pc || !pb || !rows)
        oom();
    uint64_t tc = 0, tb = 0;
    int rc = run_objsize(h, starts, n, &tc, &tb, pc, pb);
    if (rc) {
        free(pc);
        free(pb);
        free(rows);
        return rc;
    }
    uint32_t nrows = 0;
    for (uint32_t t = 0; t < h->type_count; t++)
        if (pc[t]) {
            rows[nrows].type = t;
            rows[nrows].count = pc[t];
            rows[nrows].bytes = pb[t];
            nrows++;
        }
    stat_sort_rows(h, rows, nrows, c->sort);
    uint64_t shown = nrows < c->top ? nrows : c->top;
    char buf[8192];
    if (as_rows) {
        for (uint64_t i = 0; i < shown; i++) {
            report_cell_u64(rep, rows[i].count);
            report_cell_u64(rep, rows[i].bytes);
            report_cell_text(rep, cli_type_name(h, rows[i].type, c, buf, sizeof buf));
        }
        if (shown < nrows)
            report_note(rep, "(%" PRIu64 " more types not shown)", (uint64_t)nrows - shown);
        report_begin_total(rep);
        report_cell_u64(rep, tc);
        report_cell_u64(rep, tb);
        snprintf(buf, sizeof buf, "total (%u type%s)", (unsigned)nrows, nrows == 1 ? "" : "s");
        report_cell_text(rep, buf);
    }
    if (as_json) {
        jbuf j = { NULL, 0, 0 };
        jbuf_raw(&j, "[");
        for (uint64_t i = 0; i < shown; i++) {
            jbuf_raw(&j, i ? ",{\"count\":" : "{\"count\":");
            jbuf_u64(&j, rows[i].count);
            jbuf_raw(&j, ",\"bytes\":");
            jbuf_u64(&j, rows[i].bytes);
            jbuf_raw(&j, ",\"type\":");
            jbuf_str(&j, cli_type_name(h, rows[i].type, c, buf, sizeof buf));
            jbuf_raw(&j, "}");
        }
        jbuf_raw(&j, "]");
        report_section_json_raw(rep, "types", j.s);
        j.len = 0;
        jbuf_raw(&j, "{\"count\":");
        jbuf_u64(&j, tc);
        jbuf_raw(&j, ",\"bytes\":");
        jbuf_u64(&j, tb);
        jbuf_raw(&j, "}");
        report_section_json_raw(rep, "types_total", j.s);
        jbuf_free(&j);
    }
    free(pc);
    free(pb);
    free(rows);
    return 0;
}

/* Rows for IDs: one per ID found in h. */
static int id_rows(report *rep, const gch_heap *h, const gch_domtree *t, const cli_common *c,
                   const uint32_t *objs, size_t n)
{
    char buf[8192];
    for (size_t i = 0; i < n; i++) {
        uint32_t o = objs[i];
        if (o == GCH_NONE)
            continue;
        uint64_t rc = 0, rb = 0;
        if (run_objsize(h, &o, 1, &rc, &rb, NULL, NULL) != 0)
            return EXIT_INPUT;
        int live = t->idom[o] != GCH_NONE;
        report_cell_id(rep, h->object_id[o], h->id_radix);
        report_cell_u64(rep, h->object_size[o]);
        report_cell_u64(rep, rc);
        report_cell_u64(rep, rb);
        report_cell_u64(rep, t->retained[o]);
        if (c->format != FMT_TABLE)
            report_cell_u64(rep, (uint64_t)live);
        report_cell_text(rep, cli_type_name(h, h->object_type[o], c, buf, sizeof buf));
        if (!live) {
            char id[32];
            snprintf(id, sizeof id, h->id_radix == 10 ? "%" PRIu64 : "%" PRIx64, h->object_id[o]);
            report_note(rep, "%s: not live: not reachable from any strong root", id);
        }
    }
    return 0;
}

typedef struct type_row {
    uint32_t type;
    uint64_t count, reach_count, reach_bytes, retained;
} type_row;

static const gch_heap *sort_heap;

static int cmp_type_row(const void *pa, const void *pb)
{
    const type_row *a = pa, *b = pb;
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    if (a->reach_bytes != b->reach_bytes)
        return a->reach_bytes > b->reach_bytes ? -1 : 1;
    return strcmp(gch_type_name(sort_heap, a->type), gch_type_name(sort_heap, b->type));
}

/* Rows for --type: one per matching type of h. */
static int type_rows(report *rep, const gch_heap *h, const gch_domtree *t, const cli_common *c,
                     const uint8_t *mask)
{
    const uint32_t nt = h->type_count;
    uint64_t *tret = malloc(sizeof *tret * (nt ? nt : 1));
    size_t *first = calloc((size_t)nt + 1, sizeof *first);
    if (!tret || !first)
        oom();
    gch_error err;
    if (gch_type_retained(h, t, tret, &err) != GCH_OK) {
        cli_error("%s", err.message);
        free(tret);
        free(first);
        return EXIT_INPUT;
    }
    /* The instances of the matching types, grouped by type (counting sort):
     * type ty's are inst[first[ty] .. first[ty+1]-1]. */
    uint32_t *inst;
    size_t ninst;
    why_instances(h, mask, &inst, &ninst);
    for (size_t i = 0; i < ninst; i++)
        first[h->object_type[inst[i]] + 1]++;
    for (uint32_t ty = 0; ty < nt; ty++)
        first[ty + 1] += first[ty];
    uint32_t *by_type = malloc(sizeof *by_type * (ninst ? ninst : 1));
    size_t *fill = malloc(sizeof *fill * (nt ? nt : 1));
    if (!by_type || !fill)
        oom();
    memcpy(fill, first, sizeof *fill * nt);
    for (size_t i = 0; i < ninst; i++)
        by_type[fill[h->object_type[inst[i]]]++] = inst[i];
    free(fill);
    free(inst);

    uint32_t ntypes = 0;
    for (uint32_t ty = 0; ty < nt; ty++)
        ntypes += mask[ty] != 0;
    type_row *rows = calloc(ntypes ? ntypes : 1, sizeof *rows);
    if (!rows)
        oom();
    uint32_t k = 0;
    int rc = 0;
    for (uint32_t ty = 0; ty < nt && !rc; ty++) {
        if (!mask[ty])
            continue;
        rows[k].type = ty;
        rows[k].count = first[ty + 1] - first[ty];
        rows[k].retained = tret[ty];
        rc = run_objsize(h, by_type + first[ty], first[ty + 1] - first[ty], &rows[k].reach_count,
                         &rows[k].reach_bytes, NULL, NULL);
        k++;
    }
    free(by_type);
    free(first);
    free(tret);
    if (rc) {
        free(rows);
        return rc;
    }
    sort_heap = h;
    qsort(rows, ntypes, sizeof *rows, cmp_type_row);
    uint64_t shown = ntypes < c->top ? ntypes : c->top;
    char buf[8192];
    for (uint64_t i = 0; i < shown; i++) {
        report_cell_u64(rep, rows[i].count);
        report_cell_u64(rep, rows[i].reach_count);
        report_cell_u64(rep, rows[i].reach_bytes);
        report_cell_u64(rep, rows[i].retained);
        report_cell_text(rep, cli_type_name(h, rows[i].type, c, buf, sizeof buf));
    }
    if (shown < ntypes)
        report_note(rep, "(%" PRIu64 " more types not shown)", (uint64_t)ntypes - shown);
    free(rows);
    return 0;
}

static const col_spec id_table_cols[] = {
    { "id", COL_ID }, { "size", COL_BYTES }, { "reach_count", COL_COUNT },
    { "reach_bytes", COL_BYTES }, { "retained", COL_BYTES }, { "type", COL_TEXT }
};
static const col_spec id_cols[] = {
    { "id", COL_ID }, { "size", COL_BYTES }, { "reach_count", COL_COUNT },
    { "reach_bytes", COL_BYTES }, { "retained", COL_BYTES }, { "live", COL_COUNT },
    { "type", COL_TEXT }
};
static const col_spec type_cols[] = {
    { "count", COL_COUNT }, { "reach_count", COL_COUNT }, { "reach_bytes", COL_BYTES },
    { "retained", COL_BYTES }, { "type", COL_TEXT }
};
static const col_spec stat_cols[] = {
    { "count", COL_COUNT }, { "bytes", COL_BYTES }, { "type", COL_TEXT }
};

static const cli_spec objsize_spec = {
    "objsize", usage_text, description, objsize_options, on_option, 1, -1, NULL, 0
};

int cmd_objsize(int argc, char **argv)
{
    cli_common c;
    cli_args a;
    objsize_state s = { 0, NULL };
    int rc = cli_start(&objsize_spec, &s, argc, argv, &c, &a);
    if (rc)
        return rc == CLI_HELP_SHOWN ? EXIT_FINE : rc;
    if ((rc = why_check_target_args("objsize", &a, s.type)) != 0)
        goto out_args;
    if (c.sort && !s.stat) {
        rc = cli_usage_error("objsize", "--sort orders the --stat breakdown: add --stat");
        goto out_args;
    }
    if (!stat_sort_valid(c.sort)) {
        rc = cli_usage_error("objsize", "unknown sort key '%s' (bytes, count or name)", c.sort);
        goto out_args;
    }
    cli_input in;
    const char *path = a.positional[0];
    if ((rc = cli_open("objsize", path, &c, 1, &in)) != 0)
        goto out_args;
    gch_dump *dump = in.dump;
    gch_heap **heaps = in.heaps;
    size_t nheaps = in.count;
    why_targets tg;
    if ((rc = why_targets_find("objsize", &in, &a, s.type, &c, &tg)) != 0)
        goto out_input;
    cli_warn_input(&in, &c);
    const uint32_t *found = tg.found;
    uint8_t **masks = tg.masks;
    size_t nids = tg.nids;

    int machine = c.format == FMT_TSV || c.format == FMT_CSV;
    int main_table = !(machine && s.stat);
    report *rep = report_new(&c, "objsize", tg.nused > 1, stdout);
    if (main_table) {
        if (s.type)
            report_columns(rep, type_cols, 5);
        else if (c.format == FMT_TABLE)
            report_columns(rep, id_table_cols, 6);
        else
            report_columns(rep, id_cols, 7);
    } else {
        report_columns(rep, stat_cols, 3);
    }
    report_json_field_str(rep, "file", cli_display_path(path));
    report_json_field_str(rep, "format", dump->format);
    /* The per-heap starts for --stat. */
    for (size_t k = 0; k < nheaps && rc == 0; k++) {
        if (!tg.used[k])  /* sections with an ID or a matching type */
            continue;
        const gch_heap *h = heaps[k];
        uint32_t *starts = NULL;
        size_t nstarts = 0;
        if (s.type) {
            why_instances(h, masks[k], &starts, &nstarts);
        } else {
            starts = malloc(sizeof *starts * (nids ? nids : 1));
            if (!starts)
                oom();
            for (size_t i = 0; i < nids; i++)
                if (found[k * nids + i] != GCH_NONE)
                    starts[nstarts++] = found[k * nids + i];
        }
        report_begin_section(rep, h->name);
        if (main_table) {
            gch_domtree t;
            /* --type needs gch_type_retained (children lists); IDs only
             * idom and retained. */
            rc = cli_domtree(h, &c, s.type != NULL, &t);
            if (!rc)
                rc = s.type ? type_rows(rep, h, &t, &c, masks[k])
                            : id_rows(rep, h, &t, &c, found + k * nids, nids);
            gch_domtree_free(&t);
            if (!rc && s.stat && c.format == FMT_JSON)
                rc = breakdown(rep, h, &c, starts, nstarts, 0, 1);
        } else {
            rc = breakdown(rep, h, &c, starts, nstarts, 1, 0);
        }
        report_end_section(rep);
        if (!rc && s.stat && c.format == FMT_TABLE) {
            /* The breakdown as a second table under the first. */
            printf("\n");
            report *r2 = report_new(&c, "objsize", 0, stdout);
            report_columns(r2, stat_cols, 3);
            report_begin_section(r2, h->name);
            rc = breakdown(r2, h, &c, starts, nstarts, 1, 0);
            report_end_section(r2);
            int r2c = report_finish(r2);
            if (!rc)
                rc = r2c;
        }
        free(starts);
    }
    int wrc = report_finish(rep);
    if (!rc)
        rc = wrc;
out_input:
    why_targets_free(&tg);
    cli_close(&in);
out_args:
    free(a.positional);
    return rc;
}
