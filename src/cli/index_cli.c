/* Finding and using a dump's index: see index_cli.h and docs/index-format.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "index_cli.h"
#include "platform.h"
#include "run_ctx.h"
#include "text.h"

/* Bytes of the head and of the tail that the stamp hashes: a dump rewritten
 * in place with its size and mtime kept still shows in its first or last MiB
 * (a header, a trailer, the last records). */
#define STAMP_SPAN (1u << 20)

static int hash_span(plat_file *f, uint64_t off, uint64_t n, uint64_t *out)
{
    unsigned char *buf = xmalloc(n ? (size_t)n : 1);
    int rc = n ? plat_read_at(f, off, buf, n) : 0;
    *out = gch_index_hash(buf, (size_t)n);
    free(buf);
    return rc;
}

gch_index_options cli_index_options(const cli_common *c)
{
    return (gch_index_options){ (uint32_t)c->input_format, (uint32_t)c->size_buckets,
                                (uint32_t)c->module, (uint32_t)c->hprof_refs, (uint32_t)c->v8_raw };
}

int cli_index_same_options(const gch_index_options *a, const gch_index_options *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

int cli_index_stamp(const char *path, const cli_common *c, gch_index_stamp *st,
                    const char **reason)
{
    memset(st, 0, sizeof *st);
    plat_stamp ps;
    if (plat_file_stamp(path, &ps) != 0) {
        *reason = "not a regular file";
        return -1;
    }
    plat_file *f = plat_open(path, reason);
    if (!f)
        return -1;
    uint64_t size = plat_size(f);
    uint64_t span = size < STAMP_SPAN ? size : STAMP_SPAN;
    int rc = hash_span(f, 0, span, &st->head_hash) | hash_span(f, size - span, span, &st->tail_hash);
    plat_close(f);
    if (rc) {
        *reason = "cannot read it";
        return -1;
    }
    st->dump_size = ps.size;
    st->mtime_sec = ps.mtime_sec;
    st->mtime_nsec = ps.mtime_nsec;
    st->options = cli_index_options(c);
    return 0;
}

char *cli_index_beside(const char *path)
{
    size_t n = strlen(path);
    char *p = xmalloc(n + 5);
    memcpy(p, path, n);
    memcpy(p + n, ".gcx", 5);
    return p;
}

char *cli_index_cache_path(const char *path)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    const char *reason;
    char *abs = plat_realpath(path, &reason);
    if (!abs || ((!xdg || xdg[0] != '/') && (!home || !*home))) {
        free(abs);
        return NULL;
    }
    const char *base = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
    uint64_t h = gch_index_hash(abs, strlen(abs));
    strbuf b = STRBUF_INIT;
    if (xdg && xdg[0] == '/')
        sb_addf(&b, "%s/gcheap/", xdg);
    else
        sb_addf(&b, "%s/.cache/gcheap/", home);
    sb_addf(&b, "%s-%016llx.gcx", base, (unsigned long long)h);
    free(abs);
    char *out = xstrdup(sb_str(&b));
    sb_free(&b);
    return out;
}

const char *cli_index_stale(const gch_index_stamp *have, const gch_index_stamp *want)
{
    if (have->dump_size != want->dump_size)
        return "the dump's size changed since it was indexed";
    if (have->mtime_sec != want->mtime_sec || have->mtime_nsec != want->mtime_nsec)
        return "the dump was modified since it was indexed";
    if (have->head_hash != want->head_hash || have->tail_hash != want->tail_hash)
        return "the dump's contents changed since it was indexed";
    if (!cli_index_same_options(&have->options, &want->options))
        return "it was built with other load options (--input-format, --size-buckets, --module, "
               "--hprof-refs, --v8-raw)";
    return NULL;
}

static void note(const cli_common *c, const char *index, const char *why)
{
    if (c->quiet)
        return;
    char safe[1024];
    stderr_printf("gcheap: note: %s not used: %s\n", message_text(index, safe, sizeof safe), why);
}

/* Loads the index at ipath: 0 with *out, or -1 with the reason in msg (an
 * absent file: msg empty). want: the stamp to match; with options_only (the
 * .gcx given as DUMP) only its load options. */
