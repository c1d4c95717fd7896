// Per-step durability: a tool conversation through the conductor over a SessionStore makes every
// settled step durable (the reply before its tools run, the results as the batch settles). Measured
// against a raw write + fsync of exactly the bytes each of those commits appended, in the same run;
// and the conductor's own overhead per step with durable steps (in memory, without the fsync) against
// none. Targets: durable step <= 1.2x the raw writes.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConductor, MemorySessionStore, SessionStore } from '../src/runtime/index.js';
import type { SessionStoreLike } from '../src/runtime/index.js';
import { counterScript, counterTool, instantModel } from './counter-conversation.js';
import { fmt, median, now, report } from './stats.js';

const STEPS = 200;
const SAMPLES = 7;

/** A store that remembers how many bytes each append added to the session file. */
function measuring(store: SessionStore, file: () => string): { store: SessionStoreLike; chunks: number[] } {
  const chunks: number[] = [];
  let size = 0;
  return {
    chunks,
    store: {
      acquire: (id) => store.acquire(id),
      read: (id) => store.read(id),
      readLivePath: (id) => store.readLivePath(id),
      release: (lease) => store.release(lease),
      async append(lease, records) {
        const written = await store.append(lease, records);
        const now = statSync(file()).size;
        if (now > size) chunks.push(now - size);
        size = now;
        return written;
      },
    },
  };
}

async function conversation(deps: { store?: SessionStoreLike }): Promise<number> {
  const agent = createConductor(
    { model: 'bench', tools: [counterTool], maxSteps: STEPS, sessionId: 's' },
    { invokeModel: instantModel(counterScript(STEPS)), ...deps },
  );
  const t0 = now();
  await agent.submit('count');
  const elapsed = now() - t0;
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
  let previous: { chunks: number[]; bytes: Buffer } = { chunks: [], bytes: Buffer.alloc(0) };
  for (let sample = 0; sample < SAMPLES; sample++) {
    const root = join(dir, `files-${sample}`);
    const measured = measuring(new SessionStore(root), () => join(root, 's.jsonl'));
    // The raw side writes the very same bytes, one write + fsync per commit (what the store issues), into
    // a file of its own. Which side goes first alternates, so neither always inherits the other's flushes.
    const rawWrites = async (chunks: number[], bytes: Buffer) => {
      const file = await open(join(dir, `raw-${sample}.jsonl`), 'a');
      let offset = 0;
      const t0 = now();
      for (const length of chunks) {
        await file.write(bytes, offset, length);
        await file.sync();
        offset += length;
      }
      const elapsed = now() - t0;
      await file.close();
      return elapsed;
    };
    if (sample % 2 === 1 && commits > 0) raw.push(await rawWrites(previous.chunks, previous.bytes));
    durable.push(await conversation({ store: measured.store }));
    commits = measured.chunks.length;
    previous = { chunks: measured.chunks, bytes: readFileSync(join(root, 's.jsonl')) };
    if (sample % 2 === 0) raw.push(await rawWrites(previous.chunks, previous.bytes));
  }
  console.log(
    `durable steps: a ${STEPS}-step tool conversation over a SessionStore, ${commits} commits (the prompt, each reply with calls, each batch of results, the answer), median of ${SAMPLES}`,
  );
  report(
    '  per-step durability, conductor vs raw write+fsync of the same bytes',
    median(durable) / STEPS,
    median(raw) / STEPS,
    'ms/step',
    1.2,
  );

  const none: number[] = [];
  const inMemory: number[] = [];
  for (let sample = 0; sample < 15; sample++) {
    none.push(await conversation({}));
    inMemory.push(await conversation({ store: new MemorySessionStore() }));
  }
  const perStep = (ms: number) => (ms * 1000) / STEPS;
  console.log(
    `loop overhead per step (in-process model and tool, median of 15): no store ${fmt(perStep(median(none)))} us, durable steps in a MemorySessionStore ${fmt(perStep(median(inMemory)))} us`,
  );
  report('  durable steps (in memory) vs none', median(inMemory), median(none), 'ms');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
