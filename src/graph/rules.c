/* Leak rules (gcheap/rules.h): LeakCanary's lifecycle inspectors and
 * Tomcat's stopped class loaders, each deciding from field values read from
 * the dump. docs/leak-rules.md is the reference for every rule. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gcheap/alloc.h"
#include "gcheap/rules.h"
#include "grow.h"

/* Class names the rules read; their index is a "class slot". */
enum {
    K_ACTIVITY, K_FRAGMENT_ANDROIDX, K_FRAGMENT_SUPPORT, K_FRAGMENT_FRAMEWORK, K_VIEW, K_WINDOW,
    K_MESSAGE_QUEUE, K_CONTEXT_WRAPPER, K_WEBAPP_LOADER, K_LIFECYCLE_STATE, K_CLASS_LOADER,
    K_CLASS, K_COUNT
};

static const char *const class_names[K_COUNT + 1] = {
    "android.app.Activity",
    "androidx.fragment.app.Fragment",
    "android.support.v4.app.Fragment",
    "android.app.Fragment",
    "android.view.View",
    "android.view.Window",
    "android.os.MessageQueue",
    "android.content.ContextWrapper",
    "org.apache.catalina.loader.WebappClassLoaderBase",
    "org.apache.catalina.LifecycleState",
    "java.lang.ClassLoader",
    "java.lang.Class",
    NULL
};

typedef struct rules_ctx {
    const gch_heap *h;
    const gch_rules_options *opt;
    uint32_t *super;        /* per type: its superclass's type index, or GCH_NONE */
    uint8_t *is_a;          /* per type: bit k set when the type is class k or below it */
    int read_failed;
} rules_ctx;

/* ---------------------------------------------------------------- types */

typedef struct type_slot {
    uint64_t raw;
    uint32_t type;
} type_slot;

/* Open addressing from raw type ids to type indices (types are few next to
 * objects; the table is twice their count, a power of two). */
static uint32_t type_lookup(const type_slot *t, size_t mask, uint64_t raw)
{
    for (size_t i = (size_t)(raw * 0x9E3779B97F4A7C15ull) & mask;; i = (i + 1) & mask) {
        if (t[i].type == GCH_NONE)
            return GCH_NONE;
        if (t[i].raw == raw)
            return t[i].type;
    }
}

/* super[t] from the class objects' "<super>" references: HPROF writes each
 * class as an object whose id is the type's raw id. */
static int find_supers(rules_ctx *x)
{
    const gch_heap *h = x->h;
    size_t cap = 16;
    while (cap < (size_t)h->type_count * 2)
        cap *= 2;
    type_slot *t = gch_malloc(cap * sizeof *t);
    x->super = gch_malloc(((size_t)h->type_count + 1) * sizeof *x->super);
    if (!t || !x->super) {
        gch_free(t);
        return 0;
    }
    for (size_t i = 0; i < cap; i++)
        t[i].type = GCH_NONE;
    for (uint32_t k = 0; k < h->type_count; k++) {
        x->super[k] = GCH_NONE;
        size_t i = (size_t)(h->type_raw_id[k] * 0x9E3779B97F4A7C15ull) & (cap - 1);
        while (t[i].type != GCH_NONE && t[i].raw != h->type_raw_id[k])
            i = (i + 1) & (cap - 1);
        if (t[i].type == GCH_NONE)
            t[i] = (type_slot){ h->type_raw_id[k], k };
    }
    for (uint32_t o = 0; h->out_label && o < h->object_count; o++) {
        uint32_t k = type_lookup(t, cap - 1, h->object_id[o]);
        if (k == GCH_NONE)
            continue;
        for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++) {
            if (strcmp(gch_heap_string(h, h->out_label[e]), "<super>") != 0)
                continue;
            uint32_t s = type_lookup(t, cap - 1, h->object_id[h->out_target[e]]);
            if (s != k)
                x->super[k] = s;
            break;
        }
    }
    gch_free(t);
    return 1;
}

