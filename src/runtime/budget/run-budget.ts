import type { LimitName, RunLimits } from '../contract/limits.js';
import type { ModelCard, ModelInvoker, ModelRequest, ModelTool, ModelUsage } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import type { LoopBudget } from '../loop/types.js';
import { BudgetExceededError } from '../loop/errors.js';
import { modelCard } from '../models/index.js';
import { estimateCost } from '../usage/cost.js';
import { estimateTextTokens, estimateToolsTokens, estimateTurnTokens } from '../compaction/estimate.js';
import { UnpricedModelError } from './errors.js';

/** What one call may add at most, in each unit a limit counts. */
type Amount = { tokens: number; usd: number; calls: number };

/** What a budget has counted so far: settled calls, not the reservations of calls in flight. */
export type BudgetSpent = { costUsd: number; tokens: number; toolCalls: number; elapsedMs: number };

/**
 * One run's limits at work, linked to the budget of the run above it when the run is a sub-agent's (a
 * call counts against every budget up the chain, so one budget covers a whole tree of agents).
 *
 * A model call goes ahead only when every budget up the chain can pay for it in full: its input, as
 * estimated, and its whole output cap (`maxOutputTokens`), priced at the model card's dearest input
 * rate (a cache write) and its output rate. The call reserves that much until its reply says what it
 * cost, so calls running side by side (parallel sub-agents) can never cross a limit together. The
 * estimate is the footprint heuristic (about 4 characters a token), scaled up once a reply has shown
 * the model counts more (never down). A tool call needs room for one more call. The first refusal
 * stops the budget: every later call under it is refused too, so the whole tree stops.
 */
export class RunBudget implements LoopBudget {
  readonly #startedAt: number;
  readonly #spent = { tokens: 0, usd: 0, calls: 0 };
  readonly #reserved = { tokens: 0, usd: 0 };
  #stopped: BudgetExceededError | undefined;
  // Reported prompt size over the estimate, from this run's latest reply; at least 1.
  #ratio = 1;

  constructor(
    readonly limits: RunLimits,
    readonly parent: RunBudget | undefined = undefined,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.#startedAt = clock();
  }

  /** True when `budget` is this one or one above it: a limit met there stops the run of this one too. */
  covers(budget: object): boolean {
    for (let at: RunBudget | undefined = this; at !== undefined; at = at.parent) if (at === budget) return true;
    return false;
  }

  get spent(): BudgetSpent {
    return {
      costUsd: this.#spent.usd,
      tokens: this.#spent.tokens,
      toolCalls: this.#spent.calls,
      elapsedMs: this.clock() - this.#startedAt,
    };
  }

  modelCall(request: ModelRequest, invoker: ModelInvoker): (usage: ModelUsage | undefined) => void {
    const chain = this.#chain();
    const card = invoker.card ?? modelCard(request.model);
    const estimated = estimateRequestTokens(request);
    const input = Math.ceil(estimated * this.#ratio);
    const tokens = input + request.maxOutputTokens;
    const usd = chain.some((budget) => budget.limits.maxCostUsd !== undefined)
      ? worstCost(input, request.maxOutputTokens, card, request.model)
      : 0;
    for (const budget of chain) budget.#check({ tokens, usd, calls: 0 });
    for (const budget of chain) {
      budget.#reserved.tokens += tokens;
      budget.#reserved.usd += usd;
    }
    let settled = false;
    return (usage) => {
      if (settled) return;
      settled = true;
      for (const budget of chain) {
        budget.#reserved.tokens -= tokens;
        budget.#reserved.usd -= usd;
      }
      if (usage === undefined) return;
      const prompt = usage.inputTokens + usage.cacheWriteTokens + usage.cacheReadTokens;
      const cost = estimateCost(usage, card)?.usd ?? 0;
      for (const budget of chain) {
        budget.#spent.tokens += prompt + usage.outputTokens;
        budget.#spent.usd += cost;
      }
      if (estimated > 0) this.#ratio = Math.max(1, prompt / estimated);
    };
  }

  toolCalls(count: number): void {
    const chain = this.#chain();
    for (const budget of chain) budget.#check({ tokens: 0, usd: 0, calls: count });
    for (const budget of chain) budget.#spent.calls += count;
  }

  #chain(): RunBudget[] {
    const chain: RunBudget[] = [];
    for (let at: RunBudget | undefined = this; at !== undefined; at = at.parent) chain.push(at);
    return chain;
  }

  #check(amount: Amount): void {
    if (this.#stopped !== undefined) throw this.#stopped;
    const { maxDurationMs, maxToolCalls, maxTokens, maxCostUsd } = this.limits;
    const elapsed = this.clock() - this.#startedAt;
    if (maxDurationMs !== undefined && elapsed >= maxDurationMs) this.#stop('maxDurationMs', maxDurationMs, elapsed, 0);
    if (maxToolCalls !== undefined && this.#spent.calls + amount.calls > maxToolCalls) {
      this.#stop('maxToolCalls', maxToolCalls, this.#spent.calls, amount.calls);
    }
    const tokens = this.#spent.tokens + this.#reserved.tokens;
    if (maxTokens !== undefined && tokens + amount.tokens > maxTokens) this.#stop('maxTokens', maxTokens, tokens, amount.tokens);
    const usd = this.#spent.usd + this.#reserved.usd;
    if (maxCostUsd !== undefined && usd + amount.usd > maxCostUsd) this.#stop('maxCostUsd', maxCostUsd, usd, amount.usd);
  }

  #stop(limit: LimitName, max: number, spent: number, needed: number): never {
    this.#stopped = new BudgetExceededError(limit, max, spent, needed, this);
    throw this.#stopped;
  }
}

/** The request's input as the footprint heuristic counts it: messages, tool definitions and both system texts. */
export function estimateRequestTokens(request: ModelRequest): number {
  let tokens = estimateTextTokens(request.system ?? '') + estimateTextTokens(request.volatileSystem ?? '');
  for (const turn of request.messages) tokens += remembered(turnTokens, turn, estimateTurnTokens);
  return tokens + remembered(toolsTokens, request.tools, estimateToolsTokens);
}

// Every call of a run sends every earlier turn and the same tool list again: each is estimated once
// (a turn in the context is never changed in place; see `ModelView`), not on every call, which made
// a long run's budget checks grow with the square of its length.
const turnTokens = new WeakMap<Turn, number>();
const toolsTokens = new WeakMap<readonly ModelTool[], number>();

function remembered<K extends object>(memo: WeakMap<K, number>, key: K, estimate: (key: K) => number): number {
  let tokens = memo.get(key);
  if (tokens === undefined) memo.set(key, (tokens = estimate(key)));
  return tokens;
}

/** The most a call can cost: `input` tokens at the dearest input rate (a cache write) and its whole output cap. */
function worstCost(input: number, output: number, card: ModelCard | undefined, model: string): number {
  const prices = card?.pricing;
  if (prices === undefined) throw new UnpricedModelError(model);
  const inputRate = Math.max(prices.inputPerMTok, prices.cacheWritePerMTok);
  return (input * inputRate + output * prices.outputPerMTok) / 1_000_000;
}
