// PostgresSessionStore against the database it runs on, in the same run:
// 1. 50 sessions at once, each appending settled steps (one node, one persist: what the conductor does
//    after every step), vs raw INSERTs of the same rows into a table with the same key (target >= 0.7x).
// 2. Resume (load + context at the leaf) of a 100,000-turn session vs a 1,000-turn one, both condensed
//    every 100 turns as a long conversation is (target < 2x).
// 3. Opening a 40,000-node session never condensed (its live path is all of it) in a schema whose
//    tables were never analyzed (autovacuum off: a new deployment before its first pass) vs the file
//    store opening the same session (target: the same order, < 10x).
// PostgreSQL: INDUSAGI_BENCH_DATABASE_URL, else a throwaway cluster like the tests'.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PostgresSessionStore } from '../src/postgres/index.js';
import { SessionStore, SessionWriter, type SessionGraph, type Turn } from '../src/runtime/index.js';
import { benchDatabase } from './postgres-server.js';
import { fmt, median, now, report } from './stats.js';

const SESSIONS = 50;
const STEPS = Number(process.env.BENCH_STEPS ?? 100);
const LONG = Number(process.env.BENCH_LONG_TURNS ?? 100_000);
const SHORT = 1_000;
const COMPACT_EVERY = 100;
const RESUMES = 30;
const BIG = 40_000;

const say = (role: Turn['role'], text: string): Turn => ({ role, blocks: [{ kind: 'text', text }] });
const filler = 'The quick brown fox jumps over the lazy dog while the agent reads the ledger. '.repeat(3);

const { url, stop } = await benchDatabase();

