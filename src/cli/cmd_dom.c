/* gcheap dom: the dominator tree, from the virtual root or from one object.
 *
 * One walker serves every form. A shown node is a group: one object, or with
 * --by-type (and in folded output) the objects of one type under the same
 * parent group. Expanding a group appends the dominator-tree children of its
 * objects to one object stack (grouped by type when merging) and their group
 * descriptors to a group stack; a frame per open level records where its
 * children start. Nothing recurses: dominator chains can be millions deep.
 * The object stack never holds an object twice (the groups of open frames are
 * disjoint subtrees), so it stays below the object count.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sort.h"
#include "why.h"

#define FOLDED_DEFAULT_DEPTH 1024

typedef struct dom_state {
    uint64_t depth;
    int depth_set;
    uint64_t min_bytes;
    int min_set;
    int by_type;
    uint32_t *found; /* with ID: the object in each section, or GCH_NONE */
} dom_state;

static const cli_option dom_options[] = {
    OPT_UINT_GIVEN(0, "depth", dom_state, depth, depth_set, "D", 0, UINT64_MAX,
                   "levels below the start (default 3; folded: 1024)"),
    OPT_SIZE_GIVEN(0, "min-bytes", dom_state, min_bytes, min_set, "N",
                   "hide subtrees retaining fewer than N bytes"),
    OPT_BOOL(0, "by-type", dom_state, by_type, "merge sibling objects of the same type"),
    OPT_END
};

static const char *const sort_keys[] = { "retained", NULL };
static const char description[] =
    "The dominator tree: each object under its immediate dominator (the last\n"
    "object every path from a strong root to it passes through), children sorted\n"
    "by retained size. It starts at the virtual root (<root>, whose children are\n"
    "the objects named by strong roots; retained = live bytes) or at object ID.\n"
    "Objects not reachable from a strong root are outside the tree.\n"
    "--depth D: levels shown below the start (default 3). --top N: at most N\n"
    "children per node (default 20 in table output, no limit otherwise).\n"
    "--min-bytes N: children retaining fewer than N bytes are not shown. Children\n"
    "left out by --top or --min-bytes are summed up in one row '(K more, X bytes)'\n"
    "(tables and folded stacks; tsv/csv/json list data rows only).\n"
    "--by-type: siblings of the same type are one row with a count; their\n"
    "children are the union of the merged objects' children, merged again.\n"
    "Columns: depth, id, size, retained, type (tsv/csv/json; table: indented type,\n"
    "no depth); with --by-type: depth, count, size, retained, type (size = the\n"
    "objects' own sizes). The '(K more...)' row has an empty id.\n"
    "--format folded: one line 'root;TypeA;TypeB BYTES' per type path of the tree\n"
    "(BYTES = own sizes of the objects on that path), for flame-graph tools; the\n"
    "values add up to the live bytes (or ID's retained size; its type is then the\n"
    "first frame; with several sections the section name is). ';' in names becomes\n"
    "':', control bytes '?'. Depth is capped at 1024 levels unless --depth is given\n"
    "(a path's text grows with its depth: a 10-million-deep chain would print\n"
    "terabytes); what lies deeper is one frame '[deeper]' with its bytes.";

/* ---- the walker ---- */

typedef struct group {
    size_t start, len;   /* objects: objs[start .. start+len-1] */
    uint32_t type;       /* GCH_NONE for the virtual root */
    uint64_t size;       /* own sizes */
    uint64_t retained;
} group;

typedef struct frame {
    size_t obj_mark;     /* objs length before the children were appended */
    size_t grp_start;    /* first child group */
    size_t shown_end;    /* end of the shown child groups */
    size_t grp_end;      /* end of all child groups */
    size_t next;         /* next child group to show */
    size_t path_len;     /* folded: length of the parent path */
    uint64_t depth;      /* depth of the children */
} frame;

typedef struct walker {
    const gch_heap *h;
    const gch_domtree *t;
    const cli_common *c;
    int merge;
    uint64_t top, min_bytes;
    uint32_t *objs;
    size_t nobjs, cap_objs;
    group *grps;
    size_t ngrps, cap_grps;
    frame *frames;
    size_t nframes, cap_frames;
} walker;

