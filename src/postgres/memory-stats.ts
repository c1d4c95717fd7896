// What every write of PostgresMemoryStore keeps in step beside the records: the tenant's BM25
// statistics (ranking in the database reads them) and its version and change log (replicas read them).

import type { ClientLike } from './driver.js';
import { distinctTerms, termLength } from '../search/index.js';
import type { MemoryTables } from './memory-rows.js';

/**
 * Raises the tenant's version and logs the records this write changed, for replicas (see `replica`).
 * The version row stays locked until commit, so versions commit in order.
 */
export async function logChanges(tables: MemoryTables, c: ClientLike, seqs: number[]): Promise<void> {
  const s = tables.db.s;
  await c.query(
    `WITH v AS (
       INSERT INTO ${s}.memory_stats AS m (tenant, docs, total_length, version) VALUES ($1, 0, 0, 1)
       ON CONFLICT (tenant) DO UPDATE SET version = m.version + 1 RETURNING version)
     INSERT INTO ${s}.memory_changes (tenant, version, seq) SELECT $1, v.version, seq FROM v, unnest($2::bigint[]) AS seq
     ON CONFLICT DO NOTHING`,
    [tables.t, seqs],
  );
}

/** Keeps the tenant's BM25 statistics in step: document count, total length, df of each distinct term (context's too). */
export async function countTerms(tables: MemoryTables, c: ClientLike, terms: string[], sign: 1 | -1): Promise<void> {
  const s = tables.db.s;
  // Rows are locked in sorted term order by every writer, so two writers never deadlock on them.
  const unique = distinctTerms(terms);
  const length = termLength(terms);
  if (sign === 1) {
    await c.query(
      `WITH terms AS (
         INSERT INTO ${s}.memory_terms AS t (tenant, term, df) SELECT $1, term, 1 FROM unnest($2::text[]) AS term
         ON CONFLICT (tenant, term) DO UPDATE SET df = t.df + 1)
       INSERT INTO ${s}.memory_stats AS m (tenant, docs, total_length) VALUES ($1, 1, $3)
       ON CONFLICT (tenant) DO UPDATE SET docs = m.docs + 1, total_length = m.total_length + $3`,
      [tables.t, unique, length],
    );
  } else {
    await c.query(
      `WITH terms AS (UPDATE ${s}.memory_terms SET df = df - 1 WHERE tenant = $1 AND term = ANY($2))
       UPDATE ${s}.memory_stats SET docs = docs - 1, total_length = total_length - $3 WHERE tenant = $1`,
      [tables.t, unique, length],
    );
    await c.query(`DELETE FROM ${s}.memory_terms WHERE tenant = $1 AND term = ANY($2) AND df <= 0`, [tables.t, unique]);
  }
}
