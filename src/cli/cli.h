/* The program's command driver, in the manner of git's run_builtin: a command
 * is one file holding a cli_spec (its name, help, typed options bound to its
 * own state struct, positional arguments, flags) and a report function; the
 * driver does the one lifecycle for every command:
 *
 *   parse argv (typed options, cli_parse)  ->  --help  ->  argument count,
 *   --format folded, spec->check (cross-option rules)  ->  open and load the
 *   dump(s), select --domain's sections  ->  spec->prepare (find the IDs or
 *   types asked about; may fail before any warning)  ->  anomaly warnings
 *   (unless CLI_NO_WARNINGS)
 *   ->  spec->report (rows into run->out)  ->  end the output  ->  close the
 *   dumps, spec->release.
 *
 * Adding a command: a new cmd_NAME.c with a `const cli_spec NAME_command`,
 * and one line in the command table of main.c (docs/conventions.md, "Adding a
 * command"). A minimal command:
 *
 *   typedef struct hello_state { int live; } hello_state;
 *   static const cli_option hello_options[] = {
 *       OPT_BOOL(0, "live", hello_state, live, "only live objects"),
 *       OPT_END
 *   };
 *   static int hello_report(cli_run *run)
 *   {
 *       const hello_state *s = run->state;
 *       static const col_spec cols[] = { { "objects", COL_COUNT }, { "domain", COL_TEXT } };
 *       report *rep = report_new(run->out, REPORT_COLUMNS(cols), 0);
 *       report_begin_section(rep, "");
 *       for (size_t i = 0; i < run->in[0].count; i++) { ...report_cell_u64, report_cell_text... }
 *       report_end_section(rep);
 *       return 0;
 *   }
 *   const cli_spec hello_command = {
 *       .name = "hello", .summary = "one line for 'gcheap --help'",
 *       .usage = "usage: gcheap hello [OPTIONS] DUMP", .description = "...",
 *       .options = hello_options, .state_size = sizeof(hello_state),
 *       .min_args = 1, .max_args = 1, .report = hello_report,
 *   };
 *
 * Errors: a hook records its message (cli_error, cli_usage_error, or the
 * library's error through cli_error: the run's error, run_ctx.h, written by
 * cli_session_run when the run ends) and returns EXIT_INPUT; out of memory in
 * xmalloc ends the run (xalloc.h). Nothing in a run prints an error or exits.
 * Trees, paths and live sets come from the loaded heap (in->an, cli_domtree
 * and its siblings below), never built by a command. Exit statuses: 0 fine, 1 a limit exceeded
 * (check/diff report returns EXIT_LIMIT), 2 usage or input error.
 */
#ifndef GCHEAP_CLI_CLI_H
#define GCHEAP_CLI_CLI_H

#include <stddef.h>
#include "gcheap/dominators.h"
#include "gcheap/heap.h"
#include "gcheap/paths.h"
#include "gcheap/load.h"
#include "gcheap/analysis.h"
#include "options.h"
#include "output.h"
#include "xalloc.h"

/* Exit statuses. */
enum { EXIT_FINE = 0, EXIT_LIMIT = 1, EXIT_INPUT = 2 };

typedef struct cli_session cli_session;
typedef struct cli_held cli_held;

/* A loaded dump and the sections a command reports (all, or --domain's). */
typedef struct cli_input {
    const char *path;
    gch_dump *dump;           /* owned by the session (held) */
    gch_analysis *an;         /* its derived structures (gcheap/analysis.h) */
    cli_held *held;
    gch_heap **heaps;
    size_t count;
} cli_input;

/* Spec flags. */
#define CLI_NEEDS_REFS 0x1u /* load references (else readers may skip them) */
#define CLI_TWO_DUMPS  0x2u /* args 0 and 1 are dumps: in[0], in[1]; --domain may
                               miss in one of them (not in both). With min_args 1
                               (report), one dump when only one is given; with
                               more than two (report's series), only args 0. */
#define CLI_FOLDED_OK  0x4u /* --format folded applies */
#define CLI_NO_WARNINGS 0x8u /* no anomaly warnings: the report lists them (info) */
#define CLI_NEEDS_LABELS 0x10u /* keep reference field names and root labels (HPROF
                                  thread names): readers may drop them otherwise */
#define CLI_NO_LOAD 0x40u /* the report hook loads (or not) by itself: the shell */
#define CLI_TYPE_TOTALS_OK 0x20u /* without references the report reads only the per-type
                                    totals and anomalies: objects need not be stored */
#define CLI_REFS_LATER 0x80u /* the report reads references only through the analysis
                                (trees, paths, distances): from an index they are read
                                and checked only when the analysis must compute;
                                with CLI_NEEDS_LABELS, a heap with labels reads them
                                at load all the same */
