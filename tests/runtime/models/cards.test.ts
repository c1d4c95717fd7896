import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_CARD, knownModelCards, modelCard, ModelCardError, registerModelCard } from '../../../src/runtime/models/index.js';
import { estimateCost, sessionCost } from '../../../src/runtime/usage/index.js';
import type { ModelCard } from '../../../src/runtime/contract/model.js';

describe('model cards', () => {
  it('knows current models with windows and output caps, every price dated', () => {
    for (const card of knownModelCards()) {
      expect(card.contextWindow).toBeGreaterThan(card.maxOutputTokens);
      expect(card.pricing?.pricesAsOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(modelCard('claude-sonnet-4-5').contextWindow).toBe(200_000);
  });

  it('resolves a dated id to its family', () => {
    expect(modelCard('claude-haiku-4-5-20251001')).toMatchObject({ id: 'claude-haiku-4-5-20251001', maxOutputTokens: 64_000 });
  });

  it('gives unknown ids the documented default, without prices', () => {
    const card = modelCard('my-local-model');
    expect(card).toEqual({ id: 'my-local-model', ...DEFAULT_MODEL_CARD });
  });

  it('lets explicit overrides win, ignoring undefined ones', () => {
    expect(modelCard('claude-sonnet-4-5', { contextWindow: 50_000, maxOutputTokens: undefined })).toMatchObject({
      contextWindow: 50_000,
      maxOutputTokens: 64_000,
    });
  });
});

describe('OpenAI cards', () => {
  it('know the common OpenAI models, each price dated, a cache write priced as plain input', () => {
    for (const id of ['gpt-5.5', 'gpt-5.4', 'gpt-5.4-mini', 'gpt-5', 'gpt-5-mini', 'gpt-4.1', 'gpt-4o', 'o3', 'o4-mini']) {
      const card = modelCard(id);
      expect(card.pricing, id).toBeDefined();
      expect(card.pricing!.cacheWritePerMTok).toBe(card.pricing!.inputPerMTok);
      expect(card.pricing!.cacheReadPerMTok).toBeLessThan(card.pricing!.inputPerMTok);
    }
    expect(modelCard('gpt-5')).toMatchObject({ contextWindow: 400_000, maxOutputTokens: 128_000 });
  });

  it('resolve OpenAI’s dated snapshot ids to their family, without confusing families', () => {
    expect(modelCard('gpt-5-mini-2025-08-07').pricing).toEqual(modelCard('gpt-5-mini').pricing);
    expect(modelCard('gpt-4o-2024-11-20').contextWindow).toBe(128_000);
    expect(modelCard('gpt-5.4-mini').pricing!.inputPerMTok).not.toBe(modelCard('gpt-5.4').pricing!.inputPerMTok);
  });
});

describe('registerModelCard', () => {
  const local: ModelCard = {
    id: 'acme-local-70b',
    contextWindow: 32_768,
    maxOutputTokens: 4_096,
    pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5, cacheWritePerMTok: 0.5, cacheReadPerMTok: 0.05, pricesAsOf: '2026-11-20' },
  };

  it('gives an unknown model its window, output cap and prices until it is removed again', () => {
    const remove = registerModelCard(local);
    try {
      expect(modelCard('acme-local-70b')).toEqual(local);
      expect(knownModelCards()).toContainEqual(local);
      expect(
        estimateCost(
          { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheWriteTokens: 0, cacheReadTokens: 0 },
          modelCard('acme-local-70b'),
        ),
      ).toEqual({ usd: 2, pricesAsOf: '2026-11-20' });
      expect(
        sessionCost([
          { model: 'acme-local-70b', usage: { inputTokens: 2_000_000, outputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 } },
        ]).cost,
      ).toEqual({ usd: 1, pricesAsOf: '2026-11-20' });
    } finally {
      remove();
    }
    expect(modelCard('acme-local-70b')).toEqual({ id: 'acme-local-70b', ...DEFAULT_MODEL_CARD });
  });

  it('corrects a built-in card, dated ids included, and keeps its own copy of what it was given', () => {
    const corrected = { ...modelCard('gpt-4o'), contextWindow: 256_000 };
    const remove = registerModelCard(corrected);
    corrected.contextWindow = 1;
    try {
      expect(modelCard('gpt-4o-2024-08-06').contextWindow).toBe(256_000);
      expect(knownModelCards().filter((card) => card.id === 'gpt-4o')).toHaveLength(1);
    } finally {
      remove();
    }
    expect(modelCard('gpt-4o').contextWindow).toBe(128_000);
  });

  it('says what a model takes besides text and how a JSON answer reaches it, and keeps its own copy of that too', () => {
    const card: ModelCard = { ...local, input: { images: false }, structuredOutput: 'instruction' };
    const remove = registerModelCard(card);
    card.input!.images = true;
    try {
      expect(modelCard('acme-local-70b')).toMatchObject({ input: { images: false }, structuredOutput: 'instruction' });
    } finally {
      remove();
    }
    expect(modelCard('acme-local-70b').input).toBeUndefined();
  });

  it.each([
    [{ ...local, id: '' }, /id/],
    [{ ...local, contextWindow: 0 }, /contextWindow/],
    [{ ...local, maxOutputTokens: 1.5 }, /maxOutputTokens/],
    [{ ...local, maxOutputTokens: 40_000 }, /below its `contextWindow`/],
    [{ ...local, pricing: { ...local.pricing!, outputPerMTok: -1 } }, /outputPerMTok/],
    [{ ...local, pricing: { ...local.pricing!, cacheReadPerMTok: Number.NaN } }, /cacheReadPerMTok/],
    [{ ...local, pricing: { ...local.pricing!, pricesAsOf: 'last week' } }, /pricesAsOf/],
    [{ ...local, input: { images: 'no' } }, /`input.images` of "acme-local-70b" must be true or false/],
    [{ ...local, input: { audio: false } }, /`input.audio` .* is not a kind of input/],
    [{ ...local, input: [] }, /`input` .* must be an object/],
    [{ ...local, structuredOutput: 'json' }, /`structuredOutput` .* must be "native" or "instruction"/],
  ])('refuses a card that cannot be right (%#) with ModelCardError', (card, detail) => {
    let thrown: unknown;
    try {
      registerModelCard(card as ModelCard);
    } catch (error) {
      thrown = error;
    }
    expect(ModelCardError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).message).toMatch(detail);
    expect(modelCard('acme-local-70b').pricing).toBeUndefined();
  });
});
