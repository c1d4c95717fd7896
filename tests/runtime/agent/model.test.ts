// A model described in one place: an invoker that carries its model id and card is the agent's `model`;
// an id beside `deps.invokeModel` still works; the card registry fills in for invokers without a card;
// every way of describing one model twice, inconsistently, is refused when the agent is created.
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentConfigError,
  createConductor,
  DEFAULT_MODEL_CARD,
  MemorySessionStore,
  ModelChoiceError,
  registerModelCard,
  resolveModel,
  UnsupportedContentError,
} from '../../../src/runtime/index.js';
import type { ModelCard, ModelInvoker } from '../../../src/runtime/index.js';
import { say, scriptedModel } from './helpers.js';

const CARD: ModelCard = {
  id: 'acme-large',
  contextWindow: 50_000,
  maxOutputTokens: 2_000,
  pricing: { inputPerMTok: 1, outputPerMTok: 2, cacheWritePerMTok: 1, cacheReadPerMTok: 0.1, pricesAsOf: '2026-11-01' },
};

/** A scripted model built for one model, as the providers' factories build them. */
function bound(modelId: string | undefined, card: ModelCard | undefined, ...replies: Parameters<typeof scriptedModel>) {
  const model = scriptedModel(...replies);
  const invoke: ModelInvoker = Object.assign(model.invoke, {
    ...(modelId !== undefined && { modelId }),
    ...(card !== undefined && { card }),
  });
  return { invoke, requests: model.requests };
}

let unregister: (() => void) | undefined;
afterEach(() => {
  unregister?.();
  unregister = undefined;
});

describe('an invoker that carries its model is the agent’s model', () => {
  it('calls it by its id, with its card’s output cap, and stores the answering model on the node', async () => {
    const model = bound('acme-large', CARD, say('Hello.'));
    const store = new MemorySessionStore();
    const agent = createConductor({ model: model.invoke, sessionId: 's' }, { store });

    const snapshot = await agent.submit('Hi');

    expect(snapshot.text).toBe('Hello.');
    expect(model.requests[0]).toMatchObject({ model: 'acme-large', maxOutputTokens: 2_000 });
    await agent.close();
    const nodes = [...(await store.loadSession('s')).allNodes()];
    expect(nodes.find((node) => node.turn.role === 'assistant')).toMatchObject({ model: 'acme-large', usage: { outputTokens: 5 } });
  });

  it('records the model the reply names (a dated snapshot, a fallback) over the one asked for', async () => {
    const model = bound('acme-large', CARD, { ...say('Hi there.'), model: 'acme-large-2026-11-02' });
    const store = new MemorySessionStore();
    const agent = createConductor({ model: model.invoke, sessionId: 's' }, { store });
    await agent.submit('Hi');
    await agent.close();

    const nodes = [...(await store.loadSession('s')).allNodes()];
    expect(nodes.find((node) => node.turn.role === 'assistant')?.model).toBe('acme-large-2026-11-02');
  });

  it('takes its window and cap from the registry when it carries no card, and the config’s overrides over either', async () => {
    unregister = registerModelCard({ ...CARD, id: 'acme-small', maxOutputTokens: 700 });
    const registered = bound('acme-small', undefined, say('a'));
    await createConductor({ model: registered.invoke }).submit('x');
    expect(registered.requests[0].maxOutputTokens).toBe(700);

    const unknown = bound('acme-unknown', undefined, say('b'));
    await createConductor({ model: unknown.invoke }).submit('x');
    expect(unknown.requests[0].maxOutputTokens).toBe(DEFAULT_MODEL_CARD.maxOutputTokens);

    const overridden = bound('acme-large', CARD, say('c'));
    await createConductor({ model: overridden.invoke, maxOutputTokens: 300 }).submit('x');
    expect(overridden.requests[0].maxOutputTokens).toBe(300);
  });

  it('names a model by id beside deps.invokeModel as before, also when the invoker is built for that id', async () => {
    const plain = scriptedModel(say('a'));
    await createConductor({ model: 'acme-large' }, { invokeModel: plain.invoke }).submit('x');
    expect(plain.requests[0].model).toBe('acme-large');

    const same = bound('acme-large', CARD, say('b'));
    await createConductor({ model: 'acme-large' }, { invokeModel: same.invoke }).submit('x');
    expect(same.requests[0]).toMatchObject({ model: 'acme-large', maxOutputTokens: 2_000 });
  });
});

