import type { Migrator, SessionRecord } from '../contract/session.js';
import type { GuardrailTrip } from '../contract/guardrail.js';
import { usageProblem } from '../usage/check.js';
import { errorMessage } from '../../errors/base.js';
import { parseCheckpoint, type Checkpoint } from './checkpoint.js';
import { InvalidRecordError } from './errors.js';

/**
 * Why `raw` is not a valid block, or null when it is. Checked field by field on purpose: the loader runs
 * this on every record of a large file, so it must not copy or re-serialise anything.
 */
function blockProblem(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return 'a block is not an object';
  const block = raw as Record<string, unknown>;
  switch (block.kind) {
    case 'text':
      return typeof block.text === 'string' ? null : 'a text block has no string "text"';
    case 'thinking':
      if (typeof block.text !== 'string') return 'a thinking block has no string "text"';
      return block.signature === undefined || typeof block.signature === 'string' ? null : 'a thinking block has a non-string "signature"';
    case 'redacted_thinking':
      return typeof block.data === 'string' ? null : 'a redacted_thinking block has no string "data"';
    case 'image':
      return mediaSourceProblem(block.source, 'an image block', false);
    case 'document':
      if (block.title !== undefined && typeof block.title !== 'string') return 'a document block has a non-string "title"';
      return mediaSourceProblem(block.source, 'a document block', true);
    case 'tool_call':
      return typeof block.id === 'string' && typeof block.name === 'string' && 'input' in block
        ? null
        : 'a tool_call block needs string "id", string "name" and "input"';
    case 'tool_result':
      if (typeof block.callId !== 'string' || typeof block.content !== 'string') {
        return 'a tool_result block needs string "callId" and string "content"';
      }
      return block.isError === undefined || typeof block.isError === 'boolean' ? null : 'a tool_result block has a non-boolean "isError"';
    default:
      return `unknown block kind ${JSON.stringify(block.kind)}`;
  }
}

function mediaSourceProblem(raw: unknown, what: string, textAllowed: boolean): string | null {
  const source = raw as Record<string, unknown> | null;
  if (typeof source !== 'object' || source === null) return `${what} has no "source" object`;
  if (source.type === 'base64')
    return typeof source.mediaType === 'string' && typeof source.data === 'string'
      ? null
      : `${what} with a base64 source needs string "mediaType" and "data"`;
  if (source.type === 'url') return typeof source.url === 'string' ? null : `${what} with a url source needs a string "url"`;
  if (textAllowed && source.type === 'text')
    return typeof source.text === 'string' ? null : `${what} with a text source needs a string "text"`;
  return `${what} has a source of unknown type ${JSON.stringify(source.type)}`;
}

/** Why `raw` is not a `Turn`, or null when it is. */
export function turnProblem(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return 'the turn is not an object';
  const turn = raw as Record<string, unknown>;
  if (turn.role !== 'user' && turn.role !== 'assistant') return `the turn role is ${JSON.stringify(turn.role)}, not "user" or "assistant"`;
  if (!Array.isArray(turn.blocks)) return 'the turn has no "blocks" array';
  for (const block of turn.blocks as unknown[]) {
    const problem = blockProblem(block);
    if (problem !== null) return problem;
  }
  return null;
}

function nodeProblem(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return 'the "node" field is not an object';
  const node = raw as Record<string, unknown>;
  if (typeof node.id !== 'string' || node.id.length === 0) return 'the node has no string "id"';
  if (node.parent !== null && typeof node.parent !== 'string') return 'the node "parent" is neither a string nor null';
  if (typeof node.at !== 'number' || !Number.isFinite(node.at)) return 'the node "at" is not a finite number';
  if (node.condenses !== undefined) {
    const condenses = node.condenses as Record<string, unknown> | null;
    if (typeof condenses !== 'object' || condenses === null || (condenses.firstKept !== null && typeof condenses.firstKept !== 'string')) {
      return 'the node "condenses" marker needs "firstKept" as a string or null';
    }
  }
  if (node.usage !== undefined) {
    const problem = usageProblem(node.usage);
    if (problem !== null) return `the node "usage" is malformed: ${problem}`;
  }
  if (node.model !== undefined && (typeof node.model !== 'string' || node.model === ''))
    return 'the node "model" is not a non-empty string';
  return turnProblem(node.turn);
}

const STAGES: ReadonlySet<unknown> = new Set(['input', 'answer', 'tool_call']);

/** Why `raw` is not a `GuardrailTrip`, or null when it is. */
function tripProblem(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return 'is not an object';
  const trip = raw as Record<string, unknown>;
  if (typeof trip.guardrail !== 'string' || trip.guardrail === '') return 'has no guardrail name';
  if (!STAGES.has(trip.stage)) return `has stage ${JSON.stringify(trip.stage)}, not "input", "answer" or "tool_call"`;
  if (typeof trip.message !== 'string') return 'has no string "message"';
  if (typeof trip.runId !== 'string') return 'has no string "runId"';
  if (typeof trip.at !== 'number' || !Number.isFinite(trip.at)) return 'has no finite "at"';
  for (const key of ['callId', 'toolName'] as const) {
    if (trip[key] !== undefined && typeof trip[key] !== 'string') return `has a non-string "${key}"`;
  }
  return null;
}

