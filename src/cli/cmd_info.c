/* gcheap info: what is in the dump. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>

#include "anomalies.h"
#include "cli.h"
#include "gcheap/graph.h"

static const char description[] =
    "What is in the dump: for each section (appdomain) its name and metadata\n"
    "(format version, timestamps, creating tool...), the number of objects, bytes,\n"
    "types, references and roots, how many objects are live (reachable from strong\n"
    "roots) and how many are not, and every anomaly found while reading\n"
    "(references to absent objects, undeclared types, roots on absent objects,\n"
    "duplicate records, a missing end record). References to absent objects are\n"
    "explained: dangling_reference_holders counts the objects holding them and\n"
    "dangling_references_held_by names the (at most 3) holding most, with their\n"
    "type, count and the root that holds them when they are roots themselves\n"
    "(JDK 17's CDS archive: docs/hprof-format.md).\n"
    "Rows are key/value pairs: columns key, value (tsv/csv); json has one object\n"
    "per section with the same keys, metadata under \"meta\".";

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

/* The objects holding references to absent objects, most first:
 * "ffe72730 java.lang.Object[] (786 references; root: handle JNI global)". */
static void dangling_holders_text(const gch_heap *h, const cli_common *c, char *buf, size_t cap)
{
    const gch_anomalies *a = &h->anomalies;
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < GCH_DANGLING_TOP && k < a->dangling_holders && n < cap; k++) {
        char id[32], tb[4096], hb[2100] = "";
        format_id(a->dangling_holder_id[k], h->id_radix, id, sizeof id);
        uint32_t o = gch_heap_find_object(h, a->dangling_holder_id[k]);
        const char *type = o != GCH_NONE ? cli_type_name(h, h->object_type[o], c, tb, sizeof tb) : "?";
        for (uint32_t r = 0; o != GCH_NONE && r < h->root_count && !*hb; r++)
            if (h->root_object[r] == o)
                cli_root_holder_text(h, r, c, hb, sizeof hb);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s %.1000s (%" PRIu64 " reference%s%s%.1000s)",
                              k ? ", " : "", id, type, a->dangling_holder_refs[k],
                              a->dangling_holder_refs[k] == 1 ? "" : "s", *hb ? "; root: " : "", hb);
    }
    if (a->dangling_holders > GCH_DANGLING_TOP && n < cap)
        snprintf(buf + n, cap - n, ", and %" PRIu64 " more object%s", a->dangling_holders - GCH_DANGLING_TOP,
                 a->dangling_holders - GCH_DANGLING_TOP == 1 ? "" : "s");
}

static int info_heap(report *rep, const cli_common *c, gch_analysis *an, const gch_dump *d,
                     const gch_heap *h)
{
    uint64_t live_count = 0, live_bytes = 0;
    if (cli_live(an, h, c, NULL, &live_count, &live_bytes) != 0)
        return EXIT_INPUT;
    uint64_t strong = 0, weak = 0;
    for (uint32_t r = 0; r < h->root_count; r++)
        (h->root_flags[r] & GCH_ROOT_WEAK) ? weak++ : strong++;
    const gch_anomalies *a = &h->anomalies;

    report_begin_record(rep, h->name);
    report_field_text(rep, "domain", h->name);
    report_field_text(rep, "format", d->format);
    if (d->compression)
        report_field_text(rep, "compression", d->compression);
    report_field_group(rep, "meta");
    for (size_t i = 0; i < h->meta_count; i++) {
        char key[128];
        snake(h->meta[i].key, key, sizeof key);
        /* A plain whole number is a json number (typed values, docs/schemas.md);
         * "0123" or "1024 ms" stay text. */
        const char *v = h->meta[i].value;
        uint64_t n;
        if (cli_parse_count(v, &n) == 0 && (v[0] != '0' || v[1] == '\0'))
            report_field_u64(rep, key, n, COL_COUNT);
        else
            report_field_text(rep, key, v);
    }
    report_field_group_end(rep);
    const struct {
        const char *key;
        uint64_t value;
        col_kind kind;
    } fields[] = {
        { "objects", h->object_count, COL_COUNT },
        { "bytes", h->total_size, COL_BYTES },
        { "types", h->reported_types, COL_COUNT },
        { "declared_types", h->reported_declared_types, COL_COUNT },
        { "references", h->ref_count, COL_COUNT },
        { "roots", h->root_count, COL_COUNT },
        { "strong_roots", strong, COL_COUNT },
        { "weak_roots", weak, COL_COUNT },
        { "live_objects", live_count, COL_COUNT },
        { "live_bytes", live_bytes, COL_BYTES },
        { "unreachable_objects", h->object_count - live_count, COL_COUNT },
        { "unreachable_bytes", h->total_size - live_bytes, COL_BYTES },
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
        report_field_u64(rep, fields[i].key, fields[i].value, fields[i].kind);
    for (size_t i = 0; i < cli_anomaly_count; i++) /* the one anomaly table */
        report_field_u64(rep, cli_anomalies[i].key, cli_anomaly_value(a, i), COL_COUNT);
    if (a->dangling_refs) { /* only then: every other dump's info stays as it was */
        char text[8192];
        dangling_holders_text(h, c, text, sizeof text);
        report_field_u64(rep, "dangling_reference_holders", a->dangling_holders, COL_COUNT);
        report_field_text(rep, "dangling_references_held_by", text);
    }
    report_field_u64(rep, "sampled", (uint64_t)(h->sampled != 0), COL_COUNT);
    report_end_section(rep);
    return 0;
}

static int info_report(cli_run *run)
{
    static const col_spec cols[] = { { "key", COL_TEXT }, { "value", COL_TEXT } };
    const cli_input *in = &run->in[0];
    report *rep = report_new(run->out, REPORT_COLUMNS(cols), in->count > 1);
    int rc = 0;
    for (size_t i = 0; i < in->count && rc == 0; i++)
        rc = info_heap(rep, run->c, in->an, in->dump, in->heaps[i]);
    return rc;
}

const cli_spec info_command = {
    .name = "info", .summary = "what is in the dump: sections, counts, metadata, anomalies",
    .usage = "usage: gcheap info [OPTIONS] DUMP", .description = description, .min_args = 1,
    .max_args = 1, .flags = CLI_NEEDS_REFS | CLI_NO_WARNINGS, .report = info_report,
};
