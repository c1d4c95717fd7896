import { randomUUID } from 'node:crypto';
import { Bm25Index, feedbackDepth, feedbackTerms, rankWithFeedback, splitTerms, tokenize } from '../search/index.js';
import type { GovernedMemoryStore, MemoryRecord, MemoryScope, WorkingMemoryStore } from './types.js';
import { MemoryInputError } from './errors.js';
import {
  checkContext,
  checkEdit,
  checkScope,
  checkText,
  encodeMeta,
  resolveList,
  resolveOwner,
  resolveSearch,
  checkSave,
} from './options.js';
import { copyRecord, editedTerms, fingerprint, newRecord, ownedBy, recordTerms, scopeOf, visibleTo } from './governance.js';
import { chooseTargets } from './supersede.js';
import { checkEmbedder, dot, embedTexts, type Embedder } from './embedder.js';
import { fuseRankings, fusionDepth } from './fusion.js';
import { TopK } from '../search/top-k.js';
import { checkExpectedVersion, checkWorkingScope, encodeWorking, nextVersion, workingFromRow } from './working/index.js';

/**
 * A record as the store holds it: `terms` its index terms (its context's included, see `recordTerms`),
 * `vector` its text's embedding once the embedder has made one.
 */
type Entry = { record: MemoryRecord; doc: number; fingerprint: string; terms: string[]; vector?: Float32Array };

/** A seed record, with the context its words are indexed beside (see `SaveOptions.context`). */
type SeedRecord = MemoryRecord & { context?: string };

export type MemoryStoreOptions = {
  /**
   * Keeps a vector per record and ranks by meaning as well as by words (fused, see docs/memory.md).
   * Records that have none yet (a seed) are embedded before the first search or save that follows.
   */
  embedder?: Embedder;
};

/** Current records grouped by a slot (key, or restated text), so a save finds what it retires without a scan. */
class SlotIndex {
  private readonly slots = new Map<string, Set<Entry>>();
  constructor(private readonly slotOf: (entry: Entry) => string | undefined) {}
  get(slot: string): Entry[] {
    return [...(this.slots.get(slot) ?? [])];
  }
  add(entry: Entry): void {
    const slot = this.slotOf(entry);
    if (slot === undefined || entry.record.supersededBy !== undefined) return;
    let set = this.slots.get(slot);
    if (set === undefined) this.slots.set(slot, (set = new Set()));
    set.add(entry);
  }
  delete(entry: Entry): void {
    const slot = this.slotOf(entry);
    if (slot === undefined) return;
    const set = this.slots.get(slot);
    set?.delete(entry);
    if (set?.size === 0) this.slots.delete(slot);
  }
}

const scopeSlot = (scope: MemoryScope) => JSON.stringify([scope.resource ?? null, scope.session ?? null]);
const keySlot = (scope: MemoryScope, key: string) => `${scopeSlot(scope)}${JSON.stringify(key)}`;
const printSlot = (scope: MemoryScope, kind: string | undefined, print: string) =>
  `${scopeSlot(scope)}${JSON.stringify(kind ?? null)}${print}`;

/**
 * A dependency-free `MemoryStore` kept in process memory and ranked with BM25 over an incremental
 * inverted index, so rare words outweigh common ones and a search costs the postings of its own terms,
 * not a scan of every record. With `embedder` it also keeps each record's vector and fuses an exact
 * cosine ranking with the words ranking. Records are lost when the process exits; `seed` preloads some
 * (their ids, `createdAt` and governance fields are kept). It keeps working memory too, one block per scope.
 */
