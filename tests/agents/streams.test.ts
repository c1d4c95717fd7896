// A tree of agents in every stream a page reads: `agentRunParts` (and the chat store that folds parts
// into a thread) and the AI SDK UI message stream, read back with the AI SDK's own reader, as `useChat`
// reads it. The model is the loopback Anthropic server, through the real SDK.
import { readUIMessageStream, type UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import { MemorySessionStore } from '../../src/entries/store.js';
import type { Agent, ToolDefinition } from '../../src/entries/runtime.js';
import { agentTool } from '../../src/agents/index.js';
import { agentRunParts, assertAgentPart, type AgentPart } from '../../src/parts/index.js';
import { createAssistantStore } from '../../src/chat/index.js';
import { uiMessageChunks, readChatRequest, type UIMessageChunk } from '../../src/ui-message/index.js';
import { startTreeModel, systemOf, type TreeModel } from './tree-model.js';

let model: TreeModel | undefined;
afterEach(async () => {
  await model?.close();
  model = undefined;
});

const MODEL = 'claude-haiku-4-5';
const written: string[] = [];
const tools: ToolDefinition[] = [
  { name: 'look', description: 'Looks.', inputSchema: { type: 'object' }, execute: () => 'seen' },
  {
    name: 'write',
    description: 'Writes.',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    needsApproval: true,
    execute: (input: { path: string }) => (written.push(input.path), 'written'),
  },
];

/** lead -> research, which looks (or writes, which needs approval). */
function lead(): Agent {
  const research = agentTool({ model: MODEL, system: systemOf('research'), tools }, { name: 'research', description: 'R.' });
  return createAgent(
    { model: MODEL, system: systemOf('lead'), tools: [research] },
    { client: model!.server.client(), store: new MemorySessionStore() },
  );
}

async function toArray<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('a sub-agent in the part stream', () => {
  it('arrives as nested parts under the call it sits in, and the chat store folds them into the reply', async () => {
    model = await startTreeModel({
      lead: () => [{ name: 'research', input: { prompt: 'look around' } }],
      research: () => [{ name: 'look', input: {} }],
    });
    const agent = lead();
    const parts = await toArray(agentRunParts(agent.submit('Look around')));
    for (const part of parts) assertAgentPart(part);
    const researchCall = (parts.find((p) => p.type === 'tool') as Extract<AgentPart, { type: 'tool' }>).callId;

    const nested = parts.filter((p) => p.type === 'nested');
    expect(nested.every((p) => p.type === 'nested' && p.path.join() === 'research' && p.calls.join() === researchCall)).toBe(true);
    expect(nested.map((p) => (p.type === 'nested' ? p.part.type : ''))).toContain('tool');
    // Own parts are the lead's only: its answer quotes the research, no sub-agent text leaks into it.
    const own = parts.filter((p) => p.type === 'text').map((p) => (p.type === 'text' ? p.text : ''));
    expect(own.join('')).toMatch(/^lead heard: /);

    const store = createAssistantStore({
      stream: async function* () {
        yield* parts;
      },
    });
    await store.send('Look around');
    const reply = store.getState().items[1];
    if (reply.role !== 'assistant') throw new Error('no reply');
    // The sub-agent's text streamed in pieces and is one part; its tool call is one part.
    expect(reply.parts.filter((p) => p.type === 'nested')).toEqual([
      {
        type: 'nested',
        path: ['research'],
        calls: [researchCall],
        part: expect.objectContaining({ type: 'tool', name: 'look', result: 'seen' }),
      },
      { type: 'nested', path: ['research'], calls: [researchCall], part: { type: 'text', text: 'research heard: seen' } },
    ]);
    await agent.close();
  });

  it('refuses a nested part that is not one: no path, calls that do not match it, a nested part inside', () => {
    const inner: AgentPart = { type: 'text', text: 'x' };
    expect(() => assertAgentPart({ type: 'nested', path: [], calls: [], part: inner })).toThrow(/path/);
    expect(() => assertAgentPart({ type: 'nested', path: ['a', 'b'], calls: ['c1'], part: inner })).toThrow(/calls/);
    expect(() =>
      assertAgentPart({ type: 'nested', path: ['a'], calls: ['c1'], part: { type: 'nested', path: ['b'], calls: ['c2'], part: inner } }),
    ).toThrow(/not another nested part/);
    expect(() => assertAgentPart({ type: 'nested', path: ['a'], calls: ['c1'], part: { type: 'tool' } })).toThrow(/inner part/);
  });
});

describe('a sub-agent in the AI SDK UI message stream', () => {
  /** The chunks of one request, read into the message the way useChat builds it. */
  async function message(chunks: AsyncIterable<UIMessageChunk>, from?: UIMessage): Promise<UIMessage> {
    const list = await toArray(chunks);
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of list) controller.enqueue(chunk);
        controller.close();
      },
    });
    let last: UIMessage | undefined;
    for await (const next of readUIMessageStream({ stream: stream as never, message: from, terminateOnError: true }))
      last = next as UIMessage;
    return structuredClone(last!);
  }

  it('shows its progress as data-agent parts, asks its approval on the card of the call it sits in, and goes on once approved', async () => {
    written.length = 0;
    model = await startTreeModel({
      lead: () => [{ name: 'research', input: { prompt: 'write it' } }],
      research: () => [{ name: 'write', input: { path: 'notes.md' } }],
    });
    const agent = lead();
    const signal = new AbortController().signal;
    const first = await message(uiMessageChunks(agent, { kind: 'prompt', text: 'Write notes' }, signal, { messageId: 'm1' }));

    const card = first.parts.find((p) => p.type === 'dynamic-tool') as Extract<UIMessage['parts'][number], { type: 'dynamic-tool' }>;
    expect(card).toMatchObject({ toolName: 'research', state: 'approval-requested' });
    const approvalId = (card as { approval: { id: string } }).approval.id;
    expect(approvalId).toBe(agent.pendingApprovals()[0].approvalId);
    expect(approvalId.startsWith(`${card.toolCallId}/`)).toBe(true);
    const data = first.parts.filter((p) => p.type === 'data-agent') as Array<{
      id: string;
      data: { path: string[]; calls: string[]; part: AgentPart };
    }>;
    // One part per nested call, updated in place: the write, waiting for approval under the research card.
    expect(data).toEqual([
      expect.objectContaining({
        data: { path: ['research'], calls: [card.toolCallId], part: expect.objectContaining({ type: 'tool', name: 'write', approvalId }) },
      }),
    ]);
    expect(written).toEqual([]);

    // The page answers as useChat does: the card's approval responded, in the last message.
    const responded = {
      ...first,
      parts: first.parts.map((p) =>
        p === (card as object) ? { ...card, state: 'approval-responded', approval: { id: approvalId, approved: true } } : p,
      ),
    };
    const request = readChatRequest({
      id: 'chat',
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Write notes' }] }, responded],
    });
    const second = await message(uiMessageChunks(agent, request, signal), responded as UIMessage);
    expect(written).toEqual(['notes.md']);
    expect(second.parts.find((p) => p.type === 'dynamic-tool')).toMatchObject({ toolName: 'research', state: 'output-available' });
    const nestedWrite = second.parts.filter((p) => p.type === 'data-agent').map((p) => (p as { data: { part: AgentPart } }).data.part);
    expect(nestedWrite).toContainEqual(expect.objectContaining({ type: 'tool', name: 'write', result: 'written' }));
    // Its text comes a delta a part (never resent whole); joined, it is what the sub-agent said.
    const said = nestedWrite.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    expect(said).toBe('research heard: written');
    await agent.close();
  });

  it('sends a rejected sub-agent call as the sub-agent hears it, not as a denial of the call it sits in', async () => {
    written.length = 0;
    model = await startTreeModel({
      lead: () => [{ name: 'research', input: { prompt: 'write it' } }],
      research: () => [{ name: 'write', input: { path: 'x.md' } }],
    });
    const agent = lead();
    const signal = new AbortController().signal;
    const first = await message(uiMessageChunks(agent, { kind: 'prompt', text: 'Write' }, signal, { messageId: 'm1' }));
    const card = first.parts.find((p) => p.type === 'dynamic-tool') as { toolCallId: string; approval: { id: string } };
    const chunks = await toArray(
      uiMessageChunks(
        agent,
        { kind: 'decisions', decisions: [{ approvalId: card.approval.id, toolCallId: card.toolCallId, approved: false, reason: 'no' }] },
        signal,
      ),
    );
    expect(chunks.some((c) => c.type === 'tool-output-denied')).toBe(false);
    expect(chunks).toContainEqual(expect.objectContaining({ type: 'tool-output-available', toolCallId: card.toolCallId }));
    expect(written).toEqual([]);
    await agent.close();
  });
});
