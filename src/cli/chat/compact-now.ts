import type { AgentConfig } from '../../runtime/contract/agent.js';
import type { RunEvent } from '../../runtime/contract/events.js';
import type { ModelInvoker } from '../../runtime/contract/model.js';
import { Condenser } from '../../runtime/compaction/index.js';
import { modelCard } from '../../runtime/models/index.js';
import type { SessionStore } from '../../runtime/store/index.js';
import { sanitizeToolName } from '../../tools/index.js';
import { IndusagiError } from '../../errors/index.js';

/**
 * `/compact`: condenses the session's live context now, whatever its size, and records the summary
 * in the session exactly as the conductor records an automatic condensation (a summary node under
 * the leaf, marking the first turn it keeps verbatim), so a later resume sees the condensed context.
 * The caller must have let go of the session: this takes the writer lock itself.
 * Returns null when there is nothing to condense (the history is no longer than what is always kept).
 */
export async function condenseNow(
  store: SessionStore,
  sessionId: string,
  config: AgentConfig,
  invokeModel: ModelInvoker,
  publish: (event: RunEvent) => void,
): Promise<Extract<RunEvent, { kind: 'compacted' }> | null> {
  const card = modelCard(config.model, { contextWindow: config.contextWindow, maxOutputTokens: config.maxOutputTokens });
  const condenser = new Condenser({
    card,
    policy: config.compaction ?? {},
    invokeModel,
    systemText: config.system,
    tools: (config.tools ?? []).map((t) => ({ name: sanitizeToolName(t.name), description: t.description, inputSchema: t.inputSchema })),
    maxOutputTokens: card.maxOutputTokens,
  });
  const graph = await store.openSession(sessionId);
  try {
    if (graph.leaf === null) return null;
    const path = graph.nodesTo(graph.leaf);
    const context = graph.resume(graph.leaf);
    const result = await condenser.condense(context, undefined, { force: true });
    if (result === null) return null;
    // The context holds the graph's own turn objects, so the first kept turn names its node.
    let firstKept: string | null = null;
    if (result.keptFrom < context.length) {
      const kept = path.find((node) => node.turn === context[result.keptFrom]);
      if (kept === undefined) throw new IndusagiError('internal', 'the first kept turn of the condensation is not on the session path');
      firstKept = kept.id;
    }
    graph.append(result.summaryTurn, Date.now(), { condenses: { firstKept } });
    await store.persist(graph);
    const event = {
      kind: 'compacted' as const,
      removed: result.removed,
      summary: result.summary,
      tokensBefore: result.tokensBefore,
      tokensAfter: result.tokensAfter,
    };
    publish(event);
    return event;
  } finally {
    await store.closeSession(sessionId);
  }
}
