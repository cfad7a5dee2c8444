/* A session: any number of command runs in one process over dumps that stay
 * loaded between them (the shell, the MCP server; the one-shot program is a
 * session with one run).
 *
 * Ownership: the session owns the dumps it keeps and everything derived from
 * them; cli_session_free releases all of it. Nothing a run returns points into
 * the session. Errors: a run never exits and never writes to stdout/stderr
 * itself; its error message goes to `err` and its status is returned. */
#ifndef GCHEAP_CLI_SESSION_H
#define GCHEAP_CLI_SESSION_H

#include <stddef.h>
#include <stdio.h>

typedef struct cli_session cli_session;

cli_session *cli_session_new(void); /* NULL on out of memory */
void cli_session_free(cli_session *s);
/* Runs one command line (argv[0] = the command name, as typed after 'gcheap') in the session: the
 * dumps it names are loaded once and kept with their derived structures (keyed by path and by the load
 * options that change meaning; reloaded when the file's size or mtime changed). What the CLI would print
 * on stdout goes to `out`, what it would print on stderr (messages, warnings) to `err`. Returns the exit
 * status (0/1/2). Never exits, never touches stdout/stderr itself. */
int cli_session_run(cli_session *s, int argc, char **argv, FILE *out, FILE *err);
/* Bytes held by kept dumps; a limit drops the least recently used dump first. */
size_t cli_session_memory(const cli_session *s);
void cli_session_set_limit(cli_session *s, size_t max_bytes);

#endif
