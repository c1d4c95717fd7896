// The baseline the search benchmarks measure against: a linear scan that scores every document with
// the same BM25 formula the index uses (k1 1.2, b 0.75), record by record, keeping the top 5.
import { tokenize } from '../src/search/index.js';

/** Precomputes each document's term frequencies from its terms; returns the scan over them. */
export function linearBm25Scan(termLists: string[][]): (query: string) => Array<{ i: number; score: number }> {
  const docs = termLists.map((terms) => {
    const tf = new Map<string, number>();
    for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
    return { tf, length: terms.length };
  });
  const df = new Map<string, number>();
  for (const { tf } of docs) for (const term of tf.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const avgdl = docs.reduce((sum, d) => sum + d.length, 0) / docs.length;
  return function scan(query: string) {
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
  };
}
