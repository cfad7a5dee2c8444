// Bundles the heap snapshot worker of the npm package chrome-devtools-frontend
// (its TypeScript sources, front_end/entrypoints/heap_snapshot_worker/) into
// one CommonJS script for Node.js, with esbuild:
//   node devtools_bundle.js ESBUILD_DIR PACKAGE_DIR OUT.js
// i18n (progress messages, UI strings of modules the worker imports) is
// replaced by a stub that answers any call: the figures do not depend on it.
'use strict';
const path = require('path');
const fs = require('fs');
const [esbuildDir, pkg, out] = process.argv.slice(2);
const esbuild = require(path.resolve(esbuildDir, 'node_modules', 'esbuild'));
const entry = path.join(pkg, 'gcheap-entry.js');
fs.writeFileSync(entry, [
  "export {JSHeapSnapshot, HeapSnapshotProgress, SecondaryInitManager} from './front_end/entrypoints/heap_snapshot_worker/HeapSnapshot.js';",
  "export {TypedArrayUtilities} from './front_end/core/platform/platform.js';",
  ''
].join('\n'));
const stubI18n = {
  name: 'stub-i18n',
  setup(build) {
    build.onResolve({filter: /(^|\/)i18n\/i18n\.js$/}, () => ({path: 'i18n-stub', namespace: 'stub'}));
    build.onLoad({filter: /.*/, namespace: 'stub'}, () => ({
      contents: 'const f = new Proxy(function() {}, {get: (t, p) => p === Symbol.toPrimitive ? () => \'\' : f, ' +
          'apply: () => f}); export const i18n = f;',
      loader: 'js',
    }));
  },
};
esbuild.build({
  entryPoints: [entry], bundle: true, platform: 'node', format: 'esm', outfile: out,
  logLevel: 'error', plugins: [stubI18n], target: 'node18',
}).catch(() => process.exit(1));
