// A sub-agent's long text in the AI SDK UI message stream: what `useChat` is sent for it grows with
// the text, not with its square. The model is the loopback Anthropic server, through the real SDK;
// the chunks are read back with the AI SDK's own reader, as `useChat` reads them.
import { readUIMessageStream, type UIMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import { MemorySessionStore } from '../../src/entries/store.js';
import { agentTool } from '../../src/agents/index.js';
import { startAnthropicServer, reply, type AnthropicTestServer } from '../../src/testing/index.js';
import { uiMessageChunks, type AgentDataPart, type UIMessageChunk } from '../../src/ui-message/index.js';

let server: AnthropicTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function toArray<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe("a sub-agent's text as data-agent parts", () => {
  it('sends each char of a long text about once, and the parts, joined, are the whole text', async () => {
    // 3,000 chars of markdown in 6-char deltas: 500 deltas, as a model streams a long answer.
    const line = '| step | owner | done |\n';
    const text = line.repeat(Math.ceil(3_000 / line.length)).slice(0, 3_000);
    const deltas = text.match(/[\s\S]{1,6}/g)!;
    server = await startAnthropicServer();
    server.enqueue(
      reply.tools([{ name: 'research', input: { prompt: 'write it all' } }]),
      reply.text(text, { chunks: deltas }),
      reply.text('done'),
    );
    const research = agentTool({ model: 'claude-haiku-4-5', system: 'You research.' }, { name: 'research', description: 'R.' });
    const agent = createAgent(
      { model: 'claude-haiku-4-5', system: 'You lead.', tools: [research] },
      { client: server.client(), store: new MemorySessionStore() },
    );
    const chunks = await toArray(
      uiMessageChunks(agent, { kind: 'prompt', text: 'Research' }, new AbortController().signal, { messageId: 'm1' }),
    );
    await agent.close();

    const agentText = chunks.flatMap((chunk) =>
      chunk.type === 'data-agent' && chunk.data.part.type === 'text' ? [chunk.data.part.text] : [],
    );
    // Every text chunk is a delta of its own: what is sent is the text once (a part holding the text
    // so far, replaced with each delta, sent 750 kB for these 3 kB).
    const sent = agentText.reduce((sum, piece) => sum + piece.length, 0);
    expect(sent).toBeLessThanOrEqual(2 * (text.length + 1024));
    expect(Math.max(...agentText.map((piece) => piece.length))).toBeLessThanOrEqual(1024);

    // Read as useChat reads it: the parts, in order and joined, are the sub-agent's text.
    const stream = new ReadableStream<UIMessageChunk>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    let message: UIMessage | undefined;
    for await (const next of readUIMessageStream({ stream: stream as never, terminateOnError: true })) message = next as UIMessage;
    const data = message!.parts.flatMap((part) => (part.type === 'data-agent' ? [(part as { data: AgentDataPart }).data] : []));
    const joined = data.map((one) => (one.part.type === 'text' ? one.part.text : '')).join('');
    expect(joined).toBe(text);
  });

  it('cuts a delta longer than the cap into parts, without splitting a surrogate pair', async () => {
    // One 3,000-char delta (a model that sends its answer at once), with an emoji across the 1,024 mark.
    const text = 'a'.repeat(1023) + '😀' + 'b'.repeat(1975);
    server = await startAnthropicServer();
    server.enqueue(
      reply.tools([{ name: 'research', input: { prompt: 'at once' } }]),
      reply.text(text, { chunks: [text] }),
      reply.text('done'),
    );
    const research = agentTool({ model: 'claude-haiku-4-5', system: 'You research.' }, { name: 'research', description: 'R.' });
    const agent = createAgent(
      { model: 'claude-haiku-4-5', system: 'You lead.', tools: [research] },
      { client: server.client(), store: new MemorySessionStore() },
    );
    const chunks = await toArray(uiMessageChunks(agent, { kind: 'prompt', text: 'Research' }, new AbortController().signal));
    await agent.close();
    const pieces = chunks.flatMap((chunk) =>
      chunk.type === 'data-agent' && chunk.data.part.type === 'text' ? [chunk.data.part.text] : [],
    );
    expect(pieces.map((piece) => piece.length)).toEqual([1023, 1024, 953]);
    expect(pieces[1].startsWith('😀')).toBe(true);
    expect(pieces.join('')).toBe(text);
    expect(new Set(chunks.flatMap((chunk) => (chunk.type === 'data-agent' ? [chunk.id] : []))).size).toBe(3);
  });
});
