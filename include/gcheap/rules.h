/* gcheap/rules.h - leak rules: objects the runtime itself declared finished
 * that are still reachable (LeakCanary's inspectors, Tomcat's stopped web
 * application class loaders, DevTools' detached DOM). docs/leak-rules.md
 * lists every rule, the fields it reads and where it comes from.
 *
 * A rule decides from field values read from the dump (an activity's
 * mDestroyed, a class loader's lifecycle state, a DOM node's detachedness),
 * never from a class name or an instance count alone: the class name only
 * says which fields to read. Field values come through the instance-field
 * API of gcheap/heap.h (gch_instance_field), whose bytes the caller reads
 * from the dump file (gch_read_at_fn); heaps without field values (no
 * keep_fields, gzip input, formats that record none) give no finding.
 *
 * Ownership: gch_rule_findings owns its array (gch_rule_findings_free). None
 * of these functions keeps a pointer to the heap after it returns.
 */
#ifndef GCHEAP_RULES_H
#define GCHEAP_RULES_H

#include <stddef.h>
#include <stdint.h>
#include "gcheap/error.h"
#include "gcheap/heap.h"

/* What the rules say of one object on a path, as LeakCanary labels the steps
 * of a leak trace. */
typedef enum gch_leaking {
    GCH_LEAKING_UNKNOWN = 0,
    GCH_LEAKING_NO = 1,
    GCH_LEAKING_YES = 2
} gch_leaking;

/* "unknown", "no", "yes". */
const char *gch_leaking_name(gch_leaking l);

#define GCH_RULE_REASON_MAX 200 /* bytes of a reason, NUL included */

/* Where the rules read field values: a dump's bytes at an offset. */
typedef struct gch_rules_options {
    /* The rules to run by name (gch_rule_names), NULL-terminated; NULL: all. */
    const char *const *rules;
    gch_read_at_fn read;
    void *read_ctx;
    /* Per object, nonzero when it is reachable from the strong roots (a
     * gch_live_set mask); an unreachable finished object is already
     * collectable and no finding. NULL: every object counts as reachable. */
    const uint8_t *live;
} gch_rules_options;

/* One object a rule found finished yet reachable. */
typedef struct gch_rule_finding {
    const char *rule;                  /* static storage: "destroyed-activity", ... */
    uint32_t object;
    char reason[GCH_RULE_REASON_MAX];  /* "Activity.mDestroyed is true" */
} gch_rule_finding;

typedef struct gch_rule_findings {
    gch_rule_finding *items;           /* in rule order, then object index */
    size_t count;
    /* Nonzero when the heap keeps no field values, so no rule could read
     * anything (the caller may say so). */
    int no_fields;
} gch_rule_findings;

/* The names of every rule, in the order they run, NULL-terminated. */
const char *const *gch_rule_names(void);
/* The one-line summary of a rule ("an Activity whose mDestroyed is true"),
 * or NULL for an unknown name. */
const char *gch_rule_summary(const char *name);
/* The Java class names whose instances the rules read fields of (for
 * gch_load_options.field_classes), NULL-terminated. */
const char *const *gch_rule_field_classes(void);

/* Runs the rules over every object of heap. Returns GCH_OK (count may be 0),
 * GCH_EINVAL for an unknown rule name (the message names it), GCH_EIO when a
 * read failed (the file changed since it was loaded), or GCH_ENOMEM; on
 * failure *out is zeroed. */
gch_status gch_rules_find(const gch_heap *heap, const gch_rules_options *opt,
                          gch_rule_findings *out, gch_error *err);
void gch_rule_findings_free(gch_rule_findings *f);

/* Labels the objects of a path from a root (path[0]) to a leaking object
 * (path[n-1]) as LeakCanary does: each object by what every rule says of it
 * (a class, a running activity: no; a finished one: yes), then every unknown
 * step before the last "no" becomes "no" and every unknown step after the
 * first "yes" becomes "yes" (their reasons say why: "X below is not
 * leaking"). The last object is always "yes" when last_leaking is nonzero.
 * leaking[i] and reason[i * GCH_RULE_REASON_MAX ...] are filled for each
 * step. *window_from and *window_to receive the suspect window: the
 * references path[i] -> path[i+1] for window_from <= i < window_to are the
 * ones between the last "no" and the first "yes", where the leak is.
 * Returns GCH_OK or GCH_EIO (a failed read). */
gch_status gch_rules_label_path(const gch_heap *heap, const gch_rules_options *opt,
                                const uint32_t *path, size_t n, int last_leaking,
                                gch_leaking *leaking, char *reason, size_t *window_from,
                                size_t *window_to, gch_error *err);

/* Whether the reference into step i of a path is a known library leak (a
 * leak in the JDK's or Android's own code that apps cannot fix, as Shark's
 * reference matchers list them: docs/leak-rules.md): for i > 0 the field
 * `field` of path[i-1]; for i == 0 the static field `field` of the class
 * `container` (a type index, GCH_NONE when the root is no static field).
 * Returns the matcher's description (static storage) or NULL. */
const char *gch_rules_library_leak(const gch_heap *heap, uint32_t from, uint32_t container,
                                   const char *field);

#endif
