import { randomUUID } from 'node:crypto';
import { searchTermSourceSync, tokenize, type TermCandidate } from '../search/index.js';
import type { GovernedMemoryStore, MemoryRecord, MemoryScope, WorkingMemory, WorkingMemoryStore } from '../memory/types.js';
import { MemoryInputError } from '../memory/errors.js';
import { checkEdit, checkSave, describe, resolveList, resolveOwner, resolveSearch } from '../memory/options.js';
import { editedTerms, fingerprint, newRecord, recordTerms, sameScope } from '../memory/governance.js';
import { chooseTargets } from '../memory/supersede.js';
import { recordFromRow, type MemoryRow } from '../memory/rows.js';
import type { Embedder } from '../memory/index.js';
// The seam's checks and the fusion rule every store shares; internal to memory, not public API.
import { checkEmbedder, embedTexts } from '../memory/embedder.js';
import { fuseRankings, fusionDepth } from '../memory/fusion.js';
import { checkExpectedVersion, checkWorkingScope, encodeWorking, nextVersion, scopeKey, workingFromRow } from '../memory/working/index.js';
import { loadVectorExtension, openDatabase, sqliteFailure } from './driver.js';
import type { Database } from './driver.js';
import { ensureSchema, prepareCounts } from './schema.js';
import { ensureVectors, FILTERED, FILTERED_IN_WINDOW, prepareVectors, timeBounds, type SearchFilter } from './vectors.js';
import {
  MemoryStoreClosedError,
  SqliteEmbedderMismatchError,
  SqliteMemoryFileError,
  SqliteUnavailableError,
  SqliteVecUnavailableError,
} from './errors.js';

/** A durable `MemoryStore`: every method of the interface, the optional ones included, working memory, plus `close`. */
export interface SqliteMemoryStore extends GovernedMemoryStore, WorkingMemoryStore {
  readonly path: string;
  /** Closes the database; later calls throw `MemoryStoreClosedError`. Safe to call twice. */
  close(): void;
}

type Row = MemoryRow & { meta: string | null; supersedes: string | null; terms: string; embedded: number };

export type SqliteMemoryStoreOptions = {
  /**
   * Keeps a vector per record (sqlite-vec, an optional peer) and ranks by meaning as well as by words,
   * fused as in every store. The file records which embedder its vectors came from; records without a
   * vector yet (saved before, or by a store without the embedder) are embedded on the first search
   * that ranks by vectors.
   */
  embedder?: Embedder;
  /**
   * With an embedder other than the one the file's vectors came from: drop every vector and embed every
   * record again with this one (lazily, on the next vector search) instead of refusing to open.
   */
  reembed?: boolean;
};

// sqlite-vec's most neighbours one KNN query returns.
const MAX_VECTOR_K = 4096;
// The share of records a filter must let through for the vector ranking to read the nearest of all
// and filter them after; below it, vec0 ranks only the records that pass.
const UNFILTERED_KNN_SHARE = 0.25;
// Filters whose passing counts are kept at once (see `passingCount`).
const PASSING_COUNTS = 64;
// Records embedded per backfill step, each step one transaction: progress survives a crash and other
// writers wait for one batch, not for the whole file.
const BACKFILL_BATCH = 256;
// A search whose time window holds at most this many records ranks its words over those records, read
// through the time index, instead of reading every record holding a query word from FTS5 and dropping
// those outside the window (bench memory-stores-sqlite-vectors, 1% window). Reading one more tells a
// larger window, which goes through FTS5 as before.
const WINDOW_RECORDS = 2_000;

