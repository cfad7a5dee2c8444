// memlab's own analysis load (what `memlab analyze` and @memlab/heap-analysis
// plugins run before any report): getSnapshotFromFile with the node id index
// (buildNodeIdIndex: true), then analysis.preparePathFinder (dominators,
// retained sizes, the path finder). Prints the node count and the timings to
// stderr, nothing else.
//   node --max-old-space-size=MB analyze.js SNAPSHOT
'use strict';
const { utils, analysis, config } = require('@memlab/core');

(async () => {
  config.muteConsole = true;
  const t0 = process.hrtime.bigint();
  const heap = await utils.getSnapshotFromFile(process.argv[2], { buildNodeIdIndex: true });
  const t1 = process.hrtime.bigint();
  analysis.preparePathFinder(heap);
  const t2 = process.hrtime.bigint();
  const ms = ns => Number(ns / 1000000n);
  console.error(`memlab analyze: ${heap.nodes.length} nodes; load ${ms(t1 - t0)} ms, preparePathFinder ${ms(t2 - t1)} ms`);
})().catch(e => { console.error(e); process.exit(1); });
