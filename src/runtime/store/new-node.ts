import type { Turn } from '../contract/turn.js';
import type { ModelUsage } from '../contract/model.js';
import type { SessionNode } from '../contract/session.js';
import { assertUsage } from '../usage/check.js';
import { BrokenCompactionError, InvalidTurnError } from './errors.js';
import { canonicalJsonOfParsed, hashIdentityText } from './hash.js';
import { jsonString, plainJsonCopy, type PlainJsonCopy } from './json-copy.js';
import type { NodeTexts } from './record-line.js';
import { turnProblem } from './records.js';

/** Marks a condensation summary node: the verbatim tail it keeps starts at `firstKept` (null: keeps none). */
export type CompactionMarker = { firstKept: string | null };

/** Stored on the node, outside its id: `usage` and `model` record what the call that produced the turn was billed. */
export type AppendExtra = { condenses?: CompactionMarker; usage?: ModelUsage; model?: string };

/**
 * What appending `turn` under `parent` at `at` makes, before the graph looks for it: a JSON copy of the
 * turn (later changes to the caller's object do not reach it, and what is stored is exactly what a
 * reload sees), the node id, and the texts a store writes the node with (see `NodeRecord`). One walk
 * over the turn makes the copy, its JSON text and its canonical text (`plainJsonCopy`); a turn holding
 * what JSON has rules of its own for is copied through JSON.stringify and JSON.parse instead. Throws
 * `InvalidTurnError` for a turn or time that could not be stored.
 */
export function nodeIdentity(parent: string | null, turn: Turn, at: number): MadeNode {
  if (typeof at !== 'number' || !Number.isFinite(at)) throw new InvalidTurnError(`"at" must be a finite number, got ${String(at)}`);
  const made = plainJsonCopy(turn) ?? jsonCopy(turn);
  const problem = turnProblem(made.copy);
  if (problem !== null) throw new InvalidTurnError(problem);
  const texts: NodeTexts = {
    turn: made.text,
    // A finite number's text is String(at) in JSON and canonically alike.
    at: String(at),
    parent: parent === null ? 'null' : jsonString(parent),
  };
  return { id: hashIdentityText(texts.at, texts.parent, made.canonical), turn: made.copy as Turn, texts };
}

/** A node `nodeIdentity` made: its id, its copy of the turn, and the JSON texts of its identity's parts. */
export type MadeNode = { id: string; turn: Turn; texts: NodeTexts };

/**
 * The new node, with what `extra` stores outside its id, checked. `lookup` finds the summary's
 * ancestors: a kept tail must start on the summary's own path, or its context could never be rebuilt.
 */
export function newNode(
  sessionId: string,
  made: MadeNode,
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
 * `plainJsonCopy` by way of JSON itself, for a turn the walk left alone: the copy is parsed from the
 * turn's JSON text (in the caller's key order: a resumed run must send a tool's arguments byte for byte
 * as the live run did), and the canonical text written from the copy.
 */
function jsonCopy(turn: Turn): PlainJsonCopy {
  let text: string;
  let copy: unknown;
  try {
    text = JSON.stringify(turn) ?? 'null';
    copy = JSON.parse(text);
  } catch (error) {
    throw new InvalidTurnError('the turn is not representable as JSON', { cause: error });
  }
  return { copy, text, canonical: canonicalJsonOfParsed(copy) };
}
