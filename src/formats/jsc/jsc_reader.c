/* The JavaScriptCore heap snapshot reader (Safari Web Inspector's exported
 * .json, Bun's Bun.generateHeapSnapshot()): the entry points. The format
 * and how it maps onto the heap model: docs/jsc-format.md; the reading in
 * jsc_parse.c, the graph in jsc_graph.c. From a source the input is
 * streamed through the JSON tokenizer (never held whole): the flat arrays
 * it holds are about the size of the numbers in the input.
 */
#include "gcheap/alloc.h"
#include "gcheap/load.h"
#include "jsc_internal.h"

static void strings_free(jsc_strings *l)
{
    gch_free(l->pool.s);
    gch_free(l->off);
}

void jsc_snapshot_free(jsc_snapshot *s)
{
    gch_json_free(&s->in);
    gch_free(s->n_id);
    gch_free(s->n_size);
    gch_free(s->n_class);
    gch_free(s->n_flags);
    gch_free(s->e_from);
    gch_free(s->e_to);
    gch_free(s->e_data);
    gch_free(s->e_type);
    gch_free(s->r_node);
    gch_free(s->r_reason);
    gch_free(s->r_reach);
    strings_free(&s->class_names);
    strings_free(&s->edge_types);
    strings_free(&s->edge_names);
    strings_free(&s->labels);
}

static gch_status read_all(jsc_snapshot *s, gch_dump **out)
{
    gch_status st = jsc_parse(s);
    if (st == GCH_OK)
        st = jsc_build(s, out);
    jsc_snapshot_free(s);
    return st;
}

gch_status gch_read_jsc_buffer(const void *data, size_t size, const gch_load_options *opts,
                               gch_dump **out, gch_error *err)
{
    static const gch_load_options none = { 0 };
    jsc_snapshot s = { 0 };
    *out = NULL;
    gch_error_clear(err);
    s.opts = opts ? opts : &none;
    s.err = err;
    gch_json_init_buffer(&s.in, data, size, s.opts, err);
    return read_all(&s, out);
}

gch_status gch_read_jsc(const gch_source *src, const gch_load_options *opts, gch_dump **out,
                        gch_error *err)
{
    static const gch_load_options none = { 0 };
    jsc_snapshot s = { 0 };
    *out = NULL;
    gch_error_clear(err);
    s.opts = opts ? opts : &none;
    s.err = err;
    gch_status st = gch_json_init_source(&s.in, src, s.opts, err);
    if (st != GCH_OK) {
        jsc_snapshot_free(&s);
        return st;
    }
    return read_all(&s, out);
}
