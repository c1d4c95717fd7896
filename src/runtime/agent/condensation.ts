import { CONDENSED_PREFIX, type Turn } from '../contract/turn.js';
import { ContextReplacementError } from './errors.js';

/** Where a context replacement starts keeping the previous context: `previous[keptFrom..]` follow the summary. */
export type Condensation = { summary: Turn; keptFrom: number };

/**
 * Reads a context replacement as a condensation: a summary turn (a user turn whose first text block
 * starts with `[condensed earlier context]`) followed by the last turns of the previous context,
 * unchanged. That is the one shape a session can record faithfully (a summary node with `condenses`),
 * so anything else throws `ContextReplacementError`.
 */
export function readCondensation(previous: readonly Turn[], next: readonly Turn[]): Condensation {
  const summary = next[0];
  const first = summary?.blocks[0];
  if (summary?.role !== 'user' || first?.kind !== 'text' || !first.text.startsWith(CONDENSED_PREFIX)) {
    throw new ContextReplacementError(`its first turn must be a user turn whose first text block starts with "${CONDENSED_PREFIX}"`);
  }
  const kept = next.length - 1;
  const keptFrom = previous.length - kept;
  if (keptFrom < 0) throw new ContextReplacementError('it keeps more turns than the context had');
  for (let i = 0; i < kept; i++) {
    if (!sameTurn(next[i + 1], previous[keptFrom + i])) {
      throw new ContextReplacementError('the turns after the summary must be the last turns of the previous context, unchanged');
    }
  }
  return { summary, keptFrom };
}

function sameTurn(a: Turn, b: Turn): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
