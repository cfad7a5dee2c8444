/* gcheap info: what is in the dump. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "output.h"

static const char usage_text[] = "usage: gcheap info [OPTIONS] DUMP";
static const char description[] =
    "What is in the dump: for each section (appdomain) its name and metadata\n"
    "(format version, timestamps, creating tool...), the number of objects, bytes,\n"
    "types, references and roots, how many objects are live (reachable from strong\n"
    "roots) and how many are not, and every anomaly found while reading\n"
    "(references to absent objects, undeclared types, roots on absent objects,\n"
    "duplicate records, a missing end record).\n"
    "Rows are key/value pairs: columns key, value (tsv/csv); json has one object\n"
    "per section with the same keys, metadata under \"meta\".";

static const cli_option info_options[] = { { NULL, 0, 0, 0, NULL, NULL } };

/* "shallow size (header)" -> "shallow_size_header": runs of other characters
 * become one '_', none at either end. */
static void snake(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    int gap = 0;
    for (; *in && n + 2 < cap; in++) {
        if (!isalnum((unsigned char)*in)) {
            gap = n > 0;
            continue;
        }
        if (gap)
            out[n++] = '_';
        gap = 0;
        out[n++] = (char)tolower((unsigned char)*in);
    }
    out[n] = '\0';
}

typedef struct kv_writer {
    report *rep;
    const cli_common *c;
    int json_count; /* members written in the current json object */
} kv_writer;

static void kv_num(kv_writer *w, const char *key, uint64_t v, int is_bytes)
{
    if (w->c->format == FMT_JSON) {
        printf("%s\"%s\":%" PRIu64, w->json_count++ ? "," : "", key, v);
        return;
    }
    char buf[64];
    if (is_bytes && w->c->human && w->c->format == FMT_TABLE)
        format_human_bytes(v, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "%" PRIu64, v);
    report_cell_text(w->rep, key);
    report_cell_text(w->rep, buf);
}

static void kv_str(kv_writer *w, const char *key, const char *v)
{
    if (w->c->format == FMT_JSON) {
        printf("%s\"%s\":", w->json_count++ ? "," : "", key);
        write_json_string(stdout, v);
        return;
    }
    report_cell_text(w->rep, key);
    report_cell_text(w->rep, v);
}

static int info_heap(kv_writer *w, const gch_dump *d, const gch_heap *h)
{
    uint64_t live_count = 0, live_bytes = 0;
    gch_error err;
    if (gch_live_set(h, w->c->include_weak, NULL, &live_count, &live_bytes, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    uint64_t strong = 0, weak = 0, declared = 0, used_types = 0;
    for (uint32_t r = 0; r < h->root_count; r++)
        (h->root_flags[r] & GCH_ROOT_WEAK) ? weak++ : strong++;
    for (uint32_t t = 0; t < h->type_count; t++)
        declared += h->type_declared[t] ? 1 : 0;
    (void)used_types;
    const gch_anomalies *a = &h->anomalies;

    if (w->c->format == FMT_JSON) {
        printf("{");
        w->json_count = 0;
    } else {
        report_begin_section(w->rep, h->name);
    }
    kv_str(w, "domain", h->name);
    kv_str(w, "format", d->format);
    if (d->compression)
        kv_str(w, "compression", d->compression);
    if (w->c->format == FMT_JSON) {
        printf(",\"meta\":{");
        for (size_t i = 0; i < h->meta_count; i++) {
            char key[128];
            snake(h->meta[i].key, key, sizeof key);
            printf("%s\"%s\":", i ? "," : "", key);
            write_json_string(stdout, h->meta[i].value);
        }
        printf("}");
    } else {
        for (size_t i = 0; i < h->meta_count; i++) {
            char key[128];
            snake(h->meta[i].key, key, sizeof key);
            kv_str(w, key, h->meta[i].value);
        }
    }
    kv_num(w, "objects", h->object_count, 0);
    kv_num(w, "bytes", h->total_size, 1);
    kv_num(w, "types", h->type_count, 0);
    kv_num(w, "declared_types", declared, 0);
    kv_num(w, "references", h->ref_count, 0);
    kv_num(w, "roots", h->root_count, 0);
    kv_num(w, "strong_roots", strong, 0);
    kv_num(w, "weak_roots", weak, 0);
    kv_num(w, "live_objects", live_count, 0);
    kv_num(w, "live_bytes", live_bytes, 1);
    kv_num(w, "unreachable_objects", h->object_count - live_count, 0);
    kv_num(w, "unreachable_bytes", h->total_size - live_bytes, 1);
    kv_num(w, "dangling_references", a->dangling_refs, 0);
    kv_num(w, "objects_of_undeclared_types", a->unknown_type_objects, 0);
    kv_num(w, "undeclared_types", a->unknown_types, 0);
    kv_num(w, "roots_on_absent_objects", a->dangling_roots, 0);
    kv_num(w, "duplicate_objects", a->duplicate_objects, 0);
    kv_num(w, "duplicate_types", a->duplicate_types, 0);
    kv_num(w, "undeclared_static_containers", a->absent_containers, 0);
    kv_num(w, "missing_end_record", a->missing_end, 0);
    kv_num(w, "end_record_mismatch", a->end_name_mismatch, 0);
    kv_num(w, "sampled", (uint64_t)(h->sampled != 0), 0);
    if (w->c->format == FMT_JSON)
        printf("}");
    else
        report_end_section(w->rep);
    return 0;
}

static const cli_spec info_spec = {
    "info", usage_text, description, info_options, NULL, 1, 1, NULL, 0
};

int cmd_info(int argc, char **argv)
{
    cli_common c;
    cli_args a;
    int rc = cli_start(&info_spec, NULL, argc, argv, &c, &a);
    if (rc)
        return rc == CLI_HELP_SHOWN ? EXIT_FINE : rc;
    cli_input in;
    const char *path = a.positional[0];
    if ((rc = cli_open("info", path, &c, 1, &in)) != 0)
        goto out_args;
    gch_dump *dump = in.dump;
    gch_heap **heaps = in.heaps;
    size_t nheaps = in.count;
    kv_writer w = { NULL, &c, 0 };
    if (c.format == FMT_JSON) {
        printf("{\"command\":\"info\",\"file\":");
        write_json_string(stdout, cli_display_path(path));
        printf(",\"format\":\"%s\",\"sections\":[", dump->format);
    } else {
        static const col_spec cols[] = { { "key", COL_TEXT }, { "value", COL_TEXT } };
        w.rep = report_new(&c, "info", nheaps > 1, stdout);
        report_columns(w.rep, cols, 2);
    }
    for (size_t i = 0; i < nheaps && rc == 0; i++) {
        if (c.format == FMT_JSON && i)
            printf(",");
        rc = info_heap(&w, dump, heaps[i]);
    }
    if (c.format == FMT_JSON) {
        printf("]}\n");
        if (fflush(stdout) != 0 && !rc) {
            cli_error("error writing output");
            rc = EXIT_INPUT;
        }
    } else {
        int wrc = report_finish(w.rep);
        if (!rc)
            rc = wrc;
    }
    cli_close(&in);
out_args:
    free(a.positional);
    return rc;
}
