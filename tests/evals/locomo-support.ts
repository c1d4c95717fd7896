// What the LoCoMo evaluation tests share: the hand-made fixture's path, and a memory store whose ranking
// is simple enough to work out by hand (a record scores the number of distinct query words of four or
// more letters it contains; ties keep save order; records scoring 0 are not returned).
import { join } from 'node:path';
import type { MemoryRecord, MemoryStore } from '../../src/memory/index.js';

export const TINY = join(import.meta.dirname, 'fixtures/locomo-tiny.json');

const words = (text: string) =>
  new Set(
    text
      .toLowerCase()
      .split(/\W+/)
      .filter((w) => w.length >= 4),
  );

export function wordCountStore(): MemoryStore & { records: MemoryRecord[]; searches: string[] } {
  const records: MemoryRecord[] = [];
  const searches: string[] = [];
  return {
    records,
    searches,
    async save(text, opts) {
      const record: MemoryRecord = {
        id: `r${records.length + 1}`,
        text,
        createdAt: opts?.provenance?.at ?? 0,
        meta: opts?.meta,
        provenance: { at: opts?.provenance?.at ?? 0, sessionId: opts?.provenance?.sessionId },
      };
      records.push(record);
      return record;
    },
    async search(query, opts) {
      searches.push(query);
      const asked = words(query);
      return records
        .map((r) => ({ ...r, score: [...words(r.text)].filter((w) => asked.has(w)).length }))
        .filter((r) => r.score > 0)
        .sort((a, b) => b.score - a.score)
        .slice(0, opts?.k ?? 5);
    },
    async forget() {
      return false;
    },
  };
}
