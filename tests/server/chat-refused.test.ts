// `POST /chat` makes its thread on the first message; a first message the server refuses (the tenant's
// queue full: 429) must not leave an empty thread behind, in the tenant's list, on either backend.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import { bearerTokens, createServer, migrateServer, type AgentServer } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import agentOf from './fixtures/agent.js';
import { Client, sseReader, startScriptedModel, waitForEvent } from '../support/agent-server.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

const TOKEN = 'chat-refused-token-0123456789ab';

const backends = [
  { name: 'one machine', skip: false, options: async (dir: string) => ({ dataDir: join(dir, 'data') }) },
  {
    name: 'PostgreSQL',
    skip: postgresUrl === undefined,
    options: async () => {
      const schema = freshSchema('chatq');
      await migrateServer(postgresUrl!, { schema });
      return { database: postgresUrl!, schema, worker: { concurrency: 1 } };
    },
  },
];

/** The body `useChat` posts for a first message. */
const chatBody = (id: string, text: string) => ({
  id,
  messages: [{ id: 'typed', role: 'user', parts: [{ type: 'text', text }] }],
  trigger: 'submit-message',
});

for (const backend of backends) {
  describe.skipIf(backend.skip)(`POST /chat refused (${backend.name})`, { timeout: 120_000 }, () => {
    let dir: string;
    let model: AnthropicTestServer;
    let server: AgentServer;
    let api: Client;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'indusagi-chat-refused-'));
      process.env.INDUSAGI_TEST_LEDGER = join(dir, 'ledger.txt');
      model = await startScriptedModel({ delayMs: 0 });
      const invokeModel = createAnthropicInvoker(model.client());
      server = await createServer({
        ...(await backend.options(dir)),
        authenticate: bearerTokens([{ token: TOKEN, tenant: 'acme', user: 'ana' }]),
        agent: (context) => agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } }),
        limits: { maxQueuedRunsPerTenant: 1 },
      } as Parameters<typeof createServer>[0]);
      api = new Client('http://server.test', TOKEN, server.fetch);
    });

    afterAll(async () => {
      await server?.close(1_000);
      await model?.close();
      delete process.env.INDUSAGI_TEST_LEDGER;
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('a first message refused with 429 leaves no thread; once there is room it makes one', async () => {
      await api.json('/threads', { id: 'busy' }, 201);
      // The tenant's one queue slot, held by a run whose tool waits until canceled.
      const holding = await api.json('/threads/busy/runs', { prompt: 'wait' }, 202);
      const stream = sseReader(await api.get(`/runs/${holding.id}/stream`));
      await waitForEvent(stream, (e) => e.data.kind === 'tool_started');

      const refused = await api.post('/chat', chatBody('fresh', 'hello'));
      expect(refused.status).toBe(429);
      expect((await refused.json()).error.kind).toBe('queue_full');
      expect((await api.get('/threads/fresh')).status).toBe(404);
      expect((await api.read('/threads')).threads.map((t: { id: string }) => t.id)).toEqual(['busy']);

      await api.json(`/runs/${holding.id}/cancel`, undefined, 202);
      await stream.cancel();
      expect((await api.read(`/runs/${holding.id}/wait`)).status).toBe('canceled');
      const accepted = await api.post('/chat', chatBody('fresh', 'hello'));
      expect(accepted.status).toBe(200);
      await accepted.text();
      expect((await api.read('/threads')).threads.map((t: { id: string }) => t.id).sort()).toEqual(['busy', 'fresh']);
    });
  });
}
