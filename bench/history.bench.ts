// History recall. (1) Identifier survival: a long scripted session full of paths, commands, ids and
// numbers, condensed many times through the conductor; for each identifier, does history_search find
// the verbatim turn that held it, and does the identifier survive in the summaries alone? The
// summarizer here is scripted (it keeps a few identifiers, as real ones keep few: a published
// measurement found 9.8% of paths and 1.9% of numbers), so the second share describes it, not Claude.
// Goal for the first: 100%. (2) Search p50 over 100,000 condensed turns against a linear BM25 scan
// of the same turns. Target p50 < 2 ms.
import { createConductor, HistoryIndex, MemorySessionStore, SessionGraph, turnText } from '../src/runtime/index.js';
import type { ModelInvoker, ModelRequest, SessionNode } from '../src/runtime/index.js';
import { tokenize } from '../src/search/index.js';
import { linearBm25Scan } from './bm25-scan.js';
import { fmt, now, reportSearchVsScan, timeEach } from './stats.js';
import { corpus, queries, seeded } from './zipf-text.js';

// --- (1) identifier survival --------------------------------------------------------------------
const random = seeded(7);
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
const kinds = [
  () => `src/${['runtime', 'cli', 'memory', 'tools'][Math.floor(random() * 4)]}/${hex(6)}/${hex(4)}.ts`,
  () => `npm run ${['bench', 'build', 'test'][Math.floor(random() * 3)]} -- --grep ${hex(8)}`,
  () => `INV-${100000 + Math.floor(random() * 900000)}`,
  () => `${Math.floor(random() * 100000)}.${Math.floor(random() * 1000)} EUR`,
];
const PROMPTS = 400;
const identifiers = Array.from({ length: PROMPTS }, (_, i) => kinds[i % kinds.length]());

// The scripted summarizer keeps the identifier of one condensed user turn in ten, and the gist.
const summarize = (request: ModelRequest): string => {
  const transcript = request.messages.map((t) => t.blocks.map((b) => (b.kind === 'text' ? b.text : '')).join(' ')).join('\n');
  const kept = identifiers.filter((id, i) => i % 10 === 0 && transcript.includes(id));
  return `Goal: keep a project log. Progress: many notes were taken.${kept.length > 0 ? ` Identifiers: ${kept.join(', ')}.` : ''}`;
};
const invoke: ModelInvoker = async (request) => ({
  turn: { role: 'assistant', blocks: [{ kind: 'text', text: request.cacheable === false ? summarize(request) : 'Noted.' }] },
  stopReason: 'end_turn',
});

const store = new MemorySessionStore();
const agent = createConductor(
  { model: 'bench', sessionId: 'log', contextWindow: 2_400, maxOutputTokens: 300, compaction: { keepRecent: 4 } },
  { invokeModel: invoke, store },
);
let condensations = 0;
agent.subscribe((event) => {
  if (event.kind === 'compacted') condensations++;
});
for (let i = 0; i < PROMPTS; i++)
  await agent.submit(`Note ${i}: remember ${identifiers[i]} for later, together with some ordinary words about the day.`);
await agent.close();

const graph = await store.loadSession('log');
const path = graph.nodesTo(graph.leaf!);
const latest = path.findLastIndex((n) => n.condenses !== undefined);
const firstKept = path[latest].condenses!.firstKept;
const condensed = path.slice(
  0,
  path.findIndex((n) => n.id === firstKept),
);
const summaries = path
  .filter((n) => n.condenses !== undefined)
  .map((n) => turnText(n.turn))
  .join('\n');
const index = new HistoryIndex(() => condensed);
const dropped = identifiers.filter((id) => condensed.some((n) => turnText(n.turn).includes(id)));
let found = 0;
for (const id of dropped) {
  const hits = await index.search(id, 5, 400);
  if (hits.some((hit) => (graph.node(hit.id) as SessionNode).turn.blocks.some((b) => b.kind === 'text' && b.text.includes(id)))) found++;
}
const inSummaries = dropped.filter((id) => summaries.includes(id)).length;
console.log(
  `identifier survival: ${PROMPTS} prompts, ${condensations} condensations, ${dropped.length} identifiers in condensed-away turns`,
);
console.log(
  `  found verbatim by history_search (top 5): ${found}/${dropped.length} = ${((100 * found) / dropped.length).toFixed(1)}% (goal 100%)`,
);
console.log(
  `  surviving in the summaries alone: ${inSummaries}/${dropped.length} = ${((100 * inSummaries) / dropped.length).toFixed(1)}% (scripted summarizer)`,
);
if (condensations < 5) throw new Error(`expected at least 5 condensations, got ${condensations}`);

// --- (2) search p50 over 100,000 condensed turns -------------------------------------------------
const TURNS = 100_000;
const QUERIES = 2_000;
const text = corpus(4_000);
const big = new SessionGraph('big');
const texts: string[] = [];
for (let i = 0; i < TURNS; i++) {
  const t = text.sentence(6, 40);
  texts.push(t);
  big.append({ role: i % 2 === 0 ? 'user' : 'assistant', blocks: [{ kind: 'text', text: t }] }, i);
}
const bigIndex = new HistoryIndex(() => [...big.allNodes()]);
const asked = queries(texts, text, QUERIES);
const t0 = now();
await bigIndex.search('warm', 5, 400);
console.log(`indexed ${TURNS} condensed turns on the first search in ${fmt(now() - t0)} ms`);
await timeEach(asked.slice(0, 200), (q) => bigIndex.search(q, 5, 400));
const indexed = await timeEach(asked, (q) => bigIndex.search(q, 5, 400));
const scan = linearBm25Scan(texts.map((t) => tokenize(t)));
const scanned = await timeEach(asked.slice(0, 100), scan);
reportSearchVsScan(`history_search over ${TURNS} condensed turns, k=5, ${QUERIES} queries`, 'search', indexed, scanned, 2_000);
