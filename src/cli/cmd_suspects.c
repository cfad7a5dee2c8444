/* gcheap suspects: Eclipse MAT's leak suspects (gch_suspects_find), one row
 * per line of the report. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "run_ctx.h"
#include "gcheap/leaks.h"
#include "gcheap/limits.h"
#include "rules_out.h"

static const char description[] =
    "Leak suspects, as Eclipse MAT's Leak Suspects report finds them: the live\n"
    "objects just below the roots of the dominator tree that retain more than\n"
    "--threshold of the live heap are suspects; the other such objects are grouped\n"
    "by type and a type whose instances retain more than the threshold together is\n"
    "a suspect (a group). From each suspect the report walks down the dominator\n"
    "tree to the accumulation point: to the biggest child while it retains at\n"
    "least 70% of its parent. Biggest suspect first; --top N shows the first N.\n"
    "One row per line of the report; column suspect numbers the suspect, row says\n"
    "what the line is:\n"
    "  suspect       the suspect: id (a group: its biggest instance), count\n"
    "                (instances), bytes retained, percent of the live bytes, detail\n"
    "                'object' or 'group', type\n"
    "  accumulation  the accumulation point: count = dominator-tree steps below\n"
    "                the suspect, bytes and percent retained\n"
    "  path          the shortest path from a root to the accumulation point, root\n"
    "                first: count = step, bytes = the object's own size, detail =\n"
    "                who holds the root (first step: its kind, a static's class\n"
    "                and field, a thread) or the field name where the format\n"
    "                has them; a path from a static or global is preferred to a\n"
    "                thread's stack. A path of more than 12 steps keeps its first\n"
    "                and last 5 in tables, with a row '... N steps elided ...'\n"
    "                between; tsv, csv and json keep up to 1000 steps (else the\n"
    "                first and last 500); json rows add field, root_kind, holder\n"
    "  holds         what the suspect retains, by type (top 10 by bytes): count and\n"
    "                bytes (own sizes) of the retained objects of that type\n"
    "Columns: suspect, row, id, count, bytes, percent, detail, type. Table output\n"
    "starts with one sentence per suspect in MAT's manner (what retains how much,\n"
    "referenced from where, where the memory accumulates) and ends with a note\n"
    "giving the live totals; json sections carry live_count and live_bytes.\n"
    "Leak rules come first (docs/leak-rules.md): objects the runtime itself\n"
    "declared finished (a destroyed Android activity, a removed fragment, a\n"
    "stopped Tomcat web application's class loader, a DOM node removed from its\n"
    "document, ...) that are still reachable, read from field values (HPROF from\n"
    "a file) or DOM states (V8, Chromium). Each finding shows\n"
    "the rule, the objects (count, retained bytes) and the shortest path from a\n"
    "root with every step labelled leaking yes, no or unknown and why, as\n"
    "LeakCanary labels a leak trace; the leak is in the references between the\n"
    "last 'no' and the first 'yes' (marked ~ in tables, \"window\" in json).\n"
    "Tables print them above the suspects; tsv and csv as rows 'finding' (detail:\n"
    "the rule) and 'trace' (detail: leaking yes/no/unknown); json in \"findings\".\n"
    "Rules: destroyed-activity, detached-fragment, detached-view,\n"
    "destroyed-window, quit-message-queue, stopped-classloader, detached-dom\n"
    "(V8: grouped by the object holding the detached trees).\n"
    "PCT is a number with an optional '%' (\"5\", \"2.5%\").\n"
    "Exit status: 0 fine, 1 a suspect retains more than --fail-above, 2 usage or\n"
    "input error.";

typedef struct suspects_state {
    uint64_t threshold;   /* percent x GCH_PERCENT_SCALE */
    uint64_t fail_above;
    int fail_set;
    int fail_on_rule;
    rules_choice rules;
} suspects_state;

static const suspects_state defaults = { 10ull * GCH_PERCENT_SCALE, 0, 0, 0, { 0, NULL } };

