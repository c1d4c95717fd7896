import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_CARD, knownModelCards, modelCard } from '../../../src/runtime/models/index.js';

describe('model cards', () => {
  it('knows the current Claude models with windows and output caps', () => {
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
