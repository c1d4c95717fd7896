import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { LoadReport, SessionNode, SessionRecord } from '../runtime/contract/session.js';
import {
  SessionLeaseLostError,
  assertRecords,
  assertValidSessionId,
  loadSession,
  queueWrite,
  titleOf,
  type AppendReport,
  type LivePathSession,
  type LoadOptions,
  type SessionGraph,
  type SessionLease,
  type SessionSummary,
  type SessionStoreLike,
  type StoredSession,
} from '../runtime/store/index.js';
import type { ModelUsage } from '../runtime/contract/model.js';
import type { GuardrailTrip } from '../runtime/contract/guardrail.js';
import { checkConnection, type ClientLike, type PostgresConnection, type PreparedQuery } from './driver.js';
import { checkLimits, checkSchemaName, PostgresDatabase, type MigrateResult, type StatementLimitOptions } from './database.js';
import { errorMessage } from '../errors/index.js';
import { PostgresOptionsError, PostgresStoreError, SessionFencedError, SessionLeaseHeldError } from './errors.js';
import { checkTenant } from './tenant.js';
import { sessionSql, type SessionSql } from './session-sql.js';
import { WriteBatches, type Settled } from './write-batches.js';
import { FIRST_WIDTH, readLivePathNodes, type WindowRow } from './live-path.js';

/** The schema version the session tables need: 2 added them, 3 their `updated_at`, 4 `folded_seq`, 6 `tripped`. */
const SESSIONS_VERSION = 6;
/** A write takes the nodes written since into the session's row once this many are waiting (see `persist` in session-sql.ts). */
const FOLD_AFTER = 32;
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

/** A session this store holds the lease of. */
type Held = {
  lease: SessionLease;
  /** Appends under the lease run one after another. */
  queue: Promise<void>;
  timer: ReturnType<typeof setInterval>;
  /** Why the last renewal failed, kept as the cause of a later `SessionFencedError`. */
  renewError: unknown;
  /** Nodes written since the session's row last took them in (a reader adds them up); null until the first write, which folds. */
  unfolded: number | null;
};

/** One node's columns, in the order of the persist statement's per-node arrays (after the session). */
type NodeValues = [
  id: string,
  parent: string | null,
  condenses: boolean,
  firstKept: string | null,
  json: string,
  bytes: number,
  ...usage: number[],
];

/** What one append adds to its session; `trip` stands at `leaf` once it is in. */
type Changes = {
  nodes: NodeValues[];
  started: string[];
  leaf: string | null | undefined;
  trip: GuardrailTrip | null;
  otherRecords: number;
  otherBytes: number;
};

type PendingWrite = { held: Held; changes: Changes };

/** A node's line is `{"type":"node","node":<json>}` and its newline. */
const NODE_LINE_OVERHEAD = Buffer.byteLength('{"type":"node","node":}') + 1;

