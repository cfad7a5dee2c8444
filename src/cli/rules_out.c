/* Leak-rule findings for `suspects` (rules_out.h). */
#include "rules_out.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/leaks.h"
#include "payload.h"

static int read_at(void *ctx, uint64_t offset, void *buf, size_t n)
{
    return plat_read_at(ctx, offset, buf, n);
}

/* Per object: 1 when a finding lies on its shortest path from the roots
 * (itself excluded), so that findings reached only through another finding
 * fold into it, as LeakCanary keeps the closest leaking object. Each object
 * is settled once: its chain is walked up to the first settled object. */
static uint8_t *behind_finding(const gch_paths *p, const uint8_t *is_finding, uint32_t n)
{
    uint8_t *state = xcalloc((size_t)n + 1, 1); /* 0 unknown, 1 clear, 2 behind a finding */
    uint32_t *chain = xmalloc(((size_t)n + 1) * sizeof *chain);
    for (uint32_t o = 0; o < n; o++) {
        if (!is_finding[o] || state[o])
            continue;
        size_t len = 0;
        uint32_t u = o;
        while (u < n && !state[u] && len <= n) {
            chain[len++] = u;
            uint32_t up = p->parent[u];
            u = up == GCH_PATH_ROOT || up == GCH_NONE ? UINT32_MAX : up;
        }
        /* The state of what lies above chain[len-1]. */
        uint8_t above = u < n ? (uint8_t)(state[u] == 2 || is_finding[u] ? 2 : 1) : 1;
        while (len > 0) {
            uint32_t v = chain[--len];
            state[v] = above;
            above = (above == 2 || is_finding[v]) ? 2 : 1;
        }
    }
    free(chain);
    return state;
}

