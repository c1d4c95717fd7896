// What fromAiSdk does beyond the shared contract: which models it takes, provider options passed
// through to the AI SDK's providers, reasoning, and the finish reasons condensation relies on.
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/entries/runtime.js';
import { AgentConfigError, ContextWindowExceededError } from '../../../src/entries/errors.js';
import { AiSdkModelError, AiSdkOptionsError, fromAiSdk, stopReasonOf } from '../../../src/providers/ai-sdk/index.js';
import { StreamIdleError } from '../../../src/entries/models.js';
import type { ModelRequest, ModelRetry } from '../../../src/runtime/contract/model.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../../src/testing/index.js';
import { response, startOpenAIServer, type OpenAITestServer } from '../../support/openai-server.js';

let server: OpenAITestServer;
beforeEach(async () => {
  server = await startOpenAIServer();
});
afterEach(() => server.close());

const ask = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'gpt-5.4-mini',
  messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }],
  tools: [],
  maxOutputTokens: 500,
  ...overrides,
});
const openai = () => createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' });

describe('the model', () => {
  it('takes a model of specification v3 or v4 and names its provider after it', () => {
    expect(fromAiSdk(openai().responses('gpt-5.4-mini')).provider).toBe('openai');
    expect(fromAiSdk(openai().chat('gpt-5.4-mini')).provider).toBe('openai');
  });

  it.each([
    ['a model id string', 'gpt-5.4-mini', /pass the provider's model object/],
    [
      'a specification v2 model (ai 5)',
      { specificationVersion: 'v2', provider: 'x', modelId: 'y', doStream: () => undefined },
      /specification "v2"/,
    ],
    ['something else', {}, /expected an AI SDK language model/],
  ])('refuses %s with AiSdkModelError', (_what, model, message) => {
    expect(() => fromAiSdk(model as never)).toThrow(AiSdkModelError);
    expect(() => fromAiSdk(model as never)).toThrow(message);
  });

  it('refuses a maxRetries that cannot work', () => {
    expect(() => fromAiSdk(openai().responses('m'), { maxRetries: -1 })).toThrow(AiSdkOptionsError);
  });
});

describe('provider options', () => {
  it('pass through to the AI SDK provider, keyed by its id, as in the AI SDK', async () => {
    server.enqueue(response.text('ok'));

    await fromAiSdk(openai().responses('gpt-5.4-mini'))(
      ask({ providerOptions: { openai: { reasoningEffort: 'low' }, anthropic: { cacheTtl: '1h' } } }),
    );

    expect(server.requests[0].body.reasoning).toMatchObject({ effort: 'low' });
  });

  it('must be an object per provider, checked when the agent is created', () => {
    const invokeModel = fromAiSdk(openai().responses('gpt-5.4-mini'));
    expect(() => createAgent({ model: 'gpt-5.4-mini', providerOptions: { openai: 'fast' as never } }, { invokeModel })).toThrow(
      AgentConfigError,
    );
    expect(server.requests).toHaveLength(0);
  });
});

describe('the reply', () => {
  it('keeps a reasoning summary as a thinking block before the answer', async () => {
    server.enqueue(
      response.items([
        { type: 'reasoning', summary: 'The user wants a greeting.' },
        { type: 'text', text: 'Hello!' },
      ]),
    );

    const result = await fromAiSdk(openai().responses('gpt-5.4-mini'))(ask());

    expect(result.turn.blocks).toEqual([
      { kind: 'thinking', text: 'The user wants a greeting.' },
      { kind: 'text', text: 'Hello!' },
    ]);
  });

  it('says refusal when the content filter cut the reply off', async () => {
    server.enqueue(response.text('Partial', { incomplete: 'content_filter' }));

    const result = await fromAiSdk(openai().responses('gpt-5.4-mini'))(ask());

    expect(result.stopReason).toBe('refusal');
  });
});

describe('over @ai-sdk/anthropic and the loopback Messages API', () => {
  let anthropicServer: AnthropicTestServer;
  beforeEach(async () => {
    anthropicServer = await startAnthropicServer();
  });
  afterEach(() => anthropicServer.close());
  const claude = () =>
    fromAiSdk(createAnthropic({ baseURL: `${anthropicServer.baseURL}/v1`, apiKey: 'test-key' }).messages('claude-sonnet-5-5'));

  it('reports cache writes and reads as the Messages API bills them', async () => {
    anthropicServer.enqueue(
      reply.text('ok', { usage: { input_tokens: 22, cache_creation_input_tokens: 900, cache_read_input_tokens: 1900, output_tokens: 12 } }),
    );

    const result = await claude()(ask());

    expect(result.usage).toEqual({ inputTokens: 22, outputTokens: 12, cacheWriteTokens: 900, cacheReadTokens: 1900 });
  });

  it('keeps a reply cut off by a full window distinct from the output cap, so the conductor treats it as an overflow', async () => {
    anthropicServer.enqueue(
      reply.text('Here is the itinerary: day one, the', {
        stopReason: 'model_context_window_exceeded',
        usage: { input_tokens: 199_600, output_tokens: 400 },
      }),
    );
    const agent = createAgent({ model: 'claude-sonnet-5-5' }, { invokeModel: claude() });

    const fault = (await agent.submit('Write out the itinerary.').catch((e: unknown) => e)) as { kind: string; cause: unknown };

    expect(fault.kind).toBe('context_overflow');
    expect(ContextWindowExceededError.isInstance(fault.cause)).toBe(true);
    await agent.close();
  });
});

describe('stop reasons from providers that word them loosely', () => {
  const call = { kind: 'tool_call' as const, id: 'c1', name: 'notes_list', input: {} };

  it('reads a reply with tool calls as tool_use even when the server said stop (some OpenAI-compatible servers do)', () => {
    expect(stopReasonOf({ unified: 'stop', raw: 'stop' }, [call])).toBe('tool_use');
  });

  it('keeps a raw stop_sequence, and passes an unknown reason on as the provider gave it', () => {
    expect(stopReasonOf({ unified: 'stop', raw: 'stop_sequence' }, [])).toBe('stop_sequence');
    expect(stopReasonOf({ unified: 'other', raw: 'pause_turn' }, [])).toBe('pause_turn');
  });
});

describe('retries', () => {
  it('reports each retry through onRetry (a model_retry event under the conductor) with the wait the server asked for', async () => {
    server.enqueue(response.httpError(429, { headers: { 'retry-after-ms': '20' } }), response.text('Answered.'));
    const agent = createAgent({ model: 'gpt-5.4-mini' }, { invokeModel: fromAiSdk(openai().responses('gpt-5.4-mini')) });
    const retries: unknown[] = [];
    agent.subscribe((e) => {
      if (e.kind === 'model_retry') retries.push(e);
    });

    const snapshot = await agent.submit('hi');

    expect(snapshot.text).toBe('Answered.');
    expect(retries).toEqual([{ kind: 'model_retry', attempt: 2, delayMs: 20, status: 429, reason: 'HTTP 429', runId: expect.any(String) }]);
    await agent.close();
  });

  it('faults at once, without waiting, when the server asks for a longer wait than maxRetryDelayMs', async () => {
    server.enqueue(response.httpError(503, { headers: { 'retry-after': '3600' } }));

    const error = await fromAiSdk(openai().responses('gpt-5.4-mini'), { maxRetryDelayMs: 1_000 })(ask()).catch((e: unknown) => e);

    expect(error).toMatchObject({ name: 'ModelCallError', status: 503 });
    expect((error as Error).message).toContain('over the 1 s limit (maxRetryDelayMs)');
    expect(server.requests).toHaveLength(1);
  });
});

describe('model controls and content', () => {
  it('passes temperature, topP and the tool choice to the provider, which puts them on the wire', async () => {
    server.enqueue(response.text('ok'));
    const tool = { name: 'notes_list', description: 'Lists notes.', inputSchema: { type: 'object', properties: {} } };

    await fromAiSdk(openai().responses('gpt-4.1'))(
      ask({ model: 'gpt-4.1', tools: [tool], temperature: 0.2, topP: 0.9, toolChoice: 'any' }),
    );

    expect(server.requests[0].body).toMatchObject({ temperature: 0.2, top_p: 0.9, tool_choice: 'required' });
  });
});

describe('a stream that stalls', () => {
  it('fails with StreamIdleError once it stalls after text reached onText, never retried: a retry would repeat that text', async () => {
    // Every attempt streams a little text, then goes silent: a retry would stall after text too.
    server.enqueue(
      ...Array.from({ length: 3 }, () => response.text('The answer is forty-two.', { interrupt: { afterFrames: 5, with: 'silence' } })),
    );
    // In order: a retry taken before any text (a loaded machine may stall a healthy start) is allowed, none after.
    const seen: string[] = [];
    const retries: ModelRetry[] = [];

    const error = await fromAiSdk(openai().responses('gpt-5.4-mini'), { idleTimeoutMs: 500 })(
      ask({ onText: () => seen.push('text'), onRetry: (retry) => (seen.push('retry'), retries.push(retry)) }),
    ).catch((e: unknown) => e);

    expect(StreamIdleError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ idleTimeoutMs: 500 });
    expect(seen).toContain('text');
    expect(seen.slice(seen.indexOf('text'))).not.toContain('retry');
    expect(server.requests).toHaveLength(retries.length + 1);
  });
});