#define CLI_NO_TYPE_TOTALS 0x100u /* the report prints no per-type totals: from an index
                                     they are neither read nor checked (one-shot runs) */
#define CLI_NEEDS_REVERSE 0x200u /* the report asks for the reverse references at once:
                                    from an index they are checked with the references,
                                    on another thread (one-shot runs) */

/* What cli_load keeps (a bit set). */
#define CLI_LOAD_REFS   0x1
#define CLI_LOAD_LABELS 0x2
#define CLI_LOAD_TYPE_TOTALS 0x4 /* only type totals and anomalies (histogram_only) */
#define CLI_LOAD_PAYLOADS 0x8    /* where String values and primitive arrays lie in the file
                                    (HPROF from a file; a needs_refs hook may return it) */
#define CLI_LOAD_FIELDS 0x10     /* with CLI_LOAD_PAYLOADS: also object arrays and the instance
                                    fields of the classes gch_waste_field_classes names */
#define CLI_LOAD_RULE_FIELDS 0x20 /* with CLI_LOAD_PAYLOADS: the instance fields of the classes
                                     the leak rules read (gch_rule_field_classes) */
#define CLI_LOAD_COPY 0x40        /* a regular file read into memory of the program's own
                                     instead of mapped (sessions: see cli_load) */
#define CLI_LOAD_REFS_LATER 0x80  /* from an index, references may wait for the analysis
                                     (CLI_REFS_LATER; one-shot runs only) */
#define CLI_LOAD_NO_TYPE_TOTALS 0x100 /* from an index, no per-type totals (CLI_NO_TYPE_TOTALS;
                                         one-shot runs only) */
#define CLI_LOAD_REVERSE 0x200 /* from an index, the reverse references checked at load
                                  (CLI_NEEDS_REVERSE; one-shot runs only) */

typedef struct cli_spec cli_spec;

/* One run of a command, as the hooks see it. */
typedef struct cli_run {
    const cli_spec *spec;
    const cli_common *c;
    void *state;              /* the command's state struct (options filled) */
    const char *const *args;  /* positional arguments; args[0] the dump */
    int nargs;
    int argc;                 /* the whole command line (argv[0] the command) */
    char **argv;
    cli_session *session;     /* where the dumps are kept */
    cli_input in[2];          /* the dump (and with CLI_TWO_DUMPS, the second) */
    int ninputs;
    int load;                 /* what the command needs loaded: CLI_LOAD_* bits */
    cli_out *out;             /* stdout: only in report */
} cli_run;

struct cli_spec {
    const char *name;
    const char *summary;            /* one line for 'gcheap --help' */
    const char *usage;              /* "usage: gcheap NAME ..." (may be several lines) */
    const char *description;        /* the rest of 'gcheap NAME --help' */
    const cli_option *options;      /* the command's own, OPT_END-terminated; NULL: none */
    size_t state_size;              /* sizeof the state struct the options fill */
    const void *defaults;           /* its initial value (NULL: all zero) */
    const char *const *sort_keys;   /* what --sort accepts, NULL-terminated; NULL: no --sort */
    int min_args, max_args;         /* positional arguments; max_args < 0: no limit */
    const char *too_many;           /* "too many arguments (expected ...)" text, or NULL */
    unsigned flags;                 /* CLI_NEEDS_REFS, CLI_TWO_DUMPS, ... */
    /* Optional hooks. needs_refs overrides CLI_NEEDS_REFS (options decide;
     * nonzero loads references, and the CLI_LOAD_PAYLOADS bit payloads too,
     * the CLI_LOAD_REFS_LATER bit as CLI_REFS_LATER does for these options);
     * check: rules between options, before loading (0 or cli_usage_error);
     * prepare: after loading, before warnings; release: frees what options
     * and hooks kept in the state (called on every path). */
    int (*needs_refs)(const void *state);
    int (*check)(cli_run *run);
    int (*prepare)(cli_run *run);
    int (*report)(cli_run *run);    /* required: prints through run->out */
    void (*release)(void *state);
};

/* The command table (commands.h), in its order (session.c). */
const cli_spec *const *cli_command_list(size_t *count);

/* Runs the command spec on argv (argv[0] is the command name): the whole
 * lifecycle above, with the dumps from session. Returns the exit status; the
 * error, if any, is the run's (run_ctx.h). */
int cli_run_command(cli_session *session, const cli_spec *spec, int argc, char **argv);

/* The session's dumps (session.c). cli_session_open loads path with what
 * `need` (CLI_LOAD_* bits) asks for, or takes it from the session's cache;
 * 0 and *held (release with cli_session_close), or EXIT_INPUT with the error
 * recorded. */
int cli_session_open(cli_session *s, const char *path, const cli_common *c, int need,
                     cli_held **held);
