// The SQLite store's vectors: a sqlite-vec `vec0` table (`memory_vectors`, cosine distance, keyed by
// the record's seq) beside the records, the embedder they came from in `memory_embedder`, and an
// `embedded` flag per record saying its vector is the one of its current text. Only a store opened with
// an embedder reads or writes them (a connection without sqlite-vec cannot even touch a vec0 table), so
// a store without one only clears `embedded` and marks the table `stale`, and the next store with the
// embedder removes what no record owns any more.
import type { Embedder } from '../memory/index.js';
import type { Database, Statement } from './driver.js';
import { SqliteEmbedderMismatchError, type EmbedderIdentity } from './errors.js';

/** The records that pass a search's filters, as named parameters of `FILTERED`. */
export type SearchFilter = {
  kind: string | null;
  /** The reader's scope parts, '' when unset. */
  r: string;
  s: string;
  /** 1: superseded records too. */
  all: number;
  /** `provenance.at` bounds [since, until); null when unset. */
  since: number | null;
  until: number | null;
};

/**
 * Every filter a search applies, as SQL over `memory_records r`: the same for the words and the vector
 * ranking, so neither ranks a record the other could not return.
 */
export const FILTERED = `r.scope_resource IN ('', @r) AND r.scope_session IN ('', @s)
  AND (@all = 1 OR r.superseded_by IS NULL) AND (@kind IS NULL OR r.kind = @kind)
  AND (@since IS NULL OR r.observed_at >= @since) AND (@until IS NULL OR r.observed_at < @until)`;

/**
 * `FILTERED` for a search with a time window: the same records, with the bounds written as a range the
 * planner can read from `memory_records_observed` (an `@since IS NULL OR` form hides it). A missing
 * bound is bound as an infinity (`timeBounds`). Only used when a bound is set: without one, the range
 * would still lead the planner to walk that index over every record.
 */
export const FILTERED_IN_WINDOW = `r.scope_resource IN ('', @r) AND r.scope_session IN ('', @s)
  AND (@all = 1 OR r.superseded_by IS NULL) AND (@kind IS NULL OR r.kind = @kind)
  AND r.observed_at >= @since AND r.observed_at < @until`;

/** Whether `filter` has a time window, and its parameters for `FILTERED_IN_WINDOW`. */
export function timeBounds(filter: SearchFilter): SearchFilter | undefined {
  if (filter.since === null && filter.until === null) return undefined;
  return { ...filter, since: filter.since ?? -Infinity, until: filter.until ?? Infinity };
}

/**
 * Readies the file's vectors for `embedder`, in one transaction: creates `memory_vectors` on the first
 * open with an embedder; refuses another embedder than the recorded one with
 * `SqliteEmbedderMismatchError` unless `reembed`, which drops every vector and marks every record for
 * re-embedding (done lazily, like any backfill); removes the vectors a store without the embedder left
 * without an owner.
 */
export function ensureVectors(db: Database, path: string, embedder: Embedder, reembed: boolean): void {
  const given: EmbedderIdentity = { id: embedder.id, dimensions: embedder.dimensions };
  db.transaction(() => {
    const recorded = db
      .prepare<[], EmbedderIdentity & { stale: number; copied: number }>(
        'SELECT id, dimensions, stale, copied FROM memory_embedder WHERE one = 1',
      )
      .get();
    const create = () => {
      db.exec(`CREATE VIRTUAL TABLE memory_vectors USING vec0(embedding float[${given.dimensions}] distance_metric=cosine)`);
      db.exec('DELETE FROM memory_vector_copies');
      db.prepare('INSERT OR REPLACE INTO memory_embedder (one, id, dimensions, stale, copied) VALUES (1, ?, ?, 0, 1)').run(
        given.id,
        given.dimensions,
      );
    };
    if (recorded === undefined) {
      // Flags a store without the extension could not have set are cleared too (there were no vectors).
      db.exec('UPDATE memory_records SET embedded = 0 WHERE embedded = 1');
      return create();
    }
    if (recorded.id !== given.id || recorded.dimensions !== given.dimensions) {
      if (!reembed) throw new SqliteEmbedderMismatchError(path, { id: recorded.id, dimensions: recorded.dimensions }, given);
      db.exec('DROP TABLE memory_vectors');
      db.exec('UPDATE memory_records SET embedded = 0 WHERE embedded = 1');
      return create();
    }
    if (reembed) {
      // The same embedder, asked to re-embed anyway (say, its model changed under the same id).
      db.exec('DELETE FROM memory_vectors');
      db.exec('DELETE FROM memory_vector_copies');
      db.exec('UPDATE memory_records SET embedded = 0 WHERE embedded = 1');
    } else {
      if (recorded.stale === 1) {
        db.exec('DELETE FROM memory_vectors WHERE rowid NOT IN (SELECT seq FROM memory_records WHERE embedded = 1)');
        db.exec('DELETE FROM memory_vector_copies WHERE seq NOT IN (SELECT seq FROM memory_records WHERE embedded = 1)');
      }
      // A file upgraded from version 4: its vectors were only in vec0 (see addVectorCopies).
      if (recorded.copied === 0)
        db.exec('INSERT OR REPLACE INTO memory_vector_copies (seq, embedding) SELECT rowid, embedding FROM memory_vectors');
    }
    db.exec('UPDATE memory_embedder SET stale = 0, copied = 1');
  }).immediate();
}

