/* The program's platform layer (src/cli/platform.c): mapping input files, and
 * the clean exit when a mapped file shrinks under the reader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/platform.h"

#define PAGES 4

/* A temporary file of size bytes, byte i being 'a' + i % 26. */
static void make_file(char *path, size_t cap, size_t size)
{
    snprintf(path, cap, "/tmp/gcheap-test-platform-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    for (size_t i = 0; i < size; i++) {
        char c = (char)('a' + i % 26);
        assert_int_equal(write(fd, &c, 1), 1);
    }
    close(fd);
}

static void test_map_reads_the_file(void **state)
{
    (void)state;
    char path[64];
    size_t size = (size_t)PAGES * 4096 + 123;
    make_file(path, sizeof path, size);
    const char *why = NULL;
    plat_file *f = plat_open(path, &why);
    assert_non_null(f);
    uint64_t got = 0;
    const char *p = plat_map(f, "test", &got);
    assert_non_null(p);
    assert_int_equal(got, size);
    for (size_t i = 0; i < size; i++)
        assert_int_equal(p[i], 'a' + i % 26);
    /* Released pages read back the same; a second map is refused. */
    plat_release(f, p + 100, 3 * 4096);
    for (size_t i = 0; i < size; i++)
        assert_int_equal(p[i], 'a' + i % 26);
    assert_null(plat_map(f, "test", &got));
    assert_int_equal(got, 0);
    plat_unmap(f);
    plat_close(f);
    unlink(path);
}

static void test_map_refuses_empty_files_and_pipes(void **state)
{
    (void)state;
    char path[64];
    make_file(path, sizeof path, 0);
    const char *why = NULL;
    plat_file *f = plat_open(path, &why);
    assert_non_null(f);
    uint64_t got = 1;
    assert_null(plat_map(f, "test", &got));
    assert_int_equal(got, 0);
    plat_close(f);
    unlink(path);

    /* A pipe as standard input: read, never mapped. */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    int saved = dup(STDIN_FILENO);
    assert_true(saved >= 0);
    assert_int_equal(dup2(fds[0], STDIN_FILENO), STDIN_FILENO);
    f = plat_open("-", &why);
    assert_non_null(f);
    assert_null(plat_map(f, "<stdin>", &got));
    plat_close(f);
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    close(fds[0]);
    close(fds[1]);
}

/* In a child: map the file, cut it to one page, touch the last page. The
 * child must exit with status 2 and say why on stderr. */
static void test_shrinking_file_exits_cleanly(void **state)
{
    (void)state;
    char path[64], errpath[64];
    make_file(path, sizeof path, (size_t)PAGES * 4096);
    snprintf(errpath, sizeof errpath, "/tmp/gcheap-test-platform-err-XXXXXX");
    int errfd = mkstemp(errpath);
    assert_true(errfd >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(errfd, STDERR_FILENO);
        const char *why = NULL;
        plat_file *f = plat_open(path, &why);
        uint64_t got = 0;
        const volatile char *p = f ? plat_map(f, "dump.gclog", &got) : NULL;
        if (!p || truncate(path, 4096) != 0)
            _exit(10);
        char c = p[(PAGES - 1) * 4096];
        _exit(c == 0 ? 11 : 12); /* not reached: the page is gone */
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 2);
    char msg[256] = { 0 };
    assert_true(pread(errfd, msg, sizeof msg - 1, 0) > 0);
    assert_string_equal(msg, "gcheap: dump.gclog: the file shrank while it was being read\n");
    close(errfd);
    unlink(errpath);
    unlink(path);
}

/* plat_read_whole: the file's bytes in a copy; a file shorter than when it
 * was opened (it shrank) is refused with that reason; the copy stays
 * readable whatever happens to the file after. */
static void test_read_whole(void **state)
{
    (void)state;
    char path[64];
    size_t size = (size_t)PAGES * 4096 + 5;
    make_file(path, sizeof path, size);
    const char *why = NULL;
    plat_file *f = plat_open(path, &why);
    assert_non_null(f);
    uint64_t got = 0;
    char *p = plat_read_whole(f, &got, &why);
    assert_non_null(p);
    assert_null(why);
    assert_int_equal(got, size);
    assert_int_equal(truncate(path, 10), 0);
    for (size_t i = 0; i < size; i++)
        assert_int_equal(p[i], 'a' + i % 26);
    free(p);
    /* opened at its old size, then cut: refused, and why */
    p = plat_read_whole(f, &got, &why);
    assert_null(p);
    assert_int_equal(got, 0);
    assert_non_null(why);
    assert_string_equal(why, "the file shrank while it was being read");
    plat_close(f);
    /* empty: nothing to copy, no reason (the caller reads it as a stream) */
    assert_int_equal(truncate(path, 0), 0);
    f = plat_open(path, &why);
    assert_non_null(f);
    why = "x";
    assert_null(plat_read_whole(f, &got, &why));
    assert_null(why);
    plat_close(f);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_reads_the_file),
        cmocka_unit_test(test_map_refuses_empty_files_and_pipes),
        cmocka_unit_test(test_shrinking_file_exits_cleanly),
        cmocka_unit_test(test_read_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
