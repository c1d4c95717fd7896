import type { Turn } from '../contract/turn.js';
import type { ModelUsage } from '../contract/model.js';
import type { LoadReport, SessionNode } from '../contract/session.js';
import type { Compaction } from '../contract/step.js';
import type { GuardrailTrip } from '../contract/guardrail.js';
import type { SessionGraph } from '../store/graph.js';
import type { SessionStoreLike } from '../store/types.js';
import { SessionWriter } from '../store/writer.js';
import { ModelView } from '../loop/wire-names.js';
import type { ToolNameMap } from '../tools/names.js';
import { addUsage, zeroUsage } from '../usage/sum.js';
import { BranchPointError, ContextReplacementError } from './errors.js';

/**
 * Where an agent keeps one session's history while it works on it. The session owns the context: the
 * loop reads it and changes it only through `append` and `compact`, so the turns and what records
 * them (the graph's nodes, one per context turn) can never drift apart.
 */
export interface AgentSession {
  readonly id: string;
  /** The conversation as the model will next see it (compaction applied). */
  readonly context: readonly Turn[];
  /** What loading the session from its store found; undefined without a store or when the store cannot say. */
  readonly report: LoadReport | undefined;
  /** True when `persist` makes things durable (a store), so runs checkpoint every step. */
  readonly durable: boolean;
  /** The guardrail trip the session's last run ended on, until the session moves on (see `SessionGraph.tripped`). */
  readonly tripped: GuardrailTrip | undefined;
  /**
   * Remembers where the session stands (`withoutLast`: before its last turn); what it returns takes the
   * session back there (a run that tripped a guardrail, or stopped before its prompt was checked),
   * recording `trip` as why. What was recorded since stays in the session, off the live path.
   */
  mark(withoutLast?: boolean): (trip?: GuardrailTrip) => void;
  /** Records calls as about to run once more; see `SessionGraph.markStarted`. */
  markStarted(callIds: string[]): void;
  startsOf(callId: string): number;
  /** Adds a turn to the end of the context and records it; `billed` is what the model call that produced it cost. */
  append(turn: Turn, billed?: Billing): void;
  /**
   * Applies a compaction to the context and records its summary (with the node of the first kept
   * turn); `billed`: the summarizer's cost. Returns the nodes of the turns the summary replaced (none
   * without a graph).
   */
  compact(compaction: Compaction, billed?: Billing): SessionNode[];
  /**
   * Replaces the whole context with `turns` (a context manager's own history compaction): only a session
   * that records nothing can take a replacement that is not a compaction; any other throws
   * `ContextReplacementError` and changes nothing.
   */
  replace(turns: readonly Turn[]): void;
  /** The nodes of the live path that compaction took out of the context, oldest first (none without a graph). */
  compactedAway(): Promise<SessionNode[]>;
  /** Moves the live leaf to `nodeId` (null: before the first turn) and makes the context the one there. */
  branchFrom(nodeId: string | null): Promise<void>;
  /** Tokens billed over the whole session, every branch, earlier runs included. */
  usageTotal(): ModelUsage;
  /** Makes everything recorded so far durable. */
  persist(): Promise<void>;
  /** Lets go of the session (the store's writer lock). */
  close(): Promise<void>;
  /**
   * The context as the model sees it with `names` (see `ModelView`), kept from run to run so that a
   * run on a long conversation converts only the turns added since the last one; reset here whenever
   * the context changes other than by growing.
   */
  modelView(names: ToolNameMap): ModelView;
}

/** Model calls' token usage and the model billed, stored on the node of the turn a call produced. */
export type Billing = { usage: ModelUsage; model: string };

/**
 * Without a store: the context is the whole history, kept in memory, with no graph behind it. A session
 * started from the caller's own `messages` (or none) records nothing, so a context manager may replace
 * its context with any turns it likes.
 */