/**
 * Opens (creating or upgrading if needed) a memory store in the SQLite file at `path`. Records are
 * found through FTS5 over their index terms (indusagi's tokenizer, as in every store; a save's
 * `context` in the same term list at half weight) and ranked with the same BM25 and feedback as the
 * other stores, from term statistics kept in step with every write. With
 * `embedder`, each record also has a vector in a sqlite-vec table, and search fuses the vector ranking
 * with the words ranking (filters apply before either ranks). Each write is one transaction, durable
 * once its promise resolves, and several processes may share the file (WAL).
 * Rejects with `SqliteUnavailableError` when better-sqlite3 is not installed, `SqliteVecUnavailableError`
 * when an embedder is given and sqlite-vec is not, `SqliteEmbedderMismatchError` when the file's vectors
 * came from another embedder (unless `reembed`) and `SqliteMemoryFileError` when the file is not a
 * usable memory store; a call that finds the file damaged rejects with `SqliteMemoryFileError`, one that
 * cannot read or write it for another reason (disk full, I/O error) with `SqliteMemoryIoError`.
 */
export async function openSqliteMemoryStore(path: string, options: SqliteMemoryStoreOptions = {}): Promise<SqliteMemoryStore> {
  if (typeof path !== 'string' || path === '')
    throw new MemoryInputError(`The store path must be a non-empty string, got ${describe(path)}.`);
  if (typeof options !== 'object' || options === null)
    throw new MemoryInputError(`options must be an object: { embedder?, reembed? }, got ${describe(options)}.`);
  const embedder = options.embedder === undefined ? undefined : checkEmbedder(options.embedder);
  if (options.reembed !== undefined && typeof options.reembed !== 'boolean')
    throw new MemoryInputError(`reembed must be true or false, got ${describe(options.reembed)}.`);
  if (options.reembed === true && embedder === undefined)
    throw new MemoryInputError('reembed needs an embedder to embed the records with.');
  const { db, statements: q } = await openFile(path, embedder, options.reembed === true);
  const count = prepareCounts(db);
  const v = embedder === undefined ? undefined : prepareVectors(db);
  const seqOf = (seq: number | bigint) => BigInt(seq);
  /** Keeps `memory_vectors` in step: the record at `seq` now has `vector` (or, in a store without the embedder, no vector). */
  const placeVector = (seq: number | bigint, vector: Float32Array | undefined, wasEmbedded: boolean) => {
    if (v !== undefined && vector !== undefined) {
      v.remove.run(seqOf(seq));
      v.insert.run(seqOf(seq), vector);
      v.insertCopy.run(seqOf(seq), vector);
    } else if (v !== undefined) {
      v.remove.run(seqOf(seq));
      v.removeCopy.run(seqOf(seq));
    } else if (wasEmbedded) q.markStale.run();
  };

  // Damage may lie anywhere in the file and only show when a query reaches it.
  const guarded = <T>(work: () => T): T => {
    if (!db.open) throw new MemoryStoreClosedError();
    try {
      return work();
    } catch (error) {
      throw sqliteFailure(error, path);
    }
  };
  const checkOpen = () => {
    if (!db.open) throw new MemoryStoreClosedError();
  };
  const read = (row: Row) => toRecord(row, path);
  const owned = (scope: MemoryScope) => ({ r: scope.resource ?? null, s: scope.session ?? null });

  const save = db.transaction((text: string, resolved: ReturnType<typeof checkSave>, vector: Float32Array | undefined) => {
    const print = fingerprint(text);
    const scope = { r: resolved.scope.resource ?? '', s: resolved.scope.session ?? '' };
    const found = q.targets
      .all({ ids: JSON.stringify(resolved.supersedes), ...scope, key: resolved.key ?? null, print, kind: resolved.kind ?? null })
      .map((row) => ({ row, record: read(row) }));
    const current = (w: (typeof found)[number]) => w.row.superseded_by === null && sameScope(w.record.scope ?? {}, resolved.scope);
    const targets = chooseTargets(
      resolved,
      new Map(found.filter((w) => resolved.supersedes.includes(w.row.id)).map((w) => [w.row.id, w])),
      found.filter((w) => current(w) && resolved.key !== undefined && w.row.key === resolved.key),
      found.filter((w) => current(w) && w.row.fingerprint === print && w.row.kind === (resolved.kind ?? null)),
    );
    const now = Date.now();
    const record = newRecord(randomUUID(), text, resolved, now);
    if (targets.length > 0) record.supersedes = targets.map((w) => w.row.id);
    for (const target of targets) q.supersede.run(record.id, now, target.row.id);
    const terms = recordTerms(text, resolved.context).join(' ');
    const { lastInsertRowid } = q.insert.run({
      id: record.id,
      ord: q.nextOrd.get()!.ord,
      text,
      kind: resolved.kind ?? null,
      meta: resolved.meta ?? null,
      ...scope,
      sourceSession: resolved.provenance.sessionId ?? null,
      sourceNode: resolved.provenance.nodeId ?? null,
      observedAt: record.provenance!.at,
      key: resolved.key ?? null,
      supersedes: record.supersedes === undefined ? null : JSON.stringify(record.supersedes),
      createdAt: now,
      print,
      terms,
      embedded: vector === undefined ? 0 : 1,
    });
    q.insertTerms.run(lastInsertRowid, terms);
    count(terms, 1);
    if (vector !== undefined) placeVector(lastInsertRowid, vector, false);
    return record;
  });

  const forget = db.transaction((id: string, scope: MemoryScope) => {
    const row = q.find.get({ id, ...owned(scope) });
    if (!row) return false;
    q.removeTerms.run(row.seq, row.terms);
    q.remove.run(row.seq);
    count(row.terms, -1);
    placeVector(row.seq, undefined, row.embedded === 1);
    return true;
  });

  // `vector` is the embedding of `change.text` when the store has an embedder and the edit sets a text.
  const update = db.transaction(
    (id: string, change: ReturnType<typeof checkEdit>, scope: MemoryScope, vector: Float32Array | undefined) => {
      const row = q.find.get({ id, ...owned(scope) });
      if (!row) return undefined;
      const text = change.text ?? row.text;
      const reindex = text !== row.text;
      const terms = reindex ? editedTerms(row.terms === '' ? [] : row.terms.split(' '), text).join(' ') : row.terms;
      if (reindex) {
        q.removeTerms.run(row.seq, row.terms);
        count(row.terms, -1);
      }
      q.update.run({
        seq: row.seq,
        text,
        kind: change.kind === undefined ? row.kind : change.kind,
        meta: change.meta === undefined ? row.meta : change.meta,
        updatedAt: Date.now(),
        print: reindex ? fingerprint(text) : row.fingerprint,
        terms,
        ord: reindex ? q.nextOrd.get()!.ord : row.ord,
        embedded: reindex ? (vector === undefined ? 0 : 1) : row.embedded,
      });
      if (reindex) {
        q.insertTerms.run(row.seq, terms);
        count(terms, 1);
        placeVector(row.seq, vector, row.embedded === 1);
      }
      return read(q.bySeq.get(row.seq)!);
    },
  );

  // Which records hold a term: from FTS5, or from the records of a small time window (WINDOW_RECORDS),
  // matched here as FTS5 matches them: a term is one token of `terms` (index terms are letters, marks
  // and digits, already folded by the tokenizer), own or context.
  const containingFor = (filter: SearchFilter): ((term: string, without: readonly string[]) => TermCandidate[]) => {
    const windowed = timeBounds(filter);
    const few = windowed === undefined ? undefined : q.inWindow.all({ ...windowed, cap: WINDOW_RECORDS + 1 });
    if (few === undefined || few.length > WINDOW_RECORDS)
      return (term, without) => q.containing.all({ ...filter, match: ftsQuery(term, without) });
    const held = few.map((row) => new Set(row.terms === '' ? [] : row.terms.split(' ')));
    return (term, without) => few.filter((_, i) => held[i].has(term) && !without.some((w) => held[i].has(w)));
  };
  const rankWords = (terms: string[], filter: SearchFilter, k: number, minScore: number) =>
    searchTermSourceSync(
      {
        stats: (asked) => {
          const { docs, total_length } = q.stats.get()!;
          const df = new Map(q.df.all(JSON.stringify(asked)).map((row) => [row.term, row.df]));
          return { docs, totalLength: total_length, df };
        },
        containing: containingFor(filter),
      },
      terms,
      { k, minScore },
    );
  const hit = (seq: number, score: number) => ({ ...read(q.bySeq.get(seq)!), score });

  // Read and written in one immediate transaction: a writer in another process waits for the file's
  // write lock, then reads the version this one wrote, so exactly one of two writers at a version wins.
  const setWorking = db.transaction((scope: MemoryScope, expected: number, text: string) => {
    const { resource: r, session: s } = scopeKey(scope);
    const stored = q.working.get({ r, s });
    const version = nextVersion(stored && { version: stored.version, live: stored.content !== null }, expected);
    q.putWorking.run({ r, s, content: text, version, at: Date.now() });
    return { content: text, version };
  });

  const searchWords = db.transaction((terms: string[], filter: SearchFilter, k: number, minScore: number) =>
    rankWords(terms, filter, k, minScore).map(({ ref, score }) => hit(ref, score)),
  );

  // How many records a filter lets through, kept until the file changes: counting them cost a scan of
  // every passing record on each search (bench memory-stores-sqlite-vectors). The count only chooses
  // between two exact plans, so a stale one would cost time, never a record; it is still dropped on
  // any change, this connection's (total_changes) or another's (data_version).
  const passingCounts = new Map<string, number>();
  let countedAt = '';
  const passingCount = (filter: SearchFilter): number => {
    const now = `${v!.dataVersion.get()!.v}:${v!.totalChanges.get()!.n}`;
    if (now !== countedAt) {
      passingCounts.clear();
      countedAt = now;
    }
    const key = JSON.stringify(filter);
    let n = passingCounts.get(key);
    if (n === undefined) {
      // Bounded: a caller sweeping time windows must not grow it without end.
      if (passingCounts.size >= PASSING_COUNTS) passingCounts.clear();
      const windowed = timeBounds(filter);
      passingCounts.set(key, (n = (windowed === undefined ? v!.passing.get(filter) : v!.passingInWindow.get(windowed))!.n));
    }
    return n;
  };

  /**
   * The `k` nearest records among those `filter` lets through, exactly. When most records pass, the
   * nearest of all read a little deeper and then filtered is cheaper than building the constraint
   * (measured in bench memory-stores-sqlite-vectors); when that keeps fewer than `k`, or fewer records
   * pass, the passing ones are ranked exactly from their copies (`exact`).
   */
  const nearestPassing = (filter: SearchFilter, query: Float32Array, k: number) => {
    const passing = passingCount(filter);
    const share = passing / Math.max(q.stats.get()!.docs, 1);
    if (passing > k && share >= UNFILTERED_KNN_SHARE) {
      const deeper = Math.min(Math.ceil((2 * k) / share), MAX_VECTOR_K);
      const found = v!.nearestThenFilter.all({ ...filter, query, k: deeper });
      if (found.length >= k) return found.slice(0, k);
    }
    const windowed = timeBounds(filter);
    return windowed === undefined ? v!.exact.all({ ...filter, query, k }) : v!.exactInWindow.all({ ...windowed, query, k });
  };

  // Both rankings read in one transaction, so they see the same records.
  const searchVectors = db.transaction(
    (terms: string[], filter: SearchFilter, query: Float32Array, k: number, minScore: number, ranking: 'hybrid' | 'vector') => {
      const depth = ranking === 'vector' ? k : fusionDepth(k);
      // Cosine distance to cosine; a record pointing away from the query is no evidence for it, as in every store.
      const near = nearestPassing(filter, query, Math.min(depth, MAX_VECTOR_K))
        .map(({ seq, distance }) => ({ seq, score: 1 - distance }))
        .filter((h) => h.score > 0)
        .sort((a, b) => b.score - a.score || a.seq - b.seq);
      if (ranking === 'vector') return near.filter((h) => h.score > minScore).map((h) => hit(h.seq, h.score));
      const words = rankWords(terms, filter, depth, 0).map((h) => h.ref);
      return fuseRankings(
        words,
        near.map((h) => h.seq),
        k,
      )
        .filter((f) => f.score > minScore)
        .map((f) => hit(f.key, f.score));
    },
  );

  // Embeds every record that has no vector yet, a batch at a time, one backfill at a time in this
  // process. Each batch is kept only for records whose text did not change meanwhile; those are taken
  // again by the next round.
  let backfill: Promise<void> | undefined;
  const keepBackfill = db.transaction((rows: Array<{ seq: number; text: string }>, vectors: Float32Array[]) => {
    rows.forEach((row, i) => {
      if (v!.markEmbedded.run(row.seq, row.text).changes === 1) placeVector(row.seq, vectors[i], false);
    });
  });
  const backfilled = async (signal: AbortSignal | undefined): Promise<void> => {
    // Another call's backfill: its failure is that call's to report; this one then tries again itself.
    while (backfill !== undefined) await backfill.catch(() => undefined);
    const run = async () => {
      for (;;) {
        const rows = guarded(() => v!.unembedded.all(BACKFILL_BATCH));
        if (rows.length === 0) return;
        const vectors = await embedTexts(
          embedder!,
          rows.map((r) => r.text),
          signal,
        );
        guarded(() => keepBackfill.immediate(rows, vectors));
      }
    };
    backfill = run();
    try {
      await backfill;
    } finally {
      backfill = undefined;
    }
  };
  const embedOne = async (text: string, signal?: AbortSignal): Promise<Float32Array | undefined> =>
    embedder === undefined ? undefined : (await embedTexts(embedder, [text], signal))[0];

  return {
    path,
    async save(text, opts) {
      const resolved = checkSave(text, opts);
      checkOpen();
      // Embedded before anything changes: an embedder failure saves nothing.
      const vector = await embedOne(text);
      return guarded(() => save.immediate(text, resolved, vector));
    },
    async search(query, opts) {
      const { k, kind, minScore, scope, includeSuperseded, since, until, ranking, signal } = resolveSearch(query, opts);
      if (ranking === 'vector' && embedder === undefined)
        throw new MemoryInputError("ranking 'vector' needs a store made with an embedder.");
      if (ranking === 'vector' && k > MAX_VECTOR_K)
        throw new MemoryInputError(`ranking 'vector' returns at most ${MAX_VECTOR_K} records (sqlite-vec's limit), asked for k ${k}.`);
      const terms = tokenize(query);
      if (k === 0 || terms.length === 0) return guarded(() => []);
      const filter: SearchFilter = {
        kind: kind ?? null,
        r: scope.resource ?? '',
        s: scope.session ?? '',
        all: includeSuperseded ? 1 : 0,
        since: Number.isFinite(since) ? since : null,
        until: Number.isFinite(until) ? until : null,
      };
      if (embedder === undefined || ranking === 'words') return guarded(() => searchWords(terms, filter, k, minScore));
      checkOpen();
      await backfilled(signal);
      const vector = (await embedOne(query, signal))!;
      return guarded(() => searchVectors(terms, filter, vector, k, minScore, ranking));
    },
    async forget(id, opts) {
      const { scope } = resolveOwner(id, opts);
      return guarded(() => forget.immediate(id, scope));
    },
    async all() {
      return guarded(() => q.all.all().map(read));
    },
    async get(id, opts) {
      const { scope } = resolveOwner(id, opts);
      return guarded(() => {
        const row = q.find.get({ id, ...owned(scope) });
        return row === undefined ? undefined : read(row);
      });
    },
    async list(opts) {
      const { kind, scope, includeSuperseded } = resolveList(opts);
      return guarded(() => q.list.all({ ...owned(scope), kind: kind ?? null, all: includeSuperseded ? 1 : 0 }).map(read));
    },
    async update(id, edit, opts) {
      const { scope } = resolveOwner(id, opts);
      const change = checkEdit(edit);
      const before = guarded(() => q.find.get({ id, ...owned(scope) }));
      if (before === undefined) return undefined;
      const vector = change.text === undefined || change.text === before.text ? undefined : await embedOne(change.text);
      // Edited as found then: if the text changed meanwhile, its vector is cleared and backfilled.
      return guarded(() => update.immediate(id, change, scope, vector));
    },
    async getWorking(scope) {
      const { resource: r, session: s } = scopeKey(checkWorkingScope(scope));
      return guarded(() => readWorking(q.working.get({ r, s }), path));
    },
    async setWorking(scope, content, opts) {
      const checked = checkWorkingScope(scope);
      const expected = checkExpectedVersion(opts);
      const text = encodeWorking(content);
      return guarded(() => workingFromRow(setWorking.immediate(checked, expected, text))!);
    },
    async forgetWorking(scope) {
      const { resource: r, session: s } = scopeKey(checkWorkingScope(scope));
      return guarded(() => q.forgetWorking.run({ r, s, at: Date.now() }).changes > 0);
    },
    close() {
      if (db.open) db.close();
    },
  };
}

