/* gcheap objsize: what an object keeps reachable (SOS !objsize) and retains. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sort.h"
#include "gcheap/alloc.h"
#include "stat_sort.h"
#include "why.h"

typedef struct objsize_state {
    int stat;
    const char *type;
    why_targets targets;
} objsize_state;

static const cli_option objsize_options[] = {
    OPT_BOOL(0, "stat", objsize_state, stat, "break what is reachable down by type"),
    OPT_STRING(0, "type", objsize_state, type, "NAME", "all instances of type NAME (* and ? are wildcards)"),
    OPT_END
};

static const char *const sort_keys[] = { "bytes", "count", "name", NULL };
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
    uint64_t *pc = xcalloc(h->type_count, sizeof *pc);
    uint64_t *pb = xcalloc(h->type_count, sizeof *pb);
    gch_type_row *rows = xmalloc_array(h->type_count, sizeof *rows);
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
        report_note_more(rep, shown, nrows, "types");
        report_begin_total(rep);
        report_cell_u64(rep, tc);
        report_cell_u64(rep, tb);
        snprintf(buf, sizeof buf, "total (%u type%s)", (unsigned)nrows, nrows == 1 ? "" : "s");
        report_cell_text(rep, buf);
    }
    json_writer *jw = as_json ? report_section_json(rep) : NULL;
    if (jw) {
        json_begin_array(jw, "types");
        for (uint64_t i = 0; i < shown; i++) {
            json_begin_object(jw, NULL);
            json_u64(jw, "count", rows[i].count);
            json_u64(jw, "bytes", rows[i].bytes);
            json_string(jw, "type", cli_type_name(h, rows[i].type, c, buf, sizeof buf));
            json_end_object(jw);
        }
        json_end_array(jw);
        json_begin_object(jw, "types_total");
        json_u64(jw, "count", tc);
        json_u64(jw, "bytes", tb);
        json_end_object(jw);
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
        report_cell_u64(rep, gch_object_size(h, o));
        report_cell_u64(rep, rc);
        report_cell_u64(rep, rb);
        report_cell_u64(rep, t->retained[o]);
        if (c->format != FMT_TABLE)
            report_cell_u64(rep, (uint64_t)live);
        report_cell_text(rep, cli_type_name(h, h->object_type[o], c, buf, sizeof buf));
        if (!live) {
            char id[32];
            format_id(h->object_id[o], h->id_radix, id, sizeof id);
            report_note(rep, "%s: not live: not reachable from any strong root", id);
        }
    }
    return 0;
}

typedef struct type_row {
    uint32_t type;
    uint64_t count, reach_count, reach_bytes, retained;
} type_row;

/* ctx: the heap (type names). */
static int cmp_type_row(const void *pa, const void *pb, const void *ctx)
{
    const type_row *a = pa, *b = pb;
    const gch_heap *sort_heap = ctx;
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    if (a->reach_bytes != b->reach_bytes)
        return a->reach_bytes > b->reach_bytes ? -1 : 1;
    return strcmp(gch_type_name(sort_heap, a->type), gch_type_name(sort_heap, b->type));
}

