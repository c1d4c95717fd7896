import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyPartToThread, itemsFromTurns, turnsFromItems, type AssistantItem } from '../../src/chat/index.js';
import { createAgent } from '../../src/entries/runtime.js';
import { agentRunParts, type AgentPart } from '../../src/parts/index.js';
import { toMessageParams } from '../../src/providers/anthropic/index.js';
import { COMPACTION_PREFIX, type RunSnapshot, type Turn } from '../../src/runtime/contract/index.js';
import type { Run } from '../../src/runtime/agent/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';

// The conversions a chat UI needs, checked against what a real agent run shows live: a reload that
// rebuilds the thread from the session must show what the page showed, and a thread sent back as
// history must give the model the conversation it had.

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

const tools = [
  { name: 'clock.now', description: 'The time.', inputSchema: { type: 'object', properties: {} }, execute: () => '12:00' },
  { name: 'notes.list', description: 'Notes.', inputSchema: { type: 'object', properties: {} }, execute: () => ['a.md', 'b.md'] },
  {
    name: 'files.write',
    description: 'Writes.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    needsApproval: true,
    execute: () => 'written',
  },
];

/** One run as the page builds it live: a user item, then the run's parts applied as the chat store applies them. */
async function live(items: AssistantItem[], prompt: string, start: () => Run): Promise<{ items: AssistantItem[]; snapshot: RunSnapshot }> {
  let thread: AssistantItem[] = [...items, { role: 'user', text: prompt }, { role: 'assistant', parts: [] }];
  const parts = agentRunParts(start());
  let next = await parts.next();
  while (!next.done) {
    thread = applyPartToThread(thread, thread.length - 1, next.value as AgentPart);
    next = await parts.next();
  }
  return { items: thread, snapshot: next.value };
}

let agent: ReturnType<typeof createAgent>;

describe('itemsFromTurns and turnsFromItems, against a real agent run', () => {
  it('rebuilds what the page showed live (text, tool cards, the answer after them) from the turns, and back', async () => {
    agent = createAgent({ model: 'claude-test', tools }, { client: server.client() });
    server.enqueue(
      reply.tools([{ name: 'clock_now', input: {} }], { text: 'Checking the clock.' }),
      reply.tools([{ name: 'clock_now', input: {} }], { text: 'Once more.' }),
      reply.text('It is noon, twice.'),
      reply.text('Hello again.'),
    );
    const first = await live([], 'What time is it?', () => agent.submit('What time is it?'));
    const second = await live(first.items, 'Hi', () => agent.submit('Hi'));
    await agent.close();

    expect(second.items.map((item) => item.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(itemsFromTurns(second.snapshot.messages)).toEqual(second.items);
    expect(turnsFromItems(second.items)).toEqual(second.snapshot.messages);
    // What the model would be sent for this thread is what the agent sent it.
    expect(toMessageParams(turnsFromItems(second.items))).toEqual(toMessageParams(second.snapshot.messages));
  });

  it('restores a call waiting for approval with its approvalId, so the buttons come back, and leaves it out of the turns', async () => {
    agent = createAgent({ model: 'claude-test', tools }, { client: server.client() });
    server.enqueue(reply.tools([{ name: 'files_write', input: { path: 'x.txt' } }], { text: 'Writing.' }));
    const run = await live([], 'write x', () => agent.submit('write x'));
    await agent.close();

    expect(run.snapshot.pendingApprovals).toHaveLength(1);
    const restored = itemsFromTurns(run.snapshot.messages, run.snapshot.pendingApprovals);
    expect(restored).toEqual(run.items);
    const card = (restored[1] as { parts: AgentPart[] }).parts[1];
    expect(card).toMatchObject({ type: 'tool', name: 'files.write', approvalId: run.snapshot.pendingApprovals[0].approvalId });
    expect(turnsFromItems(restored)).toEqual([
      { role: 'user', blocks: [{ kind: 'text', text: 'write x' }] },
      { role: 'assistant', blocks: [{ kind: 'text', text: 'Writing.' }] },
    ]);
  });

  it('gives a restored tool result as the text the model was sent, and sends a live value as JSON', async () => {
    agent = createAgent({ model: 'claude-test', tools }, { client: server.client() });
    server.enqueue(reply.tools([{ name: 'notes_list', input: {} }]), reply.text('Two notes.'));
    const run = await live([], 'notes?', () => agent.submit('notes?'));
    await agent.close();

    const card = (items: AssistantItem[]) => (items[1] as { parts: AgentPart[] }).parts[0];
    expect(card(run.items)).toMatchObject({ name: 'notes.list', result: ['a.md', 'b.md'] });
    expect(card(itemsFromTurns(run.snapshot.messages))).toMatchObject({ name: 'notes.list', result: '["a.md","b.md"]' });
    expect(turnsFromItems(run.items)).toEqual(run.snapshot.messages);
  });
});

describe('turnsFromItems on hand-made threads', () => {
  it('keeps failed calls failed, drops memory and context parts, and sends a recap back as the summary turn it was', () => {
    const recap = `${COMPACTION_PREFIX} The user asked about notes.`;
    const items: AssistantItem[] = [
      { role: 'assistant', parts: [{ type: 'text', text: recap }] },
      { role: 'user', text: 'read x' },
      {
        role: 'assistant',
        parts: [
          { type: 'context', budget: { used: 1, limit: 2 } } as unknown as AgentPart,
          { type: 'tool', name: 'files.read', callId: 'c1', input: { path: 'x' }, result: 'no such file', isError: true },
          { type: 'text', text: 'There is no x.' },
        ],
      },
    ];
    const turns: Turn[] = [
      { role: 'user', blocks: [{ kind: 'text', text: recap }] },
      { role: 'user', blocks: [{ kind: 'text', text: 'read x' }] },
      { role: 'assistant', blocks: [{ kind: 'tool_call', id: 'c1', name: 'files.read', input: { path: 'x' } }] },
      { role: 'user', blocks: [{ kind: 'tool_result', callId: 'c1', content: 'no such file', isError: true }] },
      { role: 'assistant', blocks: [{ kind: 'text', text: 'There is no x.' }] },
    ];
    expect(turnsFromItems(items)).toEqual(turns);
    expect(itemsFromTurns(turns)).toEqual([
      items[0],
      items[1],
      { role: 'assistant', parts: items[2].role === 'assistant' ? items[2].parts.slice(1) : [] },
    ]);
  });
});
