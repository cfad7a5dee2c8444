/* A main for the fuzz harnesses without libFuzzer (GCHEAP_COVERAGE builds):
 * runs LLVMFuzzerTestOneInput once on each file named on the command line,
 * so tests/coverage.sh can measure what the committed corpora reach with
 * gcc's coverage. A harness that finds a violation aborts, as under
 * libFuzzer. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 2;
        }
        size_t cap = 1 << 16, n = 0;
        uint8_t *buf = malloc(cap);
        for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
            n += got;
            if (n == cap) {
                uint8_t *b = realloc(buf, cap *= 2);
                if (!b)
                    free(buf);
                buf = b;
            }
        }
        fclose(f);
        if (!buf) {
            fprintf(stderr, "replay: out of memory on %s\n", argv[i]);
            return 2;
        }
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
    }
    return 0;
}
