import { describe, expect, it } from 'vitest';
import { estimateContextTokens, shouldCompact, type Turn } from '../../../src/entries/runtime.js';
import { CompactionInputError, TURN_SURCHARGE_TOKENS, estimateTurnTokens } from '../../../src/runtime/compaction/index.js';
import { modelCard } from '../../../src/runtime/models/index.js';
import { calls, results, user } from './helpers.js';

describe('estimateContextTokens', () => {
  it('counts about four characters a token plus a surcharge per turn', () => {
    expect(estimateContextTokens([])).toBe(0);
    expect(estimateContextTokens([user('x'.repeat(400))])).toBe(100 + TURN_SURCHARGE_TOKENS);
    expect(estimateContextTokens([user('x'.repeat(400)), user('y'.repeat(401))])).toBe(100 + 101 + 2 * TURN_SURCHARGE_TOKENS);
  });

  it('counts tool inputs and tool results, so a long tool loop is not invisible', () => {
    const small = calls({ id: 'a', name: 'grep', input: { q: 'x' } });
    const big = calls({ id: 'a', name: 'grep', input: { q: 'x'.repeat(4000) } });
    expect(estimateTurnTokens(big) - estimateTurnTokens(small)).toBe(1000);

    const shortResult = results({ id: 'a', content: 'ok' });
    const longResult = results({ id: 'a', content: 'ok' + 'z'.repeat(8000) });
    expect(estimateTurnTokens(longResult) - estimateTurnTokens(shortResult)).toBe(2000);
  });

  it('counts thinking text', () => {
    const thinking: Turn = { role: 'assistant', blocks: [{ kind: 'thinking', text: 't'.repeat(4000), signature: 'sig' }] };
    expect(estimateTurnTokens(thinking)).toBe(1000 + TURN_SURCHARGE_TOKENS);
  });

  it('refuses malformed history with a typed error instead of guessing', () => {
    expect(() => estimateContextTokens('nope' as unknown as Turn[])).toThrow(CompactionInputError);
    expect(() => estimateContextTokens([{ role: 'user' } as unknown as Turn])).toThrow(CompactionInputError);
    expect(() => estimateContextTokens([{ role: 'user', blocks: [{ kind: 'video' }] } as unknown as Turn])).toThrow(
      /unknown block kind "video"/,
    );
    expect(() => estimateContextTokens([{ role: 'user', blocks: [{ kind: 'image' }] } as unknown as Turn])).toThrow(
      /an image block needs a base64, url source/,
    );
    expect(() =>
      estimateContextTokens([{ role: 'user', blocks: [{ kind: 'document', source: { type: 'file' } }] } as unknown as Turn]),
    ).toThrow(CompactionInputError);
    expect(() => estimateContextTokens([{ role: 'user', blocks: [{ kind: 'text', text: 42 }] } as unknown as Turn])).toThrow(
      CompactionInputError,
    );

    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const error = (() => {
      try {
        estimateContextTokens([calls({ id: 'a', input: circular })]);
      } catch (e) {
        return e;
      }
    })();
    expect(CompactionInputError.isInstance(error) && error.kind).toBe('invalid_request');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });
});

describe('shouldCompact', () => {
  const card = modelCard('test-model', { contextWindow: 1000, maxOutputTokens: 500 });
  // 796 characters => 199 tokens + 4 surcharge = 203 tokens per turn.
  const turn = () => user('w'.repeat(796));

  it('is false without a policy: no compaction in the config means disabled', () => {
    const huge = Array.from({ length: 50 }, turn);
    expect(shouldCompact(huge, card, undefined)).toBe(false);
  });

  it('triggers exactly when the estimate passes window × triggerRatio', () => {
    // limit = floor(1000 × 0.8) = 800; 3 turns = 609 fit, 4 turns = 812 do not.
    expect(shouldCompact([turn(), turn(), turn()], card, {})).toBe(false);
    expect(shouldCompact([turn(), turn(), turn(), turn()], card, {})).toBe(true);
    // A ratio of 0.6 puts the limit at 600.
    expect(shouldCompact([turn(), turn(), turn()], card, { triggerRatio: 0.6 })).toBe(true);
  });

  it('counts the system prompt and the reserved reply toward the budget', () => {
    const three = [turn(), turn(), turn()]; // 609 of 800
    expect(shouldCompact(three, card, {}, { systemText: 's'.repeat(4 * 191) })).toBe(false); // 800
    expect(shouldCompact(three, card, {}, { systemText: 's'.repeat(4 * 192) })).toBe(true); // 801
    expect(shouldCompact(three, card, {}, { maxOutputTokens: 191 })).toBe(false);
    expect(shouldCompact(three, card, {}, { maxOutputTokens: 192 })).toBe(true);
    const tools = [{ name: 'files_read', description: 'd'.repeat(1000), inputSchema: { type: 'object' } }];
    expect(shouldCompact(three, card, {}, { tools })).toBe(true);
  });

  it('refuses a policy that would never or always trigger', () => {
    for (const policy of [
      { triggerRatio: 0 },
      { triggerRatio: 1.5 },
      { triggerRatio: Number.NaN },
      { keepRecent: -1 },
      { keepRecent: 2.5 },
    ]) {
      expect(() => shouldCompact([], card, policy)).toThrow(CompactionInputError);
    }
    expect(() => shouldCompact([], modelCard('m', { contextWindow: 0 }), {})).toThrow(/contextWindow/);
  });
});
