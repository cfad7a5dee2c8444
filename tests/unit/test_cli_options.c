/* The program's typed options (src/cli/options.c): each kind binds its
 * variable, values out of range are rejected (never wrapped), enumerations
 * are checked in one place, and typos get a suggestion. The option parser
 * belongs to the program, so it is compiled into this test directly; its
 * usage messages go to stderr, which is silenced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../src/cli/options.c"
#include "../../src/cli/xalloc.c"
#include "../../src/cli/text.c"
#include "../../src/cli/run_ctx.c"

typedef struct test_state {
    int flag;
    uint64_t paths;
    uint64_t depth;
    int depth_set;
    uint64_t bytes;
    int bytes_set;
    const char *name;
    int mode;
    const char *seen[4];
    int nseen;
} test_state;

static const char *const modes[] = { "fast", "exact", NULL };

static int remember(void *state, const char *command, const char *option, const char *value)
{
    (void)command;
    (void)option;
    test_state *s = state;
    if (strcmp(value, "bad") == 0)
        return 2;
    s->seen[s->nseen++] = value;
    return 0;
}

static const cli_option test_options[] = {
    OPT_BOOL(0, "flag", test_state, flag, "a flag"),
    OPT_UINT(0, "max-paths", test_state, paths, "N", 1, (uint64_t)SIZE_MAX - 1, "paths"),
    OPT_UINT_GIVEN(0, "depth", test_state, depth, depth_set, "D", 0, 100, "depth"),
    OPT_SIZE_GIVEN(0, "min-bytes", test_state, bytes, bytes_set, "N", "bytes"),
    OPT_STRING(0, "name", test_state, name, "NAME", "a name"),
    OPT_ENUM(0, "mode", test_state, mode, modes, "mode", "M", "a mode"),
    OPT_CALLBACK(0, "limit", remember, "SPEC", "repeatable"),
    OPT_END
};

static const char *const sort_keys[] = { "bytes", "count", NULL };

/* Parses the words of line (split at spaces) after a command name. */
static int parse(const char *line, test_state *s, cli_common *c, cli_args *a,
                 const char *const *keys)
{
    static char buf[512];
    char *argv[32];
    int argc = 0;
    argv[argc++] = "test";
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 32; w = strtok(NULL, " "))
        argv[argc++] = w;
    memset(s, 0, sizeof *s);
    a->positional = NULL;
    int rc = cli_parse(argc, argv, "test", test_options, s, keys, c, a);
    return rc;
}

static int parse_rc(const char *line)
{
    test_state s;
    cli_common c;
    cli_args a;
    int rc = parse(line, &s, &c, &a, sort_keys);
    free(a.positional);
    return rc;
}

static void numbers_in_range(void **state)
{
    (void)state;
    test_state s;
    cli_common c;
    cli_args a;
    assert_int_equal(parse("--max-paths 5 --depth=100 --top 7", &s, &c, &a, sort_keys), 0);
    assert_int_equal(s.paths, 5);
    assert_int_equal(s.depth, 100);
    assert_int_equal(s.depth_set, 1);
    assert_int_equal(c.top, 7);
    free(a.positional);
    assert_int_equal(parse("--top 18446744073709551615", &s, &c, &a, sort_keys), 0);
    assert_true(c.top == UINT64_MAX);
    free(a.positional);
    /* Rejected, never wrapped: 0 below the minimum, SIZE_MAX would make
     * max_paths + 1 wrap, 2^64 does not fit. */
    assert_int_equal(parse_rc("--max-paths 0"), 2);
    assert_int_equal(parse_rc("--max-paths 18446744073709551615"), 2);
    assert_int_equal(parse_rc("--top 18446744073709551616"), 2);
    assert_int_equal(parse_rc("--depth 101"), 2);
    assert_int_equal(parse_rc("--depth -1"), 2);
    assert_int_equal(parse_rc("--depth 1x"), 2);
    assert_int_equal(parse_rc("--depth"), 2);
}

