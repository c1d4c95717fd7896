// RunBudget on its own: what a model call reserves, that calls side by side can never cross a limit
// together, that a stop is final for everything under it, and that a budget covers those below it.
import { describe, expect, it } from 'vitest';
import { BudgetExceededError, RunBudget, estimateRequestTokens } from '../../../src/runtime/index.js';
import type { ModelInvoker, ModelRequest, ModelUsage } from '../../../src/runtime/index.js';

const invoker = (async () => {
  throw new Error('never called');
}) as ModelInvoker;

const request = (maxOutputTokens: number, model = 'claude-haiku-4-5'): ModelRequest => ({
  model,
  messages: [{ role: 'user', blocks: [{ kind: 'text', text: 'x'.repeat(400) }] }],
  tools: [],
  maxOutputTokens,
});
const used = (input: number, output: number): ModelUsage => ({
  inputTokens: input,
  outputTokens: output,
  cacheWriteTokens: 0,
  cacheReadTokens: 0,
});

function refusal(run: () => unknown): BudgetExceededError {
  try {
    run();
  } catch (error) {
    if (BudgetExceededError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected the budget to refuse');
}

describe('RunBudget', () => {
  it('reserves a call at its estimated input and whole output cap, and counts what it was billed', () => {
    const budget = new RunBudget({ maxTokens: 1_000 });
    const input = estimateRequestTokens(request(500));
    const settle = budget.modelCall(request(500), invoker);
    // While it runs, its worst case stays reserved: a second call of the same size does not fit.
    const stop = refusal(() => new RunBudget({}, budget).modelCall(request(500), invoker));
    expect(stop).toMatchObject({ limit: 'maxTokens', max: 1_000, spent: input + 500, needed: input + 500 });
    settle(used(input, 20));
    expect(budget.spent.tokens).toBe(input + 20);
  });

  it('lets calls side by side spend together only what the limit allows', () => {
    const budget = new RunBudget({ maxCostUsd: 0.01 });
    // claude-haiku-4-5: $1.25 per million input tokens written to the cache, $5 per million output.
    const calls = [0, 1, 2, 3].map(() => () => budget.modelCall(request(800), invoker));
    const settles = [calls[0](), calls[1]()];
    expect(refusal(calls[2]).limit).toBe('maxCostUsd');
    for (const settle of settles) settle(used(100, 800));
    expect(budget.spent.costUsd).toBeCloseTo(2 * (100 * 1 + 800 * 5) * 1e-6, 12);
    expect(budget.spent.costUsd).toBeLessThanOrEqual(0.01);
  });

  it('stops for good: after one refusal every call under it is refused, even one that would fit', () => {
    const budget = new RunBudget({ maxToolCalls: 3 });
    budget.toolCalls(2);
    const first = refusal(() => budget.toolCalls(2));
    const child = new RunBudget({}, budget);
    expect(refusal(() => child.toolCalls(1))).toBe(first);
    expect(refusal(() => child.modelCall(request(10), invoker))).toBe(first);
  });

  it("counts a sub-agent's spending up the chain, and covers the budgets below it, not beside it", () => {
    const top = new RunBudget({ maxToolCalls: 10 });
    const child = new RunBudget({ maxToolCalls: 2 }, top);
    const sibling = new RunBudget({}, top);
    child.toolCalls(2);
    expect(top.spent.toolCalls).toBe(2);
    const own = refusal(() => child.toolCalls(1));
    expect(own.budget).toBe(child);
    expect(top.covers(own.budget)).toBe(false);
    expect(child.covers(top)).toBe(true);
    // The child's own limit stopped the child only.
    sibling.toolCalls(5);
    expect(top.spent.toolCalls).toBe(7);
  });

  it('scales its estimate up once a reply shows the model counts more than the heuristic, never down', () => {
    const estimate = estimateRequestTokens(request(10));
    // The model counted twice the estimate: the next call is reserved at twice it too, so it no longer
    // fits where the heuristic alone would have let it.
    const up = new RunBudget({ maxTokens: 3 * estimate + 15 });
    up.modelCall(request(10), invoker)(used(2 * estimate, 0));
    expect(refusal(() => up.modelCall(request(10), invoker)).needed).toBe(2 * estimate + 10);
    // The model counted less: the estimate stays as it was.
    const down = new RunBudget({ maxTokens: estimate + 10 });
    down.modelCall(request(10), invoker)(used(1, 0));
    expect(refusal(() => down.modelCall(request(10), invoker)).needed).toBe(estimate + 10);
  });

  it('releases the reservation of a call that failed, counting nothing for it', () => {
    const budget = new RunBudget({ maxTokens: estimateRequestTokens(request(10)) + 10 });
    budget.modelCall(request(10), invoker)(undefined);
    budget.modelCall(request(10), invoker)(used(3, 1));
    expect(budget.spent.tokens).toBe(4);
  });

  it('refuses maxCostUsd for a model whose card has no prices', () => {
    const budget = new RunBudget({ maxCostUsd: 1 });
    expect(() => budget.modelCall(request(10, 'model-without-prices'), invoker)).toThrow(/no prices/);
  });
});