static int on_threshold(void *state, const char *command, const char *option, const char *value)
{
    return cli_parse_pct(command, option, value, &((suspects_state *)state)->threshold);
}

static int on_fail_above(void *state, const char *command, const char *option, const char *value)
{
    suspects_state *s = state;
    s->fail_set = 1;
    return cli_parse_pct(command, option, value, &s->fail_above);
}

/* --rules LIST: rule names split at commas, each checked by name. */
static int on_rules(void *state, const char *command, const char *option, const char *value)
{
    suspects_state *s = state;
    (void)option;
    size_t n = 1;
    for (const char *p = value; *p; p++)
        n += *p == ',';
    for (size_t k = 0; s->rules.names && s->rules.names[k]; k++)
        free(s->rules.names[k]);
    free(s->rules.names);
    s->rules.names = xcalloc(n + 1, sizeof *s->rules.names);
    size_t k = 0;
    for (const char *p = value;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char *name = xmalloc(len + 1);
        memcpy(name, p, len);
        name[len] = '\0';
        s->rules.names[k++] = name;
        if (!gch_rule_summary(name))
            return cli_usage_error(command, "unknown rule '%s' (gcheap suspects --help lists them)",
                                   name);
        if (!end)
            break;
        p = end + 1;
    }
    return 0;
}

static void suspects_release(void *state)
{
    suspects_state *s = state;
    for (size_t k = 0; s->rules.names && s->rules.names[k]; k++)
        free(s->rules.names[k]);
    free(s->rules.names);
    s->rules.names = NULL;
}

static const cli_option suspects_options[] = {
    OPT_CALLBACK(0, "threshold", on_threshold, "PCT",
                 "a suspect retains more than PCT of the live heap (default 10%)"),
    OPT_CALLBACK(0, "fail-above", on_fail_above, "PCT",
                 "exit 1 if a suspect retains more than PCT"),
    OPT_CALLBACK(0, "rules", on_rules, "LIST",
                 "run only these leak rules (comma-separated names; docs/leak-rules.md)"),
    OPT_BOOL(0, "no-rules", suspects_state, rules.off, "run no leak rule"),
    OPT_BOOL(0, "fail-on-rule", suspects_state, fail_on_rule,
             "exit 1 if a leak rule finds something"),
    OPT_END
};

static const char *const sort_keys[] = { "retained", NULL };

/* Whether part is more than pct (x GCH_PERCENT_SCALE) of live, exactly. */
static int above(uint64_t part, uint64_t live, uint64_t pct)
{
    return (long double)part * 100.0L * GCH_PERCENT_SCALE > (long double)pct * (long double)live;
}

typedef struct row_ctx {
    report *rep;
    const gch_heap *h;
    const cli_common *c;
    uint64_t number;
} row_ctx;

static void row(row_ctx *x, const char *what, int has_id, uint32_t o, uint64_t count,
                uint64_t bytes, const char *pct, const char *detail, uint32_t type)
{
    char tb[8192];
    report_cell_u64(x->rep, x->number);
    report_cell_text(x->rep, what);
    if (has_id)
        report_cell_id(x->rep, x->h->object_id[o], x->h->id_radix);
    else
        report_cell_text(x->rep, "");
    report_cell_u64(x->rep, count);
    report_cell_u64(x->rep, bytes);
    report_cell_text(x->rep, pct);
    report_cell_text(x->rep, detail);
    report_cell_text(x->rep, cli_type_name(x->h, type, x->c, tb, sizeof tb));
}

/* Json's per-step keys (docs/schemas.md), on every row so the schema is
 * stable: null except on path rows; field names the reference into the step
 * (null on the root step or where the format names none), root_kind and
 * holder describe the root (first step only; holder null when the format
 * names no holder). */
static void step_keys(row_ctx *x, const char *field, const char *root_kind, const char *holder)
{
    report_row_json_text(x->rep, "field", field && *field ? field : NULL);
    report_row_json_text(x->rep, "root_kind", root_kind);
    report_row_json_text(x->rep, "holder", holder && *holder ? holder : NULL);
}

