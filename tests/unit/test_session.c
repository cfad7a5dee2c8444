/* One loaded heap answers many questions: 50 different command lines run in
 * one session (session.h) against one dump must each print exactly what the
 * one-shot program prints (a fresh one-shot session: main's code path) -
 * stdout, stderr and status - and the dominator tree of each view (strong
 * roots, --include-weak) is built once for all of them. Also: a failing line
 * does not end the session, a dump changed on disk is loaded again, the
 * memory limit drops what no run holds, a dump that shrinks while it is
 * loaded does not end the session. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <unistd.h>

#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "session.h"
#include "session_internal.h"
#include "shell_words.h"
#include "xalloc.h"

typedef struct answer {
    char *out, *err;
    size_t out_len, err_len;
    int rc;
} answer;

static void answer_free(answer *a)
{
    free(a->out);
    free(a->err);
}

static answer run(cli_session *s, int argc, char **argv)
{
    answer a;
    FILE *out = open_memstream(&a.out, &a.out_len);
    FILE *err = open_memstream(&a.err, &a.err_len);
    assert_non_null(out);
    assert_non_null(err);
    a.rc = cli_session_run(s, argc, argv, out, err);
    fclose(out);
    fclose(err);
    return a;
}

static answer one_shot(int argc, char **argv)
{
    cli_session *s = cli_session_new();
    assert_non_null(s);
    cli_session_set_one_shot(s);
    answer a = run(s, argc, argv);
    cli_session_free(s);
    return a;
}

/* A command line from a template: words DUMP, OTHER, ID and TYPE stand for
 * the values given (TYPE may hold blanks: substituted after splitting). */
typedef struct subst {
    const char *dump, *other, *id, *type;
} subst;

static char **line_argv(const char *tmpl, const subst *v, int *argc)
{
    char **w;
    const char *why;
    assert_int_equal(shell_split(tmpl, &w, argc, &why), 0);
    for (int i = 0; i < *argc; i++) {
        if (strcmp(w[i], "DUMP") == 0)
            w[i] = (char *)v->dump;
        else if (strcmp(w[i], "OTHER") == 0)
            w[i] = (char *)v->other;
        else if (strcmp(w[i], "ID") == 0)
            w[i] = (char *)v->id;
        else if (strcmp(w[i], "TYPE") == 0)
            w[i] = (char *)v->type;
    }
    return w;
}

/* Field `col` (0-based) of the second line of tsv text, malloc'd. */
static char *tsv_field(const char *text, int col)
{
    const char *p = strchr(text, '\n');
    assert_non_null(p);
    p++;
    for (int c = 0; c < col; c++) {
        p = strchr(p, '\t');
        assert_non_null(p);
        p++;
    }
    size_t n = strcspn(p, "\t\n");
    char *f = malloc(n + 1);
    memcpy(f, p, n);
    f[n] = '\0';
    return f;
}

static const char *const lines[] = {
    "stat DUMP", "stat --sort count DUMP", "stat --sort name DUMP", "stat --live DUMP",
    "stat --retained DUMP", "stat --retained --sort retained DUMP", "stat --format json DUMP",
    "stat --format csv --top 2 DUMP", "stat --include-weak --live DUMP",
    "stat --retained --include-weak --format tsv DUMP", "stat --type TYPE DUMP",
    "top DUMP", "top --top 3 DUMP", "top --format json DUMP", "top --include-weak DUMP", "top -h DUMP",
    "dom DUMP", "dom --depth 2 DUMP", "dom --by-type DUMP", "dom --format folded DUMP",
    "dom --include-weak --format json DUMP", "dom DUMP ID", "dom --min-bytes 100 --format csv DUMP",
    "retainers DUMP ID", "retainers --all DUMP ID", "retainers --dominators DUMP ID",
    "retainers --include-weak DUMP ID", "retainers --format json DUMP ID", "retainers --type TYPE DUMP",
    "objects DUMP", "objects --top 5 --retained --sort retained DUMP", "objects --sort distance --live DUMP",
    "objects --dead --format tsv DUMP", "objects --type TYPE --sort id DUMP",
    "refs DUMP ID", "refs --in --format json DUMP ID",
    "roots DUMP", "roots --summary DUMP", "roots --list --sort bytes DUMP", "roots --format tsv --sort kind DUMP",
    "suspects DUMP", "suspects --format json DUMP", "suspects --include-weak --threshold 1 DUMP",
    "objsize DUMP ID", "objsize --stat DUMP ID", "objsize --type TYPE --format json DUMP",
    "info DUMP", "info --format json --include-weak DUMP", "check --max-bytes 1KB DUMP",
    "diff --retained DUMP OTHER", "leaks DUMP OTHER", "report --suspects DUMP",
    "top --top 2 --bogus DUMP", "retainers DUMP 0xdeadbeefdeadbeef",
};

