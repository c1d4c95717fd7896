import { describe, expect, it } from 'vitest';
import { describeCost, describeUsage, estimateCost, InvalidUsageError, sessionCost } from '../../../src/runtime/usage/index.js';
import { modelCard } from '../../../src/runtime/models/index.js';
import type { ModelUsage } from '../../../src/entries/models.js';
import { toModelUsage } from '../../../src/providers/anthropic/index.js';

const usage = (input: number, output: number, write: number, read: number): ModelUsage => ({
  inputTokens: input,
  outputTokens: output,
  cacheWriteTokens: write,
  cacheReadTokens: read,
});

describe('estimateCost', () => {
  it('prices each kind of token at its own rate, 1-hour cache writes at twice the input price, dated by the card', () => {
    // claude-sonnet-4-5: $3 input, $15 output, $3.75 5-minute writes, $6 1-hour writes, $0.30 reads per million.
    const cost = estimateCost(
      { ...usage(1_000, 2_000, 4_000, 100_000), cacheWrite1hTokens: 1_000 },
      modelCard('claude-sonnet-4-5-20250929'),
    );
    expect(cost?.pricesAsOf).toBe(modelCard('claude-sonnet-4-5').pricing!.pricesAsOf);
    expect(cost?.usd).toBeCloseTo((1_000 * 3 + 2_000 * 15 + 3_000 * 3.75 + 1_000 * 6 + 100_000 * 0.3) / 1e6, 12);
  });

  it('is undefined, not 0, for a model without prices; 0 for a priced model that used nothing', () => {
    expect(estimateCost(usage(10, 10, 0, 0), modelCard('some-private-model'))).toBeUndefined();
    expect(estimateCost(usage(10, 10, 0, 0), undefined)).toBeUndefined();
    expect(estimateCost(usage(0, 0, 0, 0), modelCard('claude-haiku-4-5'))?.usd).toBe(0);
  });

  it('refuses usage that is not token counts', () => {
    expect(() => estimateCost({ ...usage(1, 1, 1, 1), outputTokens: Number.NaN }, modelCard('claude-haiku-4-5'))).toThrow(
      InvalidUsageError,
    );
    expect(() => estimateCost(undefined as never, modelCard('claude-haiku-4-5'))).toThrow(/not an object/);
  });
});

describe('sessionCost', () => {
  it('prices each node by the model that was billed and sums them', () => {
    const result = sessionCost([
      { usage: usage(1_000_000, 0, 0, 0), model: 'claude-opus-4-8' },
      {},
      { usage: usage(0, 1_000_000, 0, 0), model: 'claude-haiku-4-5' },
    ]);
    expect(result.usage).toEqual(usage(1_000_000, 1_000_000, 0, 0));
    expect(result.cost?.usd).toBeCloseTo(5 + 5, 12);
    expect(result.unpriced).toEqual([]);
  });

  it('has no cost when any usage cannot be priced, and names what could not', () => {
    const result = sessionCost([
      { usage: usage(5, 5, 0, 0), model: 'claude-haiku-4-5' },
      { usage: usage(1, 1, 0, 0), model: 'local-llama' },
      { usage: usage(1, 1, 0, 0) },
    ]);
    expect(result.cost).toBeUndefined();
    expect(result.unpriced).toEqual(['local-llama', '(unknown model)']);
    expect(result.usage).toEqual(usage(7, 7, 0, 0));
  });

  it('splits the usage and cost by model, each priced by its own card, dated snapshots by their family’s', () => {
    const result = sessionCost([
      { usage: usage(1_000_000, 0, 0, 0), model: 'claude-haiku-4-5-20251001' },
      { usage: usage(0, 1_000_000, 0, 0), model: 'gpt-5.4-mini' },
      { usage: usage(1_000_000, 0, 0, 0), model: 'claude-haiku-4-5-20251001' },
      { usage: usage(3, 3, 0, 0), model: 'local-llama' },
    ]);
    expect(result.byModel.map(({ model, usage }) => ({ model, usage }))).toEqual([
      { model: 'claude-haiku-4-5-20251001', usage: usage(2_000_000, 0, 0, 0) },
      { model: 'gpt-5.4-mini', usage: usage(0, 1_000_000, 0, 0) },
      { model: 'local-llama', usage: usage(3, 3, 0, 0) },
    ]);
    expect(result.byModel[0].cost?.usd).toBeCloseTo(2, 12);
    expect(result.byModel[1].cost).toEqual({ usd: 4.5, pricesAsOf: '2026-06-04' });
    expect(result.byModel[2].cost).toBeUndefined();
  });
});

describe('reading the API’s usage', () => {
  it('keeps the 1-hour share of cache writes when the API reports one', () => {
    const mapped = toModelUsage({
      input_tokens: 10,
      output_tokens: 20,
      cache_creation_input_tokens: 300,
      cache_read_input_tokens: 40,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
    });
    expect(mapped).toEqual({ ...usage(10, 20, 300, 40), cacheWrite1hTokens: 200 });
    expect(
      toModelUsage({ input_tokens: 1, output_tokens: 2, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 } }),
    ).not.toHaveProperty('cacheWrite1hTokens');
  });
});

describe('describing usage and cost', () => {
  it('reads as one line each', () => {
    expect(describeUsage(usage(1_234, 56, 7_890, 123_456))).toBe('1,234 input, 56 output, 7,890 cache write, 123,456 cache read tokens');
    expect(describeCost({ usd: 0.04213, pricesAsOf: '2026-11-01' })).toBe('$0.0421 (estimate from list prices as of 2026-11-01)');
    expect(describeCost({ usd: 12.3456, pricesAsOf: '2026-11-01' })).toBe('$12.35 (estimate from list prices as of 2026-11-01)');
  });
});
