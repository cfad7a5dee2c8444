/* CI gates shared by check and diff: see gate.h. */
#include "gate.h"
#include "typepat.h"

#include "gcheap/dominators.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/alloc.h"
#include "gcheap/graph.h"
#include "gcheap/histogram.h"
#include "json.h"
#include "text.h"

/* ---- per-type rows by name ---- */

static int cmp_named(const void *pa, const void *pb)
{
    return strcmp(((const named_type *)pa)->name, ((const named_type *)pb)->name);
}

int named_types_of(const gch_heap *heap, const uint8_t *live, const uint64_t *type_retained,
                   const cli_common *common, named_type **out, size_t *count)
{
    gch_type_row *rows;
    uint32_t n;
    gch_error err;
    *out = NULL;
    *count = 0;
    if (gch_histogram(heap, live, &rows, &n, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    named_type *t = xcalloc(n, sizeof *t);
    char buf[8192];
    for (uint32_t i = 0; i < n; i++) {
        t[i].name = xstrdup(cli_type_name(heap, rows[i].type, common, buf, sizeof buf));
        t[i].count = rows[i].count;
        t[i].bytes = rows[i].bytes;
        t[i].retained = type_retained ? type_retained[rows[i].type] : 0;
    }
    gch_free(rows);
    qsort(t, n, sizeof *t, cmp_named);
    /* Equal display names (--short-names, --module) become one type. Sums stay
     * below the heap's total size and object count, so they cannot overflow. */
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && strcmp(t[w - 1].name, t[i].name) == 0) {
            t[w - 1].count += t[i].count;
            t[w - 1].bytes += t[i].bytes;
            t[w - 1].retained += t[i].retained; /* at most the heap's live bytes */
            free(t[i].name);
            continue;
        }
        t[w++] = t[i];
    }
    *out = t;
    *count = w;
    return 0;
}

void named_types_free(named_type *types, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(types[i].name);
    free(types);
}

int heap_types_for(gch_analysis *an, const gch_heap *heap, int live, int retained,
                   const cli_common *common, named_type **out, size_t *count, uint64_t *live_bytes)
{
    const uint8_t *mask = NULL;
    const uint64_t *per_type = NULL;
    if (live && cli_live(an, heap, common, &mask, NULL, NULL) != 0)
        return EXIT_INPUT;
    if (retained && cli_type_retained(an, heap, common, &per_type, live_bytes) != 0)
        return EXIT_INPUT;
    return named_types_of(heap, mask, per_type, common, out, count);
}

/* ---- limits ---- */

static gate_limit *new_limit(gate *g)
{
    gate_limit *l = xrealloc_array(g->limits, g->nlimits + 1, sizeof *l);
    g->limits = l;
    memset(&l[g->nlimits], 0, sizeof *l);
    return &l[g->nlimits++];
}

int gate_add_total(gate *g, const char *command, const char *option, const char *spec,
                   gate_measure measure, unsigned flags)
{
    gch_bound b;
    gch_error err;
    gch_error_clear(&err);
    if (gch_parse_bound(spec, strlen(spec), flags, &b, &err) != GCH_OK)
        return cli_usage_error(command, "--%s: %s", option, err.message);
    gate_limit *l = new_limit(g);
    l->option = option;
    l->spec = spec;
    l->scope = SCOPE_TOTAL;
    l->measure = measure;
    l->bound = b;
    return 0;
}

int gate_add_type(gate *g, const char *command, const char *option, const char *spec,
                  int growth_ok, int sum)
{
    gch_type_limit tl;
    gch_error err;
    gch_error_clear(&err);
    gch_status st = gch_parse_type_limit(spec, growth_ok, &tl, &err);
    if (st == GCH_ENOMEM)
        die("out of memory");
    if (st != GCH_OK)
        return cli_usage_error(command, "--%s: %s", option, err.message);
    gch_type_limit *tls = xrealloc_array(g->type_limits, g->ntype_limits + 1, sizeof *tls);
    g->type_limits = tls;
    tls[g->ntype_limits++] = tl;
    const gch_bound *parts[2] = { &tl.count, &tl.bytes };
    for (int i = 0; i < 2; i++) {
        if (parts[i]->kind == GCH_BOUND_NONE)
            continue;
        gate_limit *l = new_limit(g);
        l->option = option;
        l->spec = spec;
        l->scope = sum ? SCOPE_TYPES : SCOPE_TYPE;
        l->measure = i == 0 ? MEASURE_OBJECTS : MEASURE_BYTES;
        l->bound = *parts[i];
        l->pattern = tl.pattern; /* stays put when type_limits moves */
    }
    return 0;
}

