import { randomUUID } from 'node:crypto';
import { foldWords } from '../search/index.js';
import type { MemoryRecord, MemoryStore } from '../memory/types.js';
import { MemoryInputError } from '../memory/errors.js';
import { checkSave, describe, encodeMeta, resolveSearch } from '../memory/options.js';
import { openDatabase, sqliteFailure } from './driver.js';
import type { Database } from './driver.js';
import { ensureSchema } from './schema.js';
import { MemoryStoreClosedError, SqliteMemoryFileError, SqliteUnavailableError } from './errors.js';

/** A durable `MemoryStore`: every method of the interface, `all` included, plus `close`. */
export interface SqliteMemoryStore extends MemoryStore {
  readonly path: string;
  all(): Promise<MemoryRecord[]>;
  /** Closes the database; later calls throw `MemoryStoreClosedError`. Safe to call twice. */
  close(): void;
}

type Row = { id: string; text: string; kind: string | null; meta: string | null; created_at: number; rank?: number };

/**
 * Opens (creating if needed) a memory store in the SQLite file at `path`, ranked by FTS5's bm25 with
 * Porter stemming. Each save and forget is one transaction, durable once its promise resolves, and
 * several processes may share the file (WAL). Rejects with `SqliteUnavailableError` when better-sqlite3
 * is not installed and `SqliteMemoryFileError` when the file is not a usable memory store; a call
 * that finds the file damaged rejects with `SqliteMemoryFileError`, one that cannot read or write it
 * for another reason (disk full, I/O error) with `SqliteMemoryIoError`.
 */
export async function openSqliteMemoryStore(path: string): Promise<SqliteMemoryStore> {
  if (typeof path !== 'string' || path === '') throw new MemoryInputError(`The store path must be a non-empty string, got ${describe(path)}.`);
  const { db, statements } = await openFile(path);
  const { search, list } = statements;
  const save = db.transaction((record: MemoryRecord, meta: string | null) => {
    const { lastInsertRowid } = statements.insert.run(record.id, record.text, record.kind ?? null, meta, record.createdAt);
    statements.insertText.run(lastInsertRowid, record.text);
  });
  const forget = db.transaction((id: string) => {
    const row = statements.find.get(id);
    if (!row) return false;
    statements.removeText.run(row.seq, row.text);
    statements.remove.run(row.seq);
    return true;
  });
  // Damage may lie anywhere in the file and only show when a query reaches it.
  const guarded = <T>(work: () => T): T => {
    try {
      return work();
    } catch (error) {
      throw sqliteFailure(error, path);
    }
  };

  const open = () => {
    if (!db.open) throw new MemoryStoreClosedError();
  };

  return {
    path,
    async save(text, opts) {
      open();
      checkSave(text, opts);
      const record: MemoryRecord = { id: randomUUID(), text, createdAt: Date.now() };
      if (opts?.kind !== undefined) record.kind = opts.kind;
      const meta = opts?.meta === undefined ? null : encodeMeta(opts.meta);
      guarded(() => save(record, meta));
      if (meta !== null) record.meta = JSON.parse(meta);
      return record;
    },
    async search(query, opts) {
      open();
      const { k, kind, minScore } = resolveSearch(query, opts);
      const words = [...new Set(foldWords(query))];
      if (k === 0 || words.length === 0) return [];
      // Only letters, marks and digits reach this point, so quoting each word cannot smuggle in FTS syntax.
      const match = words.map((word) => `"${word}"`).join(' OR ');
      return guarded(() => search.all({ match, kind: kind ?? null, k }))
        .map((row) => ({ ...toRecord(row, path), score: -row.rank! }))
        .filter((record) => record.score > minScore);
    },
    async forget(id) {
      open();
      if (typeof id !== 'string') throw new MemoryInputError(`Record id must be a string, got ${describe(id)}.`);
      return guarded(() => forget(id));
    },
    async all() {
      open();
      return guarded(() => list.all()).map((row) => toRecord(row, path));
    },
    close() {
      if (db.open) db.close();
    },
  };
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

/** Compiling a statement over the FTS table reads the file, so a damaged one can fail here already. */
function prepare(db: Database) {
  return {
    insert: db.prepare('INSERT INTO memory_records (id, text, kind, meta, created_at) VALUES (?, ?, ?, ?, ?)'),
    insertText: db.prepare('INSERT INTO memory_fts (rowid, text) VALUES (?, ?)'),
    find: db.prepare<[string], { seq: number; text: string }>('SELECT seq, text FROM memory_records WHERE id = ?'),
    removeText: db.prepare("INSERT INTO memory_fts (memory_fts, rowid, text) VALUES ('delete', ?, ?)"),
    remove: db.prepare('DELETE FROM memory_records WHERE seq = ?'),
    list: db.prepare<[], Row>('SELECT id, text, kind, meta, created_at FROM memory_records ORDER BY seq'),
    search: db.prepare<{ match: string; kind: string | null; k: number }, Row>(`
      SELECT r.id, r.text, r.kind, r.meta, r.created_at, bm25(memory_fts) AS rank
      FROM memory_fts JOIN memory_records r ON r.seq = memory_fts.rowid
      WHERE memory_fts MATCH @match AND (@kind IS NULL OR r.kind = @kind)
      ORDER BY rank, r.seq
      LIMIT @k`),
  };
}

function toRecord(row: Row, path: string): MemoryRecord {
  const record: MemoryRecord = { id: row.id, text: row.text, createdAt: row.created_at };
  if (row.kind !== null) record.kind = row.kind;
  if (row.meta !== null) {
    try {
      record.meta = JSON.parse(row.meta);
    } catch (error) {
      throw new SqliteMemoryFileError(`Record ${row.id} in ${path} has unreadable meta.`, { cause: error });
    }
  }
  return record;
}
