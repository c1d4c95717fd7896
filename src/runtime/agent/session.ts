import type { Turn } from '../contract/turn.js';
import type { ModelUsage } from '../contract/model.js';
import type { LoadReport, SessionNode } from '../contract/session.js';
import type { SessionGraph } from '../store/graph.js';
import type { SessionStoreLike } from '../store/types.js';
import { SessionWriter } from '../store/writer.js';
import { addUsage, zeroUsage } from '../usage/sum.js';
import { readCondensation } from './condensation.js';
import { BranchPointError, ContextReplacementError } from './errors.js';

/** Where an agent keeps one session's history while it works on it. */
export interface AgentSession {
  readonly id: string;
  /** The conversation as the model will next see it (condensation applied). Replaced after each run. */
  context: Turn[];
  /** What loading the session from its store found; undefined without a store or when the store cannot say. */
  readonly report: LoadReport | undefined;
  /** True when `persist` makes things durable (a store), so runs checkpoint every step. */
  readonly durable: boolean;
  /** Records calls as about to run once more; see `SessionGraph.markStarted`. */
  markStarted(callIds: string[]): void;
  startsOf(callId: string): number;
  /** Records a turn that joined the context; `billed` is what the model call that produced it cost. */
  append(turn: Turn, billed?: Billing): void;
  /**
   * Records a condensation of `previous` into `next` (see `readCondensation`); `billed`: the summarizer's
   * cost. Returns the nodes of the turns the summary replaced (none without a graph).
   */
  condense(previous: readonly Turn[], next: readonly Turn[], billed?: Billing): SessionNode[];
  /** The node ids of `turns`, as far as the session has them; undefined without a graph. */
  nodeIdsOf(turns: readonly Turn[]): string[] | undefined;
  /** The nodes of the live path that condensation took out of the context, oldest first (none without a graph). */
  condensedAway(): Promise<SessionNode[]>;
  /** Moves the live leaf to `nodeId` and makes the context the one there. */
  branchFrom(nodeId: string): Promise<void>;
  /** Tokens billed over the whole session, every branch, earlier runs included. */
  usageTotal(): ModelUsage;
  /** Makes everything recorded so far durable. */
  persist(): Promise<void>;
  /** Lets go of the session (the store's writer lock). */
  close(): Promise<void>;
}

/** Model calls' token usage and the model billed, stored on the node of the turn a call produced. */
export type Billing = { usage: ModelUsage; model: string };

/**
 * Without a store: the context is the whole history, kept in memory, with no graph behind it. A session
 * started from the caller's own `messages` records nothing, so any replacement of its context is
 * adopted; otherwise only a condensation is, as a store would require.
 */
export function memorySession(id: string, messages?: readonly Turn[]): AgentSession {
  const total = zeroUsage();
  const starts = new Map<string, number>();
  return {
    id,
    context: messages === undefined ? [] : messages.slice(),
    report: undefined,
    durable: false,
    markStarted(callIds) {
      for (const callId of callIds) starts.set(callId, (starts.get(callId) ?? 0) + 1);
    },
    startsOf: (callId) => starts.get(callId) ?? 0,
    append(_turn, billed) {
      if (billed !== undefined) addUsage(total, billed.usage);
    },
    condense(previous, next, billed) {
      if (messages === undefined) readCondensation(previous, next);
      if (billed !== undefined) addUsage(total, billed.usage);
      return [];
    },
    nodeIdsOf: () => undefined,
    condensedAway: async () => [],
    async branchFrom() {
      throw new BranchPointError(
        id,
        'the agent has no session store, so its turns have no node ids; pass a store (new MemorySessionStore() keeps one in memory)',
      );
    },
    usageTotal: () => ({ ...total }),
    persist: async () => {},
    close: async () => {},
  };
}

/**
 * A session in a `SessionStoreLike`, held through a `SessionWriter`: the store's writer lease taken, the
 * session read (its live path when the store offers one), every turn appended to the graph as it
 * settles, and the records not yet appended handed to the store when the agent persists (put back in
 * front when an append fails). `close` appends what is left, then releases the lease.
 */
