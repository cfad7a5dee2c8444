/* Sessions: the command table, one run's dispatch (help, version, a
 * command), and the dumps kept between runs. See session.h. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index_cli.h"
#include "platform.h"
#include "run_ctx.h"
#include "session.h"
#include "session_internal.h"
#include "text.h"

#ifndef GCHEAP_VERSION
#define GCHEAP_VERSION "dev"
#endif

#define COMMAND(name) extern const cli_spec name##_command;
#include "commands.h"
#undef COMMAND

/* The table is commands.h: one line per command. */
static const cli_spec *const commands[] = {
#define COMMAND(name) &name##_command,
#include "commands.h"
#undef COMMAND
};

#define NCOMMANDS (sizeof commands / sizeof *commands)

/* ---- the dumps a session keeps ---- */

/* A loaded dump: its analysis, what identifies it (path, the load options
 * that change what is loaded, the file's stamp) and what was loaded. */
struct cli_held {
    char *path;
    gch_index_options options; /* the load options that change what is loaded */
    int loaded;              /* CLI_LOAD_* bits */
    plat_stamp stamp;
    gch_analysis *an;
    uint64_t last_used;
    int users;               /* runs holding it now */
    int kept;                /* stays after its run (else freed on close) */
    cli_held *next;
};

struct cli_session {
    int one_shot;
    size_t limit;            /* 0: none */
    uint64_t clock;
    cli_held *held;
};

cli_session *cli_session_new(void) { return calloc(1, sizeof(cli_session)); }

void cli_session_set_one_shot(cli_session *s) { s->one_shot = 1; }

static void held_free(cli_held *h)
{
    gch_analysis_free(h->an);
    free(h->path);
    free(h);
}

static void unlink_held(cli_session *s, cli_held *h)
{
    for (cli_held **p = &s->held; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            return;
        }
}

void cli_session_free(cli_session *s)
{
    if (!s)
        return;
    while (s->held) {
        cli_held *h = s->held;
        s->held = h->next;
        held_free(h);
    }
    free(s);
}

size_t cli_session_memory(const cli_session *s)
{
    size_t b = 0;
    for (const cli_held *h = s->held; h; h = h->next)
        if (h->kept)
            b += gch_analysis_memory(h->an);
    return b;
}

/* Drops the least recently used dumps no run holds until the kept ones fit
 * the limit. */
static void enforce_limit(cli_session *s)
{
    while (s->limit && cli_session_memory(s) > s->limit) {
        cli_held *lru = NULL;
        for (cli_held *h = s->held; h; h = h->next)
            if (h->kept && !h->users && (!lru || h->last_used < lru->last_used))
                lru = h;
        if (!lru)
            return;
        unlink_held(s, lru);
        held_free(lru);
    }
}

void cli_session_set_limit(cli_session *s, size_t max_bytes)
{
    s->limit = max_bytes;
    enforce_limit(s);
}

gch_analysis *cli_session_analysis(cli_session *s, const char *path)
{
    for (cli_held *h = s->held; h; h = h->next)
        if (h->kept && strcmp(h->path, path) == 0)
            return h->an;
    return NULL;
}

gch_dump *cli_held_dump(const cli_held *h) { return gch_analysis_dump(h->an); }

gch_analysis *cli_held_analysis(const cli_held *h) { return h->an; }

static int same_key(const cli_held *h, const char *path, const cli_common *c)
{
    gch_index_options o = cli_index_options(c);
    return strcmp(h->path, path) == 0 && cli_index_same_options(&h->options, &o);
}

