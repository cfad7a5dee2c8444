/* Shared option parsing: see options.h. */
#include "options.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_FORMAT = -100, OPT_TOP, OPT_SORT, OPT_HUMAN, OPT_QUIET, OPT_HELP, OPT_DOMAIN,
    OPT_INPUT_FORMAT, OPT_NO_PROGRESS, OPT_SIZE_BUCKETS, OPT_MODULE, OPT_SHORT_NAMES,
    OPT_INCLUDE_WEAK
};

static const cli_option common_options[] = {
    { "format", 0, 1, OPT_FORMAT, "FMT", "output format: table (default), tsv, csv, json" },
    { "top", 0, 1, OPT_TOP, "N", "show only the first N rows" },
    { "sort", 0, 1, OPT_SORT, "KEY", "order rows by KEY (the command's --help lists keys)" },
    { "human", 'h', 0, OPT_HUMAN, NULL, "sizes in KiB/MiB/GiB in table output" },
    { "quiet", 'q', 0, OPT_QUIET, NULL, "no warnings on stderr (errors are still printed)" },
    { "help", 0, 0, OPT_HELP, NULL, "show help and exit" },
    { "domain", 0, 1, OPT_DOMAIN, "NAME", "report only the section (appdomain) NAME" },
    { "input-format", 0, 1, OPT_INPUT_FORMAT, "FMT", "gclog, gcdump, dart or hprof (default: detect)" },
    { "include-weak", 0, 0, OPT_INCLUDE_WEAK, NULL, "count weak roots as strong" },
    { "no-progress", 0, 0, OPT_NO_PROGRESS, NULL, "no progress line on a terminal" },
    { "size-buckets", 0, 0, OPT_SIZE_BUCKETS, NULL, ".gcdump: keep \"(Bytes > 10K)\" types apart" },
    { "module", 0, 0, OPT_MODULE, NULL, ".gcdump: show each type's module" },
    { "short-names", 0, 0, OPT_SHORT_NAMES, NULL, "Dart: class names without library URI" },
    { NULL, 0, 0, 0, NULL, NULL }
};

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "gcheap: %s%s", command ? command : "", command ? ": " : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (command)
        fprintf(stderr, "\nTry 'gcheap %s --help'.\n", command);
    else
        fprintf(stderr, "\nTry 'gcheap --help'.\n");
    return 2;
}

static void print_option_list(const cli_option *o)
{
    for (; o->long_name; o++) {
        char left[64];
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name,
                     o->value_name ? " " : "", o->value_name ? o->value_name : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->long_name, o->value_name ? " " : "",
                     o->value_name ? o->value_name : "");
        printf("  %-24s %s\n", left, o->help);
    }
}

void cli_print_common_help(void)
{
    printf("Common options (anywhere on the command line):\n");
    print_option_list(common_options);
}

void cli_print_options(const cli_option *options)
{
    if (options && options->long_name) {
        printf("Options:\n");
        print_option_list(options);
    }
}

int cli_parse_count(const char *s, uint64_t *out)
{
    if (!*s)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int cli_parse_id(const char *s, int radix, uint64_t *out)
{
    if (radix == 10)
        return cli_parse_count(s, out);
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    if (!*s)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        int d;
        if (*p >= '0' && *p <= '9')
            d = *p - '0';
        else if (*p >= 'a' && *p <= 'f')
            d = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F')
            d = *p - 'A' + 10;
        else
            return -1;
        if (v >> 60)
            return -1;
        v = (v << 4) | (uint64_t)d;
    }
    *out = v;
    return 0;
}

static const cli_option *find_long(const cli_option *list, const char *name, size_t len)
{
    for (; list && list->long_name; list++)
        if (strlen(list->long_name) == len && strncmp(list->long_name, name, len) == 0)
            return list;
    return NULL;
}

static const cli_option *find_short(const cli_option *list, char c)
{
    for (; list && list->long_name; list++)
        if (list->short_name == c)
            return list;
    return NULL;
}