export async function openStoredSession(store: SessionStoreLike, id: string): Promise<AgentSession> {
  const writer = await SessionWriter.open(store, id);
  const { graph, report } = writer;
  // The node behind each context turn, so a condensation can name the first turn it keeps.
  let nodeOf = new WeakMap<Turn, string>();
  const contextAt = (leaf: string | null): Turn[] => {
    const context = leaf === null ? [] : graph.resume(leaf);
    nodeOf = mapContextToNodes(graph, context);
    return context;
  };
  const session: AgentSession = {
    id,
    context: contextAt(graph.leaf),
    report,
    durable: true,
    markStarted: (callIds) => writer.markStarted(callIds),
    startsOf: (callId) => graph.startsOf(callId),
    append(turn, billed) {
      nodeOf.set(turn, writer.append(turn, Date.now(), billed).id);
    },
    condense(previous, next, billed) {
      const { summary, keptFrom } = readCondensation(previous, next);
      let firstKept: string | null = null;
      if (keptFrom < previous.length) {
        const kept = nodeOf.get(previous[keptFrom]);
        if (kept === undefined) throw new ContextReplacementError('the first turn it keeps is not a turn of this session');
        firstKept = kept;
      }
      nodeOf.set(summary, writer.append(summary, Date.now(), { condenses: { firstKept }, ...billed }).id);
      const dropped: SessionNode[] = [];
      for (const turn of previous.slice(0, keptFrom)) {
        const node = graph.node(nodeOf.get(turn) ?? '');
        if (node !== undefined) dropped.push(node);
      }
      return dropped;
    },
    nodeIdsOf: (turns) => turns.flatMap((turn) => nodeOf.get(turn) ?? []),
    async condensedAway() {
      if (graph.leaf === null) return [];
      // What condensation took out lies off a live-path graph: read the rest of the session first.
      await graph.loadWhole();
      return condensedAwayOf(graph.nodesTo(graph.leaf));
    },
    async branchFrom(nodeId) {
      // A node outside the live context may be one a live-path graph does not hold yet.
      if (!session.context.some((turn) => nodeOf.get(turn) === nodeId)) await graph.loadWhole();
      const node = graph.node(nodeId);
      if (node !== undefined && node.turn.role === 'assistant' && node.turn.blocks.some((block) => block.kind === 'tool_call')) {
        throw new BranchPointError(
          id,
          `node ${nodeId} is a reply whose tool calls have no result there; branch from its results or from an answer`,
        );
      }
      // An unknown id throws UnknownNodeError from the graph, before anything moves.
      session.context = contextAt(nodeId);
    },
    usageTotal: () => graph.usageTotal(),
    persist: async () => {
      await writer.persist();
    },
    close: () => writer.close(),
  };
  return session;
}

/**
 * The nodes of `path` (root to leaf) that the context at its end leaves out: everything before the
 * kept tail of the latest summary on it (earlier summaries included), or before that summary when it
 * keeps no tail. None when nothing was condensed.
 */
function condensedAwayOf(path: readonly SessionNode[]): SessionNode[] {
  const latest = path.findLastIndex((node) => node.condenses !== undefined);
  if (latest === -1) return [];
  const firstKept = path[latest].condenses!.firstKept;
  const end = firstKept === null ? latest : path.findIndex((node) => node.id === firstKept);
  return path.slice(0, end === -1 ? latest : end);
}

function mapContextToNodes(graph: SessionGraph, context: readonly Turn[]): WeakMap<Turn, string> {
  const nodeOf = new WeakMap<Turn, string>();
  const wanted = new Set(context);
  let id = graph.leaf;
  while (id !== null && wanted.size > 0) {
    const node = graph.node(id);
    if (node === undefined) break;
    if (wanted.delete(node.turn)) nodeOf.set(node.turn, node.id);
    id = node.parent;
  }
  return nodeOf;
}
