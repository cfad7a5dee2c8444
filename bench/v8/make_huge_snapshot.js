// Writes a real Node.js heap snapshot of 20M+ nodes with as little memory
// as V8's snapshot writer allows, for the benchmark beyond memlab:
//   node --max-old-space-size=MB make_huge_snapshot.js OUT TREE_NODES [STRINGS [CHARS]]
// The heap: TREE_NODES instances of class TreeNode in a complete binary tree
// (fields l, r, s and a small integer), held only by its root; the first
// STRINGS of them hold each its own flat string of CHARS characters. On top
// of Node's own heap (~40k nodes). Nodes: TREE_NODES + STRINGS + ~40k.
// No large array stays alive: V8's writer makes a string for every slot
// index of every array it reports (~1 KB a node for make_snapshot.js's heap,
// ~0.35 KB here). The strings make the snapshot's string table long: memlab
// reads everything but the integer arrays into one JavaScript string, which
// V8 limits to 2^29 - 24 characters.
'use strict';
const v8 = require('v8');

class TreeNode {
  constructor(i, s) {
    this.l = null;
    this.r = null;
    this.s = s;
    this.i = i;
  }
}

const out = process.argv[2];
const n = Math.max(1, Math.floor(Number(process.argv[3])));
const strings = Math.min(n, Math.floor(Number(process.argv[4] || 0)));
const chars = Math.max(8, Math.floor(Number(process.argv[5] || 100)));
const pad = 'x'.repeat(chars);
// A flat (sequential) string of exactly `chars` characters, distinct per i:
// decoded from bytes, not concatenated (a concatenation is a cons string,
// which the snapshot shows as two parts).
const label = i => Buffer.from((i + ':' + pad).slice(0, chars), 'latin1').toString('latin1');
let all = new Array(n);
for (let i = 0; i < n; i++)
  all[i] = new TreeNode(i, i < strings ? label(i) : null);
for (let i = 0; i < n; i++) {
  if (2 * i + 1 < n) all[i].l = all[2 * i + 1];
  if (2 * i + 2 < n) all[i].r = all[2 * i + 2];
}
globalThis.benchTree = all[0];
all = null; // the snapshot's own garbage collection frees the array
v8.writeHeapSnapshot(out);
