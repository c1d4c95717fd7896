import { readUIMessageStream, type UIMessage as AiUIMessage, type UIMessageChunk as AiChunk } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import type { Agent } from '../../src/runtime/agent/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import {
  ChatRequestError,
  readChatRequest,
  uiMessagesFromTurns,
  uiMessageStreamResponse,
  type ChatRequest,
} from '../../src/ui-message/index.js';

// The UI message stream as the AI SDK reads it: the raw SSE body, then the message `readUIMessageStream`
// (the processing `useChat` runs) builds from it. The browser test drives the real useChat.

let model: AnthropicTestServer;
let agent: Agent;
const ran: string[] = [];
const tools = [
  { name: 'clock.now', description: 'The time.', inputSchema: { type: 'object', properties: {} }, execute: () => ({ time: '12:00' }) },
  {
    name: 'files.write',
    description: 'Writes.',
    inputSchema: { type: 'object', properties: {} },
    needsApproval: true,
    execute: () => (ran.push('write'), 'written'),
  },
];

beforeEach(async () => {
  model = await startAnthropicServer();
  agent = createAgent({ model: 'claude-test', tools }, { client: model.client() });
  ran.length = 0;
});
afterEach(async () => {
  await agent.close();
  await model.close();
});

const prompt = (text: string): ChatRequest => ({ kind: 'prompt', text });

/** The SSE events of a response body, `data:` payloads in order. */
async function events(response: Response): Promise<string[]> {
  const text = await response.text();
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter((frame) => frame !== '')
    .map((frame) => {
      expect(frame.startsWith('data: ')).toBe(true);
      return frame.slice('data: '.length);
    });
}

async function chunksOf(response: Response): Promise<AiChunk[]> {
  const data = await events(response);
  expect(data.at(-1)).toBe('[DONE]');
  return data.slice(0, -1).map((d) => JSON.parse(d) as AiChunk);
}

/** The message the AI SDK's own stream processing builds from the chunks (the last state it reports). */
async function messageOf(chunks: AiChunk[], message?: AiUIMessage): Promise<AiUIMessage> {
  const stream = new ReadableStream<AiChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let last: AiUIMessage | undefined;
  for await (const state of readUIMessageStream({ stream, message, terminateOnError: true })) last = structuredClone(state);
  return last!;
}

describe('uiMessageStreamResponse', () => {
  it('sends the protocol headers, SSE data events and [DONE]; text, then the tool, then the answer in a new step', async () => {
    model.enqueue(reply.tools([{ id: 'call_1', name: 'clock_now', input: {} }], { text: 'Checking.' }), reply.text('Noon.'));
    const response = uiMessageStreamResponse(agent, prompt('time?'), { messageId: 'm1' });
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const chunks = await chunksOf(response);
    // Runs of text deltas counted once: how many there are is the model's business.
    const shape = chunks.map((c) => c.type).filter((type, i, all) => !(type === 'text-delta' && all[i - 1] === 'text-delta'));
    expect(shape).toEqual([
      'start',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'tool-input-available',
      'tool-output-available',
      'finish-step',
      'start-step',
      'text-start',
      'text-delta',
      'text-end',
      'finish-step',
      'finish',
    ]);
    expect(chunks[0]).toEqual({ type: 'start', messageId: 'm1' });

    const message = await messageOf(chunks);
    expect(message.id).toBe('m1');
    expect(message.parts.filter((p) => p.type !== 'step-start')).toEqual([
      { type: 'text', text: 'Checking.', state: 'done' },
      {
        type: 'dynamic-tool',
        toolName: 'clock.now',
        toolCallId: 'call_1',
        state: 'output-available',
        input: {},
        output: { time: '12:00' },
      },
      { type: 'text', text: 'Noon.', state: 'done' },
    ]);
  });

  it('asks for approval, and a decisions request continues the same message: approved runs, rejected is denied', async () => {
    model.enqueue(
      reply.tools([
        { id: 'w1', name: 'files_write', input: {} },
        { id: 'w2', name: 'files_write', input: {} },
      ]),
      reply.text('One written.'),
    );
    const first = await chunksOf(uiMessageStreamResponse(agent, prompt('write twice'), { messageId: 'm2' }));
    expect(first.filter((c) => c.type === 'tool-approval-request')).toEqual([
      { type: 'tool-approval-request', approvalId: 'w1', toolCallId: 'w1' },
      { type: 'tool-approval-request', approvalId: 'w2', toolCallId: 'w2' },
    ]);
    const asked = await messageOf(first);
    expect(asked.parts.filter((p) => p.type === 'dynamic-tool').map((p) => p.state)).toEqual(['approval-requested', 'approval-requested']);

    const decisions: ChatRequest = {
      kind: 'decisions',
      decisions: [
        { approvalId: 'w1', toolCallId: 'w1', approved: true },
        { approvalId: 'w2', toolCallId: 'w2', approved: false, reason: 'once is enough' },
      ],
    };
    const second = await chunksOf(uiMessageStreamResponse(agent, decisions));
    expect(second[0]).toEqual({ type: 'start' });
    expect(second.filter((c) => c.type === 'tool-input-available')).toEqual([]);
    const done = await messageOf(second, asked);
    expect(done.id).toBe('m2');
    expect(done.parts.filter((p) => p.type === 'dynamic-tool').map((p) => [p.toolCallId, p.state])).toEqual([
      ['w1', 'output-available'],
      ['w2', 'output-denied'],
    ]);
    expect(done.parts.at(-1)).toMatchObject({ type: 'text', text: 'One written.' });
    expect(ran).toEqual(['write']);
  });

  it('ends a failed run with an error chunk carrying the typed error message, and a finish', async () => {
    model.enqueue(reply.httpError(400, { message: 'bad prompt' }));
    const chunks = await chunksOf(uiMessageStreamResponse(agent, prompt('hi'), { onError: () => {} }));
    const error = chunks.find((c) => c.type === 'error');
    expect(error).toMatchObject({ type: 'error', errorText: expect.stringContaining('bad prompt') });
    expect(chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'error' });
    await expect(messageOf(chunks)).rejects.toThrow('bad prompt');
  });

  it('cancelling the body aborts the run on the model, and the agent takes the next prompt', async () => {
    model.enqueue(reply.text('word '.repeat(100), { chunks: Array(100).fill('word '), frameDelayMs: 20 }), reply.text('Next.'));
    const response = uiMessageStreamResponse(agent, prompt('talk'), { onError: () => {} });
    const reader = response.body!.getReader();
    let seen = '';
    while (!seen.includes('text-delta')) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    await expect.poll(() => model.requests[0].clientClosedEarly).toBe(true);

    const next = await messageOf(await chunksOf(uiMessageStreamResponse(agent, prompt('again'))));
    expect(next.parts.at(-1)).toMatchObject({ type: 'text', text: 'Next.' });
  });

  it('ends with an abort chunk when the run is stopped on the server while the page listens', async () => {
    model.enqueue(reply.text('word '.repeat(100), { chunks: Array(100).fill('word '), frameDelayMs: 20 }));
    agent.subscribe((event) => {
      if (event.kind === 'text_delta') agent.abort();
    });
    const chunks = await chunksOf(uiMessageStreamResponse(agent, prompt('talk'), { onError: () => {} }));
    expect(chunks.at(-1)).toMatchObject({ type: 'abort' });
    expect(chunks.some((c) => c.type === 'error')).toBe(false);
  });
});

