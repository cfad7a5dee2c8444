/* gcheap index: parse a dump once and keep its model in DUMP.gcx, which
 * every later command given DUMP maps and uses in place; --check verifies an
 * index. docs/index-format.md. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index_cli.h"
#include "platform.h"
#include "run_ctx.h"
#include "text.h"

typedef struct index_state {
    const char *output;
    int check, cache;
} index_state;

static const cli_option index_options[] = {
    OPT_STRING('o', "output", index_state, output, "FILE",
               "write the index to FILE (default: DUMP.gcx, or the cache folder when DUMP's "
               "folder cannot be written)"),
    OPT_BOOL(0, "cache", index_state, cache,
             "write the index under $XDG_CACHE_HOME/gcheap/ (default ~/.cache/gcheap/)"),
    OPT_BOOL(0, "check", index_state, check, "verify the index FILE (every chunk) and exit"),
    OPT_END
};

static const char description[] =
    "Parses DUMP once and writes its index: one file holding what every command\n"
    "needs (objects, types, sizes, references, roots, names, sections, anomalies,\n"
    "the id lookup), mapped and used in place by later commands, which then answer\n"
    "without parsing DUMP. Commands given DUMP use DUMP.gcx beside it, else the\n"
    "one under $XDG_CACHE_HOME/gcheap/ (default ~/.cache/gcheap/), when it was\n"
    "built from this very DUMP (size, modification time, a hash of its first and\n"
    "last MiB) with the same load options (--input-format, --size-buckets,\n"
    "--module, --hprof-refs, --v8-raw); a stale index is never used (a note on\n"
    "stderr says why) and --no-index parses DUMP anyway. The index itself may be\n"
    "given as DUMP. An index is only built by this command, never implicitly;\n"
    "gzip dumps can be indexed, standard input cannot. Commands that read values\n"
    "from the dump (waste, suspects' rules on HPROF, objects --values) parse it;\n"
    "given the index alone, they read the dump it was built from if that is still\n"
    "where it was indexed and unchanged, else exit 2.\n"
    "--cache writes it under the cache folder whatever DUMP's folder allows.\n"
    "--check FILE verifies every chunk of an index (checksums, values in bounds).\n"
    "Prints where the index was written, or 'FILE: ok' for --check.";

/* The index's output (gch_index_io): appends to the stream, and the
 * header written last at offset 0 through a seek (the stream is a fresh
 * temporary file, or the device or FIFO -o names: one that cannot seek gets
 * the whole file at the end instead). Standard C's fseek takes a long: the
 * header's offset, 0, always fits. */
static int write_fn(void *ctx, const void *data, size_t n)
{
    return fwrite(data, 1, n, ctx) == n ? 0 : -1;
}

static int write_at_fn(void *ctx, uint64_t offset, const void *data, size_t n)
{
    FILE *f = ctx;
    if (offset > (uint64_t)LONG_MAX || fflush(f) != 0 || fseek(f, (long)offset, SEEK_SET) != 0)
        return -1;
    int ok = fwrite(data, 1, n, f) == n;
    return ok && fseek(f, 0, SEEK_END) == 0 ? 0 : -1;
}

static int check_index(const char *path)
{
    const void *data;
    uint64_t size;
    const char *reason;
    plat_mapping *m = plat_mapping_open(path, &data, &size, &reason);
    if (!m) {
        cli_error("%s: %s", path, reason);
        return EXIT_INPUT;
    }
    gch_index *ix = NULL;
    gch_error err;
    gch_error_clear(&err);
    gch_status st = gch_index_open(data, (size_t)size, &ix, &err);
    if (st == GCH_OK)
        st = gch_index_check(ix, &err);
    if (st == GCH_OK) {
        char safe[1024];
        fprintf(cli_ctx_get()->out, "%s: ok (%zu chunks, %llu bytes, index of %s)\n", path,
                gch_index_chunk_count(ix), (unsigned long long)size,
                message_text(gch_index_dump_name(ix), safe, sizeof safe));
    } else if (err.has_offset) {
        cli_error("%s: offset %llu: %s", path, (unsigned long long)err.offset, err.message);
    } else {
        cli_error("%s: %s", path, err.message[0] ? err.message : gch_status_string(st));
    }
    gch_index_close(ix);
    plat_mapping_close(m);
    return st == GCH_OK ? EXIT_FINE : EXIT_INPUT;
}

