// The agent server on PostgreSQL against graphile-worker's own raw jobs, in one run on this machine
// (`npm run bench server`): a worker, an API server and a second API server in this process, each with
// its own pool and LISTEN connection, as separate machines would have.
// 1. Queue-to-start of a background run (POST to the worker beginning it) vs a raw job (addJob to its
//    task beginning), one at a time, the two interleaved, p50/p99 (target <= 1.5x).
// 2. Runs per second with an instant model vs raw jobs per second, same concurrency, on one worker and
//    on three (each a graphile-worker runner of its own, as separate machines would run them), medians
//    of interleaved rounds (target >= 0.5x). The agent is defined once, as a served agent should be:
//    the factory hands back the same config, so a run costs its session, not a build.
// 3. Event fan-out: a worker's write of a run's events to 50 clients of another instance, p50/p99
//    (targets < 20 ms, < 100 ms).
// 4. Reconnect and catch up on a 2,000-event run from a fresh instance (target < 50 ms), vs reading the
//    same rows raw.
// 5. A cancel sent to one instance, to the end of the run on the worker behind another.
// PostgreSQL: INDUSAGI_BENCH_DATABASE_URL, else a throwaway cluster like the tests'.
import { readFileSync } from 'node:fs';
import { makeWorkerUtils, run as runGraphile, Logger } from 'graphile-worker';
import pg from 'pg';
import type { ModelInvoker, ModelReply } from '../src/runtime/index.js';
import {
  bearerTokens,
  createServer,
  migrateServer,
  type AgentFactory,
  type AgentServer,
  type ServerRunEvent,
} from '../src/server/index.js';
import { PostgresBackend } from '../src/server/backend/postgres/backend.js';
import { PostgresWorker } from '../src/server/backend/postgres/worker.js';
import { RunExecutor } from '../src/server/runs/executor.js';
import { postgresStores } from '../src/server/stores.js';
import { benchDatabase } from './postgres-server.js';
import { fmt, median, now, percentile, report } from './stats.js';

const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 150);
const THROUGHPUT_RUNS = Number(process.env.BENCH_RUNS ?? 400);
const THROUGHPUT_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 8;
const FAN_OUT_CLIENTS = 50;
const CATCH_UP_EVENTS = 2_000;
const TOKEN = 'bench-token-0123456789abcdef';
const quiet = new Logger(() => () => {});
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const reply = (text: string): ModelReply => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text }] },
  stopReason: 'end_turn',
  usage: { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 },
});
const instant: ModelInvoker = async () => reply('ok');
/** Streams `words` text deltas `gapMs` apart, then answers with their text; stops when the run is canceled. */
const streaming =
  (words: number, gapMs: number): ModelInvoker =>
  async (request) => {
    let text = '';
    for (let i = 0; i < words; i++) {
      // As a provider's invoker does: a canceled call rejects (the cancel section's models would
      // otherwise stream on for minutes after their runs ended, and keep the process alive).
      request.signal?.throwIfAborted();
      const word = `w${i} `;
      text += word;
      request.onText?.(word);
      await sleep(gapMs);
    }
    return reply(text);
  };

const { url, stop } = await benchDatabase();
const pool = new pg.Pool({ connectionString: url, max: 8 });
pool.on('error', (error) => console.error(`pool: ${error.message}`));
pool.on('connect', (client) => client.on('error', () => {}));
const schema = `bench_server_${process.pid}`;
await migrateServer(url, { schema });
const log = (message: string, error: unknown) => console.error(message, error);

// --- Raw graphile-worker, in its own schema, with the same pool size and concurrency. Started first: its
// migration of a fresh schema makes every graphile-worker on the database stop and start again.
const rawSchema = `${schema}_raw`;
const rawStarted = new Map<number, number>();
const rawDone = new Set<number>();
type RawRunner = { stop(): Promise<void> };
async function startRaw(): Promise<RawRunner> {
  const rawPool = new pg.Pool({ connectionString: url, max: 10 });
  rawPool.on('error', () => {});
  rawPool.on('connect', (client) => client.on('error', () => {}));
  const runner = await runGraphile({
    pgPool: rawPool,
    schema: rawSchema,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    logger: quiet,
    parsedCronItems: [],
    taskList: {
      raw: async (payload) => {
        const { i } = payload as { i: number };
        rawStarted.set(i, now());
        rawDone.add(i);
      },
    },
  });
  return {
    async stop() {
      await runner.stop();
      await rawPool.end();
    },
  };
}
const rawRunners = [await startRaw()];
const utils = await makeWorkerUtils({ pgPool: pool, schema: rawSchema, logger: quiet });

