// How the SQL stores (SQLite, PostgreSQL) keep a memory record: one column per field, the same names in
// both, and '' for an unset scope part so equality and unique indexes need no NULL handling.
import type { MemoryRecord, MemoryScope } from './types.js';

/** The columns both SQL stores read back the same way (`meta` and `supersedes` each store encodes its own way). */
export type MemoryRow = {
  seq: number;
  id: string;
  text: string;
  kind: string | null;
  scope_resource: string;
  scope_session: string;
  source_session: string | null;
  source_node: string | null;
  observed_at: number;
  key: string | null;
  superseded_by: string | null;
  superseded_at: number | null;
  created_at: number;
  updated_at: number | null;
  fingerprint: string;
};

/** A scope as its two columns. */
export function scopeColumns(scope: MemoryScope): { resource: string; session: string } {
  return { resource: scope.resource ?? '', session: scope.session ?? '' };
}

export function scopeOfRow(row: Pick<MemoryRow, 'scope_resource' | 'scope_session'>): MemoryScope {
  const scope: MemoryScope = {};
  if (row.scope_resource !== '') scope.resource = row.scope_resource;
  if (row.scope_session !== '') scope.session = row.scope_session;
  return scope;
}

/** The record a row holds, given its `meta` and `supersedes` as the store decoded them. */
export function recordFromRow(row: MemoryRow, decoded: { meta: MemoryRecord['meta']; supersedes: string[] | null }): MemoryRecord {
  const record: MemoryRecord = { id: row.id, text: row.text, createdAt: row.created_at };
  if (row.kind !== null) record.kind = row.kind;
  if (decoded.meta !== undefined) record.meta = decoded.meta;
  const scope = scopeOfRow(row);
  if (scope.resource !== undefined || scope.session !== undefined) record.scope = scope;
  record.provenance = { at: row.observed_at };
  if (row.source_session !== null) record.provenance.sessionId = row.source_session;
  if (row.source_node !== null) record.provenance.nodeId = row.source_node;
  if (row.key !== null) record.key = row.key;
  if (decoded.supersedes !== null) record.supersedes = decoded.supersedes;
  if (row.superseded_by !== null) {
    record.supersededBy = row.superseded_by;
    record.supersededAt = row.superseded_at!;
  }
  if (row.updated_at !== null) record.updatedAt = row.updated_at;
  return record;
}
