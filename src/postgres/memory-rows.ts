// How PostgresMemoryStore reads its rows: where they are, the columns it selects, a row as a record,
// and the SQL that confines a statement to the records a scope owns.

import type { MemoryRecord, MemoryScope } from '../memory/types.js';
import { recordFromRow, type MemoryRow } from '../memory/rows.js';
import type { ClientLike } from './driver.js';
import type { PostgresDatabase } from './database.js';
import type { MemoryVectors } from './memory-vectors.js';

/**
 * Where one store's memories live: its database, its tenant (`''` for the default tenant), the records
 * table, schema-qualified, and the vectors when the store has an embedder.
 */
export type MemoryTables = { db: PostgresDatabase; t: string; table: string; vectors?: MemoryVectors };

export type Row = MemoryRow & { meta: string | null; supersedes: string[] | null };

export const COLUMNS = `seq::float8 AS seq, id, text, kind, meta::text AS meta, scope_resource, scope_session, source_session, source_node,
  observed_at, key, supersedes, superseded_by, superseded_at, created_at, updated_at, fingerprint`;

export async function rows<T>(c: ClientLike, sql: string, values: unknown[]): Promise<T[]> {
  return (await c.query(sql, values)).rows as T[];
}

/** The `terms` column (the terms joined by spaces) as terms again. */
export const split = (terms: string) => (terms === '' ? [] : terms.split(' '));

export function toRecord(row: Row): MemoryRecord {
  return recordFromRow(row, { meta: row.meta === null ? undefined : JSON.parse(row.meta), supersedes: row.supersedes });
}

/** The SQL for "owned by `scope`": each part the owner sets must match; parameters start at $`from`. */
export function ownerFilter(scope: MemoryScope, from: number): { sql: string; values: string[] } {
  const parts: string[] = ['TRUE'];
  const values: string[] = [];
  if (scope.resource !== undefined) parts.push(`scope_resource = $${from + values.push(scope.resource) - 1}`);
  if (scope.session !== undefined) parts.push(`scope_session = $${from + values.push(scope.session) - 1}`);
  return { sql: parts.join(' AND '), values };
}
