// Reading sessions back: every record in one snapshot, the live path of a large session, and the
// tenant's list of sessions. Reads take no lease; nodes are never changed or removed once written.

import type { LoadReport, SessionNode, SessionRecord } from '../runtime/contract/session.js';
import type { ModelUsage } from '../runtime/contract/model.js';
import type { GuardrailTrip } from '../runtime/contract/guardrail.js';
import { titleOf, type LivePathSession, type SessionSummary, type StoredSession } from '../runtime/store/index.js';
import type { ClientLike, PreparedQuery } from './driver.js';
import { FIRST_WIDTH, readLivePathNodes, type WindowRow } from './live-path.js';
import type { SessionTables } from './session-tables.js';

type SessionRow = {
  leaf: string | null;
  unfolded: number;
  nodes: number;
  records: number;
  bytes: number;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_read_tokens: number;
  cache_write_1h_tokens: number;
  /** The guardrail trip standing at the leaf, as JSON. */
  tripped: string | null;
};

/** The tenant's sessions holding at least one node, most recently written first (`size` is bytes as JSON lines). */
export async function listSessionSummaries(tables: SessionTables): Promise<SessionSummary[]> {
  const rows = await tables.db.query<{
    id: string;
    bytes: number;
    updated_at: Date;
    leaf: string | null;
    nodes: number;
    first: string | null;
  }>(tables.sql.list, [tables.t]);
  return rows.map((row) => ({
    id: row.id,
    size: row.bytes,
    modifiedAt: row.updated_at,
    leaf: row.leaf,
    title: row.first === null ? null : titleOf((JSON.parse(row.first) as SessionNode).turn),
    turns: row.nodes,
  }));
}

/** Every record of the session, in one snapshot: its nodes in the order written, its start counts, its leaf. */
export function readWhole(tables: SessionTables, id: string): Promise<StoredSession> {
  return tables.db.transaction(
    async (client) => {
      const row = await rowIn(tables, client, id);
      return { records: row === undefined ? [] : await recordsIn(tables, client, id, row), report: report(row) };
    },
    { readOnly: true },
  );
}

/**
 * The live path of a session with more nodes than `above`; a smaller one whole, as `readWhole` reads
 * it, when that costs no second snapshot (the reads share one transaction, or the session holds no
 * node: one statement's view of an empty session is all there is to read); else null (read it whole).
 * See `PostgresSessionStore.readLivePath`.
 */
export function readLive(tables: SessionTables, id: string, above: number): Promise<LivePathSession | StoredSession | null> {
  const { db, sql, t } = tables;
  type Row = SessionRow & { has_starts: boolean; node_id: string | null; node_seq: number | null; node: string | null };
  return db.limitedReads(async (query, snapshot): Promise<LivePathSession | StoredSession | null> => {
    const rows = await query<Row>(sql.liveStart, [t, id, above, FIRST_WIDTH]);
    const row = rows[0];
    // A session that holds no node: what `readWhole` would find too, without a second transaction.
    if (row === undefined || row.nodes === 0) return { records: [], report: report(undefined) };
    if (row.nodes <= above || row.leaf === null) {
      // Smaller: read whole, in the same snapshot when there is one (one transaction, not two).
      return snapshot ? { records: await recordsOf(tables, query, id, row), report: report(row) } : null;
    }
    const first: WindowRow[] = rows.flatMap((r) => (r.node_id === null ? [] : [{ id: r.node_id, seq: r.node_seq!, node: r.node! }]));
    const nodes = await readLivePathNodes(
      {
        window: (from, width) => query<WindowRow>(sql.nodesBefore, [t, id, from, width]),
        walk: async (leaf) => (await query<{ node: string }>(sql.livePath, [t, id, leaf])).map((r) => r.node),
      },
      row.leaf,
      first,
    );
    // The start counts of the path's calls, when the session has any.
    const calls = row.has_starts
      ? nodes.flatMap((node) => node.turn.blocks.flatMap((block) => (block.kind === 'tool_call' ? [block.id] : [])))
      : [];
    const starts = calls.length === 0 ? [] : await query<{ call_id: string; count: number }>(sql.startsOf, [t, id, calls]);
    const records: SessionRecord[] = nodes.reverse().map((node) => ({ type: 'node', node }));
    for (const start of starts) records.push(startedRecord(start.call_id, start.count));
    const live: LivePathSession = { records, report: report(row), leaf: row.leaf, usageTotal: usageOf(row) };
    if (row.tripped !== null) live.tripped = JSON.parse(row.tripped) as GuardrailTrip;
    return live;
  });
}

/** The session's row as readers see it, or undefined when it holds no node. */
async function rowIn(tables: SessionTables, client: ClientLike, id: string): Promise<SessionRow | undefined> {
  const row = ((await ask(client, tables.sql.session, [tables.t, id])).rows as SessionRow[])[0];
  return row === undefined || row.nodes === 0 ? undefined : row;
}

/** Every record of a session: its nodes in the order written, a `started` record per start, then the head (with its trip). */
function recordsIn(tables: SessionTables, client: ClientLike, id: string, row: SessionRow): Promise<SessionRecord[]> {
  return recordsOf(tables, async (statement, values) => (await ask(client, statement, values)).rows, id, row);
}

/** `recordsIn`, its statements run by `query` (which must give them one snapshot). */
async function recordsOf(
  tables: SessionTables,
  query: <R>(sql: PreparedQuery, values: unknown[]) => Promise<R[]>,
  id: string,
  row: SessionRow,
): Promise<SessionRecord[]> {
  const records: SessionRecord[] = (await query<{ node: string }>(tables.sql.allNodes, [tables.t, id])).map((r) => ({
    type: 'node',
    node: JSON.parse(r.node) as SessionNode,
  }));
  for (const r of await query<{ call_id: string; count: number }>(tables.sql.allStarts, [tables.t, id]))
    records.push(startedRecord(r.call_id, r.count));
  records.push(
    row.tripped === null ? { type: 'head', leaf: row.leaf } : { type: 'head', leaf: row.leaf, tripped: JSON.parse(row.tripped) },
  );
  return records;
}

/** Runs a prepared statement on one connection (inside a transaction). */
function ask(client: ClientLike, statement: PreparedQuery, values: unknown[]): Promise<{ rows: any[] }> {
  return client.query({ name: statement.name, text: statement.text, values });
}

/** `count` starts of one call, as one record (what a load counts back). */
function startedRecord(callId: string, count: number): SessionRecord {
  return { type: 'started', callIds: Array<string>(count).fill(callId) };
}

function usageOf(row: SessionRow): ModelUsage {
  const usage: ModelUsage = {
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    cacheReadTokens: row.cache_read_tokens,
  };
  if (row.cache_write_1h_tokens > 0) usage.cacheWrite1hTokens = row.cache_write_1h_tokens;
  return usage;
}

function report(row: SessionRow | undefined): LoadReport {
  const records = row?.records ?? 0;
  return { lines: records, bytes: row?.bytes ?? 0, records, skipped: [], orphans: [], truncatedTail: false, leafFallback: null };
}
