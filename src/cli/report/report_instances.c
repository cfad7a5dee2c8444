/* See report_instances.h. */
#include "report_instances.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_path.h"
#include "sort.h"

/* One live object and where it ranks. */
typedef struct cand {
    uint32_t object;
    uint64_t retained;
} cand;

/* a before b: more retained, then bigger, then lower id (objects' order). */
static int ranks_before(const gch_heap *h, const cand *a, const cand *b)
{
    if (a->retained != b->retained)
        return a->retained > b->retained;
    uint64_t sa = gch_object_size(h, a->object), sb = gch_object_size(h, b->object);
    if (sa != sb)
        return sa > sb;
    if (h->object_id[a->object] != h->object_id[b->object])
        return h->object_id[a->object] < h->object_id[b->object];
    return a->object < b->object;
}

/* ctx: retained bytes per type; rows are type indices. */
static int by_retained_desc(const void *a, const void *b, const void *ctx)
{
    const uint64_t *ret = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (ret[x] != ret[y])
        return ret[x] > ret[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* Marks the covered rows: the first n (most bytes) and the n with the most
 * retained bytes. slot[type] = the row's slot, GCH_NONE for the others. */
static uint32_t cover(const uint32_t *rows, uint32_t nrows, const uint64_t *type_retained,
                      uint32_t n, uint32_t *slot, uint32_t *slot_row)
{
    uint32_t used = 0;
    uint32_t *by_ret = xcalloc(nrows ? nrows : 1, sizeof *by_ret);
    uint32_t *row_of = xcalloc(nrows ? nrows : 1, sizeof *row_of);
    for (uint32_t i = 0; i < nrows; i++)
        by_ret[i] = rows[i];
    cli_sort(by_ret, nrows, sizeof *by_ret, by_retained_desc, type_retained);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < nrows && i < n; i++) {
            uint32_t t = pass ? by_ret[i] : rows[i];
            if (slot[t] != GCH_NONE)
                continue;
            slot[t] = used;
            slot_row[used++] = t;
        }
    /* slot_row holds types so far: turn them into rows of the table */
    for (uint32_t i = 0; i < nrows; i++)
        if (slot[rows[i]] != GCH_NONE)
            row_of[slot[rows[i]]] = i;
    for (uint32_t k = 0; k < used; k++)
        slot_row[k] = row_of[k];
    free(by_ret);
    free(row_of);
    return used;
}

/* Inserts x into the sorted list top[0 .. *n-1] of at most k. */
static void offer(const gch_heap *h, cand *top, uint32_t *n, uint32_t k, cand x)
{
    if (*n == k && !ranks_before(h, &x, &top[k - 1]))
        return;
    uint32_t i = *n < k ? (*n)++ : k - 1;
    while (i > 0 && ranks_before(h, &x, &top[i - 1])) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = x;
}

int report_write_instances(FILE *f, gch_analysis *an, const gch_heap *h, const gch_domtree *t,
                           const uint32_t *rows, uint32_t nrows, const uint64_t *type_retained,
                           uint32_t instance_types, uint32_t instances, const cli_common *c)
{
    putc('[', f);
    if (!instances || !instance_types || !nrows) {
        putc(']', f);
        return 0;
    }
    uint32_t *slot = xmalloc_array(h->type_count ? h->type_count : 1, sizeof *slot);
    for (uint32_t ty = 0; ty < h->type_count; ty++)
        slot[ty] = GCH_NONE;
    uint32_t *slot_row = xcalloc(nrows, sizeof *slot_row);
    uint32_t used = cover(rows, nrows, type_retained, instance_types, slot, slot_row);
    cand *top = xcalloc((size_t)used * instances, sizeof *top);
    uint32_t *found = xcalloc(used ? used : 1, sizeof *found);
    for (uint64_t p = 0; p < t->live_count; p++) {
        uint32_t o = t->preorder[p], s = slot[h->object_type[o]];
        if (s != GCH_NONE)
            offer(h, top + (size_t)s * instances, &found[s], instances,
                  (cand){ o, t->preorder_retained[p] });
    }
    /* In the table's order (rows), so the data reads as the page does. */
    int rc = 0, first = 1;
    for (uint32_t i = 0; i < nrows && rc == 0; i++) {
        uint32_t s = slot[rows[i]];
        if (s == GCH_NONE || !found[s])
            continue;
        const cand *list = top + (size_t)s * instances;
        fprintf(f, "%s{\"row\":%" PRIu32 ",\"objects\":[", first ? "" : ",", slot_row[s]);
        first = 0;
        for (uint32_t k = 0; k < found[s]; k++) {
            fputs(k ? ",{\"id\":" : "{\"id\":", f);
            report_json_id(f, h, list[k].object);
            fprintf(f, ",\"size\":%" PRIu64 ",\"retained\":%" PRIu64 "}",
                    gch_object_size(h, list[k].object), list[k].retained);
        }
        fputs("],\"path\":", f);
        rc = report_write_path(f, an, h, list[0].object, c);
        putc('}', f);
    }
    putc(']', f);
    free(slot);
    free(slot_row);
    free(top);
    free(found);
    return rc;
}
