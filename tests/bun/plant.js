// Plants a known heap in Bun and writes, from one pause (no allocation by
// the program between them): heapStats() of bun:jsc, the JavaScriptCore heap
// snapshot and the V8-format snapshot of the same heap.
//   bun plant.js OUT_DIR LEAKY_COUNT
// OUT_DIR/jsc.json, OUT_DIR/v8.heapsnapshot, OUT_DIR/stats.json,
// OUT_DIR/made.tsv (class, count the program made and holds).
const { heapStats } = require("bun:jsc");
const fs = require("fs");
const out = process.argv[2];
const leakyCount = Number(process.argv[3] || 1000);

class Leaky { constructor(i) { this.i = i; this.tag = "leaky-" + i; } }
class Holder { constructor() { this.items = []; this.index = new Map(); } }
class Pair { constructor(a, b) { this.a = a; this.b = b; } }

const made = { Leaky: leakyCount, Holder: 1, Pair: 0, Map: 0, Set: 0 };
globalThis.keep = { holder: new Holder() };
made.Map++;
for (let i = 0; i < leakyCount; i++) {
    const l = new Leaky(i);
    keep.holder.items.push(l);
    if (i % 10 === 0) { keep.holder.index.set(i, new Pair(l, null)); made.Pair++; }
}
globalThis.maps = [];
for (let i = 0; i < 37; i++) { maps.push(new Map([[i, i]])); made.Map++; }
globalThis.sets = [];
for (let i = 0; i < 23; i++) { sets.push(new Set([i])); made.Set++; }

Bun.gc(true);
const stats = heapStats();
const jsc = Bun.generateHeapSnapshot();
const v8 = Bun.generateHeapSnapshot("v8");
fs.writeFileSync(out + "/jsc.json", JSON.stringify(jsc));
fs.writeFileSync(out + "/v8.heapsnapshot", v8);
fs.writeFileSync(out + "/stats.json", JSON.stringify(stats.objectTypeCounts));
fs.writeFileSync(out + "/made.tsv", Object.entries(made).map(([k, v]) => k + "\t" + v).join("\n") + "\n");
