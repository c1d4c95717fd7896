// MemoryStore.search over 100,000 records: the in-process BM25 store against a linear scan that computes
// the same BM25 scores record by record (what a store without an inverted index does), same queries.
import { createMemoryStore } from '../src/memory/index.js';
import { tokenize } from '../src/search/index.js';
import { fmt, now, percentile, report } from './stats.js';
import { corpus, queries } from './zipf-text.js';

const RECORDS = 100_000;
const QUERIES = 2_000;
const SCAN_QUERIES = 100;
const TARGET_P50_US = 2_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

async function timeEach(list: string[], run: (q: string) => unknown): Promise<number[]> {
  const out: number[] = [];
  for (const q of list) {
    const start = now();
    await run(q);
    out.push((now() - start) * 1000);
  }
  return out;
}

const text = corpus(4_000);
const texts = Array.from({ length: RECORDS }, () => text.sentence(6, 24));
const asked = queries(texts, text, QUERIES);

const store = createMemoryStore();
const t0 = now();
for (const t of texts) await store.save(t);
console.log(`saved ${RECORDS} records (${text.words.length}-word Zipf vocabulary, 6-24 words each) in ${fmt(now() - t0)} ms`);
await timeEach(asked.slice(0, 200), (q) => store.search(q)); // warm-up
gc();
const indexed = await timeEach(asked, (q) => store.search(q));

// Baseline: every record's term frequencies precomputed, scored one by one with the same BM25 formula.
const docs = texts.map((t) => {
  const tf = new Map<string, number>();
  const terms = tokenize(t);
  for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
  return { tf, length: terms.length };
});
const df = new Map<string, number>();
for (const { tf } of docs) for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
const avgdl = docs.reduce((sum, d) => sum + d.length, 0) / docs.length;
function scan(query: string) {
  const terms = [...new Set(tokenize(query))];
  const idf = terms.map((term) => {
    const n = df.get(term) ?? 0;
    return Math.log(1 + (docs.length - n + 0.5) / (n + 0.5));
  });
  const top: Array<{ i: number; score: number }> = [];
  docs.forEach((doc, i) => {
    let score = 0;
    terms.forEach((term, j) => {
      const tf = doc.tf.get(term);
      if (tf) score += (idf[j] * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * doc.length) / avgdl));
    });
    if (score > 0 && (top.length < 5 || score > top[4].score)) {
      top.push({ i, score });
      top.sort((a, b) => b.score - a.score);
      if (top.length > 5) top.pop();
    }
  });
  return top;
}
await timeEach(asked.slice(0, 10), scan);
gc();
const scanned = await timeEach(asked.slice(0, SCAN_QUERIES), scan);

const p50 = percentile(indexed, 50);
const p99 = percentile(indexed, 99);
console.log(`MemoryStore.search, ${RECORDS} records, k=5, ${QUERIES} queries: p50 ${fmt(p50)} us, p99 ${fmt(p99)} us (target p50 < ${TARGET_P50_US} us: ${p50 < TARGET_P50_US ? 'met' : 'MISSED'})`);
console.log(`linear scan, ${SCAN_QUERIES} queries: p50 ${fmt(percentile(scanned, 50))} us, p99 ${fmt(percentile(scanned, 99))} us`);
report('search p50 vs linear scan', p50, percentile(scanned, 50), 'us');
report('search p99 vs linear scan', p99, percentile(scanned, 99), 'us');
console.log(`speed-up at p50: ${fmt(percentile(scanned, 50) / p50)}x faster than the scan`);
