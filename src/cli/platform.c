/* POSIX implementation of platform.h. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#endif
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PIPE_BUFFER (1 << 20)

struct plat_file {
    int fd;
    int owned;
    uint64_t size;
};

plat_file *plat_open(const char *path, const char **reason)
{
    plat_file *f = malloc(sizeof *f);
    if (!f) {
        *reason = "out of memory";
        return NULL;
    }
    if (strcmp(path, "-") == 0) {
        f->fd = STDIN_FILENO;
        f->owned = 0;
    } else {
        f->fd = open(path, O_RDONLY);
        f->owned = 1;
        if (f->fd < 0) {
            *reason = strerror(errno);
            free(f);
            return NULL;
        }
    }
    struct stat st;
    f->size = 0;
    if (fstat(f->fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            *reason = "is a directory";
            if (f->owned)
                close(f->fd);
            free(f);
            return NULL;
        }
        if (S_ISREG(st.st_mode))
            f->size = (uint64_t)st.st_size;
#ifdef F_SETPIPE_SZ
        /* A 64 KiB pipe makes every read a small one and wakes the writer
         * often; ask for 1 MiB (the default limit for unprivileged users). On
         * failure the pipe keeps its size. */
        if (S_ISFIFO(st.st_mode) && fcntl(f->fd, F_GETPIPE_SZ) < PIPE_BUFFER)
            (void)fcntl(f->fd, F_SETPIPE_SZ, PIPE_BUFFER);
#endif
    }
    return f;
}

long long plat_read(plat_file *f, void *buf, uint64_t cap)
{
    for (;;) {
        ssize_t n = read(f->fd, buf, cap > (1u << 30) ? (1u << 30) : (size_t)cap);
        if (n >= 0)
            return (long long)n;
        if (errno != EINTR)
            return -1;
    }
}

uint64_t plat_size(const plat_file *f) { return f->size; }

void plat_close(plat_file *f)
{
    if (!f)
        return;
    if (f->owned)
        close(f->fd);
    free(f);
}

int plat_stderr_is_tty(void) { return isatty(STDERR_FILENO); }

double plat_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
