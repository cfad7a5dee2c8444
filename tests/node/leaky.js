// Builds a known heap and writes a V8 heap snapshot:
//   node leaky.js OUT.heapsnapshot [COUNT]
// COUNT (1000) instances of class Leaky, each holding a 1 KiB-ish array of numbers,
// retained through a Map held by a global cache object.
'use strict';
const v8 = require('v8');

class Leaky {
  constructor(i) {
    this.index = i;
    this.payload = new Array(100).fill(i);
    this.label = 'leaky-' + i;
  }
}

class Holder {
  constructor() {
    this.cache = new Map();
  }
}

globalThis.leakHolder = new Holder();
const count = Number(process.argv[3] || 1000);
for (let i = 0; i < count; i++)
  globalThis.leakHolder.cache.set(i, new Leaky(i));
// A weakly held object: only a WeakRef points at it.
globalThis.weakOnly = new WeakRef({ weakTarget: new Array(50).fill(7) });
globalThis.unicodeKey = { 'ключ \u{1F600}': 'значение "quoted"\n' };

const out = process.argv[2];
v8.writeHeapSnapshot(out);
