// The statements a run costs the PostgreSQL backend, pinned: queuing one is one statement (the thread
// locked, a slot of the tenant's taken, the run, the thread's mark of it and its job), executing one
// with an instant model three (the claim, its `run_started` as it happens, and its end carrying the
// rest of its events). The per-tenant cap is slots the runs hold (a unique index), not a counter row
// every create and end updates: checked here against racing creators, a cancel and a run's end.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelInvoker } from '../../src/runtime/index.js';
import { migrateServer, type AgentFactory, type ServerRunEvent } from '../../src/server/index.js';
import { PostgresBackend } from '../../src/server/backend/postgres/backend.js';
import { RunExecutor } from '../../src/server/runs/executor.js';
import { postgresStores } from '../../src/server/stores.js';
import { QueueFullError } from '../../src/server/errors.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const instant: ModelInvoker = async () => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: 'ok' }] },
  stopReason: 'end_turn',
  usage: { inputTokens: 1, outputTokens: 1, cacheWriteTokens: 0, cacheReadTokens: 0 },
});
const served = { model: 'test' };
const agent: AgentFactory = () => ({ config: served, invokeModel: instant });
const ana = { tenant: 'acme', user: 'ana' };
const prompt = { kind: 'prompt', prompt: 'go' } as const;
const logged: unknown[] = [];
const log = (message: string, error: unknown) => logged.push([message, error]);

describe.skipIf(postgresUrl === undefined)('the statements of a run on PostgreSQL', () => {
  const schema = freshSchema('stmts');
  const pool = testPool();
  // The backend's own pool, its single statements recorded by key (`indusagi_server_<key>_<schema>`).
  const recorded = new pg.Pool({ connectionString: postgresUrl, max: 4 });
  const ran: string[] = [];
  const query = recorded.query.bind(recorded) as (...args: unknown[]) => Promise<unknown>;
  (recorded as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (text: unknown, ...rest: unknown[]) => {
    const name = typeof text === 'object' && text !== null ? (text as { name?: string }).name : undefined;
    ran.push(name === undefined ? String(typeof text === 'string' ? text : (text as { text: string }).text) : name.slice('indusagi_server_'.length, -(schema.length + 1)));
    return query(text, ...rest);
  };
  let backend: PostgresBackend;
  let stores: ReturnType<typeof postgresStores>;
  let executor: RunExecutor;

  beforeAll(async () => {
    await migrateServer(postgresUrl!, { schema });
    backend = await PostgresBackend.open({ connection: { pool: recorded }, schema, jobSchema: `${schema}_jobs`, log });
    stores = postgresStores(pool, schema, 30_000);
    executor = new RunExecutor({ backend, agent, sessions: stores.sessions, memory: stores.memory, coalesceMs: 20, log }, () => 'worker 1');
  });
  afterAll(async () => {
    executor?.close();
    await stores?.close();
    await backend?.close();
    await recorded.end();
  });

  let threads = 0;
  const thread = async (tenant = ana) => (await backend.createThread(tenant, `t${++threads}`, {})).id;
  const queue = (threadId: string, maxQueued = 100, tenant = ana) =>
    backend.createRun(tenant, threadId, prompt, { createThread: false, maxQueued, retryAfterSeconds: 1 });
  const events = async (runId: string) =>
    (await pool.query<{ seq: string; event: string }>(`SELECT seq, event FROM "${schema}".server_run_events WHERE run = $1 ORDER BY seq`, [runId])).rows.map(
      (row) => [Number(row.seq), (JSON.parse(row.event) as ServerRunEvent).kind],
    );

  it('queues a run in one statement and executes it to its end in three', async () => {
    const threadId = await thread();
    ran.length = 0;
    const run = await queue(threadId);
    expect(ran).toEqual(['create_run']);

    ran.length = 0;
    await executor.execute(run.id, 'job holder');
    expect(ran).toEqual(['claim', 'append', 'finish']);
    // All of its events, in order, the last two stored with its end.
    expect(await events(run.id)).toEqual([
      [1, 'run_started'],
      [2, 'usage'],
      [3, 'settled'],
    ]);
    const done = await backend.getRun(ana.tenant, run.id);
    expect(done).toMatchObject({ status: 'settled', lastEventId: 3, result: { text: 'ok' } });
    expect((await backend.getThread(ana.tenant, threadId))?.status).toBe('idle');
    expect(logged).toEqual([]);
  });

  it('never queues past the cap when creators race, and gives a slot back when a run ends or is canceled', async () => {
    const tenant = { tenant: 'racing', user: 'bo' };
    const ids = await Promise.all(Array.from({ length: 24 }, () => thread(tenant)));
    const outcomes = await Promise.allSettled(ids.map((id) => queue(id, 5, tenant)));
    const queued = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
    expect(queued).toHaveLength(5);
    for (const o of outcomes) if (o.status === 'rejected') expect(QueueFullError.isInstance(o.reason)).toBe(true);
    // Another tenant's cap is its own.
    expect((await queue(await thread(), 5)).status).toBe('queued');

    const free = ids.filter((id) => !queued.some((run) => run.threadId === id));
    await expect(queue(free[0], 5, tenant)).rejects.toSatisfy(QueueFullError.isInstance);
    await executor.execute(queued[0].id, 'job holder');
    const next = await queue(free[0], 5, tenant);
    await expect(queue(free[1], 5, tenant)).rejects.toSatisfy(QueueFullError.isInstance);
    expect((await backend.cancelRun(tenant.tenant, queued[1].id)).status).toBe('canceled');
    await queue(free[1], 5, tenant);
    await expect(queue(free[2], 5, tenant)).rejects.toSatisfy(QueueFullError.isInstance);

    // A cap lowered below the slots runs hold refuses until enough of them end.
    await expect(queue(free[2], 2, tenant)).rejects.toSatisfy(QueueFullError.isInstance);
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}".server_runs WHERE tenant = $1 AND status IN ('queued', 'running') AND slot IS NOT NULL`,
      [tenant.tenant],
    );
    expect(rows[0].n).toBe(5);
    expect(next.status).toBe('queued');
  });
});