#define NLINES (sizeof lines / sizeof *lines)

static void fifty_commands(const char *dump, const char *other)
{
    assert_true(NLINES >= 50);
    subst v = { dump, other, NULL, NULL };
    size_t fine = 0;
    /* The values asked about, from the one-shot program's own answer. */
    char *tsv[] = { "top", "--format", "tsv", (char *)v.dump, NULL };
    answer t = one_shot(4, tsv);
    assert_int_equal(t.rc, 0);
    char *id = tsv_field(t.out, 0), *type = tsv_field(t.out, 3);
    v.id = id;
    v.type = type;
    answer_free(&t);
    cli_session *s = cli_session_new();
    assert_non_null(s);
    for (int pass = 0; pass < 2; pass++) { /* the second pass: all from the kept heap */
        for (size_t i = 0; i < NLINES; i++) {
            int argc;
            char **argv = line_argv(lines[i], &v, &argc);
            answer want = one_shot(argc, argv);
            answer got = run(s, argc, argv);
            if (want.out_len != got.out_len || memcmp(want.out, got.out, want.out_len) != 0 ||
                want.err_len != got.err_len || memcmp(want.err, got.err, want.err_len) != 0 ||
                want.rc != got.rc)
                fail_msg("'%s' differs in a session (pass %d): status %d vs %d\n--- one-shot\n%s%s"
                         "--- session\n%s%s",
                         lines[i], pass, want.rc, got.rc, want.out, want.err, got.out, got.err);
            /* Not vacuous: every answer says something. */
            assert_true(want.out_len + want.err_len > 0);
            fine += want.rc == 0 && want.out_len > 0;
            answer_free(&want);
            answer_free(&got);
            free(argv);
        }
    }
    /* One tree per view (strong and --include-weak) for the dump asked
     * about, though a dozen commands of each view needed one. */
    gch_analysis *an = cli_session_analysis(s, v.dump);
    assert_non_null(an);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_DOMTREE), 2);
    assert_int_equal(gch_analysis_count(an, GCH_STEP_PATHS), 2);
    assert_true(gch_analysis_count(an, GCH_STEP_LOOKUP) <= 1);
    assert_true(cli_session_memory(s) > 0);
    assert_true(fine >= 2 * (NLINES - 6)); /* all but the failing lines and limits */
    cli_session_free(s);
    free(id);
    free(type);
}

static void gclog_heap(void **state)
{
    (void)state;
    fifty_commands(GCHEAP_TESTDATA "/leaks/leak-2.gclog", GCHEAP_TESTDATA "/leaks/leak-1.gclog");
}

static void hprof_heap(void **state)
{
    (void)state;
    fifty_commands(GCHEAP_TESTDATA "/hprof/leak.hprof", GCHEAP_TESTDATA "/hprof/leak.hprof");
}

static void v8_heap(void **state)
{
    (void)state;
    fifty_commands(GCHEAP_TESTDATA "/v8/sample.heapsnapshot", GCHEAP_TESTDATA "/v8/sample.heapsnapshot");
}

/* A dump rewritten on disk is loaded again; the memory limit keeps nothing
 * no run holds. */
static void reload_and_limit(void **state)
{
    (void)state;
    char path[] = "/tmp/gcheap-session-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("a 2 x\nt 1 A\no 10 1 100\nr 10 1 0\nc x\n", f);
    fclose(f);
    cli_session *s = cli_session_new();
    char *argv[] = { "stat", "--format", "tsv", path, NULL };
    answer a = run(s, 4, argv);
    assert_int_equal(a.rc, 0);
    assert_non_null(strstr(a.out, "1\t256\tA")); /* sizes are hex */
    answer_free(&a);
    size_t kept = cli_session_memory(s);
    assert_true(kept > 0);
    f = fopen(path, "w");
    fputs("a 2 x\nt 1 A\no 10 1 100\no 20 1 50\nr 10 1 0\nc x\n", f);
    fclose(f);
    a = run(s, 4, argv);
    assert_int_equal(a.rc, 0);
    assert_non_null(strstr(a.out, "2\t336\tA")); /* the new file, not the kept one */
    answer_free(&a);
    cli_session_set_limit(s, 1);
    assert_int_equal(cli_session_memory(s), 0);
    a = run(s, 4, argv); /* still answers; keeps nothing past the limit */
    assert_int_equal(a.rc, 0);
    assert_int_equal(cli_session_memory(s), 0);
    answer_free(&a);
    /* a bad line, then a good one: the session goes on */
    char *bad[] = { "stat", "--sort", "nosuchkey", path, NULL };
    a = run(s, 4, bad);
    assert_int_equal(a.rc, 2);
    assert_non_null(strstr(a.err, "gcheap: stat: "));
    answer_free(&a);
    a = run(s, 4, argv);
    assert_int_equal(a.rc, 0);
    answer_free(&a);
    cli_session_free(s);
    remove(path);
}

