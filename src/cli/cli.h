/* What every subcommand shares: the command table entries, loading dumps with
 * the program's error and warning messages, and section selection. */
#ifndef GCHEAP_CLI_CLI_H
#define GCHEAP_CLI_CLI_H

#include <stddef.h>
#include "gcheap/dominators.h"
#include "gcheap/heap.h"
#include "gcheap/paths.h"
#include "gcheap/load.h"
#include "options.h"

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} cli_command;

int cmd_info(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_roots(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_dom(int argc, char **argv);
int cmd_objsize(int argc, char **argv);
int cmd_retainers(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_report(int argc, char **argv);

/* Exit statuses. */
enum { EXIT_FINE = 0, EXIT_LIMIT = 1, EXIT_INPUT = 2 };

/* What every command declares: its help, its options and the positional
 * arguments (dumps, ids) it takes. */
typedef struct cli_spec {
    const char *name;
    const char *usage;        /* "usage: gcheap NAME ..." */
    const char *description;
    const cli_option *options;
    cli_option_fn on_option;  /* NULL when the command has no options of its own */
    int min_args, max_args;   /* positional arguments; max_args < 0: no limit */
    const char *too_many;     /* "too many arguments (expected ...)" text, or NULL */
    int folded_ok;            /* --format folded applies */
} cli_spec;

/* cli_start's return when --help was printed: the command exits 0. */
#define CLI_HELP_SHOWN (-1)

/* The start of every command: parses argv (common options, the spec's
 * options through on_option(state, ...)), prints the help for --help, checks
 * the number of positional arguments and --format folded. Returns 0 to run
 * (free a->positional when done), CLI_HELP_SHOWN, or EXIT_INPUT after a usage
 * error; a->positional is already freed on every return but 0. */
int cli_start(const cli_spec *spec, void *state, int argc, char **argv, cli_common *c,
              cli_args *a);

/* A loaded dump and the sections a command reports (all, or --domain's). */
typedef struct cli_input {
    const char *path;
    gch_dump *dump;
    gch_heap **heaps;
    size_t count;
} cli_input;

/* Loads path (references only when need_refs) and selects the sections.
 * Prints the error and returns EXIT_INPUT on failure (nothing to close). */
int cli_open(const char *command, const char *path, const cli_common *c, int need_refs,
             cli_input *in);
/* The anomaly warning line of every selected section (unless -q). */
void cli_warn_input(const cli_input *in, const cli_common *c);
void cli_close(cli_input *in);

/* "-" is shown as "<stdin>" in messages. */
const char *cli_display_path(const char *path);

/* Loads the dump at path ("-" = stdin). need_refs = 0 lets the reader skip
 * references. Prints "gcheap: FILE:LINE: ..." (or offset form) on failure and
 * returns EXIT_INPUT; 0 on success. */
int cli_load(const char *path, const cli_common *common, int need_refs, gch_dump **out);

/* The sections to report: all, or the one --domain names. Prints an error and
 * returns EXIT_INPUT when --domain names none. *out is malloc'd. */
int cli_select(const char *command, const char *path, const gch_dump *dump, const cli_common *common,
               gch_heap ***out, size_t *count);

/* One warning line on stderr summarising a heap's anomalies (unless -q). */
void cli_warn_anomalies(const char *path, const gch_dump *dump, const gch_heap *heap,
                        const cli_common *common);

/* Prints "gcheap: message" for an error that is not about a file position. */
void cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Prints a command's help: usage lines, description, its options, common options. */
void cli_print_help(const char *usage, const char *description, const cli_option *options);

/* A type's display name, honouring --short-names (Dart) and --module (.gcdump).
 * Returns a pointer into buf or into the heap. */
const char *cli_type_name(const gch_heap *heap, uint32_t type, const cli_common *common, char *buf,
                          size_t cap);

/* Root flags as text: "pinned|weak", unknown bits as "0x10", "-" for none. */
const char *cli_root_flags_text(unsigned flags, char *buf, size_t cap);
/* The container type of static root r ("" when it has none). */
const char *cli_root_container_text(const gch_heap *h, uint32_t r, const cli_common *c, char *buf,
                                    size_t cap);

/* A phase line on stderr ("gcheap: computing the dominator tree...") while a
 * long analysis runs, when stderr is a terminal and neither --no-progress nor
 * -q was given; cli_phase_end clears it. */
void cli_phase(const cli_common *c, const char *what);
void cli_phase_end(void);

/* gch_domtree_build_ex (weak roots per --include-weak; the children lists only
 * when children is nonzero: gch_domtree_children and gch_type_retained need
 * them, idom, retained, live totals and gch_dom_chain do not),
 * gch_type_retained into a malloc'd per-type array, gch_paths_build: the
 * error printed, 0 or EXIT_INPUT. */
int cli_domtree(const gch_heap *h, const cli_common *c, int children, gch_domtree *t);
/* The same in preorder only (gch_domtree_options.preorder_only): live totals,
 * t->preorder and t->preorder_retained; what `top` needs. */
int cli_domtree_preorder(const gch_heap *h, const cli_common *c, gch_domtree *t);
int cli_type_retained(const gch_heap *h, const cli_common *c, uint64_t **per_type,
                      uint64_t *live_bytes);
int cli_paths(const gch_heap *h, const cli_common *c, int include_weak, gch_paths *p);

#endif