/* Writes dump's index to target: 0, or -1 with *reason when the file cannot
 * be created (the caller may try the cache), EXIT_INPUT when writing failed. */
static int write_to(const char *target, gch_analysis *an, const gch_index_stamp *stamp,
                    const char *name, const char **reason)
{
    FILE *f;
    plat_out *o = plat_out_open(target, &f, reason);
    if (!o)
        return -1;
    gch_error err;
    gch_error_clear(&err);
    gch_index_io io = { write_fn, fseek(f, 0, SEEK_CUR) == 0 ? write_at_fn : NULL, f };
    if (gch_index_write(an, stamp, name, &io, &err) != GCH_OK) {
        plat_out_discard(o);
        cli_error("cannot write %s: %s", target, err.message);
        return EXIT_INPUT;
    }
    if (plat_out_commit(o, reason) != 0) {
        cli_error("cannot write %s: %s", target, *reason);
        return EXIT_INPUT;
    }
    return 0;
}

static int build_index(const index_state *s, const char *path, const cli_common *c)
{
    if (s->cache && s->output)
        return cli_usage_error("index", "--cache and -o name two places: give one");
    if (strcmp(path, "-") == 0)
        return cli_usage_error("index", "standard input cannot be indexed: give a file");
    gch_index_stamp stamp;
    const char *reason = NULL;
    if (cli_index_stamp(path, c, &stamp, &reason) != 0) {
        cli_error("%s: %s", path, reason);
        return EXIT_INPUT;
    }
    unsigned char head[8];
    plat_file *pf = plat_open(path, &reason);
    int is_index = pf && plat_size(pf) >= 8 && plat_read_at(pf, 0, head, 8) == 0 &&
                   gch_index_is_index(head, 8);
    if (pf)
        plat_close(pf);
    if (is_index) {
        cli_error("%s: is an index already (gcheap index --check verifies one)", path);
        return EXIT_INPUT;
    }
    cli_common parse = *c;
    parse.no_index = 1;
    gch_dump *dump = NULL;
    int rc = cli_load(path, &parse, CLI_LOAD_REFS | CLI_LOAD_LABELS, &dump);
    if (rc)
        return rc;
    gch_analysis *an = NULL;
    gch_error aerr;
    if (gch_analysis_new(dump, NULL, &an, &aerr) != GCH_OK) {
        gch_dump_free(dump);
        cli_error("out of memory");
        return EXIT_INPUT;
    }
    gch_analysis_options ao;
    memset(&ao, 0, sizeof ao);
    ao.threads = cli_threads(c);
    gch_analysis_set_options(an, &ao);
    const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char *target = s->output ? xstrdup(s->output) : cli_index_beside(path);
    rc = s->cache && !s->output ? -1 : write_to(target, an, &stamp, name, &reason);
    if (rc < 0 && !s->output) {
        /* The dump's folder is read-only: the cache. */
        char *cached = cli_index_cache_path(path);
        const char *slash = cached ? strrchr(cached, '/') : NULL;
        if (cached && slash) {
            char *dir = xstrdup(cached);
            dir[slash - cached] = '\0';
            plat_mkdirs(dir);
            free(dir);
            free(target);
            target = cached;
            rc = write_to(target, an, &stamp, name, &reason);
        } else {
            free(cached);
        }
    }
    if (rc < 0) {
        cli_error("cannot write %s: %s", target, reason ? reason : "no cache folder (set HOME or XDG_CACHE_HOME)");
        rc = EXIT_INPUT;
    }
    if (rc == 0)
        fprintf(cli_ctx_get()->out, "%s\n", target);
    free(target);
    gch_analysis_free(an);
    return rc;
}

static int index_report(cli_run *run)
{
    const index_state *s = run->state;
    if (s->check)
        return check_index(run->args[0]);
    return build_index(s, run->args[0], run->c);
}

const cli_spec index_command = {
    .name = "index", .summary = "parse a dump once into an index (DUMP.gcx) later commands use",
    .usage = "usage: gcheap index [OPTIONS] DUMP [-o FILE]\n"
             "       gcheap index --check FILE",
    .description = description, .options = index_options, .state_size = sizeof(index_state),
    .min_args = 1, .max_args = 1, .flags = CLI_NO_LOAD, .report = index_report,
};
