/* `gcheap report --suspects`: the leak-rule findings of each section, as
 * `gcheap suspects` finds them (rules_out.h, docs/leak-rules.md), for the
 * page's section per rule. */
#ifndef GCHEAP_CLI_REPORT_REPORT_RULES_H
#define GCHEAP_CLI_REPORT_REPORT_RULES_H

#include <stdio.h>

#include "cli.h"
#include "gcheap/analysis.h"

/* Writes {"why_none": null or why no rule could read a field, "findings":
 * [{rule, reason, type, id, count, retained, percent, library_leak,
 * window: {from, to}, path: [{id, type, bytes, holder, leaking, reason,
 * library_leak}]}]}, every string through html_json_string. Prints the
 * error and returns EXIT_INPUT when the analysis fails; else 0. */
int report_write_rules(FILE *f, gch_analysis *an, const char *path, const gch_dump *dump,
                       const gch_heap *h, const cli_common *c);

#endif
