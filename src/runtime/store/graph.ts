import type { Turn } from '../contract/turn.js';
import type { ModelUsage } from '../contract/model.js';
import type { SessionNode, SessionRecord } from '../contract/session.js';
import type { GuardrailTrip } from '../contract/guardrail.js';
import { sumUsage } from '../usage/sum.js';
import { InvalidTurnError, SessionIntegrityError, UnknownNodeError } from './errors.js';
import { chainError, chainTurns, contextChain, type OkChain } from './context-chain.js';
import type { LeafFallback, OrphanNode, RejectedNode } from './restore.js';
import { newNode, nodeIdentity, type AppendExtra } from './new-node.js';
import { mergeWhole, type LiveRest, type LivePathOptions } from './live-rest.js';
import { NodeTable } from './node-table.js';
import { NodeRecord } from './record-line.js';
import { livePathSeed, restoredSeed, restoreProblems, type GraphSeed } from './graph-seed.js';

/** Keys `SessionGraph`'s append for a writer (see `SessionWriter.append`); the package keeps it to itself. */
export const addRecorded: unique symbol = Symbol('SessionGraph.addRecorded');

/** What `SessionGraph.restore` rebuilt, and what it could not. */
export type RestoredGraph = {
  graph: SessionGraph;
  /** Nodes whose ancestry is broken (their parent, or one of its ancestors, is missing). Not in the graph. */
  orphans: OrphanNode[];
  /**
   * Set when the model context at the records' last leaf position cannot be built (a node it needs is
   * missing, or its condensation is broken): `restored` is the most recent earlier leaf position whose
   * context can (or null), which the graph's leaf is set to.
   */
  leafFallback: LeafFallback | null;
  /**
   * Condensation summaries treated as damaged records although they decoded: their `firstKept` is not
   * one of their ancestors, so no context through them can be rebuilt. Not in the graph; their
   * descendants are orphans.
   */
  rejected: RejectedNode[];
};

/**
 * A session's history as a content-addressed DAG of turns. Appends go under the current leaf; moving the
 * leaf (`branchFrom`, `resume`) and appending again forks. A pure in-memory structure, built from stored
 * records, that does no I/O of its own: a `SessionWriter` turns its changes into records for a store.
 *
 * A graph holds the whole DAG (`whole` is true: `new SessionGraph`, `restore`, `fromRecords`) or only its
 * live path (`fromLivePath`: the model context at the leaf, and what is appended), which is all resuming
 * and appending need. Methods that need more load the rest through the `rest` function it was given, on
 * first use (see docs/sessions.md, "Graphs that hold only the live path").
 */
export class SessionGraph {
  readonly sessionId: string;
  private table = new NodeTable();
  private currentLeaf: string | null = null;
  // How often each call was recorded as about to run (approved, or run again).
  private starts = new Map<string, number>();
  // Set while the graph holds only its live path.
  private rest: LiveRest | null = null;
  // The last context chain built: a node's ancestry never changes, so it stays right. Resuming asks for
  // the chain at the leaf several times (the load checks it, then the context and its node ids).
  private chained: { id: string; chain: OkChain } | null = null;
  // The trip the last head record carried, until the leaf moves on.
  private trip: GuardrailTrip | null = null;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** The nodes by id, indexed on first use (see `NodeTable`). */
  private get nodes(): Map<string, SessionNode> {
    return this.table.map;
  }

  /** The live leaf: where the next `append` goes. Null for an empty session. */
  get leaf(): string | null {
    return this.currentLeaf;
  }

  /**
   * The guardrail trip standing at the leaf: a head record that moved the leaf back because the run after
   * it tripped carries one (`SessionWriter.trip`); any later move of the leaf (an append, `branchFrom`,
   * another head) clears it. Undefined when none stands.
   */
  get tripped(): GuardrailTrip | undefined {
    return this.trip ?? undefined;
  }

  /** True when the graph holds every node of its session; false while it holds only its live path. */
  get whole(): boolean {
    return this.rest === null;
  }

  /** Number of nodes. Loads the whole session first if only the live path is held. */
  get size(): number {
    return this.wholeNodes().size;
  }

  /**
   * Records that the calls `callIds` are about to run once more (an approved call, a call run again
   * after a crash), so that after another crash they count as possibly run: never offered for approval
   * again, never run again more than once.
   */
  markStarted(callIds: readonly string[]): void {
    if (!callIds.every((id) => typeof id === 'string' && id !== ''))
      throw new InvalidTurnError('a started call id must be a non-empty string');
    for (const id of callIds) this.starts.set(id, (this.starts.get(id) ?? 0) + 1);
  }

  /**
   * How many times call `callId` was recorded as started, in this process or before. A graph holding
   * only its live path knows this for the calls of that path; for any other call it loads the whole
   * session first.
   */
  startsOf(callId: string): number {
    if (this.rest !== null && !this.rest.calls.has(callId)) this.wholeNodes();
    return this.starts.get(callId) ?? 0;
  }