export function memorySession(id: string, messages?: readonly Turn[]): AgentSession {
  const total = zeroUsage();
  const starts = new Map<string, number>();
  const context: Turn[] = messages === undefined ? [] : messages.slice();
  const view = new ViewSlot();
  let tripped: GuardrailTrip | undefined;
  return {
    id,
    context,
    report: undefined,
    durable: false,
    get tripped() {
      return tripped;
    },
    mark(withoutLast = false) {
      const before = context.slice(0, withoutLast ? -1 : context.length);
      return (trip) => {
        replaceContents(context, before);
        view.reset();
        tripped = trip;
      };
    },
    markStarted(callIds) {
      for (const callId of callIds) starts.set(callId, (starts.get(callId) ?? 0) + 1);
    },
    startsOf: (callId) => starts.get(callId) ?? 0,
    append(turn, billed) {
      context.push(turn);
      tripped = undefined;
      if (billed !== undefined) addUsage(total, billed.usage);
    },
    compact(compaction, billed) {
      const { summary, keptFrom } = checkCompaction(compaction, context.length);
      context.splice(0, keptFrom, summary);
      view.reset();
      if (billed !== undefined) addUsage(total, billed.usage);
      return [];
    },
    replace(turns) {
      replaceContents(context, turns);
      view.reset();
    },
    compactedAway: async () => [],
    async branchFrom() {
      throw new BranchPointError(
        id,
        'the agent has no session store, so its turns have no node ids; pass a store (new MemorySessionStore() keeps one in memory)',
      );
    },
    usageTotal: () => ({ ...total }),
    persist: async () => {},
    close: async () => {},
    modelView: (names) => view.for(names),
  };
}

/**
 * A session in a `SessionStoreLike`, held through a `SessionWriter`: the store's writer lease taken, the
 * session read (its live path when the store offers one), every turn appended to the graph as it joins
 * the context, and the records not yet appended handed to the store when the agent persists (put back
 * in front when an append fails); `close` appends what is left, then releases the lease. `ids[i]` is the
 * node of `context[i]`: a compaction names its first kept turn by position, never by object identity.
 */
export async function openStoredSession(store: SessionStoreLike, id: string): Promise<AgentSession> {
  const writer = await SessionWriter.open(store, id);
  const { graph, report } = writer;
  const context: Turn[] = [];
  const ids: string[] = [];
  const view = new ViewSlot();
  const moveTo = (leaf: string | null): void => {
    const nodes = leaf === null ? [] : contextNodesAt(graph, leaf);
    graph.branchFrom(leaf);
    context.length = 0;
    ids.length = 0;
    view.reset();
    for (const node of nodes) {
      context.push(node.turn);
      ids.push(node.id);
    }
  };
  moveTo(graph.leaf);
  const session: AgentSession = {
    id,
    context,
    report,
    durable: true,
    get tripped() {
      return graph.tripped;
    },
    mark(withoutLast = false) {
      const leaf = withoutLast && graph.leaf !== null ? (graph.node(graph.leaf)?.parent ?? null) : graph.leaf;
      return (trip) => {
        if (trip !== undefined) writer.trip(leaf, trip);
        else graph.apply([{ type: 'head', leaf }]);
        moveTo(leaf);
      };
    },
    markStarted: (callIds) => writer.markStarted(callIds),
    startsOf: (callId) => graph.startsOf(callId),
    append(turn, billed) {
      const node = writer.append(turn, Date.now(), billed);
      context.push(turn);
      ids.push(node.id);
    },
    compact(compaction, billed) {
      const { summary, keptFrom } = checkCompaction(compaction, context.length);
      const firstKept = keptFrom < ids.length ? ids[keptFrom] : null;
      const node = writer.append(summary, Date.now(), { condenses: { firstKept }, ...billed });
      const dropped = ids.slice(0, keptFrom).flatMap((nodeId) => graph.node(nodeId) ?? []);
      context.splice(0, keptFrom, summary);
      ids.splice(0, keptFrom, node.id);
      view.reset();
      return dropped;
    },
    replace() {
      throw new ContextReplacementError(
        "a session in a store records compactions, not arbitrary replacements; condense with the agent's `compaction` (or return a `compaction` from `prepareStep`) instead of a context manager's own `history`",
      );
    },
    async compactedAway() {
      if (graph.leaf === null) return [];
      // What compaction took out lies off a live-path graph: read the rest of the session first.
      await graph.loadWhole();
      return compactedAwayOf(graph.nodesTo(graph.leaf));
    },
    async branchFrom(nodeId) {
      if (nodeId === null) {
        graph.branchFrom(null);
        moveTo(null);
        return;
      }
      // A node outside the live context may be one a live-path graph does not hold yet.
      if (!ids.includes(nodeId)) await graph.loadWhole();
      const node = graph.node(nodeId);
      if (node !== undefined && node.turn.role === 'assistant' && node.turn.blocks.some((block) => block.kind === 'tool_call')) {
        throw new BranchPointError(
          id,
          `node ${nodeId} is a reply whose tool calls have no result there; branch from its results or from an answer`,
        );
      }
      // An unknown id throws UnknownNodeError from the graph, before anything moves.
      moveTo(nodeId);
    },
    usageTotal: () => graph.usageTotal(),
    persist: async () => {
      await writer.persist();
    },
    close: () => writer.close(),
    modelView: (names) => view.for(names),
  };
  return session;
}

