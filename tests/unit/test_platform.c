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

#include <pthread.h>

#include "cli/platform.h"
#include "gcheap/alloc.h"

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

/* The big-page allocator through the library's entry points: big blocks on
 * their own 2 MiB-aligned mappings (counted), zeroed by calloc, kept whole
 * when they grow (their bytes moved, not lost), given back on free; small
 * blocks and blocks that began small are the C library's (not counted). */
static void check_pattern(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 4093)
        assert_int_equal(p[i], (unsigned char)(i * 31 + seed));
}

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 4093)
        p[i] = (unsigned char)(i * 31 + seed);
}

static void test_big_page_allocator(void **state)
{
    (void)state;
    const gch_allocator *a = plat_big_page_allocator();
    if (!a)
        skip(); /* no huge pages to ask for on this platform */
    gch_set_allocator(a);
    size_t before = plat_big_blocks();
    unsigned char *small = gch_malloc(1000);
    unsigned char *grown = gch_malloc(1000); /* began small: stays the C library's */
    assert_non_null(small);
    assert_non_null(grown);
    assert_int_equal(plat_big_blocks(), before);
    grown = gch_realloc(grown, PLAT_BIG_BLOCK * 2);
    assert_non_null(grown);
    assert_int_equal(plat_big_blocks(), before);
    size_t n = PLAT_BIG_BLOCK + 12345;
    unsigned char *b = gch_malloc(n);
    assert_non_null(b);
    assert_int_equal((uintptr_t)b % (2u << 20), 0);
    assert_int_equal(plat_big_blocks(), before + 1);
    fill_pattern(b, n, 7);
    b = gch_realloc(b, 5 * n); /* moved without a copy: the bytes kept */
    assert_non_null(b);
    assert_int_equal((uintptr_t)b % (2u << 20), 0);
    assert_int_equal(plat_big_blocks(), before + 1);
    check_pattern(b, n, 7);
    b[5 * n - 1] = 1; /* the new end is there */
    assert_ptr_equal(gch_realloc(b, n), b); /* shrinking keeps it */
    unsigned char *z = gch_calloc(PLAT_BIG_BLOCK / 8 + 1, 8);
    assert_non_null(z);
    assert_int_equal(plat_big_blocks(), before + 2);
    for (size_t i = 0; i < PLAT_BIG_BLOCK + 8; i++)
        if (z[i]) /* not one assert per byte */
            fail_msg("byte %zu of a big calloc is %u", i, z[i]);
    gch_free(z);
    gch_free(b);
    gch_free(small);
    gch_free(grown);
    assert_int_equal(plat_big_blocks(), before);
    gch_set_allocator(NULL);
}

/* Two threads taking and giving back big blocks at once (ThreadSanitizer
 * runs this test): each finds its bytes as it left them. */
static void *churn(void *arg)
{
    unsigned seed = (unsigned)(uintptr_t)arg;
    for (int k = 0; k < 40; k++) {
        size_t n = PLAT_BIG_BLOCK + (size_t)k * 65536;
        unsigned char *p = gch_malloc(n);
        if (!p)
            return (void *)1;
        fill_pattern(p, n, seed + (unsigned)k);
        p = gch_realloc(p, 2 * n);
        if (!p)
            return (void *)1;
        for (size_t i = 0; i < n; i += 4093)
            if (p[i] != (unsigned char)(i * 31 + seed + (unsigned)k))
                return (void *)1;
        gch_free(p);
    }
    return NULL;
}

static void test_big_blocks_on_two_threads(void **state)
{
    (void)state;
    const gch_allocator *a = plat_big_page_allocator();
    if (!a)
        skip();
    gch_set_allocator(a);
    size_t before = plat_big_blocks();
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, churn, (void *)(uintptr_t)3), 0);
    void *mine = churn((void *)(uintptr_t)11), *theirs = (void *)1;
    pthread_join(t, &theirs);
    assert_null(mine);
    assert_null(theirs);
    assert_int_equal(plat_big_blocks(), before);
    gch_set_allocator(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_reads_the_file),
        cmocka_unit_test(test_map_refuses_empty_files_and_pipes),
        cmocka_unit_test(test_shrinking_file_exits_cleanly),
        cmocka_unit_test(test_read_whole),
        cmocka_unit_test(test_big_page_allocator),
        cmocka_unit_test(test_big_blocks_on_two_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
