/* Writes the .gcdump command-test fixtures (see tests/support/gcdump_twin.h):
 *   build/tests/make_gcdump_fixtures testdata/gcdump
 * twin.gcdump, twin.gclog (the same heap), truncated.gcdump (twin.gcdump
 * cut in half) and sampled.gcdump (twin.gcdump with count multipliers). The files are committed; tests/unit/test_gcdump_twin.c fails
 * when they no longer match what this writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcdump_twin.h"

static int write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0) {
        fprintf(stderr, "make_gcdump_fixtures: cannot write %s\n", path);
        return 1;
    }
    printf("%s: %zu bytes\n", path, size);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_gcdump_fixtures DIR\n");
        return 2;
    }
    gcdw_result r;
    gcdump_twin_gcdump(&r);
    size_t len = 0;
    char *log = gcdump_twin_gclog(&len);
    int bad = write_file(argv[1], "twin.gcdump", r.data, r.size);
    bad |= write_file(argv[1], "twin.gclog", log, len);
    bad |= write_file(argv[1], "truncated.gcdump", r.data, gcdump_twin_truncated_size(r.size));
    free(r.data);
    gcdump_twin_sampled(&r);
    bad |= write_file(argv[1], "sampled.gcdump", r.data, r.size);
    free(r.data);
    free(log);
    return bad;
}
