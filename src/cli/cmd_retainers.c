/* gcheap retainers: why is an object alive - the shortest reference path from
 * a GC root to it (SOS !gcroot), the chain of its immediate dominators, or the
 * merged shortest paths of every instance of a type (Eclipse MAT). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/alloc.h"
#include "why.h"

typedef struct retainers_state {
    int all, dominators;
    uint64_t max_paths;
    const char *type;
    uint64_t depth;
    why_targets targets;
} retainers_state;

/* gch_paths_all is asked for max_paths + 1 paths (to tell whether there are
 * more): the largest count that cannot wrap. */
#define MAX_PATHS_LIMIT ((uint64_t)SIZE_MAX - 1)

static const cli_option retainers_options[] = {
    OPT_BOOL(0, "all", retainers_state, all, "one shortest path per distinct root that reaches ID"),
    OPT_UINT(0, "max-paths", retainers_state, max_paths, "N", 1, MAX_PATHS_LIMIT,
             "with --all: at most N paths per ID (default 10)"),
    OPT_BOOL(0, "dominators", retainers_state, dominators, "the chain of immediate dominators instead"),
    OPT_STRING(0, "type", retainers_state, type, "NAME", "merged paths of all instances of NAME (* ? wildcards)"),
    OPT_UINT(0, "depth", retainers_state, depth, "D", 0, UINT64_MAX,
             "with --type: levels of the merged tree shown"),
    OPT_END
};

/* The shortest path of each ID reads the references only through the
 * analysis (its path tree; the field names, when the heap has them, are
 * loaded at once): from an index they wait until the analysis must compute
 * (CLI_LOAD_REFS_LATER). --all, --type and --dominators read them directly. */
static int retainers_needs_refs(const void *state)
{
    const retainers_state *s = state;
    return CLI_LOAD_REFS | (!s->all && !s->type && !s->dominators ? CLI_LOAD_REFS_LATER : 0);
}

static const retainers_state defaults = { .max_paths = 10, .depth = UINT64_MAX };
static const char description[] =
    "Why an object is alive: the shortest reference path from a strong GC root to\n"
    "ID, root first, like SOS !gcroot. The root line gives the root's kind and\n"
    "flags, and where it comes from (the static's container type, a label);\n"
    "then each step '-> [.field] id type', ending at ID. An object reachable only\n"
    "through weak roots says so and shows the path through the weak root; one\n"
    "that no root reaches says 'not reachable from any root'. One block per ID.\n"
    "--all: one shortest path from each distinct root object that reaches ID,\n"
    "shortest first (--max-paths N, default 10).\n"
    "--dominators: the chain of immediate dominators, root first, with retained\n"
    "sizes, ending at ID (each object on it must go for ID to become garbage).\n"
    "--type NAME: the shortest paths of every instance of the types matching NAME\n"
    "merged into one tree keyed by type (MAT's \"merge shortest paths to GC\n"
    "roots\"): each node gives how many paths pass through it (paths) and how\n"
    "many distinct objects it stands for (count); top nodes name the root kind.\n"
    "--top N: at most N children per node (default 20 in table output);\n"
    "--depth D: levels shown (default: all).\n"
    "tsv/csv/json, paths: one row per step, columns target, status (live,\n"
    "weak-only or unreachable), path (1, 2, ...; 0 for an unreachable target),\n"
    "depth (0 = the root object), id, size, type, field (label of the reference\n"
    "from the previous step), kind, flags, container, label (root columns on\n"
    "depth 0 only). --dominators: target, status (live or not-live), depth, id,\n"
    "size, retained, type. --type: depth, paths, count, kind, type.";

static const char *id_text(const gch_heap *h, uint32_t o, char *buf, size_t cap)
{
    return format_id(h->object_id[o], h->id_radix, buf, cap);
}

/* ---- paths ---- */

typedef struct ctx {
    gch_heap *h;
    const char *path;     /* the dump, for the hint to run refs */
    const cli_common *c;
    report *rep;          /* tsv/csv/json; NULL for table */
    cli_out *out;         /* table: the text blocks */
    gch_analysis *an;     /* the loaded heap: paths and trees, built on first use */
} ctx;

static int paths_of(ctx *x, int weak, const gch_paths **out)
{
    return cli_paths(x->an, x->h, weak, out);
}