  /** The node with this id. A graph holding only its live path looks beyond it by loading the whole session. */
  node(id: string): SessionNode | undefined {
    return this.lookup(id);
  }

  has(id: string): boolean {
    return this.lookup(id) !== undefined;
  }

  /** Every node, in the order it was added. Loads the whole session first if only the live path is held. */
  allNodes(): IterableIterator<SessionNode> {
    return this.wholeNodes().values();
  }

  /**
   * Tokens billed over the whole session: the `usage` of every node, forks and summaries included,
   * whether or not the live path still reaches it. That is what the API charged for, branch or not.
   * A graph holding only its live path answers from the total its store gave, without loading.
   */
  usageTotal(): ModelUsage {
    const known = this.rest?.usage;
    if (known !== undefined && known !== null) return { ...known };
    return sumUsage(Array.from(this.wholeNodes().values(), (node) => node.usage));
  }

  /** The children of `id` in the order they were added; `null` gives the roots. Needs the whole session. */
  children(id: string | null): SessionNode[] {
    this.wholeNodes();
    if (id !== null) this.require(id);
    return [...(this.table.children().get(id) ?? [])];
  }

  /** Every node without children (the end of each branch), in the order the nodes were added. Needs the whole session. */
  tips(): SessionNode[] {
    const nodes = this.wholeNodes();
    const index = this.table.children();
    return [...nodes.values()].filter((node) => !index.has(node.id));
  }

  /**
   * Loads every node of the session into a graph that holds only its live path (nothing to do for a
   * whole graph). Nodes already held keep their identity; the leaf is untouched.
   */
  async loadWhole(): Promise<void> {
    const rest = this.rest;
    if (rest === null) return;
    const records = await rest.load();
    if (this.rest === rest) this.adopt(records);
  }

  /**
   * Adds `turn` under the current leaf and moves the leaf to it. The node id is `hashNode({ parent, turn, at })`,
   * so appending the same turn with the same parent and timestamp again returns the existing node (its
   * `condenses` marker is kept as first stored; a graph holding only its live path knows the nodes it
   * holds). The graph stores a JSON copy of `turn`: later changes to the caller's object do not reach it.
   */
  append(turn: Turn, at: number = Date.now(), extra?: AppendExtra): SessionNode {
    return this.add(turn, at, extra).node;
  }

  /** `append`, saying whether the node is new to the graph (false: the same turn was appended there before). */
  add(turn: Turn, at: number = Date.now(), extra?: AppendExtra): { node: SessionNode; added: boolean } {
    const { node, record } = this[addRecorded](turn, at, extra);
    return { node, added: record !== null };
  }

  /**
   * `add` for a writer: the new node's record, carrying the texts the node was serialized to (see
   * `NodeRecord`), or null when the graph held the node already. Keyed by a symbol the package keeps to
   * itself, so it is no part of the graph's public face.
   */
  [addRecorded](turn: Turn, at: number, extra: AppendExtra | undefined): { node: SessionNode; record: NodeRecord | null } {
    const parent = this.currentLeaf;
    const made = nodeIdentity(parent, turn, at);
    const existing = this.nodes.get(made.id);
    this.trip = null;
    if (existing !== undefined) {
      this.currentLeaf = existing.id;
      return { node: existing, record: null };
    }
    const node = newNode(this.sessionId, made, parent, at, extra, (id) => this.lookup(id));
    this.insert(node);
    this.currentLeaf = node.id;
    return { node, record: new NodeRecord(node, made.texts) };
  }

  /**
   * Applies stored records, as a load replays them: a node record adds its node as it is (no copy, no
   * re-hash) unless the graph holds it, and moves the leaf to it; a head record moves the leaf where it
   * says; a `started` record counts its calls. For a store that keeps a graph in step with its appends.
   */
  apply(records: Iterable<SessionRecord>): void {
    for (const record of records) {
      if (record.type === 'started') for (const id of record.callIds) this.starts.set(id, (this.starts.get(id) ?? 0) + 1);
      else if (record.type === 'head') {
        this.currentLeaf = record.leaf;
        this.trip = record.tripped ?? null;
      } else {
        if (!this.nodes.has(record.node.id)) this.insert(record.node);
        this.currentLeaf = record.node.id;
        this.trip = null;
      }
    }
  }

  /**
   * Moves the leaf to `id` without adding a turn, so the next `append` forks from there; `null` moves it
   * before the first turn, so the next `append` starts a new root (a first prompt asked again). Recorded
   * as a head move.
   */
  branchFrom(id: string | null): void {
    if (id !== null) this.require(id);
    this.moveLeaf(id);
  }

  /** Moves the leaf to `id` and returns the model context there (see `contextTo`). */
  resume(id: string): Turn[] {
    const context = this.contextTo(id);
    this.moveLeaf(id);
    return context;
  }

