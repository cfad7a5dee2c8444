/* gcheap diff: per-type growth between two dumps, and the growth gates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sort.h"
#include "gate.h"
#include "stat_sort.h"
#include "typepat.h"

typedef struct diff_state {
    int live;
    int retained;
    int changed_only;
    int exact_names;
    gate gate;
} diff_state;

static int growth(void *state, const char *command, const char *option, const char *value)
{
    diff_state *s = state;
    int bytes = strcmp(option, "fail-on-growth") == 0;
    return gate_add_total(&s->gate, command, option, value, bytes ? MEASURE_BYTES : MEASURE_OBJECTS,
                          (bytes ? GCH_BOUND_BYTES : 0) | GCH_BOUND_GROWTH_ONLY);
}

static int type_growth(void *state, const char *command, const char *option, const char *value)
{
    diff_state *s = state;
    return gate_add_type(&s->gate, command, option, value, 1,
                         strcmp(option, "fail-on-type-total") == 0);
}

static const cli_option diff_options[] = {
    OPT_BOOL(0, "allow-missing", diff_state, gate.allow_missing,
             "a type limit may match no type (else exit 2: a misspelled gate never passes)"),
    OPT_BOOL(0, "live", diff_state, live, "compare only objects reachable from strong roots"),
    OPT_CALLBACK(0, "fail-on-growth", growth, "X",
                 "exit 1 if total bytes grew by more than X (SIZE or PERCENT)"),
    OPT_CALLBACK(0, "fail-on-count-growth", growth, "X",
                 "exit 1 if the object count grew by more than X (COUNT or PERCENT)"),
    OPT_CALLBACK(0, "fail-on-type", type_growth, "SPEC",
                 "exit 1 if any matching type breaks SPEC (each type apart)"),
    OPT_CALLBACK(0, "fail-on-type-total", type_growth, "SPEC",
                 "the same on the sum of all matching types"),
    OPT_BOOL(0, "changed-only", diff_state, changed_only,
             "only the types whose count, bytes (or retained size) changed"),
    OPT_BOOL(0, "retained", diff_state, retained, "add retained sizes (dominator tree) and their change"),
    OPT_BOOL(0, "exact-names", diff_state, exact_names,
             "pair types by their exact names, not by their stable forms (docs/ci-gates.md)"),
    OPT_END
};

static const char *const sort_keys[] = { "bytes", "count", "name", "retained", NULL };

static const char description[] =
    "Per-type growth from the dump BASE to the dump NEW: for each type, the count and\n"
    "bytes in each dump and their change, biggest byte change first. Types are matched\n"
    "by name (ids are not stable across dumps), so the dumps may be of different\n"
    "formats; a run-specific name is paired by its stable form (docs/ci-gates.md:\n"
    "a JVM lambda class OrderService$$Lambda$7/0x00007f38dc00bc10 is the row\n"
    "OrderService$$Lambda, a V8 'scope @35213' is 'scope'), the types of one\n"
    "stable form summed; --exact-names pairs the names as written. status is new (absent from BASE), gone (absent from NEW), changed or same.\n"
    "Columns: type, base_count, new_count, count_delta, base_bytes, new_bytes,\n"
    "bytes_delta, status (tsv/csv/json; in tables the type comes last and deltas\n"
    "carry a sign). A total row/\"total\" ends each section.\n"
    "--retained adds base_retained, new_retained, retained_delta: each type's retained\n"
    "size (the union of its live instances' dominator subtrees; the total row shows\n"
    "live bytes) and allows --sort retained.\n"
    "Sort keys: bytes (absolute byte change, default), count (absolute count change),\n"
    "name. Sections are compared by name (a section in one dump only shows all its\n"
    "types new or gone); two single-section dumps are compared whatever their names.\n"
    "\n"
    "Limits (each may be repeated; every violated one prints a line on stderr).\n"
    "SPEC is GLOB=COUNT[:SIZE] or GLOB=:SIZE; '+' before a number means growth:\n"
    "  --fail-on-growth 5%  | 2MiB       total bytes grew by more than that\n"
    "  --fail-on-count-growth 10% | 500  total object count grew by more than that\n"
    "  --fail-on-type 'MyApp.Cache.*=+100'         a type's count grew by > 100\n"
    "  --fail-on-type 'MyApp.*=+100:+1MiB'         count or bytes growth per type\n"
    "  --fail-on-type 'MyApp.Session=50:64MiB'     no '+': a maximum in NEW\n"
    "  --fail-on-type 'MyApp.*=+10%'               percent growth (from 0: infinite)\n"
    "SIZE: bytes, or with B, KB, MB, GB, TB (1000s), KiB, MiB, GiB, TiB (1024s);\n"
    "case-insensitive; fractions round down (1.5MiB). GLOB: '*' any run, '?' one\n"
    "character, '\\' quotes; '[' is literal. Exceeded means strictly greater.\n"
    "Limits apply to each section. --format json adds \"pass\" and \"limits\".\n"
    "Exit status: 0 within every limit, 1 a limit was exceeded, 2 usage or input error.";

typedef struct section_pair {
    const gch_heap *base, *new;
    char *name;
    named_type *bt, *nt;
    size_t nbt, nnt;
} section_pair;

/* Pairs the sections of the two dumps; see the description. */
/* The driver has checked that --domain names a section of one dump at least. */
static void pair_sections(const gch_dump *base, const gch_dump *nd, const cli_common *c,
                          section_pair **out, size_t *count)
{
    size_t cap = base->heap_count + nd->heap_count + 1;
    section_pair *p = xcalloc(cap, sizeof *p);
    unsigned char *used = xcalloc(nd->heap_count + 1, 1);
    size_t n = 0;
    /* --domain NAME: every section of that name (a dump may hold several), paired
     * in order like the sections of two multi-section dumps. */
    if (!c->domain && base->heap_count == 1 && nd->heap_count == 1) {
        p[0].base = base->heaps[0];
        p[0].new = nd->heaps[0];
        if (strcmp(p[0].base->name, p[0].new->name) == 0) {
            p[0].name = xstrdup(p[0].base->name);
        } else {
            strbuf name = STRBUF_INIT;
            sb_addf(&name, "%s -> %s", p[0].base->name, p[0].new->name);
            p[0].name = name.s;
        }
        n = 1;
    } else {
        for (size_t i = 0; i < base->heap_count; i++) {
            if (c->domain && strcmp(base->heaps[i]->name, c->domain) != 0)
                continue;
            p[n].base = base->heaps[i];
            p[n].name = xstrdup(base->heaps[i]->name);
            for (size_t j = 0; j < nd->heap_count; j++)
                if (!used[j] && strcmp(nd->heaps[j]->name, base->heaps[i]->name) == 0) {
                    used[j] = 1;
                    p[n].new = nd->heaps[j];
                    break;
                }
            n++;
        }
        for (size_t j = 0; j < nd->heap_count; j++)
            if (!used[j] && !(c->domain && strcmp(nd->heaps[j]->name, c->domain) != 0)) {
                p[n].new = nd->heaps[j];
                p[n].name = xstrdup(nd->heaps[j]->name);
                n++;
            }
    }
    free(used);
    *out = p;
    *count = n;
}

