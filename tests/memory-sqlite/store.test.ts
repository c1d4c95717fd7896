import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteMemoryStore, SqliteMemoryFileError } from '../../src/memory-sqlite/index.js';
import { createMemoryStore, MemoryStoreClosedError } from '../../src/memory/index.js';
import type { SqliteMemoryStore } from '../../src/memory-sqlite/index.js';
import { memoryStoreContract } from '../memory/store-contract.js';
import { workingMemoryContract } from '../memory/working-contract.js';

const root = mkdtempSync(join(tmpdir(), 'indusagi-sqlite-memory-'));
const opened: SqliteMemoryStore[] = [];
let files = 0;
const freshPath = () => join(root, `store-${++files}.db`);
const open = async (path = freshPath()) => {
  const store = await openSqliteMemoryStore(path);
  opened.push(store);
  return store;
};

afterAll(() => {
  for (const store of opened) store.close();
  rmSync(root, { recursive: true, force: true });
});

const repo = resolve(import.meta.dirname, '../..');
const storeModule = join(repo, 'src/memory-sqlite/index.ts');

/** Runs an ES module script in a fresh Node process (TypeScript through tsx); resolves with its stdout. */
function runChild(source: string, opts: { imports?: string[]; onLine?: (line: string, kill: () => void) => void } = {}) {
  const script = join(root, `child-${++files}.mts`);
  writeFileSync(script, source);
  return new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...(opts.imports ?? []).flatMap((i) => ['--import', i]), script], {
      cwd: repo,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      for (const line of chunk.toString().split('\n')) if (line) opts.onLine?.(line, () => child.kill('SIGKILL'));
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

memoryStoreContract('openSqliteMemoryStore', () => open());
// Two connections on one file, as two processes would have.
workingMemoryContract('openSqliteMemoryStore', async () => {
  const path = freshPath();
  return { store: await open(path), peer: await open(path) };
});

describe('openSqliteMemoryStore durability', () => {
  it('keeps what another process saved (and forgot) once each promise resolved, even when that process is then killed', async () => {
    const path = freshPath();
    let kept = '';
    const child = await runChild(
      `
      import { openSqliteMemoryStore } from ${JSON.stringify(storeModule)};
      const store = await openSqliteMemoryStore(${JSON.stringify(path)});
      const kept = await store.save('The user prefers metric units', { kind: 'preference', meta: { from: 'child' } });
      const gone = await store.save('Temporary fact about units');
      await store.forget(gone.id);
      console.log('done ' + kept.id);
      setInterval(() => {}, 1000);
    `,
      {
        onLine: (line, kill) => {
          if (!line.startsWith('done ')) return;
          kept = line.slice(5);
          kill();
        },
      },
    );
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    const store = await open(path);
    const hits = await store.search('units');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({ id: kept, text: 'The user prefers metric units', kind: 'preference', meta: { from: 'child' } });
    expect((await store.all()).map((r) => r.id)).toEqual([kept]);
  });

  it('lets two processes write the same file at once without losing a record', async () => {
    const path = freshPath();
    (await open(path)).close();
    const writer = (tag: string) => `
      import { openSqliteMemoryStore } from ${JSON.stringify(storeModule)};
      const store = await openSqliteMemoryStore(${JSON.stringify(path)});
      for (let i = 0; i < 40; i++) await store.save('${tag} entry ' + i, { kind: '${tag}' });
      store.close();
    `;
    const results = await Promise.all([runChild(writer('left')), runChild(writer('right'))]);
    for (const result of results) expect(result.stderr).toBe('');
    const store = await open(path);
    const all = await store.all();
    expect(all).toHaveLength(80);
    expect(await store.search('entry', { kind: 'left', k: 100 })).toHaveLength(40);
  });

  it('lets two processes update one working memory block at once without losing an update', async () => {
    const path = freshPath();
    const setup = await open(path);
    await setup.setWorking({ resource: 'ana' }, { count: 0 }, { expectedVersion: 0 });
    setup.close();
    // Each adds 1 three hundred times by read, add, write at the version read, reading again after a conflict.
    // Both start counting once both are open (each says so with a record), so their writes interleave.
    const counter = (tag: string) => `
      import { openSqliteMemoryStore } from ${JSON.stringify(storeModule)};
      import { WorkingMemoryConflictError } from ${JSON.stringify(join(repo, 'src/memory/index.ts'))};
      const store = await openSqliteMemoryStore(${JSON.stringify(path)});
      await store.save('ready ${tag}', { kind: 'ready' });
      while ((await store.list({ kind: 'ready' })).length < 2) await new Promise((go) => setImmediate(go));
      let conflicts = 0;
      for (let done = 0; done < 300; ) {
        const { content, version } = await store.getWorking({ resource: 'ana' });
        try {
          await store.setWorking({ resource: 'ana' }, { count: content.count + 1 }, { expectedVersion: version });
          done++;
        } catch (error) {
          if (!WorkingMemoryConflictError.isInstance(error)) throw error;
          conflicts++;
        }
      }
      console.log('conflicts ' + conflicts);
      store.close();
    `;
    const results = await Promise.all([runChild(counter('left')), runChild(counter('right'))]);
    for (const result of results) expect(result.stderr).toBe('');
    for (const result of results) expect(result.stdout).toMatch(/^conflicts \d+\n$/);
    const store = await open(path);
    expect(await store.getWorking({ resource: 'ana' })).toEqual({ content: { count: 600 }, version: 601 });
  });

  it('reopens the same file in one process with everything in it', async () => {
    const path = freshPath();
    const first = await open(path);
    await first.save('first open');
    first.close();
    const second = await open(path);
    await second.save('second open');
    expect((await second.all()).map((r) => r.text)).toEqual(['first open', 'second open']);
  });
});

describe('openSqliteMemoryStore time windows', () => {
  it('ranks the words of a small window over its records and a large one through FTS5, both as the in-process store ranks them', async () => {
    const sqlite = await open();
    const reference = createMemoryStore();
    const vocabulary = ['garden', 'tulip', 'rose', 'river', 'chess', 'lisbon', 'tax', 'puppy', 'shelter', 'friday'];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 2)];
    // More records than a small window reads whole (2,000), so the whole span goes through FTS5.
    for (let at = 0; at < 2_100; at++) {
      const text = `${Array.from({ length: 1 + Math.floor(random() * 5) }, word).join(' ')} note ${at}`;
      // Some records found by their context's words too (counted at half weight).
      const opts = { provenance: { at }, ...(at % 4 === 0 ? { context: `${word()} ${word()}` } : {}) };
      await sqlite.save(text, opts);
      await reference.save(text, opts);
    }
    const windows = [{ since: 1_000, until: 1_040 }, { until: 25 }, { since: 2_080 }, { since: 0 }, { since: 50, until: 2_090 }];
    for (const window of windows)
      for (const query of ['tulip garden', 'chess by the river', 'puppy shelter friday']) {
        const hits = await sqlite.search(query, { k: 10, ...window });
        const expected = await reference.search(query, { k: 10, ...window });
        expect(hits.length, JSON.stringify({ window, query })).toBeGreaterThan(0);
        expect(
          hits.map((h) => [h.text, h.score]),
          JSON.stringify({ window, query }),
        ).toEqual(expected.map((h) => [h.text, expect.closeTo(h.score!, 9)]));
      }
  });
});