/* Rows for --type: one per matching type of h. */
static int type_rows(report *rep, gch_analysis *an, const gch_heap *h, const cli_common *c,
                     const uint8_t *mask)
{
    const uint32_t nt = h->type_count;
    const uint64_t *tret;
    if (cli_type_retained(an, h, c, &tret, NULL) != 0)
        return EXIT_INPUT;
    size_t *first = xcalloc((size_t)nt + 1, sizeof *first);
    /* The instances of the matching types, grouped by type (counting sort):
     * type ty's are inst[first[ty] .. first[ty+1]-1]. */
    uint32_t *inst;
    size_t ninst;
    why_instances(h, mask, &inst, &ninst);
    for (size_t i = 0; i < ninst; i++)
        first[h->object_type[inst[i]] + 1]++;
    for (uint32_t ty = 0; ty < nt; ty++)
        first[ty + 1] += first[ty];
    uint32_t *by_type = xmalloc_array(ninst, sizeof *by_type);
    size_t *fill = xmalloc_array(nt, sizeof *fill);
    memcpy(fill, first, sizeof *fill * nt);
    for (size_t i = 0; i < ninst; i++)
        by_type[fill[h->object_type[inst[i]]]++] = inst[i];
    free(fill);
    free(inst);

    uint32_t ntypes = 0;
    for (uint32_t ty = 0; ty < nt; ty++)
        ntypes += mask[ty] != 0;
    type_row *rows = xcalloc(ntypes, sizeof *rows);
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
    if (rc) {
        free(rows);
        return rc;
    }
    cli_sort(rows, ntypes, sizeof *rows, cmp_type_row, h);
    uint64_t shown = ntypes < c->top ? ntypes : c->top;
    char buf[8192];
    for (uint64_t i = 0; i < shown; i++) {
        report_cell_u64(rep, rows[i].count);
        report_cell_u64(rep, rows[i].reach_count);
        report_cell_u64(rep, rows[i].reach_bytes);
        report_cell_u64(rep, rows[i].retained);
        report_cell_text(rep, cli_type_name(h, rows[i].type, c, buf, sizeof buf));
    }
    report_note_more(rep, shown, ntypes, "types");
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

static int objsize_check(cli_run *run)
{
    const objsize_state *s = run->state;
    int rc = why_check_target_args(run, s->type);
    if (rc == 0 && run->c->sort && !s->stat)
        rc = cli_usage_error("objsize", "--sort orders the --stat breakdown: add --stat");
    return rc;
}

static int objsize_prepare(cli_run *run)
{
    objsize_state *s = run->state;
    return why_targets_find(run, s->type, &s->targets);
}

/* The starts of --stat in section k: its IDs, or its instances of --type. */
static uint32_t *section_starts(const objsize_state *s, const gch_heap *h, size_t k, size_t *n)
{
    const why_targets *tg = &s->targets;
    uint32_t *starts;
    *n = 0;
    if (s->type) {
        why_instances(h, tg->masks[k], &starts, n);
        return starts;
    }
    starts = xmalloc_array(tg->nids, sizeof *starts);
    for (size_t i = 0; i < tg->nids; i++)
        if (tg->found[k * tg->nids + i] != GCH_NONE)
            starts[(*n)++] = tg->found[k * tg->nids + i];
    return starts;
}

/* The main rows of section k (IDs or --type), with json's breakdown members. */
static int main_rows(report *rep, const cli_run *run, const gch_heap *h, size_t k,
                     const uint32_t *starts, size_t nstarts)
{
    const objsize_state *s = run->state;
    const why_targets *tg = &s->targets;
    gch_analysis *an = run->in[0].an;
    const gch_domtree *t;
    /* --type needs gch_type_retained (children lists); IDs only idom and
     * retained. */
    int rc = cli_domtree(an, h, run->c, s->type ? GCH_TREE_CHILDREN : GCH_TREE_BY_OBJECT, &t);
    if (!rc)
        rc = s->type ? type_rows(rep, an, h, run->c, tg->masks[k])
                     : id_rows(rep, h, t, run->c, tg->found + k * tg->nids, tg->nids);
    if (!rc && s->stat && run->c->format == FMT_JSON)
        rc = breakdown(rep, h, run->c, starts, nstarts, 0, 1);
    return rc;
}

static int objsize_report(cli_run *run)
{
    const objsize_state *s = run->state;
    const cli_common *c = run->c;
    const cli_input *in = &run->in[0];
    const why_targets *tg = &s->targets;
    int machine = c->format == FMT_TSV || c->format == FMT_CSV;
    int main_table = !(machine && s->stat);
    int multi = tg->nused > 1;
    report *rep;
    if (!main_table)
        rep = report_new(run->out, REPORT_COLUMNS(stat_cols), multi);
    else if (s->type)
        rep = report_new(run->out, REPORT_COLUMNS(type_cols), multi);
    else if (c->format == FMT_TABLE)
        rep = report_new(run->out, REPORT_COLUMNS(id_table_cols), multi);
    else
        rep = report_new(run->out, REPORT_COLUMNS(id_cols), multi);
    int rc = 0;
    for (size_t k = 0; k < in->count && rc == 0; k++) {
        if (!tg->used[k]) /* sections with an ID or a matching type */
            continue;
        const gch_heap *h = in->heaps[k];
        size_t nstarts;
        uint32_t *starts = section_starts(s, h, k, &nstarts);
        report_begin_section(rep, h->name);
        rc = main_table ? main_rows(rep, run, h, k, starts, nstarts)
                        : breakdown(rep, h, c, starts, nstarts, 1, 0);
        report_end_section(rep);
        if (!rc && s->stat && c->format == FMT_TABLE) {
            /* The breakdown as a second table under the first. */
            out_printf(run->out, "\n");
            report *r2 = report_new(run->out, REPORT_COLUMNS(stat_cols), 0);
            report_begin_section(r2, h->name);
            rc = breakdown(r2, h, c, starts, nstarts, 1, 0);
            report_end_section(r2);
            report_end(r2);
        }
        free(starts);
    }
    return rc;
}

static void objsize_release(void *state) { why_targets_free(&((objsize_state *)state)->targets); }

const cli_spec objsize_command = {
    .name = "objsize", .summary = "what an object (or a type) keeps reachable, and retains",
    .usage = "usage: gcheap objsize [OPTIONS] DUMP ID...\n"
             "       gcheap objsize [OPTIONS] DUMP --type NAME",
    .description = description, .options = objsize_options, .state_size = sizeof(objsize_state),
    .sort_keys = sort_keys, .min_args = 1, .max_args = -1, .flags = CLI_NEEDS_REFS,
    .check = objsize_check, .prepare = objsize_prepare, .report = objsize_report,
    .release = objsize_release,
};
