// Memory recall on LoCoMo, on the hand-made fixture, with a store whose ranking is worked out by hand
// (tests/evals/locomo-support.ts). The expected figures, question by question, for k = 1 and 2:
//   tiny-q001 (4) "name of Ana's puppy"      top: D1:1 (puppy)                      evidence D1:1       r@1 1   r@2 1
//   tiny-q002 (1) "started the violin ..."   top: D1:2 (started, violin), D2:1      evidence D1:2 D2:1  r@1 .5  r@2 1
//   tiny-q003 (2) "When was the concert?"    top: D2:1 (concert)                    evidence D2:1       r@1 1   r@2 1
//   tiny-q006 (4) "sister ... visit next"    top: D2:3 (4 words), D1:3 (sister)     evidence D1:3       r@1 0   r@2 1
//   tiny2-q001 (4) "Dee grow in the garden"  top: D1:1 (grow, garden), D1:2         evidence D1:1       r@1 1   r@2 1
// tiny-q004 has no evidence (unscorable); tiny-q005 is category 5 (left out by default).
import { describe, expect, it } from 'vitest';
import { compare, htmlReport, loadLocomo, memoryRecallEval, textSummary, type LocomoConversation } from '../../src/evals/index.js';
import { createMemoryStore, type MemoryStore } from '../../src/memory/index.js';
import { TINY, wordCountStore } from './locomo-support.js';

