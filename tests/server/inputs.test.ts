// A served run whose tool asks the person (`ToolContext.ask`): the question is in the run's state and
// stream, and POST /runs/{runId}/inputs/{requestId} answers it, checked against the question's schema,
// tenant-scoped, one answer per question, and delivered to the worker executing the run: in process on
// one machine, through the database (a row, and NOTIFY to wake the worker) from another API instance on
// many, even while the worker's LISTEN connection is down. A question does not outlive its worker: a
// takeover answers the cut-off call as interrupted.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import {
  bearerTokens,
  createServer,
  createWorker,
  migrateServer,
  type AgentContext,
  type AgentServer,
  type AgentWorker,
} from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import agentOf from './fixtures/agent.js';
import {
  allEvents,
  Client,
  killAll,
  serveOnDatabase,
  sseReader,
  startDatabaseWorker,
  startScriptedModel,
  waitForEvent,
  type SharedDatabase,
  type SseEvent,
} from '../support/agent-server.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const TOKENS = [
  { token: 'acme-inputs-token-0123456789ab', tenant: 'acme', user: 'ana' },
  { token: 'globex-inputs-token-0123456789', tenant: 'globex', user: 'bo' },
];

/** Starts an `ask` run on `starter` and reads its stream (from `watcher`) up to the tool's question. */
async function askRun(starter: Client, watcher: Client, thread: string) {
  await starter.json('/threads', { id: thread }, 201);
  const run = await starter.json(`/threads/${thread}/runs`, { prompt: 'ask' }, 202);
  const reader = sseReader(await watcher.get(`/runs/${run.id}/stream`));
  const asked = await waitForEvent(reader, (e) => e.data.kind === 'input_requested');
  return { runId: run.id as string, reader, asked: asked.data as { requestId: string; callId: string; message: string; schema: object } };
}

/** The run's remaining events, to its end. */
async function rest(reader: ReturnType<typeof sseReader>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for (let event = await reader.next(); event !== undefined; event = await reader.next()) out.push(event);
  return out;
}

/** Bad answers, each refused 400 with its typed error, none reaching the tool. */
async function expectRefused(api: Client, runId: string, requestId: string): Promise<void> {
  const path = `/runs/${runId}/inputs/${requestId}`;
  const wrongType = await api.post(path, { action: 'accept', content: { count: 'many' } });
  expect(wrongType.status).toBe(400);
  const wrong = (await wrongType.json()).error;
  expect(wrong).toMatchObject({ kind: 'invalid_answer', requestId });
  expect(wrong.issues.map((i: { path: string }) => i.path)).toContain('/count');
  const extra = (await (await api.post(path, { action: 'accept', content: { count: 2, admin: true } })).json()).error;
  expect(extra.kind).toBe('invalid_answer');
  // An answer is a small form: past 6,000 bytes of JSON it is refused, not cut.
  const huge = await api.post(path, { action: 'accept', content: { count: 2, note: 'x'.repeat(7_000) } });
  expect(huge.status).toBe(400);
  expect((await huge.json()).error).toMatchObject({ kind: 'invalid_answer', message: expect.stringMatching(/at most 6000/) });
  const empty = await api.post(path, { action: 'accept' });
  expect(empty.status).toBe(400);
  expect((await empty.json()).error.kind).toBe('invalid_answer');
  const notAnAction = await api.post(path, { action: 'maybe' });
  expect(notAnAction.status).toBe(400);
  expect((await notAnAction.json()).error.kind).toBe('bad_request');
  const unknown = await api.post(`/runs/${runId}/inputs/not-a-request`, { action: 'decline' });
  expect(unknown.status).toBe(409);
  expect((await unknown.json()).error.kind).toBe('input_not_pending');
}

