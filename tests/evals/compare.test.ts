import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compare, contains, evaluate, signTest, trajectoryMatch, type EvalResult } from '../../src/evals/index.js';
import type { ToolDefinition } from '../../src/runtime/index.js';
import { definition, MODEL, scratchStore, scriptedModel, weather } from './scripted.js';

let scratch: Awaited<ReturnType<typeof scratchStore>>;
beforeAll(async () => {
  scratch = await scratchStore();
});
afterAll(() => scratch.cleanup());

const data = Array.from({ length: 30 }, (_, i) => ({
  id: `q${i}`,
  input: `What is the weather in ${i % 2 === 0 ? 'Nice' : 'Paris'}?`,
  expected: 'sunny',
}));
const sunny: ToolDefinition = { ...weather, execute: () => 'sunny' };
const scorers = [contains(), trajectoryMatch({ mode: 'strict', expected: ['weather'] })];

async function run(tool: ToolDefinition, name: string): Promise<EvalResult> {
  const agent = definition({ model: MODEL, tools: [tool] }, { invokeModel: scriptedModel(), store: scratch.store });
  return evaluate({ name, agent, data, scorers, store: scratch.store });
}

describe('compare', () => {
  it('counts wins, losses and ties per scorer, says whether the difference is more than noise, and gives cost and latency deltas', async () => {
    // The baseline's weather tool is wrong about Nice (every other case); the candidate's never is.
    const halfWrong: ToolDefinition = { ...weather, execute: ({ city }: { city: string }) => (city === 'Nice' ? 'rain' : 'sunny, 21C') };
    const baseline = await run(halfWrong, 'base');
    const candidate = await run(sunny, 'cand');
    const comparison = compare(baseline, candidate);
    expect(comparison.paired).toBe(30);
    const byName = Object.fromEntries(comparison.scorers.map((s) => [s.name, s]));
    const wrong = baseline.cases.filter((c) => c.scores[0].score === 0).length;
    expect(wrong).toBe(15);
    expect(byName.contains).toMatchObject({ wins: 15, losses: 0, ties: 15, meanDelta: 0.5, verdict: 'better' });
    expect(byName.contains.signTestP).toBeCloseTo(2 / 2 ** 15, 12);
    expect(byName.contains.bootstrapP).toBeLessThan(0.05);
    expect(byName.trajectory_strict).toMatchObject({ wins: 0, losses: 0, ties: 30, signTestP: 1, bootstrapP: 1, verdict: 'same' });
    expect(comparison.costUsd).toEqual({
      baseline: baseline.summary.costUsd,
      candidate: candidate.summary.costUsd,
      delta: candidate.summary.costUsd - baseline.summary.costUsd,
    });
    expect(comparison.latencyMs.p50.delta).toBe(candidate.summary.latencyMs.p50 - baseline.summary.latencyMs.p50);
    expect(comparison.cases[0]).toMatchObject({ id: 'q0', scores: { contains: { baseline: 0, candidate: 1 } }, costDeltaUsd: 0 });

    // The other way round it is worse, and the same p.
    const reverse = compare(candidate, baseline).scorers[0];
    expect(reverse).toMatchObject({ wins: 0, losses: 15, verdict: 'worse', signTestP: byName.contains.signTestP });
  });

  it('calls a small difference noise, and pairs only the cases both runs have', async () => {
    const base = await run(sunny, 'same');
    let nice = 0;
    const oneWrong: ToolDefinition = {
      ...weather,
      execute: ({ city }: { city: string }) => (city === 'Nice' && ++nice === 2 ? 'rain' : 'sunny'),
    };
    const other = await run(oneWrong, 'other');
    other.cases = other.cases.slice(0, 25);
    const comparison = compare(base, other);
    expect(comparison.paired).toBe(25);
    expect(comparison.onlyInBaseline).toEqual(['q25', 'q26', 'q27', 'q28', 'q29']);
    expect(comparison.scorers[0]).toMatchObject({ wins: 0, losses: 1, ties: 24, signTestP: 1, verdict: 'same' });
  });

  it('computes the exact sign test, also over thousands of cases', () => {
    expect(signTest(8, 2)).toBeCloseTo((2 * (1 + 10 + 45)) / 1024, 12);
    expect(signTest(5, 5)).toBe(1);
    expect(signTest(0, 0)).toBe(1);
    expect(signTest(2600, 2400)).toBeGreaterThan(0);
    expect(signTest(2600, 2400)).toBeLessThan(0.01);
    expect(signTest(2510, 2490)).toBeGreaterThan(0.5);
  });
});
