import type { Turn } from '../contract/turn.js';
import type { SessionStoreLike } from '../contract/agent.js';
import type { SessionGraph } from '../store/graph.js';
import { readCondensation } from './condensation.js';
import { ContextReplacementError } from './errors.js';

/** Where an agent keeps one session's history while it works on it. */
export interface AgentSession {
  readonly id: string;
  /** The conversation as the model will next see it (condensation applied). Replaced after each run. */
  context: Turn[];
  /** Records a turn that joined the context. */
  append(turn: Turn): void;
  /** Records a condensation of `previous` into `next` (see `readCondensation`). */
  condense(previous: readonly Turn[], next: readonly Turn[]): void;
  /** Makes everything recorded so far durable. */
  persist(): Promise<void>;
  /** Lets go of the session (the store's writer lock). */
  close(): Promise<void>;
}

/** Without a store: the context is the whole history, kept in memory. */
export function memorySession(id: string): AgentSession {
  return {
    id,
    context: [],
    append() {},
    condense(previous, next) {
      readCondensation(previous, next);
    },
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
    append(turn) {
      nodeOf.set(turn, graph.append(turn).id);
    },
    condense(previous, next) {
      const { summary, keptFrom } = readCondensation(previous, next);
      let firstKept: string | null = null;
      if (keptFrom < previous.length) {
        const kept = nodeOf.get(previous[keptFrom]);
        if (kept === undefined) throw new ContextReplacementError('the first turn it keeps is not a turn of this session');
        firstKept = kept;
      }
      nodeOf.set(summary, graph.append(summary, Date.now(), { condenses: { firstKept } }).id);
    },
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
