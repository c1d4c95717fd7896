import { describe, expect, it } from 'vitest';
import { findCutPoint, type Turn } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import { CompactionInputError } from '../../../src/runtime/compaction/index.js';
import { assistant, calls, results, tailIsSelfContained, toolLoop, user } from './helpers.js';

const summary = (text: string): Turn => user(`${COMPACTION_PREFIX}\n${text}`);

describe('findCutPoint', () => {
  it('keeps the last keepRecent turns and cuts right before them when that splits nothing', () => {
    const history = [user('a'), assistant('b'), user('c'), assistant('d'), user('e')];
    expect(findCutPoint(history, 2)).toBe(3);
    expect(findCutPoint(history, 4)).toBe(1);
  });

  it('returns 0 when keepRecent covers the whole history, or the history is one giant turn', () => {
    const history = [user('a'), assistant('b'), user('c')];
    expect(findCutPoint(history, 3)).toBe(0);
    expect(findCutPoint(history, 50)).toBe(0);
    expect(findCutPoint([user('x'.repeat(2_000_000))], 8)).toBe(0);
    expect(findCutPoint([], 0)).toBe(0);
  });

  it('in a history of nothing but tool pairs, never separates a call from its result', () => {
    const history = toolLoop(10); // prompt, then (call, result) × 10
    for (let keep = 1; keep <= history.length; keep++) {
      const cut = findCutPoint(history, keep);
      expect(cut).toBeLessThanOrEqual(history.length - keep);
      if (cut > 0) {
        expect(history[cut].role, `keep ${keep}`).toBe('assistant');
        expect(tailIsSelfContained(history.slice(cut))).toBe(true);
      }
    }
    // keepRecent 1 would keep only a tool_result; the cut moves back to keep its call.
    expect(findCutPoint(history, 1)).toBe(history.length - 2);
  });

  it('keeps parallel calls and their results (one assistant turn, one user turn) together', () => {
    const history = [
      user('check both files'),
      calls({ id: 'x' }, { id: 'y' }),
      results({ id: 'x' }, { id: 'y' }),
      assistant('both fine'),
      user('thanks'),
    ];
    expect(findCutPoint(history, 3)).toBe(1);
    expect(findCutPoint(history, 2)).toBe(3);
  });

  it('drops a tool_result whose call is not in the history rather than leave it first', () => {
    const history = [results({ id: 'gone' }), assistant('so the file is empty'), user('ok, continue'), assistant('done')];
    expect(findCutPoint(history, 3)).toBe(1);
    expect(findCutPoint(history, 4)).toBe(0);

    const orphanInside = [user('go'), assistant('working'), results({ id: 'gone' }), assistant('next'), user('and?')];
    expect(findCutPoint(orphanInside, 3)).toBe(0);
    expect(findCutPoint(orphanInside, 2)).toBe(3);
  });

  it('does not cut off a previous summary on its own, and folds it in with later turns', () => {
    const history = [summary('Goal: ship v2'), user('next step'), assistant('done'), user('and then'), assistant('also done')];
    expect(findCutPoint(history, 4)).toBe(0);
    expect(findCutPoint(history, 2)).toBe(3);
  });

  it('refuses a keepRecent that is not a whole number >= 0', () => {
    expect(() => findCutPoint([user('a')], -1)).toThrow(CompactionInputError);
    expect(() => findCutPoint([user('a')], 1.5)).toThrow(CompactionInputError);
    expect(() => findCutPoint(null as unknown as Turn[], 1)).toThrow(CompactionInputError);
  });

  it('agrees with a brute-force definition on random histories', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round++) {
      const history = randomHistory(random);
      const keep = Math.floor(random() * (history.length + 2));
      expect(findCutPoint(history, keep), JSON.stringify({ round, keep })).toBe(bruteForceCut(history, keep));
    }
  });
});

/** Builds histories with summaries, orphans, parallel calls and results arriving a turn late. */
function randomHistory(random: () => number): Turn[] {
  const out: Turn[] = random() < 0.3 ? [summary('earlier')] : [];
  let id = 0;
  const pending: string[] = [];
  const length = 1 + Math.floor(random() * 14);
  while (out.length < length) {
    const r = random();
    if (r < 0.3) {
      const ids = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `t${id++}`);
      out.push(calls(...ids.map((i) => ({ id: i }))));
      pending.push(...ids);
    } else if (r < 0.6 && pending.length > 0) {
      const answered = pending.splice(0, 1 + Math.floor(random() * pending.length));
      out.push(results(...answered.map((i) => ({ id: i }))));
    } else if (r < 0.65) {
      out.push(results({ id: 'orphan' }));
    } else {
      out.push(random() < 0.5 ? user('u') : assistant('a'));
    }
  }
  return out;
}

/** The latest c <= n - keep whose dropped part is not only summaries and whose tail is self-contained. */
function bruteForceCut(history: Turn[], keep: number): number {
  for (let c = history.length - keep; c > 0; c--) {
    const prefixOnlySummaries = history
      .slice(0, c)
      .every((t) => t.blocks[0]?.kind === 'text' && t.blocks[0].text.startsWith(COMPACTION_PREFIX));
    if (!prefixOnlySummaries && tailIsSelfContained(history.slice(c))) return c;
  }
  return 0;
}
