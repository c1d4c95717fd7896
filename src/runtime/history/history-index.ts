import type { SessionNode } from '../contract/session.js';
import { Bm25Index } from '../../search/bm25.js';
import { foldWords, tokenize } from '../../search/tokenize.js';
import { excerptAround, turnText } from './turn-text.js';

/** One turn a search found: its node, who said it, when, and the words around the match, verbatim. */
export type HistoryHit = { id: string; role: SessionNode['turn']['role']; at: number; excerpt: string; score: number };

/** One turn read back whole (up to a page of it). */
export type HistoryPage = { id: string; role: SessionNode['turn']['role']; at: number; text: string; offset: number; more: boolean };

/**
 * BM25 over the turns condensation took out of a session's context: the evidence a summary keeps only
 * as conclusions (paths, commands, ids, numbers). Built on first use from `load` (the session's
 * condensed-away nodes), then kept current with `add` as later condensations drop more; an agent that
 * never searches never pays for it.
 */
export class HistoryIndex {
  private readonly index = new Bm25Index();
  private readonly nodes: SessionNode[] = [];
  private readonly byId = new Map<string, SessionNode>();
  private ready: Promise<void> | undefined;

  constructor(private readonly load: () => Promise<readonly SessionNode[]> | readonly SessionNode[]) {}

  /** Turns a condensation just dropped; ignored until the index is built (the load will include them). */
  add(nodes: readonly SessionNode[]): void {
    if (this.ready === undefined) return;
    for (const node of nodes) this.insert(node);
  }

  async search(query: string, k: number, excerptChars: number): Promise<HistoryHit[]> {
    await this.built();
    const terms = tokenize(query);
    if (terms.length === 0) return [];
    const words = foldWords(query);
    return this.index.search(terms, { k }).map((hit) => {
      const node = this.nodes[hit.doc];
      return {
        id: node.id,
        role: node.turn.role,
        at: node.at,
        excerpt: excerptAround(turnText(node.turn), words, excerptChars),
        score: hit.score,
      };
    });
  }

  /** The turn of node `id` from `offset`, at most `chars` of it; undefined when it is not a condensed-away turn of this session. */
  async read(id: string, offset: number, chars: number): Promise<HistoryPage | undefined> {
    await this.built();
    const node = this.byId.get(id);
    if (node === undefined) return undefined;
    const text = turnText(node.turn);
    return { id, role: node.turn.role, at: node.at, text: text.slice(offset, offset + chars), offset, more: offset + chars < text.length };
  }

  private built(): Promise<void> {
    this.ready ??= Promise.resolve(this.load()).then(
      (nodes) => {
        for (const node of nodes) this.insert(node);
      },
      (error: unknown) => {
        // A failed load is tried again by the next search rather than remembered.
        this.ready = undefined;
        throw error;
      },
    );
    return this.ready;
  }

  private insert(node: SessionNode): void {
    if (this.byId.has(node.id)) return;
    this.byId.set(node.id, node);
    const doc = this.index.add(tokenize(turnText(node.turn)));
    this.nodes[doc] = node;
  }
}
