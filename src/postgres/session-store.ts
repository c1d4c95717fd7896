import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { SessionRecord } from '../runtime/contract/session.js';
import {
  SessionLeaseLostError,
  assertRecords,
  assertValidSessionId,
  loadSession,
  queueWrite,
  type AppendReport,
  type LivePathSession,
  type LoadOptions,
  type SessionGraph,
  type SessionLease,
  type SessionSummary,
  type SessionStoreLike,
  type StoredSession,
} from '../runtime/store/index.js';
import { checkConnection, type PostgresConnection } from './driver.js';
import { checkLimits, checkSchemaName, PostgresDatabase, type MigrateResult, type StatementLimitOptions } from './database.js';
import { errorMessage } from '../errors/index.js';
import { PostgresOptionsError, PostgresStoreError } from './errors.js';
import { checkTenant } from './tenant.js';
import { sessionSql } from './session-sql.js';
import { WriteBatches } from './write-batches.js';
import { encode, writeBatch, type PendingWrite } from './session-appends.js';
import { releaseLease, takeLease, type Held } from './session-lease.js';
import { listSessionSummaries, readLive, readWhole } from './session-reads.js';
import type { SessionTables } from './session-tables.js';

/** The schema version the session tables need: 2 added them, 3 their `updated_at`, 4 `folded_seq`, 6 `tripped`. */
const SESSIONS_VERSION = 6;
const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_LIVE_PATH_ABOVE = 2_000;
// Persists of different sessions that arrive together share statements (see WriteBatches), spread
// over up to four in flight so the database works on them side by side; fewer than eight to a
// statement is not worth another round trip.
const BATCH_LIMITS = { slots: 4, maxItems: 100, minItems: 8 };

export type PostgresSessionStoreOptions = {
  /** The PostgreSQL schema holding the tables. Default `indusagi`. */
  schema?: string;
  /** Every query is confined to this tenant's sessions; without one, to the default tenant's. */
  tenant?: string;
  /**
   * How long a writer's lease lasts without renewal, in ms (default 30 s): how long a session stays
   * closed to other writers after its holder stalled or died. A timer renews it every `renewMs` while it is held.
   */
  leaseMs?: number;
  /** How often a held lease is renewed while idle, in ms. Default a third of `leaseMs`. */
  renewMs?: number;
  /**
   * Sessions with more nodes than this resume from their live path only (the context at the leaf, a
   * few index lookups); smaller ones are read whole, so tree views and branching to any node work
   * without `await graph.loadWhole()`. Default 2,000.
   */
  livePathAbove?: number;
} & StatementLimitOptions;

/**
 * Sessions in PostgreSQL, shared by every machine that reaches the database (`SessionStoreLike`, the
 * same contract as the file store). Nodes keep their content-addressed ids, so a retried write adds
 * nothing. One writer per session at a time, across machines: `acquire` takes a lease row whose
 * epoch rises with every new holder, and each write commits only under its writer's epoch, so a
 * writer that stalled past its lease and was taken over is refused (`SessionFencedError`) and none
 * of its later writes land. The tables come from `migrate()`, never from first use. See docs/postgres.md.
 */
export class PostgresSessionStore implements SessionStoreLike {
  readonly schema: string;
  readonly tenant: string | undefined;
  /** How this store names itself as a lease holder: host, pid, and a random id per store. */
  readonly holder: string;
  private readonly tables: SessionTables;
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly livePathAbove: number;
  private readonly held = new Map<string, Held>();
  private readonly batches = new WriteBatches<PendingWrite, AppendReport>(
    (writes) => writeBatch(this.tables, this.leaseMs, writes),
    BATCH_LIMITS,
  );

  constructor(connection: PostgresConnection, options: PostgresSessionStoreOptions = {}) {
    const checked = checkConnection(connection);
    if (typeof options !== 'object' || options === null)
      throw new PostgresOptionsError(
        'options must be an object: { schema?, tenant?, leaseMs?, renewMs?, livePathAbove?, statementTimeoutMs?, lockTimeoutMs? }.',
      );
    this.schema = checkSchemaName(options.schema);
    this.tenant = checkTenant(options.tenant);
    this.leaseMs = positive(options.leaseMs, 'leaseMs') ?? DEFAULT_LEASE_MS;
    this.renewMs = positive(options.renewMs, 'renewMs') ?? Math.max(1, Math.floor(this.leaseMs / 3));
    if (this.renewMs >= this.leaseMs)
      throw new PostgresOptionsError(
        `renewMs (${this.renewMs}) must be shorter than leaseMs (${this.leaseMs}), or the lease lapses between renewals.`,
      );
    const above = options.livePathAbove ?? DEFAULT_LIVE_PATH_ABOVE;
    if (!Number.isInteger(above) || above < 0)
      throw new PostgresOptionsError(`livePathAbove must be a whole number of nodes, got ${JSON.stringify(above)}.`);
    this.livePathAbove = above;
    this.holder = `${hostname()} pid ${process.pid} store ${randomUUID().slice(0, 8)}`;
    const db = new PostgresDatabase(checked, this.schema, SESSIONS_VERSION, checkLimits(options));
    this.tables = { db, sql: sessionSql(db.s), t: this.tenant ?? '' };
  }

