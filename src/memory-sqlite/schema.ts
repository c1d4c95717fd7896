import type { Database } from './driver.js';
import { SqliteMemoryFileError } from './errors.js';
import { fingerprint, termString } from '../memory/governance.js';
import { distinctTerms, termLength } from '../search/index.js';

// The version 2 layout, which every fresh file starts from before the later STEPS.
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

/** One schema change: `apply` takes a file at `version - 1` to `version`. */
type Step = { version: number; apply: (db: Database) => void };

// Applied in order, each at most once, all in the open's one transaction: a file at version n gets every
// step after n. Version 2 is the base a fresh file is created at (CREATE); a step for version 4 goes
// after step 3 and must not assume more than the tables steps up to 3 made.
const STEPS: readonly Step[] = [
  { version: 2, apply: upgradeFromV1 },
  { version: 3, apply: addVectorBookkeeping },
  { version: 4, apply: addWorkingMemory },
  { version: 5, apply: addVectorCopies },
  { version: 6, apply: addObservedIndex },
];

/** The version a file reaches once every step has been applied; a newer one is refused. */
export const SCHEMA_VERSION = STEPS[STEPS.length - 1].version;

/**
 * Creates the tables on a fresh file, accepts a file at this version, upgrades an older one (version
 * 1, the text-indexed layout, 2, before vectors, 3, before working memory, 4, before the vector
 * copies, or 5, before the time index) through STEPS in one transaction, refuses anything
 * else. A local file is upgraded on open: only one machine reaches it, unlike a shared PostgreSQL schema.
 */
export function ensureSchema(db: Database, path: string): void {
  // WAL lets readers in other processes proceed while one process writes.
  db.pragma('journal_mode = WAL');
  db.transaction(() => {
    let version = db.pragma('user_version', { simple: true }) as number;
    if (version === SCHEMA_VERSION) return;
    if (version > SCHEMA_VERSION || version < 0) {
      throw new SqliteMemoryFileError(
        `${path} holds memory schema version ${version}; this version of indusagi reads versions up to ${SCHEMA_VERSION}.`,
      );
    }
    if (version === 0) {
      const existing = db
        .prepare("SELECT name FROM sqlite_master WHERE name IN ('memory_records', 'memory_fts', 'memory_terms_fts')")
        .all();
      if (existing.length > 0)
        throw new SqliteMemoryFileError(`${path} already has memory tables without a schema version; refusing to guess their layout.`);
      db.exec(CREATE);
      version = 2;
    }
    for (const step of STEPS) {
      if (step.version <= version) continue;
      step.apply(db);
      version = step.version;
    }
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/**
 * Version 3: each record says whether `memory_vectors` holds the vector of its current text
 * (`embedded`), and `memory_embedder` names the embedder those vectors came from. The vec0 table itself
 * is made by the first store opened with an embedder (`ensureVectors`): its size is the embedder's, and
 * a file used without one never needs sqlite-vec.
 */
function addVectorBookkeeping(db: Database): void {
  db.exec(`
    ALTER TABLE memory_records ADD COLUMN embedded INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX memory_records_unembedded ON memory_records(seq) WHERE embedded = 0;
    CREATE TABLE memory_embedder (
      one INTEGER PRIMARY KEY CHECK (one = 1),
      id TEXT NOT NULL,
      dimensions INTEGER NOT NULL,
      stale INTEGER NOT NULL DEFAULT 0
    );
  `);
}

/**
 * Version 4: working memory, one block per exact scope. A forgotten block keeps its row with no
 * content, so the version it reached is never handed out again.
 */
function addWorkingMemory(db: Database): void {
  db.exec(`CREATE TABLE working_memory (
    scope_resource TEXT NOT NULL,
    scope_session TEXT NOT NULL,
    content TEXT,
    version INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (scope_resource, scope_session)
  ) WITHOUT ROWID`);
}

/**
 * Version 5: each vector also kept as a plain blob by seq (`memory_vector_copies`), so a filtered
 * vector search reads only the passing records' vectors. vec0 has no cheap lookup by rowid: ranking
 * 1,000 records through a rowid constraint read every chunk of the table (90 ms at 100,000 vectors of
 * 512 dimensions, bench memory-stores-sqlite-vectors), against under 2 ms from this table. A file's
 * vec0 table can only be read with sqlite-vec loaded, so this step only makes the table and flags the
 * recorded embedder's vectors as not copied yet (`copied` 0); the next store opened with the embedder
 * copies them (`ensureVectors`).
 */
function addVectorCopies(db: Database): void {
  db.exec(`
    CREATE TABLE memory_vector_copies (seq INTEGER PRIMARY KEY, embedding BLOB NOT NULL);
    ALTER TABLE memory_embedder ADD COLUMN copied INTEGER NOT NULL DEFAULT 0;
  `);
}

/**
 * Version 6: records by when they were said, so a search with a time window (`since`, `until`) ranks
 * its vectors over just the window's records found through the index, instead of reading every record
 * to test its time (bench memory-stores-sqlite-vectors, 1% window).
 */
function addObservedIndex(db: Database): void {
  db.exec('CREATE INDEX memory_records_observed ON memory_records(observed_at)');
}

type V1Row = { id: string; text: string; kind: string | null; meta: string | null; created_at: number };

/** Version 1 kept records and a Porter-stemmed FTS index of their text; every record is carried over. */
function upgradeFromV1(db: Database): void {
  const old = db.prepare<[], V1Row>('SELECT id, text, kind, meta, created_at FROM memory_records ORDER BY seq').all();
  db.exec('DROP TABLE memory_fts; DROP TABLE memory_records;');
  // CREATE is the version 2 layout, which is what this step leaves.
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
