// PostgresMemoryStore.search with an embedder, on real pgvector (PGlite 0.5.14 with pgvector 0.8.7, in
// this process), against the raw HNSW query a developer would write on the same table in the same run
// (`ORDER BY embedding <=> $1 LIMIT 10`, no filter, no words). The store does more: the change-log
// check for records to backfill, the tenant and scope filters, the words ranking and the fusion for
// `hybrid`, the records read back.
// Vectors come from a hashing embedder (each word a fixed pseudo-random 512-dimension vector, a text
// the sum of its words'): instant and deterministic, with texts sharing words near each other, because
// this measures search, not a model (the offline model adds ~26 ms per query, see docs/memory.md).
// BENCH_RECORDS (default 5,000) records, saved through the store, one transaction each.
import type { Embedder } from '../src/memory/index.js';
import { PostgresMemoryStore } from '../src/postgres/index.js';
import { tokenize } from '../src/search/index.js';
import { pglitePool } from '../tests/postgres/fixtures/pglite-pool.js';
import { fmt, now, percentile, report, timeEachMs } from './stats.js';
import { corpus, queries, seeded } from './zipf-text.js';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 5_000);
const QUERIES = 300;
const TARGET_P50_MS = 15;
const DIMENSIONS = 512;

const wordVectors = new Map<string, Float32Array>();
function wordVector(word: string): Float32Array {
  let v = wordVectors.get(word);
  if (v === undefined) {
    let seed = 0;
    for (const ch of word) seed = (Math.imul(seed, 31) + ch.charCodeAt(0)) | 0;
    const random = seeded(seed);
    v = Float32Array.from({ length: DIMENSIONS }, () => random() - 0.5);
    wordVectors.set(word, v);
  }
  return v;
}
const hashing: Embedder = {
  id: 'bench/hashing-512',
  dimensions: DIMENSIONS,
  maxBatch: 256,
  embed: async (texts) =>
    texts.map((text) => {
      const sum = new Float32Array(DIMENSIONS);
      for (const term of tokenize(text)) wordVector(term).forEach((x, i) => (sum[i] += x));
      sum[0] += 1e-3; // never all zeros (a text of stop words only)
      return sum;
    }),
};

const pool = await pglitePool();
// Every statement the store sends, so the plan of its index search can be shown.
const sent: Array<{ text: string; values?: unknown[] }> = [];
const watched = {
  ...pool,
  connect: async () => {
    const client = await pool.connect();
    return {
      query: (text: Parameters<typeof client.query>[0], values?: unknown[]) => {
        if (typeof text === 'string') sent.push({ text, values });
        return client.query(text, values);
      },
      release: (e?: Error | boolean) => client.release(e),
    };
  },
};
const store = new PostgresMemoryStore({ pool: watched }, { schema: 'bench', embedder: hashing });
await store.migrate();

const text = corpus(4_000);
const texts = Array.from({ length: RECORDS }, () => text.sentence(6, 24));
const asked = queries(texts, text, QUERIES);
let t0 = now();
// Shared records, one in five of kind 'event': a kind filter keeps a fifth of them.
for (let i = 0; i < texts.length; i++) await store.save(texts[i], i % 5 === 0 ? { kind: 'event' } : {});
console.log(`saved ${RECORDS} records through the store in ${fmt((now() - t0) / 1000)} s`);

await pool.query('ANALYZE');
const literal = (v: Float32Array | readonly number[]) => `[${Array.from(v).join(',')}]`;
const raw = async (q: string) => {
  const [v] = await hashing.embed([q], {});
  return pool.query(`SELECT seq FROM bench.memory_vectors ORDER BY embedding <=> $1::vector LIMIT 10`, [literal(v)]);
};

const runs: Array<[string, (q: string) => Promise<unknown>]> = [
  ['raw HNSW query (baseline)', raw],
  ['store, ranking vector', (q) => store.search(q, { k: 10, ranking: 'vector' })],
  ['store, ranking hybrid', (q) => store.search(q, { k: 10 })],
  ['store, ranking hybrid, one kind of five', (q) => store.search(q, { k: 10, kind: 'event' })],
  ['store, ranking words', (q) => store.search(q, { k: 10, ranking: 'words' })],
];
const p50: Record<string, number> = {};
for (const [label, run] of runs) {
  await timeEachMs(asked.slice(0, 30), run); // warm up: first-search backfill check, plans, JIT
  const times = await timeEachMs(asked, run);
  p50[label] = percentile(times, 50);
  console.log(`${label}: p50 ${fmt(p50[label])} ms, p99 ${fmt(percentile(times, 99))} ms`);
}
const baseline = p50['raw HNSW query (baseline)'];
for (const [label] of runs.slice(1)) report(`${label} p50 vs raw HNSW query`, p50[label], baseline, 'ms');
const hybrid = p50['store, ranking hybrid'];
console.log(
  `hybrid search p50 ${fmt(hybrid)} ms at ${RECORDS} records (target < ${TARGET_P50_MS} ms: ${hybrid < TARGET_P50_MS ? 'met' : 'MISSED'})`,
);

// The plan of the store's own index search (the last one it sent), to show the HNSW index serves it.
sent.length = 0;
await store.search(asked[1], { k: 10, ranking: 'vector' });
const search = sent.find((s) => s.text.includes('ORDER BY v.embedding'));
if (search === undefined) console.log('the store ranked exactly (the filtered set was under vectorExactLimit)');
else {
  const plan = await pool.connect();
  try {
    // The settings the store sent before it, as it sent them.
    const settings = sent.find((x) => x.text.startsWith('SET LOCAL hnsw'))!;
    await plan.query(`BEGIN; ${settings.text}`);
    const lines = (await plan.query(`EXPLAIN ${search.text}`, search.values)).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']);
    console.log(`plan of the store's vector search:\n  ${lines.join('\n  ')}`);
    await plan.query('ROLLBACK');
  } finally {
    plan.release();
  }
}
await store.close();
await pool.close();