try {
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  // Stopping the throwaway cluster ends the pool's idle connections; that is expected here.
  pool.on('error', (error) => console.error(`pool: ${error.message}`));
  const schema = `bench_sessions_${process.pid}`;
  const store = new PostgresSessionStore({ pool }, { schema });
  await store.migrate();

  // --- 1. Concurrent settled steps.
  const rounds = async (label: string) => {
    const writers = await Promise.all(Array.from({ length: SESSIONS }, (_, i) => SessionWriter.open(store, `${label}-${i}`)));
    const rows: Array<[string, string, string | null, string]> = [];
    const t0 = now();
    await Promise.all(
      writers.map(async (writer) => {
        for (let step = 0; step < STEPS; step++) {
          const parent = writer.graph.leaf;
          const node = writer.append(say(step % 2 === 0 ? 'user' : 'assistant', `${step} ${filler}`), step);
          rows.push([writer.sessionId, node.id, parent, JSON.stringify(node)]);
          await writer.persist();
        }
      }),
    );
    const elapsed = now() - t0;
    for (const writer of writers) await writer.close();
    return { elapsed, rows };
  };
  await pool.query(`CREATE TABLE "${schema}".raw_nodes (tenant text NOT NULL, session text NOT NULL, id text NOT NULL, parent text, node text NOT NULL,
    PRIMARY KEY (tenant, session, id))`);
  const raw = async (rows: Array<[string, string, string | null, string]>) => {
    const bySession = new Map<string, typeof rows>();
    for (const row of rows) bySession.set(row[0], [...(bySession.get(row[0]) ?? []), row]);
    const t0 = now();
    await Promise.all(
      [...bySession.values()].map(async (list) => {
        for (const [session, id, parent, node] of list) {
          await pool.query(`INSERT INTO "${schema}".raw_nodes (tenant, session, id, parent, node) VALUES ('', $1, $2, $3, $4)`, [
            session,
            id,
            parent,
            node,
          ]);
        }
      }),
    );
    return now() - t0;
  };
  // A warm-up round of each, then the measured ones, alternating so neither gets a quieter machine.
  const warm = await rounds('warm');
  await raw(warm.rows);
  const storeRates: number[] = [];
  const rawRates: number[] = [];
  for (let run = 0; run < 3; run++) {
    const measured = await rounds(`run${run}`);
    storeRates.push((SESSIONS * STEPS) / (measured.elapsed / 1000));
    await pool.query(`TRUNCATE "${schema}".raw_nodes`);
    rawRates.push((SESSIONS * STEPS) / ((await raw(measured.rows)) / 1000));
  }
  const storeRate = median(storeRates);
  const rawRate = median(rawRates);
  console.log(`${SESSIONS} sessions x ${STEPS} settled steps: store ${fmt(storeRate)} steps/s, raw INSERT ${fmt(rawRate)} rows/s`);
  const ratio = storeRate / rawRate;
  console.log(
    `settled steps/s vs raw INSERTs of the same rows = ${ratio.toFixed(2)}x (target >= 0.7x: ${ratio >= 0.7 ? 'met' : 'MISSED'})`,
  );

  // --- 2. Resume: 100,000 turns vs 1,000.
  const build = async (id: string, turns: number) => {
    const writer = await SessionWriter.open(store, id);
    let keptFrom: string | null = null;
    for (let i = 0; i < turns; i++) {
      if (i > 0 && i % COMPACT_EVERY === 0) {
        writer.append(say('user', `[condensed] everything before turn ${i}`), i, { condenses: { firstKept: keptFrom } });
      } else {
        const node = writer.append(say(i % 2 === 0 ? 'user' : 'assistant', `${i} ${filler}`), i);
        if (i % COMPACT_EVERY === COMPACT_EVERY - 4) keptFrom = node.id;
      }
      if (i % 1_000 === 999) await writer.persist();
    }
    await writer.close();
  };
  let t0 = now();
  await build('short', SHORT);
  await build('long', LONG);
  console.log(`built sessions of ${SHORT} and ${LONG} turns (condensed every ${COMPACT_EVERY}) in ${fmt((now() - t0) / 1000)} s`);
  await pool.query(`VACUUM ANALYZE "${schema}".session_nodes`);
  const resume = async (id: string) => {
    const graph: SessionGraph = await store.loadSession(id);
    return graph.resume(graph.leaf!).length;
  };
  const times = async (id: string) => {
    const out: number[] = [];
    for (let i = 0; i < RESUMES; i++) {
      const start = now();
      await resume(id);
      out.push(now() - start);
    }
    return out;
  };
  await times('short');
  await times('long');
  const short = median(await times('short'));
  const long = median(await times('long'));
  console.log(
    `resume context: ${await resume('short')} turns (1,000-turn session, read whole), ${await resume('long')} turns (${LONG}-turn session, live path only)`,
  );
  report(`resume of a ${LONG}-turn session vs a ${SHORT}-turn one (median of ${RESUMES})`, long, short, 'ms', 2);

  // --- 3. A big session on a table without statistics, against the file store.
  const freshSchema = `bench_unanalyzed_${process.pid}`;
  const fresh = new PostgresSessionStore({ pool }, { schema: freshSchema });
  await fresh.migrate();
  for (const table of ['sessions', 'session_nodes', 'session_starts'])
    await pool.query(`ALTER TABLE "${freshSchema}".${table} SET (autovacuum_enabled = false)`);
  const dir = await mkdtemp(join(tmpdir(), 'indusagi-bench-open-'));
  const files = new SessionStore(dir);
  for (const target of [fresh, files]) {
    const session = await SessionWriter.open(target, 'big');
    for (let i = 0; i < BIG; i++) {
      session.append(say(i % 2 === 0 ? 'user' : 'assistant', `${i} ${filler}`), i);
      if (i % 1_000 === 999) await session.persist();
    }
    await session.close();
  }
  const [{ analyzed }] = (
    await pool.query(
      `SELECT coalesce(last_analyze, last_autoanalyze) IS NOT NULL AS analyzed FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'session_nodes'`,
      [freshSchema],
    )
  ).rows;
  if (analyzed) throw new Error('the unanalyzed schema was analyzed: the figure would not be the one wanted');
  const opens = async (target: PostgresSessionStore | SessionStore) => {
    const out: number[] = [];
    for (let i = 0; i < 7; i++) {
      const start = now();
      const session = await SessionWriter.open(target, 'big');
      const { graph } = session;
      if (graph.resume(graph.leaf!).length !== BIG) throw new Error('the open did not read the whole live path');
      out.push(now() - start);
      await session.close();
    }
    return median(out);
  };
  const pgOpen = await opens(fresh);
  const fileOpen = await opens(files);
  report(`open of a ${BIG}-node session, PostgreSQL never analyzed vs files (median of 7)`, pgOpen, fileOpen, 'ms', 10);
  await rm(dir, { recursive: true, force: true });
  await fresh.close();
  await pool.query(`DROP SCHEMA "${freshSchema}" CASCADE`);

  await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await store.close();
  await pool.end();
} finally {
  await stop();
}