static int apply_common(const char *command, const cli_option *o, const char *value, cli_common *c)
{
    switch (o->id) {
    case OPT_FORMAT:
        if (strcmp(value, "table") == 0) c->format = FMT_TABLE;
        else if (strcmp(value, "tsv") == 0) c->format = FMT_TSV;
        else if (strcmp(value, "csv") == 0) c->format = FMT_CSV;
        else if (strcmp(value, "json") == 0) c->format = FMT_JSON;
        else if (strcmp(value, "folded") == 0) c->format = FMT_FOLDED;
        else
            return cli_usage_error(command, "unknown format '%s' (table, tsv, csv or json)", value);
        c->format_set = 1;
        return 0;
    case OPT_TOP:
        if (cli_parse_count(value, &c->top) != 0)
            return cli_usage_error(command, "--top needs a whole number, not '%s'", value);
        return 0;
    case OPT_SORT: c->sort = value; return 0;
    case OPT_HUMAN: c->human = 1; return 0;
    case OPT_QUIET: c->quiet = 1; return 0;
    case OPT_HELP: c->help = 1; return 0;
    case OPT_DOMAIN: c->domain = value; return 0;
    case OPT_INPUT_FORMAT:
        if (gch_format_parse(value, &c->input_format) != 0)
            return cli_usage_error(command, "unknown input format '%s' (gclog, gcdump, dart or hprof)", value);
        return 0;
    case OPT_NO_PROGRESS: c->no_progress = 1; return 0;
    case OPT_SIZE_BUCKETS: c->size_buckets = 1; return 0;
    case OPT_MODULE: c->module = 1; return 0;
    case OPT_SHORT_NAMES: c->short_names = 1; return 0;
    case OPT_INCLUDE_WEAK: c->include_weak = 1; return 0;
    }
    return 0;
}

static int dispatch(const char *command, const cli_option *o, int is_common, const char *value,
                    cli_option_fn on_option, void *state, cli_common *common)
{
    if (is_common)
        return apply_common(command, o, value, common);
    return on_option ? on_option(state, o->id, value) : 0;
}

int cli_parse(int argc, char **argv, const char *command, const cli_option *options,
              cli_option_fn on_option, void *state, cli_common *common, cli_args *args)
{
    memset(common, 0, sizeof *common);
    common->top = UINT64_MAX;
    args->count = 0;
    args->positional = malloc(sizeof(char *) * (size_t)(argc > 0 ? argc : 1));
    if (!args->positional) {
        fprintf(stderr, "gcheap: out of memory\n");
        return 2;
    }
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_positional || a[0] != '-' || a[1] == '\0') {
            args->positional[args->count++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_positional = 1;
            continue;
        }
        if (a[1] == '-') {
            const char *name = a + 2, *eq = strchr(name, '=');
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            int is_common = 0;
            const cli_option *o = find_long(options, name, len);
            if (!o) {
                o = find_long(common_options, name, len);
                is_common = o != NULL;
            }
            if (!o)
                return cli_usage_error(command, "unknown option '%s'", a);
            const char *value = NULL;
            if (o->takes_value) {
                if (eq)
                    value = eq + 1;
                else if (i + 1 < argc)
                    value = argv[++i];
                else
                    return cli_usage_error(command, "option '--%s' needs a value", o->long_name);
            } else if (eq) {
                return cli_usage_error(command, "option '--%s' takes no value", o->long_name);
            }
            int rc = dispatch(command, o, is_common, value, on_option, state, common);
            if (rc)
                return rc;
            continue;
        }
        /* A cluster of short options: -hq, or -n VALUE / -nVALUE. */
        for (const char *p = a + 1; *p; p++) {
            int is_common = 0;
            const cli_option *o = find_short(options, *p);
            if (!o) {
                o = find_short(common_options, *p);
                is_common = o != NULL;
            }
            if (!o)
                return cli_usage_error(command, "unknown option '-%c'", *p);
            const char *value = NULL;
            if (o->takes_value) {
                if (p[1]) {
                    value = p + 1;
                } else if (i + 1 < argc) {
                    value = argv[++i];
                } else {
                    return cli_usage_error(command, "option '-%c' needs a value", *p);
                }
            }
            int rc = dispatch(command, o, is_common, value, on_option, state, common);
            if (rc)
                return rc;
            if (value)
                break;
        }
    }
    return 0;
}
