/* What every subcommand shares: the command table entries, loading dumps with
 * the program's error and warning messages, and section selection. */
#ifndef GCHEAP_CLI_CLI_H
#define GCHEAP_CLI_CLI_H

#include <stddef.h>
#include "gcheap/heap.h"
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

/* Exit statuses. */
enum { EXIT_FINE = 0, EXIT_LIMIT = 1, EXIT_INPUT = 2 };

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

/* Checks that between min and max DUMP arguments were given; prints a usage
 * error and returns EXIT_INPUT otherwise. */
int cli_require_dumps(const char *command, const cli_args *args, int min, int max);

/* Prints a command's help: usage lines, description, its options, common options. */
void cli_print_help(const char *usage, const char *description, const cli_option *options);

/* A type's display name, honouring --short-names (Dart) and --module (.gcdump).
 * Returns a pointer into buf or into the heap. */
const char *cli_type_name(const gch_heap *heap, uint32_t type, const cli_common *common, char *buf,
                          size_t cap);

#endif
