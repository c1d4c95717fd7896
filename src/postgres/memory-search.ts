// Searching PostgresMemoryStore: ranked by words in the database (BM25 over the GIN index of index
// terms) or by the process's replica, by vectors in pgvector, or both fused; then the records the
// ranking names, read in the same snapshot.

import { searchTermSource, tokenize, type RankedRef, type TermSource } from '../search/index.js';
import type { MemoryRecord, SearchOptions } from '../memory/types.js';
import { resolveSearch } from '../memory/options.js';
import { MemoryInputError } from '../memory/errors.js';
import { fuseRankings, fusionDepth } from '../memory/fusion.js';
import type { ClientLike } from './driver.js';
import { COLUMNS, rows, toRecord, type MemoryTables, type Row } from './memory-rows.js';
import type { MemoryReplica, ReplicaFilter } from './memory-replica.js';
import type { RecordFilter } from './memory-vectors.js';

/**
 * The best records for `query` the reader may see: ranked by words (in the database, or by the
 * replica when there is one, see `PostgresStoreOptions.replica`), by vectors (pgvector), or both fused
 * with the in-process store's rule. Every filter applies before either ranking.
 */
export async function searchMemories(
  tables: MemoryTables,
  replica: MemoryReplica | undefined,
  query: string,
  opts?: SearchOptions,
): Promise<MemoryRecord[]> {
  const { k, kind, minScore, scope, includeSuperseded, since, until, ranking, signal } = resolveSearch(query, opts);
  const { vectors } = tables;
  if (ranking === 'vector' && vectors === undefined) throw new MemoryInputError("ranking 'vector' needs a store made with an embedder.");
  const terms = tokenize(query);
  if (k === 0 || terms.length === 0) return [];
  // What the reader is entitled to: shared records and its own scope's.
  const filter: ReplicaFilter = {
    resources: scope.resource === undefined ? [''] : ['', scope.resource],
    sessions: scope.session === undefined ? [''] : ['', scope.session],
    current: !includeSuperseded,
    kind,
    since,
    until,
  };
  const byWords = vectors === undefined || ranking === 'words';
  // Outside the read transaction: the query's embedding, and vectors for records written without one.
  let queryVector: string | undefined;
  if (!byWords) {
    await vectors.current(signal);
    [queryVector] = await vectors.embed([query], signal);
  }
  return tables.db.transaction(
    async (c) => {
      const words = async (depth: number, min: number): Promise<RankedRef[]> => {
        if (replica === undefined) return rank(tables, c, terms, { k: depth, minScore: min, filter });
        await replica.catchUp(c);
        return replica.search(terms, { k: depth, minScore: min, filter });
      };
      let ranked: RankedRef[];
      if (byWords) ranked = await words(k, minScore);
      else if (ranking === 'vector')
        ranked = (await vectors.nearest(c, queryVector!, recordFilter(tables.t, filter, 'r.'), k)).filter((h) => h.score > minScore);
      else {
        const depth = fusionDepth(k);
        const lexical = await words(depth, 0);
        const semantic = await vectors.nearest(c, queryVector!, recordFilter(tables.t, filter, 'r.'), depth);
        ranked = fuseRankings(
          lexical.map((h) => h.ref),
          semantic.map((h) => h.ref),
          k,
        )
          .filter((f) => f.score > minScore)
          .map((f) => ({ ref: f.key, score: f.score }));
      }
      if (ranked.length === 0) return [];
      const found = await rows<Row>(c, `SELECT ${COLUMNS} FROM ${tables.table} WHERE tenant = $1 AND seq = ANY($2::bigint[])`, [
        tables.t,
        ranked.map((r) => r.ref),
      ]);
      const bySeq = new Map(found.map((row) => [row.seq, row]));
      // A replica a concurrent search moved past this snapshot may name a record this snapshot lacks.
      return ranked.flatMap(({ ref, score }) => {
        const row = bySeq.get(ref);
        return row === undefined ? [] : [{ ...toRecord(row), score }];
      });
    },
    { readOnly: true },
  );
}

/** The SQL of `f` over the records table (columns prefixed with `prefix`), parameters from $1 (the tenant). */
export function recordFilter(tenant: string, f: ReplicaFilter, prefix = ''): RecordFilter {
  const values: unknown[] = [tenant, f.resources, f.sessions];
  let sql = `${prefix}tenant = $1 AND ${prefix}scope_resource = ANY($2) AND ${prefix}scope_session = ANY($3)`;
  if (f.current) sql += ` AND ${prefix}superseded_by IS NULL`;
  if (f.kind !== undefined) sql += ` AND ${prefix}kind = $${values.push(f.kind)}`;
  if (f.since > -Infinity) sql += ` AND ${prefix}observed_at >= $${values.push(f.since)}::float8`;
  if (f.until < Infinity) sql += ` AND ${prefix}observed_at < $${values.push(f.until)}::float8`;
  return { sql, values };
}

/** Ranks in the database: term statistics, then the records holding each term, rarest first (see searchTermSource). */
function rank(
  tables: MemoryTables,
  c: ClientLike,
  terms: string[],
  opts: { k: number; minScore: number; filter: ReplicaFilter },
): Promise<RankedRef[]> {
  const s = tables.db.s;
  const { sql: filter, values } = recordFilter(tables.t, opts.filter);
  const source: TermSource = {
    stats: async (asked) => {
      const [row] = await rows<{ docs: number; total: number; df: Record<string, number> | null }>(
        c,
        `SELECT coalesce((SELECT docs FROM ${s}.memory_stats WHERE tenant = $1), 0)::float8 AS docs,
                coalesce((SELECT total_length FROM ${s}.memory_stats WHERE tenant = $1), 0)::float8 AS total,
                (SELECT json_object_agg(term, df) FROM ${s}.memory_terms WHERE tenant = $1 AND term = ANY($2)) AS df`,
        [tables.t, asked],
      );
      return { docs: row.docs, totalLength: row.total, df: new Map(Object.entries(row.df ?? {})) };
    },
    containing: (term, without) =>
      rows(
        c,
        `SELECT seq::float8 AS ref, ord::float8 AS "order", terms FROM ${tables.table} WHERE ${filter} AND lexemes @@ $${values.length + 1}::tsquery`,
        [...values, tsquery(term, without)],
      ),
  };
  return searchTermSource(source, terms, { k: opts.k, minScore: opts.minScore });
}

/** A tsquery for "has `term`, has none of `without`", built from lexemes: no user text is parsed as syntax. */
function tsquery(term: string, without: readonly string[]): string {
  const quote = (lexeme: string) => `'${lexeme.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
  return without.length === 0 ? quote(term) : `${quote(term)} & !(${without.map(quote).join(' | ')})`;
}
