import { readUIMessageStream, type UIMessage as AiUIMessage, type UIMessageChunk as AiChunk } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import { denyToolArguments } from '../../src/runtime/guardrails/index.js';
import type { Agent } from '../../src/runtime/agent/index.js';
import { MemorySessionStore } from '../../src/runtime/store/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import {
  uiMessageChunkResponse,
  uiMessageChunks,
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
      'tool-input-start',
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
    expect(second.filter((c) => c.type === 'tool-input-start' || c.type === 'tool-input-available')).toEqual([]);
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

  it('shows a tripped run as a data-guardrail part of the message, then the error chunk naming the guardrail', async () => {
    await agent.close();
    agent = createAgent(
      { model: 'claude-test', tools, outputGuardrails: [denyToolArguments([{ match: 'secret', reason: 'private files' }])] },
      { client: model.client() },
    );
    model.enqueue(reply.tools([{ name: 'files_write', input: { path: 'secret.txt' }, id: 'toolu_w' }], { text: 'Saving it.' }));
    const failures: unknown[] = [];
    const chunks = await chunksOf(uiMessageStreamResponse(agent, prompt('save it'), { onError: (e) => failures.push(e) }));

    const trip = { guardrail: 'deny_tool_arguments', stage: 'tool_call', callId: 'toolu_w', toolName: 'files.write' };
    expect(chunks.find((c) => c.type === 'data-guardrail')).toMatchObject({ type: 'data-guardrail', data: trip });
    expect(chunks.slice(-3)).toEqual([
      { type: 'finish-step' },
      {
        type: 'error',
        errorText: expect.stringMatching(/^Guardrail "deny_tool_arguments" tripped on a tool call \(files.write toolu_w\)/),
      },
      { type: 'finish', finishReason: 'error' },
    ]);
    expect(failures).toMatchObject([{ kind: 'guardrail_tripped', snapshot: { tripped: trip } }]);
    // What useChat builds: the text, the guardrail part, then the call it stopped (never run, never asked about); then the error.
    const stream = new ReadableStream<AiChunk>({
      start(controller) {
        for (const chunk of chunks.filter((c) => c.type !== 'error')) controller.enqueue(chunk);
        controller.close();
      },
    });
    let message: AiUIMessage | undefined;
    for await (const state of readUIMessageStream({ stream })) message = structuredClone(state);
    expect(message!.parts.map((part) => part.type)).toEqual(['step-start', 'text', 'data-guardrail', 'dynamic-tool']);
    expect(message!.parts[2]).toMatchObject({ data: trip });
    expect(message!.parts[3]).toMatchObject({
      toolName: 'files.write',
      state: 'output-error',
      errorText: expect.stringMatching(/^Aborted/),
    });
    expect(ran).toEqual([]);
    expect(chunks.some((c) => c.type === 'tool-approval-request')).toBe(false);
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

  it('announces a call as soon as it runs (tool-input-start, tool-input-available), so the page shows it running until its output', async () => {
    let finish!: () => void;
    const running = new Promise<void>((resolve) => (finish = resolve));
    const scanner = createAgent(
      {
        model: 'claude-test',
        tools: [
          {
            name: 'files.scan',
            description: 'Scans.',
            inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
            execute: async () => (await running, 'scanned'),
          },
        ],
      },
      { client: model.client() },
    );
    try {
      model.enqueue(reply.tools([{ id: 's1', name: 'files_scan', input: { path: 'src' } }]), reply.text('Scanned.'));
      const reader = uiMessageStreamResponse(scanner, prompt('scan'), { messageId: 'm5' })
        .body!.pipeThrough(new TextDecoderStream())
        .getReader();
      let sent = '';
      while (!sent.includes('"tool-input-available"')) sent += (await reader.read()).value;
      const soFar = sent
        .split('\n\n')
        .filter((frame) => frame.startsWith('data: {'))
        .map((frame) => JSON.parse(frame.slice('data: '.length)) as AiChunk);
      expect(soFar.slice(-2)).toEqual([
        { type: 'tool-input-start', toolCallId: 's1', toolName: 'files.scan', dynamic: true },
        { type: 'tool-input-available', toolCallId: 's1', toolName: 'files.scan', input: { path: 'src' }, dynamic: true },
      ]);
      // The tool is still running (it waits for `finish`): the page has its card, without an output.
      const shown = await messageOf(soFar);
      expect(shown.parts.find((p) => p.type === 'dynamic-tool')).toMatchObject({ toolCallId: 's1', state: 'input-available' });

      finish();
      let rest = '';
      for (let step = await reader.read(); !step.done; step = await reader.read()) rest += step.value;
      expect(rest).toContain('"type":"tool-output-available","toolCallId":"s1","output":"scanned"');
    } finally {
      await scanner.close();
    }
  });

  it('continue: after branchFrom to a prompt, the model answers it again as a new message, and the first answer stays in the session', async () => {
    const store = new MemorySessionStore();
    const stored = createAgent({ model: 'claude-test', tools, sessionId: 'regen' }, { client: model.client(), store });
    try {
      model.enqueue(reply.text('Noon.'), reply.text("Twelve o'clock."));
      await chunksOf(uiMessageStreamResponse(stored, prompt('time?')));
      const graph = await store.loadSession('regen');
      const asked = [...graph.allNodes()].find((node) => node.turn.role === 'user')!;
      await stored.branchFrom(asked.id);

      const again = await chunksOf(uiMessageStreamResponse(stored, { kind: 'continue' }, { messageId: 'm6' }));
      expect(again[0]).toEqual({ type: 'start', messageId: 'm6' });
      expect((await messageOf(again)).parts.at(-1)).toMatchObject({ type: 'text', text: "Twelve o'clock." });
      // The model was asked the prompt again, without the answer it had given.
      expect(model.requests.at(-1)!.body.messages.map((m: { role: string }) => m.role)).toEqual(['user']);
      const after = await store.loadSession('regen');
      expect(after.children(asked.id).map((node) => node.turn.blocks)).toEqual([
        [{ kind: 'text', text: 'Noon.' }],
        [{ kind: 'text', text: "Twelve o'clock." }],
      ]);
    } finally {
      await stored.close();
    }
  });

  it('uiMessageChunkResponse sends a wrapped source: what the source does last happens before [DONE], also when the client leaves', async () => {
    const steps: string[] = [];
    async function* wrapped(signal: AbortSignal) {
      try {
        for await (const chunk of uiMessageChunks(agent, prompt('talk'), signal, { onError: () => {} })) {
          if (chunk.type === 'text-delta') steps.push('text');
          yield chunk;
        }
      } finally {
        steps.push('released');
      }
    }
    model.enqueue(reply.text('Hello.'));
    const events = await chunksOf(uiMessageChunkResponse(wrapped));
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(steps.at(-1)).toBe('released');

    steps.length = 0;
    model.enqueue(reply.text('word '.repeat(100), { chunks: Array(100).fill('word '), frameDelayMs: 20 }));
    const reader = uiMessageChunkResponse(wrapped).body!.getReader();
    let seen = '';
    while (!seen.includes('text-delta')) seen += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    // The cancel drained the source: the run was aborted and its finally ran.
    expect(steps.at(-1)).toBe('released');
    expect(steps.filter((step) => step === 'text').length).toBeLessThan(100);
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
