// Every provider's factory builds an invoker that carries its model: the id (and a card when given) an
// agent takes as its `model`, called whatever a request names, through each vendor's real SDK and a
// loopback server speaking its wire format.
import { createOpenAI } from '@ai-sdk/openai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/entries/runtime.js';
import { MemorySessionStore } from '../../src/entries/store.js';
import { ModelCardError, ModelChoiceError } from '../../src/runtime/models/index.js';
import type { ModelCard, ModelInvoker } from '../../src/entries/runtime.js';
import type { ModelRequest } from '../../src/entries/models.js';
import { fromAiSdk } from '../../src/providers/ai-sdk/index.js';
import { anthropic, createAnthropicInvoker } from '../../src/providers/anthropic/index.js';
import { createOpenAIInvoker, OpenAIOptionsError } from '../../src/providers/openai/index.js';
import { reply, startAnthropicServer, type AnthropicTestServer } from '../../src/testing/index.js';
import { response, startOpenAIServer, type OpenAITestServer } from '../support/openai-server.js';

const CARD: ModelCard = { id: 'house-model', contextWindow: 32_000, maxOutputTokens: 1_500 };

const identity = (model: ModelInvoker) => ({ provider: model.provider, modelId: model.modelId, card: model.card });

const ask = (overrides: Partial<ModelRequest> = {}): ModelRequest => ({
  model: 'whatever-the-request-says',
  messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'hi' }] }],
  tools: [],
  maxOutputTokens: 500,
  ...overrides,
});

describe('OpenAI: createOpenAIInvoker(client, { model, card })', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAIServer();
  });
  afterEach(() => server.close());

  it('calls its model whatever the request names, and an agent takes it as its model with the built-in card', async () => {
    server.enqueue(response.text('direct'), response.text('through the agent'));
    const model = createOpenAIInvoker(server.client(), { model: 'gpt-5.4-mini', reasoningEffort: 'low' });
    expect(identity(model)).toEqual({ provider: 'openai', modelId: 'gpt-5.4-mini', card: undefined });

    await model(ask());
    const agent = createAgent({ model });
    const snapshot = await agent.submit('hi');

    expect(snapshot.text).toBe('through the agent');
    expect(server.requests.map((r) => r.body.model)).toEqual(['gpt-5.4-mini', 'gpt-5.4-mini']);
    // gpt-5.4-mini's built-in card: 128,000 output tokens; the invoker's defaults still apply.
    expect(server.requests[1].body).toMatchObject({ max_output_tokens: 128_000, reasoning: { effort: 'low' } });
  });

  it('prices and caps by the card it is given', async () => {
    server.enqueue(response.text('ok', { usage: { input_tokens: 40, output_tokens: 2 } }));
    const store = new MemorySessionStore();
    const agent = createAgent(
      { model: createOpenAIInvoker(server.client(), { model: 'house-model', card: CARD }), sessionId: 's' },
      { store },
    );
    await agent.submit('hi');
    await agent.close();

    expect(server.requests[0].body.max_output_tokens).toBe(1_500);
    const nodes = [...(await store.loadSession('s')).allNodes()];
    expect(nodes.find((node) => node.turn.role === 'assistant')).toMatchObject({ model: 'house-model', usage: { outputTokens: 2 } });
  });

  it('refuses a model or card that cannot be right, and still its own unknown options', () => {
    expect(() => createOpenAIInvoker(server.client(), { model: '' })).toThrow(ModelChoiceError);
    expect(() => createOpenAIInvoker(server.client(), { model: 'm', card: { ...CARD, contextWindow: 0 } })).toThrow(ModelCardError);
    expect(() => createOpenAIInvoker(server.client(), { model: 'm', store: true } as never)).toThrow(OpenAIOptionsError);
  });
});

describe('Anthropic: createAnthropicInvoker(client, { model, card }) and anthropic(model, { client })', () => {
  let server: AnthropicTestServer;
  beforeEach(async () => {
    server = await startAnthropicServer();
  });
  afterEach(() => server.close());

  it('both call their model whatever the request names, with the card’s cap under an agent', async () => {
    server.enqueue(reply.text('a'), reply.text('b'), reply.text('c'));
    const built = createAnthropicInvoker(server.client(), { model: 'claude-haiku-4-5', card: { ...CARD, id: 'claude-haiku-4-5' } });
    const lazy = anthropic('claude-sonnet-5-5', { client: server.client() });
    expect(identity(built)).toEqual({ provider: 'anthropic', modelId: 'claude-haiku-4-5', card: { ...CARD, id: 'claude-haiku-4-5' } });
    expect(identity(lazy)).toEqual({ provider: 'anthropic', modelId: 'claude-sonnet-5-5', card: undefined });

    await built(ask());
    await lazy(ask());
    await createAgent({ model: built }).submit('hi');

    expect(server.requests.map((r) => r.body.model)).toEqual(['claude-haiku-4-5', 'claude-sonnet-5-5', 'claude-haiku-4-5']);
    expect(server.requests[2].body.max_tokens).toBe(1_500);
  });
});

describe('AI SDK: fromAiSdk(model, { card })', () => {
  let server: OpenAITestServer;
  beforeEach(async () => {
    server = await startOpenAIServer();
  });
  afterEach(() => server.close());

  it('carries the model object’s own id, so the agent needs no id beside it', async () => {
    server.enqueue(response.text('ok'));
    const model = fromAiSdk(createOpenAI({ baseURL: server.baseURL, apiKey: 'test-key' }).responses('house-model'), { card: CARD });
    expect(identity(model)).toEqual({ provider: 'openai', modelId: 'house-model', card: CARD });

    await createAgent({ model }).submit('hi');

    expect(server.requests[0].body).toMatchObject({ model: 'house-model', max_output_tokens: 1_500 });
    expect(() => createAgent({ model: 'gpt-5.4' }, { invokeModel: model })).toThrow(/built for "house-model"/);
  });
});
