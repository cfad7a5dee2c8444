/* A type row of the report opened: the type's biggest instances by retained
 * size (as `gcheap objects --live --type T --retained --sort retained` ranks
 * them: retained, then own size, then id) and the path from a root that
 * holds the first (report_path.h). Bounded: the instances of the
 * instance_types rows with the most bytes and the instance_types rows with
 * the most retained bytes, at most `instances` each, found in one pass over
 * the live objects of the dominator tree in preorder. */
#ifndef GCHEAP_CLI_REPORT_REPORT_INSTANCES_H
#define GCHEAP_CLI_REPORT_REPORT_INSTANCES_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"

/* Writes [{"row", "objects":[{"id", "size", "retained"}], "path"}...], one
 * element per covered type row that has a live instance: row indexes the
 * section's "types" (rows[0 .. nrows-1] are its type indices, biggest bytes
 * first); t is the section's tree in preorder (gch_analysis_domtree with
 * GCH_TREE_PREORDER). 0, or EXIT_INPUT with the run's error set. */
int report_write_instances(FILE *f, gch_analysis *an, const gch_heap *h, const gch_domtree *t,
                           const uint32_t *rows, uint32_t nrows, const uint64_t *type_retained,
                           uint32_t instance_types, uint32_t instances, const cli_common *c);

#endif
