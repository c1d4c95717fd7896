import type { TermCandidate, TermSource, TermStats } from '../search/index.js';
import type { ClientLike } from './driver.js';

/** What a replica keeps of a record: what ranking and the search filters read. */
export type ReplicaRow = { seq: number; ord: number; terms: string; scope_resource: string; scope_session: string; kind: string | null; current: boolean };

/** The filters of one search: the scope parts it may see, whether superseded records count, a kind. */
export type ReplicaFilter = { resources: readonly string[]; sessions: readonly string[]; current: boolean; kind: string | undefined };

type Entry = ReplicaRow & { distinct: string[]; length: number };

const ROW = `seq::float8 AS seq, ord::float8 AS ord, terms, scope_resource, scope_session, kind, superseded_by IS NULL AS current`;

/**
 * A copy of one tenant's search index in this process, brought up to date at the start of each search
 * from the tenant's version and change log (migration 5): one small query when nothing changed, the
 * changed records when something did, every record on first use. Ranking over it runs the same code
 * (`searchTermSource`) with the same statistics as the database's own index, so results and scores are
 * the same; only the reads move into memory.
 */
export class MemoryReplica {
  private version: number | null = null;
  private readonly entries = new Map<number, Entry>();
  private readonly postings = new Map<string, Set<number>>();
  private totalLength = 0;

  constructor(
    private readonly schema: string,
    private readonly tenant: string,
  ) {}

  /**
   * Applies what the database holds in `c`'s snapshot (a repeatable-read transaction) and returns that
   * snapshot's version. A concurrent search that already applied a later version wins: nothing goes back.
   */
  async catchUp(c: ClientLike): Promise<number> {
    const s = this.schema;
    const [{ version }] = (await c.query(`SELECT coalesce((SELECT version FROM ${s}.memory_stats WHERE tenant = $1), 0)::float8 AS version`, [this.tenant])).rows as Array<{ version: number }>;
    const from = this.version;
    if (from !== null && version <= from) return version;
    if (from === null) {
      const rows = (await c.query(`SELECT ${ROW} FROM ${s}.memory_records WHERE tenant = $1`, [this.tenant])).rows as ReplicaRow[];
      if (this.version === null) {
        for (const row of rows) this.put(row);
        this.version = version;
      }
      return version;
    }
    const changed = (await c.query(`SELECT DISTINCT seq::float8 AS seq FROM ${s}.memory_changes WHERE tenant = $1 AND version > $2`, [this.tenant, from])).rows as Array<{ seq: number }>;
    const seqs = changed.map((row) => row.seq);
    const rows = (await c.query(`SELECT ${ROW} FROM ${s}.memory_records WHERE tenant = $1 AND seq = ANY($2::bigint[])`, [this.tenant, seqs])).rows as ReplicaRow[];
    // Another search may have moved on while these were read: apply only onto the version they follow.
    if (this.version === from) {
      for (const seq of seqs) this.drop(seq);
      for (const row of rows) this.put(row);
      this.version = version;
    }
    return version;
  }

  /** The index as a `TermSource` for one search's filters. */
  source(filter: ReplicaFilter): TermSource<'sync'> {
    return {
      stats: (asked): TermStats => ({
        docs: this.entries.size,
        totalLength: this.totalLength,
        df: new Map(asked.map((term) => [term, this.postings.get(term)?.size ?? 0])),
      }),
      containing: (term, without): TermCandidate[] => {
        const out: TermCandidate[] = [];
        const excluded = without.map((w) => this.postings.get(w)).filter((set) => set !== undefined);
        for (const seq of this.postings.get(term) ?? []) {
          const entry = this.entries.get(seq)!;
          if (filter.current && !entry.current) continue;
          if (filter.kind !== undefined && entry.kind !== filter.kind) continue;
          if (!filter.resources.includes(entry.scope_resource) || !filter.sessions.includes(entry.scope_session)) continue;
          if (excluded.some((set) => set.has(seq))) continue;
          out.push({ ref: seq, order: entry.ord, terms: entry.terms });
        }
        return out;
      },
    };
  }

  private put(row: ReplicaRow): void {
    const list = row.terms === '' ? [] : row.terms.split(' ');
    const entry: Entry = { ...row, distinct: [...new Set(list)], length: list.length };
    this.entries.set(row.seq, entry);
    this.totalLength += entry.length;
    for (const term of entry.distinct) {
      let set = this.postings.get(term);
      if (set === undefined) this.postings.set(term, (set = new Set()));
      set.add(row.seq);
    }
  }

  private drop(seq: number): void {
    const entry = this.entries.get(seq);
    if (entry === undefined) return;
    this.entries.delete(seq);
    this.totalLength -= entry.length;
    for (const term of entry.distinct) {
      const set = this.postings.get(term)!;
      set.delete(seq);
      if (set.size === 0) this.postings.delete(term);
    }
  }
}
