/* gcheap mcp: the Model Context Protocol server on standard input/output
 * (src/mcp), with the commands run in one session (session.h) so that dumps
 * stay loaded between calls. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mcp_server.h"
#include "platform.h"
#include "session.h"

#ifndef GCHEAP_VERSION
#define GCHEAP_VERSION "dev"
#endif

#define MAX_ALLOW 64

typedef struct mcp_state {
    const char *allow[MAX_ALLOW];
    size_t nallow;
    uint64_t max_memory;
    int max_memory_given;
} mcp_state;

static int add_allow(void *state, const char *command, const char *option, const char *value)
{
    (void)option;
    mcp_state *s = state;
    if (s->nallow == MAX_ALLOW)
        return cli_usage_error(command, "--allow: at most %d folders", MAX_ALLOW);
    s->allow[s->nallow++] = value;
    return 0;
}

static const cli_option mcp_options[] = {
    OPT_CALLBACK(0, "allow", add_allow, "DIR",
                 "read and write only under DIR (repeatable; default the current folder)"),
    OPT_SIZE_GIVEN(0, "max-memory", mcp_state, max_memory, max_memory_given, "SIZE",
                   "keep loaded dumps within SIZE (least recently used dropped first)"),
    OPT_END
};

static int run_in_session(void *ctx, int argc, char **argv, FILE *out, FILE *err)
{
    return cli_session_run(ctx, argc, argv, out, err);
}

static int mcp_report(cli_run *run)
{
    mcp_state *st = run->state;
    FILE *proto = plat_protocol_stdout();
    if (!proto) {
        cli_error("mcp: cannot set up standard output");
        return EXIT_INPUT;
    }
    cli_session *session = cli_session_new();
    if (!session)
        die("out of memory");
    if (st->max_memory_given)
        cli_session_set_limit(session, st->max_memory > SIZE_MAX ? SIZE_MAX : (size_t)st->max_memory);
    size_t nspecs;
    const cli_spec *const *specs = cli_command_list(&nspecs);
    mcp_config cfg = {
        .specs = specs, .nspecs = nspecs, .common = cli_common_options(),
        .run = run_in_session, .run_ctx = session,
        .realpath = plat_realpath, .memstream = plat_memstream,
        .allow = st->allow, .nallow = st->nallow, .version = GCHEAP_VERSION, .log = stderr,
    };
    strbuf why = STRBUF_INIT;
    mcp_server *server = mcp_server_new(&cfg, &why);
    int rc = EXIT_INPUT;
    if (!server) {
        cli_error("mcp: %s", sb_str(&why));
    } else {
        rc = mcp_server_serve(server, stdin, proto);
        mcp_server_free(server);
    }
    sb_free(&why);
    cli_session_free(session);
    fclose(proto);
    return rc;
}

static const char description[] =
    "A Model Context Protocol server on standard input and output (JSON-RPC 2.0, one\n"
    "message per line; revisions 2025-06-18 and 2025-11-25) for AI agents and MCP hosts.\n"
    "One tool per command (info, stat, top, retainers, ...): each takes 'dump' (diff:\n"
    "'base', 'new'; leaks: 'dumps'; report: 'dump' or 'dumps') and the command's\n"
    "options named like the long options with '-' as '_'; the result is the command's\n"
    "--format json document, its rows paged by 'limit' (default 100) and 'cursor'.\n"
    "Dumps stay loaded between calls.\n"
    "Paths must lie inside the --allow folders (and the client's roots, when it declares\n"
    "them); '..' and symlinks that leave them are refused. Diagnostics go to stderr;\n"
    "end of input ends the server with status 0. See docs/mcp.md.";

const cli_spec mcp_command = {
    .name = "mcp", .summary = "serve the commands to AI agents (Model Context Protocol, stdio)",
    .usage = "usage: gcheap mcp [--allow DIR]... [--max-memory SIZE]", .description = description,
    .options = mcp_options, .state_size = sizeof(mcp_state), .min_args = 0, .max_args = 0,
    .too_many = "no arguments: the client sends the dump paths", .flags = CLI_NO_LOAD,
    .report = mcp_report,
};
