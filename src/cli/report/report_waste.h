/* `gcheap report --waste`: each section's waste (gch_waste_find at the
 * defaults of `gcheap waste`, no threshold, no holder fields). */
#ifndef GCHEAP_CLI_REPORT_REPORT_WASTE_H
#define GCHEAP_CLI_REPORT_REPORT_WASTE_H

#include <stdio.h>

#include "cli.h"

#define REPORT_WASTE_ROWS 100 /* rows at most, by section then wasted bytes */

/* Writes a JSON array of rows {section, id, type, count, bytes, wasted,
 * value (duplicate strings: the text, cut after 80 characters; else null)},
 * or null when the dump holds no contents. Prints the error and returns
 * EXIT_INPUT when the analysis fails; else 0. */
int report_write_waste(FILE *f, const char *path, const gch_dump *dump, gch_heap *h,
                       const cli_common *c);

#endif
