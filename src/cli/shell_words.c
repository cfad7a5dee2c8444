/* See shell_words.h. Two passes over the line: the words are at most as long
 * as the line, and at most (length + 1) / 2 + 1 of them, so one block holds
 * the pointers and the text. */
#include "shell_words.h"

#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static int blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

int shell_split(const char *line, char ***words, int *count, const char **error)
{
    size_t len = strlen(line), most = len / 2 + 2;
    char **w = xmalloc(most * sizeof *w + len + 1);
    char *text = (char *)(w + most), *t = text;
    int n = 0;
    const char *p = line;
    *words = NULL;
    *count = 0;
    for (;;) {
        while (blank(*p))
            p++;
        if (!*p || *p == '#')
            break;
        w[n++] = t;
        while (*p && !blank(*p)) {
            char c = *p++;
            if (c == '\'') {
                while (*p && *p != '\'')
                    *t++ = *p++;
                if (!*p++) {
                    *error = "unterminated single quote";
                    free(w);
                    return -1;
                }
            } else if (c == '"') {
                while (*p && *p != '"') {
                    if (*p == '\\' && p[1] && strchr("\"\\$`", p[1]))
                        p++;
                    *t++ = *p++;
                }
                if (!*p++) {
                    *error = "unterminated double quote";
                    free(w);
                    return -1;
                }
            } else if (c == '\\') {
                if (!*p || *p == '\n') {
                    *error = "backslash at the end of the line";
                    free(w);
                    return -1;
                }
                *t++ = *p++;
            } else {
                *t++ = c;
            }
        }
        *t++ = '\0';
    }
    w[n] = NULL;
    *words = w;
    *count = n;
    return 0;
}
