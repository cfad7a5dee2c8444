/* Typed option parsing: see options.h. */
#include "options.h"
#include "text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/hex.h"
#include "gcheap/limits.h"
#include "run_ctx.h"
#include "xalloc.h"

static const char *const format_words[] = { "table", "tsv", "csv", "json", "folded", NULL };
/* In the order of GCH_HPROF_REFS_AUTO, _COMPRESSED, _WIDE. */
static const char *const hprof_refs_words[] = { "auto", "compressed", "wide", NULL };

static int set_input_format(void *state, const char *command, const char *option, const char *value)
{
    (void)option;
    cli_common *c = state;
    if (gch_format_parse(value, &c->input_format) != 0)
        return cli_usage_error(command, "unknown input format '%s' (" GCH_FORMAT_WORDS ")", value);
    return 0;
}

static const cli_option common_options[] = {
    OPT_ENUM(0, "format", cli_common, format, format_words, "format", "FMT",
             "output format: table (default), tsv, csv, json"),
    OPT_UINT(0, "top", cli_common, top, "N", 0, UINT64_MAX, "show only the first N rows"),
    OPT_WORD(0, "sort", cli_common, sort, NULL, "sort key", "KEY",
             "order rows by KEY (the command's --help lists keys)"),
    OPT_BOOL('h', "human", cli_common, human, "sizes in KiB/MiB/GiB in table output"),
    OPT_BOOL('q', "quiet", cli_common, quiet, "no warnings on stderr (errors are still printed)"),
    OPT_BOOL(0, "help", cli_common, help, "show help and exit"),
    OPT_STRING(0, "domain", cli_common, domain, "NAME", "report only the section (appdomain) NAME"),
    OPT_CALLBACK(0, "input-format", set_input_format, "FMT", GCH_FORMAT_WORDS " (default: detect)"),
    OPT_BOOL(0, "include-weak", cli_common, include_weak, "count weak roots as strong"),
    OPT_UINT(0, "threads", cli_common, threads, "N", 0, CLI_MAX_THREADS,
             "worker threads: 0 = one per core (default), 1 = none"),
    OPT_BOOL(0, "no-progress", cli_common, no_progress, "no progress line on a terminal"),
    OPT_BOOL(0, "no-index", cli_common, no_index, "parse DUMP even when an index of it exists"),
    OPT_BOOL(0, "size-buckets", cli_common, size_buckets, ".gcdump: keep \"(Bytes > 10K)\" types apart"),
    OPT_BOOL(0, "module", cli_common, module, ".gcdump: show each type's module"),
    OPT_BOOL(0, "short-names", cli_common, short_names, "Dart: class names without library URI"),
    OPT_BOOL(0, "v8-raw", cli_common, v8_raw, "V8: the graph as written, not as DevTools shows it"),
    OPT_ENUM(0, "hprof-refs", cli_common, hprof_refs, hprof_refs_words, "HPROF reference size", "SIZE",
             "HPROF: auto (from the dump, default), compressed or wide references"),
    OPT_END
};

const cli_option *cli_common_options(void) { return common_options; }

unsigned cli_threads(const cli_common *common) { return (unsigned)common->threads; }

int cli_usage_error(const char *command, const char *fmt, ...)
{
    strbuf b = STRBUF_INIT;
    sb_addf(&b, "gcheap: %s%s", command ? command : "", command ? ": " : "");
    va_list ap;
    va_start(ap, fmt);
    sb_escape_vf(&b, ESC_STDERR, fmt, ap);
    va_end(ap);
    if (command)
        sb_addf(&b, "\nTry 'gcheap %s --help'.\n", command);
    else
        sb_add(&b, "\nTry 'gcheap --help'.\n");
    cli_ctx_add_error(cli_ctx_get(), b.s, b.len);
    sb_free(&b);
    return 2;
}

/* ---- help ---- */

