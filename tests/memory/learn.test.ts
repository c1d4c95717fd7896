import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../src/memory/index.js';
import { FactExtractionError, learnFacts } from '../../src/memory/learn.js';
import type { ModelInvoker } from '../../src/runtime/contract/model.js';

function scripted(answers: string[]): ModelInvoker {
  return (async () => ({
    turn: { role: 'assistant', blocks: [{ kind: 'text', text: answers.shift() ?? '' }] },
    stopReason: 'end_turn',
  })) as unknown as ModelInvoker;
}
const turn = { prompt: 'I moved to Lisbon', messages: [], text: 'Noted.' };

describe('learnFacts', () => {
  it('saves facts with the turn time, supersedes a changed fact, skips a duplicate', async () => {
    const memory = createMemoryStore();
    const invoker = scripted([
      '{"facts":[{"text":"User lives in Porto","key":"home_city"}]}',
      '{"facts":[{"text":"User lives in Lisbon","key":"home_city"}]}',
      '{"facts":[{"text":"User lives in Lisbon","key":"home_city"}]}',
    ]);
    const remember = learnFacts({ invoker, memory, scope: { resource: 'u1' }, at: () => 1000 });
    await remember(turn);
    await remember(turn);
    await remember(turn);
    const all = await memory.list!({ includeSuperseded: true });
    expect(all.map((r) => r.text)).toEqual(['User lives in Porto', 'User lives in Lisbon']);
    expect(all[0]!.supersededBy).toBe(all[1]!.id);
    expect(all[1]!.provenance?.at).toBe(1000);
  });
  it('saves each fact with the turn as context, so a search by what the turn said finds it', async () => {
    const memory = createMemoryStore();
    const remember = learnFacts({ invoker: scripted(['{"facts":[{"text":"User lives there now","key":"home_city"}]}']), memory });
    await remember({ prompt: 'I moved to Lisbon last spring', messages: [], text: 'Lisbon is lovely.' });
    expect((await memory.search('lisbon spring')).map((h) => h.text)).toEqual(['User lives there now']);
    expect(await memory.search('lisbon spring', { ranking: 'words' })).toHaveLength(1);
  });
  it('a malformed answer raises FactExtractionError with the raw answer and saves nothing', async () => {
    const memory = createMemoryStore();
    const remember = learnFacts({ invoker: scripted(['{"facts":[{"txt":1}]}']), memory });
    const err = await remember(turn).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FactExtractionError);
    expect((err as FactExtractionError).raw).toBe('{"facts":[{"txt":1}]}');
    expect(await memory.list!({ includeSuperseded: true })).toEqual([]);
  });
});
