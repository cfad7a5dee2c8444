/* gcheap refs: what an object references and what references it (SOS !do,
 * MAT's outgoing/incoming references, DevTools' Containment and Retainers):
 * one row per reference, direction out or in. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "why.h"

typedef struct refs_state {
    int out_only, in_only;
    const char **ids;   /* the IDs asked about: arguments, with '-' expanded */
    size_t nids, cap;
    char *stdin_text;   /* owns the ids read from standard input */
    uint32_t *found;    /* nsections x nids */
} refs_state;

static const cli_option refs_options[] = {
    OPT_BOOL(0, "out", refs_state, out_only, "only outgoing references"),
    OPT_BOOL(0, "in", refs_state, in_only, "only incoming references"),
    OPT_END
};

static const char description[] =
    "The references of each ID, one row per reference: direction out (the\n"
    "object's fields, in the dump's order) and in (every object holding a\n"
    "reference to it, live or not). An ID of '-' reads IDs from standard\n"
    "input, one or more per line (a header line 'id' is skipped), so\n"
    "  gcheap objects --type X --format tsv DUMP | cut -f1 | gcheap refs DUMP -\n"
    "works. --out / --in: one direction only. --top N: at most N rows per ID\n"
    "and direction (default 20 in table output, all otherwise).\n"
    "Columns: object (the ID asked about), direction, field (the\n"
    "referring field where the format names it: HPROF field names, array\n"
    "indexes \"[3]\", V8 edge names, Dart fields; empty otherwise), id (the target for out, the referrer for in), size, live\n"
    "(whether a strong root reaches that object), type, domain. Table output ends each\n"
    "ID with its counts; json gives per section \"counts\": [{\"object\", \"out\",\n"
    "\"in\"}] (every reference, also those beyond --top).";

static void add_id(refs_state *s, const char *id)
{
    s->ids = xgrow(s->ids, &s->cap, s->nids + 1, sizeof *s->ids);
    s->ids[s->nids++] = id;
}

/* Reads the whole of standard input and adds its whitespace-separated words
 * as IDs (the header word "id" of a tsv column skipped). */
static int read_stdin_ids(refs_state *s)
{
    size_t len = 0, cap = 0;
    char *text = NULL;
    for (;;) {
        text = xgrow(text, &cap, len + 65536 + 1, 1);
        size_t n = fread(text + len, 1, 65536, stdin);
        len += n;
        if (n == 0)
            break;
    }
    if (ferror(stdin)) {
        free(text);
        cli_error("refs: error reading IDs from standard input");
        return EXIT_INPUT;
    }
    text[len] = '\0';
    s->stdin_text = text;
    char *p = text;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (!*p)
            break;
        char *word = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
            p++;
        if (*p)
            *p++ = '\0';
        if (strcmp(word, "id") != 0)
            add_id(s, word);
    }
    return 0;
}

/* IDs gathered and their syntax checked before the dump is loaded. */
static int refs_check(cli_run *run)
{
    refs_state *s = run->state;
    if (run->nargs < 2)
        return cli_usage_error("refs", "give at least one object ID ('-' reads them from standard input)");
    if (s->out_only && s->in_only)
        return cli_usage_error("refs", "--out and --in exclude each other");
    int from_stdin = 0;
    for (int i = 1; i < run->nargs; i++) {
        if (strcmp(run->args[i], "-") == 0) {
            if (strcmp(run->args[0], "-") == 0)
                return cli_usage_error("refs", "the dump and the IDs cannot both come from standard input");
            if (from_stdin++)
                continue;
            if (read_stdin_ids(s) != 0)
                return EXIT_INPUT;
            continue;
        }
        add_id(s, run->args[i]);
    }
    if (s->nids == 0)
        return cli_usage_error("refs", "no object ID on standard input");
    for (size_t i = 0; i < s->nids; i++) {
        uint64_t v;
        if (cli_parse_id(s->ids[i], 16, &v) != 0) {
            return cli_bad_id("refs", s->ids[i]);
        }
    }
    return 0;
}

static int refs_prepare(cli_run *run)
{
    refs_state *s = run->state;
    const cli_input *in = &run->in[0];
    return why_resolve_ids("refs", in, s->ids, s->nids, &s->found);
}

/* The rows of one ID and direction, gathered before they are printed: the
 * live column asks the analysis about these objects only (from an index,
 * without a mask of every object). */
typedef struct ref_rows {
    uint32_t *label, *other;
    uint8_t *live;
    size_t n, cap;
} ref_rows;

typedef struct refs_ctx {
    report *rep;
    gch_analysis *an;
    const gch_heap *h;
    const cli_common *c;
    uint64_t top;
    int labels;   /* field names loaded for this command (not only kept by the session) */
    ref_rows rows;
} refs_ctx;

static void add_row(refs_ctx *x, uint32_t label, uint32_t other)
{
    ref_rows *r = &x->rows;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->label = xrealloc_array(r->label, r->cap, sizeof *r->label);
        r->other = xrealloc_array(r->other, r->cap, sizeof *r->other);
        r->live = xrealloc_array(r->live, r->cap, sizeof *r->live);
    }
    r->label[r->n] = label;
    r->other[r->n++] = other;
}

static void free_rows(ref_rows *r)
{
    free(r->label);
    free(r->other);
    free(r->live);
}

/* Prints the gathered rows of object and direction; nonzero (the error
 * printed) when the live column could not be had. */