static int cmp_named(const void *pa, const void *pb)
{
    return strcmp(((const named_type *)pa)->name, ((const named_type *)pb)->name);
}

/* Renames each type to its stable form (typepat_stable: a JVM hidden class
 * without counter and address, a V8 name without its node id), then sums
 * the types that now share a name; the list stays sorted by name. */
static void to_stable_names(named_type *t, size_t *count)
{
    char buf[8192];
    if (*count == 0) /* a section with no types: t may be NULL (qsort must not see it) */
        return;
    for (size_t i = 0; i < *count; i++) {
        const char *stable = typepat_stable(t[i].name, buf, sizeof buf);
        if (stable) {
            free(t[i].name);
            t[i].name = xstrdup(stable);
        }
    }
    qsort(t, *count, sizeof *t, cmp_named);
    size_t w = 0;
    for (size_t i = 0; i < *count; i++) {
        if (w && strcmp(t[w - 1].name, t[i].name) == 0) {
            t[w - 1].count += t[i].count; /* sums below the heap's totals */
            t[w - 1].bytes += t[i].bytes;
            t[w - 1].retained += t[i].retained;
            free(t[i].name);
            continue;
        }
        t[w++] = t[i];
    }
    *count = w;
}

/* Merges two name-sorted lists into diff rows (names point into the lists). */
static gate_type *merge(const named_type *b, size_t nb, const named_type *n, size_t nn,
                        size_t *count)
{
    gate_type *rows = xcalloc(nb + nn + 1, sizeof *rows);
    size_t i = 0, j = 0, k = 0;
    while (i < nb || j < nn) {
        int c = i == nb ? 1 : j == nn ? -1 : strcmp(b[i].name, n[j].name);
        gate_type *r = &rows[k++];
        if (c <= 0) {
            r->name = b[i].name;
            r->base_count = b[i].count;
            r->base_bytes = b[i].bytes;
            r->base_retained = b[i].retained;
            i++;
        }
        if (c >= 0) {
            r->name = n[j].name;
            r->new_count = n[j].count;
            r->new_bytes = n[j].bytes;
            r->new_retained = n[j].retained;
            j++;
        }
    }
    *count = k;
    return rows;
}

static uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

static int cmp_desc(uint64_t a, uint64_t b) { return a < b ? 1 : a > b ? -1 : 0; }

/* ctx: the sort key, 0 bytes, 1 count, 2 name, 3 retained. */
static int compare_rows(const void *pa, const void *pb, const void *ctx)
{
    const gate_type *a = pa, *b = pb;
    const int sort_key = *(const int *)ctx;
    int c = 0;
    uint64_t ab = absdiff(a->base_bytes, a->new_bytes), bb = absdiff(b->base_bytes, b->new_bytes);
    uint64_t ac = absdiff(a->base_count, a->new_count), bc = absdiff(b->base_count, b->new_count);
    if (sort_key == 3)
        c = cmp_desc(absdiff(a->base_retained, a->new_retained), absdiff(b->base_retained, b->new_retained));
    if (sort_key == 0 || (sort_key == 3 && !c))
        c = cmp_desc(ab, bb) ? cmp_desc(ab, bb) : cmp_desc(ac, bc);
    else if (sort_key == 1)
        c = cmp_desc(ac, bc) ? cmp_desc(ac, bc) : cmp_desc(ab, bb);
    return c ? c : strcmp(a->name, b->name);
}

static const char *status_of(uint64_t bc, uint64_t bb, uint64_t nc, uint64_t nb)
{
    if (bc == 0 && nc != 0)
        return "new";
    if (bc != 0 && nc == 0)
        return "gone";
    return bc == nc && bb == nb ? "same" : "changed";
}

static void emit_row(report *rep, int type_first, const char *name, uint64_t bc, uint64_t nc,
                     uint64_t bb, uint64_t nb, const uint64_t *retained /* base, new or NULL */)
{
    if (type_first)
        report_cell_text(rep, name);
    report_cell_u64(rep, bc);
    report_cell_u64(rep, nc);
    report_cell_signed(rep, nc < bc, absdiff(bc, nc));
    report_cell_u64(rep, bb);
    report_cell_u64(rep, nb);
    report_cell_signed(rep, nb < bb, absdiff(bb, nb));
    if (retained) {
        report_cell_u64(rep, retained[0]);
        report_cell_u64(rep, retained[1]);
        report_cell_signed(rep, retained[1] < retained[0], absdiff(retained[0], retained[1]));
    }
    report_cell_text(rep, status_of(bc, bb, nc, nb));
    if (!type_first)
        report_cell_text(rep, name);
}

static int diff_check(cli_run *run)
{
    const diff_state *s = run->state;
    if (run->c->sort && strcmp(run->c->sort, "retained") == 0 && !s->retained)
        return cli_usage_error("diff", "--sort retained needs --retained");
    return 0;
}

static int diff_needs_refs(const void *state)
{
    const diff_state *s = state;
    return s->live || s->retained;
}

/* The pair's types merged into one gate section, sorted by --sort. */
static int build_section(const cli_run *run, section_pair *p, gate_section *sec)
{
    const diff_state *s = run->state;
    const cli_common *c = run->c;
    int rc = 0;
    if ((p->base && (rc = heap_types_for(run->in[0].an, p->base, s->live, s->retained, c, &p->bt,
                                         &p->nbt, &sec->base_retained)) != 0) ||
        (p->new && (rc = heap_types_for(run->in[1].an, p->new, s->live, s->retained, c, &p->nt,
                                        &p->nnt, &sec->new_retained)) != 0))
        return rc;
    if (!s->exact_names) {
        to_stable_names(p->bt, &p->nbt);
        to_stable_names(p->nt, &p->nnt);
    }
    sec->name = p->name;
    sec->types = merge(p->bt, p->nbt, p->nt, p->nnt, &sec->ntypes);
    for (size_t t = 0; t < sec->ntypes; t++) {
        sec->base_count += sec->types[t].base_count;
        sec->base_bytes += sec->types[t].base_bytes;
        sec->new_count += sec->types[t].new_count;
        sec->new_bytes += sec->types[t].new_bytes;
    }
    int sort_key = !c->sort || strcmp(c->sort, "bytes") == 0 ? 0
                   : strcmp(c->sort, "count") == 0           ? 1
                   : strcmp(c->sort, "name") == 0            ? 2
                                                             : 3;
    cli_sort(sec->types, sec->ntypes, sizeof *sec->types, compare_rows, &sort_key);
    return 0;
}

