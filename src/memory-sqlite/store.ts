import { randomUUID } from 'node:crypto';
import { searchTermSourceSync, tokenize, type TermCandidate } from '../search/index.js';
import type { GovernedMemoryStore, MemoryRecord, MemoryScope } from '../memory/types.js';
import { MemoryInputError } from '../memory/errors.js';
import { checkEdit, checkSave, describe, resolveList, resolveOwner, resolveSearch } from '../memory/options.js';
import { editedTerms, fingerprint, newRecord, recordTerms, sameScope } from '../memory/governance.js';
import { chooseTargets } from '../memory/supersede.js';
import { recordFromRow, type MemoryRow } from '../memory/rows.js';
import { openDatabase, sqliteFailure } from './driver.js';
import type { Database } from './driver.js';
import { ensureSchema, prepareCounts } from './schema.js';
import { MemoryStoreClosedError, SqliteMemoryFileError, SqliteUnavailableError } from './errors.js';

/** A durable `MemoryStore`: every method of the interface, the optional ones included, plus `close`. */
export interface SqliteMemoryStore extends GovernedMemoryStore {
  readonly path: string;
  /** Closes the database; later calls throw `MemoryStoreClosedError`. Safe to call twice. */
  close(): void;
}

type Row = MemoryRow & { meta: string | null; supersedes: string | null; terms: string };

/**
 * Opens (creating or upgrading if needed) a memory store in the SQLite file at `path`. Records are
 * found through FTS5 over their index terms (indusagi's tokenizer, as in every store; a save's
 * `context` in the same term list at half weight) and ranked with the same BM25 and feedback as the
 * other stores, from term statistics kept in step with every write. Each write is
 * one transaction, durable once its promise resolves, and several processes may share the file (WAL).
 * Rejects with `SqliteUnavailableError` when better-sqlite3 is not installed and
 * `SqliteMemoryFileError` when the file is not a usable memory store; a call that finds the file
 * damaged rejects with `SqliteMemoryFileError`, one that cannot read or write it for another reason
 * (disk full, I/O error) with `SqliteMemoryIoError`.
 */
