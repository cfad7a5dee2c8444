/* fuzz_index: the index reader (gcheap/index.h) on arbitrary bytes. What must
 * hold: open, check and load never crash, hang or leak; a loaded dump passes
 * heap_check_dump (every array in bounds); an analysis of it answers every
 * question (dominator trees, paths, distances, live sets, reverse
 * references, id lookup) from the index's chunks or, when one fails its
 * checks, by computing it; with the references read later, too.
 *
 * Random bytes rarely get past the checksums, so the first byte of the input
 * chooses: odd, the rest is the file as given; even, its checksums are
 * recomputed first (header, table, every chunk inside the file), so that the
 * mutations reach the bounds checks behind them. Seeds: tests/fuzz/seeds/index/
 * (indexes of testdata dumps, written by `gcheap index`).
 */
#include "fuzz_common.h"
#include "gcheap/alloc.h"
#include "gcheap/analysis.h"
#include "gcheap/index.h"
#include "gcheap/leaks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* Recomputes the checksums the layout has (docs/index-format.md). */
static void fix_checksums(uint8_t *d, size_t size)
{
    if (size < 64)
        return;
    uint64_t toc = get64(d + 24);
    uint32_t count = get32(d + 32);
    if (toc <= size && count <= (size - toc) / 40) {
        for (uint32_t i = 0; i < count; i++) {
            uint8_t *e = d + toc + 40 * (size_t)i;
            uint32_t elem = get32(e + 8);
            uint64_t off = get64(e + 16), n = get64(e + 24);
            if (elem && off <= size && n <= (size - off) / elem)
                put64(e + 32, gch_index_hash(d + off, (size_t)(n * elem)));
        }
        put64(d + 40, gch_index_hash(d + toc, (size_t)count * 40));
    }
    put64(d + 16, size); /* the file's size, as the header must say */
    put64(d + 56, gch_index_hash(d, 56));
}

static void ask_everything(gch_dump *d)
{
    gch_analysis *a;
    if (gch_analysis_new(d, NULL, &a, NULL) != GCH_OK) {
        gch_dump_free(d);
        return;
    }
    for (size_t i = 0; i < d->heap_count; i++) {
        gch_heap *h = d->heaps[i];
        if (h->histogram_only)
            continue;
        const gch_domtree *t;
        const gch_paths *p;
        const uint8_t *live;
        uint32_t o;
        for (int v = 0; v < 2; v++) {
            if (gch_analysis_domtree(a, h, v, GCH_TREE_PREORDER_IDOM, &t, NULL) == GCH_OK) {
                if (t->live_count > h->object_count)
                    fuzz_fail("fuzz_index", "more live objects than objects");
                for (uint64_t k = 0; t->preorder_type16 && k < t->live_count; k++)
                    if (t->preorder_type16[k] >= h->type_count)
                        fuzz_fail("fuzz_index", "a type in preorder beyond the type count");
                /* The suspects walk the tree in preorder with its types. */
                gch_suspects_options so = GCH_SUSPECTS_OPTIONS_INIT;
                so.include_weak = v;
                gch_suspects s;
                if (gch_suspects_find_in(a, h, &so, &s, NULL) == GCH_OK)
                    gch_suspects_free(&s);
            }
            (void)gch_analysis_domtree(a, h, v, GCH_TREE_BY_OBJECT, &t, NULL);
            if (gch_analysis_paths(a, h, v, &p, NULL) == GCH_OK)
                for (uint32_t k = 0; k < h->object_count && k < 64; k++)
                    (void)gch_paths_depth(p, k);
            (void)gch_analysis_live(a, h, v, &live, NULL, NULL, NULL);
            const uint32_t *dist;
            if (gch_analysis_distance(a, h, v, &dist, NULL) == GCH_OK)
                for (uint32_t k = 0; k < h->object_count; k++)
                    if (dist[k] != GCH_NONE && dist[k] >= h->object_count)
                        fuzz_fail("fuzz_index", "a distance beyond the object count");
        }
        (void)gch_analysis_reverse(a, h, NULL);
        for (uint32_t k = 0; k < h->object_count && k < 64; k++)
            if (gch_analysis_find(a, h, h->object_id[k], &o, NULL) == GCH_OK &&
                (o == GCH_NONE || h->object_id[o] != h->object_id[k]))
                fuzz_fail("fuzz_index", "an object's id is not found");
    }
    gch_analysis_free(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int as_given = data[0] & 1;
    /* A copy: the index is used in place and must be 8-byte aligned. */
    uint8_t *buf = gch_malloc(size);
    if (!buf)
        return 0;
    memcpy(buf, data + 1, size - 1);
    if (!as_given)
        fix_checksums(buf, size - 1);
    gch_index *ix;
    if (gch_index_open(buf, size - 1, &ix, NULL) == GCH_OK) {
        (void)gch_index_check(ix, NULL);
        gch_dump *d;
        /* Loads: whole, histogram-only, references later (read when the
         * analysis computes). */
        for (int mode = 0; mode < 3; mode++) {
            gch_index *again;
            if (gch_index_open(buf, size - 1, &again, NULL) != GCH_OK)
                fuzz_fail("fuzz_index", "opens once, not twice");
            unsigned flags = GCH_INDEX_LABELS | (mode == 2 ? GCH_INDEX_REFS_LATER : 0u);
            if (gch_index_load(again, mode == 1, flags, NULL, NULL, &d, NULL) != GCH_OK) {
                gch_index_close(again);
                continue;
            }
            /* A histogram-only heap has type totals and no object arrays,
             * which heap_check_dump (made for full loads) would call missing;
             * a heap whose references wait has none yet. */
            if (mode == 0)
                FUZZ_CHECK("fuzz_index", heap_check_dump(d));
            ask_everything(d); /* frees d, which closes again */
        }
        gch_index_close(ix);
    }
    gch_free(buf);
    return 0;
}