export function createMemoryStore(seed?: SeedRecord[], options: MemoryStoreOptions = {}): GovernedMemoryStore & WorkingMemoryStore {
  if (typeof options !== 'object' || options === null) throw new MemoryInputError('options must be an object: { embedder? }.');
  const embedder = options.embedder === undefined ? undefined : checkEmbedder(options.embedder);
  const index = new Bm25Index();
  // Insertion order is save order: an edit re-indexes a record but keeps its place here.
  const entries = new Map<string, Entry>();
  const byDoc: Array<Entry | undefined> = [];
  const byKey = new SlotIndex(({ record }) => (record.key === undefined ? undefined : keySlot(scopeOf(record), record.key)));
  const byPrint = new SlotIndex((e) => printSlot(scopeOf(e.record), e.record.kind, e.fingerprint));

  const indexText = (entry: Entry): void => {
    const { own, context } = splitTerms(entry.terms);
    entry.doc = index.add(own, context);
    byDoc[entry.doc] = entry;
  };
  const owned = (id: string, scope: MemoryScope): Entry | undefined => {
    const entry = entries.get(id);
    return entry !== undefined && ownedBy(scope, scopeOf(entry.record)) ? entry : undefined;
  };

  const insert = (entry: Entry): void => {
    entries.set(entry.record.id, entry);
    indexText(entry);
    byKey.add(entry);
    byPrint.add(entry);
  };

  // The records with no vector yet: only seeded ones (a save or an edit embeds its text before it
  // changes anything), kept apart so a save or search does not scan every record to find them.
  const unembedded = new Set<Entry>();
  for (const { record, context } of checkSeed(seed)) {
    const entry: Entry = { record, doc: -1, fingerprint: fingerprint(record.text), terms: recordTerms(record.text, context) };
    insert(entry);
    if (embedder !== undefined) unembedded.add(entry);
  }

  // Embeds every record that has no vector yet, one backfill at a time; a failure leaves those records
  // without vectors, to be tried again by the next call.
  let backfill: Promise<void> | undefined;
  const backfilled = async (signal?: AbortSignal): Promise<void> => {
    if (embedder === undefined) return;
    while (backfill !== undefined) await backfill;
    // A record forgotten or re-embedded (edited) meanwhile is no longer waiting for a vector.
    for (const e of unembedded) if (e.vector !== undefined || entries.get(e.record.id) !== e) unembedded.delete(e);
    if (unembedded.size === 0) return;
    const missing = [...unembedded];
    backfill = embedTexts(
      embedder,
      missing.map((e) => e.record.text),
      signal,
    ).then(
      (vectors) => {
        missing.forEach((e, i) => {
          e.vector ??= vectors[i];
          unembedded.delete(e);
        });
        backfill = undefined;
      },
      (error: unknown) => {
        backfill = undefined;
        throw error;
      },
    );
    await backfill;
  };
  const embedOne = async (text: string, signal?: AbortSignal): Promise<Float32Array | undefined> => {
    if (embedder === undefined) return undefined;
    await backfilled(signal);
    return (await embedTexts(embedder, [text], signal))[0];
  };

  /** The best `depth` records by cosine to `query` among those `accept` lets through. */
  const nearest = (query: Float32Array, depth: number, accept: (entry: Entry) => boolean): Entry[] => {
    const top = new TopK(depth);
    for (const entry of entries.values()) {
      if (entry.vector === undefined || !accept(entry)) continue;
      const score = dot(query, entry.vector);
      // Keyed by the entry's words document, which finds it again (`byDoc`) without a list of every candidate.
      if (score > 0 && top.wouldAccept(entry.doc, score)) top.offer(entry.doc, score);
    }
    return top.drain().map(({ doc }) => byDoc[doc]!);
  };

  // Working memory by exact scope: the block's JSON text (null once forgotten) and the version it reached.
  const working = new Map<string, { content: string | null; version: number }>();

  return {
    async getWorking(scope) {
      return workingFromRow(working.get(scopeSlot(checkWorkingScope(scope))));
    },
    async setWorking(scope, content, opts) {
      const slot = scopeSlot(checkWorkingScope(scope));
      const expected = checkExpectedVersion(opts);
      const text = encodeWorking(content);
      // Checked and written with no await between: one write at a time wins, as in the SQL stores.
      const stored = working.get(slot);
      const version = nextVersion(stored && { version: stored.version, live: stored.content !== null }, expected);
      working.set(slot, { content: text, version });
      return workingFromRow({ content: text, version })!;
    },
    async forgetWorking(scope) {
      const stored = working.get(scopeSlot(checkWorkingScope(scope)));
      if (stored === undefined || stored.content === null) return false;
      stored.content = null;
      return true;
    },
    async save(text, opts) {
      const save = checkSave(text, opts);
      // Embedded before anything changes: an embedder failure saves nothing.
      const vector = await embedOne(text);
      const print = fingerprint(text);
      const named = new Map(save.supersedes.flatMap((id) => (entries.has(id) ? [[id, entries.get(id)!] as const] : [])));
      const sameKey = save.key === undefined ? [] : byKey.get(keySlot(save.scope, save.key));
      const targets = chooseTargets(save, named, sameKey, byPrint.get(printSlot(save.scope, save.kind, print)));
      const now = Date.now();
      const record = newRecord(randomUUID(), text, save, now);
      if (targets.length > 0) record.supersedes = targets.map((t) => t.record.id);
      for (const target of targets) {
        byKey.delete(target);
        byPrint.delete(target);
        target.record.supersededBy = record.id;
        target.record.supersededAt = now;
      }
      insert({ record, doc: -1, fingerprint: print, terms: recordTerms(text, save.context), vector });
      return copyRecord(record);
    },
    async search(query, opts) {
      const { k, kind, minScore, scope, includeSuperseded, since, until, ranking, signal } = resolveSearch(query, opts);
      if (ranking === 'vector' && embedder === undefined)
        throw new MemoryInputError("ranking 'vector' needs a store made with an embedder.");
      const terms = tokenize(query);
      if (k === 0 || terms.length === 0) return [];
      // Every filter applies before ranking: what a reader may not see never takes a place in the top k.
      const accept = ({ record }: Entry) => {
        const at = record.provenance!.at;
        return (
          (includeSuperseded || record.supersededBy === undefined) &&
          (kind === undefined || record.kind === kind) &&
          at >= since &&
          at < until &&
          visibleTo(scope, scopeOf(record))
        );
      };
      const hit = (entry: Entry, score: number) => ({ ...copyRecord(entry.record), score });
      // BM25, then pseudo-relevance feedback over a deeper first pass (see search/feedback.ts).
      const byWords = (depth: number, min: number) => {
        const pool = index
          .search(terms, { k: feedbackDepth(depth), minScore: min, accept: (doc) => accept(byDoc[doc]!) })
          .map((h) => ({ ref: byDoc[h.doc]!, score: h.score, terms: byDoc[h.doc]!.terms }));
        const stats = { docs: index.size, totalLength: index.totalLength, df: (term: string) => index.documentFrequency(term) };
        return rankWithFeedback(pool, feedbackTerms(terms, pool), stats, depth).map((h) => ({ entry: h.ref, score: h.score }));
      };
      if (embedder === undefined || ranking === 'words') return byWords(k, minScore).map((h) => hit(h.entry, h.score));
      const vector = (await embedOne(query, signal))!;
      if (ranking === 'vector')
        return nearest(vector, k, accept)
          .map((e) => hit(e, dot(vector, e.vector!)))
          .filter((h) => h.score > minScore);
      const depth = fusionDepth(k);
      const fused = fuseRankings(
        byWords(depth, 0).map((h) => h.entry),
        nearest(vector, depth, accept),
        k,
      );
      return fused.filter((f) => f.score > minScore).map((f) => hit(f.key, f.score));
    },
    async forget(id, opts) {
      const { scope } = resolveOwner(id, opts);
      const entry = owned(id, scope);
      if (entry === undefined) return false;
      index.remove(entry.doc);
      byDoc[entry.doc] = undefined;
      byKey.delete(entry);
      byPrint.delete(entry);
      entries.delete(id);
      return true;
    },
    async all() {
      return [...entries.values()].map((e) => copyRecord(e.record));
    },
    async get(id, opts) {
      const { scope } = resolveOwner(id, opts);
      const entry = owned(id, scope);
      return entry === undefined ? undefined : copyRecord(entry.record);
    },
    async list(opts) {
      const { kind, scope, includeSuperseded } = resolveList(opts);
      return [...entries.values()]
        .map((e) => e.record)
        .filter(
          (r) =>
            (includeSuperseded || r.supersededBy === undefined) && (kind === undefined || r.kind === kind) && ownedBy(scope, scopeOf(r)),
        )
        .map(copyRecord);
    },
    async update(id, edit, opts) {
      const { scope } = resolveOwner(id, opts);
      const change = checkEdit(edit);
      if (owned(id, scope) === undefined) return undefined;
      const vector = change.text === undefined ? undefined : await embedOne(change.text);
      // Looked up again: the record may have gone while the new text was being embedded.
      const entry = owned(id, scope);
      if (entry === undefined) return undefined;
      const { record } = entry;
      byPrint.delete(entry);
      if (change.kind === null) delete record.kind;
      else if (change.kind !== undefined) record.kind = change.kind;
      if (change.meta === null) delete record.meta;
      else if (change.meta !== undefined) record.meta = JSON.parse(change.meta);
      record.updatedAt = Date.now();
      if (change.text !== undefined && change.text !== record.text) {
        entry.terms = editedTerms(entry.terms, change.text);
        record.text = change.text;
        entry.fingerprint = fingerprint(change.text);
        entry.vector = vector;
        index.remove(entry.doc);
        byDoc[entry.doc] = undefined;
        indexText(entry);
      }
      byPrint.add(entry);
      return copyRecord(record);
    },
  };
}

