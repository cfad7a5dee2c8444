// Writes a real Node.js heap snapshot of about NODES nodes for the benchmark:
//   node --max-old-space-size=MB make_snapshot.js OUT NODES
// The heap: NODES/2 instances of class Item in a binary tree (each holds its
// parent) kept by one array, each with its own label string (one string node
// per Item), on top of Node's own heap (~45k nodes).
'use strict';
const v8 = require('v8');

class Item {
  constructor(i, parent) {
    this.id = i;
    this.parent = parent;
    this.label = 'item-' + i;
  }
}

const out = process.argv[2];
const items = Math.max(1, Math.floor(Number(process.argv[3]) / 2));
const all = new Array(items);
for (let i = 0; i < items; i++)
  all[i] = new Item(i, i ? all[(i - 1) >> 1] : null);
globalThis.benchItems = all;
v8.writeHeapSnapshot(out);