/**
 * Narrows one decoded line to a `SessionRecord`. Returns the record itself (no copy) or the reason it
 * is not one, which the loader reports against the line.
 */
function narrowRecord(raw: unknown): SessionRecord | string {
  if (typeof raw !== 'object' || raw === null) return 'not a JSON object';
  const record = raw as Record<string, unknown>;
  if (record.type === 'node') {
    const problem = nodeProblem(record.node);
    return problem === null ? (record as SessionRecord) : `malformed node record: ${problem}`;
  }
  if (record.type === 'head') {
    if (record.leaf !== null && typeof record.leaf !== 'string') return 'malformed head record: "leaf" is neither a string nor null';
    const problem = record.tripped === undefined ? null : tripProblem(record.tripped);
    return problem === null ? (record as SessionRecord) : `malformed head record: its "tripped" ${problem}`;
  }
  if (record.type === 'started') {
    const ids = record.callIds;
    return Array.isArray(ids) && ids.length > 0 && ids.every((id) => typeof id === 'string' && id !== '')
      ? (record as SessionRecord)
      : 'malformed started record: "callIds" must be a non-empty array of call ids';
  }
  return `not a node, head or started record (type ${JSON.stringify(record.type)})`;
}

/**
 * Throws `InvalidRecordError` unless every one of `records` is a record a load could read back: what a
 * store checks before it writes anything, so one bad record leaves the whole append unwritten.
 */
export function assertRecords(sessionId: string, records: readonly unknown[]): asserts records is readonly SessionRecord[] {
  if (!Array.isArray(records)) throw new InvalidRecordError(sessionId, 0, 'the records are not an array');
  records.forEach((record, index) => {
    const narrowed = narrowRecord(record);
    if (typeof narrowed === 'string') throw new InvalidRecordError(sessionId, index, narrowed);
  });
}

/**
 * Why a line did not yield a record. `unparsable` separates torn or garbled bytes from well-formed JSON
 * of the wrong shape. A class, so no decoded record can ever pass for one.
 */
export class LineProblem {
  constructor(
    readonly reason: string,
    readonly unparsable: boolean,
  ) {}
}

/** What one line of a session file holds, when it holds anything valid. */
export type StoredLine = SessionRecord | Checkpoint;

/**
 * Parses one line, runs the migrators over it in order, and narrows the result. Checkpoint records are
 * the store's own index, not history: they skip the migrators and are checked against their checksum.
 */
export function decodeRecord(line: string, migrators: readonly Migrator[]): StoredLine | LineProblem {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (error) {
    return new LineProblem(`not valid JSON (${(error as Error).message})`, true);
  }
  if (typeof raw === 'object' && raw !== null && (raw as { type?: unknown }).type === 'checkpoint') {
    const checkpoint = parseCheckpoint(line, raw as Record<string, unknown>);
    return typeof checkpoint === 'string' ? new LineProblem(checkpoint, false) : checkpoint;
  }
  for (const migrator of migrators) {
    try {
      raw = migrator.upgrade(raw);
    } catch (error) {
      return new LineProblem(`migrator ${JSON.stringify(migrator.id)} threw: ${errorMessage(error)}`, false);
    }
  }
  const record = narrowRecord(raw);
  return typeof record === 'string' ? new LineProblem(record, false) : record;
}

/**
 * Where a record puts the replayed leaf: a node record on its node, a head record where it says;
 * undefined for a record that moves no leaf (`started`).
 */
export function leafPosition(record: SessionRecord): string | null | undefined {
  if (record.type === 'node') return record.node.id;
  return record.type === 'head' ? record.leaf : undefined;
}

/**
 * The trip standing after `records` are replayed in order, and the leaf it stands at: set by a head that
 * carries one, cleared by any later record that places the leaf. Null when none stands.
 */
export function tripOf(records: Iterable<SessionRecord>): { trip: GuardrailTrip; leaf: string | null } | null {
  let standing: { trip: GuardrailTrip; leaf: string | null } | null = null;
  for (const record of records) {
    if (record.type === 'node') standing = null;
    else if (record.type === 'head') standing = record.tripped === undefined ? null : { trip: record.tripped, leaf: record.leaf };
  }
  return standing;
}

/** How many `started` records name each call. */
export function countStarts(records: Iterable<SessionRecord>): Map<string, number> {
  const starts = new Map<string, number>();
  for (const record of records) {
    if (record.type === 'started') for (const id of record.callIds) starts.set(id, (starts.get(id) ?? 0) + 1);
  }
  return starts;
}