/* ---- evaluation ---- */

static void add_result(gate *g, const gate_limit *l, const char *section, const char *subject,
                       uint64_t matched, uint64_t base, uint64_t value)
{
    gate_result *r = xrealloc_array(g->results, g->nresults + 1, sizeof *r);
    g->results = r;
    r = &r[g->nresults++];
    r->limit = l;
    r->section = section;
    r->subject = subject;
    r->matched = matched;
    r->base = base;
    r->value = value;
    r->exceeded = gch_bound_exceeded(&l->bound, base, value);
    if (r->exceeded)
        g->exceeded++;
}

static int is_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* The measured growth in percent, with enough decimals to differ visibly from
 * the threshold (display only: the verdict is exact integer arithmetic). */
static void format_percent(uint64_t base, uint64_t value, uint64_t threshold, int exceeded,
                           char *buf, size_t cap)
{
    double p = gch_growth_percent(base, value);
    double t = (double)threshold / GCH_PERCENT_SCALE;
    for (int d = 1; d <= 9; d++) {
        snprintf(buf, cap, "%.*f", d, p);
        double shown = strtod(buf, NULL);
        if (exceeded ? shown > t : shown <= t)
            break;
    }
    /* "500.0" -> "500", "7.20" cannot happen (fewest decimals first) */
    size_t n = strlen(buf);
    if (n >= 2 && buf[n - 1] == '0' && buf[n - 2] == '.')
        buf[n - 2] = '\0';
}

static void describe_threshold(strbuf *b, const gch_bound *bound)
{
    char num[32];
    if (bound->kind == GCH_BOUND_GROWTH_PERCENT) {
        sb_addf(b, "%s", bound->text);
        return;
    }
    sb_addf(b, "%s", format_grouped(bound->threshold, num, sizeof num));
    if (!is_digits(bound->text))
        sb_addf(b, " (%s)", bound->text);
}

