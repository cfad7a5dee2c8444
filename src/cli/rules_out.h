/* Leak-rule findings as `suspects` shows them (docs/leak-rules.md): the
 * findings of gch_rules_find grouped by rule and type, each group with the
 * shortest path from a root to its first object, every step labelled as
 * LeakCanary labels a leak trace (leaking yes/no/unknown and why), the
 * suspect window and known library leaks. */
#ifndef GCHEAP_CLI_RULES_OUT_H
#define GCHEAP_CLI_RULES_OUT_H

#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "gcheap/rules.h"

typedef struct rules_step {
    uint32_t object;
    gch_leaking leaking;
    char reason[GCH_RULE_REASON_MAX];
    char holder[256];          /* how the step is held: "static Bus.listeners", "Node.next", "[3]" */
    const char *library_leak;  /* the matcher's description when the reference is a known
                                  library leak, else NULL */
} rules_step;

typedef struct rules_group {
    const char *rule;
    uint32_t type;             /* the objects' type (detached-dom: the first object's) */
    uint32_t holder;           /* detached-dom: the object holding them on their paths (the
                                  JavaScript holder of detached DOM trees), else GCH_NONE */
    uint32_t first;            /* the object whose path is shown (the biggest) */
    uint64_t count;            /* objects of this rule and type */
    uint64_t retained;         /* their retained bytes (none dominates another) */
    char reason[GCH_RULE_REASON_MAX];
    rules_step *steps;         /* root first, `first` last */
    size_t nsteps;
    size_t window_from, window_to; /* the references steps[i] -> steps[i+1], from <= i < to */
    int library_leak;          /* a reference in the window is a known library leak */
} rules_group;

typedef struct rules_result {
    rules_group *groups;       /* biggest retained first */
    size_t count;
    uint64_t live_bytes;
    const char *why_none;      /* the rules could read no field: why (static text), else NULL */
} rules_result;

/* What --rules / --no-rules chose. */
typedef struct rules_choice {
    int off;                   /* --no-rules */
    char **names;              /* --rules LIST split at commas (NULL: all) */
} rules_choice;

/* Runs the chosen rules over h (loaded from path with fields:
 * CLI_LOAD_RULE_FIELDS; the live set, tree and paths from the loaded heap
 * an) into *out. 0, or EXIT_INPUT with the run's error set. */
int rules_run(gch_analysis *an, const char *path, const gch_dump *dump, const gch_heap *h,
              const cli_common *c, const rules_choice *choice, rules_result *out);
void rules_result_free(rules_result *r);

/* The findings of every section: as text above the suspects table (table
 * form), as rows "finding" and "trace" of the suspects report (tsv, csv),
 * as the "findings" member of the json envelope (always present). */
void rules_print_text(cli_out *o, const gch_heap *h, const cli_common *c, const rules_result *r);
void rules_print_rows(report *rep, const gch_heap *h, const cli_common *c, const rules_result *r);
void rules_print_json(json_writer *w, const gch_heap *h, const cli_common *c,
                      const rules_result *r);

#endif
