/* See leak_series.h. */
#include "leak_series.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds the sections of one dump to their series. */
static int add_dump(gch_leak_series **series, size_t sections, gch_heap **heaps,
                    gch_analysis *an, const cli_common *c)
{
    for (size_t i = 0; i < sections; i++) {
        gch_error err;
        cli_phase(c, "comparing dumps");
        gch_status st = gch_leaks_add_in(series[i], an, heaps[i], gch_analysis_dump(an)->ids_stable, &err);
        cli_phase_end();
        if (st != GCH_OK) {
            cli_error("%s", err.message);
            return EXIT_INPUT;
        }
    }
    return 0;
}

/* Loads args[k] into *held / *heaps (the previous ones released) and checks
 * that it is a dump of the series: the same format and sections as DUMP1. */
static int open_later(cli_run *run, size_t k, size_t sections, cli_held **held, gch_heap ***heaps)
{
    const cli_common *c = run->c;
    size_t count = 0;
    cli_session_close(run->session, *held);
    free(*heaps);
    *held = NULL;
    *heaps = NULL;
    const char *path = run->args[k];
    int rc = cli_session_open(run->session, path, c, CLI_LOAD_REFS | CLI_LOAD_LABELS, held);
    if (rc != 0)
        return rc;
    gch_dump *later = cli_held_dump(*held);
    if ((rc = cli_select(run->spec->name, path, later, c, 0, heaps, &count)) != 0)
        return rc;
    if (strcmp(later->format, run->in[0].dump->format) != 0) {
        /* Types, ids and sizes mean different things in another format. */
        cli_error("%s: a %s dump, but %s is a %s dump: a series must be dumps of one "
                  "process, in one format", cli_display_path(path), later->format,
                  cli_display_path(run->args[0]), run->in[0].dump->format);
        return EXIT_INPUT;
    }
    if (count != sections) {
        cli_error("%s: %zu sections, but %s has %zu: the dumps must be of one process",
                  cli_display_path(path), count, cli_display_path(run->args[0]), sections);
        return EXIT_INPUT;
    }
    for (size_t i = 0; i < count; i++)
        cli_warn_anomalies(path, later, (*heaps)[i], c, CLI_LOAD_REFS | CLI_LOAD_LABELS);
    return 0;
}

int leak_series_run(cli_run *run, int stable_ids, int internals, int keep_last, leak_series *out)
{
    const cli_common *c = run->c;
    const size_t dumps = (size_t)run->nargs, sections = run->in[0].count;
    memset(out, 0, sizeof *out);
    gch_leaks_options lo = GCH_LEAKS_OPTIONS_INIT;
    lo.include_weak = c->include_weak;
    lo.threads = cli_threads(c);
    if (stable_ids)
        lo.by_ids = 1;
    lo.internals = internals;
    gch_leak_series **series = xcalloc(sections ? sections : 1, sizeof *series);
    int rc = 0;
    for (size_t i = 0; i < sections && rc == 0; i++) {
        gch_error err;
        if (gch_leaks_new(dumps, &lo, &series[i], &err) != GCH_OK) {
            cli_error("%s", err.message);
            rc = EXIT_INPUT;
        }
    }
    if (rc == 0)
        rc = add_dump(series, sections, run->in[0].heaps, run->in[0].an, c);
    const gch_heap *const *last = (const gch_heap *const *)run->in[0].heaps;
    out->format = run->in[0].dump->format;
    cli_held *held = NULL;
    gch_heap **heaps = NULL;
    for (size_t k = 1; k < dumps && rc == 0; k++) {
        if ((rc = open_later(run, k, sections, &held, &heaps)) != 0)
            break;
        rc = add_dump(series, sections, heaps, cli_held_analysis(held), c);
        last = (const gch_heap *const *)heaps;
        out->format = cli_held_dump(held)->format; /* static storage */
    }
    if (rc == 0) {
        out->reports = xcalloc(sections ? sections : 1, sizeof *out->reports);
        out->names = xcalloc(sections ? sections : 1, sizeof *out->names);
        out->sections = sections;
        out->radix = sections ? last[0]->id_radix : 16;
        for (size_t i = 0; i < sections && rc == 0; i++) {
            gch_error err;
            out->names[i] = xstrdup(last[i]->name);
            if (gch_leaks_finish(series[i], &out->reports[i], &err) != GCH_OK) {
                cli_error("%s", err.message);
                rc = EXIT_INPUT;
            }
        }
    }
    for (size_t i = 0; i < sections; i++)
        gch_leaks_free(series[i]);
    free(series);
    if (rc == 0 && keep_last && held) {
        out->last = held;
        out->last_heaps = heaps;
        out->last_count = sections;
    } else {
        cli_session_close(run->session, held);
        free(heaps);
    }
    return rc;
}

void leak_series_free(cli_session *session, leak_series *s)
{
    for (size_t i = 0; i < s->sections; i++) {
        if (s->reports)
            gch_leak_report_free(&s->reports[i]);
        if (s->names)
            free(s->names[i]);
    }
    free(s->reports);
    free(s->names);
    if (s->last)
        cli_session_close(session, s->last);
    free(s->last_heaps);
    memset(s, 0, sizeof *s);
}

/* "+100,-3": the change of v per step. */
static const char *steps_text(const uint64_t *v, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 1; k < n && len < cap; k++) {
        int neg = v[k] < v[k - 1];
        uint64_t d = neg ? v[k - 1] - v[k] : v[k] - v[k - 1];
        int w = snprintf(buf + len, cap - len, "%s%c%" PRIu64, k > 1 ? "," : "", neg ? '-' : '+', d);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return buf;
}

static void growth_row(const char *kind, const gch_growth *g, size_t dumps,
                       void (*fn)(void *ctx, const leak_row *row), void *ctx)
{
    char cb[512], bb[512];
    leak_row row = { kind, g->counts[dumps - 1], g->retained[dumps - 1], 0,
                     steps_text(g->counts, dumps, cb, sizeof cb),
                     steps_text(g->retained, dumps, bb, sizeof bb), g->example_id, g->key };
    fn(ctx, &row);
}

uint64_t leak_rows_each(const gch_leak_report *r, uint64_t limit,
                        void (*fn)(void *ctx, const leak_row *row), void *ctx)
{
    uint64_t shown = 0;
    for (size_t i = 0; i < r->group_count && shown < limit; i++, shown++) {
        const gch_leak_group *g = &r->groups[i];
        leak_row row = { "leak", g->objects, g->bytes, g->heads, "", "", g->example_id, g->signature };
        fn(ctx, &row);
        for (size_t t = 0; t < g->type_count && t < LEAK_TYPES_SHOWN; t++) {
            const gch_leak_type_count *tc = &g->types[t];
            leak_row trow = { "leak-type", tc->objects, tc->bytes, tc->heads, "", "", tc->example_id,
                              tc->type };
            fn(ctx, &trow);
        }
    }
    for (size_t i = 0; i < r->path_count && shown < limit; i++, shown++)
        growth_row("path", &r->paths[i], r->dumps, fn, ctx);
    for (size_t i = 0; i < r->type_count && shown < limit; i++, shown++)
        growth_row("type", &r->types[i], r->dumps, fn, ctx);
    return shown;
}

uint64_t leak_rows_total(const gch_leak_report *r)
{
    return r->group_count + r->path_count + r->type_count;
}

uint64_t leak_growth_bytes(const gch_growth *g, size_t dumps)
{
    return g->retained[dumps - 1] > g->retained[0] ? g->retained[dumps - 1] - g->retained[0] : 0;
}
