// Writes a JavaScriptCore heap snapshot (and the V8-format snapshot of the
// same heap) of about N cells, for bench/jsc_bench.sh:
//   bun make_snapshot.js OUT_PREFIX N   ->  OUT_PREFIX.json, OUT_PREFIX.heapsnapshot
// The heap: a tree of plain objects (fan-out 8) under globalThis.root, each
// with a small array and a string, so edges are property, index and internal.
const fs = require("fs");
const [out, count] = [process.argv[2], Number(process.argv[3] || 1000000)];
class Node { constructor(i) { this.i = i; this.kids = []; this.name = "n" + i; } }
const nodes = [new Node(0)];
globalThis.root = nodes[0];
for (let i = 1; nodes.length * 3 < count; i++) {
    const n = new Node(i);
    nodes[(i - 1) >> 3].kids.push(n);
    nodes.push(n);
}
nodes.length = 0;
Bun.gc(true);
fs.writeFileSync(out + ".json", JSON.stringify(Bun.generateHeapSnapshot()));
fs.writeFileSync(out + ".heapsnapshot", Bun.generateHeapSnapshot("v8"));
