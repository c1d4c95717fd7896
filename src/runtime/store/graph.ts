import type { Turn } from '../contract/turn.js';
import type { ModelUsage } from '../contract/model.js';
import type { SessionNode, SessionRecord } from '../contract/session.js';
import { assertUsage } from '../usage/check.js';
import { addUsage, sumUsage } from '../usage/sum.js';
import {
  BrokenCondensationError,
  GraphNotLoadedError,
  InvalidTurnError,
  MissingHistoryError,
  SessionIntegrityError,
  UnknownNodeError,
} from './errors.js';
import { hashNode } from './hash.js';
import { turnProblem } from './records.js';
import { chainTurns, contextChain, type ContextChain } from './context-chain.js';
import { restoreRecords, type LeafFallback, type OrphanNode, type RejectedNode } from './restore.js';

/** Marks a condensation summary node: the verbatim tail it keeps starts at `firstKept` (null: keeps none). */
export type CondensationMarker = { firstKept: string | null };

/** Stored on the node, outside its id: `usage` and `model` record what the call that produced the turn was billed. */
export type AppendExtra = { condenses?: CondensationMarker; usage?: ModelUsage; model?: string };

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
 * Where a graph that holds only its live path gets the rest of its session from, when a caller asks
 * for more than the live path (a tree view, an export, an old branch).
 */
export interface SessionGraphSource {
  /** The whole session as stored now. */
  loadAll(): Promise<WholeSession>;
  /**
   * The same, synchronously, for the methods that cannot wait (`children`, `size`, ...). Without it
   * those methods throw `GraphNotLoadedError` until `loadWhole()` has run.
   */
  loadAllSync?(): WholeSession;
}

/** What a `SessionGraphSource` gives: everything a whole load of the session holds. */
export type WholeSession = {
  /** Every node of the session, parents before children, in the order a whole load adds them. */
  nodes: Iterable<SessionNode>;
  /** How many `started` records name each call, every branch (what `startsOf` answers after a whole load). */
  starts: ReadonlyMap<string, number>;
};

/** How `SessionGraph.fromLivePath` builds a graph that holds only its live path. */
export type LivePathOptions = {
  /** The live leaf; its whole model context must be among the nodes given. */
  leaf: string | null;
  /** Where the rest of the session comes from, when asked for. */
  source: SessionGraphSource;
  /**
   * Usage billed over the whole session, every branch (what `usageTotal()` returns until more is
   * loaded, plus what is appended). Without it, `usageTotal()` loads the whole session.
   */
  usageTotal?: ModelUsage;
  /**
   * How often each call of the nodes given was recorded as started (`startsOf`). Counts for calls
   * outside those nodes are ignored: `startsOf` loads the whole session to answer for those.
   */
  starts?: Iterable<[callId: string, count: number]>;
};

/**
 * A session's history as a content-addressed DAG of turns. Appends go under the current leaf; moving the
 * leaf (`branchFrom`, `resume`) and appending again forks. Every change since the graph was loaded is
 * kept as unsaved records for a store to persist (`takeUnsaved`).
 *
 * A graph can hold the whole DAG (`whole` is true: `new SessionGraph`, `restore`, `fromRecords`) or only
 * its live path (`fromLivePath`: the model context at the leaf, and what is appended). The live path is
 * all that resuming, appending and persisting need. Methods that need more load the rest from the
 * graph's source on first use (see docs/sessions.md, "Graphs that hold only the live path").
 */
export class SessionGraph {
  readonly sessionId: string;
  private nodes = new Map<string, SessionNode>();
  // Children by parent id (null: the roots). Built on the first tree-view call, then kept up to date:
  // loading and resuming, the hot path, never pay for it.
  private childIndex: Map<string | null, SessionNode[]> | null = null;
  private currentLeaf: string | null = null;
  private unsavedNodes: SessionRecord[] = [];
  // How often each call was recorded as about to run (approved, or run again), and the starts not yet persisted.
  private readonly starts = new Map<string, number>();
  private unsavedStarts: string[] = [];
  // The leaf the backing store last recorded; undefined when unknown (a write failed midway).
  private savedLeaf: string | null | undefined = null;
  // Set while the graph holds only its live path: where the rest comes from.
  private source: SessionGraphSource | null = null;
  // While only the live path is held: the usage over the whole session, when the source gave it.
  private knownUsage: ModelUsage | null = null;
  // While only the live path is held: the calls of the nodes held, the ones `starts` counts exactly.
  private heldCalls: Set<string> | null = null;

