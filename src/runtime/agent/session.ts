import type { Turn } from '../contract/turn.js';
import type { SessionStoreLike } from '../contract/agent.js';
import type { ModelUsage } from '../contract/model.js';
import type { SessionGraph } from '../store/graph.js';
import { addUsage, zeroUsage } from '../usage/sum.js';
import { readCondensation } from './condensation.js';
import { ContextReplacementError } from './errors.js';

/** Where an agent keeps one session's history while it works on it. */
export interface AgentSession {
  readonly id: string;
  /** The conversation as the model will next see it (condensation applied). Replaced after each run. */
  context: Turn[];
  /** Records a turn that joined the context; `billed` is what the model call that produced it cost. */
  append(turn: Turn, billed?: Billing): void;
  /** Records a condensation of `previous` into `next` (see `readCondensation`); `billed`: the summarizer's cost. */
  condense(previous: readonly Turn[], next: readonly Turn[], billed?: Billing): void;
  /** Tokens billed over the whole session, every branch, earlier runs included. */
  usageTotal(): ModelUsage;
  /** Makes everything recorded so far durable. */
  persist(): Promise<void>;
  /** Lets go of the session (the store's writer lock). */
  close(): Promise<void>;
}

/** Model calls' token usage and the model billed, stored on the node of the turn a call produced. */
export type Billing = { usage: ModelUsage; model: string };

/** Without a store: the context is the whole history, kept in memory. */
export function memorySession(id: string): AgentSession {
  const total = zeroUsage();
  return {
    id,
    context: [],
    append(_turn, billed) {
      if (billed !== undefined) addUsage(total, billed.usage);
    },
    condense(previous, next, billed) {
      readCondensation(previous, next);
      if (billed !== undefined) addUsage(total, billed.usage);
    },
    usageTotal: () => ({ ...total }),
    persist: async () => {},
    close: async () => {},
  };
}

/**
 * A session in a `SessionStoreLike`: opened for writing (the store's writer lock), every turn appended
 * to the graph as it settles, persisted when the agent says so (once per run).
 */
export async function openStoredSession(store: SessionStoreLike, id: string): Promise<AgentSession> {
  const graph = await store.openSession(id);
  const context = graph.leaf === null ? [] : graph.resume(graph.leaf);
  // The node behind each context turn, so a condensation can name the first turn it keeps.
  const nodeOf = mapContextToNodes(graph, context);
  return {
    id,
    context,
    append(turn, billed) {
      nodeOf.set(turn, graph.append(turn, Date.now(), billed).id);
    },
    condense(previous, next, billed) {
      const { summary, keptFrom } = readCondensation(previous, next);
      let firstKept: string | null = null;
      if (keptFrom < previous.length) {
        const kept = nodeOf.get(previous[keptFrom]);
        if (kept === undefined) throw new ContextReplacementError('the first turn it keeps is not a turn of this session');
        firstKept = kept;
      }
      nodeOf.set(summary, graph.append(summary, Date.now(), { condenses: { firstKept }, ...billed }).id);
    },
    usageTotal: () => graph.usageTotal(),
    persist: () => store.persist(graph),
    close: () => store.closeSession(id),
  };
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
