import { CONDENSED_PREFIX, type Turn } from '../contract/turn.js';

/** A condensation summary: a `user` turn whose first text block starts with `CONDENSED_PREFIX`. */
export function isSummaryTurn(turn: Turn): boolean {
  const first = turn.blocks[0];
  return turn.role === 'user' && first?.kind === 'text' && first.text.startsWith(CONDENSED_PREFIX);
}

/** The summary turn for `summary` (a body without the prefix): the prefix, a newline, the body. */
export function makeSummaryTurn(summary: string): Turn {
  return { role: 'user', blocks: [{ kind: 'text', text: `${CONDENSED_PREFIX}\n${summary}` }] };
}

/** The body of a summary turn: its text without the prefix. */
export function summaryBody(turn: Turn): string {
  const text = turn.blocks.map((b) => (b.kind === 'text' ? b.text : '')).join('\n');
  return stripCondensedPrefix(text);
}

/**
 * Removes every leading copy of the prefix. A summarizer that was shown a previous summary tends to
 * echo its opening; without this the turn would start with the prefix twice.
 */
export function stripCondensedPrefix(text: string): string {
  let rest = text.trim();
  while (rest.startsWith(CONDENSED_PREFIX)) rest = rest.slice(CONDENSED_PREFIX.length).trim();
  return rest;
}