  constructor(sessionId: string) {
    this.sessionId = sessionId;
  }

  /** The live leaf: where the next `append` goes. Null for an empty session. */
  get leaf(): string | null {
    return this.currentLeaf;
  }

  /** True when the graph holds every node of its session; false while it holds only its live path. */
  get whole(): boolean {
    return this.source === null;
  }

  /** Number of nodes. Loads the whole session first if only the live path is held. */
  get size(): number {
    return this.wholeNodes().size;
  }

  /** True when `takeUnsaved` would return records. */
  get hasUnsaved(): boolean {
    return this.unsavedNodes.length > 0 || this.unsavedStarts.length > 0 || this.currentLeaf !== this.savedLeaf;
  }

  /**
   * Records that the calls `callIds` are about to run once more (an approved call, a call run again
   * after a crash), so that after another crash they count as possibly run: never offered for
   * approval again, never run again more than once. A start written twice (a persist retried after a
   * failed write) counts twice, which errs toward not running a call again.
   */
  markStarted(callIds: readonly string[]): void {
    for (const id of callIds) {
      if (typeof id !== 'string' || id === '') throw new InvalidTurnError('a started call id must be a non-empty string');
      this.starts.set(id, (this.starts.get(id) ?? 0) + 1);
      this.unsavedStarts.push(id);
    }
  }

