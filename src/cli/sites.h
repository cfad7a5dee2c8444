/* Allocation sites ("file:line" per object: Ruby dumps made with
 * ObjectSpace.trace_object_allocations): the `stat --by-site` report and
 * the site of one object for `objects --sites`. Other formats record none:
 * their heaps have no object_site array. */
#ifndef GCHEAP_CLI_SITES_H
#define GCHEAP_CLI_SITES_H

#include <stdint.h>
#include "gcheap/heap.h"
#include "output.h"
#include "cli.h"

/* The site of object o, or NULL when the dump gives none. */
const char *site_of(const gch_heap *h, uint32_t o);

/* Warns once per heap (unless -q) that h records no sites. */
void sites_warn_none(const char *path, const gch_heap *h, const cli_common *c);

/* One section of `stat --by-site`: the objects passing live (NULL: all)
 * and type_mask (NULL: all types) grouped by site; rows count, bytes,
 * site, biggest first (c->sort: bytes, count or name). */
int sites_report_heap(report *rep, const gch_heap *h, const cli_common *c, const uint8_t *live,
                      const uint8_t *type_mask);

#endif
