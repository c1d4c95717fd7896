// Retries of failed model calls: never silent, never unbounded. Through the real SDK and the loopback server.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/entries/runtime.js';
import { AgentConfigError, RunFault } from '../../../src/entries/errors.js';
import type { RunEvent } from '../../../src/entries/runtime.js';
import { AnthropicOptionsError, createAnthropicInvoker, StreamIdleError } from '../../../src/providers/anthropic/index.js';
import type { ModelRequest, ModelRetry } from '../../../src/runtime/contract/model.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';

let server: AnthropicTestServer;
beforeEach(async () => {
  server = await startAnthropicServer();
});
afterEach(async () => {
  await server.close();
});

function agentWith(options: { maxRetries?: number; providerOptions?: Record<string, Record<string, unknown>> } = {}) {
  const agent = createAgent(
    { model: 'claude-haiku-4-5', providerOptions: options.providerOptions },
    { client: server.client({ maxRetries: options.maxRetries ?? 2 }) },
  );
  const events: RunEvent[] = [];
  agent.subscribe((event) => events.push(event));
  return { agent, events, retries: () => events.filter((e) => e.kind === 'model_retry') };
}

describe('retrying a failed model call', () => {
  it('publishes each retry with its wait, status and reason, then goes on', async () => {
    server.enqueue(
      reply.httpError(429, { headers: { 'retry-after-ms': '30' } }),
      reply.httpError(529, { headers: { 'retry-after': '0.02' } }),
      reply.text('Here.'),
    );
    const { agent, retries, events } = agentWith();

    const snapshot = await agent.submit('hello?');

    expect(snapshot.text).toBe('Here.');
    expect(retries()).toEqual([
      { kind: 'model_retry', attempt: 2, delayMs: 30, status: 429, reason: 'rate limit', runId: expect.any(String) },
      { kind: 'model_retry', attempt: 3, delayMs: 20, status: 529, reason: 'overloaded', runId: expect.any(String) },
    ]);
    expect(events.findIndex((e) => e.kind === 'model_retry')).toBeLessThan(events.findIndex((e) => e.kind === 'text_delta'));
    expect(server.requests).toHaveLength(3);
  });

  it('backs off on its own when the API names no wait, and stops after maxRetries with the last error', async () => {
    server.enqueue(reply.httpError(500), reply.httpError(500));
    const { agent, retries } = agentWith({ maxRetries: 1 });

    const failure = (await agent.submit('hello?').catch((e: unknown) => e)) as RunFault;

    expect(failure.kind).toBe('model_error');
    expect(failure.message).toMatch(/HTTP 500/);
    const [retry] = retries() as Array<Extract<RunEvent, { kind: 'model_retry' }>>;
    expect(retry).toMatchObject({ attempt: 2, status: 500 });
    expect(retry.delayMs).toBeGreaterThanOrEqual(375);
    expect(retry.delayMs).toBeLessThanOrEqual(500);
    expect(server.requests).toHaveLength(2);
  });

  it('does not sleep through a retry-after of an hour: the call fails at once, saying why', async () => {
    server.enqueue(reply.httpError(429, { headers: { 'retry-after': '3600' } }));
    const { agent, retries } = agentWith();

    const failure = (await agent.submit('hello?').catch((e: unknown) => e)) as RunFault;

    expect(failure.kind).toBe('model_error');
    expect(failure.message).toContain('it asked to wait 3600 s before a retry, over the 60 s limit (maxRetryDelayMs)');
    expect(retries()).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('takes its limits from providerOptions.anthropic, checked when the agent is created', async () => {
    server.enqueue(reply.httpError(429, { headers: { 'retry-after': '10' } }));
    const strict = agentWith({ providerOptions: { anthropic: { maxRetryDelayMs: 5_000 } } });
    await expect(strict.agent.submit('x')).rejects.toThrow(/over the 5 s limit/);

    server.enqueue(reply.httpError(503, { headers: { 'retry-after-ms': '1' } }));
    const none = agentWith({ providerOptions: { anthropic: { maxRetries: 0 } } });
    await expect(none.agent.submit('x')).rejects.toMatchObject({ kind: 'model_error' });
    expect(none.retries()).toEqual([]);

    expect(() => agentWith({ providerOptions: { anthropic: { maxRetries: -1 } } })).toThrow(AgentConfigError);
    expect(() => createAnthropicInvoker(server.client(), { maxRetryDelayMs: 1.5 })).toThrow(AnthropicOptionsError);
  });

  it('stops waiting when the run is aborted during a retry wait', async () => {
    server.enqueue(reply.httpError(529, { headers: { 'retry-after-ms': '20000' } }));
    const { agent } = agentWith({ providerOptions: { anthropic: { maxRetryDelayMs: 30_000 } } });
    agent.subscribe((event) => {
      if (event.kind === 'model_retry') agent.abort();
    });

    await expect(agent.submit('x')).rejects.toMatchObject({ kind: 'aborted' });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a connection dropped before the reply began, never a reply cut off halfway', async () => {
    server.enqueue(reply.text('never', { interrupt: { afterFrames: 0, with: 'drop' } }), reply.text('After the drop.'));
    const first = agentWith();
    expect((await first.agent.submit('x')).text).toBe('After the drop.');
    expect(first.retries()).toMatchObject([{ attempt: 2, reason: 'connection error' }]);

    server.enqueue(
      reply.text('The answer is', { interrupt: { afterFrames: 4, with: 'error', errorType: 'overloaded_error', message: 'Overloaded' } }),
    );
    const second = agentWith();
    await expect(second.agent.submit('x')).rejects.toMatchObject({ kind: 'model_error' });
    expect(second.retries()).toEqual([]);
    expect(server.requests).toHaveLength(3);
  });
});

const ask = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'claude-haiku-4-5',
  messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }],
  tools: [],
  maxOutputTokens: 500,
  ...overrides,
});

describe('a stream that stalls', () => {
  it('fails with StreamIdleError once it stalls after text reached onText, never retried: a retry would repeat that text', async () => {
    // Every attempt streams a little text, then goes silent: a retry would stall after text too.
    server.enqueue(
      ...Array.from({ length: 3 }, () => reply.text('The answer is forty-two.', { interrupt: { afterFrames: 4, with: 'silence' } })),
    );
    // In order: a retry taken before any text (a loaded machine may stall a healthy start) is allowed, none after.
    const seen: string[] = [];
    const retries: ModelRetry[] = [];

    const error = await createAnthropicInvoker(server.client({ maxRetries: 2 }), { idleTimeoutMs: 500 })(
      ask({ onText: () => seen.push('text'), onRetry: (retry) => (seen.push('retry'), retries.push(retry)) }),
    ).catch((e: unknown) => e);

    expect(StreamIdleError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ idleTimeoutMs: 500 });
    expect(seen).toContain('text');
    expect(seen.slice(seen.indexOf('text'))).not.toContain('retry');
    expect(server.requests).toHaveLength(retries.length + 1);
  });
});