/* Long paths (a suspect at the end of a linked list): tables keep the first
 * and last TABLE_PATH_KEEP steps with one row saying how many are elided
 * between; tsv, csv and json keep every step of a path of up to
 * DATA_PATH_MAX steps, else the first and last DATA_PATH_MAX / 2 (the
 * count column, the step number, shows the gap). docs/schemas.md. */
#define TABLE_PATH_KEEP 5
#define DATA_PATH_MAX 1000

/* The row between the kept steps of a long path (tables only). */
static void elided_row(row_ctx *x, size_t elided)
{
    char text[96];
    snprintf(text, sizeof text, "... %zu steps elided ...", elided);
    report_cell_u64(x->rep, x->number);
    report_cell_text(x->rep, "path");
    report_cell_text(x->rep, "");
    report_cell_text(x->rep, "...");
    report_cell_text(x->rep, "");
    report_cell_text(x->rep, "");
    report_cell_text(x->rep, text);
    report_cell_text(x->rep, "");
}

static void suspect_rows(row_ctx *x, const gch_suspects *s, const gch_suspect *g)
{
    const gch_heap *h = x->h;
    char pb[32];
    step_keys(x, NULL, NULL, NULL);
    row(x, "suspect", 1, g->object, g->instances, g->retained,
        format_share(g->retained, s->live_bytes, pb, sizeof pb), g->group ? "group" : "object", g->type);
    step_keys(x, NULL, NULL, NULL);
    row(x, "accumulation", 1, g->accumulation, g->accumulation_depth, g->accumulation_retained,
        format_share(g->accumulation_retained, s->live_bytes, pb, sizeof pb), "",
        h->object_type[g->accumulation]);
    size_t keep = x->c->format == FMT_TABLE ? TABLE_PATH_KEEP : DATA_PATH_MAX / 2;
    int cut = g->path_len > (x->c->format == FMT_TABLE ? 2 * TABLE_PATH_KEEP + 2 : DATA_PATH_MAX);
    for (size_t i = 0; i < g->path_len; i++) {
        if (cut && i == keep) {
            if (x->c->format == FMT_TABLE)
                elided_row(x, g->path_len - 2 * keep);
            i = g->path_len - keep;
        }
        uint32_t o = s->path[g->path_start + i];
        const char *detail = "";
        char hb[2100], nb[2100];
        if (i == 0 && g->root_record != GCH_NONE) {
            detail = cli_root_holder_text(h, g->root_record, x->c, hb, sizeof hb);
            step_keys(x, NULL, gch_root_kind_name(h->root_kind[g->root_record]),
                      cli_root_holder_name(h, g->root_record, x->c, nb, sizeof nb));
        } else if (i > 0) {
            detail = gch_heap_string(h, gch_ref_label(h, s->path[g->path_start + i - 1], o));
            step_keys(x, detail, NULL, NULL);
        } else {
            step_keys(x, NULL, NULL, NULL);
        }
        row(x, "path", 1, o, i, gch_object_size(h, o), "", detail, h->object_type[o]);
    }
    for (size_t i = 0; i < g->holds_count; i++) {
        const gch_type_row *t = &s->holds[g->holds_start + i];
        step_keys(x, NULL, NULL, NULL);
        row(x, "holds", 0, 0, t->count, t->bytes, format_share(t->bytes, s->live_bytes, pb, sizeof pb),
            "", t->type);
    }
}

/* "one instance of T" / "the 3 instances of T". */
static void instances_text(cli_out *o, uint64_t n, const char *type)
{
    if (n == 1)
        out_printf(o, "one instance of ");
    else
        out_printf(o, "the %" PRIu64 " instances of ", n);
    out_text(o, ESC_TABLE, type);
}

/* The references from the path's root to the accumulation point by field
 * name, the first 3 and last 2 when longer (".table.[] ... .next.value"). */
