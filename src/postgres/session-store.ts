import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { LoadReport, SessionNode, SessionRecord } from '../runtime/contract/session.js';
import { SessionGraph, SessionNotOpenError, assertValidSessionId, queueWrite, titleOf, type LoadedSession, type SessionSummary, type PersistReport, type SessionStoreLike, type WholeSession } from '../runtime/store/index.js';
import type { ModelUsage } from '../runtime/contract/model.js';
import { checkConnection, type ClientLike, type PostgresConnection, type PreparedQuery } from './driver.js';
import { checkSchemaName, PostgresDatabase, type MigrateResult } from './database.js';
import { PostgresOptionsError, SessionFencedError, SessionLeaseHeldError } from './errors.js';
import { checkTenant } from './tenant.js';
import { sessionSql, type SessionSql } from './session-sql.js';

/** The schema version the session tables need: 2 added them, 3 their `updated_at`. */
const SESSIONS_VERSION = 3;
const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_LIVE_PATH_ABOVE = 2_000;

export type PostgresSessionStoreOptions = {
  /** The PostgreSQL schema holding the tables. Default `indusagi`. */
  schema?: string;
  /** Every query is confined to this tenant's sessions; without one, to the default tenant's. */
  tenant?: string;
  /**
   * How long a writer's lease lasts without renewal, in ms (default 30 s): how long a session stays
   * closed to other writers after its holder stalled or died. Every write renews it.
   */
  leaseMs?: number;
  /** How often an open session's lease is renewed while idle, in ms. Default a third of `leaseMs`. */
  renewMs?: number;
  /**
   * Sessions with more nodes than this resume from their live path only (the context at the leaf, a
   * few index lookups); smaller ones are read whole, so tree views and branching to any node work
   * without `await graph.loadWhole()`. Default 2,000.
   */
  livePathAbove?: number;
};

type OpenSession = {
  graph: SessionGraph;
  epoch: number;
  /** Persists of one session run one after another. */
  queue: Promise<void>;
  timer: ReturnType<typeof setInterval>;
  /** Why the last renewal failed, kept as the cause of a later `SessionFencedError`. */
  renewError: unknown;
};

type SessionRow = {
  leaf: string | null;
  nodes: number;
  records: number;
  bytes: number;
  input_tokens: number;
  output_tokens: number;
  cache_write_tokens: number;
  cache_read_tokens: number;
  cache_write_1h_tokens: number;
};

