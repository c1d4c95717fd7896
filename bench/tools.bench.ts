// search_tools over 10,000 tools: the lazy toolset's BM25 search against a linear scan that scores every
// tool's name and description with the same formula, same queries.
import { lazyToolset } from '../src/tools/index.js';
import { splitIdentifier, tokenize } from '../src/search/index.js';
import { fmt, now, percentile, report } from './stats.js';
import { corpus, queries } from './zipf-text.js';

const TOOLS = 10_000;
const QUERIES = 3_000;
const TARGET_P50_US = 200;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});

const text = corpus(3_000, 7);
const capital = (word: string) => word[0].toUpperCase() + word.slice(1);
const seen = new Set<string>();
const specs = [];
while (specs.length < TOOLS) {
  const name = `${text.word()}.${text.word()}${capital(text.word())}`;
  if (seen.has(name)) continue;
  seen.add(name);
  specs.push({ name, description: text.sentence(8, 30), input_schema: { type: 'object', properties: { id: { type: 'string' } } } });
}
const asked = queries(specs.map((s) => `${s.name.replace(/[.]/g, ' ')} ${s.description}`), text, QUERIES);

const t0 = now();
const lazy = lazyToolset(specs, { k: 5 });
console.log(`built a lazy toolset over ${TOOLS} tools in ${fmt(now() - t0)} ms`);

function timeSearches(run: (q: string) => unknown, list: string[]): number[] {
  const out: number[] = [];
  for (const q of list) {
    const start = now();
    run(q);
    out.push((now() - start) * 1000);
    // Each search loads what it finds; unload so every query searches the full set.
    lazy.reset();
  }
  return out;
}

// Baseline: per-tool term frequencies (name counted twice, as the index does), scored one by one.
const docs = specs.map((s) => {
  const nameTerms = tokenize(`${s.name} ${splitIdentifier(s.name)}`);
  const terms = [...tokenize(s.description), ...nameTerms, ...nameTerms];
  const tf = new Map<string, number>();
  for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
  return { tf, length: terms.length };
});
const df = new Map<string, number>();
for (const { tf } of docs) for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
const avgdl = docs.reduce((sum, d) => sum + d.length, 0) / docs.length;
function scan(query: string) {
  const terms = [...new Set(tokenize(query))];
  const idf = terms.map((term) => Math.log(1 + (docs.length - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5)));
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

timeSearches((q) => lazy.search(q), asked.slice(0, 300)); // warm-up
gc();
const indexed = timeSearches((q) => lazy.search(q), asked);
timeSearches(scan, asked.slice(0, 30));
gc();
const scanned = timeSearches(scan, asked.slice(0, 500));

const p50 = percentile(indexed, 50);
const p99 = percentile(indexed, 99);
console.log(`search_tools, ${TOOLS} tools, k=5, ${QUERIES} queries: p50 ${fmt(p50)} us, p99 ${fmt(p99)} us (target p50 < ${TARGET_P50_US} us: ${p50 < TARGET_P50_US ? 'met' : 'MISSED'})`);
console.log(`linear scan, 500 queries: p50 ${fmt(percentile(scanned, 50))} us, p99 ${fmt(percentile(scanned, 99))} us`);
report('search_tools p50 vs linear scan', p50, percentile(scanned, 50), 'us');
report('search_tools p99 vs linear scan', p99, percentile(scanned, 99), 'us');
console.log(`speed-up at p50: ${fmt(percentile(scanned, 50) / p50)}x faster than the scan`);
