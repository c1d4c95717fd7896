import type { ModelUsage } from '../../runtime/contract/model.js';
import type { RunEvent } from '../../runtime/contract/events.js';
import type { SessionGraph } from '../../runtime/store/index.js';
import { sessionCost } from '../../runtime/usage/index.js';

const count = new Intl.NumberFormat('en-US');

/** `overloaded (HTTP 529), retrying in 4 s (attempt 1)`: what the spinner alone would leave unsaid. */
export function retryNotice(event: Extract<RunEvent, { kind: 'model_retry' }>): string {
  const status = event.status === undefined ? '' : ` (HTTP ${event.status})`;
  return `${event.reason}${status}, retrying in ${seconds(event.delayMs)} (attempt ${event.attempt})`;
}

function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) || s >= 10 ? Math.round(s) : s.toFixed(1)} s`;
}

/** Everything a model call put in its window: what it read (cached or not) and what it wrote. */
export function contextTokens(usage: ModelUsage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.outputTokens;
}

/** The usage of the last model call on the session's live branch, if any call is recorded there. */
export function lastCallUsage(graph: SessionGraph): ModelUsage | undefined {
  if (graph.leaf === null) return undefined;
  const branch = graph.nodesTo(graph.leaf);
  for (let i = branch.length - 1; i >= 0; i--) if (branch[i].usage !== undefined) return branch[i].usage;
  return undefined;
}

export type StatusFacts = {
  model: string;
  sessionId: string;
  /** The last call's usage, as `contextTokens` counts it; undefined before any call. */
  lastCall: ModelUsage | undefined;
  contextWindow: number;
  /** The stored session, every branch: what `indusagi sessions show` bills too. */
  graph: SessionGraph;
};

/**
 * One line: `claude-sonnet-5-5 · session ID · context 12,400/1,000,000 (1%) · session 30,120 tokens ·
 * ~$0.0412`. Tokens and cost are those of the whole stored session (every branch, summaries included),
 * priced from the model cards as `sessions show` prices them.
 */
export function statusLine(facts: StatusFacts): string {
  const used = facts.lastCall === undefined ? undefined : contextTokens(facts.lastCall);
  const context =
    used === undefined
      ? `context -/${count.format(facts.contextWindow)}`
      : `context ${count.format(used)}/${count.format(facts.contextWindow)} (${percent(used, facts.contextWindow)})`;
  const { usage, cost, unpriced } = sessionCost(facts.graph.allNodes());
  const tokens = usage.inputTokens + usage.outputTokens + usage.cacheWriteTokens + usage.cacheReadTokens;
  const price = cost !== undefined ? `~$${cost.usd.toFixed(cost.usd >= 1 ? 2 : 4)}` : unpriced.length > 0 ? 'cost unknown' : '$0';
  return `${facts.model} · session ${facts.sessionId} · ${context} · session ${count.format(tokens)} tokens · ${price}`;
}

function percent(used: number, window: number): string {
  const p = (used / window) * 100;
  return `${p < 10 ? p.toFixed(1) : Math.round(p)}%`;
}
