/* Splitting a command line into words as a shell's basic quoting does, for
 * `gcheap shell`. */
#ifndef GCHEAP_CLI_SHELL_WORDS_H
#define GCHEAP_CLI_SHELL_WORDS_H

#include <stddef.h>

/* Splits line into words: blanks (space, tab, CR, LF) separate words;
 * 'single quotes' keep everything up to the next ' as it is; "double quotes"
 * keep everything but a backslash before " \ $ ` (the backslash goes); a
 * backslash outside quotes keeps the next character as it is; an unquoted #
 * at the start of a word begins a comment to the end of the line. ''/"" make
 * an empty word.
 * On success returns 0 with *words (NULL-terminated, *count of them) in one
 * malloc'd block: free(*words) frees all. Returns -1 with *error set (static
 * text) on an unterminated quote or a backslash at the end of the line. */
int shell_split(const char *line, char ***words, int *count, const char **error);

#endif