/* is_a[t]: which of class_names t is or extends. Each type's chain is walked
 * up to the first type already known, and every type on the way gets the
 * answer: linear in the types however deep the hierarchy (a cycle, which
 * only malformed input has, ends the walk). */
static int classify_types(rules_ctx *x)
{
    const gch_heap *h = x->h;
    uint32_t n = h->type_count;
    uint8_t *done = gch_calloc((size_t)n + 1, 1);
    uint32_t *chain = gch_malloc(((size_t)n + 1) * sizeof *chain);
    x->is_a = gch_calloc((size_t)n + 1, sizeof *x->is_a * 2);
    if (!done || !chain || !x->is_a) {
        gch_free(done);
        gch_free(chain);
        return 0;
    }
    uint16_t *bits = (uint16_t *)x->is_a;
    for (uint32_t k = 0; k < n; k++) {
        size_t len = 0;
        uint32_t c = k;
        while (c != GCH_NONE && !done[c]) {
            done[c] = 2; /* on the current walk */
            chain[len++] = c;
            c = x->super[c];
        }
        uint16_t inherited = (c != GCH_NONE && done[c] == 1) ? bits[c] : 0;
        while (len > 0) {
            uint32_t t = chain[--len];
            uint16_t own = 0;
            const char *name = gch_type_name(h, t);
            for (int s = 0; s < K_COUNT; s++)
                if (strcmp(name, class_names[s]) == 0)
                    own |= (uint16_t)(1u << s);
            bits[t] = inherited | own;
            inherited = bits[t];
            done[t] = 1;
        }
    }
    gch_free(done);
    gch_free(chain);
    return 1;
}

static int is_a(const rules_ctx *x, uint32_t o, int slot)
{
    if (o == GCH_NONE || o >= x->h->object_count)
        return 0;
    const uint16_t *bits = (const uint16_t *)x->is_a;
    return (bits[x->h->object_type[o]] >> slot) & 1u;
}

/* --------------------------------------------------------------- fields */

/* Object o's field `name`: 1 and *v, or 0 when it has none (or no value was
 * kept); a failed read is remembered and reads as absent. */
static int field(rules_ctx *x, uint32_t o, const char *name, gch_value *v)
{
    int r = gch_instance_field(x->h, o, name, x->opt->read, x->opt->read_ctx, v);
    if (r < 0)
        x->read_failed = 1;
    return r == 1;
}

static int field_bool(rules_ctx *x, uint32_t o, const char *name, int *out)
{
    gch_value v;
    if (!field(x, o, name, &v) || v.type != GCH_ELEM_BOOLEAN)
        return 0;
    *out = v.bits != 0;
    return 1;
}

/* A reference field: 1 with *target the object (GCH_NONE for null, or for
 * an object absent from the dump: *present says which). */
static int field_ref(rules_ctx *x, uint32_t o, const char *name, uint32_t *target, int *null)
{
    gch_value v;
    if (!field(x, o, name, &v) || v.type != GCH_ELEM_OBJECT)
        return 0;
    *null = v.bits == 0;
    *target = GCH_NONE;
    if (v.bits == 0)
        return 1;
    /* The object is one of o's references: find it there rather than by a
     * search of every id. */
    const gch_heap *h = x->h;
    for (uint32_t e = h->out_start[o]; e < h->out_start[o + 1]; e++)
        if (h->object_id[h->out_target[e]] == v.bits) {
            *target = h->out_target[e];
            break;
        }
    return 1;
}

/* The text of a java.lang.String object (at most cap-1 bytes, other than
 * printable ASCII as '?'), "" when it cannot be read. */
