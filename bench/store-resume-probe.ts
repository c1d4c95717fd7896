// Child process of store-resume.bench.ts: one resume (or one full parse) of a session, reporting the
// peak growth of this process's resident memory during it, as JSON on stdout. A worker thread samples
// the RSS every millisecond, since a full parse keeps the main thread busy throughout.
import { Worker } from 'node:worker_threads';
import { SessionStore } from '../src/runtime/store/index.js';
import { fullParse } from './full-parse.js';

const [mode, dir, id] = process.argv.slice(2);
const store = new SessionStore(dir);
const shared = new Float64Array(new SharedArrayBuffer(16)); // [peak RSS, stop flag]
const sampler = new Worker(
  `const { workerData: shared } = require('node:worker_threads');
   const tick = new Int32Array(new SharedArrayBuffer(4));
   while (shared[1] === 0) { shared[0] = Math.max(shared[0], process.memoryUsage.rss()); Atomics.wait(tick, 0, 0, 1); }`,
  { eval: true, workerData: shared },
);
await new Promise((resolve) => setTimeout(resolve, 50));
(globalThis as { gc?: () => void }).gc?.();
const before = process.memoryUsage.rss();
shared[0] = before;
if (mode === 'resume') {
  const graph = await store.loadSession(id);
  if (graph.resume(graph.leaf!).length === 0) throw new Error('resumed an empty context');
} else {
  fullParse(store.pathOf(id));
}
const peak = Math.max(shared[0], process.memoryUsage.rss());
shared[1] = 1;
await sampler.terminate();
process.stdout.write(JSON.stringify({ rssGrowthMb: (peak - before) / 1e6 }));