/* Table: "  root: KIND[, FLAGS]  (static in CONTAINER, LABEL)". */
static void print_root_line(const ctx *x, uint32_t r)
{
    const gch_heap *h = x->h;
    char fbuf[64], cbuf[4096];
    out_printf(x->out, "  root: %s", gch_root_kind_name(h->root_kind[r]));
    if (h->root_flags[r])
        out_printf(x->out, ", %s", cli_root_flags_text(h->root_flags[r], fbuf, sizeof fbuf));
    cli_root_container_text(h, r, x->c, cbuf, sizeof cbuf);
    const char *label = gch_heap_string(h, h->root_label[r]);
    if (cbuf[0] || label[0]) {
        out_printf(x->out, "  (");
        if (cbuf[0]) {
            out_printf(x->out, "static in ");
            out_text(x->out, ESC_TABLE, cbuf);
        }
        if (cbuf[0] && label[0])
            out_printf(x->out, ", ");
        out_text(x->out, ESC_TABLE, label);
        out_printf(x->out, ")");
    }
    out_printf(x->out, "\n");
}

static void print_step(const ctx *x, uint32_t prev, uint32_t o)
{
    const gch_heap *h = x->h;
    char ib[32], tb[8192];
    out_printf(x->out, "  -> ");
    const char *label = prev == GCH_NONE ? "" : why_ref_label(h, prev, o);
    if (label[0]) {
        /* A bare field name gets a dot; labels that carry their own form
         * (".x", "[3]", V8's "{map}" and "context x", HPROF's "<class>" and
         * "static head") are shown as they are. */
        if (label[0] != '.' && label[0] != '[' && label[0] != '{' && label[0] != '<' &&
            !strchr(label, ' '))
            out_printf(x->out, ".");
        out_text(x->out, ESC_TABLE, label);
        out_printf(x->out, " ");
    }
    out_printf(x->out, "%s ", id_text(h, o, ib, sizeof ib));
    out_text(x->out, ESC_TABLE, cli_type_name(h, h->object_type[o], x->c, tb, sizeof tb));
    out_printf(x->out, "\n");
}

/* One machine row of a path step. */
static void step_row(const ctx *x, uint32_t target, const char *status, uint64_t path,
                     uint64_t depth, uint32_t prev, uint32_t o, uint32_t r)
{
    const gch_heap *h = x->h;
    report *rep = x->rep;
    char tb[8192], fbuf[64], cbuf[4096];
    report_cell_id(rep, h->object_id[target], h->id_radix);
    report_cell_text(rep, status);
    report_cell_u64(rep, path);
    report_cell_u64(rep, depth);
    report_cell_id(rep, h->object_id[o], h->id_radix);
    report_cell_u64(rep, gch_object_size(h, o));
    report_cell_text(rep, cli_type_name(h, h->object_type[o], x->c, tb, sizeof tb));
    report_cell_text(rep, prev == GCH_NONE ? "" : why_ref_label(h, prev, o));
    if (r != GCH_NONE) {
        report_cell_text(rep, gch_root_kind_name(h->root_kind[r]));
        report_cell_text(rep, cli_root_flags_text(h->root_flags[r], fbuf, sizeof fbuf));
        report_cell_text(rep, cli_root_container_text(h, r, x->c, cbuf, sizeof cbuf));
        report_cell_text(rep, gch_heap_string(h, h->root_label[r]));
    } else {
        for (int i = 0; i < 4; i++)
            report_cell_text(rep, "");
    }
}

static void show_path_set(const ctx *x, uint32_t target, const char *status, const gch_path_set *ps,
                          size_t count)
{
    for (size_t k = 0; k < count; k++) {
        const uint32_t *ob = ps->objects + ps->start[k];
        size_t len = ps->start[k + 1] - ps->start[k];
        if (!x->rep)
            print_root_line(x, ps->root_record[k]);
        for (size_t i = 0; i < len; i++) {
            uint32_t prev = i ? ob[i - 1] : GCH_NONE;
            if (x->rep)
                step_row(x, target, status, k + 1, i, prev, ob[i], i ? GCH_NONE : ps->root_record[k]);
            else
                print_step(x, prev, ob[i]);
        }
    }
}

/* An object no root reaches: what still references it (garbage holding
 * garbage, or a cycle), and the command that lists all of it. */