static void print_option_list(const cli_option *o)
{
    for (; o->kind != CLI_OPT_END; o++) {
        char left[64];
        const char *v = o->value_name;
        const char *gap = v && !o->optional_value ? " " : ""; /* --name[=VALUE] */
        if (o->short_name)
            snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->long_name, gap,
                     v ? v : "");
        else
            snprintf(left, sizeof left, "    --%s%s%s", o->long_name, gap, v ? v : "");
        fprintf(cli_ctx_get()->out, "  %-24s %s\n", left, o->help);
    }
}

void cli_print_common_help(void)
{
    fputs("Common options (anywhere on the command line):\n", cli_ctx_get()->out);
    print_option_list(common_options);
}

void cli_print_options(const cli_option *options)
{
    if (options && options->kind != CLI_OPT_END) {
        fputs("Options:\n", cli_ctx_get()->out);
        print_option_list(options);
    }
}

/* ---- suggestions ---- */

/* Edit distance (insertions, deletions, substitutions, adjacent swaps). */
size_t cli_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return SIZE_MAX;
    size_t d[65][65];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *cli_closest(const char *s, const char *const *names, int count)
{
    const char *best = NULL;
    size_t best_d = SIZE_MAX, len = strlen(s);
    for (int i = 0; count < 0 ? names[i] != NULL : i < count; i++) {
        size_t d = cli_edit_distance(s, names[i]);
        /* A prefix of a longer name ("--ret" for "--retained") is close too. */
        if (len >= 3 && strncmp(names[i], s, len) == 0)
            d = 1;
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    size_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    return best_d <= limit ? best : NULL;
}

/* The closest long option name of both tables to name[0..len). */
static const char *closest_option(const char *name, size_t len, const cli_option *options)
{
    const char *names[128];
    int n = 0;
    for (const cli_option *t = options; t && t->kind != CLI_OPT_END && n < 64; t++)
        names[n++] = t->long_name;
    for (const cli_option *t = common_options; t->kind != CLI_OPT_END && n < 128; t++)
        names[n++] = t->long_name;
    char want[65];
    snprintf(want, sizeof want, "%.*s", (int)(len < 64 ? len : 64), name);
    return cli_closest(want, names, n);
}

static int unknown_option(const char *command, const char *arg, size_t len,
                          const cli_option *options)
{
    const char *near = arg[1] == '-' ? closest_option(arg + 2, len, options) : NULL;
    if (near)
        return cli_usage_error(command, "unknown option '%s' (did you mean '--%s'?)", arg, near);
    if (arg[1] == '-')
        return cli_usage_error(command, "unknown option '%s'", arg);
    return cli_usage_error(command, "unknown option '-%c'", arg[1]);
}

/* ---- values ---- */

int cli_parse_count(const char *s, uint64_t *out)
{
    if (!*s)
        return -1;
    uint64_t v = 0;
    int overflow = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = 1;
        v = v * 10 + d;
    }
    if (overflow)
        return -2;
    *out = v;
    return 0;
}

