import { COMPACTION_PREFIX, type Turn } from '../contract/turn.js';

/** A compaction summary: a `user` turn whose first text block starts with `COMPACTION_PREFIX`. */
export function isSummaryTurn(turn: Turn): boolean {
  const first = turn.blocks[0];
  return turn.role === 'user' && first?.kind === 'text' && first.text.startsWith(COMPACTION_PREFIX);
}

/**
 * The summary turn for `summary` (a body without the prefix): the prefix, a newline, the body; and
 * `note` (what the model can do about the turns it replaced) as a second text block, so it is never
 * taken for part of the summary.
 */
export function makeSummaryTurn(summary: string, note?: string): Turn {
  const turn: Turn = { role: 'user', blocks: [{ kind: 'text', text: `${COMPACTION_PREFIX}\n${summary}` }] };
  if (note !== undefined) turn.blocks.push({ kind: 'text', text: note });
  return turn;
}

/** The body of a summary turn: its first text block without the prefix (a note after it is not the summary). */
export function summaryBody(turn: Turn): string {
  const first = turn.blocks.find((b) => b.kind === 'text');
  return stripCompactionPrefix(first?.kind === 'text' ? first.text : '');
}

/**
 * Removes every leading copy of the prefix. A summarizer that was shown a previous summary tends to
 * echo its opening; without this the turn would start with the prefix twice.
 */
export function stripCompactionPrefix(text: string): string {
  let rest = text.trim();
  while (rest.startsWith(COMPACTION_PREFIX)) rest = rest.slice(COMPACTION_PREFIX.length).trim();
  return rest;
}
