/* TEMPORARY (helper mcp, until h-core's session is merged; this file is then
 * deleted): cli_session_run as a child process per command line, so that the
 * MCP server can be written and tested against session.h. It keeps nothing
 * loaded between calls. */
#define _POSIX_C_SOURCE 200809L
#include "session.h"
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const cli_spec *cli_find_command(const char *name);

struct cli_session { size_t limit; };

cli_session *cli_session_new(void) { return calloc(1, sizeof(cli_session)); }
void cli_session_free(cli_session *s) { free(s); }
size_t cli_session_memory(const cli_session *s) { (void)s; return 0; }
void cli_session_set_limit(cli_session *s, size_t max_bytes) { s->limit = max_bytes; }

static void copy_out(FILE *from, FILE *to)
{
    char buf[65536];
    size_t n;
    rewind(from);
    while ((n = fread(buf, 1, sizeof buf, from)) > 0)
        fwrite(buf, 1, n, to);
    fclose(from);
}

int cli_session_run(cli_session *s, int argc, char **argv, FILE *out, FILE *err)
{
    (void)s;
    const cli_spec *spec = argc > 0 ? cli_find_command(argv[0]) : NULL;
    if (!spec) {
        fprintf(err, "gcheap: unknown command\n");
        return 2;
    }
    FILE *o = tmpfile(), *e = tmpfile();
    if (!o || !e)
        return 2;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(o), 1);
        dup2(fileno(e), 2);
        int rc = cli_run_command(spec, argc, argv);
        fflush(NULL);
        _exit(rc);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        status = 2 << 8;
    copy_out(o, out);
    copy_out(e, err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