/** FTS5 syntax for "has `term`, none of `without`": index terms are letters, marks and digits only, so quoting cannot be escaped. */
function ftsQuery(term: string, without: readonly string[]): string {
  const quote = (t: string) => `"${t.replaceAll('"', '""')}"`;
  return without.length === 0 ? quote(term) : `${quote(term)} NOT (${without.map(quote).join(' OR ')})`;
}

async function openFile(path: string, embedder: Embedder | undefined, reembed: boolean): Promise<{ db: Database; statements: Statements }> {
  let db: Database | undefined;
  try {
    db = await openDatabase(path);
    ensureSchema(db, path);
    if (embedder !== undefined) {
      await loadVectorExtension(db);
      ensureVectors(db, path, embedder, reembed);
    }
    return { db, statements: prepare(db) };
  } catch (error) {
    db?.close();
    if (
      SqliteUnavailableError.isInstance(error) ||
      SqliteMemoryFileError.isInstance(error) ||
      SqliteVecUnavailableError.isInstance(error) ||
      SqliteEmbedderMismatchError.isInstance(error)
    )
      throw error;
    throw new SqliteMemoryFileError(`Cannot open ${path} as a memory store: ${(error as Error).message}`, { cause: error });
  }
}

type Statements = ReturnType<typeof prepare>;

