/* The leak rules of a report's section (report_rules.h): rules_run, as
 * `gcheap suspects` runs them, written as JSON for the page. */
#include "report_rules.h"

#include <inttypes.h>
#include <string.h>

#include "html_escape.h"
#include "rules_out.h"

static void key(FILE *f, int *first, const char *k)
{
    if (!*first)
        putc(',', f);
    *first = 0;
    html_json_string(f, k);
    putc(':', f);
}

static void kv_str(FILE *f, int *first, const char *k, const char *v)
{
    key(f, first, k);
    html_json_string(f, v);
}

static void kv_u64(FILE *f, int *first, const char *k, uint64_t v)
{
    key(f, first, k);
    fprintf(f, "%" PRIu64, v);
}

static void kv_bool(FILE *f, int *first, const char *k, int v)
{
    key(f, first, k);
    fputs(v ? "true" : "false", f);
}

static void kv_id(FILE *f, int *first, const gch_heap *h, uint32_t o)
{
    char ib[32];
    snprintf(ib, sizeof ib, h->id_radix == 10 ? "%" PRIu64 : "%" PRIx64, h->object_id[o]);
    kv_str(f, first, "id", ib);
}

static void write_step(FILE *f, const gch_heap *h, const cli_common *c, const rules_step *s)
{
    char tb[4096];
    int first = 1;
    putc('{', f);
    kv_id(f, &first, h, s->object);
    kv_str(f, &first, "type", cli_type_name(h, h->object_type[s->object], c, tb, sizeof tb));
    kv_u64(f, &first, "bytes", gch_object_size(h, s->object));
    kv_str(f, &first, "holder", s->holder);
    kv_str(f, &first, "leaking", gch_leaking_name(s->leaking));
    kv_str(f, &first, "reason", s->reason);
    kv_bool(f, &first, "library_leak", s->library_leak != NULL);
    putc('}', f);
}

static void write_group(FILE *f, const gch_heap *h, const cli_common *c, const rules_group *g,
                        uint64_t live)
{
    char tb[4096], pb[32];
    int first = 1, wf = 1;
    putc('{', f);
    kv_str(f, &first, "rule", g->rule);
    kv_str(f, &first, "reason", g->reason);
    kv_str(f, &first, "type", cli_type_name(h, g->type, c, tb, sizeof tb));
    kv_id(f, &first, h, g->first);
    kv_u64(f, &first, "count", g->count);
    kv_u64(f, &first, "retained", g->retained);
    snprintf(pb, sizeof pb, "%.1Lf", live ? (long double)g->retained * 100.0L / (long double)live : 0.0L);
    kv_str(f, &first, "percent", pb);
    kv_bool(f, &first, "library_leak", g->library_leak);
    key(f, &first, "window");
    putc('{', f);
    kv_u64(f, &wf, "from", g->window_from);
    kv_u64(f, &wf, "to", g->window_to);
    putc('}', f);
    key(f, &first, "path");
    putc('[', f);
    for (size_t i = 0; i < g->nsteps; i++) {
        if (i)
            putc(',', f);
        write_step(f, h, c, &g->steps[i]);
    }
    fputs("]}", f);
}

int report_write_rules(FILE *f, gch_analysis *an, const char *path, const gch_dump *dump,
                       const gch_heap *h, const cli_common *c)
{
    rules_choice all = { 0, NULL };
    rules_result r;
    cli_phase(c, "running the leak rules");
    int rc = rules_run(an, path, dump, h, c, &all, &r);
    cli_phase_end();
    if (rc != 0) {
        rules_result_free(&r);
        return rc;
    }
    int first = 1;
    putc('{', f);
    key(f, &first, "why_none");
    if (r.why_none)
        html_json_string(f, r.why_none);
    else
        fputs("null", f);
    key(f, &first, "findings");
    putc('[', f);
    for (size_t k = 0; k < r.count; k++) {
        if (k)
            putc(',', f);
        write_group(f, h, c, &r.groups[k], r.live_bytes);
    }
    fputs("]}", f);
    rules_result_free(&r);
    return 0;
}