/** Whether the file keeps vectors (some store was opened on it with an embedder). */
export function keepsVectors(db: Database): boolean {
  return db.prepare('SELECT 1 FROM memory_embedder WHERE one = 1').get() !== undefined;
}

export type VectorStatements = {
  remove: Statement<[bigint]>;
  insert: Statement<[bigint, Float32Array]>;
  removeCopy: Statement<[bigint]>;
  insertCopy: Statement<[bigint, Float32Array]>;
  exact: Statement<Record<string, unknown>, { seq: number; distance: number }>;
  /** `exact` for a filter with a time window (see FILTERED_IN_WINDOW). */
  exactInWindow: Statement<Record<string, unknown>, { seq: number; distance: number }>;
  nearestThenFilter: Statement<Record<string, unknown>, { seq: number; distance: number }>;
  passing: Statement<Record<string, unknown>, { n: number }>;
  passingInWindow: Statement<Record<string, unknown>, { n: number }>;
  /** Changes when another connection commits to the file. */
  dataVersion: Statement<[], { v: number }>;
  /** Rows this connection has changed since it opened. */
  totalChanges: Statement<[], { n: number }>;
  unembedded: Statement<[number], { seq: number; text: string }>;
  markEmbedded: Statement<[number, string]>;
};

/** The statements a store with an embedder uses on `memory_vectors`; compiling them needs sqlite-vec loaded. */
export function prepareVectors(db: Database): VectorStatements {
  return {
    // A seq freed by a forget in a store without the embedder may come back with its old vector still there.
    remove: db.prepare<[bigint]>('DELETE FROM memory_vectors WHERE rowid = ?'),
    insert: db.prepare<[bigint, Float32Array]>('INSERT INTO memory_vectors (rowid, embedding) VALUES (?, ?)'),
    removeCopy: db.prepare<[bigint]>('DELETE FROM memory_vector_copies WHERE seq = ?'),
    insertCopy: db.prepare<[bigint, Float32Array]>('INSERT OR REPLACE INTO memory_vector_copies (seq, embedding) VALUES (?, ?)'),
    // Filter first, then rank: the cosine of every passing record's vector, read by seq from the plain
    // copies, exactly, however few pass. On 100,000 vectors of 512 dimensions (bench
    // memory-stores-sqlite-vectors) 1,000 passing records cost under 2 ms this way, against 90 ms for
    // vec0 with the passing seqs as a rowid constraint (it reads every chunk to find them).
    exact: db.prepare(
      `SELECT r.seq, vec_distance_cosine(c.embedding, @query) AS distance FROM memory_records r
        JOIN memory_vector_copies c ON c.seq = r.seq WHERE r.embedded = 1 AND ${FILTERED} ORDER BY distance, r.seq LIMIT @k`,
    ),
    exactInWindow: db.prepare(
      `SELECT r.seq, vec_distance_cosine(c.embedding, @query) AS distance FROM memory_records r
        JOIN memory_vector_copies c ON c.seq = r.seq WHERE r.embedded = 1 AND ${FILTERED_IN_WINDOW} ORDER BY distance, r.seq LIMIT @k`,
    ),
    // When most records pass: the @k nearest of all, then the filter. Exact whenever it keeps enough:
    // a passing record outside those @k is farther than every one inside.
    nearestThenFilter: db.prepare(
      `SELECT n.seq, n.distance FROM (SELECT rowid AS seq, distance FROM memory_vectors WHERE embedding MATCH @query AND k = @k) n
        JOIN memory_records r ON r.seq = n.seq WHERE r.embedded = 1 AND ${FILTERED} ORDER BY n.distance`,
    ),
    passing: db.prepare(`SELECT count(*) AS n FROM memory_records r WHERE r.embedded = 1 AND ${FILTERED}`),
    passingInWindow: db.prepare(`SELECT count(*) AS n FROM memory_records r WHERE r.embedded = 1 AND ${FILTERED_IN_WINDOW}`),
    dataVersion: db.prepare<[], { v: number }>('SELECT data_version AS v FROM pragma_data_version'),
    totalChanges: db.prepare<[], { n: number }>('SELECT total_changes() AS n'),
    unembedded: db.prepare<[number], { seq: number; text: string }>(
      'SELECT seq, text FROM memory_records WHERE embedded = 0 ORDER BY seq LIMIT ?',
    ),
    // A backfilled vector is kept only if the record still holds the text it was made from.
    markEmbedded: db.prepare<[number, string]>('UPDATE memory_records SET embedded = 1 WHERE seq = ? AND embedded = 0 AND text = ?'),
  };
}
