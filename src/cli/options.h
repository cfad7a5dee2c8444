/* Typed options, in the manner of git's parse-options: an option table entry
 * binds an option's name, its type and the variable it fills (a field of the
 * command's state struct, by offset), so values are parsed and checked in one
 * place with one message per kind of mistake for every command.
 *
 *   OPT_BOOL    int, set to 1
 *   OPT_UINT    uint64_t, a whole number within [min, max]; never wraps
 *   OPT_SIZE    uint64_t, bytes: digits with an optional unit (B, KB, KiB, MB,
 *               MiB, GB, GiB, TB, TiB; case-insensitive; "1.5MiB")
 *   OPT_STRING  const char *, the argument as given (points into argv)
 *   OPT_ENUM    int, the index of the value in a NULL-terminated word list
 *   OPT_WORD    const char *, the word itself (the command's --sort keys
 *               when words is NULL)
 *   OPT_CALLBACK  a function called with the value, for the odd option
 *
 * Every command also takes the common options (cli_common below) anywhere on
 * its command line. */
#ifndef GCHEAP_CLI_OPTIONS_H
#define GCHEAP_CLI_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/load.h"

typedef enum out_format { FMT_TABLE, FMT_TSV, FMT_CSV, FMT_JSON, FMT_FOLDED } out_format;

typedef struct cli_common {
    int format;             /* an out_format */
    int format_set;
    uint64_t top;           /* UINT64_MAX: no limit */
    const char *sort;       /* one of the command's sort keys; NULL: its default */
    int human;
    int quiet;
    int help;
    int no_progress;
    const char *domain;
    gch_format input_format;
    int size_buckets;
    int module;
    int short_names;
    int v8_raw;
    int hprof_refs;         /* --hprof-refs: GCH_HPROF_REFS_AUTO, _COMPRESSED or _WIDE */
    int include_weak;
    int no_index;           /* --no-index: parse the dump even when an index of it exists */
    uint64_t threads;       /* --threads: 0 = auto, 1 = no threads; see cli_threads */
} cli_common;

/* The most --threads accepts. */
#define CLI_MAX_THREADS 1024

typedef enum cli_opt_kind {
    CLI_OPT_END = 0, CLI_OPT_BOOL, CLI_OPT_UINT, CLI_OPT_SIZE, CLI_OPT_STRING, CLI_OPT_ENUM,
    CLI_OPT_WORD, CLI_OPT_CALLBACK
} cli_opt_kind;

/* An OPT_CALLBACK handler: state is the command's state (cli_common for the
 * common options); returns 0, or 2 after printing cli_usage_error. */
typedef int (*cli_opt_fn)(void *state, const char *command, const char *option,
                          const char *value);

typedef struct cli_option {
    cli_opt_kind kind;
    char short_name;           /* 0 for none */
    const char *long_name;     /* without the leading "--" */
    size_t offset;             /* the bound variable in the state struct */
    size_t given;              /* offset + 1 of an int set to 1 when given; 0: none */
    const char *value_name;    /* for help ("N"); NULL for OPT_BOOL */
    const char *help;
    uint64_t min, max;         /* OPT_UINT, OPT_SIZE: the accepted range */
    const char *const *words;  /* OPT_ENUM, OPT_WORD */
    const char *what;          /* OPT_ENUM, OPT_WORD: a word's name in messages */
    cli_opt_fn callback;       /* OPT_CALLBACK */
    int optional_value;        /* OPT_CALLBACK_OPTIONAL: the value only as --name=VALUE */
} cli_option;

#define OPT_BOOL(s, l, T, field, h) \
    { .kind = CLI_OPT_BOOL, .short_name = (s), .long_name = (l), .offset = offsetof(T, field), .help = (h) }
#define OPT_UINT(s, l, T, field, vname, lo, hi, h)                                                  \
    { .kind = CLI_OPT_UINT, .short_name = (s), .long_name = (l), .offset = offsetof(T, field),      \
      .value_name = (vname), .min = (lo), .max = (hi), .help = (h) }
/* OPT_UINT that also sets the int given_field to 1 when the option is given. */
#define OPT_UINT_GIVEN(s, l, T, field, given_field, vname, lo, hi, h)                               \
    { .kind = CLI_OPT_UINT, .short_name = (s), .long_name = (l), .offset = offsetof(T, field),      \
      .given = offsetof(T, given_field) + 1, .value_name = (vname), .min = (lo), .max = (hi),      \
      .help = (h) }
