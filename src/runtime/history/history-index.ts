import type { SessionNode } from '../contract/session.js';
import { Bm25Index } from '../../search/bm25.js';
import { termWeight } from '../../search/bm25-formula.js';
import { tokenize } from '../../search/tokenize.js';
import { excerptAround } from './excerpt.js';
import { turnText } from './turn-text.js';

/** One turn a search found: its node, who said it, when, and the words around the match, verbatim. */
export type HistoryHit = { id: string; role: SessionNode['turn']['role']; at: number; excerpt: string; score: number };

/** One turn read back whole (up to a page of it). */
export type HistoryPage = { id: string; role: SessionNode['turn']['role']; at: number; text: string; offset: number; more: boolean };

/** Where the compacted-away turns of the live path come from (the session's, read when needed). */
export type HistoryLoad = () => Promise<readonly SessionNode[]> | readonly SessionNode[];

/** Turns indexed between two yields to the event loop while a large history is loaded. */
const SLICE = 500;

/**
 * BM25 over the turns compaction took out of a session's context: the evidence a summary keeps only
 * as conclusions (paths, commands, ids, numbers). Turns a compaction drops are indexed by `add` as
 * they are dropped, so a search never waits for them. The turns compacted before the index existed (a
 * resumed session's) come from `load`, read once: on the first search, or as soon as a compaction
 * shows the model the history tools, whichever is first; an agent that never compacts nor searches
 * never pays for them.
 */
export class HistoryIndex {
  private readonly index = new Bm25Index();
  private readonly nodes: SessionNode[] = [];
  private readonly docOf = new Map<string, number>();
  private load: HistoryLoad;
  // Whether the next load must also drop what it does not return (the live path changed).
  private prune = false;
  private ready: Promise<void> | undefined;
  // The load a newer one replaced, which must settle before the newer one touches the index.
  private superseded: Promise<void> | undefined;

  constructor(load: HistoryLoad) {
    this.load = load;
  }

  /** Turns a compaction just dropped: searchable at once. Starts reading the older ones too. */
  add(nodes: readonly SessionNode[]): void {
    for (const node of nodes) this.insert(node);
    this.prepare();
  }

  /**
   * Starts reading the turns compacted before this index existed, in slices that let other work run
   * between them; a search then waits only for what is left. A failure is the next search's to report
   * (and that search's retry), not lost.
   */
  prepare(): void {
    if (this.ready !== undefined) return;
    this.ready = this.build();
    // Marks the rejection as seen; `built` hands it to the next search, which tries again.
    this.ready.catch(() => undefined);
  }

  /**
   * The live path changed (`branchFrom`): from now on the index holds only the turns `load` returns,
   * the new path's compacted-away turns. Turns of the path the user left are dropped and ones the new
   * path compacted are added, on the next search or read (or `prepare`); `add` keeps working meanwhile.
   */
  switchPath(load: HistoryLoad): void {
    this.load = load;
    this.prune = true;
    this.superseded = this.ready?.catch(() => undefined);
    this.ready = undefined;
  }

  async search(query: string, k: number, excerptChars: number): Promise<HistoryHit[]> {
    await this.built();
    const terms = tokenize(query);
    if (terms.length === 0) return [];
    // Each query term weighs its idf: the excerpt centres on the rarest words, where an identifier is.
    const weights = new Map<string, number>();
    for (const term of terms) weights.set(term, termWeight(this.index.size, this.index.documentFrequency(term)) + term.length / 1000);
    return this.index.search(terms, { k }).map((hit) => {
      const node = this.nodes[hit.doc];
      return {
        id: node.id,
        role: node.turn.role,
        at: node.at,
        excerpt: excerptAround(turnText(node.turn), weights, excerptChars),
        score: hit.score,
      };
    });
  }

  /** The turn of node `id` from `offset`, at most `chars` of it; undefined when it is not a compacted-away turn of the live path. */
  async read(id: string, offset: number, chars: number): Promise<HistoryPage | undefined> {
    await this.built();
    const doc = this.docOf.get(id);
    if (doc === undefined) return undefined;
    const node = this.nodes[doc];
    const text = turnText(node.turn);
    return { id, role: node.turn.role, at: node.at, text: text.slice(offset, offset + chars), offset, more: offset + chars < text.length };
  }

  private async built(): Promise<void> {
    this.prepare();
    const ready = this.ready!;
    try {
      await ready;
    } catch (error) {
      // A failed load is tried again by the next search rather than remembered.
      if (this.ready === ready) this.ready = undefined;
      throw error;
    }
  }

  private async build(): Promise<void> {
    await this.superseded;
    const prune = this.prune;
    this.prune = false;
    let nodes: readonly SessionNode[];
    try {
      nodes = await this.load();
    } catch (error) {
      // The retry must still drop the path the user left.
      this.prune ||= prune;
      throw error;
    }
    if (prune) {
      const wanted = new Set(nodes.map((node) => node.id));
      for (const [id, doc] of this.docOf) {
        if (wanted.has(id)) continue;
        this.index.remove(doc);
        this.docOf.delete(id);
        delete this.nodes[doc];
      }
    }
    let fresh = 0;
    for (const node of nodes) {
      if (!this.insert(node)) continue;
      // A resumed session may hold 100,000 compacted turns: seconds of indexing must not stall a run.
      if (++fresh % SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Indexes `node` unless it already is; whether it was new. */
  private insert(node: SessionNode): boolean {
    if (this.docOf.has(node.id)) return false;
    const doc = this.index.add(tokenize(turnText(node.turn)));
    this.docOf.set(node.id, doc);
    this.nodes[doc] = node;
    return true;
  }
}