static char *describe(const gate_result *r, int multi)
{
    const gate_limit *l = r->limit;
    const char *unit = l->measure == MEASURE_BYTES ? "bytes"
                     : l->measure == MEASURE_WASTE ? "wasted bytes" : "objects";
    const char *cmp = r->exceeded ? ">" : "<=";
    char a[32], b[32], d[32];
    strbuf s = STRBUF_INIT;
    sb_add(&s, "");
    if (multi) {
        sb_addf(&s, "[");
        sb_escape(&s, ESC_TABLE, r->section);
        sb_addf(&s, "] ");
    }
    /* Subject: "total bytes ", "type X: ", "type X (MyApp.*): ", "types MyApp.* (3 types): " */
    switch (l->scope) {
    case SCOPE_TOTAL:
        sb_addf(&s, "total %s ", unit);
        break;
    case SCOPE_TYPE:
        sb_addf(&s, "type ");
        sb_escape(&s, ESC_TABLE, r->subject);
        if (!gch_glob_is_literal(l->pattern) || strcmp(r->subject, l->pattern) != 0) {
            sb_addf(&s, " (");
            sb_escape(&s, ESC_TABLE, l->pattern);
            sb_addf(&s, ")");
        }
        sb_addf(&s, ": ");
        break;
    case SCOPE_TYPES:
        sb_addf(&s, "types ");
        sb_escape(&s, ESC_TABLE, l->pattern);
        sb_addf(&s, " (%" PRIu64 " type%s): ", r->matched, r->matched == 1 ? "" : "s");
        break;
    }
    if (l->bound.kind == GCH_BOUND_MAX || l->bound.kind == GCH_BOUND_NONE) {
        /* "total bytes 1,448 > 1,000", "type X: 12 objects > 10" */
        sb_addf(&s, "%s", format_grouped(r->value, a, sizeof a));
        if (l->scope != SCOPE_TOTAL)
            sb_addf(&s, " %.*s", (int)strlen(unit) - (r->value == 1), unit);
        sb_addf(&s, " %s ", cmp);
        describe_threshold(&s, &l->bound);
        return s.s;
    }
    /* "total bytes grew by 760 (688 -> 1,448) > 759", "type X: objects grew 500% (2 -> 12) > 50%" */
    if (l->scope != SCOPE_TOTAL)
        sb_addf(&s, "%s ", unit);
    if (r->value <= r->base) {
        if (l->bound.kind == GCH_BOUND_GROWTH && r->value < r->base)
            sb_addf(&s, "shrank by %s", format_grouped(r->base - r->value, d, sizeof d));
        else
            sb_addf(&s, "%s", r->value == r->base ? "did not grow" : "shrank");
    } else if (l->bound.kind == GCH_BOUND_GROWTH) {
        sb_addf(&s, "grew by %s", format_grouped(r->value - r->base, d, sizeof d));
    } else if (r->base == 0) {
        sb_addf(&s, "grew from nothing");
    } else {
        format_percent(r->base, r->value, l->bound.threshold, r->exceeded, d, sizeof d);
        sb_addf(&s, "grew %s%%", d);
    }
    sb_addf(&s, " (%s -> %s) %s ", format_grouped(r->base, a, sizeof a),
              format_grouped(r->value, b, sizeof b), cmp);
    describe_threshold(&s, &l->bound);
    return s.s;
}

size_t gate_evaluate(gate *g, const gate_section *secs, size_t nsecs, int multi)
{
    for (size_t si = 0; si < nsecs; si++) {
        const gate_section *sec = &secs[si];
        for (size_t li = 0; li < g->nlimits; li++) {
            const gate_limit *l = &g->limits[li];
            int bytes = l->measure == MEASURE_BYTES;
            if (l->scope == SCOPE_TOTAL && l->measure == MEASURE_WASTE) {
                add_result(g, l, sec->name, NULL, 0, 0, sec->new_waste);
                continue;
            }
            if (l->scope == SCOPE_TOTAL) {
                add_result(g, l, sec->name, NULL, 0, bytes ? sec->base_bytes : sec->base_count,
                           bytes ? sec->new_bytes : sec->new_count);
                continue;
            }
            uint64_t matched = 0, base = 0, value = 0;
            for (size_t ti = 0; ti < sec->ntypes; ti++) {
                const gate_type *t = &sec->types[ti];
                if (!typepat_match(l->pattern, t->name))
                    continue;
                matched++;
                uint64_t tb = bytes ? t->base_bytes : t->base_count;
                uint64_t tv = bytes ? t->new_bytes : t->new_count;
                if (l->scope == SCOPE_TYPE) {
                    add_result(g, l, sec->name, t->name, 1, tb, tv);
                } else {
                    /* a sum over a section's types never exceeds its totals */
                    base += tb;
                    value += tv;
                }
            }
            if (l->scope == SCOPE_TYPES || matched == 0)
                add_result(g, l, sec->name, l->pattern, matched, base, value);
        }
    }
    for (size_t i = 0; i < g->nresults; i++) {
        if (!g->results[i].exceeded)
            continue;
        char *msg = describe(&g->results[i], multi);
        stderr_printf("gcheap: limit exceeded: %s\n", msg);
        free(msg);
    }
    return g->exceeded;
}

