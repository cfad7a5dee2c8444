/* Helpers of the "why is it alive" commands: see why.h. */
#include "why.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcheap/limits.h"
#include "typepat.h"

int why_type_matches(const gch_heap *h, uint32_t t, const char *pattern, const cli_common *c)
{
    const char *full = gch_type_name(h, t);
    char buf[8192];
    const char *shown = cli_type_name(h, t, c, buf, sizeof buf);
    /* The same patterns as diff/check limits (typepat.h). */
    return typepat_match(pattern, full) || typepat_match(pattern, shown);
}

void why_free_masks(uint8_t **masks, size_t nheaps)
{
    if (!masks)
        return;
    for (size_t k = 0; k < nheaps; k++)
        free(masks[k]);
    free(masks);
}

int why_match_types(const char *cmd, const char *path, gch_heap **heaps, size_t nheaps,
                    const char *pattern, const cli_common *c, uint8_t ***masks_out)
{
    uint8_t **masks = xcalloc(nheaps, sizeof *masks);
    uint64_t matched = 0;
    for (size_t k = 0; k < nheaps; k++) {
        const gch_heap *h = heaps[k];
        masks[k] = xcalloc(h->type_count, 1);
        for (uint32_t t = 0; t < h->type_count; t++)
            if (why_type_matches(h, t, pattern, c)) {
                masks[k][t] = 1;
                matched++;
            }
    }
    if (!matched) {
        typepat_suggest sg;
        typepat_suggest_init(&sg, pattern);
        char hint[2048], pat[1024];
        for (size_t k = 0; k < nheaps; k++)
            for (uint32_t t = 0; t < heaps[k]->type_count; t++)
                typepat_consider(&sg, gch_type_name(heaps[k], t));
        cli_error("%s: %s: no type matches '%s'%s", cmd, cli_display_path(path),
                  message_text(pattern, pat, sizeof pat), typepat_text(&sg, hint, sizeof hint));
        why_free_masks(masks, nheaps);
        *masks_out = NULL;
        return EXIT_INPUT;
    }
    *masks_out = masks;
    return 0;
}

int why_instances(const gch_heap *h, const uint8_t *mask, uint32_t **out, size_t *count)
{
    size_t n = 0;
    for (uint32_t o = 0; o < h->object_count; o++)
        n += mask[h->object_type[o]] != 0;
    uint32_t *v = xmalloc_array(n, sizeof *v);
    size_t k = 0;
    for (uint32_t o = 0; o < h->object_count; o++)
        if (mask[h->object_type[o]])
            v[k++] = o;
    *out = v;
    *count = n;
    return 0;
}

int why_resolve_ids(const char *cmd, const cli_input *in, const char *const *ids, size_t nids,
                    uint32_t **found)
{
    const char *path = in->path;
    gch_heap **heaps = in->heaps;
    size_t nheaps = in->count;
    *found = NULL;
    int radix = nheaps ? heaps[0]->id_radix : 16;
    uint64_t *raw = xmalloc_array(nids, sizeof *raw);
    uint32_t *f = xmalloc_array(nheaps, nids * sizeof *f);
    for (size_t i = 0; i < nids; i++) {
        if (cli_parse_id(ids[i], radix, &raw[i]) != 0) {
            cli_error("%s: %s: bad object id '%s' (%s)", cmd, cli_display_path(path), ids[i],
                      radix == 10 ? "a decimal number" : "hexadecimal, 0x optional");
            goto fail;
        }
    }
    /* The loaded heap's id lookup: O(log objects) an id, kept for the next
     * question. */
    for (size_t k = 0; k < nheaps; k++) {
        for (size_t i = 0; i < nids; i++) {
            gch_error err;
            if (gch_analysis_find(in->an, heaps[k], raw[i], &f[k * nids + i], &err) != GCH_OK) {
                cli_error("%s", err.message);
                goto fail;
            }
        }
    }
    for (size_t i = 0; i < nids; i++) {
        int any = 0;
        for (size_t k = 0; k < nheaps && !any; k++)
            any = f[k * nids + i] != GCH_NONE;
        if (!any) {
            cli_error("%s: %s: no object with id %s", cmd, cli_display_path(path), ids[i]);
            goto fail;
        }
    }
    free(raw);
    *found = f;
    return 0;
fail:
    free(raw);
    free(f);
    return EXIT_INPUT;
}

const char *why_ref_label(const gch_heap *h, uint32_t from, uint32_t to)
{
    if (!h->out_label)
        return "";
    for (uint32_t e = h->out_start[from]; e < h->out_start[from + 1]; e++)
        if (h->out_target[e] == to)
            return gch_heap_string(h, h->out_label[e]);
    return "";
}

uint64_t why_top(const cli_common *c, uint64_t table_default)
{
    if (c->top != UINT64_MAX)
        return c->top;
    return c->format == FMT_TABLE ? table_default : UINT64_MAX;
}

const char *why_indent(uint64_t depth, char *buf, size_t cap)
{
    size_t n = depth <= 32 ? (size_t)depth * 2 : 64;
    if (n >= cap)
        n = cap - 1;
    memset(buf, ' ', n);
    buf[n] = '\0';
    if (depth > 32)
        snprintf(buf + n, cap - n, "[%" PRIu64 "] ", depth);
    return buf;
}

int why_check_target_args(const cli_run *run, const char *type)
{
    const char *cmd = run->spec->name;
    if (!type && run->nargs < 2)
        return cli_usage_error(cmd, "give at least one object ID, or --type NAME");
    if (type && run->nargs > 1)
        return cli_usage_error(cmd, "give object IDs or --type NAME, not both");
    /* The IDs' syntax is checked before the dump is loaded (a typo costs no
     * load); hexadecimal covers the decimal ids of Dart too. */
    for (int i = 1; i < run->nargs; i++) {
        uint64_t v;
        if (cli_parse_id(run->args[i], 16, &v) != 0) {
            return cli_bad_id(cmd, run->args[i]);
        }
    }
    return 0;
}

int why_targets_find(const cli_run *run, const char *type, why_targets *t)
{
    const char *cmd = run->spec->name;
    const cli_input *in = &run->in[0];
    memset(t, 0, sizeof *t);
    t->nheaps = in->count;
    t->nids = type ? 0 : (size_t)run->nargs - 1;
    int rc = type ? why_match_types(cmd, in->path, in->heaps, in->count, type, run->c, &t->masks)
                  : why_resolve_ids(cmd, in, run->args + 1, t->nids,
                                    &t->found);
    if (rc)
        return rc;
    t->used = xcalloc(in->count, 1);
    for (size_t k = 0; k < in->count; k++) {
        for (size_t i = 0; i < t->nids; i++)
            t->used[k] |= t->found[k * t->nids + i] != GCH_NONE;
        for (uint32_t ty = 0; t->masks && ty < in->heaps[k]->type_count; ty++)
            t->used[k] |= t->masks[k][ty];
        t->nused += t->used[k];
    }
    return 0;
}

void why_targets_free(why_targets *t)
{
    free(t->found);
    why_free_masks(t->masks, t->nheaps);
    free(t->used);
    memset(t, 0, sizeof *t);
}
