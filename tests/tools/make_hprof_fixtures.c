/* Writes HPROF command-test fixtures with the test writer
 * (tests/support/hprof_writer.c):
 *   build/tests/make_hprof_fixtures testdata/hprof
 * shared-value.hprof: 100 java.lang.String objects (JDK 9+ layout: value
 * byte[], coder Latin-1) sharing one 16,384-byte array "0123456789..."
 * repeated, and one String "short": the output-amplification case of issue
 * 36 (finding 6). The file is committed; tests/cli/test_values_cut.sh uses it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hprof_writer.h"

#define SHARED 100
#define LONG_VALUE 16384

static int write_file(const char *dir, const char *name, const hpw *w)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(w->buf, 1, w->len, fp) != w->len || fclose(fp) != 0) {
        fprintf(stderr, "make_hprof_fixtures: cannot write %s\n", path);
        return 1;
    }
    printf("%s: %zu bytes\n", path, w->len);
    return 0;
}

static hpw *shared_value(void)
{
    hpw *w = hpw_new("1.0.2", 8, 1700000000000ull);
    static const char *const names[] = { NULL, "java/lang/String", "value", "coder", "[B",
                                         "java/lang/Object" };
    for (unsigned i = 1; i < sizeof names / sizeof *names; i++)
        hpw_string(w, i, names[i]);
    hpw_load_class(w, 1, 0x100, 1);
    hpw_load_class(w, 2, 0x110, 4);
    hpw_load_class(w, 3, 0x120, 5);
    hpw_begin(w, 0x1C);
    const hpw_field fields[] = { { 2, 2, 0 }, { 3, 8, 0 } };
    hpw_class_dump(w, 0x120, 0, 0, 0, NULL, 0, NULL, 0);
    hpw_class_dump(w, 0x100, 0x120, 0, 9, NULL, 0, fields, 2);
    hpw_class_dump(w, 0x110, 0x120, 0, 0, NULL, 0, NULL, 0);
    char *text = malloc(LONG_VALUE);
    if (!text)
        abort();
    for (size_t i = 0; i < LONG_VALUE; i++)
        text[i] = (char)('0' + i % 10);
    hpw_prim_array(w, 0x1000, 8, LONG_VALUE, text);
    hpw_prim_array(w, 0x1010, 8, 5, "short");
    free(text);
    unsigned char v[9];
    for (unsigned i = 0; i <= SHARED; i++) {
        size_t n = hpw_value(w, 2, i < SHARED ? 0x1000 : 0x1010, v);
        n += hpw_value(w, 8, 0, v + n);
        hpw_instance(w, 0x2000 + 16 * i, 0x100, v, (uint32_t)n);
        hpw_root(w, 0x01, 0x2000 + 16 * i, 0, 0); /* JNI global: the objects are live */
    }
    hpw_end(w);
    hpw_begin(w, 0x2C);
    hpw_end(w);
    return w;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_hprof_fixtures DIR\n");
        return 2;
    }
    hpw *w = shared_value();
    int bad = write_file(argv[1], "shared-value.hprof", w);
    hpw_free(w);
    return bad;
}
