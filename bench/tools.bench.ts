// search_tools over 10,000 tools: the lazy toolset's BM25 search against a linear scan that scores every
// tool's name and description with the same formula, same queries.
import { lazyToolset } from '../src/tools/index.js';
import { toolTerms } from '../src/tools/lazy-toolset.js';
import { linearBm25Scan } from './bm25-scan.js';
import { fmt, now, reportSearchVsScan } from './stats.js';
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
const asked = queries(
  specs.map((s) => `${s.name.replace(/[.]/g, ' ')} ${s.description}`),
  text,
  QUERIES,
);

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

// Baseline: per-tool term frequencies (the very terms the index holds), scored one by one.
const scan = linearBm25Scan(specs.map(toolTerms));

timeSearches((q) => lazy.search(q), asked.slice(0, 300)); // warm-up
gc();
const indexed = timeSearches((q) => lazy.search(q), asked);
timeSearches(scan, asked.slice(0, 30));
gc();
const scanned = timeSearches(scan, asked.slice(0, 500));

reportSearchVsScan(`search_tools, ${TOOLS} tools, k=5, ${QUERIES} queries`, 'search_tools', indexed, scanned, TARGET_P50_US);
