/* fuzz_mcp: the MCP server's message handling on arbitrary bytes: the input
 * is split into lines, each fed to one server (so state carries over: an
 * initialize that declares roots, the roots' answer, queued requests). The
 * commands are a test table whose runner answers with a json document made
 * of its argv (paging, summaries and the argv building all run); paths are
 * judged by a pure function (no file system): a path is "real" when it starts
 * with /fz. Must hold: no crash, no sanitizer report, no leak, and every
 * answer is one line.
 * Seeds: tests/fuzz/seeds/mcp/ (requests of every kind, one per line). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp_server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_state { int flag; uint64_t n; int word; const char *file; } fz_state;
static const char *const words[] = { "a", "b", NULL };
static const cli_option fz_options[] = {
    OPT_BOOL(0, "flag", fz_state, flag, "a flag"),
    OPT_UINT(0, "count", fz_state, n, "N", 1, 100, "a number"),
    OPT_ENUM(0, "word", fz_state, word, words, "word", "W", "a word"),
    OPT_STRING('o', "output", fz_state, file, "FILE", "a file"),
    OPT_END
};
static const char *const keys[] = { "size", NULL };
static const cli_spec fz_one = { .name = "one", .summary = "s", .usage = "usage: gcheap one [OPTIONS] DUMP ID...",
                                 .description = "", .options = fz_options, .sort_keys = keys, .min_args = 1,
                                 .max_args = -1 };
static const cli_spec fz_two = { .name = "two", .summary = "s", .usage = "usage: gcheap two [OPTIONS] BASE NEW",
                                 .description = "", .min_args = 2, .max_args = 2 };
static const cli_spec fz_many = { .name = "many", .summary = "s",
                                  .usage = "usage: gcheap many [OPTIONS] DUMP1 DUMP2 [DUMP3 ...]",
                                  .description = "", .min_args = 2, .max_args = -1 };
static const cli_spec fz_report = { .name = "report", .summary = "s", .usage = "usage: gcheap report [OPTIONS] DUMP [-o FILE]",
                                    .description = "", .options = fz_options, .min_args = 1, .max_args = 2 };
static const cli_spec *const specs[] = { &fz_one, &fz_two, &fz_many, &fz_report };

/* Rows from the argv; "fail" anywhere is an input error. */
static int fz_run(void *ctx, int argc, char **argv, FILE *out, FILE *err)
{
    (void)ctx;
    for (int i = 0; i < argc; i++)
        if (strstr(argv[i], "fail")) {
            fprintf(err, "gcheap: %s: failed\n", argv[i]);
            return 2;
        }
    fprintf(out, "{\"command\":\"%s\",\"sections\":[{\"domain\":\"x\",\"rows\":[", argv[0]);
    for (int i = 0; i < argc; i++) {
        fprintf(out, "%s{\"id\":\"%d\",\"type\":\"", i ? "," : "", i);
        for (const char *p = argv[i]; *p; p++)
            fprintf(out, (unsigned char)*p < 0x20 || *p == '"' || *p == '\\' ? "\\u%04x" : "%c", (unsigned char)*p);
        fprintf(out, "\"}");
        if (i == argc / 2)
            fprintf(out, "]},{\"domain\":\"y\",\"rows\":[");
    }
    fprintf(out, "]}]}");
    return argc % 7 == 0;
}

static char *fz_realpath(const char *path, const char **reason)
{
    if (strncmp(path, "/fz", 3) != 0 || strstr(path, "..")) {
        *reason = "No such file or directory";
        return NULL;
    }
    char *r = malloc(strlen(path) + 1);
    if (r)
        strcpy(r, path);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const allow[] = { "/fz" };
    mcp_config cfg = { .specs = specs, .nspecs = 4, .common = cli_common_options(), .run = fz_run,
                       .realpath = fz_realpath, .memstream = open_memstream, .allow = allow, .nallow = 1,
                       .max_message = 4096, .version = "fuzz" };
    strbuf why = STRBUF_INIT;
    mcp_server *s = mcp_server_new(&cfg, &why);
    sb_free(&why);
    if (!s)
        abort();
    FILE *sink = fopen("/dev/null", "w");
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (len > cfg.max_message)
            mcp_server_oversized(s, sink);
        else
            mcp_server_feed(s, p, len, sink);
        p += len + 1;
    }
    fclose(sink);
    mcp_server_free(s);
    return 0;
}
