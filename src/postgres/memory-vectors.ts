// The vectors of a PostgresMemoryStore made with an embedder, in pgvector: one row per record in
// `memory_vectors` (its text's embedding, the md5 of the text it embeds, an HNSW cosine index), made
// on the first use of the store because its column needs the embedder's dimensions. How records get
// a vector:
// - a save or a text edit through such a store embeds the text first and writes the vector in the
//   record's own transaction (an embedder failure writes nothing);
// - a record written without one (by a store with no embedder, or before the embedder appeared) is
//   embedded by the next search of a store that has one: the first search of each store looks for
//   every record of its tenant without a current vector, once (one anti-join, at "open"); later ones
//   only look at the records the tenant's change log (migration 5) names since then, which costs one
//   indexed lookup when nothing was written. A vector whose md5 is not its record's text's is never
//   ranked, so an edit by a store without the embedder never leaves a stale vector in the results.

import type { Embedder } from '../memory/embedder.js';
import { embedTexts } from '../memory/embedder.js';
import type { ClientLike } from './driver.js';
import { PostgresEmbedderMismatchError, PostgresOptionsError, PostgresVectorUnavailableError } from './errors.js';
import type { PostgresDatabase } from './database.js';

/** pgvector's HNSW index takes vectors of at most this many dimensions. */
export const MAX_VECTOR_DIMENSIONS = 2000;
/** The default of `vectorExactLimit`: filtered sets up to this size are ranked exactly. */
export const DEFAULT_VECTOR_EXACT_LIMIT = 1000;
/** Records embedded per round of a backfill: one embedder call (split by its maxBatch) and one write. */
const BACKFILL_BATCH = 256;
// Iterative index scans (hnsw.iterative_scan) came with pgvector 0.8.0: before them, a filtered HNSW
// search returns at most ef_search rows before the filter, so a selective filter finds too few.
const MIN_VERSION = [0, 8, 0];

// memory-rows.ts names this class (MemoryTables), so its `rows` helper is not imported back.
async function rows<T>(c: ClientLike, sql: string, values: unknown[]): Promise<T[]> {
  return (await c.query(sql, values)).rows as T[];
}

/** The SQL of a search's filters over `memory_records r`, parameters from $1, and their values. */
export type RecordFilter = { sql: string; values: unknown[] };

export type VectorHit = { ref: number; score: number };

export class MemoryVectors {
  private table: Promise<string> | undefined;
  /** The extension's schema, quoted, once the table is known to exist for this embedder (`ready`). */
  private v: string | undefined;
  /** The tenant's version up to which every record's vector is known current; null before the first search's backfill. */
  private seen: number | null = null;
  private catchingUp: Promise<void> = Promise.resolve();

  constructor(
    readonly embedder: Embedder,
    private readonly db: PostgresDatabase,
    private readonly tenant: string,
    /** Filtered sets of at most this many records are ranked exactly, without the index. */
    readonly exactLimit: number,
  ) {
    if (embedder.dimensions > MAX_VECTOR_DIMENSIONS)
      throw new PostgresOptionsError(
        `embedder ${embedder.id} has ${embedder.dimensions} dimensions; pgvector's HNSW index takes at most ${MAX_VECTOR_DIMENSIONS}. Use an embedder (or a setting of it) with fewer.`,
      );
  }

  /** The extension's schema (quoted), after making sure the vectors table exists and holds this embedder's vectors. */
  ready(): Promise<string> {
    this.table ??= this.ensureTable().then(
      (v) => (this.v = v),
      (error: unknown) => {
        this.table = undefined; // the next call tries again: the extension may be installed meanwhile
        throw error;
      },
    );
    return this.table;
  }

  /**
   * Embeds `texts` (checked, unit length) as the vectors of this store, once the table is ready: every
   * write or search embeds first, outside its transaction, so none waits for a second connection.
   */
  async embed(texts: string[], signal?: AbortSignal): Promise<string[]> {
    await this.ready();
    return (await embedTexts(this.embedder, texts, signal)).map(literal);
  }

  private get extension(): string {
    if (this.v === undefined) throw new Error('MemoryVectors used before ready(): embed() first.');
    return this.v;
  }

  /** Writes the vector of the record `seq` for its current text (a save's or an edit's, in its transaction; embedded by `embed`). */
  async write(c: ClientLike, seq: number, vector: string): Promise<void> {
    const v = this.extension;
    await c.query(
      `INSERT INTO ${this.db.s}.memory_vectors (seq, text_md5, embedding)
       SELECT r.seq, md5(r.text), $2::${v}.vector FROM ${this.db.s}.memory_records r WHERE r.seq = $1
       ON CONFLICT (seq) DO UPDATE SET text_md5 = excluded.text_md5, embedding = excluded.embedding`,
      [seq, vector],
    );
  }