static int from_index(const char *ipath, const gch_index_stamp *want, int options_only, int need,
                      unsigned threads, gch_dump **out, char *msg, size_t cap)
{
    msg[0] = '\0';
    const void *data;
    uint64_t size;
    const char *reason;
    plat_mapping *m = plat_mapping_open(ipath, &data, &size, &reason);
    if (!m)
        return -1;
    gch_index *ix = NULL;
    gch_error err;
    gch_error_clear(&err);
    gch_status st = gch_index_open(data, (size_t)size, &ix, &err);
    const char *stale = NULL;
    if (st == GCH_OK) {
        gch_index_stamp w = *want;
        if (options_only) { /* the dump is whatever the index was made of */
            const gch_index_stamp *have = gch_index_stamp_of(ix);
            w.dump_size = have->dump_size;
            w.mtime_sec = have->mtime_sec;
            w.mtime_nsec = have->mtime_nsec;
            w.head_hash = have->head_hash;
            w.tail_hash = have->tail_hash;
        }
        stale = cli_index_stale(gch_index_stamp_of(ix), &w);
    }
    if (st == GCH_OK && !stale) {
        gch_index_set_threads(ix, threads);
        st = gch_index_load(ix, (need & CLI_LOAD_TYPE_TOTALS) != 0,
                            ((need & CLI_LOAD_LABELS) ? GCH_INDEX_LABELS : 0u) |
                                ((need & CLI_LOAD_REFS_LATER) ? GCH_INDEX_REFS_LATER : 0u) |
                                ((need & CLI_LOAD_NO_TYPE_TOTALS) ? GCH_INDEX_NO_TYPE_TOTALS : 0u) |
                                ((need & CLI_LOAD_REVERSE) ? GCH_INDEX_REVERSE : 0u),
                            plat_mapping_close, m, out, &err);
    }
    if (st == GCH_OK && !stale)
        return 0; /* the dump owns the index and the mapping now */
    gch_index_close(ix);
    plat_mapping_close(m);
    if (stale)
        snprintf(msg, cap, "%s", stale);
    else if (err.has_offset)
        snprintf(msg, cap, "offset %llu: %s", (unsigned long long)err.offset, err.message);
    else
        snprintf(msg, cap, "%s", err.message[0] ? err.message : gch_status_string(st));
    return -1;
}

/* Whether the command needs what only the dump holds: the values (payloads,
 * instance fields) that HPROF and Ruby readers keep on request, and the
 * strings and lengths of a Dart snapshot and the strings of a V8 one when
 * the command reads them (waste, objects --values: payloads without the
 * leak rules' fields, or with waste's); the other formats keep none, and
 * their index serves every command. */
static int needs_the_dump(const gch_dump *d, int need)
{
    if (!(need & (CLI_LOAD_PAYLOADS | CLI_LOAD_FIELDS | CLI_LOAD_RULE_FIELDS)))
        return 0;
    if (strcmp(d->format, "dart") == 0 || strcmp(d->format, "v8") == 0)
        return (need & CLI_LOAD_PAYLOADS) && ((need & CLI_LOAD_FIELDS) || !(need & CLI_LOAD_RULE_FIELDS));
    return strcmp(d->format, "hprof") == 0 || strcmp(d->format, "ruby") == 0;
}