static void print_rows(cli_run *run, const gate_section *secs, size_t nsecs)
{
    const diff_state *s = run->state;
    const cli_common *c = run->c;
    int type_first = c->format != FMT_TABLE;
    col_spec cols[12];
    size_t nc = 0;
    if (type_first)
        cols[nc++] = (col_spec){ "type", COL_TEXT };
    cols[nc++] = (col_spec){ "base_count", COL_COUNT };
    cols[nc++] = (col_spec){ "new_count", COL_COUNT };
    cols[nc++] = (col_spec){ "count_delta", COL_SIGNED };
    cols[nc++] = (col_spec){ "base_bytes", COL_BYTES };
    cols[nc++] = (col_spec){ "new_bytes", COL_BYTES };
    /* COL_BYTES with signed cells: "+1.5 KiB" with -h, "+1536" otherwise. */
    cols[nc++] = (col_spec){ "bytes_delta", COL_BYTES };
    if (s->retained) {
        cols[nc++] = (col_spec){ "base_retained", COL_BYTES };
        cols[nc++] = (col_spec){ "new_retained", COL_BYTES };
        cols[nc++] = (col_spec){ "retained_delta", COL_BYTES };
    }
    cols[nc++] = (col_spec){ "status", COL_TEXT };
    if (!type_first)
        cols[nc++] = (col_spec){ "type", COL_TEXT };
    gate_write_json(&s->gate, out_json(run->out), 1);
    report *rep = report_new(run->out, cols, nc, nsecs > 1);
    for (size_t i = 0; i < nsecs; i++) {
        const gate_section *sec = &secs[i];
        report_begin_section(rep, sec->name);
        size_t listed = 0, shown = 0;
        for (size_t t = 0; t < sec->ntypes; t++) {
            const gate_type *r = &sec->types[t];
            if (s->changed_only && r->base_count == r->new_count && r->base_bytes == r->new_bytes &&
                (!s->retained || r->base_retained == r->new_retained))
                continue;
            if (listed++ >= c->top)
                continue;
            shown++;
            uint64_t ret[2] = { r->base_retained, r->new_retained };
            emit_row(rep, type_first, r->name, r->base_count, r->new_count, r->base_bytes,
                     r->new_bytes, s->retained ? ret : NULL);
        }
        report_note_more(rep, shown, listed, "types");
        report_begin_total(rep);
        char label[64]; /* json: the count is "types" */
        report_total_label(rep, sec->ntypes, "type", label, sizeof label);
        /* A type's retained sizes overlap; the section's is its live bytes. */
        uint64_t ret[2] = { sec->base_retained, sec->new_retained };
        emit_row(rep, type_first, label, sec->base_count, sec->new_count, sec->base_bytes,
                 sec->new_bytes, s->retained ? ret : NULL);
        report_section_u64(rep, "types", sec->ntypes);
        report_end_section(rep);
    }
}

static int diff_report(cli_run *run)
{
    diff_state *s = run->state;
    section_pair *pairs;
    size_t npairs;
    pair_sections(run->in[0].dump, run->in[1].dump, run->c, &pairs, &npairs);
    gate_section *secs = xcalloc(npairs, sizeof *secs);
    int rc = 0;
    for (size_t i = 0; i < npairs && rc == 0; i++)
        rc = build_section(run, &pairs[i], &secs[i]);
    if (rc == 0)
        rc = gate_check_missing(&s->gate, "diff", secs, npairs);
    if (rc == 0) {
        size_t exceeded = gate_evaluate(&s->gate, secs, npairs, npairs > 1);
        print_rows(run, secs, npairs);
        rc = exceeded ? EXIT_LIMIT : 0;
    }
    for (size_t i = 0; i < npairs; i++) {
        named_types_free(pairs[i].bt, pairs[i].nbt);
        named_types_free(pairs[i].nt, pairs[i].nnt);
        free(pairs[i].name);
        free(secs[i].types);
    }
    free(pairs);
    free(secs);
    return rc;
}

static void diff_release(void *state) { gate_free(&((diff_state *)state)->gate); }

const cli_spec diff_command = {
    .name = "diff", .summary = "per-type growth between two dumps; CI gate on growth",
    .usage = "usage: gcheap diff [OPTIONS] BASE NEW", .description = description,
    .options = diff_options, .state_size = sizeof(diff_state), .sort_keys = sort_keys,
    .min_args = 2, .max_args = 2, .flags = CLI_TWO_DUMPS, .needs_refs = diff_needs_refs,
    .check = diff_check, .report = diff_report, .release = diff_release,
};