  /**
   * Gives every record of the tenant that lacks a vector of its current text one (see the top of the
   * file): the whole tenant on the first call, the records changed since the last call after that.
   * One catch-up at a time per store; an embedder failure rejects this call and is tried again by the next.
   */
  current(signal?: AbortSignal): Promise<void> {
    const run = this.catchingUp.then(() => this.catchUp(signal));
    this.catchingUp = run.catch(() => {});
    return run;
  }

  /**
   * The `depth` records nearest `query` among those `filter` lets through, with their cosine: ranked
   * exactly when the filter lets through at most `exactLimit` records, otherwise through the HNSW index
   * with an iterative scan (it reads on past ef_search until `depth` rows pass the filter), falling back
   * to the exact ranking when the index scan stops short of `depth` (pgvector's hnsw.max_scan_tuples).
   */
  async nearest(c: ClientLike, query: string, filter: RecordFilter, depth: number): Promise<VectorHit[]> {
    const v = this.extension;
    const s = this.db.s;
    const q = `$${filter.values.length + 1}::${v}.vector`;
    const values = [...filter.values, query];
    const distance = `v.embedding OPERATOR(${v}.<=>) ${q}`;
    const current = `v.seq = r.seq AND v.text_md5 = md5(r.text)`;
    const [{ n }] = await rows<{ n: number }>(
      c,
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${s}.memory_records r WHERE ${filter.sql} LIMIT ${this.exactLimit + 1}) AS f`,
      filter.values,
    );
    // The distances of the filtered set, materialized so no index can order them: every record counts.
    const exact = () =>
      rows<{ ref: number; distance: number }>(
        c,
        `WITH d AS MATERIALIZED (
           SELECT r.seq, ${distance} AS distance FROM ${s}.memory_records r JOIN ${s}.memory_vectors v ON ${current} WHERE ${filter.sql})
         SELECT seq::float8 AS ref, distance FROM d ORDER BY distance, seq LIMIT ${depth}`,
        values,
      );
    let found: Array<{ ref: number; distance: number }>;
    if (n <= this.exactLimit) found = await exact();
    else {
      // strict_order: rows come out in exact distance order whatever the filter drops. enable_sort
      // off: the md5 join condition makes the planner expect one row, and it would sort every
      // distance rather than read the index in order (measured: 59 ms against 3 ms at 2,000 records).
      await c.query(
        `SET LOCAL hnsw.iterative_scan = strict_order; SET LOCAL hnsw.ef_search = ${Math.min(Math.max(depth, 40), 1000)}; SET LOCAL enable_sort = off`,
      );
      found = await rows(
        c,
        `SELECT r.seq::float8 AS ref, ${distance} AS distance FROM ${s}.memory_vectors v JOIN ${s}.memory_records r ON ${current}
         WHERE ${filter.sql} ORDER BY ${distance} LIMIT ${depth}`,
        values,
      );
      await c.query('SET LOCAL enable_sort = on');
      if (found.length < depth) found = await exact();
    }
    // As the in-process store: only records pointing the query's way at all.
    return found.map(({ ref, distance }) => ({ ref, score: 1 - distance })).filter((h) => h.score > 0);
  }

  private async catchUp(signal?: AbortSignal): Promise<void> {
    const v = await this.ready();
    const s = this.db.s;
    const since = this.seen;
    // Read in seq order from a cursor, so a large backfill reads each record once. Every record is
    // current as of the first round's snapshot once the rounds end; what changed after it, the next
    // catch-up reads from the change log.
    let cursor = 0;
    let first: number | undefined;
    for (;;) {
      signal?.throwIfAborted();
      const changed = since === null ? '' : `AND r.seq IN (SELECT seq FROM ${s}.memory_changes WHERE tenant = $1 AND version > $4::float8)`;
      // One statement, one snapshot: the version and the records it covers that lack a current vector.
      const [{ version, stale }] = await this.db.query<{
        version: number;
        stale: Array<{ seq: number; text: string; md5: string }> | null;
      }>(
        `SELECT coalesce((SELECT version FROM ${s}.memory_stats WHERE tenant = $1), 0)::float8 AS version,
           (SELECT json_agg(x) FROM (
              SELECT r.seq::float8 AS seq, r.text, md5(r.text) AS md5 FROM ${s}.memory_records r
              LEFT JOIN ${s}.memory_vectors v ON v.seq = r.seq
              WHERE r.tenant = $1 AND r.seq > $3::float8 ${changed} AND (v.seq IS NULL OR v.text_md5 <> md5(r.text))
              ORDER BY r.seq LIMIT $2) AS x) AS stale`,
        since === null ? [this.tenant, BACKFILL_BATCH, cursor] : [this.tenant, BACKFILL_BATCH, cursor, since],
      );
      first ??= version;
      const batch = stale ?? [];
      if (batch.length > 0) {
        const vectors = await this.embed(
          batch.map((row) => row.text),
          signal,
        );
        // Written only where the record still holds the text embedded: one edited meanwhile is a
        // later change, which the next catch-up embeds again.
        await this.db.transaction((c) =>
          c.query(
            `INSERT INTO ${s}.memory_vectors (seq, text_md5, embedding)
             SELECT u.seq, u.md5, u.embedding::${v}.vector FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u (seq, md5, embedding)
             JOIN ${s}.memory_records r ON r.seq = u.seq AND md5(r.text) = u.md5
             ON CONFLICT (seq) DO UPDATE SET text_md5 = excluded.text_md5, embedding = excluded.embedding`,
            [batch.map((row) => row.seq), batch.map((row) => row.md5), vectors],
          ),
        );
      }
      if (batch.length < BACKFILL_BATCH) {
        this.seen = first;
        return;
      }
      cursor = batch[batch.length - 1].seq;
    }
  }

  /** Creates the extension (when missing) and the vectors table for this embedder, or refuses another embedder's schema. */
  private ensureTable(): Promise<string> {
    const { db, embedder } = this;
    const s = db.s;
    return db.transaction(async (c) => {
      // One creator at a time, across schemas too: CREATE EXTENSION races with itself.
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['indusagi.memory_vectors']);
      const [recorded] = await rows<{ id: string; dimensions: number }>(c, `SELECT id, dimensions FROM ${s}.memory_embedder`, []);
      if (recorded !== undefined && (recorded.id !== embedder.id || recorded.dimensions !== embedder.dimensions))
        throw new PostgresEmbedderMismatchError(db.schema, recorded, { id: embedder.id, dimensions: embedder.dimensions });
      let extension = await installed(c);
      if (extension === undefined) {
        try {
          await c.query('CREATE EXTENSION IF NOT EXISTS vector');
        } catch (error) {
          throw unavailable(error);
        }
        extension = (await installed(c))!;
      }
      const found = extension.version.split('.').map(Number);
      const older = MIN_VERSION.findIndex((part, i) => (found[i] ?? 0) !== part);
      if (older !== -1 && (found[older] ?? 0) < MIN_VERSION[older])
        throw new PostgresVectorUnavailableError(
          `The pgvector extension ("vector") in this database is version ${extension.version}; filtered vector search needs 0.8.0 or later (iterative index scans). Run ALTER EXTENSION vector UPDATE after upgrading pgvector on the server.`,
        );
      const v = `"${extension.schema.replaceAll('"', '""')}"`;
      if (recorded === undefined) {
        await c.query(`CREATE TABLE ${s}.memory_vectors (
          seq bigint PRIMARY KEY REFERENCES ${s}.memory_records (seq) ON DELETE CASCADE,
          text_md5 text NOT NULL,
          embedding ${v}.vector(${embedder.dimensions}) NOT NULL
        )`);
        await c.query(
          `COMMENT ON COLUMN ${s}.memory_vectors.text_md5 IS 'md5 of the record text this vector embeds; a vector whose md5 is not its record''s text''s is stale: never ranked, embedded again'`,
        );
        await c.query(`CREATE INDEX memory_vectors_hnsw ON ${s}.memory_vectors USING hnsw (embedding ${v}.vector_cosine_ops)`);
        await c.query(`INSERT INTO ${s}.memory_embedder (id, dimensions) VALUES ($1, $2)`, [embedder.id, embedder.dimensions]);
      }
      return v;
    });
  }
}

