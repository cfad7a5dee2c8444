/* Allocation sites: stat --by-site, objects --sites (sites.h). */
#include "sites.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

#define NO_SITE "(no site)"

const char *site_of(const gch_heap *h, uint32_t o)
{
    if (!h->object_site || h->object_site[o] == GCH_NONE)
        return NULL;
    return gch_heap_string(h, h->object_site[o]);
}

void sites_warn_none(const char *path, const gch_heap *h, const cli_common *c)
{
    if (h->object_site || c->quiet)
        return;
    stderr_printf("gcheap: warning: %s: the dump records no allocation sites (only Ruby dumps "
                  "made after ObjectSpace.trace_object_allocations_start do)\n",
                  cli_display_path(path));
}

typedef struct site_row {
    uint32_t site; /* string offset, GCH_NONE for objects without one */
    uint64_t count, bytes;
} site_row;

static const gch_heap *sort_h;
static int sort_by;

static const char *row_name(const site_row *r)
{
    return r->site == GCH_NONE ? NO_SITE : gch_heap_string(sort_h, r->site);
}

static int compare_rows(const void *pa, const void *pb)
{
    const site_row *a = pa, *b = pb;
    if (sort_by != 2) {
        uint64_t x = sort_by == 1 ? a->count : a->bytes, y = sort_by == 1 ? b->count : b->bytes;
        uint64_t x2 = sort_by == 1 ? a->bytes : a->count, y2 = sort_by == 1 ? b->bytes : b->count;
        if (x != y)
            return x > y ? -1 : 1;
        if (x2 != y2)
            return x2 > y2 ? -1 : 1;
    }
    return strcmp(row_name(a), row_name(b));
}

static int compare_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

int sites_report_heap(report *rep, const gch_heap *h, const cli_common *c, const uint8_t *live,
                      const uint8_t *type_mask)
{
    /* (site << 32 | object) sorted: objects of one site together */
    uint64_t *keys = xmalloc_array(h->object_count ? h->object_count : 1, sizeof *keys);
    size_t n = 0;
    for (uint32_t o = 0; o < h->object_count; o++) {
        if ((live && !live[o]) || (type_mask && !type_mask[h->object_type[o]]))
            continue;
        uint64_t s = h->object_site ? h->object_site[o] : GCH_NONE;
        keys[n++] = s << 32 | o;
    }
    qsort(keys, n, sizeof *keys, compare_u64);
    site_row *rows = xmalloc_array(n ? n : 1, sizeof *rows);
    size_t nrows = 0;
    uint64_t total_count = 0, total_bytes = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t s = (uint32_t)(keys[i] >> 32), o = (uint32_t)keys[i];
        if (nrows == 0 || rows[nrows - 1].site != s)
            rows[nrows++] = (site_row){ s, 0, 0 };
        uint64_t size = gch_object_size(h, o);
        rows[nrows - 1].count++;
        rows[nrows - 1].bytes += size; /* the builder bounds the heap's total */
        total_count++;
        total_bytes += size;
    }
    free(keys);
    sort_h = h;
    sort_by = !c->sort || strcmp(c->sort, "bytes") == 0 ? 0 : strcmp(c->sort, "count") == 0 ? 1 : 2;
    qsort(rows, nrows, sizeof *rows, compare_rows);
    report_begin_section(rep, h->name);
    size_t shown = nrows < c->top ? nrows : (size_t)c->top;
    for (size_t i = 0; i < shown; i++) {
        report_cell_u64(rep, rows[i].count);
        report_cell_u64(rep, rows[i].bytes);
        report_cell_text(rep, row_name(&rows[i]));
    }
    report_note_more(rep, shown, nrows, "sites");
    report_begin_total(rep);
    report_cell_u64(rep, total_count);
    report_cell_u64(rep, total_bytes);
    char buf[64];
    report_cell_text(rep, report_total_label(rep, nrows, "site", buf, sizeof buf));
    report_section_u64(rep, "sites", nrows);
    report_end_section(rep);
    free(rows);
    return 0;
}