describe('answering a tool’s question on one machine (embedded)', () => {
  let dir: string;
  let model: AnthropicTestServer;
  let server: AgentServer;
  let acme: Client;
  let globex: Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-server-inputs-'));
    model = await startScriptedModel({ delayMs: 0 });
    const invokeModel = createAnthropicInvoker(model.client());
    server = await createServer({
      dataDir: join(dir, 'data'),
      authenticate: bearerTokens(TOKENS),
      agent: (context) => agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } }),
    });
    acme = new Client('http://server.test', TOKENS[0].token, server.fetch);
    globex = new Client('http://server.test', TOKENS[1].token, server.fetch);
  });

  afterAll(async () => {
    await server?.close(1_000);
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists the question in the run, refuses bad answers and other tenants (the tool keeps waiting), and gives the tool a good one', async () => {
    const { runId, reader, asked } = await askRun(acme, acme, 'asks');
    expect(asked).toMatchObject({ message: 'How many?', schema: { required: ['count'] } });
    const waiting = await acme.read(`/runs/${runId}`);
    expect(waiting.status).toBe('running');
    expect(waiting.pendingInputs).toEqual([
      { requestId: asked.requestId, callId: asked.callId, name: 'ask.person', message: 'How many?', schema: asked.schema },
    ]);

    await expectRefused(acme, runId, asked.requestId);
    const foreign = await globex.post(`/runs/${runId}/inputs/${asked.requestId}`, { action: 'accept', content: { count: 1 } });
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.kind).toBe('not_found');
    // Nothing of it reached the tool: still running, still asking the same question.
    expect(await acme.read(`/runs/${runId}`)).toMatchObject({ status: 'running', pendingInputs: [{ requestId: asked.requestId }] });

    const taken = await acme.json(`/runs/${runId}/inputs/${asked.requestId}`, { action: 'accept', content: { count: 3 } }, 202);
    expect(taken).toEqual({ runId, requestId: asked.requestId, action: 'accept' });
    const after = await rest(reader);
    expect(after[0].data).toMatchObject({ kind: 'input_answered', requestId: asked.requestId, action: 'accept' });
    expect(after.at(-1)!.data.kind).toBe('settled');
    const ended = await acme.read(`/runs/${runId}`);
    expect(ended).toMatchObject({ status: 'settled', pendingInputs: [] });
    expect(ended.result.text).toBe('done: answer {"action":"accept","content":{"count":3}}');
    // Answered once: the question is gone.
    const again = await acme.post(`/runs/${runId}/inputs/${asked.requestId}`, { action: 'decline' });
    expect(again.status).toBe(409);
    expect((await again.json()).error.kind).toBe('input_not_pending');
  });

  it('two answers racing to one question: the first is taken, the other answers 409', async () => {
    const { runId, reader, asked } = await askRun(acme, acme, 'races');
    const path = `/runs/${runId}/inputs/${asked.requestId}`;
    const [first, second] = await Promise.all([
      acme.post(path, { action: 'accept', content: { count: 1 } }),
      acme.post(path, { action: 'accept', content: { count: 2 } }),
    ]);
    expect([first.status, second.status]).toEqual([202, 409]);
    expect((await second.json()).error.kind).toBe('input_not_pending');
    expect((await rest(reader)).at(-1)!.data.kind).toBe('settled');
    expect((await acme.read(`/runs/${runId}`)).result.text).toBe('done: answer {"action":"accept","content":{"count":1}}');
  });

  it('a decline reaches the tool as a decline', async () => {
    const { runId, reader, asked } = await askRun(acme, acme, 'declines');
    expect((await acme.json(`/runs/${runId}/inputs/${asked.requestId}`, { action: 'decline' }, 202)).action).toBe('decline');
    expect((await rest(reader)).at(-1)!.data.kind).toBe('settled');
    expect((await acme.read(`/runs/${runId}`)).result.text).toBe('done: answer {"action":"decline"}');
  });
});

