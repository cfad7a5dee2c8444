/* The only place the program touches POSIX: opening and reading inputs,
 * asking whether stderr is a terminal. Everything else is standard C. */
#ifndef GCHEAP_CLI_PLATFORM_H
#define GCHEAP_CLI_PLATFORM_H

#include <stdint.h>

typedef struct plat_file plat_file;

/* Opens path for reading ("-" is standard input). Returns NULL and sets
 * *reason (static text) on failure. */
plat_file *plat_open(const char *path, const char **reason);
/* Reads up to cap bytes: count, 0 at end, -1 on error (retries on EINTR). */
long long plat_read(plat_file *f, void *buf, uint64_t cap);
/* Size of a regular file, or 0 when unknown (a pipe). */
uint64_t plat_size(const plat_file *f);
void plat_close(plat_file *f);
/* 1 when stderr is a terminal. */
int plat_stderr_is_tty(void);
/* Seconds on a monotonic clock. */
double plat_now(void);

#endif