/* The steps of group g's path, labelled. */
static int label_group(const gch_heap *h, const cli_common *c, const gch_paths *p,
                       const gch_rules_options *opt, rules_group *g)
{
    gch_path_set set;
    gch_error err;
    if (gch_paths_path(p, g->first, &set, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    size_t n = set.count ? set.start[1] - set.start[0] : 0;
    g->steps = xcalloc(n ? n : 1, sizeof *g->steps);
    g->nsteps = n;
    gch_leaking *leaking = xmalloc((n ? n : 1) * sizeof *leaking);
    char *reasons = xmalloc((n ? n : 1) * GCH_RULE_REASON_MAX);
    gch_status st = gch_rules_label_path(h, opt, set.objects, n, 1, leaking, reasons,
                                         &g->window_from, &g->window_to, &err);
    for (size_t i = 0; st == GCH_OK && i < n; i++) {
        rules_step *s = &g->steps[i];
        s->object = set.objects[i];
        s->leaking = leaking[i];
        memcpy(s->reason, reasons + i * GCH_RULE_REASON_MAX, GCH_RULE_REASON_MAX);
        if (i == 0) {
            uint32_t r = set.root_record[0];
            cli_root_holder_text(h, r, c, s->holder, sizeof s->holder);
            const char *field = h->root_label && h->root_label[r] != GCH_NONE
                                    ? gch_heap_string(h, h->root_label[r]) : "";
            uint32_t cont = h->root_container ? h->root_container[r] : GCH_NONE;
            s->library_leak = gch_rules_library_leak(h, GCH_NONE, cont, field);
        } else {
            const char *field = gch_heap_string(h, gch_ref_label(h, set.objects[i - 1], s->object));
            snprintf(s->holder, sizeof s->holder, "%s", field);
            s->library_leak = gch_rules_library_leak(h, set.objects[i - 1], GCH_NONE, field);
        }
        if (s->library_leak && i >= g->window_from && i <= g->window_to)
            g->library_leak = 1;
    }
    free(leaking);
    free(reasons);
    gch_path_set_free(&set);
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    return 0;
}

static int by_retained(const void *a, const void *b)
{
    const rules_group *x = a, *y = b;
    if (x->retained != y->retained)
        return x->retained < y->retained ? 1 : -1;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* Findings of one rule and type become one group (found in rule order, then
 * object order, so a group's objects are consecutive per rule); detached DOM
 * nodes (the roots of detached trees: the nodes below them fold) group by
 * the object holding them on their paths, as DevTools and memlab show
 * detached trees under the JavaScript object that retains them. */
static void group_findings(const gch_heap *h, const gch_rule_findings *f, const uint8_t *behind,
                           const gch_domtree *t, const gch_paths *p, rules_result *out)
{
    out->groups = xcalloc(f->count ? f->count : 1, sizeof *out->groups);
    for (size_t i = 0; i < f->count; i++) {
        const gch_rule_finding *x = &f->items[i];
        if (behind[x->object] == 2)
            continue;
        uint32_t type = h->object_type[x->object], holder = GCH_NONE;
        int by_holder = strcmp(x->rule, "detached-dom") == 0;
        if (by_holder)
            holder = p->parent[x->object];
        rules_group *g = NULL;
        for (size_t k = out->count; k-- > 0;) {
            if (out->groups[k].rule != x->rule)
                break;
            if (by_holder ? out->groups[k].holder == holder : out->groups[k].type == type) {
                g = &out->groups[k];
                break;
            }
        }
        if (!g) {
            g = &out->groups[out->count++];
            g->rule = x->rule;
            g->type = type;
            g->holder = holder;
            g->first = x->object;
            memcpy(g->reason, x->reason, sizeof g->reason);
        }
        g->count++;
        g->retained += t->retained[x->object];
        if (t->retained[x->object] > t->retained[g->first]) {
            g->first = x->object;
            g->type = type;
            memcpy(g->reason, x->reason, sizeof g->reason);
        }
    }
    qsort(out->groups, out->count, sizeof *out->groups, by_retained);
}

static int find_and_group(gch_analysis *an, const gch_heap *h, const cli_common *c,
                          const gch_rules_options *opt, rules_result *out)
{
    const gch_domtree *t;
    const uint8_t *live;
    int rc = cli_domtree(an, h, c, GCH_TREE_BY_OBJECT, &t);
    if (rc == 0)
        rc = cli_live(an, h, c, &live, NULL, NULL);
    if (rc)
        return rc;
    out->live_bytes = t->live_bytes;
    gch_rules_options o2 = *opt;
    o2.live = live;
    gch_rule_findings f;
    gch_error err;
    const gch_paths *p = NULL;
    gch_status st = gch_rules_find(h, &o2, &f, &err);
    if (st == GCH_OK && f.count > 0)
        rc = cli_paths(an, h, c->include_weak, &p);
    if (st != GCH_OK) {
        cli_error("%s", err.message);
        rc = EXIT_INPUT;
    }
    if (rc == 0 && f.count > 0) {
        uint8_t *is_finding = xcalloc((size_t)h->object_count + 1, 1);
        for (size_t i = 0; i < f.count; i++)
            is_finding[f.items[i].object] = 1;
        uint8_t *behind = behind_finding(p, is_finding, h->object_count);
        group_findings(h, &f, behind, t, p, out);
        free(behind);
        free(is_finding);
        for (size_t k = 0; k < out->count && rc == 0; k++)
            rc = label_group(h, c, p, opt, &out->groups[k]);
    }
    gch_rule_findings_free(&f);
    return rc;
}

int rules_run(gch_analysis *an, const char *path, const gch_dump *dump, const gch_heap *h,
              const cli_common *c, const rules_choice *choice, rules_result *out)
{
    memset(out, 0, sizeof *out);
    if (choice->off)
        return 0;
    const char *why = NULL;
    if (!h->type_fields && !h->v8_detachedness) {
        out->why_none = strcmp(dump->format, "hprof") != 0 ? "its format records no field values"
                      : dump->compression                  ? "it is compressed"
                                                           : "it was read from a pipe";
        return 0;
    }
    payload_file pf;
    memset(&pf, 0, sizeof pf); /* V8: the DOM states are in the heap, nothing is read */
    if (h->type_fields && !payload_open(&pf, path, dump, h, &why)) {
        out->why_none = why;
        return 0;
    }
    /* The rules follow references: suspects load them later from an index. */
    gch_error err;
    if (gch_analysis_references(an, h, &err) != GCH_OK) {
        payload_close(&pf);
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    gch_rules_options opt = { (const char *const *)choice->names, read_at, pf.f, NULL };
    int rc = find_and_group(an, h, c, &opt, out);
    payload_close(&pf);
    return rc;
}

void rules_result_free(rules_result *r)
{
    for (size_t k = 0; k < r->count; k++)
        free(r->groups[k].steps);
    free(r->groups);
    memset(r, 0, sizeof *r);
}

/* One group as a LeakCanary-style trace: each step's type and label, the
 * reference to the next step under it, "~" on the suspect window. */
static void print_trace(cli_out *o, const gch_heap *h, const cli_common *c, const rules_group *g)
{
    char tb[4096];
    size_t width = 0;
    for (size_t i = 0; i < g->nsteps; i++) {
        size_t n = strlen(cli_type_name(h, h->object_type[g->steps[i].object], c, tb, sizeof tb));
        width = n > width ? n : width;
    }
    out_printf(o, "  root: ");
    out_text(o, ESC_TABLE, g->nsteps ? g->steps[0].holder : "");
    out_printf(o, "%s\n", g->nsteps && g->steps[0].library_leak ? " (library leak)" : "");
    for (size_t i = 0; i < g->nsteps; i++) {
        const rules_step *s = &g->steps[i];
        const char *type = cli_type_name(h, h->object_type[s->object], c, tb, sizeof tb);
        out_printf(o, "  %4zu  ", i);
        out_text(o, ESC_TABLE, type);
        out_printf(o, "%*s  leaking: %s", (int)(width - strlen(type)), "", gch_leaking_name(s->leaking));
        if (*s->reason) {
            out_printf(o, " (");
            out_text(o, ESC_TABLE, s->reason);
            out_printf(o, ")");
        }
        out_printf(o, "\n");
        if (i + 1 < g->nsteps) {
            out_printf(o, "        %s ", i >= g->window_from && i < g->window_to ? "~" : "|");
            out_text(o, ESC_TABLE, g->steps[i + 1].holder);
            out_printf(o, "%s\n", g->steps[i + 1].library_leak ? " (library leak)" : "");
        }
    }
}

void rules_print_text(cli_out *o, const gch_heap *h, const cli_common *c, const rules_result *r)
{
    char tb[4096], bb[64], pb[32];
    for (size_t k = 0; k < r->count; k++) {
        const rules_group *g = &r->groups[k];
        out_printf(o, "finding %zu: %s: %" PRIu64 " object%s of ", k + 1, g->rule, g->count,
                   g->count == 1 ? "" : "s");
        out_text(o, ESC_TABLE, cli_type_name(h, g->type, c, tb, sizeof tb));
        out_printf(o, ", %s retained (%s%%)%s\n  ", format_bytes_text(g->retained, c->human, bb, sizeof bb),
                   format_share(g->retained, r->live_bytes, pb, sizeof pb),
                   g->library_leak ? ", a known library leak" : "");
        out_text(o, ESC_TABLE, g->reason);
        out_printf(o, "\n");
        print_trace(o, h, c, g);
        out_printf(o, "  (~: the references between the last step not leaking and the first "
                      "leaking one)\n\n");
    }
}

static void cell_row(report *rep, uint64_t number, const char *what, const gch_heap *h, uint32_t o,
                     uint64_t count, uint64_t bytes, const char *percent, const char *detail,
                     uint32_t type, const cli_common *c)
{
    char tb[4096];
    report_cell_u64(rep, number);
    report_cell_text(rep, what);
    report_cell_id(rep, h->object_id[o], h->id_radix);
    report_cell_u64(rep, count);
    report_cell_u64(rep, bytes);
    report_cell_text(rep, percent);
    report_cell_text(rep, detail);
    report_cell_text(rep, cli_type_name(h, type, c, tb, sizeof tb));
}

void rules_print_rows(report *rep, const gch_heap *h, const cli_common *c, const rules_result *r)
{
    char pb[32];
    for (size_t k = 0; k < r->count; k++) {
        const rules_group *g = &r->groups[k];
        cell_row(rep, k + 1, "finding", h, g->first, g->count, g->retained,
                 format_share(g->retained, r->live_bytes, pb, sizeof pb), g->rule, g->type, c);
        for (size_t i = 0; i < g->nsteps; i++) {
            const rules_step *s = &g->steps[i];
            cell_row(rep, k + 1, "trace", h, s->object, i, gch_object_size(h, s->object), "",
                     gch_leaking_name(s->leaking), h->object_type[s->object], c);
        }
    }
}

void rules_print_json(json_writer *w, const gch_heap *h, const cli_common *c,
                      const rules_result *r)
{
    char tb[4096], ib[32], pb[32];
    for (size_t k = 0; k < r->count; k++) {
        const rules_group *g = &r->groups[k];
        json_begin_object(w, NULL);
        json_u64(w, "finding", k + 1);
        json_string(w, "domain", h->name);
        json_string(w, "rule", g->rule);
        json_string(w, "reason", g->reason);
        json_string(w, "type", cli_type_name(h, g->type, c, tb, sizeof tb));
        snprintf(ib, sizeof ib, h->id_radix == 10 ? "%" PRIu64 : "%" PRIx64, h->object_id[g->first]);
        json_string(w, "id", ib);
        json_u64(w, "count", g->count);
        json_u64(w, "retained", g->retained);
        json_string(w, "percent", format_share(g->retained, r->live_bytes, pb, sizeof pb));
        json_bool(w, "library_leak", g->library_leak);
        json_begin_object(w, "window");
        json_u64(w, "from", g->window_from);
        json_u64(w, "to", g->window_to);
        json_end_object(w);
        json_begin_array(w, "path");
        for (size_t i = 0; i < g->nsteps; i++) {
            const rules_step *s = &g->steps[i];
            json_begin_object(w, NULL);
            json_u64(w, "step", i);
            snprintf(ib, sizeof ib, h->id_radix == 10 ? "%" PRIu64 : "%" PRIx64,
                     h->object_id[s->object]);
            json_string(w, "id", ib);
            json_string(w, "type", cli_type_name(h, h->object_type[s->object], c, tb, sizeof tb));
            json_u64(w, "bytes", gch_object_size(h, s->object));
            json_string(w, "holder", s->holder);
            json_string(w, "leaking", gch_leaking_name(s->leaking));
            json_string(w, "reason", s->reason);
            json_bool(w, "library_leak", s->library_leak != NULL);
            json_end_object(w);
        }
        json_end_array(w);
        json_end_object(w);
    }
}
