import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEMO_BANNER, DEMO_TOOLS, respond, startDemoModel, type DemoModel } from '../../src/demo/index.js';

const tools = Object.values(DEMO_TOOLS).map((name) => ({ name, description: name, input_schema: { type: 'object' as const } }));

let demo: DemoModel;
let client: Anthropic;

beforeEach(async () => {
  demo = await startDemoModel({ chunkDelayMs: 0 });
  client = new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo', maxRetries: 0 });
});

afterEach(async () => {
  await demo.close();
});

describe('demo model server, through the real Anthropic SDK', () => {
  it('listens on the loopback interface only', () => {
    expect(new URL(demo.baseURL).hostname).toBe('127.0.0.1');
  });

  it('streams text in several deltas that add up to the scripted reply', async () => {
    const body = { model: 'indusagi-offline-demo', max_tokens: 2_000, tools, messages: [{ role: 'user' as const, content: 'help' }] };
    const deltas: string[] = [];
    const stream = client.messages.stream(body);
    stream.on('text', (delta) => deltas.push(delta));
    const message = await stream.finalMessage();

    const expected = respond(body);
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.join('')).toBe((expected.content[0] as { text: string }).text);
    expect(message.content).toEqual(expected.content);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.output_tokens).toBe(expected.usage.outputTokens);
    expect(message.usage.input_tokens).toBe(expected.usage.inputTokens);
  });

  it('streams a tool call whose input the SDK rebuilds from partial JSON', async () => {
    const stream = client.messages.stream({
      model: 'indusagi-offline-demo',
      max_tokens: 2_000,
      tools,
      messages: [{ role: 'user', content: 'write "a longer line of text, to span several JSON chunks" to notes/out.txt' }],
    });
    let sawJsonDelta = false;
    for await (const event of stream) {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') sawJsonDelta = true;
    }
    const message = await stream.finalMessage();
    expect(sawJsonDelta).toBe(true);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content[1]).toMatchObject({
      type: 'tool_use',
      name: DEMO_TOOLS.write,
      input: { path: 'notes/out.txt', content: 'a longer line of text, to span several JSON chunks' },
    });
  });

  it('answers non-streamed requests too', async () => {
    const message = await client.messages.create({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ type: 'text' });
    expect((message.content[0] as { text: string }).text.startsWith(DEMO_BANNER)).toBe(true);
  });

  it('refuses a bad body with a 400 the SDK reports as BadRequestError', async () => {
    const error = await client.messages
      .create({ model: 'm', max_tokens: 100, messages: [{ role: 'tool' as 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as InstanceType<typeof Anthropic.BadRequestError>).status).toBe(400);
    expect(String((error as Error).message)).toContain('messages[0].role');
  });

  it('answers broken JSON and unknown routes with Anthropic-shaped errors', async () => {
    const broken = await fetch(`${demo.baseURL}/v1/messages`, { method: 'POST', body: '{"model":' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });

    const unknown = await fetch(`${demo.baseURL}/v1/complete`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
  });

  it('survives a client that hangs up mid-stream and keeps serving', async () => {
    await demo.close();
    demo = await startDemoModel({ chunkDelayMs: 5 });
    client = new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo', maxRetries: 0 });

    const controller = new AbortController();
    const stream = client.messages.stream(
      { model: 'm', max_tokens: 2_000, messages: [{ role: 'user', content: 'tell me a long story' }] },
      { signal: controller.signal },
    );
    let received = '';
    stream.on('text', (delta) => {
      received += delta;
      if (received.length > 100) controller.abort();
    });
    await expect(stream.finalMessage()).rejects.toThrow();
    expect(received.length).toBeLessThan(1_000);

    const after = await client.messages.create({ model: 'm', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(after.stop_reason).toBe('end_turn');
  });

  it('close() cuts a stream in flight instead of waiting for it to finish', async () => {
    await demo.close();
    demo = await startDemoModel({ chunkDelayMs: 5 });
    client = new Anthropic({ baseURL: demo.baseURL, apiKey: 'offline-demo', maxRetries: 0 });

    const stream = client.messages.stream({ model: 'm', max_tokens: 2_000, messages: [{ role: 'user', content: 'tell me a long story' }] });
    const firstText = new Promise<void>((resolve) => stream.once('text', () => resolve()));
    const outcome = stream.finalMessage().then(
      () => 'completed',
      () => 'cut',
    );
    await firstText;
    await demo.close();
    expect(await outcome).toBe('cut');
    await expect(fetch(`${demo.baseURL}/v1/messages`, { method: 'POST', body: '{}' })).rejects.toThrow();
    demo = await startDemoModel({ chunkDelayMs: 0 });
  });
});
