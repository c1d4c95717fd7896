import { randomUUID } from 'node:crypto';
import { Bm25Index, tokenize } from '../search/index.js';
import type { MemoryRecord, MemoryStore } from './types.js';
import { MemoryInputError } from './errors.js';
import { checkSave, describe, encodeMeta, resolveSearch } from './options.js';

/**
 * A dependency-free `MemoryStore` kept in process memory and ranked with BM25 over an incremental
 * inverted index, so rare words outweigh common ones and a search costs the postings of its own terms,
 * not a scan of every record. Records are lost when the process exits; `seed` preloads some (their ids
 * and `createdAt` are kept).
 */
export function createMemoryStore(seed?: MemoryRecord[]): MemoryStore {
  const index = new Bm25Index();
  const records: Array<MemoryRecord | undefined> = [];
  const docById = new Map<string, number>();

  const insert = (record: MemoryRecord): void => {
    const doc = index.add(tokenize(record.text));
    records[doc] = record;
    docById.set(record.id, doc);
  };

  for (const record of checkSeed(seed)) insert(record);

  return {
    async save(text, opts) {
      checkSave(text, opts);
      const record: MemoryRecord = { id: randomUUID(), text, createdAt: Date.now() };
      if (opts?.kind !== undefined) record.kind = opts.kind;
      if (opts?.meta !== undefined) record.meta = cloneMeta(opts.meta);
      insert(record);
      return copy(record);
    },
    async search(query, opts) {
      const { k, kind, minScore } = resolveSearch(query, opts);
      const terms = tokenize(query);
      if (k === 0 || terms.length === 0) return [];
      const accept = kind === undefined ? undefined : (doc: number) => records[doc]?.kind === kind;
      return index.search(terms, { k, minScore, accept }).map(({ doc, score }) => ({ ...copy(records[doc]!), score }));
    },
    async forget(id) {
      if (typeof id !== 'string') throw new MemoryInputError(`Record id must be a string, got ${describe(id)}.`);
      const doc = docById.get(id);
      if (doc === undefined) return false;
      index.remove(doc);
      records[doc] = undefined;
      docById.delete(id);
      return true;
    },
    async all() {
      return [...docById.values()].map((doc) => copy(records[doc]!));
    },
  };
}

/** Validates every seed record before any is stored, so a bad seed leaves no half-filled store behind. */
function checkSeed(seed: MemoryRecord[] | undefined): MemoryRecord[] {
  if (seed === undefined) return [];
  if (!Array.isArray(seed)) throw new MemoryInputError(`seed must be an array of records, got ${describe(seed)}.`);
  const ids = new Set<string>();
  return seed.map((raw, i) => {
    const where = `seed[${i}]`;
    if (typeof raw !== 'object' || raw === null) throw new MemoryInputError(`${where} must be a record object, got ${describe(raw)}.`);
    if (typeof raw.id !== 'string' || raw.id === '') throw new MemoryInputError(`${where}.id must be a non-empty string.`);
    if (ids.has(raw.id)) throw new MemoryInputError(`${where}.id "${raw.id}" appears twice in the seed.`);
    ids.add(raw.id);
    if (typeof raw.text !== 'string') throw new MemoryInputError(`${where}.text must be a string.`);
    if (typeof raw.createdAt !== 'number' || !Number.isFinite(raw.createdAt)) throw new MemoryInputError(`${where}.createdAt must be a finite number.`);
    if (raw.kind !== undefined && typeof raw.kind !== 'string') throw new MemoryInputError(`${where}.kind must be a string.`);
    if (raw.meta !== undefined && (typeof raw.meta !== 'object' || raw.meta === null)) throw new MemoryInputError(`${where}.meta must be an object.`);
    // A seed's `score` came from some earlier search; it means nothing here.
    const record: MemoryRecord = { id: raw.id, text: raw.text, createdAt: raw.createdAt };
    if (raw.kind !== undefined) record.kind = raw.kind;
    if (raw.meta !== undefined) record.meta = cloneMeta(raw.meta);
    return record;
  });
}

/** The store owns its copy of `meta`, so a caller mutating the object later can't rewrite memory. */
function cloneMeta(meta: Record<string, unknown>): Record<string, unknown> {
  return JSON.parse(encodeMeta(meta));
}

function copy(record: MemoryRecord): MemoryRecord {
  return record.meta === undefined ? { ...record } : { ...record, meta: structuredClone(record.meta) };
}
