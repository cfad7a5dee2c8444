/* Metadata lines for `gcheap info` from a .gcdump, and the small text helpers
 * of the .gcdump reader (tick formatting, size-bucket stripping). */
#include <stdio.h>
#include <string.h>

#include "civil_time.h"
#include "gcdump_graph.h"

/* ---- ticks ---- */

#define TICKS_PER_SECOND 10000000LL
#define TICKS_VALUE_MASK 0x3FFFFFFFFFFFFFFFLL /* the top 2 bits hold DateTimeKind */
#define DAYS_0001_TO_1970 719162LL

void gcd_format_ticks(int64_t ticks, char *buf, size_t cap)
{
    long long t = (long long)(ticks & TICKS_VALUE_MASK);
    long long secs = t / TICKS_PER_SECOND;
    gch_format_utc(secs - DAYS_0001_TO_1970 * 86400, -1, buf, cap);
}

/* ---- size buckets ---- */

/* If s starts with "Bytes > " digits and a unit letter, returns its length. */
static size_t bucket_marker_length(const char *s)
{
    static const char prefix[] = "Bytes > ";
    size_t n = sizeof prefix - 1;
    if (strncmp(s, prefix, n) != 0)
        return 0;
    size_t digits = 0;
    while (s[n + digits] >= '0' && s[n + digits] <= '9')
        digits++;
    if (digits == 0 || !strchr("KMG", s[n + digits]) || s[n + digits] == '\0')
        return 0;
    return n + digits + 1;
}

size_t gcd_strip_size_bucket(const char *name, char *out)
{
    size_t len = strlen(name);
    memcpy(out, name, len + 1);
    if (len < 2 || name[len - 1] != ')')
        return len;
    const char *open = strrchr(name, '(');
    if (!open)
        return len;
    size_t marker = bucket_marker_length(open + 1);
    if (!marker)
        return len;
    const char *after = open + 1 + marker;
    if (after == name + len - 1) {
        /* "Name (Bytes > 10K)": drop the group and the space before it. */
        size_t keep = (size_t)(open - name);
        while (keep > 0 && name[keep - 1] == ' ')
            keep--;
        out[keep] = '\0';
        return keep;
    }
    if (*after == ',') {
        /* "Name (Bytes > 1K,NoPtrs,ElemSize=4)" (older PerfView): keep the rest. */
        size_t head = (size_t)(open - name) + 1;
        size_t tail = strlen(after + 1);
        memcpy(out + head, after + 1, tail + 1);
        return head + tail;
    }
    return len;
}

/* ---- metadata ---- */

static gch_status meta(gch_builder *b, const char *key, const char *value, gch_error *err)
{
    return gch_builder_add_meta(b, key, value, err);
}

