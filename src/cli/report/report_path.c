/* See report_path.h. */
#include "report_path.h"

#include <inttypes.h>
#include <string.h>

#include "html_escape.h"
#include "text.h"
#include "why.h"

void report_json_id(FILE *f, const gch_heap *h, uint32_t object)
{
    char ib[32];
    html_json_string(f, format_id(h->object_id[object], h->id_radix, ib, sizeof ib));
}

/* A string, or null when it is empty. */
static void string_or_null(FILE *f, const char *s)
{
    if (s && *s)
        html_json_string(f, s);
    else
        fputs("null", f);
}

static void write_step(FILE *f, const gch_heap *h, const uint32_t *ob, size_t i,
                       const cli_common *c)
{
    char tb[8192];
    uint32_t o = ob[i];
    fprintf(f, "{\"depth\":%zu,\"id\":", i);
    report_json_id(f, h, o);
    fputs(",\"type\":", f);
    html_json_string(f, cli_type_name(h, h->object_type[o], c, tb, sizeof tb));
    fprintf(f, ",\"size\":%" PRIu64 ",\"field\":", gch_object_size(h, o));
    string_or_null(f, i ? why_ref_label(h, ob[i - 1], o) : NULL);
    putc('}', f);
}

int report_write_path(FILE *f, gch_analysis *an, const gch_heap *h, uint32_t object,
                      const cli_common *c)
{
    const gch_paths *p;
    if (cli_paths(an, h, c->include_weak, &p) != 0)
        return EXIT_INPUT;
    gch_path_set ps;
    gch_error err;
    if (gch_paths_path(p, object, &ps, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    if (ps.count == 0) {
        fputs("null", f);
        return 0;
    }
    const uint32_t *ob = ps.objects + ps.start[0];
    size_t len = ps.start[1] - ps.start[0];
    uint32_t r = ps.root_record[0];
    char hb[2100];
    fprintf(f, "{\"length\":%zu,\"root_kind\":", len);
    string_or_null(f, r == GCH_NONE ? NULL : gch_root_kind_name(h->root_kind[r]));
    fputs(",\"holder\":", f);
    string_or_null(f, r == GCH_NONE ? NULL : cli_root_holder_name(h, r, c, hb, sizeof hb));
    fputs(",\"steps\":[", f);
    const size_t keep = REPORT_PATH_MAX / 2;
    for (size_t i = 0; i < len; i++) {
        if (len > REPORT_PATH_MAX && i == keep)
            i = len - keep; /* the steps between: only their count (length) */
        if (i)
            putc(',', f);
        write_step(f, h, ob, i, c);
    }
    fputs("]}", f);
    gch_path_set_free(&ps);
    return 0;
}

int report_write_path_of_id(FILE *f, gch_analysis *an, const gch_heap *h, uint64_t id,
                            const cli_common *c)
{
    uint32_t o = GCH_NONE;
    gch_error err;
    if (gch_analysis_find(an, h, id, &o, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    if (o == GCH_NONE) {
        fputs("null", f);
        return 0;
    }
    return report_write_path(f, an, h, o, c);
}
