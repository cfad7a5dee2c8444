/* The sample V8 heap snapshot of the tests: see v8_sample.h. */
#include "v8_sample.h"

#include <stddef.h>

/* The sample graph.
 *
 *  0 synthetic ""            id 1  -> [1] 1, .global 12 (shortcut from the root: holds)
 *  1 synthetic "(GC roots)"  id 3  -> [0] 2, {strong roots} 3
 *  2 object Leaky     32     id 5  -> .payload 4, ["my label"] 5, weak 7 (dropped), context ctx 6
 *  3 object Leaky     32     id 7  -> shortcut x 2 (not from the root: dropped), {4} 8 (hidden)
 *  4 array ""        100     id 9
 *  5 string         24       id 11 (name: hello "world" + newline)
 *  6 object "Ключ 😀" 16      id 13
 *  7 object "Held weakly" 40 id 15 (only a weak edge: a weak root)
 *  8 hidden "system / Foo" 8 id 17 -> (system)
 *  9 code "foo"      50      id 19 -> (compiled code)
 * 10 closure "bar"   64      id 21 -> (closure)
 * 11 object ""        8      id 23 -> (no name)
 * 12 object Global   40      id 25 -> {code} 9, .fn 10, [7] 11
 */
static const v8w_node sample_nodes[] = {
    { "synthetic", "", 1, 0, 0 },          { "synthetic", "(GC roots)", 3, 0, 0 },
    { "object", "Leaky", 5, 32, 0 },        { "object", "Leaky", 7, 32, 2 },
    { "array", "", 9, 100, 0 },             { "string", "hello \"world\"\n", 11, 24, 0 },
    { "object", "\xd0\x9a\xd0\xbb\xd1\x8e\xd1\x87 \xf0\x9f\x98\x80", 13, 16, 1 },
    { "object", "Held weakly", 15, 40, 0 }, { "hidden", "system / Foo", 17, 8, 0 },
    { "code", "foo", 19, 50, 0 },           { "closure", "bar", 21, 64, 0 },
    { "object", "", 23, 8, 0 },             { "object", "Global", 25, 40, 0 },
};
static const v8w_edge sample_edges[] = {
    { 0, 1, "element", NULL, 1 },     { 0, 12, "shortcut", "global", 0 },
    { 1, 2, "element", NULL, 0 },     { 1, 3, "internal", "strong roots", 0 },
    { 2, 4, "property", "payload", 0 }, { 2, 5, "property", "my label", 0 },
    { 2, 7, "weak", "cache", 0 },     { 2, 6, "context", "ctx", 0 },
    { 3, 2, "shortcut", "x", 0 },     { 3, 8, "hidden", NULL, 4 },
    { 12, 9, "internal", "code", 0 }, { 12, 10, "property", "fn", 0 },
    { 12, 11, "element", NULL, 7 },
};

/* The model, by hand: per object "id type size: ->label target ...", then roots. */
const char v8_sample_model[] =
    "1 (synthetic) 0: [1]->3 .global->25\n"
    "3 (synthetic) 0: [0]->5 {strong roots}->7\n"
    "5 Leaky 32: .payload->9 [\"my label\"]->11 context ctx->13\n"
    "7 Leaky 32: {4}->17\n"
    "9 (array) 100:\n"
    "11 (string) 24:\n"
    "13 \xd0\x9a\xd0\xbb\xd1\x8e\xd1\x87 \xf0\x9f\x98\x80 16:\n"
    "15 Held weakly 40:\n"
    "17 (system) 8:\n"
    "19 (compiled code) 50:\n"
    "21 (closure) 64:\n"
    "23 (no name) 8:\n"
    "25 Global 40: {code}->19 .fn->21 [7]->23\n"
    "root 1 internal 0 synthetic root\n"
    "root 15 internal 2 only weak retainers\n";

char *v8_sample_write(int variant, size_t *len)
{
    v8w_spec sp = { sample_nodes, sizeof sample_nodes / sizeof *sample_nodes, sample_edges,
                    sizeof sample_edges / sizeof *sample_edges,
                    variant & 1, (variant >> 1) & 1, (variant >> 2) & 1, (variant >> 3) & 1, (variant >> 4) & 1 };
    return v8w_write(&sp, len);
}
