// Writes testdata/jsc/bun-small.json, the README's JavaScriptCore example:
//   bun tests/bun/make_small.js > testdata/jsc/bun-small.json
class Session { constructor(user) { this.user = user; this.log = []; } }
globalThis.app = { sessions: [] };
for (let i = 0; i < 3; i++) app.sessions.push(new Session("user" + i));
Bun.gc(true);
console.log(JSON.stringify(Bun.generateHeapSnapshot()));
