/* GCH_ASSERT: the library's invariants, checked in the builds that look for
 * bugs (internal).
 *
 * On when GCHEAP_ASSERTS is defined: CMake defines it for Debug builds, the
 * sanitizer builds (GCHEAP_SANITIZE, tests/tsan.sh) and -DGCHEAP_ASSERTS=ON.
 * Off otherwise, where the condition is not evaluated (it may cost a pass
 * over an array). An assertion states something the code guarantees
 * (a CSR's starts never decrease, a resolved index is in range, idom(v) is
 * numbered before v), never something the input may break: bad input is an
 * error status, always, in every build.
 *
 * A failed assertion is a bug in gcheap: the handler (by default: a message
 * on stderr, then abort()) is the one place where the library prints or
 * stops the process. */
#ifndef GCHEAP_INVARIANT_H
#define GCHEAP_INVARIANT_H

#include <stddef.h>
#include <stdint.h>

#if defined(GCHEAP_ASSERTS)
#define GCH_ASSERT(cond) ((cond) ? (void)0 : gch_assert_failed(#cond, __FILE__, __LINE__))
#define GCH_ASSERTS_ON 1
#else
/* sizeof: the condition is compiled (names stay checked) but not evaluated. */
#define GCH_ASSERT(cond) ((void)sizeof((cond) ? 1 : 0))
#define GCH_ASSERTS_ON 0
#endif

/* Reports a failed assertion through the handler; does not return unless a
 * test's handler does (which the code after it does not expect: tests leave
 * with longjmp). */
void gch_assert_failed(const char *cond, const char *file, int line);

/* Asserts that a CSR is well formed: start[0..count] never decreases, from
 * 0 up to total, and each of the total targets is below `limit` (targets
 * may be NULL when there is none to check). O(count + total); nothing when
 * assertions are off. */
static inline void gch_assert_csr(const uint32_t *start, size_t count, uint64_t total,
                                  const uint32_t *target, uint64_t limit)
{
#if GCH_ASSERTS_ON
    GCH_ASSERT(start[0] == 0 || count == 0);
    for (size_t i = 0; i < count; i++)
        GCH_ASSERT(start[i] <= start[i + 1]);
    GCH_ASSERT(count == 0 || start[count] == total);
    for (uint64_t e = 0; target && e < total; e++)
        GCH_ASSERT(target[e] < limit);
#else
    (void)start, (void)count, (void)total, (void)target, (void)limit;
#endif
}

/* Test hook: the handler of failed assertions (NULL: the default). */
typedef void (*gch_assert_handler)(const char *cond, const char *file, int line);
void gch_internal_set_assert_handler(gch_assert_handler handler);

#endif
