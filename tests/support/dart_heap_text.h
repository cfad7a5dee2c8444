/* dart_heap_text.h - a canonical text form of a heap, for comparing a heap read
 * by a reader with one described by hand in a test.
 *
 * One line per object, then one per root, then one per meta entry:
 *   object ID TYPE size N -> [.LABEL ]ID, ...
 *   root KIND ID LABEL
 *   meta KEY: VALUE
 * The caller frees the result with free().
 */
#ifndef GCHEAP_TEST_DART_HEAP_TEXT_H
#define GCHEAP_TEST_DART_HEAP_TEXT_H

#include "gcheap/heap.h"

char *dart_test_heap_text(const gch_heap *h, int with_meta);

/* The value of meta key (first one), or NULL. */
const char *dart_test_meta(const gch_heap *h, const char *key);

#endif