  /**
   * The turns a model should see at `id`. Equal to `pathTo(id)` unless a node on the path carries a
   * `condenses` marker; then the latest such node wins and the context is
   * `[summary, ...kept tail (firstKept up to the summary's parent), ...turns after the summary]`.
   * Older summaries inside a kept tail are left out: the newer summary already covers them.
   * The walk goes upward from `id` and stops at the kept tail, so it costs the turns since the last
   * condensation (plus the tail), not the depth of the session.
   */
  contextTo(id: string): Turn[] {
    return chainTurns(this.chainTo(id));
  }

  /**
   * The nodes `contextTo(id)` is built from, root side first: from the latest condensation's first kept
   * turn (or the root) to `id`, older summaries inside the kept tail included. What a store must hold
   * to resume at `id` (see `fromLivePath`).
   */
  contextNodes(id: string): SessionNode[] {
    return this.chainTo(id).nodes.slice().reverse();
  }

  /** Every turn from the root to `id`, condensation summaries included. Costs the depth of `id`. */
  pathTo(id: string): Turn[] {
    return this.nodesTo(id).map((node) => node.turn);
  }

  /**
   * Every node from the root to `id`. If damage cut the path (see the load report), it starts at the
   * oldest node still intact. A graph holding only its live path loads the whole session when the path
   * leaves it.
   */
  nodesTo(id: string): SessionNode[] {
    const path: SessionNode[] = [];
    for (let current: SessionNode | undefined = this.require(id); current !== undefined;) {
      path.push(current);
      current = current.parent === null ? undefined : this.lookup(current.parent);
    }
    return path.reverse();
  }

  /**
   * Rebuilds a graph from stored records. A node record moves the leaf to its node (as `append` did), a
   * head record moves it where it says; records may come in any order. Nodes whose parent never arrives
   * are returned as orphans, never silently dropped. The leaf is the last one the records name if the
   * model context there can be built, else the most recent earlier one whose context can
   * (`leafFallback`); see docs/sessions.md, "The load report".
   */
  static restore(sessionId: string, records: Iterable<SessionRecord>): RestoredGraph {
    const { seed, orphans, leafFallback, rejected } = restoredSeed(records);
    return { graph: SessionGraph.seeded(sessionId, seed), orphans, leafFallback, rejected };
  }

  /** Like `restore`, but throws `SessionIntegrityError` unless every node attaches and the leaf is intact. */
  static fromRecords(sessionId: string, records: Iterable<SessionRecord>): SessionGraph {
    const { graph, ...damage } = SessionGraph.restore(sessionId, records);
    const problems = restoreProblems(damage);
    if (problems.length > 0) throw new SessionIntegrityError(sessionId, problems);
    return graph;
  }

  /**
   * A graph that holds only its live path: the node records of `records` must include the model
   * context at `options.leaf` (`contextNodes(leaf)` of the whole graph; more is allowed), in any order,
   * and its `started` records count the calls of those nodes. Resuming and appending need nothing more;
   * methods that do load the rest through `options.rest`. How a store resumes without reading a whole
   * session (`readLivePath`). Throws `SessionIntegrityError` when the nodes do not hold that context.
   */
  static fromLivePath(sessionId: string, records: Iterable<SessionRecord>, options: LivePathOptions): SessionGraph {
    return SessionGraph.seeded(sessionId, livePathSeed(sessionId, records, options));
  }

  /** A graph that starts from `seed` (see graph-seed.ts: how a graph is built from stored records). */
  private static seeded(sessionId: string, seed: GraphSeed): SessionGraph {
    const graph = new SessionGraph(sessionId);
    graph.table = seed.table;
    graph.currentLeaf = seed.leaf;
    graph.trip = seed.trip;
    graph.starts = seed.starts;
    graph.chained = seed.chained;
    graph.rest = seed.rest;
    return graph;
  }

  /** Moves the leaf; a trip stands only where its head put the leaf. */
  private moveLeaf(id: string | null): void {
    if (id !== this.currentLeaf) this.trip = null;
    this.currentLeaf = id;
  }

  /** The node with this id, loading the whole session first when it is not held and might be elsewhere. */
  private lookup(id: string): SessionNode | undefined {
    const node = this.nodes.get(id);
    if (node !== undefined || this.rest === null) return node;
    return this.wholeNodes().get(id);
  }

  private require(id: string): SessionNode {
    const node = this.lookup(id);
    if (node === undefined) throw new UnknownNodeError(this.sessionId, id);
    return node;
  }

  private chainTo(id: string): OkChain {
    if (this.chained?.id === id) return this.chained.chain;
    const chain = contextChain(id, (nodeId) => this.lookup(nodeId));
    if (!chain.ok) throw chainError(this.sessionId, id, chain);
    this.chained = { id, chain };
    return chain;
  }

  /** Every node of the session, loading the rest synchronously when only the live path is held. */
  private wholeNodes(): Map<string, SessionNode> {
    if (this.rest !== null) this.adopt(this.rest.loadSync(this.sessionId));
    return this.nodes;
  }

  private adopt(records: readonly SessionRecord[]): void {
    this.table.replace(mergeWhole(this.nodes, this.starts, records));
    this.rest = null;
  }

  private insert(node: SessionNode): void {
    this.table.add(node);
    this.rest?.added(node);
  }
}