async function installed(c: ClientLike): Promise<{ version: string; schema: string } | undefined> {
  const [row] = await rows<{ version: string; schema: string }>(
    c,
    `SELECT e.extversion AS version, n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector'`,
    [],
  );
  return row;
}

/** Why CREATE EXTENSION vector failed, as the error a user can act on. */
function unavailable(error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  const said = error instanceof Error ? ` (PostgreSQL: ${error.message})` : '';
  // 42501: insufficient_privilege. Anything else here means the server has no pgvector to create
  // (0A000 "is not available" since PostgreSQL 15, 58P01 "could not open extension control file" before).
  if (code === '42501')
    return new PostgresVectorUnavailableError(
      `A memory store given an embedder keeps its vectors with the pgvector extension ("vector"), which this database lacks, and this role may not create it${said}. Have a superuser (or the database owner) run CREATE EXTENSION vector once, or open the store without an embedder.`,
      { cause: error },
    );
  if (code === '0A000' || code === '58P01')
    return new PostgresVectorUnavailableError(
      `A memory store given an embedder keeps its vectors with the pgvector extension ("vector"), which this PostgreSQL server does not have${said}. Install pgvector 0.8 or later on the server (https://github.com/pgvector/pgvector), or open the store without an embedder.`,
      { cause: error },
    );
  return error;
}

/** A unit vector as pgvector's text form, exactly as float4 (what the column holds). */
function literal(vector: Float32Array): string {
  return `[${vector.join(',')}]`;
}
