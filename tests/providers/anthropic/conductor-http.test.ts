import Anthropic from '@anthropic-ai/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAgent } from '../../../src/entries/runtime.js';
import { ModelCallError, RunFault } from '../../../src/entries/errors.js';
import type { RunEvent } from '../../../src/entries/runtime.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  vi.unstubAllEnvs();
  await server.close();
});

const weather = {
  name: 'weather.today',
  description: 'Today’s weather for a city.',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  execute: (input: { city: string }) => ({ city: input.city, sky: 'clear' }),
};

describe('createAgent over the real SDK and a loopback server', () => {
  it('runs a tool conversation end to end, with the card’s output cap and cache usage reported', async () => {
    server.enqueue(
      reply.tools([{ name: 'weather_today', input: { city: 'Pune' }, id: 'toolu_w' }], {
        usage: { input_tokens: 120, cache_creation_input_tokens: 1000 },
      }),
      reply.text('Clear skies in Pune.', { usage: { input_tokens: 150, cache_read_input_tokens: 1000, output_tokens: 7 } }),
    );
    const agent = createAgent({ model: 'claude-haiku-4-5', system: 'Answer briefly.', tools: [weather] }, { client: server.client() });
    const events: RunEvent[] = [];
    agent.subscribe((e) => events.push(e));

    const snapshot = await agent.submit('Weather in Pune?');

    expect(snapshot).toMatchObject({ status: 'settled', text: 'Clear skies in Pune.' });
    expect(snapshot.usage).toEqual({ inputTokens: 270, outputTokens: 12, cacheWriteTokens: 1000, cacheReadTokens: 1000 });
    expect(server.requests[0].body).toMatchObject({
      model: 'claude-haiku-4-5',
      max_tokens: 64_000,
      system: [{ type: 'text', text: 'Answer briefly.' }],
    });
    expect(server.requests[0].body.tools.map((t: { name: string }) => t.name)).toEqual(['weather_today']);
    expect(server.requests[1].body.messages[2].content).toMatchObject([
      { type: 'tool_result', tool_use_id: 'toolu_w', content: '{"city":"Pune","sky":"clear"}' },
    ]);
    expect(events.find((e) => e.kind === 'tool_finished')).toMatchObject({ name: 'weather.today', result: { city: 'Pune', sky: 'clear' } });
    expect(
      events
        .filter((e) => e.kind === 'text_delta')
        .map((e) => (e as { delta: string }).delta)
        .join(''),
    ).toBe('Clear skies in Pune.');
  });

  it('faults with model_error on 529 only after the SDK’s own retries', async () => {
    const overloaded = reply.httpError(529, { headers: { 'retry-after-ms': '1' } });
    server.enqueue(overloaded, overloaded, overloaded);
    const agent = createAgent({ model: 'm' }, { client: server.client({ maxRetries: 2 }) });

    const failure = (await agent.submit('hi').catch((e: unknown) => e)) as RunFault;

    expect(server.requests).toHaveLength(3);
    expect(failure.kind).toBe('model_error');
    expect(ModelCallError.isInstance(failure.cause)).toBe(true);
    expect((failure.cause as ModelCallError).status).toBe(529);
    expect((failure.cause as ModelCallError).cause).toBeInstanceOf(Anthropic.APIError);
    expect(failure.message).toContain('overloaded_error');
  });

  it('faults with model_error on an SSE error event mid-stream, keeping no half reply', async () => {
    server.enqueue(
      reply.text('Half a sent', { interrupt: { afterFrames: 5, with: 'error', errorType: 'api_error', message: 'Internal server error' } }),
    );
    const agent = createAgent({ model: 'm' }, { client: server.client() });

    const failure = (await agent.submit('hi').catch((e: unknown) => e)) as RunFault;

    expect(failure.kind).toBe('model_error');
    expect(failure.message).toContain('Internal server error');
    expect(failure.snapshot.messages).toEqual([{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }]);
  });

  it('aborts the HTTP request mid-stream and faults with kind aborted', async () => {
    server.enqueue(reply.message([{ type: 'text', text: 'slow words here', chunks: ['slow ', 'words ', 'here'] }], { frameDelayMs: 150 }));
    const agent = createAgent({ model: 'm' }, { client: server.client() });
    agent.subscribe((e) => {
      if (e.kind === 'text_delta') agent.abort();
    });

    const failure = (await agent.submit('hi').catch((e: unknown) => e)) as RunFault;

    expect(failure.kind).toBe('aborted');
    expect(failure.snapshot.messages).toHaveLength(1);
    await vi.waitFor(() => expect(server.requests[0].clientClosedEarly).toBe(true));
  });

  it('after a failed call, sends the next prompt merged with the unanswered one, as the API needs alternation', async () => {
    server.enqueue(reply.httpError(500, { headers: { 'x-should-retry': 'false' } }), reply.text('Both answered.'));
    const agent = createAgent({ model: 'm' }, { client: server.client() });

    await expect(agent.submit('first question')).rejects.toMatchObject({ kind: 'model_error' });
    await agent.submit('second question');

    expect(server.requests[1].body.messages).toMatchObject([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first question' },
          { type: 'text', text: 'second question' },
        ],
      },
    ]);
  });

  it('uses new Anthropic() with ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL when given neither client nor invoker', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'env-key');
    vi.stubEnv('ANTHROPIC_BASE_URL', server.baseURL);
    server.enqueue(reply.text('from the environment'));
    const agent = createAgent({ model: 'some-future-model' });

    const snapshot = await agent.submit('hi');

    expect(snapshot.text).toBe('from the environment');
    const { authorization, 'x-api-key': apiKey } = server.requests[0].headers;
    // SDK versions differ on the header that carries the key; either way it is the environment's.
    expect(authorization === 'Bearer env-key' || apiKey === 'env-key').toBe(true);
    // An unknown model gets the documented default card: 8192 output tokens.
    expect(server.requests[0].body.max_tokens).toBe(8192);
  });
});