static int unreachable_block(ctx *x, uint32_t target)
{
    gch_heap *h = x->h;
    if (cli_reverse(x->an, h) != 0)
        return EXIT_INPUT;
    out_printf(x->out, "  not reachable from any root\n");
    uint32_t b = h->in_start[target], e = h->in_start[target + 1];
    uint32_t distinct = 0;
    for (uint32_t k = b; k < e; k++)
        distinct += k == b || h->in_source[k] != h->in_source[k - 1];
    char ib[32];
    id_text(h, target, ib, sizeof ib);
    if (distinct == 0) {
        out_printf(x->out, "  no object references it\n");
        return 0;
    }
    out_printf(x->out, "  referenced by %u object%s (unreachable too):\n", (unsigned)distinct,
               distinct == 1 ? "" : "s");
    uint32_t shown = 0;
    for (uint32_t k = b; k < e && shown < 3; k++) {
        if (k != b && h->in_source[k] == h->in_source[k - 1])
            continue;
        shown++;
        uint32_t src = h->in_source[k];
        char sb[32], tb[8192];
        out_printf(x->out, "  <- %s ", id_text(h, src, sb, sizeof sb));
        out_text(x->out, ESC_TABLE, cli_type_name(h, h->object_type[src], x->c, tb, sizeof tb));
        const char *label = why_ref_label(h, src, target);
        if (label[0]) {
            out_printf(x->out, "  (field ");
            out_text(x->out, ESC_TABLE, label);
            out_printf(x->out, ")");
        }
        out_printf(x->out, "\n");
    }
    if (distinct > shown)
        out_printf(x->out, "  ... %u more\n", (unsigned)(distinct - shown));
    out_printf(x->out, "  all references: gcheap refs DUMP %s\n", ib);
    return 0;
}

/* The block of one target: its shortest path(s) from the strong roots, else
 * from the weak ones, else "not reachable". */
static int path_block(ctx *x, uint32_t target, const retainers_state *s)
{
    gch_heap *h = x->h;
    int weak_pass = x->c->include_weak; /* with --include-weak, one pass counts every root */
    for (int pass = 0; pass < 2; pass++) {
        int weak = pass == 1 || weak_pass;
        if (pass == 1 && weak_pass)
            break;
        gch_path_set ps;
        gch_error err;
        size_t shown;
        int more = 0;
        if (s->all) {
            if (cli_reverse(x->an, h) != 0)
                return EXIT_INPUT;
            if (gch_paths_all(h, weak, target, (size_t)s->max_paths + 1, &ps, &err) != GCH_OK) {
                cli_error("%s", err.message);
                return EXIT_INPUT;
            }
            shown = ps.count;
            if (shown > s->max_paths) {
                shown = (size_t)s->max_paths;
                more = 1;
            }
        } else {
            if (cli_path(x->an, h, weak, target, &ps) != 0)
                return EXIT_INPUT;
            shown = ps.count;
        }
        if (ps.count == 0) {
            gch_path_set_free(&ps);
            continue;
        }
        const char *status = pass == 1 ? "weak-only" : "live";
        if (!x->rep) {
            if (pass == 1)
                out_printf(x->out, "  reachable only through weak roots\n");
            if (s->all)
                out_printf(x->out, "  %zu path%s, shortest first%s\n", shown, shown == 1 ? "" : "s",
                       more ? " (more roots reach it: raise --max-paths)" : "");
        }
        show_path_set(x, target, status, &ps, shown);
        gch_path_set_free(&ps);
        return 0;
    }
    if (x->rep)
        step_row(x, target, "unreachable", 0, 0, GCH_NONE, target, GCH_NONE);
    else
        return unreachable_block(x, target);
    return 0;
}

/* ---- dominators ---- */