static int same_stamp(const plat_stamp *a, const plat_stamp *b)
{
    return a->size == b->size && a->dev == b->dev && a->ino == b->ino &&
           a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

/* Whether a dump loaded with `loaded` answers a command that needs `need`:
 * everything it asks for was loaded; objects were stored unless type totals
 * are all it needs. */
static int serves(int loaded, int need)
{
    int asked = need & (CLI_LOAD_REFS | CLI_LOAD_LABELS | CLI_LOAD_PAYLOADS | CLI_LOAD_FIELDS);
    if ((loaded & asked) != asked)
        return 0;
    return !(loaded & CLI_LOAD_TYPE_TOTALS) || (need & CLI_LOAD_TYPE_TOTALS);
}

/* Progress of the analysis's long computations as the phase line. */
static void on_phase(void *ctx, const char *what, unsigned percent)
{
    const cli_common *c = ctx;
    if (percent == 0)
        cli_phase(c, what);
    else if (percent > 100)
        cli_phase_end();
    else
        cli_phase_percent((void *)what, percent);
}

static void held_use(cli_session *s, cli_held *h, const cli_common *c)
{
    gch_analysis_options o;
    memset(&o, 0, sizeof o);
    o.threads = cli_threads(c);
    o.keep_whole_trees = !s->one_shot;
    o.progress = on_phase;
    o.progress_ctx = (void *)c;
    gch_analysis_set_options(h->an, &o);
    h->users++;
    h->last_used = ++s->clock;
}

/* Loads path: what the command needs, plus (in a session that keeps dumps)
 * references and labels, so that later commands find them. If the fuller
 * load fails, the command's own load decides (a dump whose references are
 * malformed still answers `stat`, as the one-shot program does), unless
 * the file changed on disk while it was read (it shrank): that is the
 * command's error, not a reason to read it again. A session reads files
 * into a copy (CLI_LOAD_COPY): a file that shrinks under a mapping would
 * end the process. */
static int load(cli_session *s, const char *path, const cli_common *c, int need, int also,
                int *loaded, gch_dump **dump)
{
    int want = need | also, copy = s->one_shot ? 0 : CLI_LOAD_COPY;
    if (!s->one_shot) { /* a kept dump serves later commands: references read now */
        int one_shot_only = CLI_LOAD_REFS_LATER | CLI_LOAD_NO_TYPE_TOTALS | CLI_LOAD_REVERSE;
        need &= ~one_shot_only;
        want &= ~one_shot_only;
    }
    if (!s->one_shot && strcmp(path, "-") != 0)
        want = (want | CLI_LOAD_REFS | CLI_LOAD_LABELS) & ~CLI_LOAD_TYPE_TOTALS;
    if (want != need) {
        cli_ctx *ctx = cli_ctx_get();
        size_t mark = ctx->error_len;
        plat_stamp before, after;
        int stamped = plat_file_stamp(path, &before) == 0;
        int rc = cli_load(path, c, want | copy, dump);
        if (rc == 0) {
            *loaded = want;
            return 0;
        }
        if (stamped && (plat_file_stamp(path, &after) != 0 || !same_stamp(&before, &after)))
            return rc;
        ctx->error_len = mark; /* the command's own load says what is wrong */
        if (ctx->error)
            ctx->error[mark] = '\0';
    }
    *loaded = need;
    return cli_load(path, c, need | copy, dump);
}

int cli_session_open(cli_session *s, const char *path, const cli_common *c, int need,
                     cli_held **out)
{
    *out = NULL;
    plat_stamp stamp;
    int keep = !s->one_shot && strcmp(path, "-") != 0 && plat_file_stamp(path, &stamp) == 0;
    int also = 0;
    for (cli_held *h = s->held, *next; keep && h; h = next) {
        next = h->next;
        if (!h->kept || !same_key(h, path, c))
            continue;
        if (same_stamp(&h->stamp, &stamp) && serves(h->loaded, need)) {
            held_use(s, h, c);
            *out = h;
            return 0;
        }
        if (same_stamp(&h->stamp, &stamp))
            also |= h->loaded & ~CLI_LOAD_TYPE_TOTALS; /* load it again with more */
        if (!h->users) {
            unlink_held(s, h);
            held_free(h);
        } else {
            h->kept = 0; /* stale: freed when its run lets go */
        }
    }
    gch_dump *dump = NULL;
    int loaded;
    int rc = load(s, path, c, need, also, &loaded, &dump);
    if (rc)
        return rc;
    cli_held *h = calloc(1, sizeof *h);
    char *p = h ? malloc(strlen(path) + 1) : NULL;
    gch_error err;
    if (!p || gch_analysis_new(dump, NULL, &h->an, &err) != GCH_OK) {
        free(p);
        free(h);
        gch_dump_free(dump);
        cli_error("out of memory");
        return EXIT_INPUT;
    }
    h->path = strcpy(p, path);
    h->options = cli_index_options(c);
    h->loaded = loaded;
    h->kept = keep;
    if (keep)
        h->stamp = stamp;
    h->next = s->held;
    s->held = h;
    held_use(s, h, c);
    enforce_limit(s);
    *out = h;
    return 0;
}

void cli_session_close(cli_session *s, cli_held *h)
{
    if (!h)
        return;
    if (h->users > 0)
        h->users--;
    if (!h->users && !h->kept) {
        unlink_held(s, h);
        held_free(h);
        return;
    }
    enforce_limit(s); /* what the run derived counts now */
}

/* After a run that ended early (out of memory): no run holds anything. */
static void release_all(cli_session *s)
{
    for (cli_held *h = s->held, *next; h; h = next) {
        next = h->next;
        h->users = 0;
        if (!h->kept) {
            unlink_held(s, h);
            held_free(h);
        }
    }
}

/* ---- one run ---- */

const char *const *cli_command_names(void)
{
    static const char *names[NCOMMANDS + 1];
    for (size_t i = 0; i < NCOMMANDS; i++)
        names[i] = commands[i]->name;
    return names;
}

const cli_spec *const *cli_command_list(size_t *count)
{
    *count = NCOMMANDS;
    return commands;
}

static void usage(strbuf *b)
{
    sb_add(b, "usage: gcheap COMMAND [OPTIONS] DUMP...\n"
              "       gcheap --help | --version | help COMMAND | COMMAND --help\n\n"
              "Analyze garbage-collected heap dumps (.gclog, .gcdump, Dart, V8 and JavaScriptCore\n"
              "heap snapshots, HPROF; gzip-compressed or not).\n"
              "DUMP may be '-' for standard input; the format is detected from the first bytes.\n\n"
              "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        sb_addf(b, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
    sb_add(b, "\nExit status: 0 fine, 1 a limit in check/diff was exceeded, 2 usage or input error.\n"
              "Run 'gcheap COMMAND --help' for a command's options.\n");
}

static void print_usage(void)
{
    strbuf b = STRBUF_INIT;
    usage(&b);
    fwrite(b.s, 1, b.len, cli_ctx_get()->out);
    sb_free(&b);
}

static const cli_spec *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i]->name) == 0)
            return commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *near = cli_closest(name, cli_command_names(), (int)NCOMMANDS);
    if (near)
        cli_error("unknown command '%s' (did you mean '%s'?)", name, near);
    else
        cli_error("unknown command '%s'", name);
    static const char try_help[] = "Try 'gcheap --help'.\n";
    cli_ctx_add_error(cli_ctx_get(), try_help, sizeof try_help - 1);
    return EXIT_INPUT;
}

