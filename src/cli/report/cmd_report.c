/* gcheap report: one self-contained HTML file (inline CSS, JavaScript and
 * SVG; no network request) with the overview, the dominator tree as a
 * zoomable icicle chart, the type histogram with retained sizes and, for two
 * dumps, the growth by type. The page is the template in src/cli/report
 * (embedded at build time by cmake/embed.cmake) with the data as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "platform.h"
#include "run_ctx.h"
#include "html_escape.h"
#include "report_data.h"

extern const unsigned char report_template_html[], report_template_css[], report_template_js[];
extern const size_t report_template_html_len, report_template_css_len, report_template_js_len;

typedef struct report_state {
    const char *output;
    uint64_t nodes, types;
    int suspects;
    int waste;
} report_state;

static const report_state defaults = { NULL, 20000, 20000, 0, 0 };

static const cli_option report_options[] = {
    OPT_STRING('o', "output", report_state, output, "FILE",
               "write the HTML to FILE (default: standard output)"),
    OPT_UINT(0, "nodes", report_state, nodes, "N", 1, 10000000,
             "objects kept in each dominator-tree chart (default 20000; the rest merged)"),
    OPT_UINT(0, "types", report_state, types, "N", 1, 10000000,
             "rows of each type table and of the comparison (default 20000)"),
    OPT_BOOL(0, "suspects", report_state, suspects,
             "add the leak suspects and leak-rule findings (as gcheap suspects; from the same dominator tree)"),
    OPT_BOOL(0, "waste", report_state, waste,
             "add the wasted memory (as gcheap waste --threshold 0; HPROF, V8, Ruby, Dart)"),
    OPT_END
};

static const char usage_text[] = "usage: gcheap report [OPTIONS] DUMP [-o FILE.html]\n"
                                 "       gcheap report [OPTIONS] BASE NEW [-o FILE.html]";
static const char description[] =
    "One self-contained HTML file (CSS, JavaScript and SVG inline; it makes no\n"
    "network request and opens from file://) for people to look at:\n"
    "- overview: format, totals, live and unreachable, anomalies, metadata;\n"
    "- the dominator tree as an icicle chart by retained size: click a node to\n"
    "  zoom into its subtree, hover for id, type, size and retained, and go back\n"
    "  out with the breadcrumb. The --nodes objects that retain the most are kept;\n"
    "  under each, the smaller children are merged into one \"(N smaller objects)\";\n"
    "- the type histogram with retained sizes, sortable and filterable;\n"
    "- with two dumps, the growth by type from BASE to NEW (live objects and\n"
    "  retained sizes, types paired by stable name as `gcheap diff --live\n"
    "  --retained`; the biggest retained growth first), with bars, and the new\n"
    "  and gone types;\n"
    "  the page opens on it, with a tab for each dump;\n"
    "- with --suspects, the leak suspects of each section (Eclipse MAT's rule, as\n"
    "  `gcheap suspects`): what they retain, their accumulation point, the path\n"
    "  from a GC root. It computes the dominator tree once more, so it is not\n"
    "  the default. Also a section per leak rule that found something (HPROF\n"
    "  read from a file; docs/leak-rules.md): the objects and what they retain,\n"
    "  the trace from a GC root with each step's leaking label and reason, the\n"
    "  suspect window marked;\n"
    "- with --waste (HPROF read from a file; V8, Ruby, Dart), the wasted memory of each section:\n"
    "  the rows of `gcheap waste --threshold 0` (duplicate strings and arrays,\n"
    "  empty and under-filled collections, ...), the 100 largest.";

/* Writes the template up to the next @NAME@ marker; returns the marker's
 * name (without the @s) in name[], or "" at the end. */
