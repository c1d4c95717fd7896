import { childSessionId } from '../agents/session-id.js';
import { itemsFromTurns } from '../chat/turns.js';
import type { AgentOwnPart } from '../parts/types.js';
import { loadSession, type SessionReader } from '../runtime/store/load-session.js';
import type { AgentDataPart } from './chunks.js';
import type { UIMessage, UIMessagePart } from './messages.js';

/**
 * Messages read back from a session (`uiMessagesFromTurns`) with the `data-agent` parts of each
 * sub-agent call they hold, rebuilt from the sub-agents' own sessions (`agentTool` runs each call in
 * session `<caller's session>.<call id>`), as the live stream gave them: a sub-agent's text and its
 * calls, under the card of the call that started it, at any depth. So a page shows after a reload the
 * card it showed live. Each run of a sub-agent's text is one part here (live, a part per delta); a
 * call's result is the text its model was sent. A call whose result names no session of its own (an
 * agent's whose sessions live elsewhere, or a tool that only looks like one) gets none.
 */
export async function withAgentParts<M extends UIMessage>(messages: M[], store: SessionReader, sessionId: string): Promise<M[]> {
  return Promise.all(
    messages.map(async (message) => {
      if (message.role !== 'assistant') return message;
      const found: AgentDataPart[] = [];
      for (const part of message.parts)
        if (part.type === 'dynamic-tool' && part.state === 'output-available')
          await collect(store, sessionId, part.toolCallId, part.output, [part.toolName], [part.toolCallId], found);
      if (found.length === 0) return message;
      let texts = 0;
      const data: UIMessagePart[] = found.map((one) => ({
        type: 'data-agent',
        id: one.part.type === 'tool' ? `${one.calls.join('/')}/${one.part.callId}` : `${message.id}-agent-text-${++texts}`,
        data: one,
      }));
      return { ...message, parts: [...message.parts, ...data] };
    }),
  );
}

/** The parts of the sub-agent call `callId` of session `parent` ran, if its result names its session; then its own calls', below them. */
async function collect(
  store: SessionReader,
  parent: string,
  callId: string,
  result: unknown,
  path: string[],
  calls: string[],
  out: AgentDataPart[],
): Promise<void> {
  const child = childSessionId(parent, callId);
  // Only the session this call's own id leads to: a result naming any other is not followed.
  if (sessionOfResult(result) !== child) return;
  const graph = await loadSession(store, child);
  if (graph.leaf === null) return;
  const turns = graph
    .nodesTo(graph.leaf)
    .filter((node) => node.condenses === undefined)
    .map((node) => node.turn);
  for (const item of itemsFromTurns(turns)) {
    if (item.role !== 'assistant') continue;
    for (const part of item.parts) {
      if (part.type !== 'text' && part.type !== 'tool') continue;
      out.push({ path, calls, part: part as AgentOwnPart });
      if (part.type === 'tool' && !part.isError && part.result !== undefined)
        await collect(store, child, part.callId, part.result, [...path, part.name], [...calls, part.callId], out);
    }
  }
}

/** The `sessionId` of an `agentTool` result (`{ sessionId, answer }`), live or as the JSON text the model was sent. */
function sessionOfResult(result: unknown): string | undefined {
  let value = result;
  if (typeof value === 'string') {
    if (!value.startsWith('{')) return undefined;
    try {
      value = JSON.parse(value);
    } catch {
      return undefined; // Text that only looks like JSON: a tool's own output.
    }
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { sessionId } = value as { sessionId?: unknown };
  return typeof sessionId === 'string' ? sessionId : undefined;
}