static int dominator_block(ctx *x, const gch_domtree *t, uint32_t target)
{
    const gch_heap *h = x->h;
    char ib[32], tb[8192];
    int live = t->idom[target] != GCH_NONE;
    if (!live) {
        if (x->rep) {
            report *rep = x->rep;
            report_cell_id(rep, h->object_id[target], h->id_radix);
            report_cell_text(rep, "not-live");
            report_cell_u64(rep, 0);
            report_cell_id(rep, h->object_id[target], h->id_radix);
            report_cell_u64(rep, gch_object_size(h, target));
            report_cell_u64(rep, 0);
            report_cell_text(rep, cli_type_name(h, h->object_type[target], x->c, tb, sizeof tb));
        } else {
            out_printf(x->out, "  not live: not reachable from any strong root\n");
        }
        return 0;
    }
    uint32_t *chain = NULL;
    size_t len = 0;
    gch_error err;
    if (gch_dom_chain(t, target, &chain, &len, &err) != GCH_OK) {
        cli_error("%s", err.message);
        return EXIT_INPUT;
    }
    /* Root first: the chain is listed from idom(target) upwards. */
    size_t wid = 0, wret = 8;
    char num[32];
    for (size_t i = 0; i <= len; i++) {
        uint32_t o = i < len ? chain[i] : target;
        size_t n = strlen(id_text(h, o, ib, sizeof ib));
        if (n > wid)
            wid = n;
        n = (size_t)snprintf(num, sizeof num, "%" PRIu64, t->retained[o]);
        if (x->c->human)
            n = strlen(format_human_bytes(t->retained[o], num, sizeof num));
        if (n > wret)
            wret = n;
    }
    if (wid < 2)
        wid = 2;
    if (!x->rep)
        out_printf(x->out, "  %*s  %*s  type\n", (int)wret, "retained", (int)wid, "id");
    for (size_t k = 0; k <= len; k++) {
        uint32_t o = k < len ? chain[len - 1 - k] : target;
        if (x->rep) {
            report *rep = x->rep;
            report_cell_id(rep, h->object_id[target], h->id_radix);
            report_cell_text(rep, "live");
            report_cell_u64(rep, k);
            report_cell_id(rep, h->object_id[o], h->id_radix);
            report_cell_u64(rep, gch_object_size(h, o));
            report_cell_u64(rep, t->retained[o]);
            report_cell_text(rep, cli_type_name(h, h->object_type[o], x->c, tb, sizeof tb));
        } else {
            if (x->c->human)
                format_human_bytes(t->retained[o], num, sizeof num);
            else
                snprintf(num, sizeof num, "%" PRIu64, t->retained[o]);
            out_printf(x->out, "  %*s  %*s  ", (int)wret, num, (int)wid, id_text(h, o, ib, sizeof ib));
            out_text(x->out, ESC_TABLE, cli_type_name(h, h->object_type[o], x->c, tb, sizeof tb));
            out_printf(x->out, "\n");
        }
    }
    gch_free(chain);
    return 0;
}

/* ---- merged paths (--type) ---- */

typedef struct mframe {
    size_t next, shown_end, end;
    uint64_t depth;
} mframe;

typedef struct mstack {
    mframe *frames;
    size_t n, cap;
} mstack;

/* Opens a frame for the children of node (node_count = the top nodes) at
 * depth d, showing at most top of them. */
static void push_children(mstack *st, const gch_merged_paths *m, size_t node, uint64_t d,
                          uint64_t top)
{
    size_t b = m->child_start[node], e = m->child_start[node + 1];
    if (b == e)
        return;
    st->frames = xgrow(st->frames, &st->cap, st->n + 1, sizeof *st->frames);
    mframe f = { b, b + (e - b < top ? e - b : (size_t)top), e, d };
    st->frames[st->n++] = f;
}

/* The field of the references into a merged node: "table", "[]" for array
 * elements of different indexes, "" when they differ or are unnamed. */
static const char *merged_field(const gch_heap *h, const gch_merged_node *nd)
{
    if (nd->field != GCH_NONE)
        return gch_heap_string(h, nd->field);
    return nd->field_indexes ? "[]" : "";
}

static void merged_row(const ctx *x, report *rep, const gch_merged_node *nd, uint64_t depth)
{
    char tb[8192], ind[128], cell[8400], hb[2100];
    const char *tn = cli_type_name(x->h, nd->type, x->c, tb, sizeof tb);
    int top = nd->parent == GCH_NONE;
    const char *field = top ? "" : merged_field(x->h, nd);
    const char *holder = top && nd->root_record != GCH_NONE
                             ? cli_root_holder_name(x->h, nd->root_record, x->c, hb, sizeof hb) : "";
    /* json: the same per-step keys as suspects' path rows (docs/schemas.md) */
    report_row_json_text(rep, "field", *field ? field : NULL);
    report_row_json_text(rep, "root_kind", top ? gch_root_kind_name(nd->root_kind) : NULL);
    report_row_json_text(rep, "holder", *holder ? holder : NULL);
    if (x->c->format != FMT_TABLE)
        report_cell_u64(rep, depth);
    report_cell_u64(rep, nd->paths);
    report_cell_u64(rep, nd->objects);
    if (x->c->format != FMT_TABLE) {
        report_cell_text(rep, top ? gch_root_kind_name(nd->root_kind) : "");
        report_cell_text(rep, tn);
        return;
    }
    if (top)
        snprintf(cell, sizeof cell, "%s%s  (%s root%s%.2000s)", why_indent(depth, ind, sizeof ind), tn,
                 gch_root_kind_name(nd->root_kind), *holder ? " " : "", holder);
    else
        snprintf(cell, sizeof cell, "%s%s%s%s%.2000s", why_indent(depth, ind, sizeof ind), tn,
                 *field ? "  " : "", *field == '[' || !*field ? "" : ".", field);
    report_cell_text(rep, cell);
}

