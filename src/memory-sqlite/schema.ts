import type { Database } from './driver.js';
import { SqliteMemoryFileError } from './errors.js';

// Bumped whenever the tables change; an unknown version is refused rather than misread.
const SCHEMA_VERSION = 1;

const CREATE = `
  CREATE TABLE memory_records (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    text TEXT NOT NULL,
    kind TEXT,
    meta TEXT,
    created_at REAL NOT NULL
  );
  CREATE INDEX memory_records_kind ON memory_records(kind);
  CREATE VIRTUAL TABLE memory_fts USING fts5(
    text,
    content = 'memory_records',
    content_rowid = 'seq',
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
`;

/** Creates the tables on a fresh file, accepts a file at this version, refuses anything else. */
export function ensureSchema(db: Database, path: string): void {
  // WAL lets readers in other processes proceed while one process writes.
  db.pragma('journal_mode = WAL');
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    if (version !== 0) {
      throw new SqliteMemoryFileError(`${path} holds memory schema version ${version}; this version of indusagi reads version ${SCHEMA_VERSION}.`);
    }
    const existing = db.prepare("SELECT name FROM sqlite_master WHERE name IN ('memory_records', 'memory_fts')").all();
    if (existing.length > 0) throw new SqliteMemoryFileError(`${path} already has memory tables without a schema version; refusing to guess their layout.`);
    db.exec(CREATE);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
