/* Writes the V8 command-test fixture (see tests/support/v8_sample.h):
 *   build/tests/make_v8_fixtures testdata/v8
 * sample.heapsnapshot. The file is committed; tests/unit/test_v8_reader.c
 * fails when it no longer matches what this writes. */
#include <stdio.h>
#include <stdlib.h>

#include "v8_sample.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_v8_fixtures DIR\n");
        return 2;
    }
    size_t len;
    char *text = v8_sample_write(V8_SAMPLE_FIXTURE, &len);
    char path[4096];
    snprintf(path, sizeof path, "%s/sample.heapsnapshot", argv[1]);
    FILE *fp = text ? fopen(path, "wb") : NULL;
    if (!fp || fwrite(text, 1, len, fp) != len || fclose(fp) != 0) {
        fprintf(stderr, "make_v8_fixtures: cannot write %s\n", path);
        return 1;
    }
    printf("%s: %zu bytes\n", path, len);
    free(text);
    return 0;
}
