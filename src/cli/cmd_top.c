/* gcheap top: the live objects that retain the most (dominator tree). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gcheap/topk.h"
#include "why.h"

static const char description[] =
    "The live objects that retain the most memory, biggest first. An object's\n"
    "retained size is what the GC could free if it disappeared: the objects it\n"
    "dominates (every path from a strong root to them passes through it), itself\n"
    "included. Dominators are computed over a virtual root whose children are the\n"
    "strong roots (--include-weak: every root). Objects not reachable from a strong\n"
    "root are not live and never listed.\n"
    "--top N: how many objects (default 20). Ties: lower dump position first.\n"
    "Columns: id, size (the object's own size), retained, type. Table output ends\n"
    "with a note giving the live totals; json sections carry live_count and\n"
    "live_bytes.";

static const char *const sort_keys[] = { "retained", NULL };

/* Entry a (a position in t->preorder) ranks before entry b: more retained,
 * then lower object index. */
static int ranks_before(const void *ctx, uint32_t a, uint32_t b)
{
    const gch_domtree *t = ctx;
    uint64_t ra = t->preorder_retained[a], rb = t->preorder_retained[b];
    return ra != rb ? ra > rb : t->preorder[a] < t->preorder[b];
}

/* The k best live objects, best first, as positions in t->preorder, selected
 * with the bounded heap of gcheap/topk.h (O(n log k), k entries of memory).
 * V8 pseudo-nodes are no rows: the k + (their number) best are selected and
 * they are dropped. *count <= k. */
static uint32_t *select_top(const gch_heap *h, const gch_domtree *t, uint64_t k, size_t *count)
{
    if (k > t->live_count)
        k = t->live_count;
    uint64_t pseudo = 0;
    for (uint32_t o = 0; h->v8_pseudo && o < t->live_count; o++)
        pseudo += h->v8_pseudo[t->preorder[o]] != 0;
    uint64_t want = k + pseudo > t->live_count ? t->live_count : k + pseudo;
    uint32_t *best = xmalloc_array((size_t)want, sizeof *best);
    size_t n = gch_top_k_keyed((uint32_t)t->live_count, (size_t)want, t->preorder_retained,
                               ranks_before, t, best);
    gch_top_k_sort(best, n, ranks_before, t);
    size_t kept = 0;
    for (size_t i = 0; i < n && kept < k; i++)
        if (!(h->v8_pseudo && h->v8_pseudo[t->preorder[best[i]]]))
            best[kept++] = best[i];
    *count = kept;
    return best;
}

static int top_heap(report *rep, gch_analysis *an, const gch_heap *h, const cli_common *c)
{
    const gch_domtree *tree;
    /* live objects and retained sizes, in preorder */
    if (cli_domtree(an, h, c, GCH_TREE_PREORDER, &tree) != 0)
        return EXIT_INPUT;
    const gch_domtree t = *tree;
    size_t n;
    uint32_t *best = select_top(h, &t, c->top == UINT64_MAX ? 20 : c->top, &n);
    report_begin_section(rep, h->name);
    char buf[8192];
    for (size_t i = 0; i < n; i++) {
        uint32_t o = t.preorder[best[i]];
        report_cell_id(rep, h->object_id[o], h->id_radix);
        report_cell_u64(rep, gch_object_size(h, o));
        report_cell_u64(rep, t.preorder_retained[best[i]]);
        report_cell_text(rep, cli_type_name(h, h->object_type[o], c, buf, sizeof buf));
    }
    char hb[64];
    format_bytes_text(t.live_bytes, c->human, hb, sizeof hb);
    report_note(rep, "(%" PRIu64 " live object%s, %s; %" PRIu64 " shown)", t.live_count,
                t.live_count == 1 ? "" : "s", hb, (uint64_t)n);
    report_section_live(rep, t.live_count, t.live_bytes);
    report_end_section(rep);
    free(best);
    return 0;
}

static int top_report(cli_run *run)
{
    static const col_spec cols[] = {
        { "id", COL_ID }, { "size", COL_BYTES }, { "retained", COL_BYTES }, { "type", COL_TEXT }
    };
    const cli_input *in = &run->in[0];
    report *rep = report_new(run->out, REPORT_COLUMNS(cols), in->count > 1);
    int rc = 0;
    for (size_t i = 0; i < in->count && rc == 0; i++)
        rc = top_heap(rep, in->an, in->heaps[i], run->c);
    return rc;
}

const cli_spec top_command = {
    .name = "top", .summary = "the live objects that retain the most (dominator tree)",
    .usage = "usage: gcheap top [OPTIONS] DUMP", .description = description,
    .sort_keys = sort_keys, .min_args = 1, .max_args = 1, .flags = CLI_NEEDS_REFS | CLI_REFS_LATER,
    .report = top_report,
};
