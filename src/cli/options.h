/* Shared option parsing: every command accepts the common options below,
 * anywhere among its arguments, plus its own table of options. */
#ifndef GCHEAP_CLI_OPTIONS_H
#define GCHEAP_CLI_OPTIONS_H

#include <stdint.h>
#include "gcheap/load.h"

typedef enum out_format { FMT_TABLE, FMT_TSV, FMT_CSV, FMT_JSON, FMT_FOLDED } out_format;

typedef struct cli_common {
    out_format format;
    int format_set;
    uint64_t top;           /* UINT64_MAX: no limit */
    const char *sort;       /* NULL: the command's default */
    int human;
    int quiet;
    int help;
    int no_progress;
    const char *domain;
    gch_format input_format;
    int size_buckets;
    int module;
    int short_names;
    int include_weak;
} cli_common;

/* A command-specific option. takes_value: 0 flag, 1 requires a value, 2 an
 * optional value, given only as --name=VALUE (the callback gets NULL without). */
typedef struct cli_option {
    const char *long_name;  /* without the leading "--" */
    char short_name;        /* 0 for none */
    int takes_value;
    int id;
    const char *value_name; /* for help, e.g. "N" */
    const char *help;
} cli_option;

/* Called for each command option found; returns 0 to go on, 2 to stop
 * (after printing a message). */
typedef int (*cli_option_fn)(void *state, int id, const char *value);

typedef struct cli_args {
    const char **positional;
    int count;
} cli_args;

/* Parses argv[1..argc-1] (argv[0] is the command name). Common options fill
 * common; command options go to on_option; the rest (including "-") are
 * positional, as is everything after "--". Returns 0, or 2 after printing a
 * usage error. positional points into argv (the array itself is malloc'd:
 * free args->positional). */
int cli_parse(int argc, char **argv, const char *command, const cli_option *options,
              cli_option_fn on_option, void *state, cli_common *common, cli_args *args);

/* Prints "gcheap: CMD: message" and a hint to try --help; returns 2. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Prints the help text shared by every command (the common options). */
void cli_print_common_help(void);
/* Prints a command's own options. */
void cli_print_options(const cli_option *options);

/* Parses a non-negative decimal count; 0 on success. */
int cli_parse_count(const char *s, uint64_t *out);
/* Parses an object id as written in a dump: hex, optional 0x (radix 16), or
 * decimal (radix 10). 0 on success. */
int cli_parse_id(const char *s, int radix, uint64_t *out);

#endif