void cli_session_close(cli_session *s, cli_held *held);
gch_dump *cli_held_dump(const cli_held *held);
gch_analysis *cli_held_analysis(const cli_held *held);

/* 'gcheap NAME --help'. */
void cli_print_help(const cli_spec *spec);

/* "-" is shown as "<stdin>" in messages. */
const char *cli_display_path(const char *path);

/* Loads the dump at path ("-" = stdin). need_refs: CLI_LOAD_REFS keeps
 * references (without it the reader may skip them), CLI_LOAD_LABELS keeps
 * labels (reference field names, HPROF thread names; without it a reader may
 * drop them). Records "gcheap: FILE:LINE: ..." (or offset form) as the run's
 * error and returns EXIT_INPUT on failure; 0 on success. Commands load
 * through the session (cli_session_open), which calls this. */
int cli_load(const char *path, const cli_common *common, int need_refs, gch_dump **out);

/* The sections to report: all, or the one --domain names. Records an error and
 * returns EXIT_INPUT when --domain names none (unless lenient). *out is
 * malloc'd. */
int cli_select(const char *command, const char *path, const gch_dump *dump, const cli_common *common,
               int lenient, gch_heap ***out, size_t *count);

/* One warning line on stderr summarising a heap's anomalies (unless -q).
 * loaded: what the command asked to load (CLI_LOAD_* bits): without
 * CLI_LOAD_REFS, references to absent objects are not counted (a dump the
 * session loaded with references for another command keeps them). */
void cli_warn_anomalies(const char *path, const gch_dump *dump, const gch_heap *heap,
                        const cli_common *common, int loaded);

/* A type's display name, honouring --short-names (Dart) and --module (.gcdump).
 * Returns a pointer into buf or into the heap. */
const char *cli_type_name(const gch_heap *heap, uint32_t type, const cli_common *common, char *buf,
                          size_t cap);

/* Root flags as text: "pinned|weak", unknown bits as "0x10", "-" for none. */
const char *cli_root_flags_text(unsigned flags, char *buf, size_t cap);
/* Who holds root r, in the format's words: its kind, then the static's
 * class and field ("static OrderService.SESSIONS") or the root's label (a
 * thread: "local Java frame, thread 3 \"worker-1\" (0x...)"). */
const char *cli_root_holder_text(const gch_heap *h, uint32_t r, const cli_common *c, char *buf,
                                 size_t cap);
/* The same without the kind: "OrderService.SESSIONS", "Java frame, thread
 * 3 ...", "" when the format names no holder. */
const char *cli_root_holder_name(const gch_heap *h, uint32_t r, const cli_common *c, char *buf,
                                 size_t cap);
/* The container type of static root r ("" when it has none). */
const char *cli_root_container_text(const gch_heap *h, uint32_t r, const cli_common *c, char *buf,
                                    size_t cap);

/* A phase line on stderr ("gcheap: computing the dominator tree...") while a
 * long analysis runs, when stderr is a terminal and neither --no-progress nor
 * -q was given; cli_phase_end clears it. */
void cli_phase(const cli_common *c, const char *what);
void cli_phase_end(void);
/* Updates the phase line with a percentage (a library progress callback:
 * what is the phase's text as given to cli_phase). */
void cli_phase_percent(void *what, unsigned percent);

/* The loaded heap's structures (gcheap/analysis.h: computed on first use and
 * kept by the session; never freed by a command) for the view --include-weak
 * chooses; a failure becomes the run's error: 0 or EXIT_INPUT.
 * cli_domtree: the dominator tree with at least `parts` (GCH_TREE_*);
 * cli_type_retained: retained bytes per type (and the live bytes);
 * cli_paths: the shortest-path tree (include_weak given: retainers asks both);
 * cli_path: one object's shortest path (from an index: without checking the
 *   whole tree's parents, see gch_analysis_path);
 * cli_live: the live set (mask may be NULL: totals only);
 * cli_reverse: the heap's reverse references. */
int cli_domtree(gch_analysis *an, const gch_heap *h, const cli_common *c, unsigned parts,
                const gch_domtree **t);
int cli_type_retained(gch_analysis *an, const gch_heap *h, const cli_common *c,
                      const uint64_t **per_type, uint64_t *live_bytes);
int cli_paths(gch_analysis *an, const gch_heap *h, int include_weak, const gch_paths **p);
int cli_path(gch_analysis *an, const gch_heap *h, int include_weak, uint32_t object,
             gch_path_set *out);
int cli_live(gch_analysis *an, const gch_heap *h, const cli_common *c, const uint8_t **mask,
             uint64_t *count, uint64_t *bytes);
int cli_reverse(gch_analysis *an, const gch_heap *h);

#endif
