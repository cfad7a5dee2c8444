/* An independent oracle of retained sizes for JavaScriptCore heap snapshots
 * (Inspector type: integer arrays), for tests/cli/test_jsc_bun.sh.
 *
 * By the definition, not by a dominator algorithm: the retained size of v
 * is the bytes that no longer reach from the start set when v is taken
 * out. The start set is the nodes the <root> node (id 0) has edges to, and
 * with "weak" also every node not reachable from <root> (Web Inspector hangs
 * those under <root>; gcheap makes them weak roots, strong with
 * --include-weak). Every edge counts (Web Inspector ignores none). Quadratic:
 * for test-sized snapshots only.
 *   jsc_dom_oracle SNAPSHOT.json [weak]  ->  "id<TAB>retained" per reachable node
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long *read_ints(const char *text, const char *key, size_t *n)
{
    const char *p = strstr(text, key);
    if (!p || !(p = strchr(p, '[')))
        return NULL;
    size_t cap = 1024, len = 0;
    unsigned long long *v = malloc(cap * sizeof *v);
    for (p++; *p && *p != ']';) {
        char *end;
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p) {
            p++;
            continue;
        }
        if (len == cap)
            v = realloc(v, (cap *= 2) * sizeof *v);
        v[len++] = x;
        p = end;
    }
    *n = len;
    return v;
}

static size_t nn, ne;
static unsigned long long *nodes, *edges;
static size_t *from, *to, *first; /* edges by node position (CSR) */
static size_t *stack;

static size_t pos_of(unsigned long long id)
{
    for (size_t i = 0; i < nn; i++) /* quadratic by design: simple */
        if (nodes[4 * i] == id)
            return i;
    return (size_t)-1;
}

/* Bytes reachable from the starts without passing through `out`; marks seen. */
static unsigned long long reach(const unsigned char *start, size_t out, unsigned char *seen)
{
    unsigned long long bytes = 0;
    size_t top = 0;
    memset(seen, 0, nn);
    for (size_t i = 0; i < nn; i++)
        if (start[i] && i != out) {
            seen[i] = 1;
            stack[top++] = i;
        }
    while (top) {
        size_t v = stack[--top];
        bytes += nodes[4 * v + 1];
        for (size_t k = first[v]; k < first[v + 1]; k++) {
            size_t t = to[k];
            if (t != out && !seen[t]) {
                seen[t] = 1;
                stack[top++] = t;
            }
        }
    }
    return bytes;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    if (fread(text, 1, (size_t)size, f) != (size_t)size)
        return 2;
    text[size] = 0;
    fclose(f);
    int weak = argc > 2 && strcmp(argv[2], "weak") == 0;
    nodes = read_ints(text, "\"nodes\"", &nn);
    edges = read_ints(text, "\"edges\"", &ne);
    if (!nodes || !edges)
        return 2;
    nn /= 4;
    ne /= 4;
    from = malloc((ne + 1) * sizeof *from);
    to = malloc((ne + 1) * sizeof *to);
    first = calloc(nn + 2, sizeof *first);
    stack = malloc((nn + 1) * sizeof *stack);
    unsigned char *start = calloc(nn, 1), *seen = calloc(nn, 1), *base = calloc(nn, 1);
    size_t root = pos_of(0);
    for (size_t e = 0; e < ne; e++) {
        from[e] = pos_of(edges[4 * e]);
        to[e] = pos_of(edges[4 * e + 1]);
        if (from[e] == root && to[e] != (size_t)-1)
            start[to[e]] = 1;
        if (from[e] != (size_t)-1 && from[e] != root && to[e] != (size_t)-1 && to[e] != root)
            first[from[e] + 1]++;
    }
    for (size_t i = 0; i < nn; i++)
        first[i + 1] += first[i];
    size_t *fill = calloc(nn + 1, sizeof *fill), *targets = malloc((ne + 1) * sizeof *targets);
    for (size_t e = 0; e < ne; e++)
        if (from[e] != (size_t)-1 && from[e] != root && to[e] != (size_t)-1 && to[e] != root)
            targets[first[from[e]] + fill[from[e]]++] = to[e];
    free(to);
    to = targets;
    if (weak) { /* the nodes <root> does not reach start too */
        reach(start, (size_t)-1, seen);
        for (size_t i = 0; i < nn; i++)
            if (!seen[i] && i != root)
                start[i] = 1;
    }
    unsigned long long all = reach(start, (size_t)-1, base);
    for (size_t v = 0; v < nn; v++) {
        if (v == root || !base[v])
            continue;
        unsigned long long rest = reach(start, v, seen);
        printf("%llu\t%llu\n", nodes[4 * v], all - rest);
    }
    free(text);
    free(nodes);
    free(edges);
    free(from);
    free(targets);
    free(first);
    free(stack);
    free(fill);
    free(start);
    free(seen);
    free(base);
    return fflush(stdout) == 0 ? 0 : 2;
}