/** Validates every seed record before any is stored, so a bad seed leaves no half-filled store behind. */
function checkSeed(seed: SeedRecord[] | undefined): Array<{ record: MemoryRecord; context: string | undefined }> {
  if (seed === undefined) return [];
  if (!Array.isArray(seed)) throw new MemoryInputError(`seed must be an array of records, got ${typeof seed}.`);
  const ids = new Set<string>();
  return seed.map((raw, i) => {
    const where = `seed[${i}]`;
    if (typeof raw !== 'object' || raw === null) throw new MemoryInputError(`${where} must be a record object.`);
    if (typeof raw.id !== 'string' || raw.id === '') throw new MemoryInputError(`${where}.id must be a non-empty string.`);
    if (ids.has(raw.id)) throw new MemoryInputError(`${where}.id "${raw.id}" appears twice in the seed.`);
    ids.add(raw.id);
    if (typeof raw.text !== 'string') throw new MemoryInputError(`${where}.text must be a string.`);
    checkText(raw.text, `${where}.text`);
    const time = (value: unknown, name: string) => {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new MemoryInputError(`${where}.${name} must be a finite number.`);
      return value;
    };
    const text = (value: unknown, name: string) => {
      if (typeof value !== 'string' || value === '') throw new MemoryInputError(`${where}.${name} must be a non-empty string.`);
      checkText(value, `${where}.${name}`);
      return value;
    };
    // A seed's `score` came from some earlier search; it means nothing here.
    const record: MemoryRecord = { id: raw.id, text: raw.text, createdAt: time(raw.createdAt, 'createdAt') };
    if (raw.kind !== undefined) {
      if (typeof raw.kind !== 'string') throw new MemoryInputError(`${where}.kind must be a string.`);
      record.kind = raw.kind;
    }
    if (raw.meta !== undefined) {
      if (typeof raw.meta !== 'object' || raw.meta === null || Array.isArray(raw.meta))
        throw new MemoryInputError(`${where}.meta must be an object.`);
      record.meta = JSON.parse(encodeMeta(raw.meta));
    }
    const scope = checkScope(raw.scope);
    if (scope.resource !== undefined || scope.session !== undefined) record.scope = scope;
    const provenance = raw.provenance ?? { at: record.createdAt };
    if (typeof provenance !== 'object' || provenance === null) throw new MemoryInputError(`${where}.provenance must be an object.`);
    record.provenance = { at: time(provenance.at ?? record.createdAt, 'provenance.at') };
    if (provenance.sessionId !== undefined) record.provenance.sessionId = text(provenance.sessionId, 'provenance.sessionId');
    if (provenance.nodeId !== undefined) record.provenance.nodeId = text(provenance.nodeId, 'provenance.nodeId');
    if (raw.key !== undefined) record.key = text(raw.key, 'key');
    if (raw.supersedes !== undefined) {
      if (!Array.isArray(raw.supersedes)) throw new MemoryInputError(`${where}.supersedes must be an array of ids.`);
      record.supersedes = raw.supersedes.map((id, j) => text(id, `supersedes[${j}]`));
    }
    if (raw.supersededBy !== undefined) {
      record.supersededBy = text(raw.supersededBy, 'supersededBy');
      record.supersededAt = time(raw.supersededAt, 'supersededAt');
    }
    if (raw.updatedAt !== undefined) record.updatedAt = time(raw.updatedAt, 'updatedAt');
    return { record, context: checkContext(raw.context, `${where}.context`) };
  });
}
