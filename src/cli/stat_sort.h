/* Ordering of per-type rows, shared by stat, diff and objsize --stat. */
#ifndef GCHEAP_CLI_STAT_SORT_H
#define GCHEAP_CLI_STAT_SORT_H

#include "gcheap/histogram.h"

/* 1 when key is NULL (default), "bytes", "count" or "name". */
int stat_sort_valid(const char *key);
/* Sorts rows: bytes (default) or count descending, or name ascending; ties are
 * broken by bytes, count, then name, so the order is total and stable. */
void stat_sort_rows(const gch_heap *heap, gch_type_row *rows, uint32_t n, const char *key);

#endif
