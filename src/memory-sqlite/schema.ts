import type { Database } from './driver.js';
import { SqliteMemoryFileError } from './errors.js';
import { fingerprint, termString } from '../memory/governance.js';
import { distinctTerms, termLength } from '../search/index.js';

// Bumped whenever the tables change; an older version is upgraded in place, a newer one refused.
const SCHEMA_VERSION = 2;

// FTS5 indexes the index terms indusagi's tokenizer made (`terms`), not the raw text, so it matches
// exactly what the other stores match. Its tokenizer only has to split on the spaces between terms:
// every letter, mark and digit is a token character.
const CREATE = `
  CREATE TABLE memory_records (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    ord INTEGER NOT NULL,
    text TEXT NOT NULL,
    kind TEXT,
    meta TEXT,
    scope_resource TEXT NOT NULL DEFAULT '',
    scope_session TEXT NOT NULL DEFAULT '',
    source_session TEXT,
    source_node TEXT,
    observed_at REAL NOT NULL,
    key TEXT,
    supersedes TEXT,
    superseded_by TEXT,
    superseded_at REAL,
    created_at REAL NOT NULL,
    updated_at REAL,
    fingerprint TEXT NOT NULL,
    terms TEXT NOT NULL
  );
  CREATE UNIQUE INDEX memory_records_current_key ON memory_records(scope_resource, scope_session, key)
    WHERE key IS NOT NULL AND superseded_by IS NULL;
  CREATE INDEX memory_records_current_fingerprint ON memory_records(scope_resource, scope_session, fingerprint)
    WHERE superseded_by IS NULL;
  CREATE VIRTUAL TABLE memory_terms_fts USING fts5(
    terms,
    content = 'memory_records',
    content_rowid = 'seq',
    tokenize = "unicode61 remove_diacritics 0 categories 'L* M* N* Co'"
  );
  CREATE TABLE memory_terms (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE memory_stats (one INTEGER PRIMARY KEY CHECK (one = 1), docs INTEGER NOT NULL, total_length INTEGER NOT NULL, next_ord INTEGER NOT NULL);
  INSERT INTO memory_stats VALUES (1, 0, 0, 1);
`;

/**
 * Creates the tables on a fresh file, accepts a file at this version, upgrades a version 1 file (the
 * text-indexed layout) in one transaction, refuses anything else. A local file is upgraded on open:
 * only one machine reaches it, unlike a shared PostgreSQL schema.
 */
export function ensureSchema(db: Database, path: string): void {
  // WAL lets readers in other processes proceed while one process writes.
  db.pragma('journal_mode = WAL');
  db.transaction(() => {
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    if (version === 1) return upgradeFromV1(db);
    if (version !== 0) {
      throw new SqliteMemoryFileError(
        `${path} holds memory schema version ${version}; this version of indusagi reads versions up to ${SCHEMA_VERSION}.`,
      );
    }
    const existing = db.prepare("SELECT name FROM sqlite_master WHERE name IN ('memory_records', 'memory_fts', 'memory_terms_fts')").all();
    if (existing.length > 0)
      throw new SqliteMemoryFileError(`${path} already has memory tables without a schema version; refusing to guess their layout.`);
    db.exec(CREATE);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

type V1Row = { id: string; text: string; kind: string | null; meta: string | null; created_at: number };

/** Version 1 kept records and a Porter-stemmed FTS index of their text; every record is carried over. */
function upgradeFromV1(db: Database): void {
  const old = db.prepare<[], V1Row>('SELECT id, text, kind, meta, created_at FROM memory_records ORDER BY seq').all();
  db.exec('DROP TABLE memory_fts; DROP TABLE memory_records;');
  db.exec(CREATE);
  const insert = db.prepare(`INSERT INTO memory_records (id, ord, text, kind, meta, observed_at, created_at, fingerprint, terms)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const insertTerms = db.prepare('INSERT INTO memory_terms_fts (rowid, terms) VALUES (?, ?)');
  const count = prepareCounts(db);
  old.forEach((row, i) => {
    const terms = termString(row.text);
    const { lastInsertRowid } = insert.run(
      row.id,
      i + 1,
      row.text,
      row.kind,
      row.meta,
      row.created_at,
      row.created_at,
      fingerprint(row.text),
      terms,
    );
    insertTerms.run(lastInsertRowid, terms);
    count(terms, 1);
  });
  db.prepare('UPDATE memory_stats SET next_ord = ?').run(old.length + 1);
  db.pragma(`user_version = ${SCHEMA_VERSION}`);
}

/** Keeps the BM25 statistics in step with a record's terms coming (+1) or going (-1). */
export function prepareCounts(db: Database): (terms: string, sign: 1 | -1) => void {
  const up = db.prepare('INSERT INTO memory_terms (term, df) VALUES (?, 1) ON CONFLICT (term) DO UPDATE SET df = df + 1');
  const down = db.prepare('UPDATE memory_terms SET df = df - 1 WHERE term = ?');
  const drop = db.prepare('DELETE FROM memory_terms WHERE term = ? AND df <= 0');
  const stats = db.prepare('UPDATE memory_stats SET docs = docs + ?, total_length = total_length + ?');
  return (terms, sign) => {
    // The context mark is no term: it counts in neither df nor length (search/term-list.ts).
    const list = terms === '' ? [] : terms.split(' ');
    for (const term of distinctTerms(list)) {
      if (sign === 1) up.run(term);
      else {
        down.run(term);
        drop.run(term);
      }
    }
    stats.run(sign, sign * termLength(list));
  };
}