/**
 * Sessions in PostgreSQL, shared by every machine that reaches the database (`SessionStoreLike`, the
 * same contract as the file store). Nodes keep their content-addressed ids, so a retried write adds
 * nothing. One writer per session at a time, across machines: `openSession` takes a lease row whose
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
  private readonly sessions = new Map<string, OpenSession>();

  constructor(connection: PostgresConnection, options: PostgresSessionStoreOptions = {}) {
    const checked = checkConnection(connection);
    if (typeof options !== 'object' || options === null) throw new PostgresOptionsError('options must be an object: { schema?, tenant?, leaseMs?, renewMs?, livePathAbove? }.');
    this.schema = checkSchemaName(options.schema);
    this.tenant = checkTenant(options.tenant);
    this.t = this.tenant ?? '';
    this.leaseMs = positive(options.leaseMs, 'leaseMs') ?? DEFAULT_LEASE_MS;
    this.renewMs = positive(options.renewMs, 'renewMs') ?? Math.max(1, Math.floor(this.leaseMs / 3));
    if (this.renewMs >= this.leaseMs) throw new PostgresOptionsError(`renewMs (${this.renewMs}) must be shorter than leaseMs (${this.leaseMs}), or the lease lapses between renewals.`);
    const above = options.livePathAbove ?? DEFAULT_LIVE_PATH_ABOVE;
    if (!Number.isInteger(above) || above < 0) throw new PostgresOptionsError(`livePathAbove must be a whole number of nodes, got ${JSON.stringify(above)}.`);
    this.livePathAbove = above;
    this.holder = `${hostname()} pid ${process.pid} store ${randomUUID().slice(0, 8)}`;
    this.db = new PostgresDatabase(checked, this.schema, SESSIONS_VERSION);
    this.sql = sessionSql(this.db.s);
  }

  /** Creates or upgrades the schema's tables (every indusagi store's); safe to run from many processes. */
  migrate(): Promise<MigrateResult> {
    return this.db.migrate();
  }

  /**
   * Stops renewing the leases of sessions still open (they expire after `leaseMs`; close sessions
   * first to hand them back at once) and ends the pool the store made (a pool you passed stays yours).
   */
  async close(): Promise<void> {
    for (const session of this.sessions.values()) clearInterval(session.timer);
    this.sessions.clear();
    await this.db.close();
  }

  /** Reads a session without taking its lease; `whole` reads every node whatever the session's size. */
  async loadSession(id: string, options: { whole?: boolean } = {}): Promise<SessionGraph> {
    assertValidSessionId(id);
    return (await this.read(id, options.whole === true)).graph;
  }

  /** The tenant's sessions holding at least one node, most recently written first (`size` is bytes as JSON lines). */
  async listSessions(): Promise<SessionSummary[]> {
    const rows = await this.db.query<{ id: string; bytes: number; updated_at: Date; leaf: string | null; nodes: number; first: string | null }>(this.sql.list, [this.t]);
    return rows.map((row) => ({
      id: row.id,
      size: row.bytes,
      modifiedAt: row.updated_at,
      leaf: row.leaf,
      title: row.first === null ? null : titleOf((JSON.parse(row.first) as SessionNode).turn),
      turns: row.nodes,
    }));
  }

  async openSession(id: string): Promise<SessionGraph> {
    return (await this.openSessionWithReport(id)).graph;
  }

  /**
   * Takes the session's lease (`SessionLeaseHeldError` naming the holder while another writer's lease
   * is live; an expired one is taken over with the next epoch), then loads it. Only the graph
   * returned here can be persisted, until `closeSession`.
   */
  async openSessionWithReport(id: string): Promise<LoadedSession> {
    assertValidSessionId(id);
    const taken = await this.db.query<{ epoch: number }>(this.sql.takeLease, [this.t, id, this.holder, this.leaseMs]);
    if (taken.length === 0) throw await this.heldError(id);
    const epoch = taken[0].epoch;
    let loaded: LoadedSession;
    try {
      loaded = await this.read(id, false);
    } catch (error) {
      await this.db.query(this.sql.releaseLease, [this.t, id, epoch]);
      throw error;
    }
    const session: OpenSession = { graph: loaded.graph, epoch, queue: Promise.resolve(), timer: undefined as never, renewError: undefined };
    session.timer = setInterval(() => void this.renew(id, session), this.renewMs);
    session.timer.unref();
    this.sessions.set(id, session);
    return loaded;
  }

  /**
   * Writes everything `graph` gained since it was opened or last persisted, in one transaction that
   * commits only while this writer holds the lease (and renews it). Concurrent calls for one session
   * run one after another. On failure the records go back into the graph for the next call.
   */
  persist(graph: SessionGraph): Promise<PersistReport> {
    const session = this.sessions.get(graph.sessionId);
    if (session === undefined) {
      return Promise.reject(new SessionNotOpenError(graph.sessionId, 'open it with openSession first (loadSession reads without taking the lease)'));
    }
    if (session.graph !== graph) {
      return Promise.reject(new SessionNotOpenError(graph.sessionId, 'this graph is not the one openSession returned, and persisting it could fork the history'));
    }
    return queueWrite(session, () => this.write(session));
  }

  /**
   * Persists anything still unsaved, then hands the lease back. If that persist fails the session
   * stays open so nothing is lost, unless this writer was fenced: then nothing it holds can be
   * written, the session is let go and the `SessionFencedError` thrown.
   */
  async closeSession(id: string): Promise<void> {
    assertValidSessionId(id);
    const session = this.sessions.get(id);
    if (session === undefined) return;
    for (;;) {
      const queue = session.queue;
      await queue;
      if (session.graph.hasUnsaved) {
        try {
          await this.persist(session.graph);
        } catch (error) {
          if (SessionFencedError.isInstance(error)) this.forget(id, session);
          throw error;
        }
      } else if (session.queue === queue) break;
    }
    this.forget(id, session);
    await this.db.query(this.sql.releaseLease, [this.t, id, session.epoch]);
  }

  private forget(id: string, session: OpenSession): void {
    clearInterval(session.timer);
    if (this.sessions.get(id) === session) this.sessions.delete(id);
  }

  private async renew(id: string, session: OpenSession): Promise<void> {
    try {
      const rows = await this.db.query(this.sql.renewLease, [this.t, id, session.epoch, this.leaseMs]);
      // Taken over: stop renewing; the next write is refused by its epoch check.
      if (rows.length === 0) clearInterval(session.timer);
    } catch (error) {
      session.renewError = error;
    }
  }

  private async write(session: OpenSession): Promise<PersistReport> {
    const { graph } = session;
    if (!graph.hasUnsaved) return { records: 0, bytes: 0 };
    const id = graph.sessionId;
    const records = graph.takeUnsaved();
    try {
      const batch = encode(records);
      const rows = await this.db.query<{ added: number; bytes: number }>(this.sql.persist, [
        this.t,
        id,
        session.epoch,
        this.leaseMs,
        ...batch.columns,
        batch.started,
        batch.leaf !== undefined,
        batch.leaf ?? null,
        batch.otherRecords,
        batch.otherBytes,
      ]);
      if (rows.length === 0) throw await this.fencedError(id, session);
      return { records: rows[0].added + batch.otherRecords, bytes: rows[0].bytes + batch.otherBytes };
    } catch (error) {
      graph.restoreUnsaved(records);
      throw error;
    }
  }

  /** The session as stored: whole when asked or small, else its live path (see `livePathAbove`), in one snapshot. */
  private read(id: string, whole: boolean): Promise<LoadedSession> {
    return this.db.transaction(
      async (client) => {
        const found = (await ask(client, this.sql.session, [this.t, id])).rows as SessionRow[];
        const row = found[0];
        if (row === undefined || row.nodes === 0) {
          return { graph: new SessionGraph(id), report: report(row) };
        }
        if (whole || row.nodes <= this.livePathAbove || row.leaf === null) {
          const whole = await this.wholeIn(client, id);
          const records: SessionRecord[] = [];
          for (const node of whole.nodes) records.push({ type: 'node', node });
          for (const [callId, count] of whole.starts) records.push({ type: 'started', callIds: Array<string>(count).fill(callId) });
          records.push({ type: 'head', leaf: row.leaf });
          return { graph: SessionGraph.restore(id, records).graph, report: report(row) };
        }
        const nodes = ((await ask(client, this.sql.livePath, [this.t, id, row.leaf])).rows as Array<{ node: string }>).map((r) => JSON.parse(r.node) as SessionNode);
        const calls = nodes.flatMap((node) => node.turn.blocks.flatMap((block) => (block.kind === 'tool_call' ? [block.id] : [])));
        const starts = ((await ask(client, this.sql.startsOf, [this.t, id, calls])).rows as Array<{ call_id: string; count: number }>).map(
          (r) => [r.call_id, r.count] as [string, number],
        );
        const graph = SessionGraph.fromLivePath(id, nodes, {
          leaf: row.leaf,
          source: { loadAll: () => this.db.transaction((c) => this.wholeIn(c, id), { readOnly: true }) },
          usageTotal: usageOf(row),
          starts,
        });
        return { graph, report: report(row) };
      },
      { readOnly: true },
    );
  }

  private async wholeIn(client: ClientLike, id: string): Promise<WholeSession> {
    const nodes = ((await ask(client, this.sql.allNodes, [this.t, id])).rows as Array<{ node: string }>).map((r) => JSON.parse(r.node) as SessionNode);
    const starts = new Map<string, number>();
    for (const r of (await ask(client, this.sql.allStarts, [this.t, id])).rows as Array<{ call_id: string; count: number }>) starts.set(r.call_id, r.count);
    return { nodes, starts };
  }

  private async heldError(id: string): Promise<SessionLeaseHeldError> {
    const [row] = await this.db.query<{ holder: string | null; epoch: number; expires: Date | null }>(this.sql.holder, [this.t, id]);
    return new SessionLeaseHeldError(id, row?.holder ?? 'another writer', row?.epoch ?? 0, row?.expires ?? new Date());
  }

  private async fencedError(id: string, session: OpenSession): Promise<SessionFencedError> {
    clearInterval(session.timer);
    const [row] = await this.db.query<{ holder: string | null; epoch: number }>(this.sql.holder, [this.t, id]);
    const cause = session.renewError;
    return new SessionFencedError(id, session.epoch, row?.epoch ?? null, row?.holder ?? null, cause === undefined ? undefined : { cause });
  }
}