// Which invoker each thread's runs get, and when each run's agent was built (the run began).
const models = new Map<string, ModelInvoker>();
const began = new Map<string, number>();
// Defined once: the same config for every run, so the worker builds its definition once (per invoker).
const served = { model: 'bench' };
const agent: AgentFactory = (context) => {
  began.set(context.runId, now());
  return { config: served, invokeModel: models.get(context.threadId) ?? instant };
};

// A worker, built as createWorker builds it. The first one's event writes are stamped as they leave:
// the fan-out is measured from the worker's write to a client's receipt.
const published = new Map<string, number>();
type BenchWorker = { backend: PostgresBackend; stop(): Promise<void> };
async function startWorker(stamped: boolean): Promise<BenchWorker> {
  const backend = await PostgresBackend.open({ connection: { connectionString: url }, schema, jobSchema: `${schema}_jobs`, log });
  if (stamped) {
    const store = backend.appendEvents.bind(backend);
    backend.appendEvents = async (claim, events) => {
      const at = now();
      for (let i = 0; i < events.length; i++) published.set(`${claim.run.id} ${claim.nextEventId + i}`, at);
      return store(claim, events);
    };
  }
  const stores = postgresStores(backend.pool, schema, 30_000);
  const worker = await PostgresWorker.start({
    backend,
    executor: (workerId) =>
      new RunExecutor({ backend, agent, sessions: stores.sessions, memory: stores.memory, coalesceMs: 20, log }, workerId),
    jobSchema: `${schema}_jobs`,
    concurrency: CONCURRENCY,
    leaseMs: 30_000,
    retentionMs: 3_600_000,
    pollIntervalMs: 2_000,
    log,
  });
  return {
    backend,
    async stop() {
      await worker.stop(5_000);
      await stores.close();
      await backend.close();
    },
  };
}
const workers = [await startWorker(true)];
const authenticate = bearerTokens([{ token: TOKEN, tenant: 'bench', user: 'bench' }]);
const limits = { maxQueuedRunsPerTenant: 100_000 };
const apiA: AgentServer = await createServer({ database: url, schema, authenticate, limits, log });
const apiB: AgentServer = await createServer({ database: url, schema, authenticate, limits, log });
const [a, b] = await Promise.all([apiA.listen(), apiB.listen()]);
const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const post = (base: string, path: string, body?: unknown) =>
  fetch(base + path, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) });
