/* Writes the Dart command-test fixtures (see tests/support/dart_twin.h):
 *   build/tests/make_dart_fixtures testdata/dart
 * twin.dartheap and twin.gclog (the same heap). The files are committed;
 * tests/unit/test_dart_twin.c fails when they no longer match what this
 * writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_twin.h"

static int write_file(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(data, 1, size, fp) != size || fclose(fp) != 0) {
        fprintf(stderr, "make_dart_fixtures: cannot write %s\n", path);
        return 1;
    }
    printf("%s: %zu bytes\n", path, size);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_dart_fixtures DIR\n");
        return 2;
    }
    dtw_buf snap;
    memset(&snap, 0, sizeof snap);
    dart_twin_dartheap(&snap);
    size_t len = 0;
    char *log = dart_twin_gclog(&len);
    int bad = write_file(argv[1], "twin.dartheap", snap.data, snap.size);
    bad |= write_file(argv[1], "twin.gclog", log, len);
    dtw_buf_free(&snap);
    free(log);
    return bad;
}
