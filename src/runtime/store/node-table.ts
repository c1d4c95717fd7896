import type { SessionNode } from '../contract/session.js';
import { ChildIndex } from './child-index.js';

/**
 * A graph's nodes by id, and its children index. A live-path graph's nodes come as a plain array (first
 * of each id wins) and are indexed by id only when something asks for them by id: resuming needs only the
 * chain at the leaf, so a read-only resume never pays for hashing every id into a map.
 */
export class NodeTable {
  // Null while `unindexed` holds the nodes.
  private byId: Map<string, SessionNode> | null;
  private unindexed: readonly SessionNode[];
  private readonly childIndex = new ChildIndex();

  constructor(nodes: Map<string, SessionNode> | readonly SessionNode[] = new Map()) {
    this.byId = nodes instanceof Map ? nodes : null;
    this.unindexed = nodes instanceof Map ? [] : nodes;
  }

  /** The nodes by id, indexed now if they were not. */
  get map(): Map<string, SessionNode> {
    if (this.byId === null) {
      const map = new Map<string, SessionNode>();
      for (const node of this.unindexed) if (!map.has(node.id)) map.set(node.id, node);
      this.byId = map;
      this.unindexed = [];
    }
    return this.byId;
  }

  /** Every node held, without indexing them (an id given twice may come twice). */
  held(): Iterable<SessionNode> {
    return this.byId === null ? this.unindexed : this.byId.values();
  }

  /** The children by parent id (null: the roots). */
  children(): ReadonlyMap<string | null, readonly SessionNode[]> {
    return this.childIndex.over(this.map);
  }

  add(node: SessionNode): void {
    this.map.set(node.id, node);
    this.childIndex.added(node);
  }

  /** Replaces every node (the whole session was loaded). */
  replace(nodes: Map<string, SessionNode>): void {
    this.byId = nodes;
    this.unindexed = [];
    this.childIndex.drop();
  }
}
