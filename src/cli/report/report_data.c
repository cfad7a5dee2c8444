/* The data of an HTML report: see report_data.h. */
#include "report_data.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "anomalies.h"
#include "cli.h"
#include "gcheap/alloc.h"
#include "gcheap/domsummary.h"
#include "gcheap/dominators.h"
#include "gcheap/histogram.h"
#include "gcheap/leaks.h"
#include "gcheap/task.h"
#include "html_escape.h"
#include "report_instances.h"
#include "report_leaks.h"
#include "report_path.h"
#include "report_rules.h"
#include "report_waste.h"
#include "sort.h"
#include "typepat.h"

#ifndef GCHEAP_VERSION
#define GCHEAP_VERSION "dev"
#endif

static void key(FILE *f, int *first, const char *k)
{
    if (!*first)
        putc(',', f);
    *first = 0;
    html_json_string(f, k);
    putc(':', f);
}

static void kv_u64(FILE *f, int *first, const char *k, uint64_t v)
{
    key(f, first, k);
    fprintf(f, "%" PRIu64, v);
}

static void kv_str(FILE *f, int *first, const char *k, const char *v)
{
    key(f, first, k);
    html_json_string(f, v);
}

/* A JSON array of n numbers: v[i], or v[idx[i]] when idx is given. */
static void u64_array(FILE *f, const uint64_t *v, const uint32_t *idx, size_t n)
{
    putc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, i ? ",%" PRIu64 : "%" PRIu64, v[idx ? idx[i] : i]);
    putc(']', f);
}

/* What one section contributes, collected before anything is written. */
typedef struct section_data {
    gch_domtree tree;
    gch_dom_summary sum;
    uint64_t *type_count, *type_bytes, *type_retained; /* per type index */
    uint32_t *rows;        /* type indices shown, biggest bytes first */
    uint32_t nrows;
    uint32_t *row_of;      /* type index -> row, or GCH_NONE */
    uint64_t omitted_types, omitted_bytes;
} section_data;