describe('memoryRecallEval', () => {
  it('saves every turn with its speaker and session date, searches each question once, scores recall@k and hit@k', async () => {
    const data = await loadLocomo(TINY);
    const stores = new Map<string, ReturnType<typeof wordCountStore>>();
    const released: string[] = [];
    const result = await memoryRecallEval({
      data,
      k: [2, 1],
      store: (conversation) => {
        const store = wordCountStore();
        stores.set(conversation.name, store);
        return store;
      },
      release: (_, conversation) => void released.push(conversation.name),
    });

    // Each conversation in its own store, holding exactly its turns.
    expect([...stores.keys()]).toEqual(['tiny', 'tiny2']);
    expect(released).toEqual(['tiny', 'tiny2']);
    const tiny = stores.get('tiny')!;
    expect(tiny.records.map((r) => r.text)).toContain('Ana: Biscuit chewed my shoes. [shares a photo: a small brown dog]');
    expect(tiny.records[3]).toMatchObject({
      text: 'Ben: I played the violin at a concert last Saturday.',
      meta: { turn: 'D2:1', session: 2, speaker: 'Ben' },
      provenance: { at: Date.UTC(2023, 3, 17, 14, 30), sessionId: 'tiny' },
    });
    expect(tiny.searches).toHaveLength(4);
    expect(stores.get('tiny2')!.searches).toEqual(['What does Dee grow in the garden?']);

    expect(result.name).toBe('locomo-recall');
    expect(result.unscorable).toEqual(['tiny-q004']);
    expect(result.cases.map((c) => c.id)).toEqual(['tiny-q001', 'tiny-q002', 'tiny-q003', 'tiny-q006', 'tiny2-q001']);
    const score = (id: string, name: string) => result.cases.find((c) => c.id === id)!.scores.find((s) => s.name === name)!;
    expect(score('tiny-q002', 'recall@1')).toMatchObject({
      score: 0.5,
      passed: false,
      reason: '1 of 2 evidence turns in the top 1 (D1:2); missing D2:1',
    });
    expect(score('tiny-q002', 'recall@2')).toMatchObject({ score: 1, passed: true });
    expect(score('tiny-q006', 'hit@1')).toMatchObject({
      score: 0,
      passed: false,
      reason: '0 of 1 evidence turns in the top 1; missing D1:3',
    });
    expect(result.cases.find((c) => c.id === 'tiny-q006')!.output).toBe(
      'D2:3 Ben: Maybe we should visit your sister next month.\nD1:3 Ana: My sister lives in Lisbon.',
    );

    // Means over the five: recall@1 (1 + .5 + 1 + 0 + 1) / 5, hit@1 4 / 5; everything is found by k = 2.
    const summary = Object.fromEntries(result.summary.scorers.map((s) => [s.name, [s.mean, s.passRate, s.scored]]));
    expect(summary).toEqual({
      'recall@1': [0.7, 0.6, 5],
      'hit@1': [0.8, 0.8, 5],
      'recall@2': [1, 1, 5],
      'hit@2': [1, 1, 5],
    });
    // Per category, in category order.
    expect(result.summary.groups!.map((g) => [g.group, g.cases, g.scorers[0].mean, g.scorers[1].mean])).toEqual([
      ['1 multi-hop', 1, 0.5, 1],
      ['2 temporal', 1, 1, 1],
      ['4 single-hop', 3, 2 / 3, 2 / 3],
    ]);
    // No model: nothing spent, no session.
    expect(result.summary).toMatchObject({ costUsd: 0, unpriced: 0, judgeCostUsd: 0, usage: { inputTokens: 0, outputTokens: 0 } });
    expect(result.cases.every((c) => c.sessionId === '' && c.status === 'settled')).toBe(true);

    const text = textSummary(result);
    expect(text).toMatch(/recall@1 +mean 0\.700 +pass 60\.0%/);
    expect(text).toMatch(/4 single-hop +3 +0\.667 +0\.667 +1\.000 +1\.000/);
    const html = htmlReport(result);
    expect(html).toContain('<h2>By group</h2>');
    expect(html).toMatch(/<tr><td>1 multi-hop<\/td><td>1<\/td><td>0\.500<\/td><td>0\.0%<\/td>/);
    expect(html).toContain('No session (no agent ran)');
  });

  it('keeps to the categories asked for, and runs on the in-process store as an app has it', async () => {
    const data = await loadLocomo(TINY);
    const stores: MemoryStore[] = [];
    const result = await memoryRecallEval({
      data,
      categories: [2],
      k: 10,
      store: () => {
        const store = createMemoryStore();
        stores.push(store);
        return store;
      },
    });
    // Only tiny has a temporal question, so only its store is made.
    expect(stores).toHaveLength(1);
    expect(result.cases.map((c) => c.id)).toEqual(['tiny-q003']);
    // Six turns, k 10: the one turn that mentions a concert is among what comes back.
    expect(result.cases[0].scores.map((s) => [s.name, s.score])).toEqual([
      ['recall@10', 1],
      ['hit@10', 1],
    ]);
    expect(result.cases[0].output.split('\n')[0]).toBe('D2:1 Ben: I played the violin at a concert last Saturday.');
  });

  it('compares two stores case by case', async () => {
    const data = await loadLocomo(TINY);
    const one = await memoryRecallEval({ data, k: 1, store: () => wordCountStore() });
    // A store that returns nothing loses every case a real one found.
    const empty = await memoryRecallEval({
      data,
      k: 1,
      store: () => ({ ...wordCountStore(), search: async () => [] }),
    });
    const comparison = compare(one, empty);
    const recall = comparison.scorers.find((s) => s.name === 'recall@1')!;
    expect([recall.wins, recall.losses, recall.ties]).toEqual([0, 4, 1]);
  });

  it('refuses options it cannot run with', async () => {
    const data = await loadLocomo(TINY);
    const store = () => wordCountStore();
    await expect(memoryRecallEval({ data, store, k: 0 })).rejects.toThrow(/`k` must be a whole number >= 1/);
    await expect(memoryRecallEval({ data, store, k: [] })).rejects.toThrow(/`k` must be/);
    await expect(memoryRecallEval({ data, store: undefined as never })).rejects.toThrow(/`store` must be a function/);
    await expect(memoryRecallEval({ data, store: (() => ({})) as unknown as (c: LocomoConversation) => MemoryStore })).rejects.toThrow(
      /gave no memory store for conversation "tiny"/,
    );
    await expect(memoryRecallEval({ data, store, categories: [9] })).rejects.toThrow(/names no LoCoMo category: 9/);
  });

  it('stops at the signal: the cases searched so far, status cancelled', async () => {
    const data = await loadLocomo(TINY);
    const controller = new AbortController();
    const result = await memoryRecallEval({
      data,
      store: () => wordCountStore(),
      signal: controller.signal,
      onProgress: ({ done }) => {
        if (done === 2) controller.abort();
      },
    });
    expect(result.status).toBe('cancelled');
    expect(result.cases.map((c) => c.id)).toEqual(['tiny-q001', 'tiny-q002']);
  });
});