static const char *copy_to_marker(FILE *f, const char *t, char *name, size_t cap)
{
    for (;;) {
        const char *at = strchr(t, '@');
        if (!at) {
            fputs(t, f);
            name[0] = '\0';
            return t + strlen(t);
        }
        size_t n = strspn(at + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
        if (n && n < cap && at[1 + n] == '@') {
            fwrite(t, 1, (size_t)(at - t), f);
            memcpy(name, at + 1, n);
            name[n] = '\0';
            return at + n + 2;
        }
        fwrite(t, 1, (size_t)(at - t) + 1, f);
        t = at + 1;
    }
}

static int write_page(FILE *f, const report_dump *base, const report_dump *nw,
                      const report_limits *lim, const cli_common *c)
{
    const char *t = (const char *)report_template_html;
    char name[32];
    for (;;) {
        t = copy_to_marker(f, t, name, sizeof name);
        if (!name[0])
            return 0;
        if (strcmp(name, "TITLE") == 0) {
            html_text(f, nw ? nw->path : base->path);
            if (nw) {
                fputs(" vs ", f);
                html_text(f, base->path);
            }
        } else if (strcmp(name, "CSS") == 0) {
            fwrite(report_template_css, 1, report_template_css_len, f);
        } else if (strcmp(name, "JS") == 0) {
            fwrite(report_template_js, 1, report_template_js_len, f);
        } else if (strcmp(name, "DATA") == 0) {
            if (report_write_json(f, base, nw, lim, c) != 0)
                return EXIT_INPUT;
        }
    }
}

/* References always; with --waste, contents too; with --suspects, what the
 * leak rules read, as for gcheap suspects: where field values lie, and the
 * labels (a class's superclass is its <super> reference; holders' names). */
static int report_needs_refs(const void *state)
{
    const report_state *s = state;
    return CLI_LOAD_REFS | (s->waste ? CLI_LOAD_PAYLOADS | CLI_LOAD_FIELDS : 0) |
           (s->suspects ? CLI_LOAD_PAYLOADS | CLI_LOAD_RULE_FIELDS | CLI_LOAD_LABELS : 0);
}

static int report_check(cli_run *run)
{
    const report_state *s = run->state;
    if (run->c->format != FMT_TABLE)
        return cli_usage_error("report", "--format does not apply: the report is HTML");
    for (int i = 0; i < run->nargs; i++)
        if (s->output && strcmp(s->output, run->args[i]) == 0)
            return cli_usage_error("report", "the output '%s' is an input dump", s->output);
    return 0;
}

static int report_run(cli_run *run)
{
    const report_state *s = run->state;
    report_dump d[2];
    for (int i = 0; i < run->ninputs; i++) {
        d[i].path = cli_display_path(run->in[i].path);
        d[i].dump = run->in[i].dump;
        d[i].an = run->in[i].an;
        d[i].labels = (run->load & CLI_LOAD_LABELS) != 0;
        d[i].heaps = run->in[i].heaps;
        d[i].count = run->in[i].count;
    }
    FILE *out = cli_ctx_get()->out;
    FILE *f = out;
    plat_out *o = NULL;
    const char *why = NULL;
    if (s->output && !(o = plat_out_open(s->output, &f, &why))) {
        cli_error("cannot write %s: %s", s->output, why);
        return EXIT_INPUT;
    }
    static _Thread_local char buf[1 << 16];
    if (f != out || f == stdout) /* a memory stream keeps its own buffer */
        setvbuf(f, buf, _IOFBF, sizeof buf);
    report_limits lim = { (uint32_t)s->nodes, (uint32_t)s->types, s->suspects, s->waste };
    int rc = write_page(f, &d[0], run->ninputs == 2 ? &d[1] : NULL, &lim, run->c);
    if (o && rc) {
        plat_out_discard(o); /* no half page left behind; only our temporary file goes */
    } else if (o) {
        if (plat_out_commit(o, &why) != 0) {
            cli_error("cannot write %s: %s", s->output, why);
            rc = EXIT_INPUT;
        }
    } else if (fflush(f) != 0 || ferror(f)) {
        cli_error("cannot write %s", "the report to standard output");
        rc = EXIT_INPUT;
    }
    return rc;
}

const cli_spec report_command = {
    .name = "report",
    .summary = "one self-contained HTML report: overview, dominator tree chart, types, growth",
    .usage = usage_text, .description = description,
    .options = report_options, .state_size = sizeof(report_state), .defaults = &defaults,
    .min_args = 1, .max_args = 2, .too_many = "DUMP, or BASE NEW",
    .flags = CLI_NEEDS_REFS | CLI_TWO_DUMPS,
    .needs_refs = report_needs_refs, .check = report_check, .report = report_run,
};