static void path_fields(cli_out *o, const gch_heap *h, const gch_suspects *s, const gch_suspect *g)
{
    size_t n = g->path_len, shown = 0;
    const uint32_t *path = s->path + g->path_start;
    for (size_t i = 1; i < n; i++) /* a format without field names: no chain at all */
        if (!*gch_heap_string(h, gch_ref_label(h, path[i - 1], path[i])))
            return;
    for (size_t i = 1; i < n; i++) {
        if (n > 6 && i == 4) {
            out_printf(o, " ... (%zu more)", n - 6);
            i = n - 3;
            continue;
        }
        const uint32_t *p = s->path + g->path_start;
        const char *f = gch_heap_string(h, gch_ref_label(h, p[i - 1], p[i]));
        out_printf(o, "%s", shown++ ? "" : " through ");
        out_printf(o, ".");
        out_text(o, ESC_TABLE, f);
    }
}

/* The suspect in one sentence, in Eclipse MAT's manner: what it is, what it
 * retains, who holds it (the root's class and field, or thread) and where
 * the memory accumulates. Table form only. */
static void suspect_sentence(cli_out *o, const gch_heap *h, const cli_common *c,
                             const gch_suspects *s, const gch_suspect *g, uint64_t number)
{
    char tb[8192], bb[64], pb[32], hb[2100];
    out_printf(o, "suspect %" PRIu64 ": ", number);
    instances_text(o, g->instances, cli_type_name(h, g->type, c, tb, sizeof tb));
    format_bytes_text(g->retained, c->human, bb, sizeof bb);
    out_printf(o, " retain%s %s (%s%%)", g->instances == 1 ? "s" : "", bb,
               format_share(g->retained, s->live_bytes, pb, sizeof pb));
    if (g->root_record != GCH_NONE) {
        out_printf(o, g->instances == 1 ? ", referenced from " : ", the biggest referenced from ");
        out_text(o, ESC_TABLE, cli_root_holder_text(h, g->root_record, c, hb, sizeof hb));
        path_fields(o, h, s, g);
    }
    if (g->accumulation != g->object) {
        out_printf(o, "; the memory accumulates in one instance of ");
        out_text(o, ESC_TABLE, cli_type_name(h, h->object_type[g->accumulation], c, tb, sizeof tb));
        format_bytes_text(g->accumulation_retained, c->human, bb, sizeof bb);
        out_printf(o, " (%s)", bb);
    }
    out_printf(o, ".\n");
}

