// A deterministic embedder for tests that need many vectors fast and the same ones on every run: each
// index term (indusagi's tokenizer: folded, stemmed) adds a fixed pseudo-random direction, so texts
// sharing terms point alike. It knows no meaning (no "dog" near "puppy"); the recall-by-meaning
// contract runs with the real offline embedder.
import { tokenize } from '../../src/search/index.js';
import type { Embedder } from '../../src/memory/index.js';

/** FNV-1a, 32 bits. */
function hash(text: string, seed: number): number {
  let h = 0x811c9dc5 ^ seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function hashedEmbedder(dimensions = 64, id = `test/hashed-terms-${dimensions}`): Embedder & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    id,
    dimensions,
    calls,
    async embed(texts) {
      calls.push([...texts]);
      return texts.map((text) => {
        const v = new Float32Array(dimensions);
        // A small shared component: a text of stop words only still has a direction.
        v[0] = 0.01;
        for (const term of tokenize(text)) {
          for (let seed = 0; seed < 3; seed++) {
            const h = hash(term, seed);
            v[h % dimensions] += h & 0x80000000 ? -1 : 1;
          }
        }
        return v;
      });
    },
  };
}