/* help [COMMAND] (argv[0] is "help") */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        print_usage();
        return EXIT_FINE;
    }
    if (argc > 2)
        return cli_usage_error(NULL, "help: too many arguments (expected one COMMAND)");
    const cli_spec *spec = find_command(argv[1]);
    if (!spec)
        return unknown_command(argv[1]);
    cli_print_help(spec);
    return EXIT_FINE;
}

static int dispatch(cli_session *s, int argc, char **argv)
{
    if (argc < 1) {
        strbuf b = STRBUF_INIT;
        usage(&b);
        cli_ctx_add_error(cli_ctx_get(), b.s, b.len);
        sb_free(&b);
        return EXIT_INPUT;
    }
    const char *name = argv[0];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return help(1, argv);
    if (strcmp(name, "help") == 0)
        return help(argc, argv);
    if (strcmp(name, "--version") == 0) {
        fprintf(cli_ctx_get()->out, "gcheap %s\n", GCHEAP_VERSION);
        return EXIT_FINE;
    }
    const cli_spec *spec = find_command(name);
    if (spec)
        return cli_run_command(s, spec, argc, argv);
    return unknown_command(name);
}

/* The run with its landing point for an allocation failure. ctx lives in
 * the caller's frame: what the run changes in it survives the jump. */
static int guarded(cli_session *s, int argc, char **argv, cli_ctx *ctx)
{
    jmp_buf jump;
    ctx->oom = &jump;
    if (setjmp(jump) == 0) {
        int rc = dispatch(s, argc, argv);
        ctx->oom = NULL;
        return rc;
    }
    ctx->oom = NULL; /* out of memory inside the run: its error is recorded */
    cli_phase_end();
    release_all(s);
    return EXIT_INPUT;
}

int cli_session_run(cli_session *s, int argc, char **argv, FILE *out, FILE *err)
{
    cli_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.out = out;
    ctx.err = err;
    cli_ctx *previous = cli_ctx_enter(&ctx);
    int rc = guarded(s, argc, argv, &ctx);
    cli_ctx_leave(previous);
    fflush(out);
    cli_ctx_flush_error(&ctx, err);
    return rc;
}
