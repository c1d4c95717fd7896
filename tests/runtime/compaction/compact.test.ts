import { describe, expect, it } from 'vitest';
import { compact, findCutPoint, shouldCompact, type Turn } from '../../../src/entries/runtime.js';
import { COMPACTION_PREFIX } from '../../../src/entries/compaction.js';
import { makeSummaryTurn } from '../../../src/runtime/compaction/index.js';
import { modelCard } from '../../../src/runtime/models/index.js';
import { assistant, promptOf, recordingInvoker, toolLoop, user } from './helpers.js';

const card = modelCard('test-model', { contextWindow: 10_000, maxOutputTokens: 4_000 });
const policy = { triggerRatio: 0.8, keepRecent: 8 };

describe('compact', () => {
  it('returns the very same array, without a model call, when the cut point is 0', async () => {
    const invoke = recordingInvoker(() => 'never');
    const short = [user('hi'), assistant('hello')];
    expect(await compact(short, card, policy, invoke)).toBe(short);
    expect(invoke.requests).toHaveLength(0);
  });

  it('returns the very same array when the only legal cuts would keep fewer than keepRecent turns', async () => {
    const invoke = recordingInvoker(() => 'never');
    // Cutting before index 1 would drop only the earlier summary; cutting before 2 keeps one turn, not two.
    const history = [makeSummaryTurn('Goal: earlier work.'), user('next?'), assistant('done')];
    expect(findCutPoint(history, 2)).toBe(0);
    expect(await compact(history, card, { ...policy, keepRecent: 2 }, invoke)).toBe(history);
    expect(invoke.requests).toHaveLength(0);
  });

  it('returns the very same array when the summary would not be smaller than the turns it replaces', async () => {
    const history = Array.from({ length: 12 }, (_, i) => (i % 2 ? assistant : user)(`turn ${i}`));
    const invoke = recordingInvoker(() => 'Goal: '.padEnd(4_000, 'z'));
    expect(await compact(history, card, policy, invoke)).toBe(history);
    expect(invoke.requests).toHaveLength(1);
  });

  it('replaces the dropped prefix with one summary turn and keeps the tail objects verbatim', async () => {
    const history = toolLoop(12, 3_000); // 25 turns, about 9,200 tokens
    const before = structuredClone(history);
    expect(shouldCompact(history, card, policy)).toBe(true);
    const cut = findCutPoint(history, 8);

    const invoke = recordingInvoker(() => 'Goal: refactor /repo/build.ts. Progress: read c0..c7.');
    const compacted = await compact(history, card, policy, invoke);

    expect(compacted).toHaveLength(1 + history.length - cut);
    expect(compacted[0]).toEqual({
      role: 'user',
      blocks: [{ kind: 'text', text: `${COMPACTION_PREFIX}\nGoal: refactor /repo/build.ts. Progress: read c0..c7.` }],
    });
    compacted.slice(1).forEach((turn, i) => expect(turn).toBe(history[cut + i]));
    expect(history).toEqual(before);
    expect(shouldCompact(compacted, card, policy)).toBe(false);

    // The summarizer saw exactly the dropped turns.
    const prompt = promptOf(invoke.requests[0]);
    expect(prompt).toContain('Refactor the build pipeline in /repo/build.ts');
    expect(prompt).toContain(`[call c${(cut - 1) / 2 - 1}]`);
    expect(prompt).not.toContain(`[call c${(cut - 1) / 2}]`);
  });

  it('compacts a history that is already far over the window, so it can still be resumed', async () => {
    const history: Turn[] = [];
    for (let i = 0; i < 60; i++) history.push(user(`question ${i} `.padEnd(4_000, '?')), assistant(`answer ${i}`));
    const invoke = recordingInvoker(() => 'Goal: answer questions.');
    const compacted = await compact(history, card, policy, invoke);
    expect(shouldCompact(compacted, card, policy)).toBe(false);
    expect(compacted).toHaveLength(9);
  });
});