describe('one model described twice is refused when the agent is created', () => {
  it('an id its invoker is not built for', () => {
    const model = bound('acme-large', CARD);
    expect(() => createConductor({ model: 'acme-small' }, { invokeModel: model.invoke })).toThrow(AgentConfigError);
    expect(() => createConductor({ model: 'acme-small' }, { invokeModel: model.invoke })).toThrow(
      /The model is "acme-small" but its invoker is built for "acme-large"/,
    );
    expect(model.requests).toEqual([]);
  });

  it('an invoker as `model` and another as `deps.invokeModel`', () => {
    const a = bound('acme-large', CARD);
    const b = bound('acme-large', CARD);
    expect(() => createConductor({ model: a.invoke }, { invokeModel: b.invoke })).toThrow(/given twice/);
    // The same invoker in both places is one model, said twice the same way.
    expect(() => createConductor({ model: a.invoke }, { invokeModel: a.invoke })).not.toThrow();
  });

  it('an invoker as `model` that does not say which model it calls', () => {
    const anonymous = scriptedModel();
    expect(() => createConductor({ model: anonymous.invoke })).toThrow(AgentConfigError);
    expect(() => createConductor({ model: anonymous.invoke })).toThrow(/does not say which model it calls/);
  });

  it('a card that cannot be right, and a model that is neither an id nor an invoker', () => {
    const broken = bound('acme-large', { ...CARD, maxOutputTokens: 90_000 });
    expect(() => createConductor({ model: broken.invoke })).toThrow(/maxOutputTokens.*must be below its `contextWindow`/);
    expect(() => createConductor({ model: 42 as never }, { invokeModel: scriptedModel().invoke })).toThrow(AgentConfigError);
    expect(() => createConductor({ model: '  ' })).toThrow(AgentConfigError);
  });
});

describe('resolveModel, for a run’s own model choice', () => {
  it('resolves an id through an unbound invoker and an invoker by itself, each with its card', () => {
    const plain = scriptedModel().invoke;
    expect(resolveModel('gpt-5.4-mini', plain)).toMatchObject({
      invoker: plain,
      modelId: 'gpt-5.4-mini',
      card: { maxOutputTokens: 128_000 },
    });
    const model = bound('acme-large', CARD).invoke;
    expect(resolveModel(model, plain)).toMatchObject({ invoker: model, modelId: 'acme-large', card: CARD });
    expect(resolveModel(model, undefined, { contextWindow: 10_000 }).card).toMatchObject({ contextWindow: 10_000, maxOutputTokens: 2_000 });
  });

  it('refuses with ModelChoiceError what no invoker can call', () => {
    expect(() => resolveModel('acme-large')).toThrow(ModelChoiceError);
    expect(() => resolveModel('acme-small', bound('acme-large', CARD).invoke)).toThrow(ModelChoiceError);
  });
});

describe('a run may use another model (`submit(prompt, { model })`)', () => {
  it('sends that run to the model it names, bills its turns to it, and leaves the agent’s model for the next run', async () => {
    const main = bound('acme-large', CARD, say('From large.'), say('Large again.'));
    const small = bound('acme-small', { ...CARD, id: 'acme-small', maxOutputTokens: 500 }, say('From small.'));
    const store = new MemorySessionStore();
    const agent = createConductor({ model: main.invoke, sessionId: 's' }, { store });

    await agent.submit('one');
    const second = await agent.submit('two', { model: small.invoke });
    await agent.submit('three');

    expect(second.text).toBe('From small.');
    expect(small.requests).toHaveLength(1);
    expect(small.requests[0]).toMatchObject({ model: 'acme-small', maxOutputTokens: 500 });
    // The run on the small model saw the whole conversation so far.
    expect(small.requests[0].messages.map((t) => t.blocks[0])).toMatchObject([{ text: 'one' }, { text: 'From large.' }, { text: 'two' }]);
    expect(main.requests.map((r) => r.model)).toEqual(['acme-large', 'acme-large']);
    await agent.close();
    const billed = [...(await store.loadSession('s')).allNodes()].filter((n) => n.turn.role === 'assistant').map((n) => n.model);
    expect(billed).toEqual(['acme-large', 'acme-small', 'acme-large']);
  });

  it('refuses at once, running nothing, a model the agent cannot call', async () => {
    const main = bound('acme-large', CARD, say('never'));
    const agent = createConductor({ model: main.invoke }, {});

    await expect(agent.submit('hi', { model: 'other-model' })).rejects.toBeInstanceOf(ModelChoiceError);
    await expect(agent.submit('hi', { model: scriptedModel(say('x')).invoke })).rejects.toBeInstanceOf(ModelChoiceError);
    expect(main.requests).toHaveLength(0);
  });
});

describe('a prompt the model cannot take', () => {
  it('is refused at once, before it joins the conversation, so the next prompt still works', async () => {
    const textOnly = bound('acme-text', { ...CARD, id: 'acme-text', input: { images: false } }, say('Fine.'));
    const store = new MemorySessionStore();
    const agent = createConductor({ model: textOnly.invoke, sessionId: 's' }, { store });
    const image = { kind: 'image' as const, source: { type: 'base64' as const, mediaType: 'image/png', data: 'iVBORw0KGgo=' } };

    await expect(agent.submit([{ kind: 'text', text: 'What is this?' }, image])).rejects.toBeInstanceOf(UnsupportedContentError);
    const next = await agent.submit('Say something.');

    expect(next.messages.map((turn) => turn.blocks.map((block) => block.kind))).toEqual([['text'], ['text']]);
    expect(textOnly.requests).toHaveLength(1);
    await agent.close();
  });
});
