/* gclog_parse_bench - the CPU cost of the .gclog reader's histogram-only
 * parse alone (what `gcheap stat` spends per object line on one thread):
 * maps a dump and runs the reader's chunk_parse over it in 4 MiB pieces cut
 * at line ends, the way a region's pieces are parsed, with no merge, no
 * builder and no threads. Prints the best of N passes in ns per object line
 * and a checksum of what was parsed (object count, the sums of their ids
 * and of the per-type bytes, the varint bytes), which two builds must agree
 * on.
 *
 *   gclog_parse_bench FILE [PASSES]
 */
#include "gclog_reader.c"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PIECE ((size_t)4 << 20)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: gclog_parse_bench FILE [PASSES]\n");
        return 2;
    }
    int passes = argc > 2 ? atoi(argv[2]) : 5;
    int fd = open(argv[1], O_RDONLY);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0 || sb.st_size < 4096) {
        perror(argv[1]);
        return 2;
    }
    size_t size = (size_t)sb.st_size;
    const char *data = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    /* the part parsed ends at a newline with PAD readable bytes after it */
    const char *limit = data + size - 2 * PAD;
    while (limit[-1] != '\n')
        limit--;
    chunk c;
    memset(&c, 0, sizeof c);
    c.skip_refs = 1;
    c.hist = 1;
    c.key = gch_hash_key_get();
    double best = 1e30;
    uint64_t objs = 0, idsum = 0, bytes = 0, vbytes = 0, lines = 0, deferred_lines = 0;
    for (int pass = 0; pass < passes; pass++) {
        objs = idsum = bytes = vbytes = lines = deferred_lines = 0;
        double t0 = now(), parse = 0;
        for (const char *p = data; p < limit;) {
            const char *e = (size_t)(limit - p) > PIECE ? p + PIECE : limit;
            while (e[-1] != '\n')
                e--;
            c.p = p;
            c.end = e;
            double s = now();
            chunk_parse(&c);
            parse += now() - s;
            if (c.oom) {
                fprintf(stderr, "out of memory\n");
                return 2;
            }
            objs += c.nobj;
            for (size_t i = 0; i < c.nobj; i++)
                idsum += c.id[i] * 31 + c.size[i] + c.type_raw[c.type[i]];
            for (size_t t = 0; t < c.ntypes; t++)
                bytes += c.type_bytes[t] * (t + 1) + c.type_objects[t];
            vbytes += c.vlen;
            for (size_t k = 0; k < c.vlen; k++)
                vbytes += c.vints[k];
            lines += c.lines;
            deferred_lines += c.nev;
            p = e;
        }
        (void)t0;
        if (parse < best)
            best = parse;
    }
    printf("%.2f ns/object  (%.3f s, %llu objects, %llu lines, %llu deferred) checksum %llx %llx %llx\n",
           best * 1e9 / (double)objs, best, (unsigned long long)objs, (unsigned long long)lines,
           (unsigned long long)deferred_lines, (unsigned long long)idsum, (unsigned long long)bytes,
           (unsigned long long)vbytes);
    chunk_free(&c);
    return 0;
}