const COLUMNS = `seq, id, ord, text, kind, meta, scope_resource, scope_session, source_session, source_node, observed_at, key, supersedes,
  superseded_by, superseded_at, created_at, updated_at, fingerprint, terms, embedded`;
// An owner sees the records whose scope matches every part it sets (@r, @s NULL: unset).
const OWNED = '(@r IS NULL OR scope_resource = @r) AND (@s IS NULL OR scope_session = @s)';

/** Compiling a statement over the FTS table reads the file, so a damaged one can fail here already. */
function prepare(db: Database) {
  return {
    // Three lookups, each on its own index. Written as one WHERE with ORs, SQLite used the fingerprint
    // index for the scope alone and read every current record of the scope: saves grew slower with
    // the file (measured: 167 ms a save at 50,000 shared records).
    targets: db.prepare<Record<string, unknown>, Row & { ord: number }>(`SELECT ${COLUMNS} FROM memory_records
        WHERE id IN (SELECT value FROM json_each(@ids))
      UNION SELECT ${COLUMNS} FROM memory_records
        WHERE scope_resource = @r AND scope_session = @s AND key = @key AND superseded_by IS NULL
      UNION SELECT ${COLUMNS} FROM memory_records
        WHERE scope_resource = @r AND scope_session = @s AND fingerprint = @print AND superseded_by IS NULL AND kind IS @kind
      ORDER BY seq`),
    supersede: db.prepare('UPDATE memory_records SET superseded_by = ?, superseded_at = ? WHERE id = ?'),
    nextOrd: db.prepare<[], { ord: number }>('UPDATE memory_stats SET next_ord = next_ord + 1 RETURNING next_ord - 1 AS ord'),
    insert: db.prepare(`INSERT INTO memory_records (id, ord, text, kind, meta, scope_resource, scope_session, source_session, source_node,
      observed_at, key, supersedes, created_at, fingerprint, terms, embedded)
      VALUES (@id, @ord, @text, @kind, @meta, @r, @s, @sourceSession, @sourceNode, @observedAt, @key, @supersedes, @createdAt, @print, @terms,
        @embedded)`),
    insertTerms: db.prepare('INSERT INTO memory_terms_fts (rowid, terms) VALUES (?, ?)'),
    removeTerms: db.prepare("INSERT INTO memory_terms_fts (memory_terms_fts, rowid, terms) VALUES ('delete', ?, ?)"),
    find: db.prepare<{ id: string; r: string | null; s: string | null }, Row & { ord: number }>(
      `SELECT ${COLUMNS} FROM memory_records WHERE id = @id AND ${OWNED}`,
    ),
    bySeq: db.prepare<[number | bigint], Row>(`SELECT ${COLUMNS} FROM memory_records WHERE seq = ?`),
    remove: db.prepare('DELETE FROM memory_records WHERE seq = ?'),
    update: db.prepare(`UPDATE memory_records SET text = @text, kind = @kind, meta = @meta, updated_at = @updatedAt, fingerprint = @print,
      terms = @terms, ord = @ord, embedded = @embedded WHERE seq = @seq`),
    // A store without the embedder cannot touch the vec0 table; the next one with it removes the vectors left behind.
    markStale: db.prepare('UPDATE memory_embedder SET stale = 1 WHERE stale = 0'),
    all: db.prepare<[], Row>(`SELECT ${COLUMNS} FROM memory_records ORDER BY seq`),
    list: db.prepare<{ r: string | null; s: string | null; kind: string | null; all: number }, Row>(`SELECT ${COLUMNS} FROM memory_records
      WHERE ${OWNED} AND (@kind IS NULL OR kind = @kind) AND (@all = 1 OR superseded_by IS NULL) ORDER BY seq`),
    stats: db.prepare<[], { docs: number; total_length: number }>('SELECT docs, total_length FROM memory_stats'),
    df: db.prepare<[string], { term: string; df: number }>(
      'SELECT term, df FROM memory_terms WHERE term IN (SELECT value FROM json_each(?))',
    ),
    working: db.prepare<{ r: string; s: string }, { content: string | null; version: number }>(
      'SELECT content, version FROM working_memory WHERE scope_resource = @r AND scope_session = @s',
    ),
    putWorking: db.prepare(`INSERT INTO working_memory (scope_resource, scope_session, content, version, updated_at)
      VALUES (@r, @s, @content, @version, @at)
      ON CONFLICT (scope_resource, scope_session) DO UPDATE SET content = excluded.content, version = excluded.version, updated_at = excluded.updated_at`),
    forgetWorking: db.prepare(
      'UPDATE working_memory SET content = NULL, updated_at = @at WHERE scope_resource = @r AND scope_session = @s AND content IS NOT NULL',
    ),
    // A reader sees shared records and those of its own scope (@r, @s: '' when the reader has none).
    containing: db.prepare<Record<string, unknown>, TermCandidate>(`SELECT r.seq AS ref, r.ord AS "order", r.terms FROM memory_terms_fts f
      JOIN memory_records r ON r.seq = f.rowid
      WHERE memory_terms_fts MATCH @match AND ${FILTERED}`),
    // The records of a time window, through memory_records_observed, at most @cap of them.
    inWindow: db.prepare<Record<string, unknown>, TermCandidate>(`SELECT r.seq AS ref, r.ord AS "order", r.terms FROM memory_records r
      WHERE ${FILTERED_IN_WINDOW} LIMIT @cap`),
  };
}

/** A block's row as a block, parsed once: a file edited by hand must fail as the file's fault, not as a parse error. */
function readWorking(row: { content: string | null; version: number } | undefined, path: string): WorkingMemory | undefined {
  try {
    return workingFromRow(row);
  } catch (error) {
    throw new SqliteMemoryFileError(`A working memory block in ${path} is not readable JSON.`, { cause: error });
  }
}

function toRecord(row: Row, path: string): MemoryRecord {
  let decoded: Parameters<typeof recordFromRow>[1];
  try {
    decoded = {
      meta: row.meta === null ? undefined : JSON.parse(row.meta),
      supersedes: row.supersedes === null ? null : JSON.parse(row.supersedes),
    };
  } catch (error) {
    throw new SqliteMemoryFileError(`Record ${row.id} in ${path} has unreadable meta.`, { cause: error });
  }
  return recordFromRow(row, decoded);
}
