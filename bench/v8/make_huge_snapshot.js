// Writes a real Node.js heap snapshot of about NODES nodes with as little
// memory as V8's snapshot writer allows, for the 20M+ node benchmark:
//   node --max-old-space-size=MB make_huge_snapshot.js OUT NODES
// The heap: NODES instances of class TreeNode in a complete binary tree
// (fields l, r and a small integer), held only by its root, on top of
// Node's own heap (~40k nodes). No large array stays alive: V8's writer
// makes a string for every slot index of every array it reports, which
// costs it ~1 KB a node for make_snapshot.js's heap and ~0.37 KB here.
'use strict';
const v8 = require('v8');

class TreeNode {
  constructor(i) {
    this.l = null;
    this.r = null;
    this.i = i;
  }
}

const out = process.argv[2];
const n = Math.max(1, Math.floor(Number(process.argv[3])));
let all = new Array(n);
for (let i = 0; i < n; i++)
  all[i] = new TreeNode(i);
for (let i = 0; i < n; i++) {
  if (2 * i + 1 < n) all[i].l = all[2 * i + 1];
  if (2 * i + 2 < n) all[i].r = all[2 * i + 2];
}
globalThis.benchTree = all[0];
all = null; // the snapshot's own garbage collection frees the array
v8.writeHeapSnapshot(out);
