/* POSIX implementation of platform.h. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#endif
#include "platform.h"
#include "gcheap/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PIPE_BUFFER (1 << 20)

struct plat_file {
    int fd;
    int owned;
    uint64_t size;
    void *map; /* plat_map's mapping, or NULL */
    size_t map_size;
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
    f->map = NULL;
    f->map_size = 0;
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

int plat_read_at(plat_file *f, uint64_t off, void *buf, uint64_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        if (off > (uint64_t)INT64_MAX)
            return -1;
        ssize_t got = pread(f->fd, p, n > (1u << 30) ? (1u << 30) : (size_t)n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got;
        off += (uint64_t)got;
        n -= (uint64_t)got;
    }
    return 0;
}

uint64_t plat_size(const plat_file *f) { return f->size; }

/* The mapped range and what to say when a page of it is gone (the file
 * shrank): the SIGBUS handler reads them, so they are set before it is
 * installed and cleared after it is removed. */
static volatile sig_atomic_t shrink_armed;
static char *shrink_lo, *shrink_hi;
static char shrink_message[600];
static size_t shrink_message_len;
static struct sigaction shrink_previous;

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    (void)context;
    char *at = info->si_addr;
    if (shrink_armed && at >= shrink_lo && at < shrink_hi) {
        ssize_t ignored = write(STDERR_FILENO, shrink_message, shrink_message_len);
        (void)ignored;
        _exit(2);
    }
    /* Not ours: die of the signal as if there were no handler. */
    signal(sig, SIG_DFL);
    raise(sig);
}

const void *plat_map(plat_file *f, const char *name, uint64_t *size)
{
    *size = 0;
    if (f->map || f->size == 0 || f->size > SIZE_MAX)
        return NULL;
    void *p = mmap(NULL, (size_t)f->size, PROT_READ, MAP_PRIVATE, f->fd, 0);
    if (p == MAP_FAILED)
        return NULL;
    /* The parser reads the file once, front to back. */
    (void)posix_madvise(p, (size_t)f->size, POSIX_MADV_SEQUENTIAL);
    int n = snprintf(shrink_message, sizeof shrink_message,
                     "gcheap: %s: the file shrank while it was being read\n", name);
    shrink_message_len = n < 0 ? 0 : (size_t)n < sizeof shrink_message ? (size_t)n
                                                                       : sizeof shrink_message - 1;
    shrink_lo = p;
    shrink_hi = (char *)p + f->size;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGBUS, &sa, &shrink_previous) != 0) {
        munmap(p, (size_t)f->size);
        return NULL;
    }
    shrink_armed = 1;
    f->map = p;
    f->map_size = (size_t)f->size;
    *size = f->size;
    return p;
}

void plat_release(plat_file *f, const void *p, uint64_t n)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), lo = (uintptr_t)p, hi = lo + n;
    if (!f->map || page == 0 || page == (uintptr_t)-1)
        return;
    lo = (lo + page - 1) / page * page;
    hi = hi / page * page;
#ifdef MADV_DONTNEED
    /* Not posix_madvise: glibc makes POSIX_MADV_DONTNEED a no-op. On a
     * read-only mapping of a file this only unmaps the pages. */
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
#endif
}

void *plat_read_whole(plat_file *f, uint64_t *size, const char **reason)
{
    *size = 0;
    *reason = NULL;
    if (f->size == 0 || f->size > SIZE_MAX)
        return NULL;
    char *p = malloc((size_t)f->size);
    if (!p) {
        *reason = "out of memory";
        return NULL;
    }
    errno = 0;
    if (plat_read_at(f, 0, p, f->size) != 0) {
        struct stat st;
        int shrank = fstat(f->fd, &st) == 0 && (uint64_t)st.st_size < f->size;
        *reason = shrank ? "the file shrank while it was being read"
                         : errno ? strerror(errno) : "read error";
        free(p);
        return NULL;
    }
    *size = f->size;
    return p;
}

void plat_unmap(plat_file *f)
{
    if (!f->map)
        return;
    shrink_armed = 0;
    sigaction(SIGBUS, &shrink_previous, NULL);
    munmap(f->map, f->map_size);
    f->map = NULL;
    f->map_size = 0;
}

void plat_close(plat_file *f)
{
    if (!f)
        return;
    plat_unmap(f);
    if (f->owned)
        close(f->fd);
    free(f);
}

struct plat_out {
    FILE *f;
    char *temp; /* the temporary file, or NULL when written in place */
    char *path;
};