static void push_obj(walker *w, uint32_t o)
{
    w->objs = xgrow(w->objs, &w->cap_objs, w->nobjs + 1, sizeof *w->objs);
    w->objs[w->nobjs++] = o;
}

/* Appends the dominator-tree children of o; a V8 pseudo-node among them
 * ("(GC roots)", the synthetic root) is no row: its own children come in
 * its place (issue 29), through an explicit stack. */
static void push_children(walker *w, uint32_t o)
{
    const uint8_t *pseudo = w->h->v8_pseudo;
    uint32_t count;
    const uint32_t *ch = gch_domtree_children(w->t, o, &count);
    if (!pseudo) {
        for (uint32_t i = 0; i < count; i++)
            push_obj(w, ch[i]);
        return;
    }
    uint32_t *stack = NULL;
    size_t sp = 0, cap = 0;
    for (;;) {
        for (uint32_t i = 0; i < count; i++) {
            if (!pseudo[ch[i]]) {
                push_obj(w, ch[i]);
                continue;
            }
            stack = xgrow(stack, &cap, sp + 1, sizeof *stack);
            stack[sp++] = ch[i];
        }
        if (!sp)
            break;
        ch = gch_domtree_children(w->t, stack[--sp], &count);
    }
    free(stack);
}

static void push_group(walker *w, group g)
{
    w->grps = xgrow(w->grps, &w->cap_grps, w->ngrps + 1, sizeof *w->grps);
    w->grps[w->ngrps++] = g;
}

static uint64_t obj_retained(const walker *w, uint32_t o)
{
    return o == GCH_DOM_VROOT ? w->t->live_bytes : w->t->retained[o];
}

/* ctx: the walker. */
static int cmp_obj_type(const void *pa, const void *pb, const void *ctx)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const walker *w = ctx;
    uint32_t ta = w->h->object_type[a], tb = w->h->object_type[b];
    if (ta != tb)
        return ta < tb ? -1 : 1;
    uint64_t ra = w->t->retained[a], rb = w->t->retained[b];
    if (ra != rb)
        return ra > rb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The children lists' order: retained size, biggest first, ties by index. */
