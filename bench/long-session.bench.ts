// What a long conversation costs, against what it cannot cost less than, measured in the same run:
// 1. Resuming a 10,000-turn live context (no condensation: the model sees all of it), written through
//    each store (a persist per run of 4 turns: bench/session-turns.ts), `loadSession` + `resume(leaf)`,
//    against a raw read of the session's file and `JSON.parse` of every line, keeping the records (what
//    any resume must at least do). Targets: files <= 1.5x, memory and PostgreSQL <= 2x.
// 2. A one-prompt turn (`agent.submit`, an in-process model answering at once) on that 10,000-turn
//    session against the same on a 10-turn one, in each store. Both agents are open side by side and take
//    turns, so a disk or a database slowed by other work slows both. Target: <= 1.2x.
// Rounds alternate between subject and baseline; figures are medians. No forced gc() between rounds:
// a full collection right before a timed load makes its own allocations pay for the sweep.
// PostgreSQL: INDUSAGI_BENCH_DATABASE_URL, else a throwaway cluster like the tests'; the store owns its pool
// (the bench's own pool only sets up and drops the schema). BENCH_STORES picks the stores (default
// files,memory,postgres).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createConductor, MemorySessionStore, SessionStore, SessionWriter } from '../src/runtime/index.js';
import type { Agent, ModelInvoker, SessionGraph, SessionStoreLike } from '../src/runtime/index.js';
import { PostgresSessionStore } from '../src/postgres/index.js';
import { benchDatabase } from './postgres-server.js';
import { run } from './session-turns.js';
import { median, now, report } from './stats.js';

const LONG = 10_000;
const SHORT = 10;
const RESUMES = 31;
const TURNS = 60;
const STORES = (process.env.BENCH_STORES ?? 'files,memory,postgres').split(',');

type Loader = SessionStoreLike & { loadSession(id: string): Promise<SessionGraph> };

/** A session of `turns` turns written the way an agent writes one: a persist per settled run of 4 turns. */
async function write(store: SessionStoreLike, id: string, turns: number): Promise<void> {
  const writer = await SessionWriter.open(store, id);
  let at = 1_700_000_000_000;
  for (let i = 0; i * 4 < turns; i++) {
    for (const turn of run(i)) writer.append(turn, at++);
    await writer.persist();
  }
  await writer.close();
}

/** The baseline: the file read whole, every line parsed, the records kept. */
function rawReadParse(path: string): unknown[] {
  const bytes = readFileSync(path);
  const records: unknown[] = [];
  for (let start = 0; start < bytes.length;) {
    let end = bytes.indexOf(0x0a, start);
    if (end < 0) end = bytes.length;
    if (end > start) records.push(JSON.parse(bytes.toString('utf8', start, end)));
    start = end + 1;
  }
  return records;
}

async function resume(store: Loader, id: string): Promise<number> {
  const graph = await store.loadSession(id);
  return graph.resume(graph.leaf!).length;
}

const usage = { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 };
const answer: ModelInvoker = async () => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'Done.' }] },
  stopReason: 'end_turn',
  usage,
});

/** Median milliseconds of a one-prompt turn on the short and on the long session, taken in turns. */
async function turns(store: SessionStoreLike): Promise<{ short: number; long: number }> {
  const open = async (id: string): Promise<Agent> => {
    const agent = createConductor({ model: 'bench', sessionId: id }, { invokeModel: answer, store });
    await agent.resume(id);
    return agent;
  };
  const agents = { short: await open('short'), long: await open('long') };
  const times = { short: [] as number[], long: [] as number[] };
  for (let i = 0; i < TURNS + 10; i++) {
    for (const side of i % 2 === 0 ? (['short', 'long'] as const) : (['long', 'short'] as const)) {
      const t0 = now();
      await agents[side].submit(`question ${i}`);
      if (i >= 10) times[side].push(now() - t0);
    }
  }
  await agents.short.close();
  await agents.long.close();
  return { short: median(times.short), long: median(times.long) };
}

const dir = mkdtempSync(join(tmpdir(), 'indusagi-long-session-'));
const database = STORES.includes('postgres') ? await benchDatabase() : undefined;
const pool = database === undefined ? undefined : new pg.Pool({ connectionString: database.url, max: 4 });
// Stopping the throwaway cluster ends the pool's idle connections; that is expected here.
pool?.on('error', (error) => console.error(`pool: ${error.message}`));
try {
  const files = new SessionStore(dir);
  await write(files, 'long', LONG);
  const path = files.pathOf('long');
  const stores: Array<{ name: string; store: Loader }> = [];
  for (const name of STORES) {
    if (name === 'files') stores.push({ name, store: files });
    else if (name === 'memory') stores.push({ name, store: new MemorySessionStore() });
    else if (name === 'postgres') {
      // The store makes its own pool, as the docs set one up: its reads then need no transaction for the limits.
      const store = new PostgresSessionStore({ connectionString: database!.url }, { schema: `bench_long_${process.pid}` });
      await store.migrate();
      stores.push({ name, store });
    } else throw new Error(`unknown store ${name}`);
  }
  for (const { store } of stores) {
    if (store !== files) await write(store, 'long', LONG);
    await write(store, 'short', SHORT);
  }
  if (pool !== undefined) await pool.query(`ANALYZE "bench_long_${process.pid}".session_nodes`);

  // --- 1. Resume.
  const raw: number[] = [];
  const resumed = new Map<string, number[]>(stores.map(({ name }) => [name, []]));
  let context = 0;
  for (let round = 0; round < RESUMES + 2; round++) {
    let t0 = now();
    if (rawReadParse(path).length < LONG) throw new Error('the raw baseline read less than the session');
    if (round >= 2) raw.push(now() - t0);
    for (const { name, store } of stores) {
      t0 = now();
      context = await resume(store, 'long');
      if (round >= 2) resumed.get(name)!.push(now() - t0);
      if (context !== LONG) throw new Error(`${name} resumed ${context} turns`);
    }
  }
  console.log(
    `resume of a ${LONG}-turn live context (loadSession + resume), median of ${RESUMES}, against a raw read + JSON.parse of its file`,
  );
  const targets: Record<string, number> = { files: 1.5, memory: 2, postgres: 2 };
  for (const { name } of stores) report(`  ${name}`, median(resumed.get(name)!), median(raw), 'ms', targets[name]);

  // --- 2. A turn on a long conversation.
  console.log(`a one-prompt turn on a ${LONG}-turn session against a ${SHORT}-turn one, taking turns, median of ${TURNS} each`);
  for (const { name, store } of stores) {
    const { short, long } = await turns(store);
    report(`  ${name}`, long, short, 'ms', 1.2);
  }
  for (const { store } of stores) if (store instanceof PostgresSessionStore) await store.close();
  await pool?.query(`DROP SCHEMA "bench_long_${process.pid}" CASCADE`);
} finally {
  rmSync(dir, { recursive: true, force: true });
  await pool?.end();
  await database?.stop();
}