static float float_at(const unsigned char *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static gch_status add_sampling_meta(gch_builder *b, const gcd_info *info, gch_error *err)
{
    char buf[256];
    int sampled = info->count_multiplier_count > 0 || info->average_count_multiplier != 1.0f ||
                  info->average_size_multiplier != 1.0f;
    if (!sampled)
        return meta(b, "sampling", "none (every object recorded)", err);
    snprintf(buf, sizeof buf,
             "sampled: average count multiplier %g, average size multiplier %g "
             "(counts and sizes are shown as recorded, not scaled)",
             (double)info->average_count_multiplier, (double)info->average_size_multiplier);
    gch_status st = meta(b, "sampling", buf, err);
    if (st != GCH_OK || info->count_multiplier_count == 0)
        return st;
    float lo = float_at(info->count_multipliers), hi = lo;
    for (uint32_t i = 1; i < info->count_multiplier_count; i++) {
        float v = float_at(info->count_multipliers + (size_t)i * 4);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    snprintf(buf, sizeof buf, "%lu types, from %g to %g", (unsigned long)info->count_multiplier_count,
             (double)lo, (double)hi);
    return meta(b, "count multipliers by type", buf, err);
}

static gch_status add_segment_meta(gch_builder *b, const gcd_info *info, gch_error *err)
{
    static const char *const names[7] = { "start", "end", "gen0 end", "gen1 end",
                                          "gen2 end", "gen3 end", "gen4 end" };
    char buf[256], key[48];
    snprintf(buf, sizeof buf, "%lld bytes in %lu segments", (long long)info->size_of_all_segments,
             (unsigned long)info->segment_count);
    gch_status st = meta(b, "segments", buf, err);
    for (uint32_t i = 0; st == GCH_OK && i < info->segment_count; i++) {
        const gcd_segment *s = &info->segments[i];
        size_t len = 0;
        buf[0] = '\0';
        for (int k = 0; k < s->field_count && len < sizeof buf; k++)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s 0x%llx", k ? ", " : "",
                                    names[k], (unsigned long long)s->fields[k]);
        snprintf(key, sizeof key, "segment %lu", (unsigned long)i + 1);
        st = meta(b, key, buf, err);
    }
    return st;
}

gch_status gcd_add_meta(gch_builder *b, const gcd_graph *g, const gcd_info *info,
                        uint32_t pseudo_nodes, uint32_t undefined_nodes, gch_error *err)
{
    char buf[256];
    gch_status st;
    snprintf(buf, sizeof buf, "GCHeapDump version %ld", (long)info->version);
    if ((st = meta(b, "file format", buf, err)) != GCH_OK)
        return st;
    if ((st = meta(b, "creating tool", info->creation_tool ? info->creation_tool : "not recorded",
                   err)) != GCH_OK)
        return st;
    if (info->process_name && info->process_name[0] &&
        (st = meta(b, "process name", info->process_name, err)) != GCH_OK)
        return st;
    if (info->process_id != 0) {
        snprintf(buf, sizeof buf, "%ld", (long)info->process_id);
        if ((st = meta(b, "process id", buf, err)) != GCH_OK)
            return st;
    }
    if (info->machine_name && info->machine_name[0] &&
        (st = meta(b, "machine name", info->machine_name, err)) != GCH_OK)
        return st;
    if ((info->time_collected & TICKS_VALUE_MASK) != 0) {
        gcd_format_ticks(info->time_collected, buf, sizeof buf);
        if ((st = meta(b, "time collected", buf, err)) != GCH_OK)
            return st;
    }
    if ((st = meta(b, "pointer size", info->is64 ? "8 bytes (64-bit process)" : "4 bytes (32-bit process)",
                   err)) != GCH_OK)
        return st;
    snprintf(buf, sizeof buf, "%lld bytes", (long long)g->total_size);
    if ((st = meta(b, "total size recorded", buf, err)) != GCH_OK)
        return st;
    snprintf(buf, sizeof buf, "%lu (%lu pseudo-nodes, %lu never defined)", (unsigned long)g->node_count,
             (unsigned long)pseudo_nodes, (unsigned long)undefined_nodes);
    if ((st = meta(b, "nodes", buf, err)) != GCH_OK)
        return st;
    snprintf(buf, sizeof buf, "%lu", (unsigned long)g->type_count);
    if ((st = meta(b, "types in file", buf, err)) != GCH_OK)
        return st;
    if ((st = add_sampling_meta(b, info, err)) != GCH_OK)
        return st;
    if (info->process_commit != 0) {
        snprintf(buf, sizeof buf, "%lld bytes", (long long)info->process_commit);
        if ((st = meta(b, "process commit", buf, err)) != GCH_OK)
            return st;
    }
    if (info->process_working_set != 0) {
        snprintf(buf, sizeof buf, "%lld bytes", (long long)info->process_working_set);
        if ((st = meta(b, "process working set", buf, err)) != GCH_OK)
            return st;
    }
    if (info->has_dotnet_info && (st = add_segment_meta(b, info, err)) != GCH_OK)
        return st;
    if (info->has_interop && (st = meta(b, "interop info", "present (not read)", err)) != GCH_OK)
        return st;
    if (g->has_deferred_types &&
        (st = meta(b, "deferred type names", "present (not resolved)", err)) != GCH_OK)
        return st;
    return GCH_OK;
}
