// MemoryStore.search over 100,000 records in the SQLite and PostgreSQL stores, each against the raw
// full-text query a developer would write on the same database in the same run: FTS5 MATCH ... ORDER BY
// bm25() for SQLite, tsvector @@ tsquery ORDER BY ts_rank() for PostgreSQL (OR of the query's terms,
// top 5). The store does more (exact shared BM25, filters, a read transaction) but reads less: rare terms
// first, common ones never once the top 5 is settled.
// PostgreSQL: INDUSAGI_BENCH_DATABASE_URL, else a throwaway cluster like the tests'.
// BENCH_STORES=sqlite or =postgres runs one of the two (loading 100,000 records takes minutes each).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openSqliteMemoryStore } from '../src/memory-sqlite/index.js';
import { PostgresMemoryStore } from '../src/postgres/index.js';
import { tokenize } from '../src/search/index.js';
import { benchDatabase } from './postgres-server.js';
import { fmt, now, percentile, report } from './stats.js';
import { corpus, queries } from './zipf-text.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const QUERIES = 1_000;
const TARGET_P50_MS = 5;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function timeEach(list: string[], run: (q: string) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (const q of list) {
    const start = now();
    await run(q);
    out.push(now() - start);
  }
  return out;
}

function summary(label: string, store: number[], raw: number[]): void {
  const p50 = percentile(store, 50);
  console.log(
    `${label}: store p50 ${fmt(p50)} ms, p99 ${fmt(percentile(store, 99))} ms (target p50 < ${TARGET_P50_MS} ms: ${p50 < TARGET_P50_MS ? 'met' : 'MISSED'})`,
  );
  console.log(`${label}: raw query p50 ${fmt(percentile(raw, 50))} ms, p99 ${fmt(percentile(raw, 99))} ms`);
  report(`${label} search p50 vs raw full-text query`, p50, percentile(raw, 50), 'ms');
  report(`${label} search p99 vs raw full-text query`, percentile(store, 99), percentile(raw, 99), 'ms');
}

const text = corpus(4_000);
const texts = Array.from({ length: RECORDS }, () => text.sentence(6, 24));
const asked = queries(texts, text, QUERIES);
const terms = (q: string) => [...new Set(tokenize(q))];
const stores = (process.env.BENCH_STORES ?? 'sqlite,postgres').split(',');

// --- SQLite. In RAM where there is a tmpfs: each save is durable (an fsync), and the bench measures search.
async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'indusagi-bench-memory-'));
  try {
    const path = join(dir, 'memory.db');
    const sqlite = await openSqliteMemoryStore(path);
    let t0 = now();
    for (const t of texts) await sqlite.save(t);
    console.log(
      `SQLite: saved ${RECORDS} records (${text.words.length}-word Zipf vocabulary, 6-24 words each) in ${fmt((now() - t0) / 1000)} s`,
    );
    const raw = new Database(path, { readonly: true });
    const match = raw.prepare(`SELECT r.id, r.text FROM memory_terms_fts JOIN memory_records r ON r.seq = memory_terms_fts.rowid
      WHERE memory_terms_fts MATCH ? ORDER BY bm25(memory_terms_fts) LIMIT 5`);
    const rawSearch = (q: string) =>
      match.all(
        terms(q)
          .map((t) => `"${t}"`)
          .join(' OR '),
      );
    await timeEach(asked.slice(0, 100), (q) => sqlite.search(q));
    await timeEach(asked.slice(0, 100), rawSearch);
    gc();
    const indexed = await timeEach(asked, (q) => sqlite.search(q));
    gc();
    const scanned = await timeEach(asked, rawSearch);
    summary(`SQLite, ${RECORDS} records, k=5, ${QUERIES} queries`, indexed, scanned);
    raw.close();
    sqlite.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- PostgreSQL
async function postgres(): Promise<void> {
  const { url, stop } = await benchDatabase();
  try {
    // Commits need not wait for the WAL flush while loading (searches only read): loading is not what is measured.
    const pool = new pg.Pool({ connectionString: url, max: 8, options: '-c synchronous_commit=off' });
    const schema = `bench_${process.pid}`;
    const store = new PostgresMemoryStore({ pool }, { schema });
    await store.migrate();
    let t0 = now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < texts.length) await store.save(texts[next++]);
      }),
    );
    console.log(`PostgreSQL: saved ${RECORDS} records through the store, 8 at a time, in ${fmt((now() - t0) / 1000)} s`);
    await pool.query(`VACUUM ANALYZE "${schema}".memory_records`);
    const rawSearch = (q: string) => {
      const query = terms(q)
        .map((t) => `'${t}'`)
        .join(' | ');
      return pool.query(
        `SELECT id, text FROM "${schema}".memory_records WHERE tenant = '' AND lexemes @@ $1::tsquery ORDER BY ts_rank(lexemes, $1::tsquery) DESC LIMIT 5`,
        [query],
      );
    };
    await timeEach(asked.slice(0, 100), (q) => store.search(q));
    await timeEach(asked.slice(0, 100), rawSearch);
    const indexed = await timeEach(asked, (q) => store.search(q));
    const scanned = await timeEach(asked, rawSearch);
    summary(`PostgreSQL, ${RECORDS} records, k=5, ${QUERIES} queries`, indexed, scanned);
    // The same searches with a replica of the index in this process (`replica: true`); its first
    // search reads every record, timed apart.
    const replicated = new PostgresMemoryStore({ pool }, { schema, replica: true });
    t0 = now();
    await replicated.search(asked[0]);
    console.log(`PostgreSQL with a replica: first search (reads the ${RECORDS} records) ${fmt(now() - t0)} ms`);
    await timeEach(asked.slice(0, 100), (q) => replicated.search(q));
    const fromReplica = await timeEach(asked, (q) => replicated.search(q));
    summary(`PostgreSQL with a replica, ${RECORDS} records, k=5, ${QUERIES} queries`, fromReplica, scanned);
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await store.close();
    await pool.end();
  } finally {
    await stop();
  }
}

if (stores.includes('sqlite')) await sqlite();
if (stores.includes('postgres')) await postgres();
