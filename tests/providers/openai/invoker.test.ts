// What the OpenAI invoker does beyond the shared contract: the request it builds, OpenAI's own options,
// reasoning and refusals, cache writes, and failures that arrive inside a 200 stream.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/entries/runtime.js';
import { AgentConfigError, ModelCallError, PromptTooLongError } from '../../../src/entries/errors.js';
import { createOpenAIInvoker, OpenAIOptionsError } from '../../../src/providers/openai/index.js';
import { StreamIdleError } from '../../../src/entries/models.js';
import type { ModelRequest, ModelRetry } from '../../../src/runtime/contract/model.js';
import { response, startOpenAIServer, type OpenAITestServer } from '../../support/openai-server.js';

let server: OpenAITestServer;
beforeEach(async () => {
  server = await startOpenAIServer();
});
afterEach(() => server.close());

const ask = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'gpt-5',
  messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }],
  tools: [],
  maxOutputTokens: 500,
  ...overrides,
});

describe('the request', () => {
  it('is streamed and stateless: the whole input every time, store false, tools not strict', async () => {
    server.enqueue(response.text('ok'));
    const invoke = createOpenAIInvoker(server.client());

    await invoke(
      ask({
        system: 'Be brief.',
        tools: [{ name: 'notes_list', description: 'Lists notes.', inputSchema: { type: 'object', properties: {} } }],
      }),
    );

    expect(server.requests[0].body).toEqual({
      model: 'gpt-5',
      input: [{ type: 'message', role: 'user', content: 'hi' }],
      instructions: 'Be brief.',
      tools: [
        {
          type: 'function',
          name: 'notes_list',
          description: 'Lists notes.',
          parameters: { type: 'object', properties: {} },
          strict: false,
        },
      ],
      max_output_tokens: 500,
      stream: true,
      store: false,
    });
  });

  it('takes reasoningEffort and promptCacheKey from providerOptions.openai over the invoker’s defaults, the key only on cacheable requests', async () => {
    server.enqueue(response.text('one'), response.text('two'));
    const invoke = createOpenAIInvoker(server.client(), { reasoningEffort: 'low', promptCacheKey: 'default-key' });

    await invoke(ask({ providerOptions: { openai: { reasoningEffort: 'high' }, anthropic: { cacheTtl: '1h' } } }));
    await invoke(ask({ cacheable: false }));

    expect(server.requests[0].body).toMatchObject({ reasoning: { effort: 'high' }, prompt_cache_key: 'default-key' });
    expect(server.requests[1].body.reasoning).toEqual({ effort: 'low' });
    expect(server.requests[1].body).not.toHaveProperty('prompt_cache_key');
  });

  it('refuses options it does not know, before any request, from the invoker, a request or an agent config', async () => {
    expect(() => createOpenAIInvoker(server.client(), { reasoningEffort: 'extreme' } as never)).toThrow(OpenAIOptionsError);
    const invoke = createOpenAIInvoker(server.client());
    await expect(invoke(ask({ providerOptions: { openai: { temperature: 0 } } }))).rejects.toThrow(/temperature is not an OpenAI option/);
    expect(() => createAgent({ model: 'gpt-5', providerOptions: { openai: { promptCacheKey: '' } } }, { invokeModel: invoke })).toThrow(
      AgentConfigError,
    );
    expect(server.requests).toHaveLength(0);
  });

  it('sends no reasoning back: a thinking block stays on this side', async () => {
    server.enqueue(response.text('ok'));
    await createOpenAIInvoker(server.client())(
      ask({
        messages: [
          { role: 'user', blocks: [{ kind: 'text', text: 'Sum it.' }] },
          {
            role: 'assistant',
            blocks: [
              { kind: 'thinking', text: 'Add them.' },
              { kind: 'text', text: '3' },
            ],
          },
          { role: 'user', blocks: [{ kind: 'text', text: 'Thanks.' }] },
        ],
      }),
    );

    expect(server.requests[0].body.input).toEqual([
      { type: 'message', role: 'user', content: 'Sum it.' },
      { type: 'message', role: 'assistant', content: '3' },
      { type: 'message', role: 'user', content: 'Thanks.' },
    ]);
  });
});