static void merged_more(const ctx *x, report *rep, const gch_merged_paths *m, const mframe *f)
{
    if (x->c->format != FMT_TABLE)
        return; /* tsv/csv/json: data rows only, no "(N more)" pseudo-row (docs/schemas.md) */
    uint64_t paths = 0, objects = 0;
    for (size_t i = f->shown_end; i < f->end; i++) {
        paths += m->nodes[m->children[i]].paths;
        objects += m->nodes[m->children[i]].objects;
    }
    char ind[128], text[256];
    if (x->c->format != FMT_TABLE)
        report_cell_u64(rep, f->depth);
    report_cell_u64(rep, paths);
    report_cell_u64(rep, objects);
    if (x->c->format != FMT_TABLE)
        report_cell_text(rep, "");
    snprintf(text, sizeof text, "%s(%zu more, %" PRIu64 " path%s)",
             x->c->format == FMT_TABLE ? why_indent(f->depth, ind, sizeof ind) : "", f->end - f->shown_end,
             paths, paths == 1 ? "" : "s");
    report_cell_text(rep, text);
}

static int type_heap(ctx *x, report *rep, const uint8_t *mask, const retainers_state *s)
{
    gch_heap *h = x->h;
    uint32_t *inst;
    size_t ninst;
    why_instances(h, mask, &inst, &ninst);
    const gch_paths *p;
    if (paths_of(x, x->c->include_weak, &p) != 0) {
        free(inst);
        return EXIT_INPUT;
    }
    gch_merged_paths m;
    gch_error err;
    if (gch_merged_paths_build(h, p, inst, ninst, &m, &err) != GCH_OK) {
        cli_error("%s", err.message);
        free(inst);
        return EXIT_INPUT;
    }
    free(inst);
    uint64_t top = why_top(x->c, 20);
    uint64_t max_depth = s->depth;
    report_begin_section(rep, h->name);
    mstack st = { NULL, 0, 0 };
    push_children(&st, &m, m.node_count, 0, top);
    while (st.n) {
        mframe *f = &st.frames[st.n - 1];
        if (f->next < f->shown_end) {
            uint32_t k = m.children[f->next++];
            uint64_t d = f->depth;
            merged_row(x, rep, &m.nodes[k], d);
            if (d < max_depth)
                push_children(&st, &m, k, d + 1, top);
            continue;
        }
        if (f->shown_end < f->end)
            merged_more(x, rep, &m, f);
        st.n--;
    }
    free(st.frames);
    report_note(rep, "(%" PRIu64 " instance%s; %" PRIu64 " not reachable from any %sroot)", m.targets,
                m.targets == 1 ? "" : "s", m.unreachable, x->c->include_weak ? "" : "strong ");
    report_section_u64(rep, "instances", m.targets);
    report_section_u64(rep, "unreachable", m.unreachable);
    report_end_section(rep);
    gch_merged_paths_free(&m);
    return 0;
}

/* ---- command ---- */

static const col_spec path_cols[] = {
    { "target", COL_ID }, { "status", COL_TEXT }, { "path", COL_COUNT }, { "depth", COL_COUNT },
    { "id", COL_ID }, { "size", COL_BYTES }, { "type", COL_TEXT }, { "field", COL_TEXT },
    { "kind", COL_TEXT }, { "flags", COL_TEXT }, { "container", COL_TEXT }, { "label", COL_TEXT }
};
static const col_spec dom_cols[] = {
    { "target", COL_ID }, { "status", COL_TEXT }, { "depth", COL_COUNT }, { "id", COL_ID },
    { "size", COL_BYTES }, { "retained", COL_BYTES }, { "type", COL_TEXT }
};
static const col_spec type_table_cols[] = {
    { "paths", COL_COUNT }, { "count", COL_COUNT }, { "type", COL_TEXT }
};
static const col_spec type_cols[] = {
    { "depth", COL_COUNT }, { "paths", COL_COUNT }, { "count", COL_COUNT }, { "kind", COL_TEXT },
    { "type", COL_TEXT }
};

