// Takes a heap snapshot of a page in headless Chromium over CDP
// (HeapProfiler.takeHeapSnapshot, the chunks joined), as DevTools' Memory
// panel does:   node heap_snapshot.js CHROMIUM PAGE.html OUT.heapsnapshot
'use strict';
const fs = require('fs');
const path = require('path');
const { open } = require('./cdp.js');

async function main() {
  const [exe, page, out] = process.argv.slice(2);
  const { page: p, close } = await open(exe, 'file://' + path.resolve(page));
  try {
    const chunks = [];
    const dispatch = p.dispatch.bind(p);
    p.dispatch = (msg) => {
      if (msg.method === 'HeapProfiler.addHeapSnapshotChunk') chunks.push(msg.params.chunk);
      else dispatch(msg);
    };
    await p.eval('window.ready === true');
    await p.send('HeapProfiler.enable');
    await p.send('HeapProfiler.collectGarbage');
    await p.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    fs.writeFileSync(out, chunks.join(''));
  } finally {
    close();
  }
}
main().then(() => process.exit(0), (e) => { console.error(e && e.stack || e); process.exit(1); });
