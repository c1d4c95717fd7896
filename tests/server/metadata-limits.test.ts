// Thread metadata a hostile client sends, on one machine and on PostgreSQL: nested 120k levels deep
// (under 1 MiB), or grown past the cap by many PATCHes. Each is refused with 400 and changes nothing:
// no thread made or changed, no run left queued, no temp file left behind, the tenant's thread list
// still answers.
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import { bearerTokens, createServer, migrateServer, type AgentServer } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import agentOf from './fixtures/agent.js';
import { Client, startScriptedModel } from '../support/agent-server.js';
import { freshSchema, postgresUrl, testPool } from '../support/postgres.js';

const TOKEN = 'metadata-token-0123456789abcdef';
const MIB = 1024 * 1024;

/** `{"a":{"a":…{}…}}`, `depth` objects deep, as text (JSON.stringify of it would overflow the stack). */
function nested(depth: number): string {
  return '{"a":'.repeat(depth) + '{}' + '}'.repeat(depth);
}

/** Every `*.tmp` file under `dir`. */
async function tempFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return entries.filter((name) => name.endsWith('.tmp'));
}

type Backend = { name: string; skip: boolean; options(dir: string): Promise<Record<string, unknown>> };

const backends: Backend[] = [
  { name: 'one machine', skip: false, options: async (dir) => ({ dataDir: join(dir, 'data') }) },
  {
    name: 'PostgreSQL',
    skip: postgresUrl === undefined,
    options: async () => {
      const schema = freshSchema('meta');
      await migrateServer(postgresUrl!, { schema });
      return { database: postgresUrl!, schema, worker: { concurrency: 1 } };
    },
  },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`thread metadata limits (${backend.name})`, { timeout: 120_000 }, () => {
    let dir: string;
    let model: AnthropicTestServer;
    let server: AgentServer;
    let api: Client;
    if (!backend.skip && backend.name === 'PostgreSQL') testPool();

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'indusagi-metadata-'));
      process.env.INDUSAGI_TEST_LEDGER = join(dir, 'ledger.txt');
      model = await startScriptedModel({ delayMs: 0 });
      const invokeModel = createAnthropicInvoker(model.client());
      server = await createServer({
        ...(await backend.options(dir)),
        authenticate: bearerTokens([{ token: TOKEN, tenant: 'acme', user: 'ana' }]),
        agent: (context) => agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } }),
      } as Parameters<typeof createServer>[0]);
      api = new Client('http://server.test', TOKEN, server.fetch);
      await api.json('/threads', { id: 'kept', metadata: { title: 'kept' } }, 201);
    });

    afterAll(async () => {
      await server?.close(1_000);
      await model?.close();
      delete process.env.INDUSAGI_TEST_LEDGER;
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    const send = (method: string, path: string, body: string) =>
      api.request(method, path, { body, headers: { 'content-type': 'application/json' } });

    async function expectUnchanged(): Promise<void> {
      const { threads } = await api.read('/threads');
      expect(threads.map((t: { id: string }) => t.id)).toEqual(['kept']);
      expect(threads[0]).toMatchObject({ metadata: { title: 'kept' }, status: 'idle', activeRunId: null });
      expect(await api.read('/threads/kept/runs')).toMatchObject({ runs: [] });
    }

    it('refuses metadata nested 120k levels deep with 400, on create and on PATCH, and changes nothing', async () => {
      const deep = nested(120_000);
      expect(Buffer.byteLength(deep)).toBeLessThan(MIB);
      const created = await send('POST', '/threads', `{"id":"deep","metadata":${deep}}`);
      expect(created.status).toBe(400);
      expect((await created.json()).error.kind).toBe('bad_request');
      const patched = await send('PATCH', '/threads/kept', `{"metadata":{"title":${deep}}}`);
      expect(patched.status).toBe(400);
      await expectUnchanged();
      // A run on the thread starts and ends: nothing was left half-written.
      expect(await api.json('/threads/kept/runs/wait', { prompt: 'hello' })).toMatchObject({ status: 'settled' });
    });

    it('caps the metadata a thread keeps: one big create, or PATCHes that add up past the cap, are refused', async () => {
      const big = 'x'.repeat(70 * 1024);
      const created = await send('POST', '/threads', JSON.stringify({ id: 'big', metadata: { note: big } }));
      expect(created.status).toBe(400);
      expect((await created.json()).error.message).toMatch(/metadata.*65536 bytes/);
      expect((await api.get('/threads/big')).status).toBe(404);

      await api.json('/threads', { id: 'growing' }, 201);
      const part = 'y'.repeat(20 * 1024);
      for (const key of ['a', 'b', 'c'])
        expect((await send('PATCH', '/threads/growing', JSON.stringify({ metadata: { [key]: part } }))).status).toBe(200);
      const over = await send('PATCH', '/threads/growing', JSON.stringify({ metadata: { d: part } }));
      expect(over.status).toBe(400);
      const { thread } = await api.read('/threads/growing');
      expect(Object.keys(thread.metadata).sort()).toEqual(['a', 'b', 'c']);
      // Removing keys makes room again.
      expect((await send('PATCH', '/threads/growing', JSON.stringify({ metadata: { a: null, d: part } }))).status).toBe(200);
      await api.request('DELETE', '/threads/growing');
    });

    it('leaves no temp file behind once every write has ended', async () => {
      // Closing waits for the writes under way; a temp file left then is one a failed write abandoned.
      await server.close(1_000);
      expect(await tempFiles(dir)).toEqual([]);
    });
  });
}