describe('openSqliteMemoryStore errors', () => {
  it('refuses use after close with MemoryStoreClosedError, and close is idempotent', async () => {
    const store = await open();
    store.close();
    store.close();
    await expect(store.save('late')).rejects.toBeInstanceOf(MemoryStoreClosedError);
    await expect(store.search('late')).rejects.toBeInstanceOf(MemoryStoreClosedError);
    await expect(store.forget('x')).rejects.toBeInstanceOf(MemoryStoreClosedError);
    await expect(store.all()).rejects.toBeInstanceOf(MemoryStoreClosedError);
  });

  it('refuses a file that is not a database, and leaves it as it was', async () => {
    const path = freshPath();
    writeFileSync(path, 'these are my notes, not a database\n'.repeat(200));
    const error = await openSqliteMemoryStore(path).catch((e: unknown) => e);
    expect(SqliteMemoryFileError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(path);
  });

  it('upgrades a version 1 file (text-indexed, before governance) in place through every step, keeping every record', async () => {
    const path = freshPath();
    const db = new Database(path);
    db.exec(`
      CREATE TABLE memory_records (seq INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, text TEXT NOT NULL, kind TEXT, meta TEXT, created_at REAL NOT NULL);
      CREATE INDEX memory_records_kind ON memory_records(kind);
      CREATE VIRTUAL TABLE memory_fts USING fts5(text, content = 'memory_records', content_rowid = 'seq', tokenize = 'porter unicode61 remove_diacritics 2');
      INSERT INTO memory_records VALUES (1, 'r1', 'The user prefers metric units', 'preference', '{"source":"chat"}', 1000), (2, 'r2', 'Deploys happen on Fridays', NULL, NULL, 2000);
      INSERT INTO memory_fts (rowid, text) SELECT seq, text FROM memory_records;
      PRAGMA user_version = 1;
    `);
    db.close();
    const store = await open(path);
    expect(await store.all()).toEqual([
      {
        id: 'r1',
        text: 'The user prefers metric units',
        kind: 'preference',
        meta: { source: 'chat' },
        createdAt: 1000,
        provenance: { at: 1000 },
      },
      { id: 'r2', text: 'Deploys happen on Fridays', createdAt: 2000, provenance: { at: 2000 } },
    ]);
    expect((await store.search('unit')).map((r) => r.id)).toEqual(['r1']);
    const fresh = await store.save('Deploys happen on Fridays');
    expect(fresh.supersedes).toEqual(['r2']);
    store.close();
    const check = new Database(path);
    expect(check.pragma('user_version', { simple: true })).toBe(6);
    check.close();
  });

  it('upgrades a version 3 file (before working memory) in place: its records kept, working memory usable and kept', async () => {
    const path = freshPath();
    const before = await open(path);
    const kept = await before.save('The user prefers metric units', { key: 'units', scope: { resource: 'ana' } });
    before.close();
    // A version 3 file is today's layout without the working memory table and the vector copies.
    const db = new Database(path);
    db.exec(
      'DROP INDEX memory_records_observed; DROP TABLE working_memory; DROP TABLE memory_vector_copies; ALTER TABLE memory_embedder DROP COLUMN copied; PRAGMA user_version = 3;',
    );
    db.close();
    const store = await open(path);
    expect(await store.all()).toEqual([kept]);
    expect(await store.getWorking({ resource: 'ana' })).toBeUndefined();
    await store.setWorking({ resource: 'ana' }, { units: 'metric' }, { expectedVersion: 0 });
    store.close();
    const check = new Database(path);
    expect(check.pragma('user_version', { simple: true })).toBe(6);
    check.close();
    const again = await open(path);
    expect(await again.getWorking({ resource: 'ana' })).toEqual({ content: { units: 'metric' }, version: 1 });
    expect((await again.search('units', { scope: { resource: 'ana' } })).map((r) => r.id)).toEqual([kept.id]);
  });

  it('reports a working memory block that is not JSON (a file edited by hand) as a SqliteMemoryFileError', async () => {
    const path = freshPath();
    const store = await open(path);
    await store.setWorking({ resource: 'ana' }, { ok: true }, { expectedVersion: 0 });
    const db = new Database(path);
    db.prepare("UPDATE working_memory SET content = '{broken'").run();
    db.close();
    const error = await store.getWorking({ resource: 'ana' }).catch((e: unknown) => e);
    expect(SqliteMemoryFileError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(path);
  });

  it('refuses a memory file from an unknown schema version rather than misreading it', async () => {
    const path = freshPath();
    const db = new Database(path);
    db.pragma('user_version = 99');
    db.close();
    await expect(openSqliteMemoryStore(path)).rejects.toThrow(/schema version 99/);
  });

  it('reports a row with unreadable meta as a SqliteMemoryFileError naming the record', async () => {
    const path = freshPath();
    const store = await open(path);
    const record = await store.save('has meta', { meta: { ok: true } });
    const db = new Database(path);
    db.prepare('UPDATE memory_records SET meta = ? WHERE id = ?').run('{broken', record.id);
    db.close();
    const error = await store.all().catch((e: unknown) => e);
    expect(SqliteMemoryFileError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain(record.id);
  });

  it('without better-sqlite3 installed: indusagi/memory and the root layers still load, and opening rejects with SqliteUnavailableError', async () => {
    // Makes the package unresolvable in the child, as on a machine that never installed it.
    const hook = join(root, 'no-sqlite-hook.mjs');
    writeFileSync(
      hook,
      `import { register } from 'node:module';
       register('data:text/javascript,' + encodeURIComponent(\`
         export async function resolve(specifier, context, next) {
           if (specifier === 'better-sqlite3') {
             const error = new Error("Cannot find package 'better-sqlite3'");
             error.code = 'ERR_MODULE_NOT_FOUND';
             throw error;
           }
           return next(specifier, context);
         }\`));`,
    );
    const child = await runChild(
      `
      import { createMemoryStore } from ${JSON.stringify(join(repo, 'src/memory/index.ts'))};
      import { createContextManager, memorySource } from ${JSON.stringify(join(repo, 'src/context/index.ts'))};
      import { openSqliteMemoryStore, SqliteUnavailableError } from ${JSON.stringify(storeModule)};
      const memory = createMemoryStore();
      await memory.save('works without sqlite');
      createContextManager({ budget: { maxTokens: 1000, count: (t) => t.length }, sources: [memorySource(memory)] });
      const error = await openSqliteMemoryStore(${JSON.stringify(freshPath())}).catch((e) => e);
      console.log(JSON.stringify({ hits: (await memory.search('sqlite')).length, unavailable: SqliteUnavailableError.isInstance(error), kind: error.kind, message: error.message }));
    `,
      { imports: [hook] },
    );
    expect(child.stderr).toBe('');
    const outcome = JSON.parse(child.stdout);
    expect(outcome).toMatchObject({ hits: 1, unavailable: true, kind: 'sqlite_unavailable' });
    expect(outcome.message).toContain('npm install better-sqlite3');
  });

  it('without sqlite-vec installed: a store with an embedder rejects with SqliteVecUnavailableError, one without it opens the same file', async () => {
    const hook = join(root, 'no-sqlite-vec-hook.mjs');
    writeFileSync(
      hook,
      `import { register } from 'node:module';
       register('data:text/javascript,' + encodeURIComponent(\`
         export async function resolve(specifier, context, next) {
           if (specifier === 'sqlite-vec') {
             const error = new Error("Cannot find package 'sqlite-vec'");
             error.code = 'ERR_MODULE_NOT_FOUND';
             throw error;
           }
           return next(specifier, context);
         }\`));`,
    );
    const path = freshPath();
    const child = await runChild(
      `
      import { openSqliteMemoryStore, SqliteVecUnavailableError } from ${JSON.stringify(storeModule)};
      const embedder = { id: 'unit', dimensions: 2, embed: async (texts) => texts.map(() => [1, 0]) };
      const error = await openSqliteMemoryStore(${JSON.stringify(path)}, { embedder }).catch((e) => e);
      const plain = await openSqliteMemoryStore(${JSON.stringify(path)});
      await plain.save('still works by words');
      const hits = (await plain.search('words')).length;
      plain.close();
      console.log(JSON.stringify({ unavailable: SqliteVecUnavailableError.isInstance(error), kind: error.kind, message: error.message, hits }));
    `,
      { imports: [hook] },
    );
    expect(child.stderr).toBe('');
    const outcome = JSON.parse(child.stdout);
    expect(outcome).toMatchObject({ unavailable: true, kind: 'sqlite_vec_unavailable', hits: 1 });
    expect(outcome.message).toContain('npm install sqlite-vec@0.1.9');
  });
});