/* Out of memory inside a run (every allocation of xmalloc & co. failing in
 * turn) ends the run, not the process: status 2, "gcheap: out of memory" on
 * its error sink, and the next run of the session answers as before. What
 * the failed run had allocated is not reclaimed (xalloc.h), so not under
 * LeakSanitizer. */
static void out_of_memory_ends_the_run(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__)
    skip();
#endif
    const char *dump = GCHEAP_TESTDATA "/leaks/leak-2.gclog";
    static const char *const cmds[] = { "stat --retained --sort retained DUMP", "top --top 3 --format json DUMP",
                                        "retainers DUMP ID", "dom --depth 2 --by-type DUMP",
                                        "check --max-bytes 1KB DUMP", "diff DUMP DUMP" };
    char *tsv[] = { "top", "--format", "tsv", (char *)dump, NULL };
    answer t = one_shot(4, tsv);
    char *id = tsv_field(t.out, 0);
    answer_free(&t);
    subst v = { dump, dump, id, "x" };
    cli_session *s = cli_session_new();
    for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
        int argc;
        char **argv = line_argv(cmds[c], &v, &argc);
        answer want = run(s, argc, argv);
        long fails = 0;
        for (long k = 0;; k++) {
            cli_xalloc_fail_at(k);
            answer got = run(s, argc, argv);
            cli_xalloc_fail_at(-1);
            int done = got.rc == want.rc && got.out_len == want.out_len &&
                       memcmp(got.out, want.out, want.out_len) == 0;
            if (!done) {
                static const char oom[] = "gcheap: out of memory\n";
                assert_int_equal(got.rc, 2);
                /* after whatever the run had said (check's limit lines) */
                assert_true(got.err_len >= sizeof oom - 1);
                assert_string_equal(got.err + got.err_len - (sizeof oom - 1), oom);
                fails++;
            }
            answer_free(&got);
            answer again = run(s, argc, argv); /* the session goes on */
            assert_int_equal(again.rc, want.rc);
            assert_int_equal(again.out_len, want.out_len);
            assert_memory_equal(again.out, want.out, want.out_len);
            answer_free(&again);
            if (done)
                break;
        }
        assert_true(fails > 0); /* the command does allocate */
        answer_free(&want);
        free(argv);
    }
    cli_session_free(s);
    free(id);
}

/* The shell's word splitting, case by case (POSIX sh splits these alike). */
static void shell_words(void **state)
{
    (void)state;
    static const struct {
        const char *line;
        int count;
        const char *words[6];
    } cases[] = {
        { "top --top 5\n", 3, { "top", "--top", "5" } },
        { "  a\t'b c'  \"d \\\"e\\\" \\$\\x\" f\\ g # rest\n", 4, { "a", "b c", "d \"e\" $\\x", "f g" } },
        { "'' \"\" x''y", 3, { "", "", "xy" } },
        { "a#b #c", 1, { "a#b" } },
        { "# only a comment", 0, { NULL } },
        { "", 0, { NULL } },
        { "'it''s' \"a'b\" 'a\"b'", 3, { "its", "a'b", "a\"b" } },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char **w;
        int n;
        const char *why;
        assert_int_equal(shell_split(cases[k].line, &w, &n, &why), 0);
        assert_int_equal(n, cases[k].count);
        for (int i = 0; i < n; i++)
            assert_string_equal(w[i], cases[k].words[i]);
        assert_null(w[n]);
        free(w);
    }
    static const char *const bad[] = { "top 'open", "top \"open", "top \\", "a \"b\\\"" };
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char **w;
        int n;
        const char *why = NULL;
        assert_int_equal(shell_split(bad[k], &w, &n, &why), -1);
        assert_non_null(why);
    }
}

/* A dump that shrinks while a session loads it: the session read it into
 * a copy (a mapping's lost pages would raise SIGBUS, which ends the
 * process), so the command answers for the file as it was read and the
 * session goes on; the next command reads the file as it is now. The file
 * is cut by the library's first allocation in the load (gch_set_allocator):
 * after the file was opened and its size taken, before the reader got past
 * its first region: deterministic, no race. */
static const char *cut_path;
static int cut_done;

static void *cutting_malloc(void *ctx, size_t size)
{
    (void)ctx;
    if (!cut_done) {
        cut_done = 1;
        assert_int_equal(truncate(cut_path, 100), 0);
    }
    return malloc(size);
}
static void *plain_realloc(void *ctx, void *p, size_t size) { (void)ctx; return realloc(p, size); }
static void plain_free(void *ctx, void *p) { (void)ctx; free(p); }

