// Handoffs: the model hands the conversation to another agent (its own system prompt, tools and
// model) in the same session, and back; the session records it, so a new process resumes with the
// agent that had the conversation. Real processes, a real file store, the loopback Anthropic model.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../src/entries/runtime.js';
import { MemorySessionStore } from '../../src/entries/store.js';
import { sessionCost } from '../../src/entries/models.js';
import type { AgentConfig, RunEvent } from '../../src/entries/runtime.js';
import { AgentConfigError } from '../../src/runtime/index.js';
import { handoff, speakers, transferToolName } from '../../src/agents/index.js';
import { anthropic } from '../../src/providers/anthropic/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { runJsonChild } from '../support/child-process.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/handoff-process.ts', import.meta.url));

let server: AnthropicTestServer;
let dir: string;
beforeEach(async () => {
  server = await startAnthropicServer();
  dir = await mkdtemp(join(tmpdir(), 'indusagi-handoff-'));
  // Triage hands every prompt to the writer; the writer writes, or hands back when asked to.
  server.respond((body) => {
    const system = (body.system ?? []).map((b: { text: string }) => b.text).join('');
    const last = body.messages.at(-1);
    const results = Array.isArray(last.content) ? last.content.filter((b: { type: string }) => b.type === 'tool_result') : [];
    const prompt =
      results.length > 0
        ? ''
        : Array.isArray(last.content)
          ? last.content.map((b: { text?: string }) => b.text ?? '').join('')
          : last.content;
    if (system.includes('triage')) {
      if (results.length > 0) return reply.text('Triage again: what else?');
      return reply.tools([{ name: 'transfer_to_writer', input: {} }]);
    }
    if (/back/.test(prompt)) return reply.tools([{ name: 'transfer_to_triage', input: {} }]);
    return reply.text('Tides turn, the moon decides.');
  });
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

type Printed = { resumed: string | undefined; answered: Array<{ agent: string | undefined; text: string }> };

const systemOf = (body: any) => (body.system ?? []).map((b: { text: string }) => b.text).join('');

describe('handoffs', () => {
  it('hand the conversation there and back, each agent with its own prompt, tools and model, resumed in another process', async () => {
    const first = await runJsonChild<Printed>(FIXTURE, { baseURL: server.baseURL, dir, prompts: ['Write me a poem about tides.'] });
    expect(first).toEqual({ resumed: 'triage', answered: [{ agent: 'writer', text: 'Tides turn, the moon decides.' }] });
    // Triage's call offered only its transfer tool; after the handoff the writer's call was the writer's own.
    const [triageCall, writerCall] = server.requests.map((r) => r.body);
    expect([systemOf(triageCall), triageCall.model, triageCall.tools.map((t: { name: string }) => t.name)]).toEqual([
      'You are the triage agent.',
      'claude-haiku-4-5',
      ['transfer_to_writer'],
    ]);
    expect([systemOf(writerCall), writerCall.model, writerCall.max_tokens, writerCall.tools.map((t: { name: string }) => t.name)]).toEqual([
      'You are the writer agent.',
      'claude-sonnet-4-6',
      4_000,
      ['rhyme', 'transfer_to_triage'],
    ]);

    // A new process comes back to the writer, who has the conversation; it hands back to triage.
    const second = await runJsonChild<Printed>(FIXTURE, { baseURL: server.baseURL, dir, prompts: ['Thanks; take me back to triage.'] });
    expect(second).toEqual({ resumed: 'writer', answered: [{ agent: 'triage', text: 'Triage again: what else?' }] });
    const [handBack, triageAgain] = server.requests.slice(2).map((r) => r.body);
    expect([systemOf(handBack), handBack.model]).toEqual(['You are the writer agent.', 'claude-sonnet-4-6']);
    expect([systemOf(triageAgain), triageAgain.model]).toEqual(['You are the triage agent.', 'claude-haiku-4-5']);
    // One session holds it all, in order, and says which agent gave each reply.
    expect(triageAgain.messages.map((m: { role: string }) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    const graph = await new SessionStore(dir).loadSession('handoffs');
    const turns = graph.pathTo(graph.leaf!);
    expect(speakers(turns, ['triage', 'writer'], 'triage')).toEqual([
      undefined,
      'triage',
      undefined,
      'writer',
      undefined,
      'writer',
      undefined,
      'triage',
    ]);
  });

  it('publish a handoff event, put the agent on the snapshot and bill each agent under its own model', async () => {
    const writer: AgentConfig = {
      name: 'writer',
      model: anthropic('claude-sonnet-4-6', { client: server.client() }),
      system: 'You are the writer agent.',
    };
    const store = new MemorySessionStore();
    const agent = createAgent(
      { name: 'triage', model: 'claude-haiku-4-5', system: 'You are the triage agent.', handoffs: [handoff(writer)], sessionId: 's' },
      { client: server.client(), store },
    );
    const events: RunEvent[] = [];
    const run = agent.submit('A poem, please.');
    for await (const event of run) events.push(event);
    const snapshot = await run;
    const call = events.find((e) => e.kind === 'tool_started')!;
    expect(call).toMatchObject({ name: transferToolName('writer') });
    expect(events.filter((e) => e.kind === 'handoff')).toEqual([
      { kind: 'handoff', from: 'triage', to: 'writer', callId: (call as { callId: string }).callId, runId: run.runId },
    ]);
    expect(snapshot.agent).toBe('writer');
    await agent.close();
    const graph = await store.loadSession('s');
    expect(sessionCost(graph.allNodes()).unpriced).toEqual([]);
    expect([...graph.allNodes()].flatMap((node) => node.model ?? [])).toEqual(['claude-haiku-4-5', 'claude-sonnet-4-6']);
  });

  it('refuse agents they cannot tell apart, and handoffs without a name', () => {
    const a: AgentConfig = { name: 'twin', model: 'm' };
    const b: AgentConfig = { name: 'twin', model: 'n' };
    expect(() => createAgent({ model: 'm', handoffs: [handoff(a), handoff(b)] }, { client: server.client() })).toThrow(AgentConfigError);
    expect(() => handoff({ model: 'm' })).toThrow(/needs a name/);
    // Claude built for the first agent's model calls only that one: another model must come with its invoker.
    const other = handoff({ name: 'writer', model: 'claude-sonnet-4-6' });
    expect(() => createAgent({ model: 'claude-haiku-4-5', handoffs: [other] }, { client: server.client() })).toThrow(
      /Agent "writer": .*built for "claude-haiku-4-5"/,
    );
  });
});
