import type { ModelUsage } from '../../runtime/contract/model.js';
import { SessionGraph, type SessionStoreLike } from '../../runtime/store/index.js';
import { sumUsage } from '../../runtime/usage/sum.js';
import type { ContextMark } from '../types.js';
import { contextMark, sameMark } from './context-mark.js';

/**
 * What the earlier attempts of a run taken over were billed, read from the thread's session: every step
 * they settled is a node there with its model call's usage (a condensation summary with its
 * summarizer's). Nobody else writes a thread while its run runs, so those nodes are the ones above the
 * node the run started from on the live path: the nearest one whose context has the run's `base` mark
 * (none when the run started on an empty context). Undefined when no node of the path has that mark
 * (the session is not the one the run started on), which the caller reports.
 */
export async function earlierAttemptsUsage(store: SessionStoreLike, threadId: string, base: ContextMark): Promise<ModelUsage | undefined> {
  const graph = SessionGraph.fromRecords(threadId, (await store.read(threadId)).records);
  const added: Array<ModelUsage | undefined> = [];
  for (let id = graph.leaf; id !== null;) {
    if (base.length > 0 && sameMark(contextMark(graph.contextTo(id)), base)) return sumUsage(added);
    const node = graph.node(id);
    if (node === undefined) return undefined;
    added.push(node.usage);
    id = node.parent;
  }
  return base.length === 0 ? sumUsage(added) : undefined;
}
