import type { SessionNode } from '../contract/session.js';

/**
 * Children by parent id (null: the roots), for tree views. Built on the first call that needs it, then
 * kept up to date: loading and resuming, the hot path, never pay for it.
 */
export class ChildIndex {
  private index: Map<string | null, SessionNode[]> | null = null;

  /** The index over `nodes`, built now if it was not (or was dropped since). */
  over(nodes: Map<string, SessionNode>): ReadonlyMap<string | null, readonly SessionNode[]> {
    if (this.index === null) {
      this.index = new Map();
      for (const node of nodes.values()) add(this.index, node);
    }
    return this.index;
  }

  /** A node joined the graph: indexed if the index is built. */
  added(node: SessionNode): void {
    if (this.index !== null) add(this.index, node);
  }

  /** The nodes were replaced: the index is built again when next needed. */
  drop(): void {
    this.index = null;
  }
}

function add(index: Map<string | null, SessionNode[]>, node: SessionNode): void {
  const siblings = index.get(node.parent);
  if (siblings === undefined) index.set(node.parent, [node]);
  else siblings.push(node);
}
