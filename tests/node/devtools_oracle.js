// Runs the heap snapshot worker of Chrome DevTools (bundled from the npm
// package chrome-devtools-frontend by devtools_bundle.js) on a snapshot and
// writes what its views show, for tests/cli/test_v8_devtools.sh:
//   node devtools_oracle.js WORKER.mjs SNAPSHOT OUTDIR
// OUTDIR/nodes.tsv    per node: id, class name (Summary group), self size
//                     (after calculateShallowSizes), retained size, distance
//                     (-5 = none), dominator's id, node type, raw name
// OUTDIR/summary.tsv  per Summary row (getAggregatesByClassKey, no filter):
//                     name, count, self, retained, distance
// OUTDIR/stats.json   getStatistics() (the Statistics view)
// The snapshot is parsed with JSON.parse (the worker's own loader only adds
// streaming); the worker's classes then do everything else.
'use strict';
const fs = require('fs');
const path = require('path');

// Node.js before 22 lacks Promise.withResolvers, which the worker uses.
if (!Promise.withResolvers) {
  Promise.withResolvers = () => {
    let resolve, reject;
    const promise = new Promise((a, b) => { resolve = a; reject = b; });
    return {promise, resolve, reject};
  };
}

async function main() {
  console.warn = () => {}; // the worker's problem reports (nodes only weak retainers hold)
  const [worker, snapFile, outDir] = process.argv.slice(2);
  const W = await import(path.resolve(worker));
  const json = JSON.parse(fs.readFileSync(snapFile, 'utf8'));
  const big = a => {
    const r = W.TypedArrayUtilities.createFixedBigUint32Array(a.length);
    for (let i = 0; i < a.length; i++) r.setValue(i, a[i]);
    return r;
  };
  const profile = {
    snapshot: json.snapshot, nodes: big(json.nodes), edges: big(json.edges), strings: json.strings,
    samples: json.samples || [], locations: json.locations || [],
  };
  delete json.nodes;
  delete json.edges;
  const snap = new W.JSHeapSnapshot(profile, new W.HeapSnapshotProgress());
  const channel = new MessageChannel();
  new W.SecondaryInitManager(channel.port2);
  await snap.initialize(channel.port1);
  channel.port1.close();

  const out = [];
  const node = snap.createNode(0);
  const idOf = new Uint32Array(snap.nodeCount);
  for (let i = 0; i < snap.nodeCount; i++) {
    node.nodeIndex = i * snap.nodeFieldCount;
    idOf[i] = node.id();
  }
  for (let i = 0; i < snap.nodeCount; i++) {
    node.nodeIndex = i * snap.nodeFieldCount;
    out.push([node.id(), JSON.stringify(node.className()), node.selfSize(), node.retainedSize(),
              node.distance(), idOf[snap.dominatorsTree[i]], node.type(), JSON.stringify(node.rawName())].join('\t'));
  }
  fs.writeFileSync(path.join(outDir, 'nodes.tsv'), out.join('\n') + '\n');
  const agg = snap.getAggregatesByClassKey(false, 'allObjects');
  const rows = [];
  for (const key of Object.keys(agg)) {
    const a = agg[key];
    rows.push([JSON.stringify(a.name), a.count, a.self, a.maxRet, a.distance, JSON.stringify(key)].join('\t'));
  }
  fs.writeFileSync(path.join(outDir, 'summary.tsv'), rows.join('\n') + '\n');
  fs.writeFileSync(path.join(outDir, 'stats.json'), JSON.stringify(snap.getStatistics()) + '\n');
}
main().then(() => process.exit(0), e => { console.error(e && e.stack || e); process.exit(1); });