static const char *java_string(rules_ctx *x, uint32_t o, char *buf, size_t cap)
{
    buf[0] = '\0';
    const gch_payload *s = o == GCH_NONE ? NULL : gch_heap_payload(x->h, x->h->object_id[o]);
    const gch_payload *a = s && s->kind == GCH_PAYLOAD_STRING && s->value
                               ? gch_heap_payload(x->h, s->value) : NULL;
    if (!a || a->kind != GCH_PAYLOAD_ARRAY)
        return buf;
    unsigned width = (s->coder == GCH_CODER_LATIN1) ? 1 : 2;
    int big_endian = s->coder == GCH_CODER_NONE; /* a char[]: big-endian in the dump */
    unsigned char raw[2 * 63];
    uint64_t bytes = (uint64_t)a->length * gch_elem_size(a->elem);
    size_t chars = (size_t)(bytes / width);
    if (chars > cap - 1)
        chars = cap - 1;
    if (chars > sizeof raw / 2)
        chars = sizeof raw / 2;
    if (chars && x->opt->read(x->opt->read_ctx, a->offset, raw, chars * width) != 0) {
        x->read_failed = 1;
        return buf;
    }
    for (size_t i = 0; i < chars; i++) {
        unsigned c = width == 1 ? raw[i]
                     : big_endian ? (unsigned)raw[2 * i] << 8 | raw[2 * i + 1]
                                  : (unsigned)raw[2 * i + 1] << 8 | raw[2 * i];
        buf[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    buf[chars] = '\0';
    return buf;
}

/* ---------------------------------------------------------------- rules */

typedef struct verdict {
    gch_leaking leaking;
    char reason[GCH_RULE_REASON_MAX];
} verdict;

static gch_leaking say(verdict *v, gch_leaking l, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static gch_leaking say(verdict *v, gch_leaking l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
    v->leaking = l;
    return l;
}

/* Activity: LeakCanary's ACTIVITY inspector (mDestroyed; mFinished before
 * API 17, which had no mDestroyed). */
static gch_leaking activity_state(rules_ctx *x, uint32_t o, verdict *v)
{
    int b;
    if (field_bool(x, o, "mDestroyed", &b))
        return say(v, b ? GCH_LEAKING_YES : GCH_LEAKING_NO, "Activity.mDestroyed is %s",
                   b ? "true" : "false");
    if (field_bool(x, o, "mFinished", &b) && b)
        return say(v, GCH_LEAKING_YES, "Activity.mFinished is true");
    return GCH_LEAKING_UNKNOWN;
}

static gch_leaking rule_destroyed_activity(rules_ctx *x, uint32_t o, verdict *v)
{
    return is_a(x, o, K_ACTIVITY) ? activity_state(x, o, v) : GCH_LEAKING_UNKNOWN;
}

/* Fragments (framework, support, AndroidX): mFragmentManager is null once
 * the fragment is removed (LeakCanary's FRAGMENT and SUPPORT_FRAGMENT). */
static gch_leaking rule_detached_fragment(rules_ctx *x, uint32_t o, verdict *v)
{
    if (!is_a(x, o, K_FRAGMENT_ANDROIDX) && !is_a(x, o, K_FRAGMENT_SUPPORT) &&
        !is_a(x, o, K_FRAGMENT_FRAMEWORK))
        return GCH_LEAKING_UNKNOWN;
    uint32_t fm;
    int null;
    if (!field_ref(x, o, "mFragmentManager", &fm, &null))
        return GCH_LEAKING_UNKNOWN;
    return say(v, null ? GCH_LEAKING_YES : GCH_LEAKING_NO, "Fragment.mFragmentManager is %s",
               null ? "null" : "not null");
}

/* The Activity behind a Context: itself, or through ContextWrapper.mBase
 * (at most 32 wrappers: a loop in malformed input ends there). */
static uint32_t activity_of(rules_ctx *x, uint32_t c)
{
    for (int i = 0; i < 32 && c != GCH_NONE; i++) {
        if (is_a(x, c, K_ACTIVITY))
            return c;
        if (!is_a(x, c, K_CONTEXT_WRAPPER))
            return GCH_NONE;
        uint32_t base;
        int null;
        if (!field_ref(x, c, "mBase", &base, &null))
            return GCH_NONE;
        c = base;
    }
    return GCH_NONE;
}

/* A View is leaking when detached (mAttachInfo null) and its context is a
 * destroyed activity (LeakCanary's VIEW inspector). */
static gch_leaking rule_detached_view(rules_ctx *x, uint32_t o, verdict *v)
{
    if (!is_a(x, o, K_VIEW))
        return GCH_LEAKING_UNKNOWN;
    uint32_t info, ctx;
    int info_null, ctx_null;
    if (!field_ref(x, o, "mAttachInfo", &info, &info_null))
        return GCH_LEAKING_UNKNOWN;
    if (!info_null)
        return say(v, GCH_LEAKING_NO, "View.mAttachInfo is not null (view attached)");
    uint32_t act = field_ref(x, o, "mContext", &ctx, &ctx_null) ? activity_of(x, ctx) : GCH_NONE;
    int destroyed;
    if (act != GCH_NONE && field_bool(x, act, "mDestroyed", &destroyed) && destroyed)
        return say(v, GCH_LEAKING_YES,
                   "View.mAttachInfo is null (view detached) and View.mContext references a "
                   "destroyed activity");
    return GCH_LEAKING_UNKNOWN;
}

static gch_leaking rule_destroyed_window(rules_ctx *x, uint32_t o, verdict *v)
{
    int b;
    if (!is_a(x, o, K_WINDOW) || !field_bool(x, o, "mDestroyed", &b) || !b)
        return GCH_LEAKING_UNKNOWN; /* a dialog's window is never marked destroyed */
    return say(v, GCH_LEAKING_YES, "Window.mDestroyed is true");
}

static gch_leaking rule_quit_message_queue(rules_ctx *x, uint32_t o, verdict *v)
{
    int b;
    if (!is_a(x, o, K_MESSAGE_QUEUE))
        return GCH_LEAKING_UNKNOWN;
    if (!field_bool(x, o, "mQuitting", &b) && !field_bool(x, o, "mQuiting", &b))
        return GCH_LEAKING_UNKNOWN;
    return say(v, b ? GCH_LEAKING_YES : GCH_LEAKING_NO, "MessageQueue.mQuitting is %s",
               b ? "true" : "false");
}

/* Tomcat: a web application's class loader whose lifecycle state is no
 * longer available (LifecycleState.available false: STOPPING, STOPPED,
 * DESTROYING, DESTROYED, FAILED; also before it started), as Tomcat's own
 * check of reloaded contexts tests !getState().isAvailable(). A loader that
 * never started is no leak of a stopped application: NEW, INITIALIZING,
 * INITIALIZED and STARTING_PREP are reported unknown. */
static gch_leaking rule_stopped_classloader(rules_ctx *x, uint32_t o, verdict *v)
{
    if (!is_a(x, o, K_WEBAPP_LOADER))
        return GCH_LEAKING_UNKNOWN;
    uint32_t st;
    int null, available;
    if (!field_ref(x, o, "state", &st, &null) || null || st == GCH_NONE ||
        !is_a(x, st, K_LIFECYCLE_STATE) || !field_bool(x, st, "available", &available))
        return GCH_LEAKING_UNKNOWN;
    uint32_t name_obj;
    char name[64] = "";
    if (field_ref(x, st, "name", &name_obj, &null) && !null)
        java_string(x, name_obj, name, sizeof name);
    if (available)
        return say(v, GCH_LEAKING_NO, "WebappClassLoaderBase.state is %s (available)",
                   *name ? name : "available");
    static const char *const before_start[] = { "NEW", "INITIALIZING", "INITIALIZED",
                                                "STARTING_PREP" };
    for (size_t i = 0; i < sizeof before_start / sizeof *before_start; i++)
        if (strcmp(name, before_start[i]) == 0)
            return GCH_LEAKING_UNKNOWN;
    return say(v, GCH_LEAKING_YES,
               "WebappClassLoaderBase.state is %s: the web application was stopped",
               *name ? name : "not available");
}

/* Detached DOM: Chrome DevTools' "Detached <name>" nodes (HeapSnapshot.ts
 * propagateDOMState, npm chrome-devtools-frontend 1.0.1705227; memlab's
 * detached DOM filter reads the same state): a DOM node (a native) whose
 * state, as the snapshot's detachedness field gives it and DevTools
 * propagates it to native children, is detached (2). An attached one (1) is
 * not leaking. The V8 reader keeps the propagated state per object
 * (gch_heap.v8_detachedness). */
/* Whether type name t (DevTools' class name of a detached native: "Detached
 * <div>", "Detached Text") is a DOM node's: an element (Blink names one by
 * its tag) or a node class of the DOM standard. Blink's other detached
 * natives (blink::NodeRareData, ...) hang below the nodes, and Node.js marks
 * its own natives detached ("Node / BindingData"): no DOM, no finding. */
static int dom_node_name(const char *t)
{
    static const char *const nodes[] = { "Text", "Comment", "CDATASection", "ProcessingInstruction",
                                         "DocumentFragment", "ShadowRoot", "Attr", "DocumentType",
                                         "Document", "HTMLDocument", "XMLDocument" };
    if (strncmp(t, "Detached ", 9) != 0)
        return 0;
    t += 9;
    if (t[0] == '<')
        return 1;
    for (size_t k = 0; k < sizeof nodes / sizeof *nodes; k++)
        if (strcmp(t, nodes[k]) == 0)
            return 1;
    return 0;
}

static gch_leaking rule_detached_dom(rules_ctx *x, uint32_t o, verdict *v)
{
    const uint8_t *d = x->h->v8_detachedness;
    if (!d || o >= x->h->object_count || !d[o])
        return GCH_LEAKING_UNKNOWN;
    if (d[o] == 2 && !dom_node_name(gch_type_name(x->h, x->h->object_type[o])))
        return GCH_LEAKING_UNKNOWN;
    if (d[o] == 2)
        return say(v, GCH_LEAKING_YES, "detachedness is 2: detached (no longer in a document)");
    return say(v, GCH_LEAKING_NO, "detachedness is 1: attached (in a document)");
}

typedef struct rule {
    const char *name;
    const char *summary;
    gch_leaking (*inspect)(rules_ctx *x, uint32_t o, verdict *v);
} rule;

static const rule rules[] = {
    { "destroyed-activity", "an android.app.Activity whose mDestroyed (or mFinished) is true",
      rule_destroyed_activity },
    { "detached-fragment", "a Fragment (AndroidX, support or framework) whose mFragmentManager is null",
      rule_detached_fragment },
    { "detached-view",
      "an android.view.View whose mAttachInfo is null and whose mContext is a destroyed activity",
      rule_detached_view },
    { "destroyed-window", "an android.view.Window whose mDestroyed is true", rule_destroyed_window },
    { "quit-message-queue", "an android.os.MessageQueue whose mQuitting is true",
      rule_quit_message_queue },
    { "stopped-classloader",
      "a Tomcat WebappClassLoaderBase whose lifecycle state is no longer available (a stopped web "
      "application)",
      rule_stopped_classloader },
    { "detached-dom",
      "a DOM node whose detachedness (as DevTools propagates it) is 2: removed from the document, "
      "still reachable",
      rule_detached_dom },
};
#define RULE_COUNT (sizeof rules / sizeof *rules)

const char *const *gch_rule_names(void)
{
    static const char *names[RULE_COUNT + 1];
    for (size_t i = 0; i < RULE_COUNT; i++)
        names[i] = rules[i].name;
    names[RULE_COUNT] = NULL;
    return names;
}

const char *gch_rule_summary(const char *name)
{
    for (size_t i = 0; i < RULE_COUNT; i++)
        if (strcmp(rules[i].name, name) == 0)
            return rules[i].summary;
    return NULL;
}

const char *const *gch_rule_field_classes(void)
{
    return class_names;
}

const char *gch_leaking_name(gch_leaking l)
{
    return l == GCH_LEAKING_YES ? "yes" : l == GCH_LEAKING_NO ? "no" : "unknown";
}

/* ------------------------------------------------------------- running */

static gch_status ctx_open(rules_ctx *x, const gch_heap *h, const gch_rules_options *opt,
                           unsigned *selected, gch_error *err)
{
    memset(x, 0, sizeof *x);
    x->h = h;
    x->opt = opt;
    *selected = 0;
    for (size_t k = 0; opt->rules && opt->rules[k]; k++) {
        size_t i = 0;
        while (i < RULE_COUNT && strcmp(rules[i].name, opt->rules[k]) != 0)
            i++;
        if (i == RULE_COUNT)
            return gch_error_set(err, GCH_EINVAL, "unknown rule '%s'", opt->rules[k]);
        *selected |= 1u << i;
    }
    if (!opt->rules)
        *selected = (1u << RULE_COUNT) - 1;
    if (!find_supers(x) || !classify_types(x)) {
        gch_free(x->super);
        gch_free(x->is_a);
        return gch_error_set(err, GCH_ENOMEM, "out of memory running the leak rules");
    }
    return GCH_OK;
}

static void ctx_close(rules_ctx *x)
{
    gch_free(x->super);
    gch_free(x->is_a);
}

/* Whether the rules can read anything: field values (HPROF), or DOM states
 * (V8). */
static int has_fields(const gch_heap *h)
{
    return (h->type_fields != NULL && h->payloads_kept) || h->v8_detachedness != NULL;
}

gch_status gch_rules_find(const gch_heap *h, const gch_rules_options *opt, gch_rule_findings *out,
                          gch_error *err)
{
    memset(out, 0, sizeof *out);
    out->no_fields = !has_fields(h);
    rules_ctx x;
    unsigned selected;
    gch_status st = ctx_open(&x, h, opt, &selected, err);
    if (st != GCH_OK)
        return st;
    size_t cap = 0;
    for (size_t r = 0; r < RULE_COUNT && !out->no_fields; r++) {
        if (!(selected >> r & 1u))
            continue;
        for (uint32_t o = 0; o < h->object_count; o++) {
            if (opt->live && !opt->live[o])
                continue;
            verdict v;
            if (rules[r].inspect(&x, o, &v) != GCH_LEAKING_YES)
                continue;
            if (!gch_grow((void **)&out->items, &cap, out->count + 1, sizeof *out->items, 16)) {
                ctx_close(&x);
                gch_rule_findings_free(out);
                return gch_error_set(err, GCH_ENOMEM, "out of memory running the leak rules");
            }
            gch_rule_finding *f = &out->items[out->count++];
            f->rule = rules[r].name;
            f->object = o;
            memcpy(f->reason, v.reason, sizeof f->reason);
        }
    }
    int failed = x.read_failed;
    ctx_close(&x);
    if (failed) {
        gch_rule_findings_free(out);
        return gch_error_set(err, GCH_EIO, "cannot read field values: the dump changed since it "
                                           "was loaded");
    }
    return GCH_OK;
}

void gch_rule_findings_free(gch_rule_findings *f)
{
    if (!f)
        return;
    gch_free(f->items);
    memset(f, 0, sizeof *f);
}

/* What the rules say of one object; the generic labels of LeakCanary's
 * ObjectInspectors (a class, a class loader is never leaking) where no rule
 * has a say. When rules disagree, "no" wins and the reason names both, as
 * LeakCanary resolves a conflict. */
static gch_leaking inspect_one(rules_ctx *x, uint32_t o, char *reason)
{
    verdict yes = { GCH_LEAKING_UNKNOWN, "" }, no = { GCH_LEAKING_UNKNOWN, "" };
    for (size_t r = 0; r < RULE_COUNT; r++) {
        verdict v;
        gch_leaking l = rules[r].inspect(x, o, &v);
        if (l == GCH_LEAKING_YES && yes.leaking == GCH_LEAKING_UNKNOWN)
            yes = v;
        else if (l == GCH_LEAKING_NO && no.leaking == GCH_LEAKING_UNKNOWN)
            no = v;
    }
    if (no.leaking == GCH_LEAKING_UNKNOWN && yes.leaking == GCH_LEAKING_UNKNOWN) {
        if (is_a(x, o, K_CLASS))
            say(&no, GCH_LEAKING_NO, "a class is never leaking");
        else if (is_a(x, o, K_CLASS_LOADER) && !is_a(x, o, K_WEBAPP_LOADER))
            say(&no, GCH_LEAKING_NO, "a class loader is never leaking");
    }
    if (no.leaking == GCH_LEAKING_NO) {
        if (yes.leaking == GCH_LEAKING_YES)
            snprintf(reason, GCH_RULE_REASON_MAX, "%.90s; conflicts with %.90s", no.reason,
                     yes.reason);
        else
            snprintf(reason, GCH_RULE_REASON_MAX, "%s", no.reason);
        return GCH_LEAKING_NO;
    }
    snprintf(reason, GCH_RULE_REASON_MAX, "%s", yes.reason);
    return yes.leaking;
}

static void short_type(const gch_heap *h, uint32_t o, char *buf, size_t cap)
{
    const char *name = gch_type_name(h, h->object_type[o]);
    const char *dot = strrchr(name, '.');
    snprintf(buf, cap, "%s", dot ? dot + 1 : name);
}

gch_status gch_rules_label_path(const gch_heap *h, const gch_rules_options *opt,
                                const uint32_t *path, size_t n, int last_leaking,
                                gch_leaking *leaking, char *reason, size_t *window_from,
                                size_t *window_to, gch_error *err)
{
    *window_from = *window_to = 0;
    if (n == 0)
        return GCH_OK;
    rules_ctx x;
    unsigned selected;
    gch_rules_options all = *opt;
    all.rules = NULL;
    gch_status st = ctx_open(&x, h, &all, &selected, err);
    if (st != GCH_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        leaking[i] = has_fields(h) ? inspect_one(&x, path[i], reason + i * GCH_RULE_REASON_MAX)
                                   : GCH_LEAKING_UNKNOWN;
    if (!has_fields(h))
        for (size_t i = 0; i < n; i++)
            reason[i * GCH_RULE_REASON_MAX] = '\0';
    if (last_leaking && leaking[n - 1] != GCH_LEAKING_YES) {
        leaking[n - 1] = GCH_LEAKING_YES;
        if (!reason[(n - 1) * GCH_RULE_REASON_MAX])
            snprintf(reason + (n - 1) * GCH_RULE_REASON_MAX, GCH_RULE_REASON_MAX,
                     "the leaking object");
    }
    int failed = x.read_failed;
    ctx_close(&x);
    if (failed)
        return gch_error_set(err, GCH_EIO, "cannot read field values: the dump changed since it "
                                           "was loaded");
    /* The last "no" before the first "yes": steps between them are the
     * window; unknown steps before it are not leaking, after it leaking. */
    size_t first_yes = n, last_no = n;
    for (size_t i = 0; i < n && first_yes == n; i++)
        if (leaking[i] == GCH_LEAKING_YES)
            first_yes = i;
    for (size_t i = first_yes; i-- > 0;)
        if (leaking[i] == GCH_LEAKING_NO) {
            last_no = i;
            break;
        }
    char name[128];
    if (last_no != n) {
        short_type(h, path[last_no], name, sizeof name);
        for (size_t i = 0; i < last_no; i++)
            if (leaking[i] == GCH_LEAKING_UNKNOWN) {
                leaking[i] = GCH_LEAKING_NO;
                snprintf(reason + i * GCH_RULE_REASON_MAX, GCH_RULE_REASON_MAX,
                         "%s below is not leaking", name);
            }
    }
    if (first_yes != n) {
        short_type(h, path[first_yes], name, sizeof name);
        for (size_t i = first_yes + 1; i < n; i++)
            if (leaking[i] == GCH_LEAKING_UNKNOWN) {
                leaking[i] = GCH_LEAKING_YES;
                snprintf(reason + i * GCH_RULE_REASON_MAX, GCH_RULE_REASON_MAX,
                         "%s above is leaking", name);
            }
    }
    *window_from = last_no == n ? 0 : last_no;
    *window_to = first_yes == n ? n - 1 : first_yes;
    return GCH_OK;
}

/* ------------------------------------------------------- library leaks */

/* Known leaks in the platform's own code, from Shark's reference matchers
 * (shark/shark-android/.../AndroidReferenceMatchers.kt, `.leak(...)`
 * entries; docs/leak-rules.md): an app can only work around them. */
typedef struct library_leak {
    const char *klass;
    const char *field;
    int is_static;
    const char *description;
} library_leak;

static const library_leak library_leaks[] = {
    { "android.app.ActivityThread", "mNewActivities", 0,
      "ActivityThread keeps finished activities in mNewActivities until the main thread is idle" },
    { "android.text.TextLine", "sCached", 1,
      "TextLine.sCached keeps the last spans (and their views) after a text was measured" },
    { "android.media.session.MediaSessionLegacyHelper", "sInstance", 1,
      "MediaSessionLegacyHelper keeps the first context it was given" },
    { "android.os.UserManager", "mContext", 0,
      "UserManager keeps the first activity context that asked for it" },
    { "android.net.ConnectivityManager", "sInstance", 1,
      "ConnectivityManager keeps the first context it was created with" },
    { "android.view.inputmethod.InputMethodManager", "mNextServedView", 0,
      "InputMethodManager keeps the last focused view" },
    { "android.view.inputmethod.InputMethodManager", "mServedView", 0,
      "InputMethodManager keeps the last focused view" },
    { "android.view.inputmethod.InputMethodManager", "mCurRootView", 0,
      "InputMethodManager keeps the root view of the last focused window" },
    { "android.app.Activity$1", "this$0", 0,
      "an anonymous class of Activity (a platform callback) outlives the activity" },
    { "android.widget.Editor$SpanController", "this$0", 0,
      "Editor's SpanController stays registered after the TextView is gone" },
    { "android.animation.LayoutTransition$1", "val$parent", 0,
      "LayoutTransition keeps its parent view while an animation is pending" },
    { "android.app.Dialog", "mCancelAndDismissTaken", 0,
      "a Dialog keeps the message of its last cancel/dismiss" },
};

/* Whether type t is the class `name` or extends it (walks the superclass
 * chain, at most the number of types). */
static int type_extends(const gch_heap *h, const uint32_t *super, uint32_t t, const char *name)
{
    for (uint32_t i = 0; t != GCH_NONE && i <= h->type_count; i++, t = super ? super[t] : GCH_NONE)
        if (strcmp(gch_type_name(h, t), name) == 0)
            return 1;
    return 0;
}

const char *gch_rules_library_leak(const gch_heap *h, uint32_t from, uint32_t container,
                                   const char *field)
{
    if (!field || !*field)
        return NULL;
    uint32_t t = from != GCH_NONE && from < h->object_count ? h->object_type[from] : container;
    int is_static = from == GCH_NONE;
    if (t == GCH_NONE || t >= h->type_count)
        return NULL;
    for (size_t i = 0; i < sizeof library_leaks / sizeof *library_leaks; i++) {
        const library_leak *l = &library_leaks[i];
        if (l->is_static == is_static && strcmp(l->field, field) == 0 &&
            type_extends(h, NULL, t, l->klass))
            return l->description;
    }
    return NULL;
}
