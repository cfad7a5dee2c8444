/* Developer tool (not a test): writes testdata/leaks/, the leak scenario of
 * tests/support/leak_scenario.h as files: leak-1..3.gclog (100, 200, 300
 * listeners), churn-1..3.gclog (100 listeners, sessions with new ids), and
 * the leak series as leak-1..3.gcdump and leak-1..3.dartheap.
 *   make_leak_fixtures TESTDATA_DIR */
#include <stdio.h>
#include <stdlib.h>

#include "leak_scenario.h"

static void put(const char *dir, const char *name, void (*write)(const ls_params *, unsigned char **, size_t *),
                ls_params p)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/leaks/%s", dir, name);
    unsigned char *data;
    size_t size;
    write(&p, &data, &size);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    free(data);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_leak_fixtures TESTDATA_DIR\n");
        return 2;
    }
    const char *d = argv[1];
    put(d, "leak-1.gclog", ls_write_gclog, (ls_params){ 100, 20, 5, 0 });
    put(d, "leak-2.gclog", ls_write_gclog, (ls_params){ 200, 20, 5, 1 });
    put(d, "leak-3.gclog", ls_write_gclog, (ls_params){ 300, 20, 5, 2 });
    put(d, "churn-1.gclog", ls_write_gclog, (ls_params){ 100, 20, 5, 0 });
    put(d, "churn-2.gclog", ls_write_gclog, (ls_params){ 100, 20, 5, 1 });
    put(d, "churn-3.gclog", ls_write_gclog, (ls_params){ 100, 20, 5, 2 });
    put(d, "leak-1.gcdump", ls_write_gcdump, (ls_params){ 100, 20, 5, 0 });
    put(d, "leak-2.gcdump", ls_write_gcdump, (ls_params){ 200, 20, 5, 1 });
    put(d, "leak-3.gcdump", ls_write_gcdump, (ls_params){ 300, 20, 5, 2 });
    put(d, "leak-1.dartheap", ls_write_dart, (ls_params){ 100, 20, 5, 0 });
    put(d, "leak-2.dartheap", ls_write_dart, (ls_params){ 200, 20, 5, 1 });
    put(d, "leak-3.dartheap", ls_write_dart, (ls_params){ 300, 20, 5, 2 });
    return 0;
}