describe('a thread record that cannot be written (one machine)', { timeout: 120_000 }, () => {
  let dir: string;
  let model: AnthropicTestServer;
  let server: AgentServer;
  let api: Client;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-metadata-unwritable-'));
    process.env.INDUSAGI_TEST_LEDGER = join(dir, 'ledger.txt');
    model = await startScriptedModel({ delayMs: 0 });
    const invokeModel = createAnthropicInvoker(model.client());
    server = await createServer({
      dataDir: join(dir, 'data'),
      authenticate: bearerTokens([{ token: TOKEN, tenant: 'acme', user: 'ana' }]),
      agent: (context) => agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } }),
      limits: { maxQueuedRunsPerTenant: 1 },
    });
    api = new Client('http://server.test', TOKEN, server.fetch);
  });

  afterAll(async () => {
    await server?.close(1_000);
    await model?.close();
    delete process.env.INDUSAGI_TEST_LEDGER;
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a create, a PATCH or a run start that fails to write changes nothing: no run left queued, the thread and the queue slot free', async () => {
    await api.json('/threads', { id: 'kept', metadata: { title: 'kept' } }, 201);
    // A folder where a record goes: every write of it fails at the rename, as a full or broken disk would.
    const blocked = join(dir, 'data', 'threads', 'acme', 'never.json');
    await mkdir(join(blocked, 'blocked'), { recursive: true });
    const created = await api.request('POST', '/threads', { body: '{"id":"never"}', headers: { 'content-type': 'application/json' } });
    expect(created.status).toBe(500);
    expect((await api.get('/threads/never')).status).toBe(404);
    const record = join(dir, 'data', 'threads', 'acme', 'kept.json');
    await rm(record);
    await mkdir(join(record, 'blocked'), { recursive: true });

    const patched = await api.request('PATCH', '/threads/kept', {
      body: '{"metadata":{"title":"lost"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(patched.status).toBe(500);
    expect((await api.read('/threads/kept')).thread.metadata).toEqual({ title: 'kept' });
    const started = await api.post('/threads/kept/runs', { prompt: 'hello' });
    expect(started.status).toBe(500);
    expect(await api.read('/threads/kept/runs')).toEqual({ runs: [] });
    expect((await api.read('/threads/kept')).thread).toMatchObject({ status: 'idle', activeRunId: null });

    // Once the disk is fixed, the tenant's one queue slot is free for the next run.
    await rm(record, { recursive: true });
    await rm(blocked, { recursive: true });
    expect(await api.json('/threads/kept/runs/wait', { prompt: 'hello' })).toMatchObject({ status: 'settled' });
    await server.close(1_000);
    expect(await tempFiles(dir)).toEqual([]);
  });
});
