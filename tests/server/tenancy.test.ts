// The wall between tenants on every route, credentials (401 without, 403 for a read-only token that
// asks to change something), and what a hostile client can send: bodies that are not JSON, not the
// route's shape, huge (declared or not), not UTF-8; ids that could name a path; garbage positions.
// Every route is taken from the server's own OpenAPI document, so a route added later is covered.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStore, type GovernedMemoryStore } from '../../src/memory/index.js';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import { bearerTokens, createServer, type AgentServer } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import agentOf from './fixtures/agent.js';
import { allEvents, Client, startScriptedModel } from '../support/agent-server.js';

const ACME = 'acme-token-0123456789abcdef';
const GLOBEX = 'globex-token-0123456789abcdef';
const READER = 'acme-reader-token-0123456789';
const BASE = 'http://server.test';
let dir: string;
let model: AnthropicTestServer;
let server: AgentServer;
let acme: Client;
let globex: Client;
let reader: Client;
const memories = new Map<string, GovernedMemoryStore>();
type Operation = { path: string; method: string; body: boolean };
let operations: Operation[];

// One of each thing acme owns, which globex will try to reach.
let thread: string;
let waitingThread: string;
let run: string;
let memoryId: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'indusagi-server-tenancy-'));
  model = await startScriptedModel({ delayMs: 0 });
  const invokeModel = createAnthropicInvoker(model.client());
  server = await createServer({
    dataDir: join(dir, 'data'),
    authenticate: bearerTokens([
      { token: ACME, tenant: 'acme', user: 'ana' },
      { token: GLOBEX, tenant: 'globex', user: 'ana' },
      { token: READER, tenant: 'acme', user: 'auditor', readOnly: true },
    ]),
    agent: (context) => agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } }),
    memory: (tenant) => {
      if (!memories.has(tenant)) memories.set(tenant, createMemoryStore());
      return memories.get(tenant);
    },
    limits: { maxBodyBytes: 64 * 1024, maxPromptChars: 1_000 },
  });
  acme = new Client(BASE, ACME, server.fetch);
  globex = new Client(BASE, GLOBEX, server.fetch);
  reader = new Client(BASE, READER, server.fetch);
  thread = (await acme.json('/threads', { id: 'shared-name', metadata: { owner: 'acme' } }, 201)).id;
  run = (await acme.json(`/threads/${thread}/runs/wait`, { prompt: 'charge 5' })).id;
  waitingThread = (await acme.json('/threads', { id: 'acme-waiting' }, 201)).id;
  await acme.json(`/threads/${waitingThread}/runs/wait`, { prompt: 'wire 1' });
  memoryId = (await memories.get('acme')!.save('acme secret', { scope: { resource: 'ana' } })).id;
  const doc = await (await server.fetch(new Request(`${BASE}/openapi.json`))).json();
  operations = Object.entries(doc.paths as Record<string, Record<string, { requestBody?: unknown; security?: unknown[] }>>).flatMap(
    ([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.security === undefined)
        .map(([method, op]) => ({ path, method: method.toUpperCase(), body: op.requestBody !== undefined })),
  );
});

