/* Paths from a GC root in the report's data: the shortest path the loaded
 * heap's path tree gives (the one `gcheap retainers ID` prints: a static or
 * global root before a thread's stack, gcheap/paths.h), with the words of
 * the format: the root's kind and holder (a static's class and field, a
 * thread), the field of each reference. Bounded: a path of more than
 * REPORT_PATH_MAX steps keeps its first and last REPORT_PATH_MAX / 2. */
#ifndef GCHEAP_CLI_REPORT_REPORT_PATH_H
#define GCHEAP_CLI_REPORT_REPORT_PATH_H

#include <stdint.h>
#include <stdio.h>

#include "cli.h"

#define REPORT_PATH_MAX 40

/* Writes the path to object (an index of h, live in the view c->include_weak
 * chooses) as {"length", "root_kind", "holder", "steps":[{"depth", "id",
 * "type", "size", "field"}]}, or null when no root reaches it: length is the
 * number of steps of the whole path, depth each kept step's position (root
 * 0), field the label of the reference into the step (null on the root step
 * and where the format names none), holder null when the format names none.
 * 0, or EXIT_INPUT with the run's error set (the path tree could not be
 * built). */
int report_write_path(FILE *f, gch_analysis *an, const gch_heap *h, uint32_t object,
                      const cli_common *c);

/* The same for the object whose dump id is id (null when h has none). */
int report_write_path_of_id(FILE *f, gch_analysis *an, const gch_heap *h, uint64_t id,
                            const cli_common *c);

/* The object's id as the dump writes it, as a JSON string. */
void report_json_id(FILE *f, const gch_heap *h, uint32_t object);

#endif
