// What an append writes: its records encoded as the persist statement's values, and the statement that
// writes the appends of many sessions at once (see WriteBatches), each only under its writer's epoch.

import type { SessionRecord } from '../runtime/contract/session.js';
import type { GuardrailTrip } from '../runtime/contract/guardrail.js';
import type { AppendReport } from '../runtime/store/index.js';
import { fencedError, type Held } from './session-lease.js';
import type { SessionTables } from './session-tables.js';
import type { Settled } from './write-batches.js';

/** A write takes the nodes written since into the session's row once this many are waiting (see `persist` in session-sql.ts). */
const FOLD_AFTER = 32;

/** One node's columns, in the order of the persist statement's per-node arrays (after the session). */
type NodeValues = [
  id: string,
  parent: string | null,
  condenses: boolean,
  firstKept: string | null,
  json: string,
  bytes: number,
  ...usage: number[],
];

/** What one append adds to its session; `trip` stands at `leaf` once it is in. */
type Changes = {
  nodes: NodeValues[];
  started: string[];
  leaf: string | null | undefined;
  trip: GuardrailTrip | null;
  otherRecords: number;
  otherBytes: number;
};

export type PendingWrite = { held: Held; changes: Changes };

/** A node's line is `{"type":"node","node":<json>}` and its newline. */
const NODE_LINE_OVERHEAD = Buffer.byteLength('{"type":"node","node":}') + 1;

/** One statement for the appends of every session in `writes` (one each at most: see `queueWrite`). */
export async function writeBatch(tables: SessionTables, leaseMs: number, writes: PendingWrite[]): Promise<Array<Settled<AppendReport>>> {
  const sessions: unknown[][] = [[], [], [], [], [], [], []];
  // After the others: the statement takes it last ($24).
  const trips: Array<string | null> = [];
  const nodes: unknown[][] = Array.from({ length: 12 }, () => []);
  const starts: string[][] = [[], []];
  for (const { held, changes } of writes) {
    const { sessionId: id, epoch } = held.lease;
    // A lease's first write folds: the nodes the row has not taken in yet are not known before it.
    const folds = held.unfolded === null || changes.otherRecords > 0 || held.unfolded + changes.nodes.length > FOLD_AFTER;
    [id, epoch, folds, changes.leaf !== undefined, changes.leaf ?? null, changes.otherRecords, changes.otherBytes].forEach((value, i) =>
      sessions[i].push(value),
    );
    trips.push(changes.trip === null ? null : JSON.stringify(changes.trip));
    for (const node of changes.nodes) {
      nodes[0].push(id);
      node.forEach((value, i) => nodes[i + 1].push(value));
    }
    for (const callId of changes.started) {
      starts[0].push(id);
      starts[1].push(callId);
    }
  }
  const rows = await tables.db.query<{ session: string; added: number; bytes: number; folds: boolean }>(tables.sql.persist, [
    tables.t,
    leaseMs,
    ...sessions,
    ...nodes,
    ...starts,
    trips,
  ]);
  const written = new Map(rows.map((row) => [row.session, row]));
  return Promise.all(
    writes.map(async ({ held, changes }): Promise<Settled<AppendReport>> => {
      const row = written.get(held.lease.sessionId);
      if (row === undefined) return { ok: false, error: await fencedError(tables, held) };
      held.unfolded = row.folds ? 0 : (held.unfolded ?? 0) + row.added;
      return { ok: true, value: { records: row.added + changes.otherRecords, bytes: row.bytes + changes.otherBytes } };
    }),
  );
}

/** An append's records as the batch statement's values for one session, its size counted as JSON lines. */
export function encode(records: readonly SessionRecord[]): Changes {
  const nodes: NodeValues[] = [];
  const started: string[] = [];
  let leaf: string | null | undefined;
  let trip: GuardrailTrip | null = null;
  let otherRecords = 0;
  let otherBytes = 0;
  for (const record of records) {
    if (record.type === 'node') {
      const node = record.node;
      // JSON text escapes every control character, NUL included, which a text column could not hold raw.
      const json = JSON.stringify(node);
      const u = node.usage;
      nodes.push([
        node.id,
        node.parent,
        node.condenses !== undefined,
        node.condenses?.firstKept ?? null,
        json,
        Buffer.byteLength(json) + NODE_LINE_OVERHEAD,
        u?.inputTokens ?? 0,
        u?.outputTokens ?? 0,
        u?.cacheWriteTokens ?? 0,
        u?.cacheReadTokens ?? 0,
        u?.cacheWrite1hTokens ?? 0,
      ]);
      leaf = node.id;
      trip = null;
      continue;
    }
    if (record.type === 'started') started.push(...record.callIds);
    else if (record.leaf === leaf && trip === null && record.tripped === undefined)
      continue; // a head naming the node just written: that node's row says so already
    else {
      leaf = record.leaf;
      trip = record.tripped ?? null;
    }
    otherRecords++;
    otherBytes += Buffer.byteLength(JSON.stringify(record)) + 1;
  }
  return { nodes, started, leaf, trip, otherRecords, otherBytes };
}
