import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import { RunFault } from '../../src/runtime/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';

// The public testing kit (indusagi/testing) as a user drives it: an agent through the real SDK.

let server: AnthropicTestServer;

beforeEach(async () => {
  server = await startAnthropicServer();
});

afterEach(async () => {
  await server.close();
});

const clock = {
  name: 'clock.now',
  description: 'The current time.',
  inputSchema: { type: 'object', properties: {} },
  execute: () => '12:00',
};

describe('startAnthropicServer, driven by an agent through the real SDK', () => {
  it('answers scripted replies in order (a tool call, then text) and records every request body', async () => {
    server.enqueue(reply.tools([{ name: 'clock_now', input: {} }], { text: 'Checking.' }), reply.text('It is noon.'));
    const agent = createAgent({ model: 'claude-test', tools: [clock] }, { client: server.client() });
    const run = await agent.submit('What time is it?');
    await agent.close();

    expect(run.status).toBe('settled');
    expect(run.text).toBe('It is noon.');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0].body).toMatchObject({ model: 'claude-test', stream: true, messages: [{ role: 'user' }] });
    expect(server.requests[0].body.tools.map((t: { name: string }) => t.name)).toEqual(['clock_now']);
    const lastMessage = server.requests[1].body.messages.at(-1);
    expect(lastMessage.content[0]).toMatchObject({ type: 'tool_result', content: '12:00' });
  });

  it('asks the responder once the queue is empty, with the request body and its index', async () => {
    server.enqueue(reply.text('first'));
    server.respond((body, index) => reply.text(`#${index} saw ${body.messages.length} message(s)`));
    const client = server.client();
    const ask = async () =>
      (await client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })).content[0];
    expect(await ask()).toMatchObject({ text: 'first' });
    expect(await ask()).toMatchObject({ text: '#1 saw 1 message(s)' });
  });

  it('answers a request without stream: true with the whole message as JSON', async () => {
    server.enqueue(
      reply.tools([{ id: 'toolu_1', name: 'clock_now', input: { zone: 'UTC' } }], {
        text: 'One moment.',
        usage: { input_tokens: 7, output_tokens: 3 },
      }),
    );
    const message = await server.client().messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'time?' }] });
    expect(message.content).toEqual([
      { type: 'text', text: 'One moment.' },
      { type: 'tool_use', id: 'toolu_1', name: 'clock_now', input: { zone: 'UTC' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 7, output_tokens: 3 });
  });

  it('scripts API errors the SDK reports as its own typed errors', async () => {
    server.enqueue(reply.httpError(529, { message: 'busy' }));
    const error = await server
      .client()
      .messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
    expect(String(error)).toContain('busy');
  });

  it('cuts a stream mid-reply with an error event, and the agent run faults instead of keeping half a reply', async () => {
    server.enqueue(reply.text('a reply that never finishes', { interrupt: { afterFrames: 4, with: 'error', message: 'Overloaded' } }));
    const agent = createAgent({ model: 'claude-test' }, { client: server.client() });
    const fault = await agent.submit('hi').catch((error: unknown) => error);
    await agent.close();
    expect(fault).toBeInstanceOf(RunFault);
    expect(fault).toMatchObject({ kind: 'model_error', message: expect.stringContaining('Overloaded') });
    expect((fault as RunFault).snapshot.messages.filter((turn) => turn.role === 'assistant')).toEqual([]);
  });

  it('paces frames with frameDelayMs, so a test can stop a run mid-stream and see the hang-up on the wire', async () => {
    server.enqueue(reply.text('word '.repeat(60), { chunks: Array(60).fill('word '), frameDelayMs: 20 }));
    const agent = createAgent({ model: 'claude-test' }, { client: server.client() });
    const deltas: string[] = [];
    const stop = new AbortController();
    agent.subscribe((event) => {
      if (event.kind === 'text_delta' && deltas.push(event.delta) === 3) stop.abort();
    });
    const fault = await agent.submit('talk', { signal: stop.signal }).catch((error: unknown) => error);
    await agent.close();
    expect(fault).toMatchObject({ kind: 'aborted' });
    expect(deltas.length).toBeLessThan(60);
    await expect.poll(() => server.requests[0].clientClosedEarly).toBe(true);
  });

  it('refuses a body that is not JSON with a 400 and leaves the queue for the next request', async () => {
    server.enqueue(reply.text('still here'));
    const broken = await fetch(`${server.baseURL}/v1/messages`, { method: 'POST', body: '{"model":' });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const message = await server.client().messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content[0]).toMatchObject({ text: 'still here' });
  });

  it('waitForRequests resolves once the requests arrived', async () => {
    server.respond(() => reply.text('ok'));
    const arrived = server.waitForRequests(2);
    const client = server.client();
    await Promise.all(
      [1, 2].map(() => client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })),
    );
    await arrived;
    expect(server.requests).toHaveLength(2);
  });

  it('takes scripts written with `kind`, as turns and events name things, and still those written with `type`', async () => {
    server.enqueue(
      {
        kind: 'message',
        blocks: [
          { kind: 'thinking', thinking: 'Short answer.' },
          { kind: 'text', text: 'by kind' },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'by type' }] },
      { kind: 'http_error', status: 529 },
      { kind: 'message', blocks: [{ kind: 'tool_use', id: 'toolu_k', name: 'clock_now', input: {} }] },
    );
    const client = server.client();
    const ask = () => client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });

    expect((await ask()).content).toEqual([
      expect.objectContaining({ type: 'thinking', thinking: 'Short answer.' }),
      { type: 'text', text: 'by kind' },
    ]);
    expect((await ask()).content).toEqual([{ type: 'text', text: 'by type' }]);
    expect(await ask().catch((error: { status: number }) => error.status)).toBe(529);
    expect(await ask()).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 'toolu_k', name: 'clock_now' }] });
  });

  it('answers a script it cannot read with a 500 that says why, instead of guessing', async () => {
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      server.enqueue({ blocks: [{ kind: 'text', text: 'no kind' }] } as never, reply.message([{ kind: 'tool_call', name: 'x' } as never]));
      const client = server.client();
      const ask = () =>
        client.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }).catch((error: Error) => error);
      expect(String(await ask())).toMatch(/a script needs a kind \(message, http_error\), got undefined/);
      expect(String(await ask())).toMatch(/a script block needs a kind \(text, thinking, redacted_thinking, tool_use\), got .*tool_call/);
    } finally {
      quiet.mockRestore();
    }
  });
});