/** Runs a prepared statement on one connection (inside a transaction). */
function ask(client: ClientLike, statement: PreparedQuery, values: unknown[]): Promise<{ rows: any[] }> {
  return client.query({ name: statement.name, text: statement.text, values });
}

/** A persist's records as the statement's parameters, and its size counted as JSON lines. */
function encode(records: readonly SessionRecord[]) {
  const ids: string[] = [];
  const parents: Array<string | null> = [];
  const condenses: boolean[] = [];
  const firstKept: Array<string | null> = [];
  const json: string[] = [];
  const bytes: number[] = [];
  const usage: number[][] = [[], [], [], [], []];
  const started: string[] = [];
  let leaf: string | null | undefined;
  let otherRecords = 0;
  let otherBytes = 0;
  for (const record of records) {
    if (record.type === 'node') {
      const node = record.node;
      ids.push(node.id);
      parents.push(node.parent);
      condenses.push(node.condenses !== undefined);
      firstKept.push(node.condenses?.firstKept ?? null);
      // JSON text escapes every control character, NUL included, which a text column could not hold raw.
      json.push(JSON.stringify(node));
      bytes.push(Buffer.byteLength(JSON.stringify(record)) + 1);
      const u = node.usage;
      usage[0].push(u?.inputTokens ?? 0);
      usage[1].push(u?.outputTokens ?? 0);
      usage[2].push(u?.cacheWriteTokens ?? 0);
      usage[3].push(u?.cacheReadTokens ?? 0);
      usage[4].push(u?.cacheWrite1hTokens ?? 0);
      leaf = node.id;
      continue;
    }
    if (record.type === 'started') started.push(...record.callIds);
    else leaf = record.leaf;
    otherRecords++;
    otherBytes += Buffer.byteLength(JSON.stringify(record)) + 1;
  }
  return { columns: [ids, parents, condenses, firstKept, json, bytes, ...usage], started, leaf, otherRecords, otherBytes };
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
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new PostgresOptionsError(`${what} must be a positive number of milliseconds, got ${JSON.stringify(value)}.`);
  return value;
}
