/* The leaks of a series in the report's data (gcheap report DUMP1 DUMP2
 * DUMP3 ...): the rows `gcheap leaks` computes on the series
 * (leak_series.h), each with the path from a root that holds its example
 * object in the last dump (report_path.h). */
#ifndef GCHEAP_CLI_REPORT_REPORT_LEAKS_H
#define GCHEAP_CLI_REPORT_REPORT_LEAKS_H

#include <stdio.h>

#include "cli.h"
#include "leak_series.h"

/* Rows of each section at most (leak, path and type rows; leak-type rows
 * follow their leak row uncounted, as in `leaks --top`). */
#define REPORT_LEAK_ROWS 200

/* Writes {"files":[...], "sections":[{"name", "dumps", "by_ids",
 * "leaked_objects", "leaked_bytes", "internal_rows", "omitted_rows",
 * "rows":[{"row", "objects", "bytes", "heads", "count_growth",
 * "bytes_growth", "id", "what", "path"}]}]}: the rows and section members of
 * `leaks --format json` on the series. an and heaps: the last dump's loaded
 * heap and sections (in the order of s's). 0, or EXIT_INPUT with the run's
 * error set. */
int report_write_leaks(FILE *f, const leak_series *s, const char *const *files, size_t nfiles,
                       gch_analysis *an, gch_heap *const *heaps, const cli_common *c);

#endif
