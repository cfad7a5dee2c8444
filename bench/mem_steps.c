/* mem_steps - where the memory of `gcheap top` goes: loads a dump with the
 * options `top` uses (references, no labels), then builds the dominator tree
 * as `top` does (gch_domtree_build_ex, preorder only), and prints the
 * process's resident memory after the load and after each step of the build
 * (its progress callback), from /proc/self/status (Linux; elsewhere the
 * lines say "n/a").
 *
 *   mem_steps FILE
 *
 * The file is read through gch_load (a stream), so the load's own peak
 * includes the input held in memory for binary formats; the figures after
 * the load are the model and the build alone (that buffer is freed by then).
 * Columns: what, RssAnon (MB), VmHWM (peak so far, MB; reset after the
 * load, so that it shows the build's own peak). Exit 2 on error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/dominators.h"
#include "gcheap/load.h"

static long long status_kb(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':')
            v = atoll(line + n + 1);
    if (f)
        fclose(f);
    return v;
}

static void show(const char *what)
{
    long long anon = status_kb("RssAnon"), hwm = status_kb("VmHWM");
    if (anon < 0 || hwm < 0)
        printf("%-28s n/a\n", what);
    else
        printf("%-28s %8.1f %8.1f\n", what, anon / 1024.0, hwm / 1024.0);
    fflush(stdout);
}

static void on_step(void *ctx, unsigned percent)
{
    (void)ctx;
    char what[64];
    snprintf(what, sizeof what, "dominators %u%%", percent);
    show(what);
}

static long long file_read(void *ctx, void *buf, size_t cap)
{
    size_t n = fread(buf, 1, cap, ctx);
    return n == 0 && ferror((FILE *)ctx) ? -1 : (long long)n;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mem_steps FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    gch_source src = { file_read, f };
    gch_load_options opts;
    memset(&opts, 0, sizeof opts);
    opts.skip_labels = 1;
    gch_dump *dump = NULL;
    gch_error err;
    printf("%-28s %8s %8s\n", "after", "RssAnon", "VmHWM");
    if (gch_load(&src, GCH_FORMAT_AUTO, &opts, &dump, &err) != GCH_OK) {
        fprintf(stderr, "mem_steps: %s: %s\n", argv[1], err.message);
        return 2;
    }
    fclose(f);
    const gch_heap *h = dump->heaps[0];
    show("load");
    /* From here on, VmHWM is the peak of the build (Linux: "5" resets it). */
    FILE *reset = fopen("/proc/self/clear_refs", "w");
    if (reset) {
        fputs("5", reset);
        fclose(reset);
    }
    show("(peak reset)");
    printf("  objects %u, references %llu\n", h->object_count, (unsigned long long)h->ref_count);
    gch_domtree_options o = GCH_DOMTREE_OPTIONS_INIT;
    o.children = 0;
    o.preorder_only = 1;
    o.progress = on_step;
    gch_domtree t;
    if (gch_domtree_build_ex(h, &o, &t, &err) != GCH_OK) {
        fprintf(stderr, "mem_steps: %s\n", err.message);
        return 2;
    }
    gch_domtree_free(&t);
    gch_dump_free(dump);
    return 0;
}
