/* See report_leaks.h. */
#include "report_leaks.h"

#include <inttypes.h>

#include "html_escape.h"
#include "report_path.h"
#include "text.h"

typedef struct row_ctx {
    FILE *f;
    gch_analysis *an;
    const gch_heap *h;
    const cli_common *c;
    int radix;
    int first;
    int rc;
} row_ctx;

static void kv_text(FILE *f, const char *k, const char *v)
{
    fprintf(f, ",\"%s\":", k);
    html_json_string(f, v);
}

static void write_row(void *ctx, const leak_row *r)
{
    row_ctx *x = ctx;
    FILE *f = x->f;
    if (x->rc)
        return;
    char ib[32];
    fputs(x->first ? "{\"row\":" : ",{\"row\":", f);
    x->first = 0;
    html_json_string(f, r->kind);
    fprintf(f, ",\"objects\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"heads\":%" PRIu64, r->objects,
            r->bytes, r->heads);
    kv_text(f, "count_growth", r->count_growth);
    kv_text(f, "bytes_growth", r->bytes_growth);
    kv_text(f, "id", format_id(r->example_id, x->radix, ib, sizeof ib));
    kv_text(f, "what", r->what);
    fputs(",\"path\":", f);
    x->rc = report_write_path_of_id(f, x->an, x->h, r->example_id, x->c);
    putc('}', f);
}

int report_write_leaks(FILE *f, const leak_series *s, const char *const *files, size_t nfiles,
                       gch_analysis *an, gch_heap *const *heaps, const cli_common *c)
{
    fputs("{\"files\":[", f);
    for (size_t i = 0; i < nfiles; i++) {
        if (i)
            putc(',', f);
        html_json_string(f, cli_display_path(files[i]));
    }
    fputs("],\"sections\":[", f);
    for (size_t i = 0; i < s->sections; i++) {
        const gch_leak_report *r = &s->reports[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        html_json_string(f, s->names[i]);
        fprintf(f, ",\"dumps\":%zu,\"by_ids\":%s,\"leaked_objects\":%" PRIu64
                   ",\"leaked_bytes\":%" PRIu64 ",\"internal_rows\":%" PRIu64 ",\"rows\":[",
                r->dumps, r->by_ids ? "true" : "false", r->leaked_objects, r->leaked_bytes,
                r->internal_rows);
        row_ctx x = { f, an, heaps[i], c, s->radix, 1, 0 };
        uint64_t shown = leak_rows_each(r, REPORT_LEAK_ROWS, write_row, &x);
        if (x.rc)
            return x.rc;
        fprintf(f, "],\"omitted_rows\":%" PRIu64 "}", leak_rows_total(r) - shown);
    }
    fputs("]}", f);
    return 0;
}