describe.skipIf(postgresUrl === undefined)(
  'answering a tool’s question on many machines: 2 API servers, 2 workers, one database',
  { timeout: 300_000 },
  () => {
    const LEASE_MS = 2_000;
    const pool = testPool();
    const schema = freshSchema('inp');
    let dir: string;
    let ledger: string;
    let model: AnthropicTestServer;
    let apis: string[];
    const workers: Array<{ child: ChildProcess; id: string }> = [];
    const client = (i: number, tenant = 0) => new Client(apis[i], TOKENS[tenant].token);

    let shared: SharedDatabase;
    async function startWorker(): Promise<void> {
      workers.push(await startDatabaseWorker(shared, ledger, ['--lease-ms', String(LEASE_MS)]));
    }

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'indusagi-inputs-cluster-'));
      ledger = join(dir, 'ledger.txt');
      const tokens = join(dir, 'tokens.json');
      await writeFile(tokens, JSON.stringify(TOKENS));
      await migrateServer(postgresUrl!, { schema });
      model = await startScriptedModel({ delayMs: 2 });
      shared = { database: postgresUrl!, schema, model };
      const started = await Promise.all([serveOnDatabase(shared, tokens), serveOnDatabase(shared, tokens), startWorker(), startWorker()]);
      apis = started.slice(0, 2) as string[];
    }, 300_000);

    afterAll(async () => {
      killAll();
      await model?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('an answer sent to another instance than the one that started the run reaches the worker executing it', async () => {
      const [a, b] = [client(0), client(1)];
      const { runId, reader, asked } = await askRun(a, a, 'asks-across');
      expect((await b.read(`/runs/${runId}`)).pendingInputs.map((p: { requestId: string }) => p.requestId)).toEqual([asked.requestId]);

      await expectRefused(b, runId, asked.requestId);
      const foreign = await client(1, 1).post(`/runs/${runId}/inputs/${asked.requestId}`, { action: 'accept', content: { count: 1 } });
      expect(foreign.status).toBe(404);
      expect(await a.read(`/runs/${runId}`)).toMatchObject({ status: 'running', pendingInputs: [{ requestId: asked.requestId }] });

      await b.json(`/runs/${runId}/inputs/${asked.requestId}`, { action: 'accept', content: { count: 7 } }, 202);
      const after = await rest(reader);
      expect(after[0].data).toMatchObject({ kind: 'input_answered', requestId: asked.requestId, action: 'accept' });
      expect(after.at(-1)!.data.kind).toBe('settled');
      const ended = await b.read(`/runs/${runId}`);
      expect(ended).toMatchObject({ status: 'settled', attempt: 1, pendingInputs: [] });
      expect(ended.result.text).toBe('done: answer {"action":"accept","content":{"count":7}}');
    });

    it('a run whose worker dies while its tool waits for an answer: the takeover answers the call as interrupted, the question is gone', async () => {
      const api = client(0);
      const { runId, reader, asked } = await askRun(api, client(1), 'asks-then-dies');
      const { rows } = await pool.query(`SELECT worker FROM "${schema}".server_runs WHERE id = $1`, [runId]);
      const victim = workers.find((w) => w.id === rows[0].worker)!;
      victim.child.kill('SIGKILL');
      const after = await rest(reader);
      const kinds = after.map((e) => e.data.kind);
      expect(kinds).toContain('run_taken_over');
      expect(kinds.at(-1)).toBe('settled');
      const ended = await api.read(`/runs/${runId}`);
      expect(ended).toMatchObject({ status: 'settled', attempt: 2, pendingInputs: [] });
      expect(ended.result.text).toMatch(/^done: Interrupted/);
      // The tool ran once (it is not idempotent): it was not asked again.
      const asks = (await readFile(ledger, 'utf8')).split('\n').filter((line) => line === `asked ${asked.callId}`);
      expect(asks).toHaveLength(1);
      const late = await client(1).post(`/runs/${runId}/inputs/${asked.requestId}`, { action: 'decline' });
      expect(late.status).toBe(409);
      // The stream any instance replays is the same.
      expect((await allEvents(await client(1).get(`/runs/${runId}/stream`))).slice(after[0].id! - 1)).toEqual(after);
    });
  },
);

/**
 * A TCP relay to PostgreSQL that can hold back the LISTEN of the server's channels: while held, a
 * connection whose client sends `LISTEN "indusagi_run_...` has that and all it sends after held until
 * `release`, so a process connecting through it cannot listen again (on a new connection or one its
 * pool had idle) until the test says so. It knows the local ports of its connections to the server:
 * what `pg_stat_activity` shows as their `client_port`.
 */
