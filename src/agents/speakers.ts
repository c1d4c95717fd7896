import type { Turn } from '../runtime/contract/turn.js';
import { MAIN_AGENT, transferToolName } from '../runtime/agent/handoffs.js';

/**
 * Which agent gave each turn of a conversation with handoffs, read from the session as the conductor
 * reads it: a `transfer_to_<name>` call whose result went through hands the conversation over, so
 * every reply after that result is the named agent's. `agents` are the names of the conversation's
 * agents, `first` the one that had it first. One entry per turn: a name for a reply, undefined for a
 * user turn.
 */
export function speakers(turns: readonly Turn[], agents: readonly string[], first: string = MAIN_AGENT): Array<string | undefined> {
  const byTool = new Map(agents.map((name) => [transferToolName(name), name]));
  const transfers = new Map<string, string>();
  let speaking = first;
  return turns.map((turn) => {
    for (const block of turn.blocks) {
      if (block.kind === 'tool_call' && byTool.has(block.name)) transfers.set(block.id, byTool.get(block.name)!);
      if (block.kind === 'tool_result' && block.isError !== true && transfers.has(block.callId)) speaking = transfers.get(block.callId)!;
    }
    return turn.role === 'assistant' ? speaking : undefined;
  });
}
