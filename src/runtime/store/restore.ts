import type { SessionNode, SessionRecord } from '../contract/session.js';
import { contextChain } from './context-chain.js';

/** A node that could not be attached because its parent is missing; `index` is its position in the records. */
export type OrphanNode = { id: string; parent: string; index: number };

/** A record treated as damaged although it decoded: `index` is its position in the records. */
export type RejectedNode = { id: string; index: number; reason: string };

/** The leaf the records name, when its context cannot be built, and the leaf chosen instead. */
export type LeafFallback = { recorded: string; restored: string | null };

/** What rebuilding a graph from records gives, before it becomes a `SessionGraph`. */
export type Restored = {
  /** The graph's nodes, parents before children, in the order they attached. */
  nodes: Map<string, SessionNode>;
  leaf: string | null;
  orphans: OrphanNode[];
  leafFallback: LeafFallback | null;
  rejected: RejectedNode[];
};

type Status = 'ok' | { missing: string } | { broken: SessionNode };

/**
 * Rebuilds a graph from stored records (see `SessionGraph.restore`).
 *
 * The leaf is the last leaf position the records name (a node record moves it to its node, a head
 * record where it says) if the model context there can be built: every node from the leaf up to the
 * latest condensation's first kept turn (or the root) is intact, and that condensation's `firstKept`
 * is one of its ancestors. Otherwise it falls back to the most recent earlier position whose context
 * can. History above the latest condensation's kept tail is not needed: damage there leaves the leaf
 * where it is, and the leaf's intact ancestors stay in the graph although they no longer reach a root.
 *
 * A summary whose `firstKept` is not one of its ancestors can never be resumed: when the search meets
 * one, it is treated like a damaged line (`rejected`, its descendants orphans) and the search runs again.
 */
export function restoreRecords(records: readonly SessionRecord[]): Restored {
  const rejected = new Map<string, RejectedNode>();
  for (;;) {
    const attached = attach(records, rejected);
    const { leaf, broken } = chooseLeaf(attached);
    if (broken.length === 0) return finish(attached, leaf, [...rejected.values()]);
    for (const summary of broken) {
      const index = records.findIndex((record) => record.type === 'node' && record.node.id === summary.id);
      const reason = `condensation summary ${summary.id} keeps a tail from ${summary.condenses!.firstKept}, which is not one of its ancestors: its context cannot be rebuilt`;
      rejected.set(summary.id, { id: summary.id, index, reason });
    }
  }
}

type Attached = {
  nodes: Map<string, SessionNode>;
  /** Nodes waiting for their parent, by the parent's id; empty for any file this store wrote whole. */
  waiting: Map<string, Array<{ node: SessionNode; index: number }>>;
  leafPositions: Array<string | null>;
  /** Intact nodes outside the graph (their ancestry is broken), first record wins; built when needed. */
  detached: Map<string, SessionNode> | null;
};

function attach(records: readonly SessionRecord[], rejected: Map<string, RejectedNode>): Attached {
  const nodes = new Map<string, SessionNode>();
  const waiting = new Map<string, Array<{ node: SessionNode; index: number }>>();
  const leafPositions: Array<string | null> = [];
  // Most nodes follow the node just inserted; comparing with it spares a map lookup on the hot path.
  let previous: string | null = null;
  for (let index = 0; index < records.length; index++) {
    const record = records[index];
    // A start moves no leaf: it only says a call was about to run (SessionGraph counts them).
    if (record.type === 'started') continue;
    if (record.type !== 'node') {
      leafPositions.push(record.leaf);
      continue;
    }
    const node = record.node;
    leafPositions.push(node.id);
    if (nodes.has(node.id) || (rejected.size > 0 && rejected.has(node.id))) continue;
    if (node.parent === null || node.parent === previous || nodes.has(node.parent)) {
      insertReleasing(nodes, node, waiting);
      previous = node.id;
    } else {
      const queue = waiting.get(node.parent);
      if (queue === undefined) waiting.set(node.parent, [{ node, index }]);
      else queue.push({ node, index });
    }
  }
  return { nodes, waiting, leafPositions, detached: null };
}