static int print_rows(refs_ctx *x, uint32_t object, const char *direction)
{
    const gch_heap *h = x->h;
    ref_rows *r = &x->rows;
    gch_error err;
    if (gch_analysis_live_of(x->an, h, x->c->include_weak, r->other, r->n, r->live, &err) !=
        GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    char tb[8192];
    for (size_t i = 0; i < r->n; i++) {
        uint32_t other = r->other[i];
        report_cell_id(x->rep, h->object_id[object], h->id_radix);
        report_cell_text(x->rep, direction);
        report_cell_text(x->rep, r->label[i] == GCH_NONE ? "" : gch_heap_string(h, r->label[i]));
        report_cell_id(x->rep, h->object_id[other], h->id_radix);
        report_cell_u64(x->rep, gch_object_size(h, other));
        report_cell_bool(x->rep, r->live[i]);
        report_cell_text(x->rep, cli_type_name(h, h->object_type[other], x->c, tb, sizeof tb));
    }
    r->n = 0;
    return 0;
}

/* refs does not ask for field names (loading them costs): a dump that a
 * session keeps with them for other commands must not show them here either,
 * so that refs answers alike in a session and alone. */
static uint32_t label_of(const refs_ctx *x, uint32_t edge)
{
    return x->labels && x->h->out_label ? x->h->out_label[edge] : GCH_NONE;
}

/* The out rows of object o into x->rows; returns the number of references. */
static uint64_t out_rows(refs_ctx *x, uint32_t o)
{
    const gch_heap *h = x->h;
    uint64_t n = h->out_start[o + 1] - h->out_start[o];
    uint64_t shown = 0;
    for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1] && shown < x->top; e++, shown++)
        add_row(x, label_of(x, e), h->out_target[e]);
    return n;
}

/* The in rows of object o into x->rows: every reference to it, each
 * referrer once with each of its fields that holds o. Returns the number
 * of references. */
static uint64_t in_rows(refs_ctx *x, uint32_t o)
{
    const gch_heap *h = x->h;
    uint64_t n = 0;
    uint32_t prev = GCH_NONE;
    for (uint32_t k = h->in_start[o]; k < h->in_start[o + 1]; k++) {
        uint32_t src = h->in_source[k];
        if (src == prev)
            continue; /* a referrer with several references to o: listed once per edge below */
        prev = src;
        for (uint32_t e = h->out_start[src]; e < h->out_start[src + 1]; e++) {
            if (h->out_target[e] != o)
                continue;
            if (n < x->top)
                add_row(x, label_of(x, e), src);
            n++;
        }
    }
    return n;
}

static int refs_report(cli_run *run)
{
    refs_state *s = run->state;
    const cli_input *in = &run->in[0];
    static const col_spec cols[] = { { "object", COL_ID }, { "direction", COL_TEXT },
                                     { "field", COL_TEXT }, { "id", COL_ID }, { "size", COL_BYTES },
                                     { "live", COL_TEXT }, { "type", COL_TEXT } };
    report *rep = report_new(run->out, REPORT_COLUMNS(cols), in->count > 1);
    for (size_t k = 0; k < in->count; k++) {
        gch_heap *h = in->heaps[k];
        const uint32_t *f = s->found + k * s->nids;
        size_t used = 0;
        for (size_t i = 0; i < s->nids; i++)
            used += f[i] != GCH_NONE;
        if (!used)
            continue;
        if (cli_reverse(in->an, h) != 0)
            return EXIT_INPUT;
        refs_ctx x = { rep, in->an, h, run->c, why_top(run->c, 20),
                       (run->load & CLI_LOAD_LABELS) != 0, { NULL, NULL, NULL, 0, 0 } };
        report_begin_section(rep, h->name);
        json_writer *w = report_section_json(rep);
        if (w)
            json_begin_array(w, "counts");
        for (size_t i = 0; i < s->nids; i++) {
            uint32_t o = f[i];
            if (o == GCH_NONE)
                continue;
            uint64_t nout = 0, nin = 0;
            int rc = 0;
            if (!s->in_only) {
                nout = out_rows(&x, o);
                rc = print_rows(&x, o, "out");
            }
            if (!s->out_only && rc == 0) {
                nin = in_rows(&x, o);
                rc = print_rows(&x, o, "in");
            }
            if (rc != 0) {
                free_rows(&x.rows);
                return rc;
            }
            char ib[32], tb[8192];
            format_id(h->object_id[o], h->id_radix, ib, sizeof ib);
            strbuf shown = STRBUF_INIT; /* notes are printed as given: escape here */
            sb_escape(&shown, ESC_TABLE, cli_type_name(h, h->object_type[o], run->c, tb, sizeof tb));
            report_note(rep, "%s %s: %" PRIu64 " outgoing%s, %" PRIu64 " incoming%s", ib, sb_str(&shown), nout,
                        nout > x.top ? " (more not shown)" : "", nin,
                        nin > x.top ? " (more not shown)" : "");
            sb_free(&shown);
            if (w) {
                json_begin_object(w, NULL);
                json_string(w, "object", ib);
                json_u64(w, "out", nout);
                json_u64(w, "in", nin);
                json_end_object(w);
            }
        }
        if (w)
            json_end_array(w);
        report_end_section(rep);
        free_rows(&x.rows);
    }
    return 0;
}

static void refs_release(void *state)
{
    refs_state *s = state;
    free(s->ids);
    free(s->stdin_text);
    free(s->found);
}

const cli_spec refs_command = {
    .name = "refs", .summary = "what an object references and what references it",
    .usage = "usage: gcheap refs [OPTIONS] DUMP ID...   ('-' reads IDs from standard input)",
    .description = description, .options = refs_options, .state_size = sizeof(refs_state),
    .min_args = 1, .max_args = -1, .flags = CLI_NEEDS_REFS | CLI_NEEDS_LABELS | CLI_NO_TYPE_TOTALS | CLI_NEEDS_REVERSE, .check = refs_check,
    .prepare = refs_prepare, .report = refs_report, .release = refs_release,
};
