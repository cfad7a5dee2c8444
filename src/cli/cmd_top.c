/* gcheap top: the live objects that retain the most (dominator tree). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
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
static int ranks_before(const gch_domtree *t, uint32_t a, uint32_t b)
{
    uint64_t ra = t->preorder_retained[a], rb = t->preorder_retained[b];
    return ra != rb ? ra > rb : t->preorder[a] < t->preorder[b];
}

/* Places v at the root of heap[0..n) (whose root slot is free) and sifts it
 * down: a parent ranks after its children, so the root is the worst kept. */
static void sift_down(const gch_domtree *t, uint32_t *heap, size_t n, uint32_t v)
{
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        uint32_t wv = v;
        if (l < n && ranks_before(t, wv, heap[l])) {
            w = l;
            wv = heap[l];
        }
        if (r < n && ranks_before(t, wv, heap[r]))
            w = r;
        if (w == i)
            break;
        heap[i] = heap[w];
        i = w;
    }
    heap[i] = v;
}

/* The k best live objects, best first, as positions in t->preorder, selected
 * with a bounded min-heap whose top is the worst kept (O(n log k), k entries
 * of memory). *count <= k. */
static uint32_t *select_top(const gch_domtree *t, uint64_t k, size_t *count)
{
    if (k > t->live_count)
        k = t->live_count;
    uint32_t *heap = xmalloc_array((size_t)k, sizeof *heap);
    size_t n = 0;
    for (uint32_t o = 0; o < t->live_count && k; o++) {
        if (n < k) {
            size_t i = n++;
            /* Sift up: the parent must be worse than (rank after) the child. */
            while (i > 0 && ranks_before(t, heap[(i - 1) / 2], o)) {
                heap[i] = heap[(i - 1) / 2];
                i = (i - 1) / 2;
            }
            heap[i] = o;
        } else if (ranks_before(t, o, heap[0])) {
            sift_down(t, heap, n, o); /* replaces the worst */
        }
    }
    /* Pop worst-first into the back of the array: best ends up first. */
    for (size_t end = n; end > 1; end--) {
        uint32_t worst = heap[0];
        sift_down(t, heap, end - 1, heap[end - 1]);
        heap[end - 1] = worst;
    }
    *count = n;
    return heap;
}

static int top_heap(report *rep, gch_analysis *an, const gch_heap *h, const cli_common *c)
{
    const gch_domtree *tree;
    /* live objects and retained sizes, in preorder */
    if (cli_domtree(an, h, c, GCH_TREE_PREORDER, &tree) != 0)
        return EXIT_INPUT;
    const gch_domtree t = *tree;
    size_t n;
    uint32_t *best = select_top(&t, c->top == UINT64_MAX ? 20 : c->top, &n);
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
    if (c->human)
        format_human_bytes(t.live_bytes, hb, sizeof hb);
    else
        snprintf(hb, sizeof hb, "%" PRIu64 " bytes", t.live_bytes);
    report_note(rep, "(%" PRIu64 " live object%s, %s; %" PRIu64 " shown)", t.live_count,
                t.live_count == 1 ? "" : "s", hb, (uint64_t)n);
    report_section_u64(rep, "live_count", t.live_count);
    report_section_u64(rep, "live_bytes", t.live_bytes);
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
    .sort_keys = sort_keys, .min_args = 1, .max_args = 1, .flags = CLI_NEEDS_REFS,
    .report = top_report,
};
