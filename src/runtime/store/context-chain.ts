import type { SessionNode } from '../contract/session.js';
import type { Turn } from '../contract/turn.js';
import type { IndusagiError } from '../../errors/index.js';
import { BrokenCompactionError, MissingHistoryError, UnknownNodeError } from './errors.js';

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

/** A context chain that could be built. */
export type OkChain = Extract<ContextChain, { ok: true }>;

/**
 * Walks up from `id` through `lookup` and stops as soon as the context is complete, so it costs the
 * turns since the latest condensation plus the kept tail, never the depth of the session.
 */
export function contextChain(id: string, lookup: (id: string) => SessionNode | undefined): ContextChain {
  return new ChainWalk(id).run(lookup);
}

/**
 * `contextChain` as a walk that can stop at a missing node and go on from there once more nodes are
 * known: a reader that gets the nodes piece by piece (byte ranges, batches of rows) walks each node once.
 */
export class ChainWalk {
  private readonly nodes: SessionNode[] = [];
  // The id to look up next; null past the root, or past the first node of a kept tail (broken).
  private next: string | null;
  private summary: SessionNode | null = null;
  private summaryAt = -1;
  private done: ContextChain | null = null;

  constructor(leaf: string) {
    this.next = leaf;
  }

  /** The nodes walked so far, leaf first. */
  get walked(): readonly SessionNode[] {
    return this.nodes;
  }

  /** True once the walk met a summary and is walking its kept tail. */
  get inKeptTail(): boolean {
    return this.summary !== null;
  }

  /** Walks on through `lookup`: the whole chain, a broken condensation, or the node still missing. */
  run(lookup: (id: string) => SessionNode | undefined): ContextChain {
    if (this.done !== null) return this.done;
    const { nodes } = this;
    for (;;) {
      const summary = this.summary;
      if (this.next === null) return (this.done = { ok: false, broken: summary! });
      const node = lookup(this.next);
      if (node === undefined) return { ok: false, missing: this.next };
      nodes.push(node);
      if (summary !== null) {
        // In the kept tail, up to its first node.
        if (node.id === summary.condenses!.firstKept) return (this.done = { ok: true, nodes, summaryAt: this.summaryAt });
        this.next = node.parent;
      } else if (node.condenses !== undefined) {
        if (node.condenses.firstKept === null) return (this.done = { ok: true, nodes, summaryAt: nodes.length - 1 });
        this.summary = node;
        this.summaryAt = nodes.length - 1;
        this.next = node.parent;
      } else if (node.parent === null) {
        return (this.done = { ok: true, nodes, summaryAt: -1 });
      } else {
        this.next = node.parent;
      }
    }
  }
}

/**
 * `contextChain` of the last node of `path`, when `path` is one line of descent, root side first (each
 * node's parent is the node before it): the same answer, found by stepping back through the array
 * rather than looking each parent up by id. What a store hands over to resume is usually such a path.
 */
export function pathChain(path: readonly SessionNode[]): ContextChain {
  // Only indices are walked; the chain is one native slice and reverse at the end: a cold resume steps
  // through every node of a long path once, and a push per node in cold code costs more than the copy.
  const last = path.length - 1;
  let i = last;
  for (;;) {
    const current = path[i];
    if (current.condenses !== undefined) break;
    if (current.parent === null) return { ok: true, nodes: path.slice(i).reverse(), summaryAt: -1 };
    if (i === 0) return { ok: false, missing: current.parent };
    i--;
  }
  const summary = path[i];
  const summaryAt = last - i;
  const firstKept = summary.condenses!.firstKept;
  if (firstKept === null) return { ok: true, nodes: path.slice(i).reverse(), summaryAt };
  for (;;) {
    const parent = path[i].parent;
    if (parent === null) return { ok: false, broken: summary };
    if (i === 0) return { ok: false, missing: parent };
    if (path[--i].id === firstKept) return { ok: true, nodes: path.slice(i).reverse(), summaryAt };
  }
}

/**
 * The turns of a whole chain: `[summary, ...kept tail, ...turns after the summary]`, or the path when
 * there is no summary. Older summaries inside a kept tail are left out: the newer one covers them.
 */
export function chainTurns(chain: OkChain): Turn[] {
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

/** The typed error for a chain to `id` that could not be built, in session `sessionId`. */
export function chainError(sessionId: string, id: string, chain: Exclude<ContextChain, { ok: true }>): IndusagiError {
  if ('broken' in chain) return new BrokenCompactionError(sessionId, chain.broken.id, chain.broken.condenses!.firstKept!);
  if (chain.missing === id) return new UnknownNodeError(sessionId, id);
  return new MissingHistoryError(sessionId, id, chain.missing);
}