type SessionRow = {
  leaf: string | null;
  unfolded: number;
  nodes: number;
  records: number;
  bytes: number;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_read_tokens: number;
  cache_write_1h_tokens: number;
  /** The guardrail trip standing at the leaf, as JSON. */
  tripped: string | null;
};

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
  private readonly db: PostgresDatabase;
  private readonly sql: SessionSql;
  private readonly t: string;
  private readonly leaseMs: number;
  private readonly renewMs: number;
  private readonly livePathAbove: number;
  private readonly held = new Map<string, Held>();
  private readonly batches = new WriteBatches<PendingWrite, AppendReport>((writes) => this.writeBatch(writes), BATCH_LIMITS);

  constructor(connection: PostgresConnection, options: PostgresSessionStoreOptions = {}) {
    const checked = checkConnection(connection);
    if (typeof options !== 'object' || options === null)
      throw new PostgresOptionsError(
        'options must be an object: { schema?, tenant?, leaseMs?, renewMs?, livePathAbove?, statementTimeoutMs?, lockTimeoutMs? }.',
      );
    this.schema = checkSchemaName(options.schema);
    this.tenant = checkTenant(options.tenant);
    this.t = this.tenant ?? '';
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
    this.db = new PostgresDatabase(checked, this.schema, SESSIONS_VERSION, checkLimits(options));
    this.sql = sessionSql(this.db.s);
  }

  /** Creates or upgrades the schema's tables (every indusagi store's); safe to run from many processes. */
  migrate(): Promise<MigrateResult> {
    return this.db.migrate();
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
    await this.db.close();
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
  async listSessions(): Promise<SessionSummary[]> {
    const rows = await this.db.query<{
      id: string;
      bytes: number;
      updated_at: Date;
      leaf: string | null;
      nodes: number;
      first: string | null;
    }>(this.sql.list, [this.t]);
    return rows.map((row) => ({
      id: row.id,
      size: row.bytes,
      modifiedAt: row.updated_at,
      leaf: row.leaf,
      title: row.first === null ? null : titleOf((JSON.parse(row.first) as SessionNode).turn),
      turns: row.nodes,
    }));
  }

  /**
   * Takes the session's lease (`SessionLeaseHeldError` naming the holder while another writer's lease
   * is live; an expired one is taken over with the next epoch), renewed every `renewMs` until `release`.
   */
  async acquire(id: string): Promise<SessionLease> {
    assertValidSessionId(id);
    const taken = await this.db.query<{ epoch: number }>(this.sql.takeLease, [this.t, id, this.holder, this.leaseMs]);
    if (taken.length === 0) throw await this.heldError(id);
    const session: Held = {
      lease: { sessionId: id, epoch: taken[0].epoch },
      queue: Promise.resolve(),
      timer: undefined as never,
      renewError: undefined,
      unfolded: null,
    };
    session.timer = setInterval(() => void this.renew(session), this.renewMs);
    session.timer.unref();
    this.held.set(id, session);
    return session.lease;
  }

  /** Every record of the session, in one snapshot: its nodes in the order written, its start counts, its leaf. */
  async read(id: string): Promise<StoredSession> {
    assertValidSessionId(id);
    return this.db.transaction(
      async (client) => {
        const row = await this.rowIn(client, id);
        return { records: row === undefined ? [] : await this.recordsIn(client, id, row), report: report(row) };
      },
      { readOnly: true },
    );
  }

  /**
   * The live path of a session with more nodes than `livePathAbove`: the context at the leaf, read in a
   * few windows of the write order (see `readLivePathNodes`), the first with the session's row. No
   * snapshot needed: nodes are never changed or removed and the walk starts from the leaf that row
   * names, so later statements read the same path (on a pool the store does not own they still run in
   * one transaction, where its limits are set: `limitedReads`). A smaller session whole, in one
   * snapshot, as `read` gives it, so tree views and branching to any node need no second read.
   */
  async readLivePath(id: string): Promise<LivePathSession | StoredSession> {
    assertValidSessionId(id);
    type Row = SessionRow & { has_starts: boolean; node_id: string | null; node_seq: number | null; node: string | null };
    const live = await this.db.limitedReads(async (query): Promise<LivePathSession | null> => {
      const rows = await query<Row>(this.sql.liveStart, [this.t, id, this.livePathAbove, FIRST_WIDTH]);
      const row = rows[0];
      if (row === undefined || row.nodes <= this.livePathAbove || row.leaf === null) return null;
      const first: WindowRow[] = rows.flatMap((r) => (r.node_id === null ? [] : [{ id: r.node_id, seq: r.node_seq!, node: r.node! }]));
      const nodes = await readLivePathNodes(
        {
          window: (from, width) => query<WindowRow>(this.sql.nodesBefore, [this.t, id, from, width]),
          walk: async (leaf) => (await query<{ node: string }>(this.sql.livePath, [this.t, id, leaf])).map((r) => r.node),
        },
        row.leaf,
        first,
      );
      // The start counts of the path's calls, when the session has any.
      const calls = row.has_starts
        ? nodes.flatMap((node) => node.turn.blocks.flatMap((block) => (block.kind === 'tool_call' ? [block.id] : [])))
        : [];
      const starts = calls.length === 0 ? [] : await query<{ call_id: string; count: number }>(this.sql.startsOf, [this.t, id, calls]);
      const records: SessionRecord[] = nodes.reverse().map((node) => ({ type: 'node', node }));
      for (const start of starts) records.push(startedRecord(start.call_id, start.count));
      const live: LivePathSession = { records, report: report(row), leaf: row.leaf, usageTotal: usageOf(row) };
      if (row.tripped !== null) live.tripped = JSON.parse(row.tripped) as GuardrailTrip;
      return live;
    });
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
    await this.db.query(this.sql.releaseLease, [this.t, lease.sessionId, lease.epoch]);
  }

  private async renew(session: Held): Promise<void> {
    try {
      const rows = await this.db.query(this.sql.renewLease, [this.t, session.lease.sessionId, session.lease.epoch, this.leaseMs]);
      // Taken over: stop renewing; the next write is refused by its epoch check.
      if (rows.length === 0) clearInterval(session.timer);
    } catch (error) {
      session.renewError = error;
    }
  }

  /** One statement for the appends of every session in `writes` (one each at most: see `queueWrite`). */
  private async writeBatch(writes: PendingWrite[]): Promise<Array<Settled<AppendReport>>> {
    const sessions: unknown[][] = [[], [], [], [], [], [], []];
    // After the others: the statement takes it last ($24).
    const trips: Array<string | null> = [];
    const nodes: unknown[][] = Array.from({ length: 12 }, () => []);
    const starts: string[][] = [[], []];
    for (const { held, changes } of writes) {
      const { sessionId: id, epoch } = held.lease;
      // A lease's first write folds: the nodes the row has not taken in yet are not known before it.
      const folds = held.unfolded === null || changes.otherRecords > 0 || held.unfolded + changes.nodes.length > FOLD_AFTER;
      [id, epoch, folds, changes.leaf !== undefined, changes.leaf ?? null, changes.otherRecords, changes.otherBytes].forEach((value, i) =>
        sessions[i].push(value),
      );
      trips.push(changes.trip === null ? null : JSON.stringify(changes.trip));
      for (const node of changes.nodes) {
        nodes[0].push(id);
        node.forEach((value, i) => nodes[i + 1].push(value));
      }
      for (const callId of changes.started) {
        starts[0].push(id);
        starts[1].push(callId);
      }
    }
    const rows = await this.db.query<{ session: string; added: number; bytes: number; folds: boolean }>(this.sql.persist, [
      this.t,
      this.leaseMs,
      ...sessions,
      ...nodes,
      ...starts,
      trips,
    ]);
    const written = new Map(rows.map((row) => [row.session, row]));
    return Promise.all(
      writes.map(async ({ held, changes }): Promise<Settled<AppendReport>> => {
        const row = written.get(held.lease.sessionId);
        if (row === undefined) return { ok: false, error: await this.fencedError(held) };
        held.unfolded = row.folds ? 0 : (held.unfolded ?? 0) + row.added;
        return { ok: true, value: { records: row.added + changes.otherRecords, bytes: row.bytes + changes.otherBytes } };
      }),
    );
  }

  /** The session's row as readers see it, or undefined when it holds no node. */
  private async rowIn(client: ClientLike, id: string): Promise<SessionRow | undefined> {
    const row = ((await ask(client, this.sql.session, [this.t, id])).rows as SessionRow[])[0];
    return row === undefined || row.nodes === 0 ? undefined : row;
  }

  /** Every record of a session: its nodes in the order written, a `started` record per start, then the head (with its trip). */
  private async recordsIn(client: ClientLike, id: string, row: SessionRow): Promise<SessionRecord[]> {
    const records: SessionRecord[] = ((await ask(client, this.sql.allNodes, [this.t, id])).rows as Array<{ node: string }>).map((r) => ({
      type: 'node',
      node: JSON.parse(r.node) as SessionNode,
    }));
    for (const r of (await ask(client, this.sql.allStarts, [this.t, id])).rows as Array<{ call_id: string; count: number }>)
      records.push(startedRecord(r.call_id, r.count));
    records.push(
      row.tripped === null ? { type: 'head', leaf: row.leaf } : { type: 'head', leaf: row.leaf, tripped: JSON.parse(row.tripped) },
    );
    return records;
  }

  private async heldError(id: string): Promise<SessionLeaseHeldError> {
    const [row] = await this.db.query<{ holder: string | null; epoch: number; expires: Date | null }>(this.sql.holder, [this.t, id]);
    return new SessionLeaseHeldError(id, row?.holder ?? 'another writer', row?.epoch ?? 0, row?.expires ?? new Date());
  }

  private async fencedError(session: Held): Promise<SessionFencedError> {
    clearInterval(session.timer);
    const { sessionId: id, epoch } = session.lease;
    const [row] = await this.db.query<{ holder: string | null; epoch: number }>(this.sql.holder, [this.t, id]);
    const cause = session.renewError;
    return new SessionFencedError(id, epoch, row?.epoch ?? null, row?.holder ?? null, cause === undefined ? undefined : { cause });
  }
}

