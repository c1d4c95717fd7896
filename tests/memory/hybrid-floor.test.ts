// Adding an embedder never costs recall: on a small corpus of everyday facts built here (not a
// benchmark), every store's hybrid ranking finds at least what its words ranking finds, with an
// embedder that knows some meaning (synonyms share a direction) and with one that answers noise. The
// fusion weighs words above vectors (words 1, vectors 0.3, c 10), so a record the words rank first
// stays in the top 5 whatever the vectors say, and what the vectors add comes from below. Checked to
// fail here with a plain reciprocal-rank fusion (words 1, vectors 1, c 60: noise loses queries at
// k 5), and with these weights at k 3 (a first place can be pushed to fifth): the floor holds from k 5.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStore, type Embedder, type GovernedMemoryStore } from '../../src/memory/index.js';
import { openSqliteMemoryStore } from '../../src/memory-sqlite/index.js';
import { tokenize } from '../../src/search/index.js';

const FACTS = [
  'Ana adopted a puppy named Biscuit in March',
  'The quarterly report is due on the last Friday of June',
  'Bo is allergic to peanuts and carries an epipen',
  'The office moved to the fourth floor of the Harbor building',
  'Carla runs a marathon every October in Lisbon',
  'The staging server restarts every night at two',
  'Dev prefers tea with oat milk, never coffee',
  'The team dinner is booked at the Thai place on Elm Street',
  'Eli is learning the cello and practises on Sundays',
  'The car needs new tyres before the winter trip',
  'Fay works remotely from Porto on Mondays',
  'The kitchen tap leaks when the hot water runs',
  'Gus bought a secondhand bicycle for the commute',
  'The library card expires at the end of the year',
  'Hana is vegetarian and avoids fish sauce',
  'The wedding is in Kyoto in the spring',
  'Ivo forgot his passport at the hotel in Madrid',
  'The garden roses need pruning in late winter',
  'Jun plays chess online every evening',
  'The dentist appointment moved to Thursday morning',
  'Kai started a new job at a bakery downtown',
  'The boiler was serviced in September',
  'Lea keeps her spare keys with the neighbour',
  'The cat hides under the bed during storms',
  'Mo paints watercolours of the harbour at dawn',
  'The invoice for the laptop repair is still unpaid',
  'Nia is training her dog to fetch the newspaper',
  'The flight to Oslo leaves at seven from gate twelve',
  'Omar is saving for a flat near the river',
  'The printer on the second floor jams on thick paper',
];

// Each query with the fact it asks about; some say it in the fact's words, some in others (synonyms
// the words ranking cannot match, which only an embedder that knows them can find).
const QUERIES: Array<[string, number]> = [
  ['what is the name of Ana puppy', 0],
  ['when is the quarterly report due', 1],
  ['who is allergic to peanuts', 2],
  ['which floor is the office on', 3],
  ['where does Carla run her marathon', 4],
  ['when does the staging server restart', 5],
  ['how does Dev take her tea', 6],
  ['where is the team dinner booked', 7],
  ['what instrument is Eli learning', 8],
  ['what does the car need before winter', 9],
  ['where does Fay work remotely', 10],
  ['why does the kitchen tap leak', 11],
  ['what did Gus buy for the commute', 12],
  ['when does the library card expire', 13],
  ['what does Hana avoid eating', 14],
  ['where is the wedding', 15],
  ['what did Ivo forget in Madrid', 16],
  ['when do the roses need pruning', 17],
  ['what does Jun play in the evening', 18],
  ['when is the dentist appointment', 19],
  ['where did Kai start a new job', 20],
  ['when was the boiler serviced', 21],
  ['who keeps the spare keys', 22],
  ['where does the cat hide in storms', 23],
  ['what does Mo paint', 24],
  ['is the laptop repair invoice paid', 25],
  ['what is Nia teaching her dog', 26],
  ['which gate does the Oslo flight leave from', 27],
  ['what is Omar saving for', 28],
  ['which printer jams', 29],
  // In other words than the fact's.
  ['who got a new dog', 0],
  ['which cyclist commutes', 12],
  ['who studies an instrument with strings', 8],
  ['where is the feline during thunder', 23],
  ['which bill is outstanding', 25],
];

// Words that mean alike for the embedder that knows some meaning: each group is one direction.
const SYNONYMS = [
  ['puppy', 'dog'],
  ['bicycle', 'cyclist', 'bike'],
  ['cello', 'instrument', 'strings'],
  ['cat', 'feline'],
  ['storms', 'thunder'],
  ['invoice', 'bill'],
  ['unpaid', 'outstanding'],
];

