import type { RunSnapshot } from '../runtime/contract/events.js';

/** The text of a session's first turn: the task its sub-agent was given. */
export function firstPrompt(snapshot: RunSnapshot): string | undefined {
  const first = snapshot.messages[0];
  if (first === undefined || first.role !== 'user') return undefined;
  return first.blocks.flatMap((block) => (block.kind === 'text' ? [block.text] : [])).join('\n');
}