/** Inserts `node`, then every waiting descendant it makes attachable (iteratively: chains can be long). */
function insertReleasing(nodes: Map<string, SessionNode>, node: SessionNode, waiting: Attached['waiting']): void {
  nodes.set(node.id, node);
  if (waiting.size === 0) return;
  const released = [node.id];
  while (released.length > 0) {
    const id = released.pop()!;
    const queue = waiting.get(id);
    if (queue === undefined) continue;
    waiting.delete(id);
    for (const entry of queue) {
      if (nodes.has(entry.node.id)) continue;
      nodes.set(entry.node.id, entry.node);
      released.push(entry.node.id);
    }
  }
}

function lookupIn(attached: Attached): (id: string) => SessionNode | undefined {
  if (attached.waiting.size === 0) return (id) => attached.nodes.get(id);
  if (attached.detached === null) {
    const detached = new Map<string, { node: SessionNode; index: number }>();
    for (const queue of attached.waiting.values()) {
      for (const entry of queue) {
        const known = detached.get(entry.node.id);
        if (known === undefined || entry.index < known.index) detached.set(entry.node.id, entry);
      }
    }
    attached.detached = new Map([...detached].map(([id, entry]) => [id, entry.node]));
  }
  const { nodes, detached } = attached;
  return (id) => nodes.get(id) ?? detached.get(id);
}

/** The leaf (see `restoreRecords`), and the broken summaries met on the way to it. */
function chooseLeaf(attached: Attached): { leaf: string | null; broken: SessionNode[] } {
  const positions = attached.leafPositions;
  if (positions.length === 0) return { leaf: null, broken: [] };
  const recorded = positions[positions.length - 1];
  if (recorded === null) return { leaf: null, broken: [] };
  const lookup = lookupIn(attached);
  // The common case, an intact file: one walk from the leaf, with nothing remembered.
  const first = contextChain(recorded, lookup);
  if (first.ok) return { leaf: recorded, broken: [] };

  const broken = new Set<SessionNode>();
  if ('broken' in first) broken.add(first.broken);
  const memo = new Map<string, Status>();
  const status = (id: string): Status => {
    const path: string[] = [];
    let result: Status;
    for (let current = id; ;) {
      const known = memo.get(current);
      if (known !== undefined) {
        result = known;
        break;
      }
      const node = lookup(current);
      if (node === undefined) {
        result = { missing: current };
        break;
      }
      path.push(current);
      if (node.condenses !== undefined) {
        const chain = contextChain(current, lookup);
        result = chain.ok ? 'ok' : 'broken' in chain ? { broken: chain.broken } : { missing: chain.missing };
        break;
      }
      if (node.parent === null) {
        result = 'ok';
        break;
      }
      current = node.parent;
    }
    for (const id of path) memo.set(id, result);
    return result;
  };
  for (let i = positions.length - 2; i >= 0; i--) {
    const candidate = positions[i];
    if (candidate === null) return { leaf: null, broken: [...broken] };
    if (candidate === recorded) continue;
    const found = status(candidate);
    if (found === 'ok') return { leaf: candidate, broken: [...broken] };
    if ('broken' in found) broken.add(found.broken);
  }
  return { leaf: null, broken: [...broken] };
}

function finish(attached: Attached, leaf: string | null, rejected: RejectedNode[]): Restored {
  const { nodes, waiting } = attached;
  const recorded = attached.leafPositions.at(-1) ?? null;
  // A leaf whose context is whole but whose older history is damaged keeps its intact ancestors.
  if (leaf !== null && !nodes.has(leaf)) {
    const lookup = lookupIn(attached);
    const kept: SessionNode[] = [];
    for (let node = lookup(leaf); node !== undefined; node = node.parent === null ? undefined : lookup(node.parent)) kept.push(node);
    for (let i = kept.length - 1; i >= 0; i--) nodes.set(kept[i].id, kept[i]);
  }
  const orphans: OrphanNode[] = [];
  const seen = new Set<string>();
  for (const [parent, queue] of waiting) {
    for (const { node, index } of queue) {
      if (seen.has(node.id) || nodes.has(node.id)) continue;
      seen.add(node.id);
      orphans.push({ id: node.id, parent, index });
    }
  }
  orphans.sort((a, b) => a.index - b.index);
  rejected.sort((a, b) => a.index - b.index);
  const leafFallback = recorded !== null && leaf !== recorded ? { recorded, restored: leaf } : null;
  return { nodes, leaf, orphans, leafFallback, rejected };
}