/* ctx: bytes per type. */
static int by_bytes_desc(const void *a, const void *b, const void *ctx)
{
    const uint64_t *g_bytes = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (g_bytes[x] != g_bytes[y])
        return g_bytes[x] > g_bytes[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* Retained sizes by type, on a thread of their own while the tree is
 * summarised: both only read the tree. */
typedef struct type_job {
    gch_analysis *an;
    const gch_heap *h;
    int include_weak;
    uint64_t *out;
    gch_error err;
    gch_status st;
} type_job;

/* The loaded heap's retained sizes by type, from the tree collect() had it
 * build (only the tree is read meanwhile, by the summary). */
static int type_thread(void *arg)
{
    type_job *j = arg;
    const uint64_t *per_type;
    j->st = gch_analysis_type_retained(j->an, j->h, j->include_weak, &per_type, &j->err);
    if (j->st == GCH_OK)
        memcpy(j->out, per_type, (size_t)j->h->type_count * sizeof *j->out);
    return 0;
}

static int collect(gch_analysis *an, const gch_heap *h, const report_limits *lim,
                   const cli_common *c, section_data *s)
{
    gch_error err;
    memset(s, 0, sizeof *s);
    const gch_domtree *tree;
    const gch_paths *paths; /* the instance rows' paths: built beside the tree */
    gch_status st = lim->instances && lim->instance_types
                        ? gch_analysis_domtree_and_paths(an, h, c->include_weak, GCH_TREE_PREORDER_IDOM,
                                                         &tree, &paths, &err)
                        : gch_analysis_domtree(an, h, c->include_weak, GCH_TREE_PREORDER_IDOM, &tree, &err);
    if (st == GCH_OK)
        s->tree = *tree;
    const uint32_t types = h->type_count;
    s->type_count = xcalloc(types, sizeof *s->type_count);
    s->type_bytes = xcalloc(types, sizeof *s->type_bytes);
    s->type_retained = xcalloc(types, sizeof *s->type_retained);
    if (st == GCH_OK) {
        cli_phase(c, "summarising the dominator tree");
        type_job job;
        memset(&job, 0, sizeof job);
        job.an = an;
        job.h = h;
        job.include_weak = c->include_weak;
        job.out = s->type_retained;
        gch_task *task = gch_task_start(cli_threads(c), type_thread, &job);
        st = gch_dom_summary_build(&s->tree, lim->max_nodes, &s->sum, &err);
        gch_task_finish(task);
        if (st == GCH_OK && job.st != GCH_OK) {
            st = job.st;
            err = job.err;
        }
    }
    cli_phase_end();
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    if (h->type_objects && h->type_bytes) {
        for (uint32_t t = 0; t < types; t++) {
            s->type_count[t] = h->type_objects[t];
            s->type_bytes[t] = h->type_bytes[t];
        }
    } else {
        gch_type_row *hist;
        uint32_t n;
        if (gch_histogram(h, NULL, &hist, &n, &err) != GCH_OK) {
            cli_error("%s", err.message);
            return EXIT_INPUT;
        }
        for (uint32_t i = 0; i < n; i++) {
            s->type_count[hist[i].type] = hist[i].count;
            s->type_bytes[hist[i].type] = hist[i].bytes;
        }
        gch_free(hist);
    }
    /* Rows: the max_types biggest types by bytes, plus every type a tree
     * node names (so that every node has its row). */
    uint32_t *order = xcalloc(types, sizeof *order), present = 0;
    for (uint32_t t = 0; t < types; t++)
        if (s->type_count[t])
            order[present++] = t;
    cli_sort(order, present, sizeof *order, by_bytes_desc, s->type_bytes);
    s->row_of = xcalloc(types, sizeof *s->row_of);
    for (uint32_t t = 0; t < types; t++)
        s->row_of[t] = GCH_NONE;
    s->rows = xcalloc((size_t)present + s->sum.kept_count, sizeof *s->rows);
    for (uint32_t i = 0; i < present && i < lim->max_types; i++) {
        s->row_of[order[i]] = s->nrows;
        s->rows[s->nrows++] = order[i];
    }
    for (uint32_t k = 1; k <= s->sum.kept_count; k++) {
        uint32_t t = h->object_type[s->sum.object[k]];
        if (s->row_of[t] == GCH_NONE) {
            s->row_of[t] = s->nrows;
            s->rows[s->nrows++] = t;
        }
    }
    for (uint32_t i = 0; i < present; i++)
        if (s->row_of[order[i]] == GCH_NONE) {
            s->omitted_types++;
            s->omitted_bytes += s->type_bytes[order[i]];
        }
    free(order);
    return 0;
}

static void section_free(section_data *s)
{
    gch_dom_summary_free(&s->sum);
    free(s->type_count);
    free(s->type_bytes);
    free(s->type_retained);
    free(s->rows);
    free(s->row_of);
}

static void write_anomalies(FILE *f, const gch_anomalies *a)
{
    int first = 1;
    putc('{', f);
    for (size_t i = 0; i < cli_anomaly_count; i++) /* the names info uses (anomalies.h) */
        kv_u64(f, &first, cli_anomalies[i].key, cli_anomaly_value(a, i));
    putc('}', f);
}

static void write_types(FILE *f, const gch_heap *h, const section_data *s, const cli_common *c)
{
    char buf[8192];
    fputs("{\"name\":[", f);
    for (uint32_t i = 0; i < s->nrows; i++) {
        if (i)
            putc(',', f);
        html_json_string(f, cli_type_name(h, s->rows[i], c, buf, sizeof buf));
    }
    fputs("],\"count\":", f);
    u64_array(f, s->type_count, s->rows, s->nrows);
    fputs(",\"bytes\":", f);
    u64_array(f, s->type_bytes, s->rows, s->nrows);
    fputs(",\"retained\":", f);
    u64_array(f, s->type_retained, s->rows, s->nrows);
    fprintf(f, ",\"omitted_types\":%" PRIu64 ",\"omitted_bytes\":%" PRIu64 "}", s->omitted_types,
            s->omitted_bytes);
}

/* The tree as columns; type is a row of "types" (-1 for the virtual root
 * and merged nodes); id is the object id as the dump writes it ("" for
 * those); size the object's own size; merged the number of objects a merged
 * node stands for (0 otherwise). */
static void write_tree(FILE *f, const gch_heap *h, const section_data *s)
{
    const gch_dom_summary *m = &s->sum;
    fputs("{\"parent\":[-1", f);
    for (uint32_t k = 1; k < m->node_count; k++)
        fprintf(f, ",%" PRIu32, m->parent[k]);
    fputs("],\"type\":[", f);
    for (uint32_t k = 0; k < m->node_count; k++) {
        uint32_t o = m->object[k];
        if (o == GCH_NONE)
            fputs(k ? ",-1" : "-1", f);
        else
            fprintf(f, ",%" PRIu32, s->row_of[h->object_type[o]]);
    }
    fputs("],\"id\":[", f);
    for (uint32_t k = 0; k < m->node_count; k++) {
        uint32_t o = m->object[k];
        if (k)
            putc(',', f);
        if (o == GCH_NONE)
            fputs("\"\"", f);
        else
            fprintf(f, h->id_radix == 10 ? "\"%" PRIu64 "\"" : "\"%" PRIx64 "\"",
                    h->object_id[o]);
    }
    fputs("],\"size\":[", f);
    for (uint32_t k = 0; k < m->node_count; k++) {
        uint32_t o = m->object[k];
        fprintf(f, k ? ",%" PRIu64 : "%" PRIu64, o == GCH_NONE ? 0 : gch_object_size(h, o));
    }
    fputs("],\"retained\":", f);
    u64_array(f, m->retained, NULL, m->node_count);
    fputs(",\"merged\":", f);
    u64_array(f, m->merged, NULL, m->node_count);
    putc('}', f);
}

static void kv_id(FILE *f, int *first, const char *k, const gch_heap *h, uint32_t o)
{
    key(f, first, k);
    fprintf(f, h->id_radix == 10 ? "\"%" PRIu64 "\"" : "\"%" PRIx64 "\"", h->object_id[o]);
}

/* Leak suspects (gch_suspects_find: Eclipse MAT's rule) as an array of
 * {group, id, type, instances, retained, retained_objects, accumulation:
 * {id, type, retained, depth}, root_kind, path: [{id, type, field}], holds:
 * [{type, count, bytes}]}. From the loaded heap's tree, the one collect()
 * used: no second build. Only with --suspects. */
static int write_suspects(FILE *f, gch_analysis *an, const gch_heap *h, const cli_common *c,
                          int labels)
{
    gch_suspects_options opts = GCH_SUSPECTS_OPTIONS_INIT;
    opts.include_weak = c->include_weak;
    gch_suspects sus;
    gch_error err;
    cli_phase(c, "finding leak suspects");
    gch_status st = gch_suspects_find_in(an, h, &opts, &sus, &err);
    cli_phase_end();
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    char buf[8192];
    putc('[', f);
    for (size_t i = 0; i < sus.count; i++) {
        const gch_suspect *s = &sus.items[i];
        int first = 1;
        fputs(i ? ",{" : "{", f);
        kv_u64(f, &first, "group", (uint64_t)s->group);
        kv_id(f, &first, "id", h, s->object);
        kv_str(f, &first, "type", cli_type_name(h, s->type, c, buf, sizeof buf));
        kv_u64(f, &first, "instances", s->instances);
        kv_u64(f, &first, "retained", s->retained);
        kv_u64(f, &first, "retained_objects", s->retained_objects);
        key(f, &first, "accumulation");
        int af = 1;
        putc('{', f);
        kv_id(f, &af, "id", h, s->accumulation);
        kv_str(f, &af, "type", cli_type_name(h, h->object_type[s->accumulation], c, buf, sizeof buf));
        kv_u64(f, &af, "retained", s->accumulation_retained);
        kv_u64(f, &af, "depth", s->accumulation_depth);
        putc('}', f);
        kv_str(f, &first, "root_kind",
               s->root_record == GCH_NONE ? "" : gch_root_kind_name(h->root_kind[s->root_record]));
        char hb[2100];
        kv_str(f, &first, "holder", s->root_record == GCH_NONE
                                        ? "" : cli_root_holder_name(h, s->root_record, c, hb, sizeof hb));
        key(f, &first, "path");
        putc('[', f);
        for (size_t k = 0; k < s->path_len; k++) {
            uint32_t o = sus.path[s->path_start + k];
            int pf = 1;
            fputs(k ? ",{" : "{", f);
            kv_id(f, &pf, "id", h, o);
            kv_str(f, &pf, "type", cli_type_name(h, h->object_type[o], c, buf, sizeof buf));
            uint32_t label = k && labels ? gch_ref_label(h, sus.path[s->path_start + k - 1], o) : GCH_NONE;
            kv_str(f, &pf, "field", gch_heap_string(h, label));
            putc('}', f);
        }
        putc(']', f);
        key(f, &first, "holds");
        putc('[', f);
        for (size_t k = 0; k < s->holds_count; k++) {
            const gch_type_row *r = &sus.holds[s->holds_start + k];
            int hf = 1;
            fputs(k ? ",{" : "{", f);
            kv_str(f, &hf, "type", cli_type_name(h, r->type, c, buf, sizeof buf));
            kv_u64(f, &hf, "count", r->count);
            kv_u64(f, &hf, "bytes", r->bytes);
            putc('}', f);
        }
        fputs("]}", f);
    }
    putc(']', f);
    gch_suspects_free(&sus);
    return 0;
}

static int write_section(FILE *f, const report_dump *rd, gch_analysis *an, const gch_dump *d,
                         const gch_heap *h, const report_limits *lim, const cli_common *c, int labels)
{
    section_data s;
    if (collect(an, h, lim, c, &s) != 0) {
        section_free(&s);
        return EXIT_INPUT;
    }
    int first = 1;
    putc('{', f);
    kv_str(f, &first, "name", h->name);
    kv_str(f, &first, "format", d->format);
    key(f, &first, "meta");
    putc('[', f);
    for (size_t i = 0; i < h->meta_count; i++) {
        fputs(i ? ",[" : "[", f);
        html_json_string(f, h->meta[i].key);
        putc(',', f);
        html_json_string(f, h->meta[i].value);
        putc(']', f);
    }
    putc(']', f);
    kv_u64(f, &first, "sampled", h->sampled ? 1 : 0);
    kv_u64(f, &first, "include_weak", c->include_weak ? 1 : 0);
    key(f, &first, "totals");
    int tf = 1;
    uint64_t strong = 0;
    for (uint32_t r = 0; r < h->root_count; r++)
        strong += (h->root_flags[r] & GCH_ROOT_WEAK) ? 0 : 1;
    putc('{', f);
    kv_u64(f, &tf, "objects", h->object_count);
    kv_u64(f, &tf, "bytes", h->total_size);
    kv_u64(f, &tf, "types", h->type_count);
    kv_u64(f, &tf, "references", h->ref_count);
    kv_u64(f, &tf, "roots", h->root_count);
    kv_u64(f, &tf, "strong_roots", strong);
    kv_u64(f, &tf, "live_objects", s.tree.live_count);
    kv_u64(f, &tf, "live_bytes", s.tree.live_bytes);
    kv_u64(f, &tf, "unreachable_objects", h->object_count - s.tree.live_count);
    kv_u64(f, &tf, "unreachable_bytes", h->total_size - s.tree.live_bytes);
    putc('}', f);
    key(f, &first, "anomalies");
    write_anomalies(f, &h->anomalies);
    key(f, &first, "types");
    write_types(f, h, &s, c);
    key(f, &first, "tree");
    write_tree(f, h, &s);
    key(f, &first, "instances");
    int irc = report_write_instances(f, an, h, &s.tree, s.rows, s.nrows, s.type_retained,
                                     lim->instance_types, lim->instances, c);
    section_free(&s);
    if (irc != 0)
        return EXIT_INPUT;
    key(f, &first, "suspects");
    if (!lim->suspects)
        fputs("null", f);
    else if (write_suspects(f, an, h, c, labels) != 0)
        return EXIT_INPUT;
    if (lim->suspects) { /* the leak rules, as gcheap suspects runs them first */
        key(f, &first, "rules");
        if (report_write_rules(f, an, rd->path, d, h, c) != 0)
            return EXIT_INPUT;
    }
    if (lim->waste) { /* the heap is the dump's own (non-const) heaps[i] */
        key(f, &first, "waste");
        if (report_write_waste(f, rd->path, d, (gch_heap *)h, c) != 0)
            return EXIT_INPUT;
    }
    putc('}', f);
    return 0;
}

static int write_dump(FILE *f, const report_dump *d, const report_limits *lim,
                      const cli_common *c)
{
    int first = 1;
    putc('{', f);
    kv_str(f, &first, "file", d->path);
    kv_str(f, &first, "format", d->dump->format);
    key(f, &first, "sections");
    putc('[', f);
    for (size_t i = 0; i < d->count; i++) {
        if (i)
            putc(',', f);
        if (write_section(f, d, d->an, d->dump, d->heaps[i], lim, c, d->labels) != 0)
            return EXIT_INPUT;
    }
    fputs("]}", f);
    return 0;
}

/* ---------------------------------------------------------- comparison */

/* A type of one dump, by display name, summed over the dump's sections. */
typedef struct named_total {
    char *name;
    uint64_t count, bytes, retained;
    int side; /* 0 base, 1 new */
} named_total;

static int by_name_side(const void *a, const void *b)
{
    const named_total *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    return r ? r : x->side - y->side;
}

typedef struct compare_row {
    const char *name;
    uint64_t count[2], bytes[2], retained[2];
} compare_row;

static uint64_t abs_delta(const uint64_t v[2]) { return v[1] > v[0] ? v[1] - v[0] : v[0] - v[1]; }

/* The rows kept and their first order: the biggest retained change first,
 * then the biggest change of live bytes (a leak's holder, then its parts). */
static int by_change(const void *a, const void *b)
{
    const compare_row *x = a, *y = b;
    uint64_t rx = abs_delta(x->retained), ry = abs_delta(y->retained);
    if (rx != ry)
        return rx > ry ? -1 : 1;
    uint64_t dx = abs_delta(x->bytes), dy = abs_delta(y->bytes);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The live objects of each section of d by type (stable names, as `gcheap
 * diff --live --retained` pairs them), with their retained sizes. */
static int add_totals(named_total *out, size_t *n, const report_dump *d, int side,
                      const cli_common *c)
{
    char buf[8192], sb[8192];
    for (size_t i = 0; i < d->count; i++) {
        const gch_heap *h = d->heaps[i];
        const uint8_t *live;
        const uint64_t *retained;
        if (cli_live(d->an, h, c, &live, NULL, NULL) != 0 ||
            cli_type_retained(d->an, h, c, &retained, NULL) != 0)
            return EXIT_INPUT;
        gch_type_row *hist;
        uint32_t rows;
        gch_error err;
        if (gch_histogram(h, live, &hist, &rows, &err) != GCH_OK)
            die("%s", err.message);
        for (uint32_t r = 0; r < rows; r++) {
            const char *name = cli_type_name(h, hist[r].type, c, buf, sizeof buf);
            const char *stable = typepat_stable(name, sb, sizeof sb);
            out[*n].name = xstrdup(stable ? stable : name);
            out[*n].count = hist[r].count;
            out[*n].bytes = hist[r].bytes;
            out[*n].retained = retained[hist[r].type];
            out[*n].side = side;
            (*n)++;
        }
        gch_free(hist);
    }
    return 0;
}

static int write_compare(FILE *f, const report_dump *base, const report_dump *nw,
                         const report_limits *lim, const cli_common *c)
{
    size_t cap = 0;
    for (int side = 0; side < 2; side++) {
        const report_dump *d = side ? nw : base;
        for (size_t i = 0; i < d->count; i++)
            cap += d->heaps[i]->type_count;
    }
    named_total *all = xcalloc(cap ? cap : 1, sizeof *all);
    size_t n = 0;
    if (add_totals(all, &n, base, 0, c) != 0 || add_totals(all, &n, nw, 1, c) != 0) {
        for (size_t i = 0; i < n; i++)
            free(all[i].name);
        free(all);
        return EXIT_INPUT;
    }
    qsort(all, n, sizeof *all, by_name_side);
    compare_row *rows = xcalloc(n, sizeof *rows);
    size_t nrows = 0;
    for (size_t i = 0; i < n; i++) {
        if (!nrows || strcmp(rows[nrows - 1].name, all[i].name) != 0)
            rows[nrows++].name = all[i].name;
        compare_row *r = &rows[nrows - 1];
        r->count[all[i].side] += all[i].count;
        r->bytes[all[i].side] += all[i].bytes;
        r->retained[all[i].side] += all[i].retained; /* types' retained sizes overlap: as diff */
    }
    qsort(rows, nrows, sizeof *rows, by_change);
    size_t shown = nrows < lim->max_types ? nrows : lim->max_types;
    int first = 1;
    putc('{', f);
    kv_str(f, &first, "base", base->path);
    kv_str(f, &first, "new", nw->path);
    key(f, &first, "name");
    putc('[', f);
    for (size_t i = 0; i < shown; i++) {
        if (i)
            putc(',', f);
        html_json_string(f, rows[i].name);
    }
    putc(']', f);
    static const char *const cols[6] = { "base_count", "new_count", "base_bytes", "new_bytes",
                                         "base_retained", "new_retained" };
    for (int col = 0; col < 6; col++) {
        key(f, &first, cols[col]);
        putc('[', f);
        for (size_t i = 0; i < shown; i++) {
            uint64_t v = col < 2 ? rows[i].count[col] : col < 4 ? rows[i].bytes[col - 2]
                                                                : rows[i].retained[col - 4];
            fprintf(f, i ? ",%" PRIu64 : "%" PRIu64, v);
        }
        putc(']', f);
    }
    kv_u64(f, &first, "omitted_types", nrows - shown);
    putc('}', f);
    for (size_t i = 0; i < n; i++)
        free(all[i].name);
    free(all);
    free(rows);
    return 0;
}

int report_write_json(FILE *f, const report_dump *base, const report_dump *new_dump,
                      const report_series *series, const report_limits *lim,
                      const cli_common *c)
{
    int first = 1;
    putc('{', f);
    kv_u64(f, &first, "schema", 1);
    kv_str(f, &first, "generator", "gcheap " GCHEAP_VERSION);
    key(f, &first, "dumps");
    putc('[', f);
    /* The newer dump first: it is the one the page opens on. */
    if (new_dump) {
        if (write_dump(f, new_dump, lim, c) != 0)
            return EXIT_INPUT;
        putc(',', f);
    }
    if (write_dump(f, base, lim, c) != 0)
        return EXIT_INPUT;
    putc(']', f);
    key(f, &first, "compare");
    if (new_dump) {
        if (write_compare(f, base, new_dump, lim, c) != 0)
            return EXIT_INPUT;
    } else
        fputs("null", f);
    key(f, &first, "leaks");
    if (series && new_dump) {
        if (report_write_leaks(f, series->leaks, series->files, series->nfiles, new_dump->an,
                               new_dump->heaps, c) != 0)
            return EXIT_INPUT;
    } else
        fputs("null", f);
    putc('}', f);
    return 0;
}