async function tcpGate(url: string) {
  const target = new URL(url);
  const ports = new Set<number>();
  const sockets = new Set<Socket>();
  const LISTEN = Buffer.from('LISTEN "indusagi_run_');
  let held: Array<() => void> | undefined;
  const server = createTcpServer((down) => {
    const up = connect(Number(target.port || 5432), target.hostname);
    sockets.add(down).add(up);
    up.once('connect', () => ports.add(up.localPort!));
    const end = () => {
      up.destroy();
      down.destroy();
    };
    for (const socket of [up, down]) socket.on('error', end).on('close', end);
    up.pipe(down);
    let tail = Buffer.alloc(0);
    let stopped: Buffer[] | undefined;
    down.on('data', (chunk: Buffer) => {
      if (stopped !== undefined) return void stopped.push(chunk);
      // With the last bytes of the previous chunk: a statement split across two is still seen.
      const seen = Buffer.concat([tail, chunk]);
      tail = seen.subarray(Math.max(0, seen.length - LISTEN.length));
      if (held !== undefined && seen.includes(LISTEN)) {
        stopped = [chunk];
        held.push(() => {
          for (const part of stopped!) up.write(part);
          stopped = undefined;
        });
      } else up.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const via = new URL(url);
  via.hostname = '127.0.0.1';
  via.port = String((server.address() as AddressInfo).port);
  return {
    url: via.toString(),
    ports: () => [...ports],
    hold: () => (held = []),
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(postgresUrl === undefined)(
  'answering a tool’s question while the worker’s LISTEN connection is down',
  { timeout: 120_000 },
  () => {
    const pool = testPool();
    const schema = freshSchema('deaf');
    let model: AnthropicTestServer;
    let server: AgentServer;
    let worker: AgentWorker;
    let gate: Awaited<ReturnType<typeof tcpGate>>;
    let api: Client;
    const logged: string[] = [];
    const waiters: Array<() => void> = [];
    /** Resolves once the worker logged a message matching `pattern`. */
    const untilLogged = (pattern: RegExp) =>
      new Promise<void>((resolve) => {
        const check = () => (logged.some((m) => pattern.test(m)) ? resolve() : waiters.push(check));
        check();
      });

    beforeAll(async () => {
      await migrateServer(postgresUrl!, { schema });
      model = await startScriptedModel({ delayMs: 0 });
      const invokeModel = createAnthropicInvoker(model.client());
      const agent = (context: AgentContext) => agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } });
      gate = await tcpGate(postgresUrl!);
      // The API instance on the database directly; the worker through the gate, in this process.
      server = await createServer({ database: postgresUrl!, schema, authenticate: bearerTokens(TOKENS), agent });
      worker = await createWorker({
        database: gate.url,
        schema,
        agent,
        log: (message) => {
          logged.push(message);
          for (const wake of waiters.splice(0)) wake();
        },
      });
      api = new Client('http://server.test', TOKENS[0].token, server.fetch);
    }, 120_000);

    afterAll(async () => {
      gate?.release();
      await worker?.stop(1_000);
      await server?.close(1_000);
      await gate?.close();
      await model?.close();
    });

    it('the answer is kept, a second one answers 409, and the worker takes the first once it listens again', async () => {
      const { runId, reader, asked } = await askRun(api, api, 'asks-while-deaf');
      // The worker's LISTEN connection: through the gate, its last statement the LISTEN of the answers' channel.
      const { rows } = await pool.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[]) AND query LIKE 'LISTEN "indusagi_run_input_%'`,
        [gate.ports()],
      );
      expect(rows).toHaveLength(1);
      gate.hold();
      const dropped = untilLogged(/LISTEN connection dropped/);
      // Waits until that backend is gone: from here on, a NOTIFY reaches nobody in the worker.
      expect((await pool.query('SELECT pg_terminate_backend($1, 10000) AS gone', [rows[0].pid])).rows[0].gone).toBe(true);
      await dropped;

      const path = `/runs/${runId}/inputs/${asked.requestId}`;
      expect(await api.json(path, { action: 'accept', content: { count: 5 } }, 202)).toEqual({
        runId,
        requestId: asked.requestId,
        action: 'accept',
      });
      const second = await api.post(path, { action: 'accept', content: { count: 6 } });
      expect(second.status).toBe(409);
      expect((await second.json()).error.kind).toBe('input_not_pending');
      // The worker heard nothing yet: the tool still waits on the question.
      expect(await api.read(`/runs/${runId}`)).toMatchObject({ status: 'running', pendingInputs: [{ requestId: asked.requestId }] });

      gate.release();
      const after = await rest(reader);
      expect(after[0].data).toMatchObject({ kind: 'input_answered', requestId: asked.requestId, action: 'accept' });
      expect(after.at(-1)!.data.kind).toBe('settled');
      const ended = await api.read(`/runs/${runId}`);
      expect(ended).toMatchObject({ status: 'settled', attempt: 1, pendingInputs: [] });
      expect(ended.result.text).toBe('done: answer {"action":"accept","content":{"count":5}}');
      // The run's answers went with its end; a late one finds the run ended.
      expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".server_run_answers WHERE run = $1`, [runId])).rows[0].n).toBe(0);
      expect((await api.post(path, { action: 'decline' })).status).toBe(409);
    });
  },
);
