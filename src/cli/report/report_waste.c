/* The waste of a report's section (gcheap report --waste): the rows of
 * `gcheap waste` at its defaults, as a JSON array (report_waste.h). */
#include "report_waste.h"

#include <inttypes.h>
#include <string.h>

#include "cli.h"
#include "gcheap/waste.h"
#include "html_escape.h"
#include "payload.h"

static int read_at(void *ctx, uint64_t offset, void *buf, size_t n)
{
    payload_file *pf = ctx;
    return plat_read_at(pf->f, offset, buf, n) != 0;
}

static void field(FILE *f, const char *k, int first)
{
    if (!first)
        putc(',', f);
    html_json_string(f, k);
    putc(':', f);
}

/* One row: {section, id, type, count, bytes, wasted, value}. */
static void write_row(FILE *f, payload_file *pf, const gch_heap *h, const gch_waste_row *r,
                      const cli_common *c)
{
    char buf[8192];
    putc('{', f);
    field(f, "section", 1);
    html_json_string(f, gch_waste_kind_name(r->kind));
    field(f, "id", 0);
    fprintf(f, h->id_radix == 10 ? "\"%" PRIu64 "\"" : "\"%" PRIx64 "\"", r->id);
    field(f, "type", 0);
    html_json_string(f, cli_type_name(h, r->type, c, buf, sizeof buf));
    field(f, "count", 0);
    fprintf(f, "%" PRIu64, r->count);
    field(f, "bytes", 0);
    fprintf(f, "%" PRIu64, r->bytes);
    field(f, "wasted", 0);
    fprintf(f, "%" PRIu64, r->wasted);
    field(f, "value", 0);
    strbuf text = STRBUF_INIT;
    if (r->kind == GCH_WASTE_DUP_STRINGS && payload_text(pf, h, r->object, 80, &text))
        html_json_string(f, sb_str(&text));
    else
        fputs("null", f);
    sb_free(&text);
    putc('}', f);
}

int report_write_waste(FILE *f, const char *path, const gch_dump *dump, gch_heap *h,
                       const cli_common *c)
{
    payload_file pf;
    const char *why = NULL;
    if (!payload_open(&pf, path, dump, h, &why)) {
        fputs("null", f);
        return 0;
    }
    gch_waste w;
    gch_waste_options o = { .read = read_at, .read_ctx = &pf, .text = pf.in_heap,
                            .js = strcmp(dump->format, "v8") == 0, /* as `waste` reads V8 */
                            .dart = strcmp(dump->format, "dart") == 0 };
    gch_error err;
    cli_phase(c, "looking for waste");
    gch_status st = gch_waste_find(h, &o, &w, &err);
    cli_phase_end();
    if (st != GCH_OK) {
        payload_close(&pf);
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    putc('[', f);
    size_t shown = 0;
    for (size_t i = 0; i < w.count; i++) {
        if (shown == REPORT_WASTE_ROWS)
            break;
        if (shown++)
            putc(',', f);
        write_row(f, &pf, h, &w.rows[i], c);
    }
    putc(']', f);
    gch_waste_free(&w);
    payload_close(&pf);
    return 0;
}