/** Runs a prepared statement on one connection (inside a transaction). */
function ask(client: ClientLike, statement: PreparedQuery, values: unknown[]): Promise<{ rows: any[] }> {
  return client.query({ name: statement.name, text: statement.text, values });
}

/** An append's records as the batch statement's values for one session, its size counted as JSON lines. */
function encode(records: readonly SessionRecord[]): Changes {
  const nodes: NodeValues[] = [];
  const started: string[] = [];
  let leaf: string | null | undefined;
  let trip: GuardrailTrip | null = null;
  let otherRecords = 0;
  let otherBytes = 0;
  for (const record of records) {
    if (record.type === 'node') {
      const node = record.node;
      // JSON text escapes every control character, NUL included, which a text column could not hold raw.
      const json = JSON.stringify(node);
      const u = node.usage;
      nodes.push([
        node.id,
        node.parent,
        node.condenses !== undefined,
        node.condenses?.firstKept ?? null,
        json,
        Buffer.byteLength(json) + NODE_LINE_OVERHEAD,
        u?.inputTokens ?? 0,
        u?.outputTokens ?? 0,
        u?.cacheWriteTokens ?? 0,
        u?.cacheReadTokens ?? 0,
        u?.cacheWrite1hTokens ?? 0,
      ]);
      leaf = node.id;
      trip = null;
      continue;
    }
    if (record.type === 'started') started.push(...record.callIds);
    else if (record.leaf === leaf && trip === null && record.tripped === undefined)
      continue; // a head naming the node just written: that node's row says so already
    else {
      leaf = record.leaf;
      trip = record.tripped ?? null;
    }
    otherRecords++;
    otherBytes += Buffer.byteLength(JSON.stringify(record)) + 1;
  }
  return { nodes, started, leaf, trip, otherRecords, otherBytes };
}

/** `count` starts of one call, as one record (what a load counts back). */
function startedRecord(callId: string, count: number): SessionRecord {
  return { type: 'started', callIds: Array<string>(count).fill(callId) };
}

function usageOf(row: SessionRow): ModelUsage {
  const usage: ModelUsage = {
    inputTokens: row.input_tokens,
    outputTokens: row.output_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    cacheReadTokens: row.cache_read_tokens,
  };
  if (row.cache_write_1h_tokens > 0) usage.cacheWrite1hTokens = row.cache_write_1h_tokens;
  return usage;
}

function report(row: SessionRow | undefined): LoadReport {
  const records = row?.records ?? 0;
  return { lines: records, bytes: row?.bytes ?? 0, records, skipped: [], orphans: [], truncatedTail: false, leafFallback: null };
}

function positive(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new PostgresOptionsError(`${what} must be a positive number of milliseconds, got ${JSON.stringify(value)}.`);
  return value;
}
