/* dart_twin.h - test-only: the heap of the committed fixtures
 * testdata/dart/twin.dartheap and testdata/dart/twin.gclog, described once
 * (tests/support/dart_twin.c) and rendered in both formats.
 *
 * The snapshot has the VM layout (object 1 Root, 2 Read-Only Pages, 3 the
 * isolate "main") and 28 heap objects, 4..31. The .gclog holds the same heap
 * as docs/dart-format.md says the Dart reader maps it, written down here
 * independently of the reader:
 *   - object ids: Dart object N is the .gclog object whose hex digits spell N
 *     in decimal (object 23 is `o 23 ...`, 0x23; see dart_twin_gclog_id).
 *     Both files then print every id as the same text and take the same id
 *     arguments, and id order is kept (the spelling is monotonic);
 *   - types: one `t` record per class that is not synthetic, in class order,
 *     with the class id as type id and the name the reader gives it (cut at
 *     `@`, then ` (libraryUri)`), spelled out by hand in the table;
 *   - references: in record order, without omitted (0) references and without
 *     the references to synthetic objects (which the reader drops); field
 *     labels have no .gclog form;
 *   - roots: Root's references are kind 0 (internal), Read-Only Pages' kind 5
 *     (runtime), the isolate's kind 4 (static, no container), in that order;
 *     their labels ("Root", "isolate main: .config") have no .gclog form.
 * tests/tools/make_dart_fixtures.c writes the files;
 * tests/unit/test_dart_twin.c checks that the committed files are what this
 * description renders and that both load to the same heap. */
#ifndef GCHEAP_TEST_DART_TWIN_H
#define GCHEAP_TEST_DART_TWIN_H

#include <stddef.h>
#include <stdint.h>

#include "dart_writer.h"

/* twin.dartheap (out must be zeroed; dtw_buf_free it). */
void dart_twin_dartheap(dtw_buf *out);

/* twin.gclog: the text (malloc'ed, NUL-terminated) and its length. */
char *dart_twin_gclog(size_t *len);

/* The .gclog id of Dart object id: its decimal digits read as hex. */
uint64_t dart_twin_gclog_id(uint64_t dart_id);

#endif
