// A sub-agent's question on the server (`ctx.ask` inside an `agentTool`'s agent, at any depth): listed in
// the run's `pendingInputs` with its `path`, answered through POST /runs/{runId}/inputs/{requestId} like
// the run's own, on one machine and on PostgreSQL. Before, it arrived only as `nested/input_requested`,
// `pendingInputs` stayed empty and the answer got 409 while the run waited until cancelled.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTool } from '../../src/agents/index.js';
import { createAnthropicInvoker } from '../../src/providers/anthropic/invoker.js';
import type { AgentConfig } from '../../src/runtime/agent/types.js';
import { bearerTokens, createServer, migrateServer, type AgentServer, type AgentFactory } from '../../src/server/index.js';
import type { AnthropicTestServer } from '../../src/testing/index.js';
import agentOf from './fixtures/agent.js';
import { Client, sseReader, startScriptedModel, waitForEvent, type SseEvent } from '../support/agent-server.js';
import { freshSchema, postgresUrl } from '../support/postgres.js';

const TOKENS = [{ token: 'acme-nested-inputs-token-0123', tenant: 'acme', user: 'ana' }];

/** The fixture agent (whose `ask.person` tool asks "How many?") two levels down: run → helper → helper → ask. */
function nestedAgent(model: AnthropicTestServer): AgentFactory {
  const invokeModel = createAnthropicInvoker(model.client());
  return (context) => {
    const base = agentOf({ ...context, model: { invokeModel, model: 'claude-test', offline: false } }) as { config: AgentConfig };
    const leaf: AgentConfig = { ...base.config, system: 'The leaf.' };
    const middle: AgentConfig = {
      ...base.config,
      system: 'The middle.',
      tools: [agentTool(leaf, { name: 'helper', description: 'Helps.' })],
    };
    return { config: { ...base.config, tools: [agentTool(middle, { name: 'helper', description: 'Helps.' })] }, invokeModel };
  };
}

async function rest(reader: ReturnType<typeof sseReader>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for (let event = await reader.next(); event !== undefined; event = await reader.next()) out.push(event);
  return out;
}

/** A run whose question is asked two sub-agents down is listed, refused when bad, and answered. */
async function answerDeepQuestion(api: Client, thread: string): Promise<void> {
  await api.json('/threads', { id: thread }, 201);
  const run = await api.json(`/threads/${thread}/runs`, { prompt: 'delegate delegate ask' }, 202);
  const reader = sseReader(await api.get(`/runs/${run.id}/stream`));
  const asked = await waitForEvent(reader, (e) => e.data.kind === 'nested' && e.data.event.kind === 'input_requested');
  const question = asked.data.event as { requestId: string; callId: string };
  expect(asked.data.path).toEqual(['helper', 'helper']);

  const waiting = await api.read(`/runs/${run.id}`);
  expect(waiting.status).toBe('running');
  expect(waiting.pendingInputs).toEqual([
    expect.objectContaining({
      requestId: question.requestId,
      callId: question.callId,
      name: 'ask.person',
      message: 'How many?',
      path: ['helper', 'helper'],
    }),
  ]);
  // Checked against the question's schema like a question of the run's own.
  const bad = await api.post(`/runs/${run.id}/inputs/${question.requestId}`, { action: 'accept', content: { count: 'many' } });
  expect(bad.status).toBe(400);

  await api.json(`/runs/${run.id}/inputs/${question.requestId}`, { action: 'accept', content: { count: 4 } }, 202);
  const after = await rest(reader);
  expect(after.at(-1)!.data.kind).toBe('settled');
  const ended = await api.read(`/runs/${run.id}`);
  expect(ended).toMatchObject({ status: 'settled', pendingInputs: [] });
  // The answer went down to the leaf's tool; each level's result wraps the one below ({ sessionId, answer }).
  const middle = JSON.parse(ended.result.text.replace(/^done: /, ''));
  const leaf = JSON.parse(middle.answer.replace(/^done: /, ''));
  expect(leaf.answer).toBe('done: answer {"action":"accept","content":{"count":4}}');
  const again = await api.post(`/runs/${run.id}/inputs/${question.requestId}`, { action: 'decline' });
  expect(again.status).toBe(409);
}

describe('a sub-agent’s question on the server', { timeout: 120_000 }, () => {
  let dir: string;
  let model: AnthropicTestServer;
  const servers: AgentServer[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'indusagi-nested-inputs-'));
    model = await startScriptedModel({ delayMs: 0 });
  });
  afterAll(async () => {
    for (const server of servers) await server.close(1_000);
    await model?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is answerable two levels down on one machine', async () => {
    const server = await createServer({ dataDir: join(dir, 'data'), authenticate: bearerTokens(TOKENS), agent: nestedAgent(model) });
    servers.push(server);
    await answerDeepQuestion(new Client('http://server.test', TOKENS[0].token, server.fetch), 'deep');
  });

  it.skipIf(postgresUrl === undefined)('is answerable two levels down on PostgreSQL', async () => {
    const schema = freshSchema('nin');
    await migrateServer(postgresUrl!, { schema });
    const server = await createServer({
      database: postgresUrl!,
      schema,
      authenticate: bearerTokens(TOKENS),
      agent: nestedAgent(model),
      worker: { concurrency: 2 },
    });
    servers.push(server);
    await answerDeepQuestion(new Client('http://server.test', TOKENS[0].token, server.fetch), 'deep-pg');
  });
});