  /** Creates or upgrades the schema's tables (every indusagi store's); safe to run from many processes. */
  migrate(): Promise<MigrateResult> {
    return this.tables.db.migrate();
  }

  /**
   * Hands back every lease this store still holds (after the appends under way), then ends the pool the
   * store made (a pool you passed stays yours): other writers get those sessions at once, without
   * waiting for the leases to expire. A lease that could not be handed back is named in the
   * `PostgresStoreError` thrown at the end; it is no longer renewed and expires after `leaseMs`.
   */
  async close(): Promise<void> {
    const held = [...this.held.values()];
    const outcomes = await Promise.allSettled(held.map((session) => this.release(session.lease)));
    for (const session of this.held.values()) clearInterval(session.timer);
    this.held.clear();
    await this.tables.db.close();
    const failed = outcomes.flatMap((outcome, i) =>
      outcome.status === 'rejected' ? [{ id: held[i].lease.sessionId, reason: outcome.reason as unknown }] : [],
    );
    if (failed.length > 0) {
      const names = failed.map(({ id, reason }) => `${id} (${errorMessage(reason)})`).join(', ');
      throw new PostgresStoreError(
        `PostgresSessionStore closed, but could not hand back the ${failed.length === 1 ? 'lease of session' : 'leases of sessions'} ${names}.`,
        undefined,
        {
          cause: failed.length === 1 ? failed[0].reason : new AggregateError(failed.map(({ reason }) => reason)),
        },
      );
    }
  }

  /** Reads a session without taking its lease (its live path above `livePathAbove` nodes, unless `whole`). */
  loadSession(id: string, options: LoadOptions = {}): Promise<SessionGraph> {
    return loadSession(this, id, options);
  }

  /** The tenant's sessions holding at least one node, most recently written first (`size` is bytes as JSON lines). */
  listSessions(): Promise<SessionSummary[]> {
    return listSessionSummaries(this.tables);
  }

  /**
   * Takes the session's lease (`SessionLeaseHeldError` naming the holder while another writer's lease
   * is live; an expired one is taken over with the next epoch), renewed every `renewMs` until `release`.
   */
  async acquire(id: string): Promise<SessionLease> {
    assertValidSessionId(id);
    const session = await takeLease(this.tables, id, this.holder, this.leaseMs, this.renewMs);
    this.held.set(id, session);
    return session.lease;
  }

  /** Every record of the session, in one snapshot: its nodes in the order written, its start counts, its leaf. */
  async read(id: string): Promise<StoredSession> {
    assertValidSessionId(id);
    return readWhole(this.tables, id);
  }

  /**
   * The live path of a session with more nodes than `livePathAbove`: the context at the leaf, read in a
   * few windows of the write order (see `readLivePathNodes`), the first with the session's row. No
   * snapshot needed: nodes are never changed or removed and the walk starts from the leaf that row
   * names, so later statements read the same path (on a pool the store does not own they still run in
   * one transaction, where its limits are set: `limitedReads`). A smaller session whole, in one
   * snapshot, as `read` gives it, so tree views and branching to any node need no second read; in
   * that same transaction when there is one, and an empty session from the first statement alone.
   */
  async readLivePath(id: string): Promise<LivePathSession | StoredSession> {
    assertValidSessionId(id);
    const live = await readLive(this.tables, id, this.livePathAbove);
    return live ?? this.read(id);
  }

  /**
   * Writes `records`, all or nothing, and only while `lease` holds the session; appends of other
   * sessions arriving together share the statement (see `WriteBatches`). Appends under one lease run
   * one after another. Refused with `SessionFencedError` once another writer took the session over,
   * and with `SessionLeaseLostError` after `release`; nothing is written then.
   */
  async append(lease: SessionLease, records: readonly SessionRecord[]): Promise<AppendReport> {
    assertValidSessionId(lease?.sessionId);
    const session = this.held.get(lease.sessionId);
    if (session === undefined || session.lease.epoch !== lease.epoch) {
      throw new SessionLeaseLostError(lease.sessionId, `lease epoch ${lease.epoch} was handed back (or never taken by this store)`);
    }
    assertRecords(lease.sessionId, records);
    if (records.length === 0) return { records: 0, bytes: 0 };
    return queueWrite(session, () => this.batches.write({ held: session, changes: encode(records) }));
  }

  /** Hands the lease back once the appends under way are done. Releasing a lease that is not held does nothing. */
  async release(lease: SessionLease): Promise<void> {
    assertValidSessionId(lease?.sessionId);
    const session = this.held.get(lease.sessionId);
    if (session === undefined || session.lease.epoch !== lease.epoch) return;
    for (let queue = session.queue; ; queue = session.queue) {
      await queue;
      if (session.queue === queue) break;
    }
    if (this.held.get(lease.sessionId) !== session) return;
    clearInterval(session.timer);
    this.held.delete(lease.sessionId);
    await releaseLease(this.tables, lease);
  }
}

function positive(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new PostgresOptionsError(`${what} must be a positive number of milliseconds, got ${JSON.stringify(value)}.`);
  return value;
}
