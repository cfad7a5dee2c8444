// memlab's side of bench/memlab_compare.sh: loads a V8 heap snapshot with
// memlab (@memlab/core: utils.getSnapshotFromFile, then TraceFinder's
// calculateAllNodesRetainedSizes: the dominator tree and retained sizes) and
// prints the N nodes that retain the most, as TSV: id, self, retained, type
// (DevTools' class name), name. Timings go to stderr.
//   node top.js SNAPSHOT [N]
'use strict';
const { utils, TraceFinder, config } = require('@memlab/core');

(async () => {
  const file = process.argv[2];
  const top = Number(process.argv[3] || 20);
  config.muteConsole = true;
  const t0 = process.hrtime.bigint();
  const heap = await utils.getSnapshotFromFile(file, { buildNodeIdIndex: false });
  const t1 = process.hrtime.bigint();
  new TraceFinder().calculateAllNodesRetainedSizes(heap);
  const t2 = process.hrtime.bigint();
  const rows = [];
  heap.nodes.forEach(node => {
    rows.push([node.id, node.self_size, node.retainedSize, node.type, node.name]);
  });
  rows.sort((a, b) => b[2] - a[2] || a[0] - b[0]);
  for (const r of rows.slice(0, top)) {
    const cls = r[3] === 'hidden' ? '(system)' : r[3] === 'object' || r[3] === 'native' ? (r[4] || '(no name)')
      : r[3] === 'code' ? '(compiled code)' : '(' + r[3] + ')';
    console.log(`${r[0]}\t${r[1]}\t${r[2]}\t${cls}`);
  }
  const ms = ns => Number(ns / 1000000n);
  console.error(`memlab: ${heap.nodes.length} nodes; load ${ms(t1 - t0)} ms, dominators+retained ${ms(t2 - t1)} ms`);
})().catch(e => { console.error(e); process.exit(1); });
