// A served run whose tool asks the person (`ToolContext.ask`): the question is in the run's state and
// stream, and POST /runs/{runId}/inputs/{requestId} answers it, checked against the question's schema,
// tenant-scoped, and delivered to the worker executing the run: in process on one machine, through the
// database (NOTIFY) from another API instance on many. A question does not outlive its worker: a
// takeover answers the cut-off call as interrupted.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import { bearerTokens, createServer, migrateServer, type AgentServer } from '../../src/server/index.js';
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
  // An answer travels as one notification: past 6,000 bytes of JSON it is refused, not cut.
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
