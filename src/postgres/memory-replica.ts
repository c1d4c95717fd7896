import { Bm25Index, feedbackDepth, feedbackTerms, rankWithFeedback, splitTerms, type RankedRef } from '../search/index.js';
import type { ClientLike } from './driver.js';

/** What a replica keeps of a record: what ranking and the search filters read. */
type ReplicaRow = {
  seq: number;
  ord: number;
  terms: string;
  scope_resource: string;
  scope_session: string;
  kind: string | null;
  observed_at: number;
  current: boolean;
};

/**
 * The filters of one search, in the database or a replica: the scope parts it may see, current records
 * only or not, a kind, and when the records were said (`since` inclusive, `until` exclusive; infinite for none).
 */
export type ReplicaFilter = {
  resources: readonly string[];
  sessions: readonly string[];
  current: boolean;
  kind: string | undefined;
  since: number;
  until: number;
};

type Entry = ReplicaRow & { doc: number };

const ROW = `seq::float8 AS seq, ord::float8 AS ord, terms, scope_resource, scope_session, kind, observed_at, superseded_by IS NULL AS current`;

/**
 * A copy of one tenant's search index in this process: the in-process BM25 index over the records'
 * index terms, brought up to date at the start of each search from the tenant's version and change log
 * (migration 5): one small query when nothing changed, the changed records when something did, every
 * record on first use. Documents are numbered in `ord` order, the database's tie-break, and the index
 * holds every record of the tenant as the database's statistics do, so results and scores are the
 * database's own.
 */
export class MemoryReplica {
  private version: number | null = null;
  private index = new Bm25Index();
  private readonly entries = new Map<number, Entry>();
  private readonly byDoc: Array<Entry | undefined> = [];

  constructor(
    private readonly schema: string,
    private readonly tenant: string,
  ) {}

  /**
   * Applies what the database holds in `c`'s snapshot (a repeatable-read transaction). A concurrent
   * search that already applied a later version wins: nothing goes back.
   */
  async catchUp(c: ClientLike): Promise<void> {
    const s = this.schema;
    const [{ version }] = (
      await c.query(`SELECT coalesce((SELECT version FROM ${s}.memory_stats WHERE tenant = $1), 0)::float8 AS version`, [this.tenant])
    ).rows as Array<{
      version: number;
    }>;
    const from = this.version;
    if (from !== null && version <= from) return;
    if (from === null) {
      const rows = (await c.query(`SELECT ${ROW} FROM ${s}.memory_records WHERE tenant = $1 ORDER BY ord`, [this.tenant]))
        .rows as ReplicaRow[];
      if (this.version !== null) return;
      for (const row of rows) this.add(row);
      this.version = version;
      return;
    }
    const changed = (
      await c.query(`SELECT DISTINCT seq::float8 AS seq FROM ${s}.memory_changes WHERE tenant = $1 AND version > $2`, [this.tenant, from])
    ).rows as Array<{ seq: number }>;
    const seqs = changed.map((row) => row.seq);
    const rows = (
      await c.query(`SELECT ${ROW} FROM ${s}.memory_records WHERE tenant = $1 AND seq = ANY($2::bigint[]) ORDER BY ord`, [
        this.tenant,
        seqs,
      ])
    ).rows as ReplicaRow[];
    // Another search may have moved on while these were read: apply only onto the version they follow.
    if (this.version !== from) return;
    const present = new Set(rows.map((row) => row.seq));
    for (const seq of seqs) if (!present.has(seq)) this.remove(seq);
    for (const row of rows) {
      const entry = this.entries.get(row.seq);
      // Superseding and edits that keep the text change only what the filters read.
      if (entry !== undefined && entry.ord === row.ord && entry.terms === row.terms) Object.assign(entry, row);
      else {
        this.remove(row.seq);
        this.add(row);
      }
    }
    this.version = version;
  }

  /** The best `k` records for `terms` passing `filter`, as the database's ranking would give them. */
  search(terms: readonly string[], opts: { k: number; minScore: number; filter: ReplicaFilter }): RankedRef[] {
    const { filter } = opts;
    const accept = (doc: number) => {
      const entry = this.byDoc[doc]!;
      return (
        (!filter.current || entry.current) &&
        (filter.kind === undefined || entry.kind === filter.kind) &&
        entry.observed_at >= filter.since &&
        entry.observed_at < filter.until &&
        filter.resources.includes(entry.scope_resource) &&
        filter.sessions.includes(entry.scope_session)
      );
    };
    // The database's ranking: BM25 as deep as feedback reads, then the pool ranked again (search/feedback.ts).
    const pool = this.index.search(terms, { k: feedbackDepth(opts.k), minScore: opts.minScore, accept }).map(({ doc, score }) => {
      const entry = this.byDoc[doc]!;
      return { ref: entry.seq, score, terms: entry.terms === '' ? [] : entry.terms.split(' ') };
    });
    const stats = { docs: this.index.size, totalLength: this.index.totalLength, df: (term: string) => this.index.documentFrequency(term) };
    return rankWithFeedback(pool, feedbackTerms(terms, pool), stats, opts.k);
  }

  // A record changed since it was indexed is added again, after every record indexed so far: its new
  // `ord` (a save's, or a re-indexed edit's) is the highest, as the database numbers them.
  private add(row: ReplicaRow): void {
    const { own, context } = splitTerms(row.terms === '' ? [] : row.terms.split(' '));
    const entry: Entry = { ...row, doc: this.index.add(own, context) };
    this.entries.set(row.seq, entry);
    this.byDoc[entry.doc] = entry;
  }

  private remove(seq: number): void {
    const entry = this.entries.get(seq);
    if (entry === undefined) return;
    this.index.remove(entry.doc);
    this.byDoc[entry.doc] = undefined;
    this.entries.delete(seq);
  }
}
