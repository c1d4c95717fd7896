// Searching PostgresMemoryStore: ranked in the database (BM25 over the GIN index of index terms) or by
// the process's replica, then the records the ranking names read in the same snapshot.

import { searchTermSource, tokenize, type RankedRef, type TermSource } from '../search/index.js';
import type { MemoryRecord, SearchOptions } from '../memory/types.js';
import { resolveSearch } from '../memory/options.js';
import type { ClientLike } from './driver.js';
import { COLUMNS, rows, toRecord, type MemoryTables, type Row } from './memory-rows.js';
import type { MemoryReplica, ReplicaFilter } from './memory-replica.js';

/** The best records for `query` the reader may see, by the replica when there is one (see `PostgresStoreOptions.replica`). */
export async function searchMemories(
  tables: MemoryTables,
  replica: MemoryReplica | undefined,
  query: string,
  opts?: SearchOptions,
): Promise<MemoryRecord[]> {
  const { k, kind, minScore, scope, includeSuperseded } = resolveSearch(query, opts);
  const terms = tokenize(query);
  if (k === 0 || terms.length === 0) return [];
  // What the reader is entitled to: shared records and its own scope's.
  const filter: ReplicaFilter = {
    resources: scope.resource === undefined ? [''] : ['', scope.resource],
    sessions: scope.session === undefined ? [''] : ['', scope.session],
    current: !includeSuperseded,
    kind,
  };
  return tables.db.transaction(
    async (c) => {
      let ranked: RankedRef[];
      if (replica === undefined) ranked = await rank(tables, c, terms, { k, minScore, filter });
      else {
        await replica.catchUp(c);
        ranked = replica.search(terms, { k, minScore, filter });
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

/** Ranks in the database: term statistics, then the records holding each term, rarest first (see searchTermSource). */
function rank(
  tables: MemoryTables,
  c: ClientLike,
  terms: string[],
  opts: { k: number; minScore: number; filter: ReplicaFilter },
): Promise<RankedRef[]> {
  const { filter: f } = opts;
  const s = tables.db.s;
  const values: unknown[] = [tables.t, f.resources, f.sessions];
  let filter = 'tenant = $1 AND scope_resource = ANY($2) AND scope_session = ANY($3)';
  if (f.current) filter += ' AND superseded_by IS NULL';
  if (f.kind !== undefined) filter += ` AND kind = $${values.push(f.kind)}`;
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