static int retainers_check(cli_run *run)
{
    const retainers_state *s = run->state;
    int rc = why_check_target_args(run, s->type);
    if (rc == 0 && s->all && s->dominators)
        rc = cli_usage_error("retainers", "--all and --dominators exclude each other");
    if (rc == 0 && s->type && (s->all || s->dominators))
        rc = cli_usage_error("retainers", "--type does not combine with --all or --dominators");
    return rc;
}

static int retainers_prepare(cli_run *run)
{
    retainers_state *s = run->state;
    return why_targets_find(run, s->type, &s->targets);
}

/* The blocks (table) or rows of the IDs found in section x->h. */
static int id_section(ctx *x, const retainers_state *s, const uint32_t *f, int *sections)
{
    gch_domtree t;
    memset(&t, 0, sizeof t);
    const gch_domtree *tree;
    /* idom chains and retained sizes only: no children lists. */
    if (s->dominators) {
        if (cli_domtree(x->an, x->h, x->c, GCH_TREE_BY_OBJECT, &tree) != 0)
            return EXIT_INPUT;
        t = *tree;
    }
    if (x->rep) {
        report_begin_section(x->rep, x->h->name);
    } else if (s->targets.nused > 1) {
        out_printf(x->out, "%s== ", *sections ? "\n" : "");
        out_text(x->out, ESC_TABLE, x->h->name);
        out_printf(x->out, " ==\n");
    }
    ++*sections;
    int rc = 0, blocks = 0;
    for (size_t i = 0; i < s->targets.nids && rc == 0; i++) {
        if (f[i] == GCH_NONE)
            continue;
        if (!x->rep) {
            char ib[32], tb[8192];
            out_printf(x->out, "%s%s ", blocks++ ? "\n" : "", id_text(x->h, f[i], ib, sizeof ib));
            out_text(x->out, ESC_TABLE, cli_type_name(x->h, x->h->object_type[f[i]], x->c, tb, sizeof tb));
            out_printf(x->out, "\n");
        }
        rc = s->dominators ? dominator_block(x, &t, f[i]) : path_block(x, f[i], s);
    }
    if (x->rep)
        report_end_section(x->rep);
    return rc;
}

static int retainers_report(cli_run *run)
{
    const retainers_state *s = run->state;
    const cli_common *c = run->c;
    const cli_input *in = &run->in[0];
    const why_targets *tg = &s->targets;
    int multi = tg->nused > 1, table = c->format == FMT_TABLE;
    report *rep = NULL;
    if (s->type)
        rep = table ? report_new(run->out, REPORT_COLUMNS(type_table_cols), multi)
                    : report_new(run->out, REPORT_COLUMNS(type_cols), multi);
    else if (!table)
        rep = s->dominators ? report_new(run->out, REPORT_COLUMNS(dom_cols), multi)
                            : report_new(run->out, REPORT_COLUMNS(path_cols), multi);
    int rc = 0, sections = 0;
    for (size_t k = 0; k < in->count && rc == 0; k++) {
        if (!tg->used[k])
            continue; /* no ID and no matching type in this section */
        ctx x;
        memset(&x, 0, sizeof x);
        x.h = in->heaps[k];
        x.path = in->path;
        x.c = c;
        x.out = run->out;
        x.rep = rep;
        x.an = in->an;
        rc = s->type ? type_heap(&x, rep, tg->masks[k], s)
                     : id_section(&x, s, tg->found + k * tg->nids, &sections);
    }
    return rc;
}

static void retainers_release(void *state) { why_targets_free(&((retainers_state *)state)->targets); }

const cli_spec retainers_command = {
    .name = "retainers", .summary = "why an object is alive: shortest paths from the GC roots",
    .usage = "usage: gcheap retainers [OPTIONS] DUMP ID...\n"
             "       gcheap retainers [OPTIONS] DUMP --type NAME",
    .description = description, .options = retainers_options,
    .state_size = sizeof(retainers_state), .defaults = &defaults, .min_args = 1, .max_args = -1,
    .flags = CLI_NEEDS_REFS | CLI_NEEDS_LABELS | CLI_NO_TYPE_TOTALS, .needs_refs = retainers_needs_refs, .check = retainers_check, .prepare = retainers_prepare,
    .report = retainers_report, .release = retainers_release,
};
