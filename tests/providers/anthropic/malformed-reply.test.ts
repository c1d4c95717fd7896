// Replies the API should never send, sent anyway: each is a typed model_error, nothing of it is kept,
// and the session in memory and on disk stay the same. Through the real SDK and the loopback server.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, SessionStore } from '../../../src/entries/runtime.js';
import { ModelCallError, RunFault } from '../../../src/entries/errors.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';

let server: AnthropicTestServer;
let dir: string;
beforeEach(async () => {
  server = await startAnthropicServer();
  dir = await mkdtemp(join(tmpdir(), 'indusagi-malformed-'));
});
afterEach(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const transfer = {
  name: 'bank.transfer',
  description: 'Moves money.',
  inputSchema: { type: 'object' },
  needsApproval: true,
  execute: () => 'sent',
};

async function failedRun(script: ReturnType<typeof reply.message>) {
  server.enqueue(script);
  const store = new SessionStore(dir);
  const agent = createAgent({ model: 'claude-haiku-4-5', sessionId: 's', tools: [transfer] }, { client: server.client(), store });
  const failure = (await agent.submit('pay the rent').catch((e: unknown) => e)) as RunFault;
  const inMemory = failure.snapshot.messages;
  const pending = agent.pendingApprovals();
  await agent.close();
  const graph = await store.loadSession('s');
  return { failure, inMemory, pending, onDisk: graph.resume(graph.leaf!) };
}

describe('a malformed reply', () => {
  it('with a tool call that has no id is a model_error, and nothing of it is kept or left waiting', async () => {
    const { failure, inMemory, onDisk, pending } = await failedRun(
      reply.message([{ type: 'tool_use', id: '', name: 'bank_transfer', input: { amount: 5 } }]),
    );
    expect(failure.kind).toBe('model_error');
    expect(ModelCallError.isInstance(failure.cause)).toBe(true);
    expect(failure.message).toMatch(/malformed.*a tool call has no id/);
    expect(inMemory).toEqual(onDisk);
    expect(onDisk).toHaveLength(1);
    expect(pending).toEqual([]);
  });

  it('with a tool call that has no tool name is a model_error', async () => {
    const { failure, onDisk } = await failedRun(reply.message([{ type: 'tool_use', id: 'toolu_x', name: '', input: {} }]));
    expect(failure.kind).toBe('model_error');
    expect(failure.message).toMatch(/tool call toolu_x has no tool name/);
    expect(onDisk).toHaveLength(1);
  });

  it('with two calls under one id is a model_error: one approval can never run two calls', async () => {
    const { failure, onDisk, pending } = await failedRun(
      reply.message([
        { type: 'tool_use', id: 'toolu_same', name: 'bank_transfer', input: { amount: 5 } },
        { type: 'tool_use', id: 'toolu_same', name: 'bank_transfer', input: { amount: 5000 } },
      ]),
    );
    expect(failure.kind).toBe('model_error');
    expect(failure.message).toMatch(/two tool calls share the id toolu_same/);
    expect(onDisk).toHaveLength(1);
    expect(pending).toEqual([]);
  });

  it('with a delta for a block that was never started is a typed model_error, not a raw TypeError', async () => {
    const script = reply.text('Hello there', {
      rewrite: (frames) =>
        frames.map((frame) => (frame.event === 'content_block_delta' ? { ...frame, data: { ...frame.data, index: 7 } } : frame)),
    });
    const { failure, onDisk } = await failedRun(script);
    expect(failure.kind).toBe('model_error');
    expect(ModelCallError.isInstance(failure.cause)).toBe(true);
    expect(failure.message).toMatch(/a content_block_delta for block 7, which never started/);
    expect(onDisk).toHaveLength(1);
  });
});
