/* gcheap report: one self-contained HTML file (inline CSS, JavaScript and
 * SVG; no network request) with the overview, the dominator tree as a
 * zoomable icicle chart, the type histogram with retained sizes and, for two
 * dumps, the growth by type. The page is the template in src/cli/report
 * (embedded at build time by cmake/embed.cmake) with the data as JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "html_escape.h"
#include "report_data.h"

extern const unsigned char report_template_html[], report_template_css[], report_template_js[];
extern const size_t report_template_html_len, report_template_css_len, report_template_js_len;

enum { OPT_OUTPUT = 1, OPT_NODES, OPT_TYPES };

static const cli_option report_options[] = {
    { "output", 'o', 1, OPT_OUTPUT, "FILE", "write the HTML to FILE (default: standard output)" },
    { "nodes", 0, 1, OPT_NODES, "N",
      "objects kept in each dominator-tree chart (default 20000; the rest merged)" },
    { "types", 0, 1, OPT_TYPES, "N", "rows of each type table (default 20000)" },
    { NULL, 0, 0, 0, NULL, NULL }
};

static const char usage_text[] = "usage: gcheap report [OPTIONS] DUMP [-o FILE.html]\n"
                                 "       gcheap report [OPTIONS] BASE NEW [-o FILE.html]";
static const char description[] =
    "One self-contained HTML file (CSS, JavaScript and SVG inline; it makes no\n"
    "network request and opens from file://) for people to look at:\n"
    "- overview: format, metadata, totals, live and unreachable, anomalies;\n"
    "- the dominator tree as an icicle chart by retained size: click a node to\n"
    "  zoom into its subtree, hover for id, type, size and retained, and go back\n"
    "  out with the breadcrumb. The --nodes objects that retain the most are kept;\n"
    "  under each, the smaller children are merged into one \"(N smaller objects)\";\n"
    "- the type histogram with retained sizes, sortable and filterable;\n"
    "- with two dumps, the growth by type from BASE to NEW (all objects, types\n"
    "  matched by name, as `gcheap diff`), with bars, and the new and gone types.";

typedef struct report_state {
    const char *output;
    report_limits lim;
} report_state;

static int on_option(void *state, int id, const char *value)
{
    report_state *s = state;
    uint64_t v;
    switch (id) {
    case OPT_OUTPUT: s->output = value; return 0;
    case OPT_NODES:
    case OPT_TYPES:
        if (cli_parse_count(value, &v) != 0 || v == 0 || v > 10000000)
            return cli_usage_error("report", "--%s needs a count from 1 to 10000000, not '%s'",
                                   id == OPT_NODES ? "nodes" : "types", value);
        if (id == OPT_NODES)
            s->lim.max_nodes = (uint32_t)v;
        else
            s->lim.max_types = (uint32_t)v;
        return 0;
    }
    return 0;
}

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
                      const report_state *s, const cli_common *c)
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
            if (report_write_json(f, base, nw, &s->lim, c) != 0)
                return EXIT_INPUT;
        }
    }
}

static const cli_spec report_spec = {
    "report", usage_text, description, report_options, on_option, 1, 2,
    "too many arguments (expected DUMP, or BASE NEW)", 0
};

int cmd_report(int argc, char **argv)
{
    report_state s = { NULL, { 20000, 20000 } };
    cli_common c;
    cli_args a;
    int rc = cli_start(&report_spec, &s, argc, argv, &c, &a);
    if (rc)
        return rc == CLI_HELP_SHOWN ? EXIT_FINE : rc;
    if (c.format_set) {
        rc = cli_usage_error("report", "--format does not apply: the report is HTML");
        goto out_args;
    }
    for (int i = 0; i < a.count; i++)
        if (s.output && strcmp(s.output, a.positional[i]) == 0) {
            rc = cli_usage_error("report", "the output '%s' is an input dump", s.output);
            goto out_args;
        }
    cli_input in[2];
    int opened = 0;
    for (; opened < a.count; opened++) {
        if ((rc = cli_open("report", a.positional[opened], &c, 1, &in[opened])) != 0)
            goto out_inputs;
        cli_warn_input(&in[opened], &c);
    }
    report_dump d[2];
    for (int i = 0; i < a.count; i++) {
        d[i].path = cli_display_path(in[i].path);
        d[i].dump = in[i].dump;
        d[i].heaps = in[i].heaps;
        d[i].count = in[i].count;
    }
    FILE *f = stdout;
    if (s.output && !(f = fopen(s.output, "w"))) {
        cli_error("cannot write %s", s.output);
        rc = EXIT_INPUT;
        goto out_inputs;
    }
    static char buf[1 << 16];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    rc = write_page(f, &d[0], a.count == 2 ? &d[1] : NULL, &s, &c);
    int werr = fflush(f) != 0 || ferror(f);
    if (f != stdout)
        werr |= fclose(f) != 0;
    if (!rc && werr) {
        cli_error("cannot write %s", s.output ? s.output : "the report to standard output");
        rc = EXIT_INPUT;
    }
out_inputs:
    for (int i = 0; i < opened; i++)
        cli_close(&in[i]);
out_args:
    free(a.positional);
    return rc;
}