/* A .gclog of n objects (about 16 n bytes: several of the reader's regions). */
static void write_gclog(const char *path, unsigned n)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("a 2 x\nt 1 A\n", f);
    for (unsigned i = 1; i <= n; i++)
        fprintf(f, "o %x 1 10 %x\n", 16 * i, 16 * (i % n + 1));
    fputs("r 10 1 0\nc x\n", f);
    assert_int_equal(fclose(f), 0);
}

static void shrinking_dump(void **state)
{
    (void)state;
    char path[] = "/tmp/gcheap-session-shrink-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    const unsigned n = 400000; /* ~9 MB */
    write_gclog(path, n);
    cli_session *s = cli_session_new();
    char *argv[] = { "stat", "--format", "tsv", path, NULL };
    char want[64];
    snprintf(want, sizeof want, "%u\t%u\tA", n, 16 * n); /* n objects of 0x10 bytes */
    for (int round = 0; round < 2; round++) {
        cut_path = path;
        cut_done = 0;
        gch_allocator cutting = { cutting_malloc, plain_realloc, plain_free, NULL, NULL };
        gch_set_allocator(&cutting);
        answer a = run(s, 4, argv);
        gch_set_allocator(NULL);
        assert_true(cut_done); /* cut while the command ran */
        if (a.rc != 0 || !strstr(a.out, want) || a.err_len != 0)
            fail_msg("round %d: status %d, stderr '%s', stdout '%s'", round, a.rc, a.err, a.out);
        answer_free(&a);
        /* the next command: the file changed, so it is read again, as it is
         * now (100 bytes: the first objects, no end record) */
        a = run(s, 4, argv);
        assert_int_equal(a.rc, 0);
        assert_non_null(strstr(a.out, "\tA"));
        assert_null(strstr(a.out, want));
        assert_non_null(strstr(a.err, "warning"));
        answer_free(&a);
        write_gclog(path, n); /* whole again: answered in full */
        a = run(s, 4, argv);
        assert_int_equal(a.rc, 0);
        assert_non_null(strstr(a.out, want));
        answer_free(&a);
    }
    cli_session_free(s);
    remove(path);
}

/* Memory the library hands to the program is given back with gch_free,
 * never free: under an allocator whose blocks begin 64 bytes into the C
 * library's (as the program's big-page blocks are not the C library's at
 * all), a stray free() aborts. Every command that frees a library result
 * runs (retainers --dominators freed its chain with free() once), each
 * block is given back by the time the session ends. */
static long offset_live;

static void *offset_malloc(void *c, size_t n)
{
    (void)c;
    char *p = malloc(n + 64);
    offset_live += p != NULL;
    return p ? p + 64 : NULL;
}

static void *offset_realloc(void *c, void *p, size_t n)
{
    (void)c;
    char *q = realloc((char *)p - 64, n + 64);
    return q ? q + 64 : NULL;
}

static void offset_free(void *c, void *p)
{
    (void)c;
    offset_live--;
    free((char *)p - 64);
}

static void library_memory_given_back(void **state)
{
    (void)state;
    char path[] = "/tmp/gcheap-session-offset-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_gclog(path, 50);
    char html[sizeof path + 8];
    snprintf(html, sizeof html, "%s.html", path);
    char *cmds[][8] = {
        { "retainers", "--dominators", path, "40", NULL },
        { "retainers", path, "40", NULL },
        { "report", path, "-o", html, NULL },
        { "stat", "--live", path, NULL },
        { "refs", path, "40", NULL },
        { "objects", "--sort", "distance", path, NULL },
        { "top", path, NULL },
        { "suspects", path, NULL },
        { "check", "--max-bytes", "1", "--live", path, NULL },
    };
    gch_allocator offset = { offset_malloc, offset_realloc, offset_free, NULL, NULL };
    gch_set_allocator(&offset);
    offset_live = 0;
    cli_session *s = cli_session_new();
    for (size_t k = 0; k < sizeof cmds / sizeof *cmds; k++) {
        int argc = 0;
        while (cmds[k][argc])
            argc++;
        answer a = run(s, argc, cmds[k]);
        if (a.rc > 1) /* check's limit is exit 1 */
            fail_msg("%s: status %d, stderr '%s'", cmds[k][0], a.rc, a.err);
        answer_free(&a);
    }
    cli_session_free(s);
    gch_set_allocator(NULL);
    assert_int_equal(offset_live, 0);
    remove(html);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gclog_heap),
        cmocka_unit_test(hprof_heap),
        cmocka_unit_test(v8_heap),
        cmocka_unit_test(reload_and_limit),
        cmocka_unit_test(shell_words),
        cmocka_unit_test(out_of_memory_ends_the_run),
        cmocka_unit_test(shrinking_dump),
        cmocka_unit_test(library_memory_given_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