/**
 * A session's `ModelView`, one for the tool names of the latest run. Names are compared by what they
 * say, not by identity: a context manager merges its sources' names into a new map every run, and an
 * equal map must not make a long conversation convert again.
 */
class ViewSlot {
  private view: ModelView | undefined;

  for(names: ToolNameMap): ModelView {
    if (this.view === undefined || !sameRenames(this.view.names, names)) this.view = new ModelView(names);
    return this.view;
  }

  /** The context was changed other than by growing: the view converts it again. */
  reset(): void {
    this.view?.reset();
  }
}

/** True when both maps give every tool the same model name (all a `ModelView` reads of them). */
function sameRenames(a: ToolNameMap, b: ToolNameMap): boolean {
  if (a === b) return true;
  if (a.toModel.size !== b.toModel.size) return false;
  for (const [original, sanitized] of a.toModel) if (b.toModel.get(original) !== sanitized) return false;
  return true;
}

/** The nodes of the model context at `leaf`, in context order: `[summary, ...kept tail, ...turns after it]`. */
function contextNodesAt(graph: SessionGraph, leaf: string): SessionNode[] {
  // Root side first: the kept tail (older summaries inside it included), the latest summary, the turns after it.
  const chain = graph.contextNodes(leaf);
  const at = chain.findLastIndex((node) => node.condenses !== undefined);
  if (at < 0) return chain;
  // Older summaries inside the kept tail are left out: the newer summary covers them.
  return [chain[at], ...chain.slice(0, at).filter((node) => node.condenses === undefined), ...chain.slice(at + 1)];
}

/** A compaction's shape, checked before anything changes: a user summary turn, and a kept tail inside the context. */
function checkCompaction(compaction: Compaction, length: number): Compaction {
  const { summary, keptFrom } = compaction ?? ({} as Partial<Compaction>);
  if (summary?.role !== 'user' || !Array.isArray(summary.blocks)) throw new ContextReplacementError('its `summary` must be a user turn');
  if (!Number.isInteger(keptFrom) || keptFrom! < 0 || keptFrom! > length) {
    throw new ContextReplacementError(
      `its \`keptFrom\` must be an index from 0 to ${length} (the context's length), got ${String(keptFrom)}`,
    );
  }
  return compaction;
}

/**
 * The nodes of `path` (root to leaf) that the context at its end leaves out: everything before the
 * kept tail of the latest summary on it (earlier summaries included), or before that summary when it
 * keeps no tail. None when nothing was compacted.
 */
function compactedAwayOf(path: readonly SessionNode[]): SessionNode[] {
  const latest = path.findLastIndex((node) => node.condenses !== undefined);
  if (latest === -1) return [];
  const firstKept = path[latest].condenses!.firstKept;
  const end = firstKept === null ? latest : path.findIndex((node) => node.id === firstKept);
  return path.slice(0, end === -1 ? latest : end);
}

/**
 * Makes `context` hold the turns of `next`, in place. A loop rather than `splice(0, n, ...next)`:
 * spreading a long history as call arguments overflows the stack (from about 120,000 turns).
 */
function replaceContents(context: Turn[], next: readonly Turn[]): void {
  if (next === context) return;
  const copy = next.slice();
  context.length = 0;
  for (const turn of copy) context.push(turn);
}
