// A consumer's code against the published types, compiled by tests/package/tarball.test.ts under
// node16, nodenext, bundler and node10 resolution. Each @ts-expect-error proves a type is real: were
// the package's declarations unresolved (everything `any`), the marked line would compile and tsc
// would fail on the unused directive.
import { SessionStore, createAgent, type Agent, type RunEvent, type RunSnapshot, type ToolDefinition } from 'indusagi';
import { hashNode } from 'indusagi/runtime';
import { createMemoryStore, type MemoryStore } from 'indusagi/memory';
import type { AnthropicClientLike } from 'indusagi/anthropic';
import { reply, startAnthropicServer, type AnthropicTestServer, type Script } from 'indusagi/testing';

const clock: ToolDefinition = {
  name: 'clock.now',
  description: 'The current time as an ISO 8601 string.',
  inputSchema: { type: 'object', properties: {} },
  execute: (_input, ctx) => (ctx.signal.aborted ? 'stopped' : new Date().toISOString()),
  needsApproval: false,
};

// @ts-expect-error a tool needs a description and an input schema
const incomplete: ToolDefinition = { name: 'broken', execute: () => 1 };

export const store = new SessionStore('.indusagi/sessions');
export const agent: Agent = createAgent({ model: 'claude-sonnet-5-5', tools: [clock, incomplete], compaction: {} }, { store });

// @ts-expect-error the config needs a model
createAgent({ system: 'no model' });

export function describe(event: RunEvent): string {
  switch (event.kind) {
    case 'text_delta':
      return event.delta;
    case 'tool_finished':
      return `${event.name} ${event.isError ? 'failed' : 'done'}`;
    case 'faulted':
      return `${event.error.kind}: ${event.error.message}`;
    case 'settled':
      return event.snapshot.text;
    default:
      // @ts-expect-error only text_delta carries a delta, and narrowing knows it
      return event.delta;
  }
}

export async function firstRole(sessionId: string): Promise<'user' | 'assistant' | undefined> {
  const snapshot: RunSnapshot = await agent.resume(sessionId);
  return snapshot.messages[0]?.role;
}

export async function leafOf(sessionId: string): Promise<string | null> {
  const graph = await store.loadSession(sessionId);
  return graph.leaf;
}

export const rootId: string = hashNode({ parent: null, turn: { role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }, at: 0 });

export const memory: MemoryStore = createMemoryStore();

export function bringYourOwnClient(client: AnthropicClientLike): Agent {
  return createAgent({ model: 'claude-sonnet-5-5' }, { client });
}

export const scripted: Script = reply.tools([{ name: 'clock_now', input: {} }], { frameDelayMs: 5 });
// @ts-expect-error a scripted message needs its blocks
export const unscripted: Script = { type: 'message' };
export async function fakeModel(): Promise<AnthropicTestServer> {
  const server = await startAnthropicServer();
  server.enqueue(scripted, reply.httpError(529));
  server.respond((body: { messages: unknown[] }, index: number) => reply.text(`#${index}: ${body.messages.length}`));
  return server;
}

import { readChatRequest, uiMessageStreamResponse, type ChatRequest } from 'indusagi/ui-message';
export function chatRoute(body: unknown): Response {
  const request: ChatRequest = readChatRequest(body);
  // @ts-expect-error the helper streams an agent's run, not a bare string
  uiMessageStreamResponse('not an agent', request);
  return uiMessageStreamResponse(agent, request, { messageId: 'm1' });
}