function fnv(text: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const DIMENSIONS = 64;

/** Each term (a synonym group as one) adds a fixed direction: texts sharing meaning point alike. */
const meaning: Embedder = {
  id: 'test/synonym-terms',
  dimensions: DIMENSIONS,
  async embed(texts) {
    const group = new Map<string, string>();
    for (const words of SYNONYMS) for (const word of words) for (const term of tokenize(word)) group.set(term, words[0]);
    return texts.map((text) => {
      const v = new Float32Array(DIMENSIONS);
      v[0] = 0.01;
      for (const term of tokenize(text)) {
        const h = fnv(group.get(term) ?? term, 1);
        v[h % DIMENSIONS] += h & 0x80000000 ? -1 : 1;
      }
      return v;
    });
  },
};

/** The adversary: a vector that has nothing to do with the text, different at every call. */
function noise(seed: number): Embedder {
  let state = seed;
  const next = () => ((state = Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32 - 0.5;
  return {
    id: `test/noise-${seed}`,
    dimensions: DIMENSIONS,
    async embed(texts) {
      return texts.map(() => Float32Array.from({ length: DIMENSIONS }, next));
    },
  };
}

const K = 5;

// Near misses: each fact's first words with another ending, so the words ranking has close
// competitors for every query and a careless fusion would let noise reorder them.
const ENDINGS = ['visited the old market on Saturday', 'called the bank about a refund', 'lost an umbrella on the tram'];
const DISTRACTORS = FACTS.flatMap((fact) => ENDINGS.map((end) => `${fact.split(' ').slice(0, 3).join(' ')} ${end}`));

/** How many queries find their fact in the top `K`, and which ones. */
async function recall(store: GovernedMemoryStore, ids: string[], ranking: 'words' | 'hybrid'): Promise<Set<number>> {
  const found = new Set<number>();
  for (const [i, [query, fact]] of QUERIES.entries()) {
    const hits = await store.search(query, { k: K, ranking });
    if (hits.some((h) => h.id === ids[fact])) found.add(i);
  }
  return found;
}

const root = mkdtempSync(join(tmpdir(), 'indusagi-hybrid-floor-'));
const closers: Array<() => void> = [];
afterAll(() => {
  for (const close of closers) close();
  rmSync(root, { recursive: true, force: true });
});
let files = 0;

const STORES: Array<[string, (embedder: Embedder) => Promise<GovernedMemoryStore>]> = [
  ['createMemoryStore', async (embedder) => createMemoryStore([], { embedder })],
  [
    'openSqliteMemoryStore',
    async (embedder) => {
      const store = await openSqliteMemoryStore(join(root, `floor-${++files}.db`), { embedder });
      closers.push(() => store.close());
      return store;
    },
  ],
];

describe.each(STORES)('%s: hybrid recall is never below words alone', (_, open) => {
  const filled = async (embedder: Embedder) => {
    const store = await open(embedder);
    const ids: string[] = [];
    for (const fact of FACTS) ids.push((await store.save(fact)).id);
    for (const distractor of DISTRACTORS) await store.save(distractor);
    return { store, ids };
  };

  it('with an embedder that knows some meaning: every query words answers, and the ones only meaning can', async () => {
    const { store, ids } = await filled(meaning);
    const words = await recall(store, ids, 'words');
    const hybrid = await recall(store, ids, 'hybrid');
    for (const i of words) expect(hybrid.has(i), QUERIES[i][0]).toBe(true);
    // The corpus is not too easy: words alone miss some, and meaning finds more than words do.
    expect(words.size).toBeLessThan(QUERIES.length);
    expect(hybrid.size).toBeGreaterThan(words.size);
  });

  it.each([1, 2, 3, 4, 5, 6])('with an embedder that answers noise (seed %i): not one query words answers is lost', async (seed) => {
    const { store, ids } = await filled(noise(seed));
    const words = await recall(store, ids, 'words');
    const hybrid = await recall(store, ids, 'hybrid');
    expect(words.size).toBeGreaterThan(QUERIES.length / 2);
    for (const i of words) expect(hybrid.has(i), QUERIES[i][0]).toBe(true);
    expect(hybrid.size).toBeGreaterThanOrEqual(words.size);
  });
});
