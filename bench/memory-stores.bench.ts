// MemoryStore.search over 100,000 records in the SQLite and PostgreSQL stores, each against the raw
// full-text query a developer would write on the same database in the same run: FTS5 MATCH ... ORDER BY
// bm25() for SQLite, tsvector @@ tsquery ORDER BY ts_rank() for PostgreSQL (OR of the query's terms,
// top 5). The store does more (exact shared BM25, filters, a read transaction) but reads less: rare terms
// first, common ones never once the top 5 is settled.
// PostgreSQL: INDUSAGI_BENCH_DATABASE_URL, else a throwaway cluster like the tests'.
// BENCH_STORES=sqlite or =postgres runs one of the two. PostgreSQL is loaded with batched INSERTs of
// the rows the store writes (saving 100,000 records one by one through the store, each a transaction
// that holds its tenant's statistics row, took over 10 minutes): a check first saves a sample through
// the store and bulk-loads the same texts into a second schema, and every search must return the same
// texts with the same scores from both.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { openSqliteMemoryStore } from '../src/memory-sqlite/index.js';
import { fingerprint } from '../src/memory/governance.js';
import { PostgresMemoryStore } from '../src/postgres/index.js';
import { tokenize } from '../src/search/index.js';
import { benchDatabase } from './postgres-server.js';
import { fmt, now, percentile, report, timeEachMs } from './stats.js';
import { corpus, queries } from './zipf-text.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const QUERIES = 1_000;
const TARGET_P50_MS = 5;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

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
    await timeEachMs(asked.slice(0, 100), (q) => sqlite.search(q));
    await timeEachMs(asked.slice(0, 100), rawSearch);
    gc();
    const indexed = await timeEachMs(asked, (q) => sqlite.search(q));
    gc();
    const scanned = await timeEachMs(asked, rawSearch);
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
    // Stopping the throwaway cluster ends the pool's idle connections; that is expected here.
    pool.on('error', (error) => console.error(`pool: ${error.message}`));
    const schema = `bench_${process.pid}`;
    const store = new PostgresMemoryStore({ pool }, { schema });
    await store.migrate();
    await checkBulkLoad(pool);
    let t0 = now();
    await bulkLoad(pool, schema, texts);
    console.log(`PostgreSQL: loaded ${RECORDS} records as the store writes them, ${BULK} to a statement, in ${fmt((now() - t0) / 1000)} s`);
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
    await timeEachMs(asked.slice(0, 100), (q) => store.search(q));
    await timeEachMs(asked.slice(0, 100), rawSearch);
    const indexed = await timeEachMs(asked, (q) => store.search(q));
    const scanned = await timeEachMs(asked, rawSearch);
    summary(`PostgreSQL, ${RECORDS} records, k=5, ${QUERIES} queries`, indexed, scanned);
    // The same searches with a replica of the index in this process (`replica: true`); its first
    // search reads every record, timed apart.
    const replicated = new PostgresMemoryStore({ pool }, { schema, replica: true });
    t0 = now();
    await replicated.search(asked[0]);
    console.log(`PostgreSQL with a replica: first search (reads the ${RECORDS} records) ${fmt(now() - t0)} ms`);
    await timeEachMs(asked.slice(0, 100), (q) => replicated.search(q));
    const fromReplica = await timeEachMs(asked, (q) => replicated.search(q));
    summary(`PostgreSQL with a replica, ${RECORDS} records, k=5, ${QUERIES} queries`, fromReplica, scanned);
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await store.close();
    await pool.end();
  } finally {
    await stop();
  }
}

// What a run of `save` on a fresh tenant leaves in the tables, for distinct texts in one scope: the
// records (terms, lexemes and fingerprint from the same functions), each term's document frequency,
// the tenant's document count, total length and version, and the change log of that version.
const BULK = 5_000;
async function bulkLoad(pool: pg.Pool, schema: string, list: string[]): Promise<void> {
  const s = `"${schema}"`;
  const at = Date.now();
  for (let from = 0; from < list.length; from += BULK) {
    const batch = list.slice(from, from + BULK);
    const termLists = batch.map((t) => tokenize(t));
    await pool.query(
      `INSERT INTO ${s}.memory_records (tenant, id, text, observed_at, created_at, fingerprint, terms, lexemes)
       SELECT '', id, text, $5, $5, print, terms, array_to_tsvector(string_to_array(lexemes, ' '))
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $6::text[]) WITH ORDINALITY AS b(id, text, print, terms, lexemes, ord)
       ORDER BY ord`,
      [
        batch.map(() => randomUUID()),
        batch,
        batch.map((t) => fingerprint(t)),
        termLists.map((terms) => terms.join(' ')),
        at,
        termLists.map((terms) => [...new Set(terms)].sort().join(' ')),
      ],
    );
  }
  await pool.query(
    `INSERT INTO ${s}.memory_terms (tenant, term, df)
       SELECT '', term, count(*) FROM ${s}.memory_records, unnest(tsvector_to_array(lexemes)) AS term WHERE tenant = '' GROUP BY term`,
  );
  await pool.query(
    `INSERT INTO ${s}.memory_stats (tenant, docs, total_length, version)
       SELECT '', count(*), coalesce(sum(array_length(string_to_array(terms, ' '), 1)), 0), 1 FROM ${s}.memory_records WHERE tenant = ''`,
  );
  await pool.query(`INSERT INTO ${s}.memory_changes (tenant, version, seq) SELECT '', 1, seq FROM ${s}.memory_records WHERE tenant = ''`);
}

/** The bulk load and the store's own saves leave tables that every search reads alike. */
async function checkBulkLoad(pool: pg.Pool): Promise<void> {
  const sample = texts.slice(0, 400);
  const [saved, loaded] = [`bench_saved_${process.pid}`, `bench_loaded_${process.pid}`];
  const byStore = new PostgresMemoryStore({ pool }, { schema: saved });
  const byLoad = new PostgresMemoryStore({ pool }, { schema: loaded });
  await byStore.migrate();
  await byLoad.migrate();
  for (const t of sample) await byStore.save(t);
  await bulkLoad(pool, loaded, sample);
  const shown = async (store: PostgresMemoryStore, q: string) => (await store.search(q)).map((r) => `${r.text} ${r.score?.toFixed(9)}`);
  for (const q of queries(sample, text, 100)) {
    const [a, b] = [await shown(byStore, q), await shown(byLoad, q)];
    if (JSON.stringify(a) !== JSON.stringify(b))
      throw new Error(`bulk load differs from saves for "${q}":\n${a.join('\n')}\nvs\n${b.join('\n')}`);
  }
  for (const schema of [saved, loaded]) await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await byStore.close();
  await byLoad.close();
  console.log(
    `PostgreSQL: a bulk load of ${sample.length} records searches exactly as the same texts saved through the store (100 queries)`,
  );
}

if (stores.includes('sqlite')) await sqlite();
if (stores.includes('postgres')) await postgres();
