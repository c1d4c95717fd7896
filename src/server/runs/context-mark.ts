import { createHash } from 'node:crypto';
import stableStringify from 'fast-json-stable-stringify';
import type { Turn } from '../../runtime/contract/turn.js';
import type { ContextMark } from '../types.js';

/** Where a session's context stands: how many turns it has, and a digest of the last one. */
export function contextMark(messages: readonly Turn[]): ContextMark {
  const last = messages[messages.length - 1];
  return { length: messages.length, last: last === undefined ? null : digest(last) };
}

export function sameMark(a: ContextMark, b: ContextMark): boolean {
  return a.length === b.length && a.last === b.last;
}

/**
 * Whether a prompt run that a dead worker started had recorded its prompt, judged from the context
 * now and the mark the run started from (nobody else writes a thread while it runs). The conductor
 * makes the prompt durable before anything of the run reaches the model, so:
 *
 * - nothing after the mark: the prompt never landed, submit it;
 * - turns after an intact mark: the prompt landed iff one of them is a user turn with text (the run
 *   may first have answered calls an earlier run left cut off, which are user turns of results only);
 * - a context that no longer starts with the mark's turns was condensed, which only happens after the
 *   prompt is in.
 */
export function promptRecorded(base: ContextMark, messages: readonly Turn[]): boolean {
  if (messages.length === base.length && contextMark(messages).last === base.last) return false;
  const prefixIntact = messages.length > base.length && (base.length === 0 || digest(messages[base.length - 1]) === base.last);
  if (!prefixIntact) return true;
  return messages.slice(base.length).some((turn) => turn.role === 'user' && turn.blocks.some((block) => block.kind === 'text'));
}

function digest(turn: Turn): string {
  return createHash('sha256').update(stableStringify(turn)).digest('hex').slice(0, 32);
}
