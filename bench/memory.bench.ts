// MemoryStore.search over 100,000 records: the in-process BM25 store against a linear scan that computes
// the same BM25 scores record by record (what a store without an inverted index does), same queries.
import { createMemoryStore } from '../src/memory/index.js';
import { tokenize } from '../src/search/index.js';
import { linearBm25Scan } from './bm25-scan.js';
import { fmt, now, reportSearchVsScan, timeEach } from './stats.js';
import { corpus, queries } from './zipf-text.js';

const RECORDS = 100_000;
const QUERIES = 2_000;
const SCAN_QUERIES = 100;
const TARGET_P50_US = 2_000;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

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
const scan = linearBm25Scan(texts.map((t) => tokenize(t)));
await timeEach(asked.slice(0, 10), scan);
gc();
const scanned = await timeEach(asked.slice(0, SCAN_QUERIES), scan);

reportSearchVsScan(`MemoryStore.search, ${RECORDS} records, k=5, ${QUERIES} queries`, 'search', indexed, scanned, TARGET_P50_US);
