// The SQLite store's search with an embedder, over BENCH_RECORDS records (default 100,000): p50/p99 of
// the words, vector and hybrid rankings, unfiltered and with a time window that lets 1% through, each
// against the raw query a developer would write on the same file in the same run (FTS5 MATCH ... ORDER
// BY bm25(), vec0 MATCH ... k = 5). The records are saved through a store without the embedder and then
// backfilled by the first vector search (timed), which is also how an existing file gains vectors.
// The embedder is a deterministic one of the offline embedder's size (512, terms hashed to directions),
// so the figures are the store's and sqlite-vec's, not a model's; the offline embedder's own time per
// query is measured apart (skipped when it is not installed). `npm run bench memory-stores` runs this too.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { openSqliteMemoryStore } from '../src/memory-sqlite/index.js';
import { offlineEmbedder, type Embedder, type SearchOptions } from '../src/memory/index.js';
import { embedTexts } from '../src/memory/embedder.js';
import { tokenize } from '../src/search/index.js';
import { fmt, now, percentile, report, timeEachMs } from './stats.js';
import { corpus, queries } from './zipf-text.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 200);
const DIMENSIONS = 512;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

function fnv(text: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Each index term adds fixed pseudo-random signs on a few dimensions: deterministic, ~microseconds a text. */
const hashed: Embedder = {
  id: `bench/hashed-terms-${DIMENSIONS}`,
  dimensions: DIMENSIONS,
  maxBatch: 256,
  async embed(texts) {
    return texts.map((text) => {
      const v = new Float32Array(DIMENSIONS);
      v[0] = 0.01;
      for (const term of tokenize(text))
        for (let seed = 0; seed < 8; seed++) {
          const h = fnv(term, seed);
          v[h % DIMENSIONS] += h & 0x80000000 ? -1 : 1;
        }
      return v;
    });
  },
};

const text = corpus(4_000);
const texts = Array.from({ length: RECORDS }, () => text.sentence(6, 24));
const asked = queries(texts, text, QUERIES);
// provenance.at = the record's index: [since, until) of 1% of RECORDS from the middle.
const window = { since: Math.floor(RECORDS * 0.5), until: Math.floor(RECORDS * 0.51) };

const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'indusagi-bench-vectors-'));
try {
  const path = join(dir, 'memory.db');
  const plain = await openSqliteMemoryStore(path);
  let t0 = now();
  for (let i = 0; i < texts.length; i++) await plain.save(texts[i], { provenance: { at: i } });
  plain.close();
  console.log(`SQLite: saved ${RECORDS} records without an embedder in ${fmt((now() - t0) / 1000)} s (load ${load()})`);

  const store = await openSqliteMemoryStore(path, { embedder: hashed });
  t0 = now();
  await store.search(asked[0], { ranking: 'vector' });
  console.log(`backfill: the first vector search embedded and stored ${RECORDS} vectors in ${fmt((now() - t0) / 1000)} s`);

  const raw = new Database(path, { readonly: true });
  sqliteVec.load(raw);
  const fts = raw.prepare(`SELECT r.id, r.text FROM memory_terms_fts JOIN memory_records r ON r.seq = memory_terms_fts.rowid
    WHERE memory_terms_fts MATCH ? ORDER BY bm25(memory_terms_fts) LIMIT 5`);
  const knn = raw.prepare(`SELECT r.id, r.text, v.distance FROM memory_vectors v JOIN memory_records r ON r.seq = v.rowid
    WHERE v.embedding MATCH ? AND k = 5 ORDER BY v.distance`);
  const ftsQuery = (q: string) => [...new Set(tokenize(q))].map((t) => `"${t}"`).join(' OR ');
  const queryVectors = new Map<string, Float32Array>();
  for (const q of asked) queryVectors.set(q, (await embedTexts(hashed, [q]))[0]);
  const rawWords = (q: string) => fts.all(ftsQuery(q));
  const rawVector = (q: string) => knn.all(queryVectors.get(q)!);
  const rawBoth = (q: string) => (rawWords(q), rawVector(q));

  const cases: Array<{ label: string; opts: SearchOptions }> = [
    { label: 'words', opts: { ranking: 'words' } },
    { label: 'vector', opts: { ranking: 'vector' } },
    { label: 'hybrid', opts: {} },
    { label: 'words, 1% time window', opts: { ranking: 'words', ...window } },
    { label: 'vector, 1% time window', opts: { ranking: 'vector', ...window } },
    { label: 'hybrid, 1% time window', opts: window },
  ];
  // Warm the caches and the JIT for every path before anything is timed.
  for (const { opts } of cases) await timeEachMs(asked.slice(0, 20), (q) => store.search(q, opts));
  await timeEachMs(asked.slice(0, 20), rawBoth);
  const baselines = {
    words: await timeEachMs(asked, rawWords),
    vector: await timeEachMs(asked, rawVector),
    hybrid: await timeEachMs(asked, rawBoth),
  };
  console.log(`${RECORDS} records, ${DIMENSIONS} dimensions, k=5, ${QUERIES} queries each (load ${load()})`);
  for (const { label, opts } of cases) {
    const times = await timeEachMs(asked, (q) => store.search(q, opts));
    console.log(`SQLite ${label}: p50 ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))} ms`);
    const base = label.startsWith('words') ? 'words' : label.startsWith('vector') ? 'vector' : 'hybrid';
    const baseLabel = { words: 'raw FTS5 bm25() query', vector: 'raw vec0 KNN query', hybrid: 'raw FTS5 + raw vec0 KNN' }[base];
    report(`SQLite ${label} search p50 vs ${baseLabel}`, percentile(times, 50), percentile(baselines[base], 50), 'ms');
  }
  console.log(`(load after the searches ${load()})`);
  raw.close();
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// What a real query adds on top: the offline embedder's time to embed one query, the model loaded.
const offline = offlineEmbedder();
const installed = await embedTexts(offline, ['warm up']).then(
  () => true,
  (error: unknown) => (console.log(`offline embedder not measured: ${(error as Error).message}`), false),
);
if (installed) {
  const times = await timeEachMs(asked.slice(0, 100), (q) => embedTexts(offline, [q]));
  console.log(`offline embedder, one query: p50 ${fmt(percentile(times, 50))} ms, p99 ${fmt(percentile(times, 99))} ms (load ${load()})`);
}