char *cli_index_recorded_dump(const char *ipath, const cli_common *c, char *msg, size_t cap)
{
    snprintf(msg, cap, "its dump is not where it was indexed");
    const void *data;
    uint64_t size;
    const char *reason;
    plat_mapping *m = plat_mapping_open(ipath, &data, &size, &reason);
    if (!m)
        return NULL;
    gch_index *ix = NULL;
    gch_error err;
    gch_error_clear(&err);
    char *found = NULL;
    cli_common no_options;
    memset(&no_options, 0, sizeof no_options);
    if (gch_index_open(data, (size_t)size, &ix, &err) == GCH_OK) {
        size_t n = strlen(ipath);
        const char *slash = strrchr(ipath, '/');
        size_t dir = slash ? (size_t)(slash - ipath) + 1 : 0;
        const char *name = gch_index_dump_name(ix);
        char *cand[2] = { NULL, NULL };
        if (n > 4 && strcmp(ipath + n - 4, ".gcx") == 0) {
            cand[0] = xstrdup(ipath);
            cand[0][n - 4] = '\0';
        }
        if (name[0] && !strchr(name, '/')) {
            strbuf b = STRBUF_INIT;
            sb_addf(&b, "%.*s%s", (int)dir, ipath, name);
            cand[1] = xstrdup(sb_str(&b));
            sb_free(&b);
        }
        for (int i = 0; i < 2 && !found; i++) {
            gch_index_stamp now;
            plat_stamp ps;
            if (!cand[i] || plat_file_stamp(cand[i], &ps) != 0 ||
                cli_index_stamp(cand[i], c ? c : &no_options, &now, &reason) != 0)
                continue;
            if (!c) /* options as recorded: the load compared them */
                now.options = gch_index_stamp_of(ix)->options;
            const char *stale = cli_index_stale(gch_index_stamp_of(ix), &now);
            if (stale)
                snprintf(msg, cap, "its dump %s: %s", cli_display_path(cand[i]), stale);
            else
                found = cand[i], cand[i] = NULL;
        }
        free(cand[0]);
        free(cand[1]);
    }
    gch_index_close(ix);
    plat_mapping_close(m);
    return found;
}

/* A .gcx given as DUMP to a command that reads values only the dump holds:
 * the dump it was built from answers, when it is still where it was indexed
 * and unchanged (the same output as given the dump); otherwise an error. */
static int from_recorded_dump(const char *ipath, const cli_common *c, int need, gch_dump **out)
{
    char msg[600];
    char *dump = cli_index_recorded_dump(ipath, c, msg, sizeof msg);
    if (!dump) {
        cli_error("%s: this command reads values from the dump itself, and %s: give the dump",
                  cli_display_path(ipath), msg);
        return EXIT_INPUT;
    }
    cli_common parse = *c;
    parse.no_index = 1;
    int rc = cli_load(dump, &parse, need, out);
    free(dump);
    return rc ? rc : 1;
}

int cli_index_starts_like(const char *path)
{
    const char *reason;
    plat_file *f = plat_open(path, &reason);
    if (!f)
        return 0;
    unsigned char head[8];
    int is = plat_size(f) >= 8 && plat_read_at(f, 0, head, 8) == 0 && gch_index_is_index(head, 8);
    plat_close(f);
    return is;
}

int cli_index_load(const char *path, const cli_common *c, int need, gch_dump **out)
{
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return 0;
    char msg[512];
    if (cli_index_starts_like(path)) {
        gch_index_stamp opts;
        memset(&opts, 0, sizeof opts);
        opts.options = cli_index_options(c);
        if (from_index(path, &opts, 1, need, cli_threads(c), out, msg, sizeof msg) != 0) {
            cli_error("%s: %s", path, msg[0] ? msg : "cannot be read");
            return EXIT_INPUT;
        }
        if (!needs_the_dump(*out, need))
            return 1;
        gch_dump_free(*out);
        *out = NULL;
        return from_recorded_dump(path, c, need, out);
    }
    if (c->no_index)
        return 0;
    gch_index_stamp want;
    const char *reason;
    int stamped = 0;
    char *where[2] = { cli_index_beside(path), cli_index_cache_path(path) };
    int served = 0;
    for (int i = 0; i < 2 && !served; i++) {
        plat_stamp ps;
        if (!where[i] || plat_file_stamp(where[i], &ps) != 0)
            continue; /* no index there: the dump's stamp is not even read */
        if (!stamped && cli_index_stamp(path, c, &want, &reason) != 0)
            break; /* the dump's own load says what is wrong */
        stamped = 1;
        if (from_index(where[i], &want, 0, need, cli_threads(c), out, msg, sizeof msg) != 0) {
            if (msg[0])
                note(c, where[i], msg);
        } else if (needs_the_dump(*out, need)) {
            gch_dump_free(*out); /* values are read from the dump: parse it */
            *out = NULL;
            break;
        } else {
            served = 1;
        }
    }
    free(where[0]);
    free(where[1]);
    return served;
}