afterAll(async () => {
  await server?.close(1_000);
  await model?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A body each route would accept from its owner. */
function bodyFor(op: Operation): string | undefined {
  if (!op.body) return undefined;
  if (op.path === '/threads') return JSON.stringify({ id: 'made-by-globex' });
  if (op.path.endsWith('/fork')) return JSON.stringify({ nodeId: 'x' });
  if (op.method === 'PATCH' && op.path.startsWith('/threads')) return JSON.stringify({ metadata: { title: 'hijacked' } });
  if (op.path.endsWith('/version')) return JSON.stringify({ messageId: 'x' });
  if (op.path === '/chat') return JSON.stringify({ id: thread, messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] });
  if (op.path.startsWith('/memory')) return JSON.stringify({ text: 'overwritten' });
  if (op.path.includes('/inputs/')) return JSON.stringify({ action: 'decline' });
  return JSON.stringify({ prompt: 'hijack' });
}

function urlOf(op: Operation): string {
  return op.path.replace('{threadId}', thread).replace('{runId}', run).replace('{memoryId}', memoryId).replace('{requestId}', 'a-request');
}

async function send(client: Client, op: Operation, headers: Record<string, string> = {}): Promise<Response> {
  const body = bodyFor(op);
  return client.request(op.method, urlOf(op), {
    body,
    headers: { ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
  });
}

describe('agent server: tenants, credentials, hostile input', () => {
  it('every route but health and the document answers 401 without credentials, or with unknown ones', async () => {
    expect(operations.length).toBeGreaterThan(15);
    for (const op of operations) {
      for (const headers of [{}, { authorization: 'Bearer not-a-token-at-all-00000' }, { authorization: `Basic ${ACME}` }] as Array<
        Record<string, string>
      >) {
        const response = await server.fetch(new Request(BASE + urlOf(op), { method: op.method, headers }));
        expect(response.status, `${op.method} ${op.path}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect((await response.json()).error.kind).toBe('unauthorized');
      }
    }
    expect((await server.fetch(new Request(`${BASE}/health`))).status).toBe(200);
  });

  it('a read-only token reads, and is refused 403 on every route that changes something (nothing changes)', async () => {
    const before = await acme.read(`/threads/${thread}/runs`);
    for (const op of operations.filter((o) => o.method !== 'GET')) {
      const response = await send(reader, op);
      expect(response.status, `${op.method} ${op.path}`).toBe(403);
      expect((await response.json()).error.kind).toBe('forbidden');
    }
    expect((await reader.get(`/threads/${thread}`)).status).toBe(200);
    expect(await acme.read(`/threads/${thread}/runs`)).toEqual(before);
  });

  it("another tenant reaches none of a tenant's threads, runs, streams or memory, on any route, and changes nothing", async () => {
    const threadBefore = await acme.read(`/threads/${thread}`);
    const runsBefore = await acme.read(`/threads/${thread}/runs`);
    for (const op of operations) {
      const response = await send(globex, op);
      const text = await response.text();
      const where = `${op.method} ${op.path}: ${response.status} ${text.slice(0, 200)}`;
      for (const secret of ['acme', 'charge 5', 'charged', 'wire 1', 'acme secret']) expect(text, where).not.toContain(secret);
      if (op.path === '/threads' || op.path === '/memory' || op.path === '/memory/search') continue; // globex's own (empty) lists
      // The chat routes make globex a thread of the same name on its first message: its own, checked below.
      if (op.path.startsWith('/chat')) continue;
      expect(response.status, where).toBe(404);
      expect(JSON.parse(text).error.kind, where).toBe('not_found');
    }
    // A thread only acme has: globex's chat routes know nothing of it.
    expect(await globex.read(`/chat/${waitingThread}/messages`)).toEqual({ messages: [], problems: [] });
    expect((await globex.get(`/chat/${waitingThread}/stream`)).status).toBe(204);
    // The same thread name in two tenants is two threads: globex's chat made its own.
    const globexThread = await globex.read(`/threads/${thread}`);
    expect(globexThread.thread.metadata).toEqual({});
    expect(JSON.stringify(globexThread.messages)).not.toContain('charge 5');
    expect((await globex.read('/threads')).threads.map((t: { id: string }) => t.id).sort()).toEqual(['made-by-globex', thread].sort());
    expect((await globex.read('/memory')).memories).toEqual([]);
    expect((await globex.read('/memory/search?q=secret')).memories).toEqual([]);
    // acme's side is as it was, the waiting call still waits, and its memory is whole.
    expect(await acme.read(`/threads/${thread}`)).toEqual(threadBefore);
    expect(await acme.read(`/threads/${thread}/runs`)).toEqual(runsBefore);
    expect((await acme.read(`/threads/${waitingThread}`)).thread.status).toBe('waiting');
    const pending = (await acme.read(`/threads/${waitingThread}`)).thread.pendingApprovals[0].approvalId;
    const decided = await globex.post(`/threads/${waitingThread}/runs`, { decisions: [{ approvalId: pending, approved: true }] });
    expect(decided.status).toBe(404);
    expect(await memories.get('acme')!.get(memoryId)).toMatchObject({ text: 'acme secret' });
    // Sessions are kept per tenant: globex's files never hold acme's turns.
    expect((await readdir(join(dir, 'data', 'tenants'))).sort()).toEqual(['acme', 'globex']);
  });

  it("refuses bodies that are not JSON, not the route's shape, not UTF-8 or not typed as JSON, with what was wrong", async () => {
    const post = (body: string | Uint8Array<ArrayBuffer>, type = 'application/json') =>
      server.fetch(
        new Request(`${BASE}/threads/${thread}/runs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ACME}`, 'content-type': type },
          body,
        }),
      );
    const cases: Array<[string | Uint8Array<ArrayBuffer>, number, string, string?]> = [
      ['{"prompt": ', 400, 'bad_request'],
      ['[]', 400, 'bad_request'],
      ['{"prompt": 42}', 400, 'bad_request', '/prompt'],
      ['{"prompt": "a", "decisions": [{"approvalId": "x", "approved": true}]}', 400, 'bad_request'],
      ['{"prompt": "a", "__proto__": {"admin": true}}', 400, 'bad_request'],
      ['{"prompt": "   "}', 400, 'bad_request'],
      [JSON.stringify({ prompt: 'x'.repeat(1_001) }), 400, 'bad_request'],
      ['{"decisions": []}', 400, 'bad_request'],
      ['{"decisions": [{"approvalId": "a", "approved": true}, {"approvalId": "a", "approved": false}]}', 400, 'bad_request'],
      ['{"decisions": [{"approvalId": "a", "approved": "yes"}]}', 400, 'bad_request', '/decisions/0/approved'],
      ['{"continue": false}', 400, 'bad_request'],
      [new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]), 400, 'bad_request'],
      ['{"prompt": "hi"}', 415, 'unsupported_media_type', undefined],
    ];
    for (const [body, status, kind, pointer] of cases) {
      const response = await post(body, status === 415 ? 'text/plain' : 'application/json');
      const error = (await response.json()).error;
      expect(response.status, String(body)).toBe(status);
      expect(error.kind).toBe(kind);
      if (pointer !== undefined) expect(error.issues.map((i: { path: string }) => i.path)).toContain(pointer);
    }
    // None of it queued anything.
    expect((await acme.read(`/threads/${thread}/runs`)).runs).toHaveLength(1);
  });

  it('refuses a body over the limit, whether its length is declared or it just keeps coming', async () => {
    const huge = JSON.stringify({ prompt: 'x'.repeat(100 * 1024) });
    const declared = await server.fetch(
      new Request(`${BASE}/threads/${thread}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ACME}`, 'content-type': 'application/json' },
        body: huge,
      }),
    );
    expect(declared.status).toBe(413);
    expect((await declared.json()).error.kind).toBe('body_too_large');
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new TextEncoder().encode(pulled === 1 ? '{"prompt":"' : 'x'.repeat(16 * 1024)));
      },
    });
    const streamed = await server.fetch(
      new Request(`${BASE}/threads/${thread}/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ACME}`, 'content-type': 'application/json' },
        body: endless,
        duplex: 'half',
      } as RequestInit),
    );
    expect(streamed.status).toBe(413);
    // It stopped reading at the limit: a few chunks past 64 KiB, not the endless rest.
    expect(pulled).toBeLessThan(10);
  });

  it('refuses ids that could name a path or print as something else, and positions or limits that are not numbers', async () => {
    // (`..` and `.` never reach a route: URLs resolve them away, as every HTTP client does.)
    for (const id of ['..%2Fetc', 'a%2Fb', 'a%5Cb', 'c%3A', 'x%00y', 'bell%07', 'e'.repeat(201), '%E2%80%AEevil']) {
      const response = await acme.get(`/threads/${id}`);
      expect(response.status, id).toBe(400);
      expect((await response.json()).error.kind).toBe('bad_request');
    }
    expect((await acme.json('/threads', { id: '../escape' }, 400)).error.kind).toBe('bad_request');
    expect((await acme.get(`/runs/${run}/stream?after=-1`)).status).toBe(400);
    expect((await acme.get(`/runs/${run}/stream`, { 'last-event-id': '1e3' })).status).toBe(400);
    expect((await acme.get('/threads?limit=0')).status).toBe(400);
    expect((await acme.get('/threads?limit=many')).status).toBe(400);
    expect((await acme.get('/threads?before=yesterday')).status).toBe(400);
    expect((await acme.get('/runs/not-a-run')).status).toBe(404);
    expect((await acme.get('/runs/not-a-run/stream')).status).toBe(404);
    // A valid position past the end is simply the end.
    expect(await allEvents(await acme.get(`/runs/${run}/stream?after=999999`))).toEqual([]);
  });
});
