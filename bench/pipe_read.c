/* pipe_read - the transport floor of `cat FILE | gcheap stat -`: reads
 * standard input the way gcheap's .gclog reader does (a 1 MiB pipe, 2 MiB
 * blocks in a ring of six buffers) and does nothing else with the bytes but
 * count them. `cat FILE | pipe_read` is then what moving the file through a
 * pipe into gcheap's buffers costs, before any parsing (bench/run.sh --text).
 *
 *   cat FILE | pipe_read          prints the bytes read
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define BLOCK ((size_t)2 << 20)
#define BUFFERS 6

int main(void)
{
#ifdef F_SETPIPE_SZ
    if (fcntl(STDIN_FILENO, F_GETPIPE_SZ) < (1 << 20))
        (void)fcntl(STDIN_FILENO, F_SETPIPE_SZ, 1 << 20);
#endif
    char *buf[BUFFERS];
    for (int i = 0; i < BUFFERS; i++)
        if (!(buf[i] = malloc(BLOCK))) {
            fprintf(stderr, "pipe_read: out of memory\n");
            return 2;
        }
    unsigned long long total = 0;
    for (int k = 0;; k = (k + 1) % BUFFERS) {
        size_t n = 0;
        ssize_t got = 0;
        while (n < BLOCK && (got = read(STDIN_FILENO, buf[k] + n, BLOCK - n)) > 0)
            n += (size_t)got;
        if (got < 0) {
            perror("pipe_read");
            return 2;
        }
        total += n;
        if (n < BLOCK)
            break;
    }
    printf("%llu\n", total);
    for (int i = 0; i < BUFFERS; i++)
        free(buf[i]);
    return 0;
}
