/* Test tool: writes the Dart snapshot with planted waste of
 * tests/support/dart_waste.c and the oracle's rows (at waste's defaults:
 * 10 copies, 21%) for tests/cli/test_waste_dart.sh:
 *   make_dart_waste OUT.dartheap PREFIX [clean]
 *   make_dart_waste --big N OUT.dartheap   (N more distinct strings; no rows:
 *                                           for timing, docs/performance.md)
 * PREFIX.rows     section TAB type TAB count TAB bytes TAB wasted (every row)
 * PREFIX.dups     count TAB bytes TAB wasted TAB copy TAB length TAB id TAB value
 * PREFIX.holders  type TAB detail (empty collections --holders names)
 * PREFIX.total    the wasted bytes of every row */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_waste.h"
#include "gcheap/waste.h"

static FILE *open_out(const char *prefix, const char *ext)
{
    char path[4096];
    snprintf(path, sizeof path, "%s%s", prefix, ext);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--big") == 0) {
        dwp d;
        dwp_make_big(11, (size_t)strtoull(argv[2], NULL, 10), &d);
        FILE *f = fopen(argv[3], "wb");
        if (!f || fwrite(d.snapshot.data, 1, d.snapshot.size, f) != d.snapshot.size || fclose(f) != 0) {
            perror(argv[3]);
            return 2;
        }
        dwp_free(&d);
        return 0;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: make_dart_waste OUT.dartheap PREFIX [clean]\n");
        return 2;
    }
    dwp d;
    dwp_make(11, !(argc > 3 && strcmp(argv[3], "clean") == 0), 10, 21, &d);
    FILE *f = fopen(argv[1], "wb");
    if (!f || fwrite(d.snapshot.data, 1, d.snapshot.size, f) != d.snapshot.size || fclose(f) != 0) {
        perror(argv[1]);
        return 2;
    }
    FILE *rows = open_out(argv[2], ".rows"), *dups = open_out(argv[2], ".dups");
    FILE *holders = open_out(argv[2], ".holders"), *total = open_out(argv[2], ".total");
    unsigned long long sum = 0;
    for (size_t i = 0; i < d.nrows; i++) {
        const dwp_row *r = &d.rows[i];
        sum += r->wasted;
        fprintf(rows, "%s\t%s\t%llu\t%llu\t%llu\n", gch_waste_kind_name(r->kind), r->type,
                (unsigned long long)r->count, (unsigned long long)r->bytes, (unsigned long long)r->wasted);
        if (r->kind == GCH_WASTE_DUP_STRINGS)
            fprintf(dups, "%llu\t%llu\t%llu\t%llu\t%llu\t%llu\t%s\n", (unsigned long long)r->count,
                    (unsigned long long)r->bytes, (unsigned long long)r->wasted,
                    (unsigned long long)r->copy, (unsigned long long)r->length,
                    (unsigned long long)r->id, r->text);
        if (r->kind == GCH_WASTE_EMPTY)
            fprintf(holders, "%s\t%s\n", r->type, r->holder[0] ? r->holder : "-");
    }
    fprintf(total, "%llu\n", sum);
    fclose(rows);
    fclose(dups);
    fclose(holders);
    fclose(total);
    dwp_free(&d);
    return 0;
}
