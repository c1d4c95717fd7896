import type { SessionNode } from '../contract/session.js';
import type { Turn } from '../contract/turn.js';

/**
 * The nodes a model context is built from, leaf first: the turns up to the latest condensation summary
 * on the path, the summary, then its kept tail up to `firstKept` (the root, without a summary).
 * `summaryAt` is the summary's index in `nodes`, -1 without one.
 */
export type ContextChain =
  | { ok: true; nodes: SessionNode[]; summaryAt: number }
  /** A node the context needs is not available: `missing` is its id. */
  | { ok: false; missing: string }
  /** The latest summary's `firstKept` is not one of its ancestors: its context can never be rebuilt. */
  | { ok: false; broken: SessionNode };

/**
 * Walks up from `id` through `lookup` and stops as soon as the context is complete, so it costs the
 * turns since the latest condensation plus the kept tail, never the depth of the session.
 */
export function contextChain(id: string, lookup: (id: string) => SessionNode | undefined): ContextChain {
  const nodes: SessionNode[] = [];
  let current = lookup(id);
  if (current === undefined) return { ok: false, missing: id };
  for (;;) {
    nodes.push(current);
    if (current.condenses !== undefined) break;
    if (current.parent === null) return { ok: true, nodes, summaryAt: -1 };
    const parent = lookup(current.parent);
    if (parent === undefined) return { ok: false, missing: current.parent };
    current = parent;
  }
  const summary = current;
  const summaryAt = nodes.length - 1;
  const firstKept = summary.condenses!.firstKept;
  if (firstKept === null) return { ok: true, nodes, summaryAt };
  for (let walker = summary.parent; ;) {
    if (walker === null) return { ok: false, broken: summary };
    const node = lookup(walker);
    if (node === undefined) return { ok: false, missing: walker };
    nodes.push(node);
    if (node.id === firstKept) return { ok: true, nodes, summaryAt };
    walker = node.parent;
  }
}

/**
 * The turns of a whole chain: `[summary, ...kept tail, ...turns after the summary]`, or the path when
 * there is no summary. Older summaries inside a kept tail are left out: the newer one covers them.
 */
export function chainTurns(chain: Extract<ContextChain, { ok: true }>): Turn[] {
  const { nodes, summaryAt } = chain;
  const turns: Turn[] = [];
  if (summaryAt < 0) {
    for (let i = nodes.length - 1; i >= 0; i--) turns.push(nodes[i].turn);
    return turns;
  }
  turns.push(nodes[summaryAt].turn);
  for (let i = nodes.length - 1; i > summaryAt; i--) if (nodes[i].condenses === undefined) turns.push(nodes[i].turn);
  for (let i = summaryAt - 1; i >= 0; i--) turns.push(nodes[i].turn);
  return turns;
}

/** Why a chain is not whole, in words (a missing node, a broken condensation); null when it is. */
export function chainProblem(chain: ContextChain): string | null {
  if (chain.ok) return null;
  if ('missing' in chain) return `node ${chain.missing} is missing`;
  return `condensation ${chain.broken.id} keeps a tail from a node that is not its ancestor`;
}