int gate_check_missing(const gate *g, const char *command, const gate_section *secs, size_t nsecs)
{
    if (g->allow_missing)
        return 0;
    for (size_t li = 0; li < g->nlimits; li++) {
        const gate_limit *l = &g->limits[li];
        if (l->scope == SCOPE_TOTAL)
            continue;
        int found = 0;
        for (size_t si = 0; si < nsecs && !found; si++)
            for (size_t ti = 0; ti < secs[si].ntypes && !found; ti++)
                found = typepat_match(l->pattern, secs[si].types[ti].name);
        if (found)
            continue;
        typepat_suggest sg;
        typepat_suggest_init(&sg, l->pattern);
        for (size_t si = 0; si < nsecs; si++)
            for (size_t ti = 0; ti < secs[si].ntypes; ti++)
                typepat_consider(&sg, secs[si].types[ti].name);
        char spec[1024], pat[1024], hint[2048];
        cli_error("%s: --%s '%s': no type matches '%s'%s; a gate on it would always pass "
                  "(--allow-missing accepts this)",
                  command, l->option, message_text(l->spec, spec, sizeof spec),
                  message_text(l->pattern, pat, sizeof pat), typepat_text(&sg, hint, sizeof hint));
        return EXIT_INPUT;
    }
    return 0;
}

char *gate_describe(const gate_result *r, int multi)
{
    return describe(r, multi);
}

static const char *mode_name(gch_bound_kind k)
{
    switch (k) {
    case GCH_BOUND_GROWTH: return "growth";
    case GCH_BOUND_GROWTH_PERCENT: return "growth_percent";
    default: return "max";
    }
}

static const char *scope_name(gate_scope s)
{
    return s == SCOPE_TOTAL ? "total" : s == SCOPE_TYPE ? "type" : "types";
}

/* "5", "0.25": a percentage threshold in json (exact decimal). */
static void percent_text(uint64_t threshold, char *buf, size_t cap)
{
    uint64_t whole = threshold / GCH_PERCENT_SCALE, frac = threshold % GCH_PERCENT_SCALE;
    int n = snprintf(buf, cap, "%" PRIu64, whole);
    if (frac && n > 0 && (size_t)n < cap) {
        snprintf(buf + n, cap - (size_t)n, ".%09" PRIu64, frac);
        for (size_t len = strlen(buf); buf[len - 1] == '0'; len--)
            buf[len - 1] = '\0';
    }
}

void gate_write_json(const gate *g, json_writer *w, int diff)
{
    if (!w)
        return;
    json_bool(w, "pass", g->exceeded == 0);
    json_begin_array(w, "limits");
    for (size_t i = 0; i < g->nresults; i++) {
        const gate_result *r = &g->results[i];
        const gate_limit *l = r->limit;
        json_begin_object(w, NULL);
        json_string(w, "limit", l->option);
        json_string(w, "spec", l->spec);
        json_string(w, "domain", r->section);
        json_string(w, "scope", scope_name(l->scope));
        if (r->subject)
            json_string(w, "subject", r->subject);
        else
            json_null(w, "subject");
        if (l->scope == SCOPE_TYPES)
            json_u64(w, "matched", r->matched);
        json_string(w, "measure", l->measure == MEASURE_BYTES ? "bytes"
                                  : l->measure == MEASURE_WASTE ? "wasted" : "objects");
        json_string(w, "mode", mode_name(l->bound.kind));
        if (diff)
            json_u64(w, "base", r->base);
        json_u64(w, "value", r->value);
        if (diff)
            json_signed(w, "delta", r->value < r->base,
                        r->value < r->base ? r->base - r->value : r->value - r->base);
        char num[48];
        if (l->bound.kind == GCH_BOUND_GROWTH_PERCENT)
            percent_text(l->bound.threshold, num, sizeof num);
        else
            snprintf(num, sizeof num, "%" PRIu64, l->bound.threshold);
        json_raw(w, "threshold", num);
        json_string(w, "status", r->exceeded ? "fail" : "pass");
        json_end_object(w);
    }
    json_end_array(w);
}

void gate_free(gate *g)
{
    for (size_t i = 0; i < g->ntype_limits; i++)
        gch_type_limit_free(&g->type_limits[i]);
    free(g->type_limits);
    free(g->limits);
    free(g->results);
    memset(g, 0, sizeof *g);
}