describe('uiMessagesFromTurns', () => {
  it('gives useChat, after a reload, the messages it built live (tool values as the text the model got)', async () => {
    model.enqueue(
      reply.tools([{ id: 'c1', name: 'clock_now', input: {} }], { text: 'Checking.' }),
      reply.text('Noon.'),
      reply.tools([{ id: 'w1', name: 'files_write', input: {} }]),
    );
    const live = await messageOf(await chunksOf(uiMessageStreamResponse(agent, prompt('time?'))));
    const waiting = await messageOf(await chunksOf(uiMessageStreamResponse(agent, prompt('write'))));
    const snapshot = await agent.resume(agent.sessionId);

    const restored = uiMessagesFromTurns(snapshot);
    expect(restored.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const parts = (m: { parts: unknown[] }) => m.parts.filter((p) => (p as { type: string }).type !== 'step-start');
    expect(parts(restored[1])).toEqual(
      parts(live).map((p) => ((p as { output?: unknown }).output ? { ...(p as object), output: '{"time":"12:00"}' } : p)),
    );
    expect(parts(restored[3])).toEqual(parts(waiting));
    expect(restored[0].parts).toEqual([{ type: 'text', text: 'time?', state: 'done' }]);
  });
});

describe('readChatRequest', () => {
  const user = (text: string) => ({ id: 'u', role: 'user', parts: [{ type: 'text', text }] });
  it('reads the last user message of a useChat body as the prompt', () => {
    expect(
      readChatRequest({
        id: 'chat',
        messages: [user('old'), { id: 'a', role: 'assistant', parts: [] }, user('new')],
        trigger: 'submit-message',
      }),
    ).toEqual({ kind: 'prompt', chatId: 'chat', text: 'new' });
  });

  it('reads answered approvals from the last assistant message as decisions', () => {
    const assistant = {
      id: 'a',
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Writing.' },
        {
          type: 'dynamic-tool',
          toolName: 'files.write',
          toolCallId: 'w1',
          state: 'approval-responded',
          input: {},
          approval: { id: 'w1', approved: true },
        },
        {
          type: 'tool-files_write',
          toolCallId: 'w2',
          state: 'approval-responded',
          input: {},
          approval: { id: 'w2', approved: false, reason: 'no' },
        },
        { type: 'dynamic-tool', toolName: 'clock.now', toolCallId: 'c1', state: 'output-available', input: {}, output: 1 },
      ],
    };
    expect(readChatRequest({ messages: [user('write'), assistant] })).toEqual({
      kind: 'decisions',
      decisions: [
        { approvalId: 'w1', toolCallId: 'w1', approved: true },
        { approvalId: 'w2', toolCallId: 'w2', approved: false, reason: 'no' },
      ],
    });
  });

  it.each([
    ['not an object', 'hello'],
    ['no messages', { messages: [] }],
    ['a message without parts', { messages: [{ role: 'user', content: 'hi' }] }],
    ['an empty prompt', { messages: [user('  ')] }],
    ['an assistant message answering nothing', { messages: [{ role: 'assistant', parts: [{ type: 'text', text: 'x' }] }] }],
    ['a system message', { messages: [{ role: 'system', parts: [{ type: 'text', text: 'x' }] }] }],
    [
      'an approval without a decision',
      {
        messages: [
          { role: 'assistant', parts: [{ type: 'dynamic-tool', toolCallId: 'w', state: 'approval-responded', approval: { id: 'w' } }] },
        ],
      },
    ],
  ])('refuses %s with a ChatRequestError', (_, body) => {
    let error: unknown;
    try {
      readChatRequest(body);
    } catch (e) {
      error = e;
    }
    expect(ChatRequestError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ kind: 'invalid_chat_request', name: 'ChatRequestError' });
  });
});
