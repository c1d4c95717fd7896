import type { Turn } from '../contract/turn.js';
import type { ModelUsage } from '../contract/model.js';
import type { SessionNode } from '../contract/session.js';
import { assertUsage } from '../usage/check.js';
import { BrokenCompactionError, InvalidTurnError } from './errors.js';
import { canonicalJsonOfParsed, hashIdentity } from './hash.js';
import { rememberTurnText } from './record-line.js';
import { turnProblem } from './records.js';

/** Marks a condensation summary node: the verbatim tail it keeps starts at `firstKept` (null: keeps none). */
export type CompactionMarker = { firstKept: string | null };

/** Stored on the node, outside its id: `usage` and `model` record what the call that produced the turn was billed. */
export type AppendExtra = { condenses?: CompactionMarker; usage?: ModelUsage; model?: string };

/**
 * What appending `turn` under `parent` at `at` makes, before the graph looks for it: a JSON copy of the
 * turn (later changes to the caller's object do not reach it, and what is stored is exactly what a
 * reload sees) and the node id. The turn is serialized once: the copy is parsed from that text, the id
 * hashed from the copy's canonical text, and a store writes the same text (see `recordLine`). Throws
 * `InvalidTurnError` for a turn or time that could not be stored.
 */
export function nodeIdentity(parent: string | null, turn: Turn, at: number): { id: string; turn: Turn } {
  if (typeof at !== 'number' || !Number.isFinite(at)) throw new InvalidTurnError(`"at" must be a finite number, got ${String(at)}`);
  const { text, copy: raw } = jsonCopy(turn);
  const problem = turnProblem(raw);
  if (problem !== null) throw new InvalidTurnError(problem);
  const copy = raw as Turn;
  rememberTurnText(copy, text);
  return { id: hashIdentity(parent, canonicalJsonOfParsed(copy), at), turn: copy };
}

/**
 * The new node, with what `extra` stores outside its id, checked. `lookup` finds the summary's
 * ancestors: a kept tail must start on the summary's own path, or its context could never be rebuilt.
 */
export function newNode(
  sessionId: string,
  made: { id: string; turn: Turn },
  parent: string | null,
  at: number,
  extra: AppendExtra | undefined,
  lookup: (id: string) => SessionNode | undefined,
): SessionNode {
  const node: SessionNode = { id: made.id, parent, turn: made.turn, at };
  const condenses = extra?.condenses;
  if (condenses !== undefined) {
    const firstKept = condenses?.firstKept;
    if (firstKept !== null && typeof firstKept !== 'string') throw new InvalidTurnError('"condenses.firstKept" must be a node id or null');
    if (firstKept !== null) {
      let walker = parent === null ? undefined : lookup(parent);
      while (walker !== undefined && walker.id !== firstKept) walker = walker.parent === null ? undefined : lookup(walker.parent);
      if (walker === undefined) throw new BrokenCompactionError(sessionId, made.id, firstKept);
    }
    node.condenses = { firstKept };
  }
  if (extra?.usage !== undefined) {
    assertUsage(extra.usage);
    node.usage = { ...extra.usage };
  }
  if (extra?.model !== undefined) {
    if (typeof extra.model !== 'string' || extra.model === '') throw new InvalidTurnError('"model" must be a non-empty model id');
    node.model = extra.model;
  }
  return node;
}

/**
 * The turn's JSON text, in the caller's key order (a resumed run must send a tool's arguments byte for
 * byte as the live run did: prompt caches and the terminal's display depend on it), and the copy parsed
 * from it.
 */
function jsonCopy(turn: Turn): { text: string; copy: unknown } {
  try {
    const text = JSON.stringify(turn) ?? 'null';
    return { text, copy: JSON.parse(text) };
  } catch (error) {
    throw new InvalidTurnError('the turn is not representable as JSON', { cause: error });
  }
}