#define OPT_SIZE_GIVEN(s, l, T, field, given_field, vname, h)                                       \
    { .kind = CLI_OPT_SIZE, .short_name = (s), .long_name = (l), .offset = offsetof(T, field),      \
      .given = offsetof(T, given_field) + 1, .value_name = (vname), .min = 0, .max = UINT64_MAX,   \
      .help = (h) }
#define OPT_STRING(s, l, T, field, vname, h)                                                        \
    { .kind = CLI_OPT_STRING, .short_name = (s), .long_name = (l), .offset = offsetof(T, field),    \
      .value_name = (vname), .help = (h) }
#define OPT_ENUM(s, l, T, field, word_list, what_word, vname, h)                                     \
    { .kind = CLI_OPT_ENUM, .short_name = (s), .long_name = (l), .offset = offsetof(T, field),      \
      .given = 0, .words = (word_list), .what = (what_word), .value_name = (vname), .help = (h) }
#define OPT_WORD(s, l, T, field, word_list, what_word, vname, h)                                     \
    { .kind = CLI_OPT_WORD, .short_name = (s), .long_name = (l), .offset = offsetof(T, field),      \
      .words = (word_list), .what = (what_word), .value_name = (vname), .help = (h) }
#define OPT_CALLBACK(s, l, fn, vname, h)                                                            \
    { .kind = CLI_OPT_CALLBACK, .short_name = (s), .long_name = (l), .callback = (fn),             \
      .value_name = (vname), .help = (h) }
/* OPT_CALLBACK whose value is optional: given only as --name=VALUE; the
 * callback gets NULL for a bare --name. vname is shown as is ("[=SIZE]"). */
#define OPT_CALLBACK_OPTIONAL(l, fn, vname, h)                                                     \
    { .kind = CLI_OPT_CALLBACK, .long_name = (l), .callback = (fn), .value_name = (vname),        \
      .help = (h), .optional_value = 1 }
#define OPT_END { .kind = CLI_OPT_END }

typedef struct cli_args {
    const char **positional;
    int count;
} cli_args;

/* Parses argv[1..argc-1] (argv[0] is the command name). Common options fill
 * common, the command's options (may be NULL) fill state; sort_keys are the
 * words --sort accepts (NULL: the command takes no --sort). The rest
 * (including "-") is positional, as is everything after "--". Returns 0, or 2
 * after printing a usage error. args->positional points into argv (the array
 * itself is malloc'd: free it). */
int cli_parse(int argc, char **argv, const char *command, const cli_option *options, void *state,
              const char *const *sort_keys, cli_common *common, cli_args *args);

/* Prints "gcheap: CMD: message" and a hint to try --help; returns 2. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The common options' table (OPT_END-terminated): what every command takes. */
const cli_option *cli_common_options(void);

/* Prints the common options' help / a command's own options. */
void cli_print_common_help(void);
void cli_print_options(const cli_option *options);

/* The closest of names (NULL-terminated; or count entries when count >= 0)
 * to s when it is close enough to be a likely typo, else NULL. */
const char *cli_closest(const char *s, const char *const *names, int count);

/* Edit distance (insertions, deletions, substitutions, adjacent swaps);
 * SIZE_MAX when either string is longer than 64 bytes. */
size_t cli_edit_distance(const char *a, const char *b);

/* Parses a non-negative decimal count; 0 on success, -1 when not digits, -2
 * when above 2^64-1. */
int cli_parse_count(const char *s, uint64_t *out);
/* Parses an object id as written in a dump: hex, optional 0x (radix 16), or
 * decimal (radix 10). 0 on success. */
int cli_parse_id(const char *s, int radix, uint64_t *out);
/* The usage error for an argument that is no object id (EXIT_INPUT), with a
 * hint when it looks like a dump given where an id was expected. */
int cli_bad_id(const char *command, const char *arg);
/* "5", "5%" or "2.5%" into percent x GCH_PERCENT_SCALE (0 to 100), for
 * --threshold and the like; else a usage error naming --opt (EXIT_INPUT). */
int cli_parse_pct(const char *command, const char *opt, const char *value, uint64_t *out);

/* The worker count the program asks of the library: --threads (0 = as many
 * as the machine has, 1 = none). */
unsigned cli_threads(const cli_common *common);

#endif