static void sizes(void **state)
{
    (void)state;
    test_state s;
    cli_common c;
    cli_args a;
    assert_int_equal(parse("--min-bytes 1KiB", &s, &c, &a, sort_keys), 0);
    assert_int_equal(s.bytes, 1024);
    assert_int_equal(s.bytes_set, 1);
    free(a.positional);
    assert_int_equal(parse("--min-bytes 1.5MB", &s, &c, &a, sort_keys), 0);
    assert_int_equal(s.bytes, 1500000);
    free(a.positional);
    assert_int_equal(parse("--min-bytes 4096", &s, &c, &a, sort_keys), 0);
    assert_int_equal(s.bytes, 4096);
    free(a.positional);
    assert_int_equal(parse_rc("--min-bytes 1XB"), 2);
    assert_int_equal(parse_rc("--min-bytes -5"), 2);
}

static void words(void **state)
{
    (void)state;
    test_state s;
    cli_common c;
    cli_args a;
    assert_int_equal(parse("--mode exact --format json --sort count", &s, &c, &a, sort_keys), 0);
    assert_int_equal(s.mode, 1);
    assert_int_equal(c.format, FMT_JSON);
    assert_ptr_equal(c.sort, sort_keys[1]); /* the word of the list itself */
    free(a.positional);
    assert_int_equal(parse_rc("--mode slow"), 2);
    assert_int_equal(parse_rc("--format xml"), 2);
    assert_int_equal(parse_rc("--sort size"), 2);
    /* A command without sort keys takes no --sort. */
    assert_int_equal(parse("--sort bytes", &s, &c, &a, NULL), 2);
    free(a.positional);
}

static void flags_strings_callbacks(void **state)
{
    (void)state;
    test_state s;
    cli_common c;
    cli_args a;
    assert_int_equal(parse("-hq d.gclog --flag --name N --limit a --limit=b - -- --flag", &s, &c, &a,
                           sort_keys),
                     0);
    assert_int_equal(c.human, 1);
    assert_int_equal(c.quiet, 1);
    assert_int_equal(s.flag, 1);
    assert_string_equal(s.name, "N");
    assert_int_equal(s.nseen, 2);
    assert_string_equal(s.seen[0], "a");
    assert_string_equal(s.seen[1], "b");
    assert_int_equal(a.count, 3);
    assert_string_equal(a.positional[0], "d.gclog");
    assert_string_equal(a.positional[1], "-");
    assert_string_equal(a.positional[2], "--flag");
    free(a.positional);
    assert_int_equal(parse_rc("--flag=1"), 2);
    assert_int_equal(parse_rc("--limit bad"), 2);
    assert_int_equal(parse_rc("--nosuch"), 2);
    assert_int_equal(parse_rc("-z"), 2);
}

static void threads(void **state)
{
    (void)state;
    test_state s;
    cli_common c;
    cli_args a;
    assert_int_equal(parse("", &s, &c, &a, sort_keys), 0);
    assert_int_equal(cli_threads(&c), 0); /* default: auto */
    free(a.positional);
    assert_int_equal(parse("--threads 1", &s, &c, &a, sort_keys), 0);
    assert_int_equal(cli_threads(&c), 1);
    free(a.positional);
    assert_int_equal(parse_rc("--threads 1025"), 2);
}

static void suggestions(void **state)
{
    (void)state;
    static const char *const commands[] = { "info", "stat", "roots", "top", "dom", "objsize",
                                            "retainers", "diff", "check", NULL };
    assert_string_equal(cli_closest("stta", commands, -1), "stat");
    assert_string_equal(cli_closest("retainer", commands, -1), "retainers");
    assert_string_equal(cli_closest("chek", commands, -1), "check");
    assert_string_equal(cli_closest("obj", commands, -1), "objsize");
    assert_null(cli_closest("frobnicate", commands, -1));
    assert_string_equal(closest_option("flg", 3, test_options), "flag");
    assert_string_equal(closest_option("formt", 5, test_options), "format");
    assert_null(closest_option("zzzzzz", 6, test_options));
}

int main(void)
{
    /* The usage messages of the rejected lines are not the subject here. */
    if (!freopen("/dev/null", "w", stderr))
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_in_range),
        cmocka_unit_test(sizes),
        cmocka_unit_test(words),
        cmocka_unit_test(flags_strings_callbacks),
        cmocka_unit_test(threads),
        cmocka_unit_test(suggestions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
