// Per-step durability: a tool conversation through the conductor over a SessionStore makes every
// settled step durable (the reply before its tools run, the results as the batch settles). Measured
// against a raw write + fsync of exactly the bytes each of those commits appended, made right after each
// commit, in the same moments (a disk that slows down under other work slows both), and left out of the
// conversation's time; and the conductor's own overhead per step with durable steps (in memory, without
// the fsync) against none. Targets: durable step <= 1.2x the raw writes, the median of the samples' ratios.
import { mkdtempSync, openSync, closeSync, readSync, rmSync, statSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConductor, MemorySessionStore, SessionStore } from '../src/runtime/index.js';
import type { SessionStoreLike } from '../src/runtime/index.js';
import { counterScript, counterTool, instantModel } from './counter-conversation.js';
import { fmt, median, now, report } from './stats.js';

const STEPS = 200;
const SAMPLES = 7;

/**
 * A store that, after each append, writes and fsyncs the very bytes it added to the session file into
 * `raw`, timing that and the time it spends on it (left out of the conversation's).
 */
function measuring(store: SessionStore, file: string, raw: FileHandle) {
  const spent = { raw: 0, aside: 0, commits: 0 };
  let size = 0;
  const measured: SessionStoreLike = {
    acquire: (id) => store.acquire(id),
    read: (id) => store.read(id),
    readLivePath: (id) => store.readLivePath(id),
    release: (lease) => store.release(lease),
    async append(lease, records) {
      const written = await store.append(lease, records);
      const t0 = now();
      const grown = statSync(file).size;
      const bytes = Buffer.alloc(grown - size);
      const fd = openSync(file, 'r');
      readSync(fd, bytes, 0, bytes.length, size);
      closeSync(fd);
      size = grown;
      const r0 = now();
      await raw.write(bytes, 0, bytes.length);
      await raw.sync();
      spent.raw += now() - r0;
      spent.commits++;
      spent.aside += now() - t0;
      return written;
    },
  };
  return { store: measured, spent };
}

// The CPU time (ms, every thread of the process) the last conversation took: on a loaded machine a
// run of a few milliseconds is often preempted, which the wall clock counts and the CPU clock does not.
let lastCpu = 0;

async function conversation(deps: { store?: SessionStoreLike }): Promise<number> {
  const agent = createConductor(
    { model: 'bench', tools: [counterTool], maxSteps: STEPS, sessionId: 's' },
    { invokeModel: instantModel(counterScript(STEPS)), ...deps },
  );
  const c0 = process.cpuUsage();
  const t0 = now();
  await agent.submit('count');
  const elapsed = now() - t0;
  const cpu = process.cpuUsage(c0);
  lastCpu = (cpu.user + cpu.system) / 1000;
  await agent.close();
  return elapsed;
}

const dir = mkdtempSync(join(tmpdir(), 'indusagi-bench-durable-'));
try {
  // Warm the JIT on the in-memory paths first.
  for (let i = 0; i < 40; i++) {
    await conversation({});
    await conversation({ store: new MemorySessionStore() });
  }

  const durable: number[] = [];
  const raw: number[] = [];
  let commits = 0;
  for (let sample = 0; sample < SAMPLES; sample++) {
    const root = join(dir, `files-${sample}`);
    const rawFile = await open(join(dir, `raw-${sample}.jsonl`), 'a');
    const measured = measuring(new SessionStore(root), join(root, 's.jsonl'), rawFile);
    const elapsed = await conversation({ store: measured.store });
    await rawFile.close();
    durable.push(elapsed - measured.spent.aside);
    raw.push(measured.spent.raw);
    commits = measured.spent.commits;
  }
  console.log(
    `durable steps: a ${STEPS}-step tool conversation over a SessionStore, ${commits} commits (the prompt, each reply with calls, each batch of results, the answer), median of ${SAMPLES}`,
  );
  // How fast the disk syncs moves between samples under other work; within one the two sides shared it.
  // The sample whose ratio is the median is the one reported.
  const order = durable.map((_, i) => i).sort((a, b) => durable[a] / raw[a] - durable[b] / raw[b]);
  const mid = order[order.length >> 1];
  report('  per-step durability, conductor vs raw write+fsync of the same bytes', durable[mid] / STEPS, raw[mid] / STEPS, 'ms/step', 1.2);
  console.log(`  (per-sample ratios: ${order.map((i) => (durable[i] / raw[i]).toFixed(2)).join(', ')})`);

  const none: number[] = [];
  const inMemory: number[] = [];
  const noneCpu: number[] = [];
  const inMemoryCpu: number[] = [];
  for (let sample = 0; sample < 15; sample++) {
    none.push(await conversation({}));
    noneCpu.push(lastCpu);
    inMemory.push(await conversation({ store: new MemorySessionStore() }));
    inMemoryCpu.push(lastCpu);
  }
  const perStep = (ms: number) => (ms * 1000) / STEPS;
  console.log(
    `loop overhead per step (in-process model and tool, median of 15): no store ${fmt(perStep(median(none)))} us, durable steps in a MemorySessionStore ${fmt(perStep(median(inMemory)))} us`,
  );
  report('  durable steps (in memory) vs none', median(inMemory), median(none), 'ms', 1.5);
  report('  durable steps (in memory) vs none, CPU time', median(inMemoryCpu), median(noneCpu), 'ms', 1.5);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