static int cmp_obj_retained(const void *pa, const void *pb, const void *ctx)
{
    const walker *w = ctx;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    uint64_t ra = w->t->retained[a], rb = w->t->retained[b];
    if (ra != rb)
        return ra > rb ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int cmp_group(const void *pa, const void *pb, const void *ctx)
{
    const group *a = pa, *b = pb;
    const walker *sort_walker = ctx;
    if (a->retained != b->retained)
        return a->retained > b->retained ? -1 : 1;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    int c = strcmp(gch_type_name(sort_walker->h, a->type), gch_type_name(sort_walker->h, b->type));
    if (c)
        return c;
    return a->start < b->start ? -1 : a->start > b->start;
}

/* Appends the child groups of group gi (index into grps) and opens a frame
 * for them; returns 0 when it has no children (no frame opened). */
static int expand(walker *w, size_t gi, uint64_t child_depth, size_t path_len)
{
    size_t obj_mark = w->nobjs, grp_start = w->ngrps;
    const group g = w->grps[gi];
    for (size_t k = 0; k < g.len; k++)
        push_children(w, w->objs[g.start + k]);
    if (w->nobjs == obj_mark)
        return 0;
    const gch_heap *h = w->h;
    if (!w->merge) {
        /* One group per child; a single parent's list is already sorted,
         * not one with a pseudo-node's children in it. */
        if (h->v8_pseudo) {
            cli_sort(w->objs + obj_mark, w->nobjs - obj_mark, sizeof *w->objs, cmp_obj_retained, w);
        }
        for (size_t k = obj_mark; k < w->nobjs; k++) {
            uint32_t o = w->objs[k];
            group cg = { k, 1, h->object_type[o], gch_object_size(h, o), w->t->retained[o] };
            push_group(w, cg);
        }
    } else {
        cli_sort(w->objs + obj_mark, w->nobjs - obj_mark, sizeof *w->objs, cmp_obj_type, w);
        for (size_t k = obj_mark; k < w->nobjs;) {
            uint32_t ty = h->object_type[w->objs[k]];
            group cg = { k, 0, ty, 0, 0 };
            for (; k < w->nobjs && h->object_type[w->objs[k]] == ty; k++) {
                cg.len++;
                cg.size += gch_object_size(h, w->objs[k]);
                cg.retained += w->t->retained[w->objs[k]];
            }
            push_group(w, cg);
        }
        cli_sort(w->grps + grp_start, w->ngrps - grp_start, sizeof *w->grps, cmp_group, w);
    }
    size_t shown = grp_start;
    while (shown < w->ngrps && shown - grp_start < w->top && w->grps[shown].retained >= w->min_bytes)
        shown++;
    w->frames = xgrow(w->frames, &w->cap_frames, w->nframes + 1, sizeof *w->frames);
    frame f = { obj_mark, grp_start, shown, w->ngrps, grp_start, path_len, child_depth };
    w->frames[w->nframes++] = f;
    return 1;
}

static void pop_frame(walker *w)
{
    frame *f = &w->frames[--w->nframes];
    w->nobjs = f->obj_mark;
    w->ngrps = f->grp_start;
}

static void walker_free(walker *w)
{
    free(w->objs);
    free(w->grps);
    free(w->frames);
}

/* ---- table / tsv / csv / json ---- */

static void emit_row(walker *w, report *rep, const group *g, uint64_t depth)
{
    const gch_heap *h = w->h;
    const cli_common *c = w->c;
    char ind[128], name[8192], cell[8400];
    if (c->format != FMT_TABLE)
        report_cell_u64(rep, depth);
    if (w->merge)
        report_cell_u64(rep, g->len);
    else if (g->type == GCH_NONE)
        report_cell_text(rep, "");
    else
        report_cell_id(rep, h->object_id[w->objs[g->start]], h->id_radix);
    report_cell_u64(rep, g->size);
    report_cell_u64(rep, g->retained);
    const char *tn = g->type == GCH_NONE ? "<root>" : cli_type_name(h, g->type, c, name, sizeof name);
    if (c->format == FMT_TABLE) {
        snprintf(cell, sizeof cell, "%s%s", why_indent(depth, ind, sizeof ind), tn);
        report_cell_text(rep, cell);
    } else {
        report_cell_text(rep, tn);
    }
}

static void emit_more(walker *w, report *rep, const frame *f)
{
    /* tsv/csv/json hold data rows only (docs/schemas.md): what --top or
     * --min-bytes leave out is not summed into a pseudo-row there. */
    if (w->c->format == FMT_TSV || w->c->format == FMT_CSV || w->c->format == FMT_JSON)
        return;
    uint64_t k = f->grp_end - f->shown_end, objects = 0, size = 0, ret = 0;
    for (size_t i = f->shown_end; i < f->grp_end; i++) {
        objects += w->grps[i].len;
        size += w->grps[i].size;
        ret += w->grps[i].retained;
    }
    char ind[128], text[256], hb[64];
    if (w->c->human && w->c->format == FMT_TABLE)
        format_human_bytes(ret, hb, sizeof hb);
    else
        snprintf(hb, sizeof hb, "%" PRIu64 " bytes", ret);
    if (w->c->format != FMT_TABLE)
        report_cell_u64(rep, f->depth);
    if (w->merge)
        report_cell_u64(rep, objects);
    else
        report_cell_text(rep, "");
    report_cell_u64(rep, size);
    report_cell_u64(rep, ret);
    snprintf(text, sizeof text, "%s(%" PRIu64 " more, %s)",
             w->c->format == FMT_TABLE ? why_indent(f->depth, ind, sizeof ind) : "", k, hb);
    report_cell_text(rep, text);
}

static void walk_rows(walker *w, report *rep, uint64_t max_depth)
{
    emit_row(w, rep, &w->grps[0], 0);
    if (max_depth > 0)
        expand(w, 0, 1, 0);
    while (w->nframes) {
        frame *f = &w->frames[w->nframes - 1];
        if (f->next < f->shown_end) {
            size_t gi = f->next++;
            uint64_t d = f->depth;
            emit_row(w, rep, &w->grps[gi], d);
            if (d < max_depth)
                expand(w, gi, d + 1, 0);
            continue;
        }
        if (f->shown_end < f->grp_end)
            emit_more(w, rep, f); /* tables and folded only: never a pseudo-row in data */
        pop_frame(w);
    }
}

/* ---- folded ---- */

static void path_append(strbuf *p, const char *name, int sep)
{
    if (sep)
        sb_addc(p, ';');
    sb_escape(p, ESC_FOLDED, name);
}

static void folded_line(const strbuf *p, const char *extra, uint64_t value, cli_out *out)
{
    if (value)
        out_printf(out, "%s%s%s %" PRIu64 "\n", sb_str(p), extra ? ";" : "", extra ? extra : "", value);
}

static const char *group_name(const walker *w, const group *g, char *buf, size_t cap)
{
    return cli_type_name(w->h, g->type, w->c, buf, cap);
}

static void walk_folded(walker *w, strbuf *p, uint64_t max_depth, cli_out *out)
{
    /* The start group's own line (the virtual root has size 0). */
    char name[8192];
    const group *g0 = &w->grps[0];
    folded_line(p, NULL, g0->size, out);
    if (max_depth == 0) {
        folded_line(p, "[deeper]", g0->retained - g0->size, out);
        return;
    }
    expand(w, 0, 1, p->len);
    while (w->nframes) {
        frame *f = &w->frames[w->nframes - 1];
        if (f->next < f->grp_end) {
            size_t gi = f->next++;
            uint64_t d = f->depth;
            p->len = f->path_len;
            if (p->s)
                p->s[p->len] = '\0';
            path_append(p, group_name(w, &w->grps[gi], name, sizeof name), p->len > 0);
            const group g = w->grps[gi];
            folded_line(p, NULL, g.size, out);
            if (d < max_depth)
                expand(w, gi, d + 1, p->len);
            else
                folded_line(p, "[deeper]", g.retained - g.size, out);
            continue;
        }
        pop_frame(w);
    }
}

/* ---- command ---- */

static int dom_heap(cli_out *out, report *rep, const char *path, gch_analysis *an, const gch_heap *h,
                    uint32_t start, const cli_common *c, const dom_state *s, int multi)
{
    const gch_domtree *tree;
    if (cli_domtree(an, h, c, GCH_TREE_CHILDREN, &tree) != 0)
        return EXIT_INPUT;
    const gch_domtree t = *tree;
    walker w;
    memset(&w, 0, sizeof w);
    w.h = h;
    w.t = &t;
    w.c = c;
    w.merge = s->by_type || c->format == FMT_FOLDED;
    w.top = c->format == FMT_FOLDED ? UINT64_MAX : why_top(c, 20);
    w.min_bytes = c->format == FMT_FOLDED ? 0 : s->min_bytes;
    int live = start == GCH_DOM_VROOT || t.idom[start] != GCH_NONE;
    push_obj(&w, start);
    group g0 = { 0, 1, GCH_NONE, 0, t.live_bytes };
    if (start != GCH_DOM_VROOT) {
        g0.type = h->object_type[start];
        g0.size = gch_object_size(h, start);
        g0.retained = obj_retained(&w, start);
    }
    push_group(&w, g0);

    if (c->format == FMT_FOLDED) {
        if (live) {
            strbuf p = STRBUF_INIT;
            char name[8192];
            if (multi)
                path_append(&p, h->name, 0);
            if (start == GCH_DOM_VROOT)
                path_append(&p, "root", p.len > 0);
            else
                path_append(&p, group_name(&w, &g0, name, sizeof name), p.len > 0);
            walk_folded(&w, &p, s->depth_set ? s->depth : FOLDED_DEFAULT_DEPTH, out);
            sb_free(&p);
        } else {
            char id[32];
            format_id(h->object_id[start], h->id_radix, id, sizeof id);
            cli_error("dom: %s: %s is not live: not reachable from any strong root",
                      cli_display_path(path), id);
        }
    } else {
        report_begin_section(rep, h->name);
        if (live) {
            walk_rows(&w, rep, s->depth_set ? s->depth : 3);
        } else {
            emit_row(&w, rep, &g0, 0);
            char id[32];
            format_id(h->object_id[start], h->id_radix, id, sizeof id);
            report_note(rep, "%s: not live: not reachable from any strong root", id);
        }
        report_section_live(rep, t.live_count, t.live_bytes);
        report_end_section(rep);
    }
    walker_free(&w);
    return 0;
}

static int dom_check(cli_run *run)
{
    const dom_state *s = run->state;
    if (run->c->format == FMT_FOLDED && (run->c->top != UINT64_MAX || s->min_set))
        return cli_usage_error("dom", "--top and --min-bytes do not apply to --format folded");
    return 0;
}

static int dom_prepare(cli_run *run)
{
    dom_state *s = run->state;
    const cli_input *in = &run->in[0];
    if (run->nargs < 2)
        return 0;
    return why_resolve_ids("dom", in, run->args + 1, 1, &s->found);
}

static int dom_report(cli_run *run)
{
    static const col_spec table_cols[] = {
        { "id", COL_ID }, { "size", COL_BYTES }, { "retained", COL_BYTES }, { "type", COL_TEXT }
    };
    static const col_spec cols[] = {
        { "depth", COL_COUNT }, { "id", COL_ID }, { "size", COL_BYTES }, { "retained", COL_BYTES },
        { "type", COL_TEXT }
    };
    static const col_spec type_table_cols[] = {
        { "count", COL_COUNT }, { "size", COL_BYTES }, { "retained", COL_BYTES }, { "type", COL_TEXT }
    };
    static const col_spec type_cols[] = {
        { "depth", COL_COUNT }, { "count", COL_COUNT }, { "size", COL_BYTES },
        { "retained", COL_BYTES }, { "type", COL_TEXT }
    };
    const dom_state *s = run->state;
    const cli_common *c = run->c;
    const cli_input *in = &run->in[0];
    const uint32_t *found = s->found;
    size_t shown = 0;
    for (size_t i = 0; i < in->count; i++)
        shown += !found || found[i] != GCH_NONE;
    report *rep = NULL;
    if (c->format == FMT_TABLE)
        rep = s->by_type ? report_new(run->out, REPORT_COLUMNS(type_table_cols), shown > 1)
                         : report_new(run->out, REPORT_COLUMNS(table_cols), shown > 1);
    else if (c->format != FMT_FOLDED)
        rep = s->by_type ? report_new(run->out, REPORT_COLUMNS(type_cols), shown > 1)
                         : report_new(run->out, REPORT_COLUMNS(cols), shown > 1);
    int rc = 0;
    for (size_t i = 0; i < in->count && rc == 0; i++) {
        if (found && found[i] == GCH_NONE)
            continue;
        rc = dom_heap(run->out, rep, in->path, in->an, in->heaps[i], found ? found[i] : GCH_DOM_VROOT, c, s,
                      shown > 1);
    }
    return rc;
}

static void dom_release(void *state) { free(((dom_state *)state)->found); }

const cli_spec dom_command = {
    .name = "dom", .summary = "the dominator tree, from the roots or from one object",
    .usage = "usage: gcheap dom [OPTIONS] DUMP [ID]", .description = description,
    .options = dom_options, .state_size = sizeof(dom_state), .sort_keys = sort_keys, .min_args = 1,
    .max_args = 2, .too_many = "DUMP and at most one ID", .flags = CLI_NEEDS_REFS | CLI_FOLDED_OK,
    .check = dom_check, .prepare = dom_prepare, .report = dom_report, .release = dom_release,
};
