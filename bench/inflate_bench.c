/* inflate_bench - decompresses a .gz file with gcheap's inflater and throws
 * the output away: the decompression alone, for bench/run.sh to time beside
 * `gzip -dc FILE > /dev/null`.
 *
 *   inflate_bench FILE.gz
 *
 * Reads FILE.gz into memory, then streams it through gch_gunzip_read into a
 * 1 MiB buffer, as the .gclog reader reads it (every CRC and length checked).
 * Prints the output size and the throughput of the decompression alone, by
 * wall and by CPU time (the machine may be shared); run.sh compares the user
 * CPU time of the whole process with gzip's. Exit 2 on error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gzip.h"

typedef struct whole {
    const unsigned char *p;
    size_t n;
    int given;
} whole;

static long long whole_pull(void *ctx, const unsigned char **chunk)
{
    whole *w = ctx;
    if (w->given || !w->n)
        return 0;
    w->given = 1;
    *chunk = w->p;
    return (long long)w->n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: inflate_bench FILE.gz\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1u << 20, n = 0;
    unsigned char *data = malloc(cap);
    for (size_t got; data && (got = fread(data + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap)
            data = realloc(data, cap *= 2);
    }
    fclose(f);
    static unsigned char out[1u << 20];
    if (!data) {
        fprintf(stderr, "inflate_bench: out of memory\n");
        return 2;
    }
    whole w = { data, n, 0 };
    gch_gunzip *z;
    if (gch_gunzip_new(whole_pull, &w, &z, NULL) != GCH_OK)
        return 2;
    struct timespec t0, t1;
    clock_t c0 = clock();
    timespec_get(&t0, TIME_UTC);
    long long got;
    unsigned long long total = 0;
    while ((got = gch_gunzip_read(z, out, sizeof out)) > 0)
        total += (unsigned long long)got;
    timespec_get(&t1, TIME_UTC);
    double cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
    if (got < 0) {
        const gch_error *e = gch_gunzip_error(z);
        fprintf(stderr, "inflate_bench: %s: offset %llu: %s\n", argv[1], (unsigned long long)e->offset,
                e->message);
        return 2;
    }
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("%llu bytes out of %zu: %.3f s wall, %.3f s CPU: %.0f MB/s of output (wall), %.0f MB/s (CPU)\n",
           total, n, s, cpu, s > 0 ? total / 1e6 / s : 0, cpu > 0 ? total / 1e6 / cpu : 0);
    gch_gunzip_free(z);
    free(data);
    return 0;
}