/* The temporary file's name beside path: DIR/.NAME.XXXXXX. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path + 1) : 0;
    size_t n = strlen(path);
    char *t = malloc(n + 16);
    if (t) {
        memcpy(t, path, dir);
        snprintf(t + dir, n + 16 - dir, ".%s.XXXXXX", path + dir);
    }
    return t;
}

plat_out *plat_out_open(const char *path, FILE **f, const char **reason)
{
    plat_out *o = calloc(1, sizeof *o);
    if (!o || !(o->path = strdup(path))) {
        free(o);
        *reason = "out of memory";
        return NULL;
    }
    struct stat st;
    int exists = lstat(path, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        /* A symlink, FIFO or device (or a folder: then fopen says why). */
        o->f = fopen(path, "w");
    } else if ((o->temp = temp_name(path)) != NULL) {
        int fd = mkstemp(o->temp);
        mode_t mode;
        if (exists) {
            mode = st.st_mode & 07777;
        } else {
            mode_t mask = umask(0);
            umask(mask);
            mode = 0666 & ~mask;
        }
        if (fd >= 0 && (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w")))) {
            int e = errno;
            close(fd);
            unlink(o->temp);
            errno = e;
        } else if (fd < 0) {
            free(o->temp);
            o->temp = NULL;
        }
    } else {
        errno = ENOMEM;
    }
    if (!o->f) {
        *reason = strerror(errno);
        free(o->temp);
        free(o->path);
        free(o);
        return NULL;
    }
    *f = o->f;
    return o;
}

static void out_free(plat_out *o)
{
    free(o->temp);
    free(o->path);
    free(o);
}

int plat_out_commit(plat_out *o, const char **reason)
{
    int failed = fflush(o->f) != 0 || ferror(o->f);
    int e = errno;
    if (fclose(o->f) != 0 && !failed) {
        failed = 1;
        e = errno;
    }
    if (!failed && o->temp && rename(o->temp, o->path) != 0) {
        failed = 1;
        e = errno;
    }
    if (failed && o->temp)
        unlink(o->temp);
    *reason = failed ? strerror(e) : NULL;
    out_free(o);
    return failed ? -1 : 0;
}

void plat_out_discard(plat_out *o)
{
    fclose(o->f);
    if (o->temp)
        unlink(o->temp);
    out_free(o);
}

int plat_stderr_is_tty(void) { return isatty(STDERR_FILENO); }

int plat_stdin_is_tty(void) { return isatty(STDIN_FILENO); }

int plat_file_stamp(const char *path, plat_stamp *out)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    memset(out, 0, sizeof *out);
    out->size = (uint64_t)st.st_size;
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    out->mtime_sec = (int64_t)st.st_mtim.tv_sec;
    out->mtime_nsec = (int64_t)st.st_mtim.tv_nsec;
    return 0;
}

double plat_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Ctrl-C (or a kill) while a progress line shows: clear the line, then die
 * of the signal as usual (the shell sees the status it expects). Only
 * async-signal-safe calls here: write, signal, raise. */
static void clear_line_and_die(int sig)
{
    static const char clear[] = "\r\033[K";
    ssize_t ignored = write(STDERR_FILENO, clear, sizeof clear - 1);
    (void)ignored;
    signal(sig, SIG_DFL);
    raise(sig);
}

void plat_clear_line_on_interrupt(void)
{
    static int installed;
    if (installed)
        return;
    installed = 1;
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa, old;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = clear_line_and_die;
        sigemptyset(&sa.sa_mask);
        /* a signal the caller ignores (nohup, `trap '' INT`) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

/* ---- the MCP server's needs (src/mcp, src/cli/cmd_mcp.c) ---- */

char *plat_realpath(const char *path, const char **reason)
{
    char *r = realpath(path, NULL);
    if (!r)
        *reason = strerror(errno);
    return r;
}

FILE *plat_memstream(char **buf, size_t *len) { return open_memstream(buf, len); }

FILE *plat_protocol_stdout(void)
{
    fflush(stdout);
    int fd = dup(STDOUT_FILENO);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        return NULL;
    }
    /* Anything else written to stdout from now on lands on stderr. */
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        fclose(f);
        return NULL;
    }
    signal(SIGPIPE, SIG_IGN); /* a client that went away is a write error, not a kill */
    return f;
}

/* ---- whole-file mappings kept beyond one read (the index) ---- */

struct plat_mapping {
    void *p;
    size_t size;
};

plat_mapping *plat_mapping_open(const char *path, const void **data, uint64_t *size,
                                const char **reason)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        *reason = strerror(errno);
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size > SIZE_MAX) {
        *reason = "not a regular file with contents";
        close(fd);
        return NULL;
    }
    plat_mapping *m = malloc(sizeof *m);
    /* Private and writable: the pages are the file's until something writes
     * (nothing should), and no write can ever reach the file. */
    void *p = m ? mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
                : MAP_FAILED;
    int e = errno;
    close(fd);
    if (p == MAP_FAILED) {
        *reason = m ? strerror(e) : "out of memory";
        free(m);
        return NULL;
    }
    m->p = p;
    m->size = (size_t)st.st_size;
    *data = p;
    *size = m->size;
    return m;
}

void plat_mapping_close(void *m)
{
    plat_mapping *pm = m;
    if (!pm)
        return;
    munmap(pm->p, pm->size);
    free(pm);
}

int plat_mkdirs(const char *path)
{
    char *p = strdup(path);
    if (!p)
        return -1;
    int rc = 0;
    for (char *s = p + 1; rc == 0; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST)
            rc = -1;
        *s = c;
        if (c == '\0')
            break;
    }
    free(p);
    return rc;
}

/* ---- big blocks with huge pages ---- */

