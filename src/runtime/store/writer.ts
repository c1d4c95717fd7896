import type { Turn } from '../contract/turn.js';
import type { LoadReport, SessionNode, SessionRecord } from '../contract/session.js';
import type { GuardrailTrip } from '../contract/guardrail.js';
import { addRecorded, type SessionGraph } from './graph.js';
import type { AppendExtra } from './new-node.js';
import type { AppendReport, SessionLease, SessionStoreLike } from './types.js';
import { SessionLeaseLostError, UnknownNodeError } from './errors.js';
import { loadSessionWithReport, type LoadOptions } from './load-session.js';

/**
 * A session open for writing over any store: the writer lease, the session's graph, and the records
 * the graph gained that the store does not hold yet. Change the graph through the writer (`append`,
 * `markStarted`; leaf moves with `graph.branchFrom` or `graph.resume` are seen by themselves), and
 * `persist` hands what is new to `store.append`, in order: new nodes, then one `started` record for the
 * starts since, then a head record when the leaf moved other than by those appends (carrying the trip
 * standing at the leaf, when one does: see `trip`). A failed append
 * puts its records back in front of newer ones, so the next `persist` writes them again. The conductor
 * keeps its sessions this way; so can a script or a tool that writes a session itself.
 */
export class SessionWriter {
  private nodes: SessionRecord[] = [];
  private starts: string[] = [];
  // The leaf the store last recorded; undefined when unknown (an append failed midway).
  private savedLeaf: string | null | undefined;
  // The trip the store last recorded at that leaf.
  private savedTrip: GuardrailTrip | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private released = false;

  private constructor(
    private readonly store: SessionStoreLike,
    readonly lease: SessionLease,
    readonly graph: SessionGraph,
    /** What loading the session found (skipped lines, orphans, a torn tail...). */
    readonly report: LoadReport,
  ) {
    // Only a deliberate change (an append, a leaf move) records a new head: merely opening and closing a
    // damaged session must not make a fallback leaf permanent and hide that the live path was cut.
    this.savedLeaf = graph.leaf;
    this.savedTrip = graph.tripped;
  }

  /**
   * Takes the session's writer lease (the store's error while another writer holds it), then loads the
   * session: its live path when the store offers one, every record with `{ whole: true }`. A failed
   * load hands the lease back.
   */
  static async open(store: SessionStoreLike, id: string, options: LoadOptions = {}): Promise<SessionWriter> {
    const lease = await store.acquire(id);
    try {
      const { graph, report } = await loadSessionWithReport(store, id, options);
      return new SessionWriter(store, lease, graph, report);
    } catch (error) {
      await store.release(lease);
      throw error;
    }
  }

  get sessionId(): string {
    return this.lease.sessionId;
  }

  /** `graph.append`, keeping the new node's record for the next `persist` (none when the graph held the node). */
  append(turn: Turn, at: number = Date.now(), extra?: AppendExtra): SessionNode {
    const { node, record } = this.graph[addRecorded](turn, at, extra);
    if (record !== null) this.nodes.push(record);
    return node;
  }

  /** `graph.markStarted`, keeping the starts for the next `persist`. */
  markStarted(callIds: readonly string[]): void {
    this.graph.markStarted(callIds);
    this.starts.push(...callIds);
  }

  /**
   * Moves the leaf back to `leaf` (null: before the first node) because the run after it tripped a
   * guardrail: the next `persist` writes a head carrying `tripped`, which stands (`graph.tripped`)
   * until the leaf moves on. What the run appended stays in the session, off the live path.
   */
  trip(leaf: string | null, tripped: GuardrailTrip): void {
    if (leaf !== null && !this.graph.has(leaf)) throw new UnknownNodeError(this.sessionId, leaf);
    this.graph.apply([{ type: 'head', leaf, tripped }]);
  }

  /** True when `persist` has something to append. */
  get hasPending(): boolean {
    return this.nodes.length > 0 || this.starts.length > 0 || this.graph.leaf !== this.savedLeaf || this.graph.tripped !== this.savedTrip;
  }

  /**
   * Appends what the graph gained since the last persist, once the appends before it are done; resolves
   * once it is durable, with what the store says it wrote. On failure the records wait for the next call.
   */
  persist(): Promise<AppendReport | void> {
    const run = this.queue.then(() => this.write());
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Persists what is left (appends queued meanwhile first), then hands the lease back. If that fails the
   * lease stays held and the records stay here, so nothing is lost and `close` can be called again;
   * unless the lease itself was lost: those records can never be written under it, so the lease is
   * let go and the `SessionLeaseLostError` thrown (once; a later `close` has nothing left to do).
   */
  async close(): Promise<void> {
    if (this.released) return;
    try {
      for (;;) {
        const queue = this.queue;
        await queue;
        if (this.hasPending) await this.persist();
        // Nothing pending and nothing queued since: no await between this check and the release.
        else if (this.queue === queue) break;
      }
    } catch (error) {
      if (SessionLeaseLostError.isInstance(error)) await this.letGo();
      throw error;
    }
    await this.letGo();
  }

  private async letGo(): Promise<void> {
    await this.store.release(this.lease);
    this.released = true;
  }

  private async write(): Promise<AppendReport | void> {
    const records = this.take();
    if (records.length === 0) return { records: 0, bytes: 0 };
    try {
      return await this.store.append(this.lease, records);
    } catch (error) {
      this.putBack(records);
      throw error;
    }
  }

  /** The records to append now, forgotten here: new nodes, one `started` record, then a head when needed. */
  private take(): SessionRecord[] {
    const records = this.nodes;
    this.nodes = [];
    // After the nodes they refer to, before the head: one record for every start since the last take.
    if (this.starts.length > 0) {
      records.push({ type: 'started', callIds: this.starts });
      this.starts = [];
    }
    // A node record moves the replayed leaf to its node, so after new nodes a head is needed unless the
    // leaf is the last of them (it may have been moved back with `branchFrom` since they were appended).
    const leaf = this.graph.leaf;
    const tripped = this.graph.tripped;
    const last = records.findLast((record) => record.type === 'node');
    if (leaf !== this.savedLeaf || (last !== undefined && last.node.id !== leaf) || tripped !== this.savedTrip) {
      records.push(tripped === undefined ? { type: 'head', leaf } : { type: 'head', leaf, tripped });
      this.savedLeaf = leaf;
      this.savedTrip = tripped;
    }
    return records;
  }

  /** Puts back records `take` gave that were not (or not surely) appended, ahead of newer ones. */
  private putBack(records: SessionRecord[]): void {
    this.nodes = [...records.filter((record) => record.type === 'node'), ...this.nodes];
    this.starts = [...records.flatMap((record) => (record.type === 'started' ? record.callIds : [])), ...this.starts];
    // The head may or may not have been stored: write one again next time, wherever the leaf is.
    if (records.some((record) => record.type === 'head')) this.savedLeaf = undefined;
  }
}