  /**
   * How many times `markStarted` recorded call `callId`, in this process or before. A graph holding
   * only its live path knows this for the calls of that path; for any other call it loads the whole
   * session first.
   */
  startsOf(callId: string): number {
    if (this.heldCalls !== null && !this.heldCalls.has(callId)) this.wholeNodes();
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
   * A graph holding only its live path answers from the total its source gave, without loading.
   */
  usageTotal(): ModelUsage {
    if (this.knownUsage !== null) return { ...this.knownUsage };
    return sumUsage(Array.from(this.wholeNodes().values(), (node) => node.usage));
  }

  /** The children of `id` in the order they were added; `null` gives the roots. Needs the whole session. */
  children(id: string | null): SessionNode[] {
    this.wholeNodes();
    if (id !== null) this.require(id);
    return [...(this.childIndexBuilt().get(id) ?? [])];
  }

  /** Every node without children (the end of each branch), in the order the nodes were added. Needs the whole session. */
  tips(): SessionNode[] {
    const nodes = this.wholeNodes();
    const index = this.childIndexBuilt();
    const tips: SessionNode[] = [];
    for (const node of nodes.values()) if (!index.has(node.id)) tips.push(node);
    return tips;
  }

  /**
   * Loads every node of the session into a graph that holds only its live path (nothing to do for a
   * whole graph). Nodes already held keep their identity; the leaf and unsaved records are untouched.
   */
  async loadWhole(): Promise<void> {
    const source = this.source;
    if (source === null) return;
    const all = await source.loadAll();
    if (this.source === source) this.adopt(all);
  }

  /**
   * Adds `turn` under the current leaf and moves the leaf to it. The node id is `hashNode({ parent, turn, at })`,
   * so appending the same turn with the same parent and timestamp again returns the existing node (its
   * `condenses` marker is kept as first stored; a graph holding only its live path knows the nodes it holds).
   * The graph stores a JSON copy of `turn`: later changes to the caller's object do not reach it, and what
   * is stored is exactly what a reload will see.
   */
  append(turn: Turn, at: number = Date.now(), extra?: AppendExtra): SessionNode {
    if (typeof at !== 'number' || !Number.isFinite(at)) throw new InvalidTurnError(`"at" must be a finite number, got ${String(at)}`);
    const raw = jsonCopy(turn);
    const problem = turnProblem(raw);
    if (problem !== null) throw new InvalidTurnError(problem);
    const copy = raw as Turn;
    const parent = this.currentLeaf;
    const id = hashNode({ parent, turn: copy, at });
    const existing = this.nodes.get(id);
    if (existing !== undefined) {
      this.currentLeaf = id;
      return existing;
    }
    const node: SessionNode = { id, parent, turn: copy, at };
    const condenses = extra?.condenses;
    if (condenses !== undefined) {
      this.assertKeepsAncestor(id, parent, condenses);
      node.condenses = { firstKept: condenses.firstKept };
    }
    if (extra?.usage !== undefined) {
      assertUsage(extra.usage);
      node.usage = { ...extra.usage };
    }
    if (extra?.model !== undefined) {
      if (typeof extra.model !== 'string' || extra.model === '') throw new InvalidTurnError('"model" must be a non-empty model id');
      node.model = extra.model;
    }
    this.insert(node);
    if (this.knownUsage !== null && node.usage !== undefined) addUsage(this.knownUsage, node.usage);
    if (this.heldCalls !== null) addCalls(this.heldCalls, node);
    this.currentLeaf = id;
    this.unsavedNodes.push({ type: 'node', node });
    return node;
  }

  /** Moves the leaf to `id` without adding a turn, so the next `append` forks from there. Recorded as a head move. */
  branchFrom(id: string): void {
    this.require(id);
    this.currentLeaf = id;
  }

  /** Moves the leaf to `id` and returns the model context there (see `contextTo`). */
  resume(id: string): Turn[] {
    const context = this.contextTo(id);
    this.currentLeaf = id;
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
    for (let current = this.require(id); ;) {
      path.push(current);
      const parent = current.parent === null ? undefined : this.lookup(current.parent);
      if (parent === undefined) break;
      current = parent;
    }
    return path.reverse();
  }

  /**
   * Returns and forgets the records added since the graph was loaded or last taken: new nodes in append
   * order, then one head record when the leaf differs from the one last recorded. A store that fails to
   * write them must hand them back with `restoreUnsaved`.
   */
  takeUnsaved(): SessionRecord[] {
    const records = this.unsavedNodes;
    this.unsavedNodes = [];
    // After the nodes they refer to, before the head: one record for every start since the last take.
    if (this.unsavedStarts.length > 0) {
      records.push({ type: 'started', callIds: this.unsavedStarts });
      this.unsavedStarts = [];
    }
    // A node record moves the replayed leaf to its node, so after new nodes a head is needed unless the
    // leaf is the last of them (it may have been moved back with `branchFrom` since they were appended).
    const lastNode = records.findLast((record) => record.type === 'node');
    const last = lastNode === undefined ? undefined : lastNode.node.id;
    if (this.currentLeaf !== this.savedLeaf || (last !== undefined && last !== this.currentLeaf)) {
      records.push({ type: 'head', leaf: this.currentLeaf });
      this.savedLeaf = this.currentLeaf;
    }
    return records;
  }

  /** Puts back records taken by `takeUnsaved` that were not (or not surely) written, ahead of newer ones. */
  restoreUnsaved(records: SessionRecord[]): void {
    const nodes = records.filter((record) => record.type === 'node');
    this.unsavedNodes = [...nodes, ...this.unsavedNodes];
    const starts = records.flatMap((record) => (record.type === 'started' ? record.callIds : []));
    this.unsavedStarts = [...starts, ...this.unsavedStarts];
    // The head may or may not have reached the file: write one again next time whatever the leaf is.
    if (records.some((record) => record.type === 'head')) this.savedLeaf = undefined;
  }

  /**
   * Rebuilds a graph from stored records, marking nothing unsaved. A node record moves the leaf to its
   * node (as `append` did), a head record moves it where it says; records may come in any order.
   * Nodes whose parent never arrives are returned as orphans, never silently dropped. The leaf is the
   * last one the records name if the model context there can be built, else the most recent earlier
   * one whose context can (`leafFallback`); see docs/sessions.md, "The load report".
   */
  static restore(sessionId: string, records: Iterable<SessionRecord>): RestoredGraph {
    const list = Array.isArray(records) ? records : [...records];
    const restored = restoreRecords(list);
    const graph = new SessionGraph(sessionId);
    graph.nodes = restored.nodes;
    graph.currentLeaf = restored.leaf;
    for (const [id, count] of countStarts(list)) graph.starts.set(id, count);
    // Only a deliberate change (an append, a leaf move) records a new head: merely loading and saving
    // a damaged session must not make the fallback permanent and hide that the live path was cut.
    graph.savedLeaf = restored.leaf;
    return { graph, orphans: restored.orphans, leafFallback: restored.leafFallback, rejected: restored.rejected };
  }

  /** Like `restore`, but throws `SessionIntegrityError` unless every node attaches and the leaf is intact. */
  static fromRecords(sessionId: string, records: Iterable<SessionRecord>): SessionGraph {
    const { graph, orphans, leafFallback, rejected } = SessionGraph.restore(sessionId, records);
    const problems = orphans.map((orphan) => `node ${orphan.id} has no parent ${orphan.parent}`);
    for (const summary of rejected) problems.push(summary.reason);
    if (leafFallback !== null) problems.push(`the context at the leaf ${leafFallback.recorded} cannot be rebuilt`);
    if (problems.length > 0) throw new SessionIntegrityError(sessionId, problems);
    return graph;
  }

  /**
   * A graph that holds only its live path: `nodes` must include the model context at `options.leaf`
   * (`contextNodes(leaf)` of the whole graph; more is allowed), in any order. Nothing is marked unsaved.
   * Resuming, appending and persisting need nothing more; methods that do load the rest from
   * `options.source`. How a store resumes without reading a whole session: the file store builds its
   * graphs this way, and a database store can too. Throws `SessionIntegrityError` when the nodes do not
   * hold that context.
   */
  static fromLivePath(sessionId: string, nodes: Iterable<SessionNode>, options: LivePathOptions): SessionGraph {
    const graph = new SessionGraph(sessionId);
    for (const node of nodes) if (!graph.nodes.has(node.id)) graph.nodes.set(node.id, node);
    if (options.leaf !== null) {
      const chain = contextChain(options.leaf, (id) => graph.nodes.get(id));
      if (!chain.ok) {
        const problem =
          'missing' in chain
            ? `node ${chain.missing} is missing`
            : `condensation ${chain.broken.id} keeps a tail from a node that is not its ancestor`;
        throw new SessionIntegrityError(sessionId, [`the nodes do not hold the context at the leaf ${options.leaf}: ${problem}`]);
      }
    }
    graph.currentLeaf = options.leaf;
    graph.savedLeaf = options.leaf;
    graph.source = options.source;
    graph.knownUsage = options.usageTotal === undefined ? null : { ...options.usageTotal };
    const held = new Set<string>();
    for (const node of graph.nodes.values()) addCalls(held, node);
    for (const [callId, count] of options.starts ?? []) if (held.has(callId)) graph.starts.set(callId, count);
    graph.heldCalls = held;
    return graph;
  }

  /** The node with this id, loading the whole session first when it is not held and might be elsewhere. */
  private lookup(id: string): SessionNode | undefined {
    const node = this.nodes.get(id);
    if (node !== undefined || this.source === null) return node;
    return this.wholeNodes().get(id);
  }

  private require(id: string): SessionNode {
    const node = this.lookup(id);
    if (node === undefined) throw new UnknownNodeError(this.sessionId, id);
    return node;
  }

  private chainTo(id: string): Extract<ContextChain, { ok: true }> {
    const chain = contextChain(id, (nodeId) => this.lookup(nodeId));
    if (chain.ok) return chain;
    if ('broken' in chain) throw new BrokenCondensationError(this.sessionId, chain.broken.id, chain.broken.condenses!.firstKept!);
    if (chain.missing === id) throw new UnknownNodeError(this.sessionId, id);
    throw new MissingHistoryError(this.sessionId, id, chain.missing);
  }

  /** Every node of the session, loading the rest synchronously when only the live path is held. */
  private wholeNodes(): Map<string, SessionNode> {
    const source = this.source;
    if (source !== null) {
      if (source.loadAllSync === undefined) throw new GraphNotLoadedError(this.sessionId);
      this.adopt(source.loadAllSync());
    }
    return this.nodes;
  }

  /**
   * Takes in the whole session: in the source's order, the nodes held keeping their identity. A call's
   * start count becomes the stored count plus the starts not yet taken for persisting; never less than
   * the graph counted (a start being written as the source read may be missing from what it read).
   */
  private adopt(whole: WholeSession): void {
    const unsaved = new Map<string, number>();
    for (const id of this.unsavedStarts) unsaved.set(id, (unsaved.get(id) ?? 0) + 1);
    for (const [id, stored] of whole.starts) this.starts.set(id, Math.max(this.starts.get(id) ?? 0, stored + (unsaved.get(id) ?? 0)));
    const merged = new Map<string, SessionNode>();
    for (const node of whole.nodes) if (!merged.has(node.id)) merged.set(node.id, this.nodes.get(node.id) ?? node);
    // What only this graph holds: appended since it was loaded (saved or not), or its live path where
    // the source no longer reaches it (damage above the latest condensation).
    for (const [id, node] of this.nodes) if (!merged.has(id)) merged.set(id, node);
    this.nodes = merged;
    this.childIndex = null;
    this.source = null;
    this.knownUsage = null;
    this.heldCalls = null;
  }

  private insert(node: SessionNode): void {
    this.nodes.set(node.id, node);
    if (this.childIndex !== null) indexChild(this.childIndex, node);
  }

  private childIndexBuilt(): Map<string | null, SessionNode[]> {
    if (this.childIndex === null) {
      const index = new Map<string | null, SessionNode[]>();
      for (const node of this.nodes.values()) indexChild(index, node);
      this.childIndex = index;
    }
    return this.childIndex;
  }

  /** A summary's kept tail must start on its own path, or its context could never be rebuilt. */
  private assertKeepsAncestor(id: string, parent: string | null, condenses: CondensationMarker): void {
    const firstKept = condenses?.firstKept;
    if (firstKept === null) return;
    if (typeof firstKept !== 'string') throw new InvalidTurnError('"condenses.firstKept" must be a node id or null');
    let walker = parent === null ? undefined : this.lookup(parent);
    while (walker !== undefined && walker.id !== firstKept) {
      walker = walker.parent === null ? undefined : this.lookup(walker.parent);
    }
    if (walker === undefined) throw new BrokenCondensationError(this.sessionId, id, firstKept);
  }
}

/** How many `started` records name each call. */
export function countStarts(records: Iterable<SessionRecord>): Map<string, number> {
  const starts = new Map<string, number>();
  for (const record of records) {
    if (record.type === 'started') for (const id of record.callIds) starts.set(id, (starts.get(id) ?? 0) + 1);
  }
  return starts;
}

function addCalls(calls: Set<string>, node: SessionNode): void {
  for (const block of node.turn.blocks) if (block.kind === 'tool_call') calls.add(block.id);
}

function indexChild(index: Map<string | null, SessionNode[]>, node: SessionNode): void {
  const siblings = index.get(node.parent);
  if (siblings === undefined) index.set(node.parent, [node]);
  else siblings.push(node);
}

function jsonCopy(turn: Turn): unknown {
  try {
    return JSON.parse(JSON.stringify(turn) ?? 'null');
  } catch (error) {
    throw new InvalidTurnError('the turn is not representable as JSON', { cause: error });
  }
}