/* Under AddressSanitizer the C library's blocks stay (its checks see them). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GCHEAP_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define GCHEAP_ASAN 1
#endif

#if defined(__linux__) && defined(MADV_HUGEPAGE) && defined(MREMAP_MAYMOVE) && \
    defined(MREMAP_FIXED) && !defined(GCHEAP_ASAN)
#define HUGE_PAGE ((size_t)2 << 20)
#define MAX_BIG 1024 /* more at once: the C library's (never seen: a few dozen) */

typedef struct big_block {
    void *p;
    size_t len;
} big_block;

static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
static big_block big[MAX_BIG];
static size_t nbig;

/* n bytes of address space at a 2 MiB boundary (PROT_NONE when reserve,
 * else read-write zero pages asked to be huge), or NULL. */
static void *map_aligned(size_t n, int reserve)
{
    size_t over = n + HUGE_PAGE;
    /* Read-write blocks are accounted as malloc's are (no MAP_NORESERVE): a
     * size the machine cannot hold fails here, not when it is touched. */
    int prot = reserve ? PROT_NONE : PROT_READ | PROT_WRITE;
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | (reserve ? MAP_NORESERVE : 0);
    char *m = mmap(NULL, over, prot, flags, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uintptr_t a = ((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    char *p = (char *)a;
    if (p > m)
        munmap(m, (size_t)(p - m));
    if (m + over > p + n)
        munmap(p + n, (size_t)(m + over - (p + n)));
    if (!reserve)
        (void)madvise(p, n, MADV_HUGEPAGE);
    return p;
}

static size_t round_huge(size_t n) { return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1); }

/* The table slot of p, or -1 (p is the C library's). Called locked. */
static long big_slot(const void *p)
{
    if (((uintptr_t)p & (HUGE_PAGE - 1)) != 0)
        return -1;
    for (size_t i = 0; i < nbig; i++)
        if (big[i].p == p)
            return (long)i;
    return -1;
}

/* A big block of n bytes (zero pages), or NULL when none can be had. */
static void *big_new(size_t n)
{
    if (n > SIZE_MAX - 2 * HUGE_PAGE)
        return NULL;
    size_t len = round_huge(n);
    pthread_mutex_lock(&big_lock);
    int room = nbig < MAX_BIG;
    pthread_mutex_unlock(&big_lock);
    void *p = room ? map_aligned(len, 0) : NULL;
    if (!p)
        return NULL;
    pthread_mutex_lock(&big_lock);
    if (nbig < MAX_BIG) {
        big[nbig].p = p;
        big[nbig++].len = len;
    } else {
        munmap(p, len);
        p = NULL;
    }
    pthread_mutex_unlock(&big_lock);
    return p;
}

static void *big_malloc(void *ctx, size_t n)
{
    (void)ctx;
    void *p = n >= PLAT_BIG_BLOCK ? big_new(n) : NULL;
    return p ? p : malloc(n);
}

static void *big_calloc(void *ctx, size_t count, size_t size)
{
    (void)ctx;
    size_t n = count * size; /* the library checked the product */
    void *p = n >= PLAT_BIG_BLOCK ? big_new(n) : NULL;
    return p ? p : calloc(count, size);
}

static void big_free(void *ctx, void *p)
{
    (void)ctx;
    pthread_mutex_lock(&big_lock);
    long i = big_slot(p);
    size_t len = 0;
    if (i >= 0) {
        len = big[i].len;
        big[i] = big[--nbig];
    }
    pthread_mutex_unlock(&big_lock);
    if (i >= 0)
        munmap(p, len);
    else
        free(p);
}

/* A big block grows by moving its pages to a bigger aligned range (no copy);
 * a block that began small stays the C library's. */
static void *big_realloc(void *ctx, void *p, size_t n)
{
    (void)ctx;
    pthread_mutex_lock(&big_lock);
    long i = big_slot(p);
    size_t len = i >= 0 ? big[i].len : 0;
    pthread_mutex_unlock(&big_lock);
    if (i < 0)
        return realloc(p, n);
    if (n <= len)
        return p;
    if (n > SIZE_MAX - 2 * HUGE_PAGE)
        return NULL;
    size_t want = round_huge(n);
    void *to = map_aligned(want, 1);
    if (!to)
        return NULL;
    void *q = mremap(p, len, want, MREMAP_MAYMOVE | MREMAP_FIXED, to);
    if (q == MAP_FAILED) {
        munmap(to, want);
        return NULL;
    }
    (void)madvise(q, want, MADV_HUGEPAGE);
    pthread_mutex_lock(&big_lock);
    i = big_slot(p);
    big[i].p = q;
    big[i].len = want;
    pthread_mutex_unlock(&big_lock);
    return q;
}

const gch_allocator *plat_big_page_allocator(void)
{
    static const gch_allocator a = { big_malloc, big_realloc, big_free, NULL, big_calloc };
    return &a;
}

size_t plat_big_blocks(void)
{
    pthread_mutex_lock(&big_lock);
    size_t n = nbig;
    pthread_mutex_unlock(&big_lock);
    return n;
}
#else
const gch_allocator *plat_big_page_allocator(void) { return NULL; }
size_t plat_big_blocks(void) { return 0; }
#endif