describe('the reply', () => {
  it('keeps a reasoning summary as a thinking block before the answer', async () => {
    server.enqueue(
      response.items(
        [
          { type: 'reasoning', summary: 'The user wants a greeting.' },
          { type: 'text', text: 'Hello!' },
        ],
        { usage: { input_tokens: 50, output_tokens: 30, reasoning_tokens: 20 } },
      ),
    );

    const reply = await createOpenAIInvoker(server.client())(ask());

    expect(reply.turn.blocks).toEqual([
      { kind: 'thinking', text: 'The user wants a greeting.' },
      { kind: 'text', text: 'Hello!' },
    ]);
    expect(reply.usage).toEqual({ inputTokens: 50, outputTokens: 30, cacheWriteTokens: 0, cacheReadTokens: 0 });
  });

  it('reports cache writes and reads apart from the uncached input the API counts them in', async () => {
    server.enqueue(response.text('ok', { usage: { input_tokens: 5000, cached_tokens: 3000, cache_write_tokens: 1500, output_tokens: 9 } }));

    const reply = await createOpenAIInvoker(server.client())(ask());

    expect(reply.usage).toEqual({ inputTokens: 500, outputTokens: 9, cacheWriteTokens: 1500, cacheReadTokens: 3000 });
  });

  it('streams a refusal as text and stops with refusal; a content-filtered response stops with refusal too', async () => {
    server.enqueue(
      response.items([{ type: 'refusal', text: 'I can’t help with that.' }]),
      response.text('Partial', { incomplete: 'content_filter' }),
    );
    const invoke = createOpenAIInvoker(server.client());
    const deltas: string[] = [];

    const refused = await invoke(ask({ onText: (d) => deltas.push(d) }));
    const filtered = await invoke(ask());

    expect(refused).toMatchObject({ stopReason: 'refusal', turn: { blocks: [{ kind: 'text', text: 'I can’t help with that.' }] } });
    expect(deltas.join('')).toBe('I can’t help with that.');
    expect(filtered.stopReason).toBe('refusal');
  });
});

describe('failures inside a 200 stream', () => {
  it('an error event and failed response become ModelCallError with the status the error code implies', async () => {
    server.enqueue(response.text('never', { fail: { code: 'rate_limit_exceeded', message: 'Rate limit reached.' } }));

    const error = await createOpenAIInvoker(server.client())(ask()).catch((e: unknown) => e);

    expect(ModelCallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 429 });
    expect((error as Error).message).toContain('Rate limit reached.');
  });

  it('an error event saying the context length was exceeded becomes PromptTooLongError', async () => {
    server.enqueue(
      response.text('x', {
        interrupt: {
          afterFrames: 2,
          with: 'error',
          code: 'context_length_exceeded',
          message: 'Your input exceeds the context window of this model.',
        },
      }),
    );

    const error = await createOpenAIInvoker(server.client())(ask()).catch((e: unknown) => e);

    expect(PromptTooLongError.isInstance(error)).toBe(true);
  });
});

describe('under createAgent', () => {
  it('sends the card’s output cap for a known OpenAI model (dated id too), the default cap for one no card knows', async () => {
    server.enqueue(response.text('ok'), response.text('ok'));
    const invokeModel = createOpenAIInvoker(server.client());

    await createAgent({ model: 'gpt-5-2025-08-07' }, { invokeModel }).submit('hi');
    await createAgent({ model: 'my-finetune' }, { invokeModel }).submit('hi');

    expect(server.requests[0].body.max_output_tokens).toBe(128_000);
    expect(server.requests[1].body.max_output_tokens).toBe(8_192);
  });
});

describe('model controls', () => {
  it('sends temperature, top_p and the tool choice in the API’s terms', async () => {
    server.enqueue(response.text('ok'));
    const tool = { name: 'notes_list', description: 'Lists notes.', inputSchema: { type: 'object', properties: {} } };

    await createOpenAIInvoker(server.client())(ask({ tools: [tool], temperature: 0.2, topP: 0.9, toolChoice: { tool: 'notes_list' } }));

    expect(server.requests[0].body).toMatchObject({ temperature: 0.2, top_p: 0.9, tool_choice: { type: 'function', name: 'notes_list' } });
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

    const error = await createOpenAIInvoker(server.client({ maxRetries: 2 }), { idleTimeoutMs: 500 })(
      ask({ onText: () => seen.push('text'), onRetry: (retry) => (seen.push('retry'), retries.push(retry)) }),
    ).catch((e: unknown) => e);

    expect(StreamIdleError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ idleTimeoutMs: 500 });
    expect(seen).toContain('text');
    expect(seen.slice(seen.indexOf('text'))).not.toContain('retry');
    expect(server.requests).toHaveLength(retries.length + 1);
  });
});
