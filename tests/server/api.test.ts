// The agent server's API on one machine, called through its fetch handler: threads, runs in the
// background, waited for and streamed, resumable streams, approvals, one run per thread, cancel, the
// tenant's queue cap, fork, delete, memory, and the OpenAPI document against the routes it describes.
// The model is the scripted loopback server; files, sessions and the server are real.
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore, type GovernedMemoryStore } from '../../src/memory/index.js';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import { bearerTokens, createServer, type AgentServer } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import agentOf from './fixtures/agent.js';
import { allEvents, Client, sseReader, startScriptedModel, storyWords, untilLedgerHas, waitForEvent } from '../support/agent-server.js';

const TOKEN = 'token-of-ana-at-acme-0123456789';
let dir: string;
let model: AnthropicTestServer;
let server: AgentServer;
let api: Client;
const memories = new Map<string, GovernedMemoryStore>();
const ledger = () => readFile(join(dir, 'ledger.txt'), 'utf8').catch(() => '');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-server-api-'));
  process.env.INDUSAGI_TEST_LEDGER = join(dir, 'ledger.txt');
  model = await startScriptedModel({ delayMs: 0 });
  const invokeModel = createAnthropicInvoker(model.client());
  server = await createServer({
    dataDir: join(dir, 'data'),
    authenticate: bearerTokens([{ token: TOKEN, tenant: 'acme', user: 'ana' }]),
    agent: (context) => agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } }),
    memory: (tenant) => {
      if (!memories.has(tenant)) memories.set(tenant, createMemoryStore());
      return memories.get(tenant);
    },
    limits: { maxQueuedRunsPerTenant: 3 },
  });
  api = new Client('http://server.test', TOKEN, server.fetch);
});

afterAll(async () => {
  await server?.close(1_000);
  await model?.close();
  delete process.env.INDUSAGI_TEST_LEDGER;
  if (dir) await rm(dir, { recursive: true, force: true });
});

let threads = 0;
async function newThread(): Promise<string> {
  const { id } = await api.json('/threads', { id: `t${++threads}` }, 201);
  return id;
}