let threads = 0;
async function thread(model?: ModelInvoker): Promise<string> {
  const id = `t${++threads}`;
  if (model !== undefined) models.set(id, model);
  await (await post(a.url, '/threads', { id })).json();
  return id;
}
async function finished(ids: readonly string[]): Promise<void> {
  for (;;) {
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM "${schema}".server_runs WHERE id = ANY($1) AND finished_at IS NOT NULL`,
      [ids],
    );
    if (rows[0].n === ids.length) return;
    await sleep(10);
  }
}

let rawIds = 0;
/** Raw jobs per second: `count` queued in one addJobs statement, until the last has run. */
async function rawThroughput(count: number): Promise<number> {
  const first = rawIds;
  rawIds += count;
  const t0 = now();
  await utils.addJobs(Array.from({ length: count }, (_, i) => ({ identifier: 'raw', payload: { i: first + i } })));
  while (rawDone.size < rawIds) await sleep(5);
  return count / ((now() - t0) / 1000);
}
/** Runs per second with an instant model: `count` POSTed at once (threads made beforehand), until the last has finished. */
async function runThroughput(count: number): Promise<number> {
  const ids = await Promise.all(Array.from({ length: count }, () => thread()));
  const t0 = now();
  const runIds = await Promise.all(
    ids.map(async (id) => ((await (await post(a.url, `/threads/${id}/runs`, { prompt: 'go' })).json()) as { id: string }).id),
  );
  await finished(runIds);
  return count / ((now() - t0) / 1000);
}
/** Interleaved rounds of raw jobs and runs; the medians and the median of the rounds' ratios. */
async function throughput(label: string): Promise<void> {
  const raw: number[] = [];
  const runs: number[] = [];
  for (let round = 0; round < THROUGHPUT_ROUNDS; round++) {
    raw.push(await rawThroughput(THROUGHPUT_RUNS));
    runs.push(await runThroughput(THROUGHPUT_RUNS));
  }
  const ratio = median(runs.map((r, i) => r / raw[i]));
  console.log(
    `throughput, ${label}: ${THROUGHPUT_RUNS} at once, concurrency ${CONCURRENCY} each, ${THROUGHPUT_ROUNDS} rounds (load ${load()}):`,
  );
  console.log(
    `  runs with an instant model ${fmt(median(runs))}/s vs raw jobs ${fmt(median(raw))}/s = ${ratio.toFixed(2)}x (median of the rounds' ratios; target >= 0.5x: ${ratio >= 0.5 ? 'met' : 'MISSED'})`,
  );
}

try {
  // --- 1. Queue-to-start, one at a time, a raw job and a run in turn.
  console.log(`load before: ${load()}`);
  const rawLatency: number[] = [];
  const runLatency: number[] = [];
  const answered: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    const job = rawIds++;
    const r0 = now();
    await utils.addJob('raw', { i: job });
    while (!rawStarted.has(job)) await sleep(0);
    rawLatency.push(rawStarted.get(job)! - r0);

    const id = await thread();
    const t0 = now();
    const response = await post(a.url, `/threads/${id}/runs`, { prompt: 'go' });
    answered.push(now() - t0);
    const run = (await response.json()) as { id: string };
    while (!began.has(run.id)) await sleep(0);
    runLatency.push(began.get(run.id)! - t0);
    await finished([run.id]);
  }
  console.log(`queue-to-start, ${LATENCY_SAMPLES} one at a time, interleaved with raw jobs (load ${load()}):`);
  report('  p50, background run (POST) vs raw job (addJob)', percentile(runLatency, 50), percentile(rawLatency, 50), 'ms', 1.5);
  report('  p99, background run (POST) vs raw job (addJob)', percentile(runLatency, 99), percentile(rawLatency, 99), 'ms', 1.5);
  console.log(`  of which the POST's answer (the run and its job committed): p50 ${fmt(percentile(answered, 50))} ms`);

  // --- 2. Throughput with an instant model, on one worker, then on three.
  await throughput('one worker');
  workers.push(await startWorker(false), await startWorker(false));
  rawRunners.push(await startRaw(), await startRaw());
  await throughput('three workers');
  // The rest runs on the first worker alone (its event writes are the stamped ones).
  for (const extra of workers.splice(1)) await extra.stop();
  for (const extra of rawRunners.splice(1)) await extra.stop();

  // --- 3. Fan-out: 50 clients of instance B; the run executes on the worker, queued through A.
  const fanRun = (
    (await (await post(a.url, `/threads/${await thread(streaming(400, 5))}/runs`, { prompt: 'go' })).json()) as { id: string }
  ).id;
  const fanOut: number[] = [];
  await Promise.all(
    Array.from({ length: FAN_OUT_CLIENTS }, async () => {
      const response = await fetch(`${b.url}/runs/${fanRun}/stream`, { headers });
      const live = now();
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        const at = now();
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const id = /^id: (\d+)$/m.exec(buffer.slice(0, end))?.[1];
          const sent = id === undefined ? undefined : published.get(`${fanRun} ${id}`);
          // Events stored before the client was connected are catch-up, not fan-out.
          if (sent !== undefined && sent >= live) fanOut.push(at - sent);
          buffer = buffer.slice(end + 2);
        }
      }
    }),
  );
  const p50 = percentile(fanOut, 50);
  const p99 = percentile(fanOut, 99);
  console.log(
    `fan-out from the worker's write to ${FAN_OUT_CLIENTS} clients of another instance, ${fanOut.length} deliveries (load ${load()}):`,
  );
  console.log(
    `  p50 ${fmt(p50)} ms (target < 20: ${p50 < 20 ? 'met' : 'MISSED'}), p99 ${fmt(p99)} ms (target < 100: ${p99 < 100 ? 'met' : 'MISSED'})`,
  );

  // --- 4. Catch-up on a 2,000-event run, from an instance that follows nothing.
  const backend = await PostgresBackend.open({ connection: { pool }, schema, jobSchema: `${schema}_jobs`, log });
  const big = await backend.createRun(
    { tenant: 'bench', user: 'bench' },
    await thread(),
    { kind: 'continue' },
    { createThread: false, maxQueued: 1e9, retryAfterSeconds: 1 },
  );
  await finished([big.id]);
  const claimless = await pool.query(`SELECT coalesce(max(seq), 0)::int AS n FROM "${schema}".server_run_events WHERE run = $1`, [big.id]);
  const base = claimless.rows[0].n as number;
  // Pad the finished run's log to 2,000 events before its terminal one, as a long run would have them.
  const filler: ServerRunEvent = { kind: 'text_delta', delta: 'a chunk of a long reply, coalesced from several deltas. ', runId: big.id };
  const terminal = await pool.query(`SELECT event FROM "${schema}".server_run_events WHERE run = $1 AND seq = $2`, [big.id, base]);
  await pool.query(`DELETE FROM "${schema}".server_run_events WHERE run = $1 AND seq = $2`, [big.id, base]);
  const seqs = Array.from({ length: CATCH_UP_EVENTS - base }, (_, i) => base + i);
  await pool.query(`INSERT INTO "${schema}".server_run_events (run, seq, event) SELECT $1, s, $3 FROM unnest($2::bigint[]) AS s`, [
    big.id,
    seqs,
    JSON.stringify(filler),
  ]);
  await pool.query(`INSERT INTO "${schema}".server_run_events (run, seq, event) VALUES ($1, $2, $3)`, [
    big.id,
    CATCH_UP_EVENTS,
    terminal.rows[0].event,
  ]);
  await backend.close();
  const catchUp: number[] = [];
  const rawRead: number[] = [];
  for (let i = 0; i < 30; i++) {
    const after = i % 2 === 0 ? 0 : 100;
    const t0 = now();
    const text = await (await fetch(`${b.url}/runs/${big.id}/stream`, { headers: { ...headers, 'last-event-id': String(after) } })).text();
    catchUp.push(now() - t0);
    if (!text.includes(`id: ${CATCH_UP_EVENTS}\n`)) throw new Error('the catch-up did not reach the end');
    const r0 = now();
    await pool.query(`SELECT seq, event FROM "${schema}".server_run_events WHERE run = $1 AND seq > $2 ORDER BY seq`, [big.id, after]);
    rawRead.push(now() - r0);
  }
  const catchP50 = percentile(catchUp, 50);
  console.log(`reconnect and catch up on a ${CATCH_UP_EVENTS}-event run from a fresh instance, 30 times (load ${load()}):`);
  console.log(`  p50 ${fmt(catchP50)} ms, p99 ${fmt(percentile(catchUp, 99))} ms (target p50 < 50: ${catchP50 < 50 ? 'met' : 'MISSED'})`);
  report('  p50 vs one raw SELECT of the same rows', catchP50, percentile(rawRead, 50), 'ms');

  // --- 5. Cancel through instance B of a run on the worker (queued through A).
  const cancel: number[] = [];
  for (let i = 0; i < 20; i++) {
    const id = await thread(streaming(100_000, 5));
    const run = (await (await post(a.url, `/threads/${id}/runs`, { prompt: 'go' })).json()) as { id: string };
    while (!began.has(run.id)) await sleep(1);
    await sleep(20);
    const t0 = now();
    await post(b.url, `/runs/${run.id}/cancel`);
    await finished([run.id]);
    cancel.push(now() - t0);
  }
  console.log(`cancel through another instance, to the run's end on the worker, 20 runs (load ${load()}):`);
  console.log(`  p50 ${fmt(percentile(cancel, 50))} ms, p99 ${fmt(percentile(cancel, 99))} ms (target < 1000)`);

  await utils.release();
  for (const runner of rawRunners) await runner.stop();
} finally {
  for (const worker of workers) await worker.stop();
  await Promise.all([apiA.close(1_000), apiB.close(1_000)]);
  await pool.end();
  await stop();
}
