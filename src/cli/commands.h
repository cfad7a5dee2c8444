/* The command table: one line per command, in the order 'gcheap --help'
 * lists them. cmd_NAME.c defines `const cli_spec NAME_command`. Adding a
 * command is a new cmd_NAME.c and one COMMAND(NAME) line here.
 * (Included by main.c with COMMAND defined; no include guard on purpose.) */
COMMAND(info)
COMMAND(stat)
COMMAND(objects)
COMMAND(refs)
COMMAND(roots)
COMMAND(top)
COMMAND(dom)
COMMAND(objsize)
COMMAND(retainers)
COMMAND(diff)
COMMAND(check)
COMMAND(suspects)
COMMAND(waste)
COMMAND(leaks)
COMMAND(report)
COMMAND(index)
COMMAND(shell)
COMMAND(mcp)