describe('agent server API (one machine)', () => {
  it('runs a prompt in the background: 202 at once, then a stream of every event with ids from 1, ending with settled', async () => {
    const thread = await newThread();
    const run = await api.json(`/threads/${thread}/runs`, { prompt: 'charge 7' }, 202);
    expect(run).toMatchObject({ threadId: thread, status: 'queued', input: { kind: 'prompt', prompt: 'charge 7' } });
    const events = await allEvents(await api.get(`/runs/${run.id}/stream`));
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    const kinds = events.map((e) => e.data.kind);
    expect(kinds[0]).toBe('run_started');
    expect(kinds).toContain('tool_started');
    expect(kinds.at(-1)).toBe('settled');
    expect(kinds).not.toContain('snapshot');
    expect(events.every((e) => e.data.runId === run.id)).toBe(true);
    const finished = await api.read(`/runs/${run.id}`);
    expect(finished).toMatchObject({
      status: 'settled',
      attempt: 1,
      lastEventId: events.length,
      result: { status: 'settled', text: 'done: charged 7' },
    });
    // The terminal event leaves the messages out: the thread has them.
    expect(events.at(-1)!.data.snapshot.messages).toBeUndefined();
    const state = await api.read(`/threads/${thread}`);
    expect(state.thread).toMatchObject({ status: 'idle', activeRunId: null });
    expect(state.messages.map((turn: { role: string }) => turn.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('waits for a run and answers with it ended; the next prompt on the thread sees the one before', async () => {
    const thread = await newThread();
    const first = await api.json(`/threads/${thread}/runs/wait`, { prompt: 'hello' });
    expect(first).toMatchObject({ status: 'settled', result: { text: 'ok: hello' } });
    await api.json(`/threads/${thread}/runs/wait`, { prompt: 'again' });
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('ok: hello');
    const runs = await api.read(`/threads/${thread}/runs`);
    expect(runs.runs.map((r: { input: { prompt: string } }) => r.input.prompt)).toEqual(['again', 'hello']);
  });

  it('a call that needs approval stops the run waiting; a prompt is refused until it is decided; the decision runs it', async () => {
    const thread = await newThread();
    const asked = await api.json(`/threads/${thread}/runs/wait`, { prompt: 'wire 40' });
    expect(asked.status).toBe('waiting');
    const [pending] = asked.result.pendingApprovals;
    expect(pending).toMatchObject({ name: 'wire.send', input: { amount: 40 } });
    expect((await api.read(`/threads/${thread}`)).thread).toMatchObject({ status: 'waiting', pendingApprovals: [pending] });

    const early = await api.post(`/threads/${thread}/runs`, { prompt: 'something else' });
    expect(early.status).toBe(409);
    expect((await early.json()).error).toMatchObject({ kind: 'approvals_pending', pending: [pending.approvalId] });
    const unknown = await api.post(`/threads/${thread}/runs`, { decisions: [{ approvalId: 'toolu_nope', approved: true }] });
    expect(unknown.status).toBe(409);
    expect((await unknown.json()).error.kind).toBe('approval_not_pending');
    expect(await ledger()).not.toContain(`wire ${pending.approvalId}`);

    const decided = await api.json(`/threads/${thread}/runs/wait`, { decisions: [{ approvalId: pending.approvalId, approved: true }] });
    expect(decided).toMatchObject({ status: 'settled', result: { text: 'done: sent 40', pendingApprovals: [] } });
    expect((await ledger()).split('\n').filter((line) => line === `wire ${pending.approvalId}`)).toHaveLength(1);
    expect((await api.read(`/threads/${thread}`)).thread.status).toBe('idle');
  });

  it('a rejected call never runs, and the model hears the reason', async () => {
    const thread = await newThread();
    const asked = await api.json(`/threads/${thread}/runs/wait`, { prompt: 'wire 9' });
    const [pending] = asked.result.pendingApprovals;
    const decided = await api.json(`/threads/${thread}/runs/wait`, {
      decisions: [{ approvalId: pending.approvalId, approved: false, reason: 'not today' }],
    });
    expect(decided.result.text).toContain('not today');
    expect(await ledger()).not.toContain(`wire ${pending.approvalId}`);
  });

  it('Last-Event-ID (or ?after=) resumes a stream right after that event, with nothing missing or repeated', async () => {
    const thread = await newThread();
    const run = await api.json(`/threads/${thread}/runs/wait`, { prompt: 'charge 3' });
    const whole = await allEvents(await api.get(`/runs/${run.id}/stream`));
    for (const after of [1, 3, whole.length - 1, whole.length]) {
      expect(await allEvents(await api.get(`/runs/${run.id}/stream`, { 'last-event-id': String(after) }))).toEqual(whole.slice(after));
      expect(await allEvents(await api.get(`/runs/${run.id}/stream?after=${after}`))).toEqual(whole.slice(after));
    }
    const bad = await api.get(`/runs/${run.id}/stream`, { 'last-event-id': 'twelve' });
    expect(bad.status).toBe(400);
  });

  it('coalesces text deltas: a 300-word reply arrives in fewer events, and its text is exactly the reply', async () => {
    const thread = await newThread();
    const run = await api.json(`/threads/${thread}/runs/wait`, { prompt: 'story 300' });
    const deltas = (await allEvents(await api.get(`/runs/${run.id}/stream`))).filter((e) => e.data.kind === 'text_delta');
    expect(deltas.length).toBeLessThan(300);
    expect(deltas.map((e) => e.data.delta).join('')).toBe(storyWords(300).join(''));
  });

  it('streams a run it starts (POST .../runs/stream), the same stream GET /runs/{id}/stream replays', async () => {
    const thread = await newThread();
    const response = await api.post(`/threads/${thread}/runs/stream`, { prompt: 'charge 1' });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const runId = response.headers.get('x-run-id')!;
    const streamed = await allEvents(response);
    expect(streamed.at(-1)!.data.kind).toBe('settled');
    expect(await allEvents(await api.get(`/runs/${runId}/stream`))).toEqual(streamed);
  });

  it('one run at a time per thread (409 thread_busy); cancel stops the running one, whose tool sees its signal', async () => {
    const thread = await newThread();
    const run = await api.json(`/threads/${thread}/runs`, { prompt: 'wait' }, 202);
    const reader = sseReader(await api.get(`/runs/${run.id}/stream`));
    const started = await waitForEvent(reader, (e) => e.data.kind === 'tool_started');
    await untilLedgerHas(join(dir, 'ledger.txt'), `waiting ${started.data.callId}`);
    const busy = await api.post(`/threads/${thread}/runs`, { prompt: 'hello' });
    expect(busy.status).toBe(409);
    expect((await busy.json()).error).toMatchObject({ kind: 'thread_busy', activeRunId: run.id });

    expect((await api.post(`/runs/${run.id}/cancel`)).status).toBe(202);
    const end = await waitForEvent(reader, (e) => e.data.kind === 'faulted');
    expect(end.data.error.kind).toBe('aborted');
    expect(await reader.next()).toBeUndefined();
    expect(await api.read(`/runs/${run.id}`)).toMatchObject({ status: 'canceled', cancelRequested: true, error: { kind: 'aborted' } });
    expect((await ledger()).split('\n')).toContain(`aborted ${started.data.callId}`);
    // Nothing settled is lost: the cut-off call has a result in the thread, and the thread takes prompts again.
    expect(JSON.stringify((await api.read(`/threads/${thread}`)).messages)).toContain('Aborted');
    expect((await api.json(`/threads/${thread}/runs/wait`, { prompt: 'after' })).status).toBe('settled');
  });

  it("caps the tenant's queued and running runs: past the cap, 429 with retry-after", async () => {
    const running = [];
    for (let i = 0; i < 3; i++) running.push(await api.json(`/threads/${await newThread()}/runs`, { prompt: 'wait' }, 202));
    const refused = await api.post(`/threads/${await newThread()}/runs`, { prompt: 'hello' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await refused.json()).error.kind).toBe('queue_full');
    for (const run of running) await api.post(`/runs/${run.id}/cancel`);
    for (const run of running) expect((await api.read(`/runs/${run.id}/wait`)).status).toBe('canceled');
  });

  it('forks: the next prompt branches from an earlier node, and the history keeps both branches', async () => {
    const thread = await newThread();
    await api.json(`/threads/${thread}/runs/wait`, { prompt: 'first' });
    await api.json(`/threads/${thread}/runs/wait`, { prompt: 'second' });
    const history = await api.read(`/threads/${thread}/history`);
    const firstAnswer = history.nodes.find((n: { turn: { blocks: Array<{ text?: string }> } }) => n.turn.blocks[0]?.text === 'ok: first');
    const forked = await api.json(`/threads/${thread}/fork`, { nodeId: firstAnswer.id });
    expect(forked.messages).toHaveLength(2);
    await api.json(`/threads/${thread}/runs/wait`, { prompt: 'other' });
    const after = await api.read(`/threads/${thread}/history`);
    expect(after.nodes).toHaveLength(6);
    expect((await api.read(`/threads/${thread}`)).messages.map((t: { blocks: Array<{ text?: string }> }) => t.blocks[0].text)).toEqual([
      'first',
      'ok: first',
      'other',
      'ok: other',
    ]);
    const nowhere = await api.post(`/threads/${thread}/fork`, { nodeId: 'no-such-node' });
    expect(nowhere.status).toBe(400);
    expect((await nowhere.json()).error.kind).toBe('unknown_node');
  });

  it('deletes a thread (refused while it runs): its runs, events and session file go with it', async () => {
    const thread = await newThread();
    const run = await api.json(`/threads/${thread}/runs`, { prompt: 'wait' }, 202);
    const reader = sseReader(await api.get(`/runs/${run.id}/stream`));
    await waitForEvent(reader, (e) => e.data.kind === 'tool_started');
    expect((await api.request('DELETE', `/threads/${thread}`)).status).toBe(409);
    await api.post(`/runs/${run.id}/cancel`);
    await waitForEvent(reader, (e) => e.data.kind === 'faulted');
    const session = join(dir, 'data', 'tenants', 'acme', 'sessions', `${thread}.jsonl`);
    expect(existsSync(session)).toBe(true);
    expect((await api.request('DELETE', `/threads/${thread}`)).status).toBe(204);
    expect(existsSync(session)).toBe(false);
    expect((await api.get(`/threads/${thread}`)).status).toBe(404);
    expect((await api.get(`/runs/${run.id}`)).status).toBe(404);
    expect((await api.get(`/runs/${run.id}/stream`)).status).toBe(404);
  });

  it("manages the user's memory: list, search, edit, forget; another user's records are out of reach", async () => {
    const store = memories.get('acme') ?? createMemoryStore();
    memories.set('acme', store);
    const mine = await store.save('Ana prefers metric units', { scope: { resource: 'ana' } });
    const theirs = await store.save('Bo prefers imperial units', { scope: { resource: 'bo' } });
    expect((await api.read('/memory')).memories.map((m: { id: string }) => m.id)).toEqual([mine.id]);
    expect((await api.read('/memory/search?q=units')).memories.map((m: { id: string }) => m.id)).toEqual([mine.id]);
    const edited = await api.request('PATCH', `/memory/${mine.id}`, {
      body: JSON.stringify({ text: 'Ana prefers kelvin' }),
      headers: { 'content-type': 'application/json' },
    });
    expect((await edited.json()).text).toBe('Ana prefers kelvin');
    expect(
      (await api.request('PATCH', `/memory/${theirs.id}`, { body: '{"text":"x"}', headers: { 'content-type': 'application/json' } }))
        .status,
    ).toBe(404);
    expect((await api.request('DELETE', `/memory/${theirs.id}`)).status).toBe(404);
    expect((await api.request('DELETE', `/memory/${mine.id}`)).status).toBe(204);
    expect(await store.get(theirs.id)).toMatchObject({ text: 'Bo prefers imperial units' });
    expect((await api.get('/memory/search?q=')).status).toBe(400);
  });

  it('serves its OpenAPI document, which lists every operation it answers (and answers every operation it lists)', async () => {
    const doc = await (await server.fetch(new Request('http://server.test/openapi.json'))).json();
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, id: operation.operationId })),
    );
    expect(operations.map((o) => o.id).sort()).toEqual(
      [
        'health',
        'openapi',
        'createThread',
        'listThreads',
        'getThread',
        'getThreadHistory',
        'forkThread',
        'deleteThread',
        'updateThread',
        'createRun',
        'createRunAndWait',
        'createRunAndStream',
        'listRuns',
        'getRun',
        'streamRun',
        'waitRun',
        'cancelRun',
        'answerInput',
        'listMemory',
        'searchMemory',
        'editMemory',
        'forgetMemory',
        'chat',
        'resumeChat',
        'chatMessages',
        'showChatVersion',
      ].sort(),
    );
    for (const { path, method } of operations) {
      const url = path.replace(/\{\w+\}/g, 'missing-id');
      const response = await api.request(method.toUpperCase(), url, {
        body: method === 'get' || method === 'delete' ? undefined : '{}',
        headers: { 'content-type': 'application/json' },
      });
      const json = response.headers.get('content-type')?.startsWith('application/json') === true;
      const body = json ? await response.json() : {};
      if (!json) await response.body?.cancel();
      expect(body.error?.message ?? '', `${method} ${path}`).not.toMatch(/^No route/);
    }
    expect((await api.get('/no-such-route')).status).toBe(404);
  });
});