static int suspects_heap(cli_out *o, report *rep, gch_analysis *an, const gch_heap *h,
                         const cli_common *c, const suspects_state *st, const rules_result *rr,
                         int *failed)
{
    gch_suspects_options opt = GCH_SUSPECTS_OPTIONS_INIT;
    opt.threshold = (double)st->threshold / GCH_PERCENT_SCALE;
    opt.include_weak = c->include_weak;
    opt.threads = cli_threads(c);
    gch_suspects s;
    gch_error err;
    cli_phase(c, "finding leak suspects");
    gch_status rc = gch_suspects_find_in(an, h, &opt, &s, &err);
    cli_phase_end();
    if (rc != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    report_begin_section(rep, h->name);
    if (c->format == FMT_TSV || c->format == FMT_CSV)
        rules_print_rows(rep, h, c, rr);
    row_ctx x = { rep, h, c, 0 };
    size_t shown = c->top < s.count ? (size_t)c->top : s.count;
    for (size_t k = 0; c->format == FMT_TABLE && k < shown; k++)
        suspect_sentence(o, h, c, &s, &s.items[k], rr->count + k + 1);
    for (size_t k = 0; k < shown; k++) {
        x.number = rr->count + k + 1;
        suspect_rows(&x, &s, &s.items[k]);
    }
    char pb[32], tb[8192];
    for (size_t k = 0; k < s.count && st->fail_set; k++) {
        const gch_suspect *g = &s.items[k];
        if (!above(g->retained, s.live_bytes, st->fail_above))
            continue;
        if (!c->quiet)
            fprintf(cli_ctx_get()->err, "gcheap: suspect %zu (%s%s) retains %s%% of the live heap, more than "
                            "--fail-above\n",
                    k + 1, g->group ? "instances of " : "",
                    cli_type_name(h, g->type, c, tb, sizeof tb),
                    format_share(g->retained, s.live_bytes, pb, sizeof pb));
        *failed = 1;
    }
    char hb[64];
    format_bytes_text(s.live_bytes, c->human, hb, sizeof hb);
    report_note(rep, "(%" PRIu64 " live object%s, %s; %zu suspect%s above %g%%, %zu shown)",
                s.live_count, s.live_count == 1 ? "" : "s", hb, s.count, s.count == 1 ? "" : "s",
                (double)st->threshold / GCH_PERCENT_SCALE, shown);
    report_section_live(rep, s.live_count, s.live_bytes);
    report_end_section(rep);
    gch_suspects_free(&s);
    return 0;
}

static int suspects_report(cli_run *run)
{
    static const col_spec cols[] = {
        { "suspect", COL_COUNT }, { "row", COL_TEXT },    { "id", COL_ID },
        { "count", COL_COUNT },   { "bytes", COL_BYTES }, { "percent", COL_TEXT },
        { "detail", COL_TEXT },   { "type", COL_TEXT }
    };
    const cli_input *in = &run->in[0];
    const suspects_state *st = run->state;
    const cli_common *c = run->c;
    rules_result *rr = xcalloc(in->count ? in->count : 1, sizeof *rr);
    int rc = 0, failed = 0;
    size_t found = 0;
    for (size_t i = 0; i < in->count && rc == 0; i++) {
        rc = rules_run(in->an, in->path, in->dump, in->heaps[i], c, &st->rules, &rr[i]);
        found += rr[i].count;
    }
    if (rc == 0 && found == 0 && st->fail_on_rule && !c->quiet)
        for (size_t i = 0; i < in->count; i++)
            if (rr[i].why_none)
                fprintf(cli_ctx_get()->err, "gcheap: note: %s: no leak rule could run: %s\n",
                        cli_display_path(in->path), rr[i].why_none);
    json_writer *w = rc == 0 ? out_json(run->out) : NULL;
    if (w) {
        json_begin_array(w, "findings");
        for (size_t i = 0; i < in->count; i++)
            rules_print_json(w, in->heaps[i], c, &rr[i]);
        json_end_array(w);
    }
    for (size_t i = 0; rc == 0 && c->format == FMT_TABLE && i < in->count; i++)
        rules_print_text(run->out, in->heaps[i], c, &rr[i]);
    report *rep = rc == 0 ? report_new(run->out, REPORT_COLUMNS(cols), in->count > 1) : NULL;
    for (size_t i = 0; i < in->count && rc == 0; i++)
        rc = suspects_heap(run->out, rep, in->an, in->heaps[i], c, st, &rr[i], &failed);
    if (rc == 0 && found > 0 && st->fail_on_rule) {
        if (!c->quiet)
            fprintf(cli_ctx_get()->err, "gcheap: %zu leak rule finding%s (--fail-on-rule)\n", found,
                    found == 1 ? "" : "s");
        failed = 1;
    }
    for (size_t i = 0; i < in->count; i++)
        rules_result_free(&rr[i]);
    free(rr);
    return rc ? rc : failed ? EXIT_LIMIT : 0;
}

/* References always; with the leak rules on, where field values lie too. */
static int suspects_needs(const void *state)
{
    const suspects_state *s = state;
    return CLI_LOAD_REFS | (s->rules.off ? 0 : CLI_LOAD_PAYLOADS | CLI_LOAD_RULE_FIELDS);
}

const cli_spec suspects_command = {
    .name = "suspects", .summary = "leak suspects: what retains most of the heap, and where it accumulates",
    .usage = "usage: gcheap suspects [OPTIONS] DUMP", .description = description,
    .options = suspects_options, .state_size = sizeof(suspects_state), .defaults = &defaults,
    .sort_keys = sort_keys, .min_args = 1, .max_args = 1, .flags = CLI_NEEDS_REFS | CLI_NEEDS_LABELS | CLI_REFS_LATER,
    .needs_refs = suspects_needs, .report = suspects_report, .release = suspects_release,
};
