import type { ModelUsage } from '../contract/model.js';
import type { LoadReport, SessionRecord } from '../contract/session.js';
import type { GuardrailTrip } from '../contract/guardrail.js';

/**
 * A writer's hold on one session, from `acquire` to `release`. Fenced: once it is lost (released, or
 * taken over by another writer) every `append` under it is refused and writes nothing. `epoch` tells
 * one holding from the next: a store hands out a new one with every `acquire`.
 */
export interface SessionLease {
  readonly sessionId: string;
  readonly epoch: number;
}

/**
 * A session as a store holds it: its records (nodes, head moves, starts; a condensation is a node with
 * `condenses`) in the order they were appended, and what reading them found.
 */
export type StoredSession = {
  records: SessionRecord[];
  /**
   * What reading found: lines (or rows) and bytes read, lines that gave no record, a torn tail. Leave
   * `orphans` empty and `leafFallback` null: rebuilding the graph from the records fills them in.
   */
  report: LoadReport;
  /** The 1-based line each record was read from, index for index, when the store has lines (default: the record's position). */
  lines?: readonly number[];
};

/**
 * The fast path of `readLivePath`: only what resuming needs (the nodes of the model context at the
 * leaf, `contextNodes(leaf)` of the whole graph, and the `started` records of their calls), plus the
 * session's totals. The rest is read with `read` when a caller asks for more.
 */
export type LivePathSession = StoredSession & {
  /** The live leaf; its whole model context must be among the records' nodes. */
  leaf: string | null;
  /** Usage billed over the whole session, every branch; without it `usageTotal()` reads the whole session. */
  usageTotal?: ModelUsage;
  /**
   * The guardrail trip standing at `leaf`, when the last record that placed the leaf is a head carrying
   * one (`tripped`): a live path holds no heads, so the store says it here.
   */
  tripped?: GuardrailTrip;
  /**
   * Optional: every record of the session (what `read` gives), synchronously, for the graph methods
   * that cannot wait (`size`, `children`...). Without it they throw `GraphNotLoadedError` until
   * `await graph.loadWhole()`. The file store offers it: it reads the file, blocking.
   */
  readAllSync?(): SessionRecord[];
};

/** What one `append` wrote: records (a store's own index records included) and their size as stored. */
export type AppendReport = { records: number; bytes: number };

/**
 * A session store, as the conductor needs it: a log of records per session with one writer at a time.
 * `SessionStore` (files), `MemorySessionStore` (process memory), `PostgresSessionStore` and your own (a
 * Redis, a DynamoDB...) implement it structurally; every one passes the same contract suite
 * (tests/runtime/store/session-store-contract.ts). See docs/sessions.md, "Writing a store".
 */
export interface SessionStoreLike {
  /** Takes the writer lease; rejects (`SessionLockedError` or a subclass, naming the holder) while another live writer has it. */
  acquire(sessionId: string): Promise<SessionLease>;
  /** Every record of the session, without a lease. A missing session has none (and a clean report). */
  read(sessionId: string): Promise<StoredSession>;
  /**
   * Appends `records` durably under `lease`, in order; resolves once they are durable, with what it
   * wrote when the store can say. Refused with `SessionLeaseLostError` (or a subclass), nothing written,
   * once the lease is lost. Safe to call again with the same records after a failure: a node written
   * twice is one node (ids are content hashes), a head is idempotent, and a `started` written twice
   * counts twice, which errs toward not running a call again.
   */
  append(lease: SessionLease, records: readonly SessionRecord[]): Promise<AppendReport | void>;
  /** Hands the lease back, after any append under it has finished. Releasing a lease that is not held does nothing. */
  release(lease: SessionLease): Promise<void>;
  /**
   * Optional: resuming without reading the whole session. A store that found it simpler to read every
   * record (a small session, a file without checkpoints) answers as `read` does.
   */
  readLivePath?(sessionId: string): Promise<LivePathSession | StoredSession>;
}