int cli_parse_id(const char *s, int radix, uint64_t *out)
{
    if (s[0] == '@') /* DevTools writes V8 node ids so: "@34771", decimal */
        return s[1] != '+' && cli_parse_count(s + 1, out) == 0 ? 0 : -1;
    if (radix == 10)
        return cli_parse_count(s, out) == 0 ? 0 : -1;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    if (!*s)
        return -1;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        int d = gch_hex_digit(*p);
        if (d < 0)
            return -1;
        if (v >> 60)
            return -1;
        v = (v << 4) | (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* "a, b or c"; "the only WHAT is a" for a single word. */
static void word_list(const char *const *words, const char *what, char *buf, size_t cap)
{
    size_t n = 0, count = 0;
    while (words[count])
        count++;
    buf[0] = '\0';
    if (count == 1)
        n += (size_t)snprintf(buf, cap, "the only %s is ", what);
    for (size_t i = 0; i < count && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s",
                              i == 0 ? "" : i + 1 == count ? " or " : ", ", words[i]);
}

static int parse_number(const char *command, const cli_option *o, const char *value, uint64_t *v)
{
    int rc = 0;
    if (o->kind == CLI_OPT_SIZE) {
        gch_error err;
        if (gch_parse_size(value, v, &err) != GCH_OK)
            return cli_usage_error(command, "--%s needs a size (bytes, or with a unit such as KiB, "
                                            "MB), not '%s'", o->long_name, value);
    } else if ((rc = cli_parse_count(value, v)) == -1 || (rc == 0 && *v < o->min)) {
        return cli_usage_error(command, "--%s needs a %swhole number, not '%s'", o->long_name,
                               o->min == 1 ? "positive " : "", value);
    }
    if (rc == -2 || *v > o->max)
        return cli_usage_error(command, "--%s: %s is too large (at most %" PRIu64 ")", o->long_name,
                               value, o->max);
    if (*v < o->min)
        return cli_usage_error(command, "--%s: %s is too small (at least %" PRIu64 ")", o->long_name,
                               value, o->min);
    return 0;
}

static int parse_word(const char *command, const cli_option *o, const char *const *words,
                      const char *value, int *index)
{
    if (!words)
        return cli_usage_error(command, "--%s does not apply to %s", o->long_name, command);
    for (int i = 0; words[i]; i++)
        if (strcmp(words[i], value) == 0) {
            *index = i;
            return 0;
        }
    char list[256];
    word_list(words, o->what, list, sizeof list);
    return cli_usage_error(command, "unknown %s '%s' (%s)", o->what, value, list);
}

/* Stores value into the variable o binds in state. */
static int apply(const char *command, const cli_option *o, void *state, const char *value,
                 const char *const *sort_keys)
{
    char *var = (char *)state + o->offset;
    uint64_t n;
    int index, rc = 0;
    switch (o->kind) {
    case CLI_OPT_BOOL: *(int *)var = 1; break;
    case CLI_OPT_UINT:
    case CLI_OPT_SIZE:
        if ((rc = parse_number(command, o, value, &n)) == 0)
            memcpy(var, &n, sizeof n);
        break;
    case CLI_OPT_STRING: memcpy(var, &value, sizeof value); break;
    case CLI_OPT_ENUM:
        if ((rc = parse_word(command, o, o->words, value, &index)) == 0)
            *(int *)var = index;
        break;
    case CLI_OPT_WORD: {
        const char *const *words = o->words ? o->words : sort_keys;
        if ((rc = parse_word(command, o, words, value, &index)) == 0)
            memcpy(var, &words[index], sizeof(const char *));
        break;
    }
    case CLI_OPT_CALLBACK: rc = o->callback(state, command, o->long_name, value); break;
    case CLI_OPT_END: break;
    }
    if (rc == 0 && o->given)
        *(int *)((char *)state + o->given - 1) = 1;
    return rc;
}

static const cli_option *find_long(const cli_option *list, const char *name, size_t len)
{
    for (; list && list->kind != CLI_OPT_END; list++)
        if (strlen(list->long_name) == len && strncmp(list->long_name, name, len) == 0)
            return list;
    return NULL;
}

static const cli_option *find_short(const cli_option *list, char c)
{
    for (; list && list->kind != CLI_OPT_END; list++)
        if (list->short_name == c)
            return list;
    return NULL;
}

static int takes_value(const cli_option *o) { return o->kind != CLI_OPT_BOOL; }

typedef struct parse_ctx {
    const char *command;
    const cli_option *options;
    void *state;
    const char *const *sort_keys;
    cli_common *common;
} parse_ctx;

/* The option (command's first, then common) and the state it fills. */
static const cli_option *lookup(const parse_ctx *p, const char *name, size_t len, char short_name,
                                void **state)
{
    const cli_option *o = short_name ? find_short(p->options, short_name)
                                     : find_long(p->options, name, len);
    *state = p->state;
    if (!o) {
        o = short_name ? find_short(common_options, short_name)
                       : find_long(common_options, name, len);
        *state = p->common;
    }
    return o;
}

static int long_option(const parse_ctx *p, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    void *state;
    const cli_option *o = lookup(p, name, len, 0, &state);
    if (!o)
        return unknown_option(p->command, a, len, p->options);
    const char *value = NULL;
    if (o->optional_value) {
        value = eq ? eq + 1 : NULL;
    } else if (takes_value(o)) {
        if (eq)
            value = eq + 1;
        else if (*i + 1 < argc)
            value = argv[++*i];
        else
            return cli_usage_error(p->command, "option '--%s' needs a value", o->long_name);
    } else if (eq) {
        return cli_usage_error(p->command, "option '--%s' takes no value", o->long_name);
    }
    return apply(p->command, o, state, value, p->sort_keys);
}

/* A cluster of short options: -hq, or -n VALUE / -nVALUE. */
static int short_options(const parse_ctx *p, int argc, char **argv, int *i)
{
    const char *whole = argv[*i];
    if (whole[1] >= '0' && whole[1] <= '9') {
        /* "-100": a negative number, not a cluster of options "-1" "-0" "-0" */
        char shown[256];
        return cli_usage_error(p->command, "'%s' is not an option, and negative numbers are not "
                               "accepted here (put '--' before an argument that starts with '-')",
                               message_text(whole, shown, sizeof shown));
    }
    for (const char *s = argv[*i] + 1; *s; s++) {
        void *state;
        const cli_option *o = lookup(p, NULL, 0, *s, &state);
        if (!o) {
            char arg[3] = { '-', *s, '\0' };
            return unknown_option(p->command, arg, 1, p->options);
        }
        const char *value = NULL;
        if (takes_value(o)) {
            if (s[1])
                value = s + 1;
            else if (*i + 1 < argc)
                value = argv[++*i];
            else
                return cli_usage_error(p->command, "option '-%c' needs a value", *s);
        }
        int rc = apply(p->command, o, state, value, p->sort_keys);
        if (rc || value)
            return rc;
    }
    return 0;
}

int cli_parse(int argc, char **argv, const char *command, const cli_option *options, void *state,
              const char *const *sort_keys, cli_common *common, cli_args *args)
{
    memset(common, 0, sizeof *common);
    common->top = UINT64_MAX;
    args->count = 0;
    args->positional = xmalloc_array((size_t)(argc > 0 ? argc : 1), sizeof(char *));
    parse_ctx p = { command, options, state, sort_keys, common };
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (only_positional || a[0] != '-' || a[1] == '\0')
            args->positional[args->count++] = a;
        else if (strcmp(a, "--") == 0)
            only_positional = 1;
        else if (a[1] == '-')
            rc = long_option(&p, argc, argv, &i);
        else
            rc = short_options(&p, argc, argv, &i);
        if (rc)
            return rc;
    }
    return 0;
}

int cli_bad_id(const char *command, const char *arg)
{
    char shown[256];
    size_t n = strlen(arg);
    int dumpish = strchr(arg, '/') != NULL || (n > 3 && strchr(arg, '.') != NULL);
    return cli_usage_error(command, "bad object id '%s' (hexadecimal, 0x optional; decimal for Dart and V8, "
                                    "or @N as DevTools writes it)%s%s%s",
                           message_text(arg, shown, sizeof shown),
                           dumpish ? "; is it the dump? the dump comes first: gcheap " : "",
                           dumpish ? command : "", dumpish ? " DUMP ID..." : "");
}

int cli_parse_pct(const char *command, const char *opt, const char *value, uint64_t *out)
{
    char buf[64];
    size_t n = strlen(value);
    if (n == 0 || n + 2 > sizeof buf)
        return cli_usage_error(command, "--%s needs a percentage, not '%s'", opt, value);
    memcpy(buf, value, n + 1);
    if (buf[n - 1] != '%') {
        buf[n] = '%';
        buf[n + 1] = '\0';
    }
    gch_error err;
    if (gch_parse_percent(buf, out, &err) != GCH_OK || *out > 100ull * GCH_PERCENT_SCALE)
        return cli_usage_error(command, "--%s needs a percentage from 0 to 100, not '%s'", opt,
                               value);
    return 0;
}
