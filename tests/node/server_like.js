// A small server-like program, then a V8 heap snapshot:
//   node server_like.js OUT.heapsnapshot
// Request handlers (closures), routes matched by regexps, a session Map of
// plain objects of a few shapes, arrays, typed arrays and Buffers, a WeakMap
// (ephemeron edges), a WeakRef, an EventEmitter with listeners, class
// instances: what tests/cli/test_v8_devtools.sh compares with DevTools.
'use strict';
const v8 = require('v8');
const { EventEmitter } = require('events');

class Session {
  constructor(id) {
    this.id = id;
    this.user = { name: 'user' + id, roles: ['reader'] };
    this.started = Date.now();
    this.history = [];
  }
}
const routes = [
  { pattern: /^\/users\/(\d+)$/, handle: (m) => ({ user: +m[1] }) },
  { pattern: /^\/items\/([a-z]+)$/i, handle: (m) => ({ item: m[1] }) },
  { pattern: /^\/health$/, handle: () => ({ ok: true }) },
];
const sessions = new Map();
const bus = new EventEmitter();
bus.setMaxListeners(0);
const meta = new WeakMap();
const buffers = [];
for (let i = 0; i < 300; i++) {
  const s = new Session(i);
  sessions.set('s' + i, s);
  meta.set(s, { touched: i, big: new Array(20).fill(i) });
  bus.on('tick', () => s.history.push(i));
  if (i % 10 === 0) buffers.push(Buffer.alloc(1024, i), new Uint8Array(256));
}
for (let i = 0; i < 200; i++) {
  const path = ['/users/' + i, '/items/abc', '/health'][i % 3];
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (m) { sessions.get('s' + (i % 300)).history.push(r.handle(m)); break; }
  }
}
globalThis.app = { routes, sessions, bus, meta, buffers, cache: { req: 1, big: new Float64Array(512) } };
globalThis.weak = new WeakRef({ gone: new Array(30).fill('x') });
globalThis.configs = Array.from({ length: 40 }, (_, i) => ({ req: i, big: [i, i + 1] }));
v8.writeHeapSnapshot(process.argv[2]);