export async function openSqliteMemoryStore(path: string): Promise<SqliteMemoryStore> {
  if (typeof path !== 'string' || path === '')
    throw new MemoryInputError(`The store path must be a non-empty string, got ${describe(path)}.`);
  const { db, statements: q } = await openFile(path);
  const count = prepareCounts(db);

  // Damage may lie anywhere in the file and only show when a query reaches it.
  const guarded = <T>(work: () => T): T => {
    if (!db.open) throw new MemoryStoreClosedError();
    try {
      return work();
    } catch (error) {
      throw sqliteFailure(error, path);
    }
  };
  const read = (row: Row) => toRecord(row, path);
  const owned = (scope: MemoryScope) => ({ r: scope.resource ?? null, s: scope.session ?? null });

  const save = db.transaction((text: string, opts: Parameters<GovernedMemoryStore['save']>[1]) => {
    const resolved = checkSave(text, opts);
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
    });
    q.insertTerms.run(lastInsertRowid, terms);
    count(terms, 1);
    return record;
  });

  const forget = db.transaction((id: string, scope: MemoryScope) => {
    const row = q.find.get({ id, ...owned(scope) });
    if (!row) return false;
    q.removeTerms.run(row.seq, row.terms);
    q.remove.run(row.seq);
    count(row.terms, -1);
    return true;
  });

  const update = db.transaction((id: string, change: ReturnType<typeof checkEdit>, scope: MemoryScope) => {
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
    });
    if (reindex) {
      q.insertTerms.run(row.seq, terms);
      count(terms, 1);
    }
    return read(q.bySeq.get(row.seq)!);
  });

  const search = db.transaction(
    (terms: string[], filter: { kind: string | null; r: string; s: string; all: number }, k: number, minScore: number) => {
      const ranked = searchTermSourceSync(
        {
          stats: (asked) => {
            const { docs, total_length } = q.stats.get()!;
            const df = new Map(q.df.all(JSON.stringify(asked)).map((row) => [row.term, row.df]));
            return { docs, totalLength: total_length, df };
          },
          containing: (term, without) => q.containing.all({ ...filter, match: ftsQuery(term, without) }),
        },
        terms,
        { k, minScore },
      );
      return ranked.map(({ ref, score }) => ({ ...read(q.bySeq.get(ref)!), score }));
    },
  );

  return {
    path,
    async save(text, opts) {
      return guarded(() => save.immediate(text, opts));
    },
    async search(query, opts) {
      const { k, kind, minScore, scope, includeSuperseded } = resolveSearch(query, opts);
      const terms = tokenize(query);
      if (k === 0 || terms.length === 0) return guarded(() => []);
      return guarded(() =>
        search(terms, { kind: kind ?? null, r: scope.resource ?? '', s: scope.session ?? '', all: includeSuperseded ? 1 : 0 }, k, minScore),
      );
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
      return guarded(() => update.immediate(id, change, scope));
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

async function openFile(path: string): Promise<{ db: Database; statements: Statements }> {
  let db: Database | undefined;
  try {
    db = await openDatabase(path);
    ensureSchema(db, path);
    return { db, statements: prepare(db) };
  } catch (error) {
    db?.close();
    if (SqliteUnavailableError.isInstance(error) || SqliteMemoryFileError.isInstance(error)) throw error;
    throw new SqliteMemoryFileError(`Cannot open ${path} as a memory store: ${(error as Error).message}`, { cause: error });
  }
}

type Statements = ReturnType<typeof prepare>;

const COLUMNS = `seq, id, ord, text, kind, meta, scope_resource, scope_session, source_session, source_node, observed_at, key, supersedes,
  superseded_by, superseded_at, created_at, updated_at, fingerprint, terms`;
// An owner sees the records whose scope matches every part it sets (@r, @s NULL: unset).
const OWNED = '(@r IS NULL OR scope_resource = @r) AND (@s IS NULL OR scope_session = @s)';

/** Compiling a statement over the FTS table reads the file, so a damaged one can fail here already. */
function prepare(db: Database) {
  return {
    targets: db.prepare<Record<string, unknown>, Row & { ord: number }>(`SELECT ${COLUMNS} FROM memory_records
      WHERE id IN (SELECT value FROM json_each(@ids)) OR (scope_resource = @r AND scope_session = @s AND superseded_by IS NULL
        AND (key = @key OR (fingerprint = @print AND kind IS @kind)))`),
    supersede: db.prepare('UPDATE memory_records SET superseded_by = ?, superseded_at = ? WHERE id = ?'),
    nextOrd: db.prepare<[], { ord: number }>('UPDATE memory_stats SET next_ord = next_ord + 1 RETURNING next_ord - 1 AS ord'),
    insert: db.prepare(`INSERT INTO memory_records (id, ord, text, kind, meta, scope_resource, scope_session, source_session, source_node,
      observed_at, key, supersedes, created_at, fingerprint, terms)
      VALUES (@id, @ord, @text, @kind, @meta, @r, @s, @sourceSession, @sourceNode, @observedAt, @key, @supersedes, @createdAt, @print, @terms)`),
    insertTerms: db.prepare('INSERT INTO memory_terms_fts (rowid, terms) VALUES (?, ?)'),
    removeTerms: db.prepare("INSERT INTO memory_terms_fts (memory_terms_fts, rowid, terms) VALUES ('delete', ?, ?)"),
    find: db.prepare<{ id: string; r: string | null; s: string | null }, Row & { ord: number }>(
      `SELECT ${COLUMNS} FROM memory_records WHERE id = @id AND ${OWNED}`,
    ),
    bySeq: db.prepare<[number | bigint], Row>(`SELECT ${COLUMNS} FROM memory_records WHERE seq = ?`),
    remove: db.prepare('DELETE FROM memory_records WHERE seq = ?'),
    update: db.prepare(`UPDATE memory_records SET text = @text, kind = @kind, meta = @meta, updated_at = @updatedAt, fingerprint = @print,
      terms = @terms, ord = @ord WHERE seq = @seq`),
    all: db.prepare<[], Row>(`SELECT ${COLUMNS} FROM memory_records ORDER BY seq`),
    list: db.prepare<{ r: string | null; s: string | null; kind: string | null; all: number }, Row>(`SELECT ${COLUMNS} FROM memory_records
      WHERE ${OWNED} AND (@kind IS NULL OR kind = @kind) AND (@all = 1 OR superseded_by IS NULL) ORDER BY seq`),
    stats: db.prepare<[], { docs: number; total_length: number }>('SELECT docs, total_length FROM memory_stats'),
    df: db.prepare<[string], { term: string; df: number }>(
      'SELECT term, df FROM memory_terms WHERE term IN (SELECT value FROM json_each(?))',
    ),
    // A reader sees shared records and those of its own scope (@r, @s: '' when the reader has none).
    containing: db.prepare<Record<string, unknown>, TermCandidate>(`SELECT r.seq AS ref, r.ord AS "order", r.terms FROM memory_terms_fts f
      JOIN memory_records r ON r.seq = f.rowid
      WHERE memory_terms_fts MATCH @match AND r.scope_resource IN ('', @r) AND r.scope_session IN ('', @s)
        AND (@all = 1 OR r.superseded_by IS NULL) AND (@kind IS NULL OR r.kind = @kind)`),
  };
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
