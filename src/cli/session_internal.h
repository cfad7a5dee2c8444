/* What the program's own entry points need of a session beyond session.h. */
#ifndef GCHEAP_CLI_SESSION_INTERNAL_H
#define GCHEAP_CLI_SESSION_INTERNAL_H

#include "gcheap/analysis.h"
#include "session.h"

/* The one-shot program (main): each run loads only what its command needs
 * (references only when it uses them, type totals alone for `stat`: the
 * fastest load) and keeps nothing after the run. A session that answers many
 * questions instead loads a dump with references and labels once and keeps
 * it, with everything derived from it. */
void cli_session_set_one_shot(cli_session *s);

/* The analysis kept for the dump at path (any load options), or NULL: for
 * tests, which count what it built. */
gch_analysis *cli_session_analysis(cli_session *s, const char *path);

/* The command names, in the order `gcheap --help` lists them (NULL-ended). */
const char *const *cli_command_names(void);

#endif
