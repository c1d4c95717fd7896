import { randomUUID } from 'node:crypto';
import { openPool, type PoolLike, type PostgresConnection, type PreparedQuery } from '../../../postgres/driver.js';
import { PostgresDatabase } from '../../../postgres/database.js';
import { NotFoundError, QueueFullError, RunFencedError, ServerOptionsError, ThreadBusyError, ThreadExistsError } from '../../errors.js';
import { RunTails } from '../../events/tails.js';
import type { Principal, RunInput, RunRecord, ServerRunEvent, StoredEvent, ThreadRecord, ContextMark } from '../../types.js';
import type { InputRequest } from '../../../runtime/agent/input-requests.js';
import { INPUT_EVENT_KINDS, pendingInputsOf } from '../../runs/inputs.js';
import type { Claim, CreateRunOptions, InputDelivery, RunOutcome, ServerBackend, WorkerIdentity } from '../types.js';
import { PgListener } from './listener.js';
import { runOf, threadOf, type RunRow, type ThreadRow } from './rows.js';
import { RUN_TASK, serverSql, type ServerSql } from './sql.js';
import { canceledBeforeStart } from '../canceled.js';
import { mergeMetadata, storableMetadata } from '../metadata.js';
import { runRefusal } from '../thread-record.js';

/** The schema version the server's tables arrived in (src/postgres/migrations.ts). */
export const SERVER_TABLES_VERSION = 8;
const EVENTS_PAGE = 500;

export type PostgresBackendOptions = {
  connection: PostgresConnection;
  /** Schema of the server's (and the stores') tables. */
  schema: string;
  /** Schema of graphile-worker's job tables. */
  jobSchema: string;
  log: (message: string, error: unknown) => void;
};

/**
 * Threads, runs and run events in PostgreSQL, shared by every API server and worker on the database:
 * runs are queued as graphile-worker jobs in the same transaction that records them, events are rows
 * told to every process by NOTIFY, a cancel is a flag and a NOTIFY to whichever worker runs it, an
 * answer to a tool's question a row (one per question) and a NOTIFY that wakes the worker executing
 * the run to read it. A notification missed while a LISTEN connection was down is made good when it
 * is back: tails read again, cancels and answers re-read from their rows.
 */
export class PostgresBackend implements ServerBackend {
  readonly tails: RunTails;
  readonly sql: ServerSql;
  readonly db: PostgresDatabase;
  private readonly cancelHandlers = new Set<(runId: string) => void>();
  private readonly inputHandlers = new Set<(runId: string | undefined) => void>();
  private listener: PgListener | undefined;
  private owned = false;

  private constructor(
    readonly pool: PoolLike,
    private readonly options: PostgresBackendOptions,
  ) {
    this.db = new PostgresDatabase({ pool }, options.schema, SERVER_TABLES_VERSION);
    this.sql = serverSql(this.db.s, options.schema, `"${options.jobSchema}"`);
    this.tails = new RunTails({ fetchAfter: (runId, afterId) => this.eventsAfter(runId, afterId) });
  }

  /**
   * Connects, checks that `indusagi db migrate` set up both the tables and the job queue (it never
   * migrates itself), and starts listening.
   */
  static async open(options: PostgresBackendOptions): Promise<PostgresBackend> {
    // No statement or lock limits on the pool it makes: graphile-worker shares it, and the server's own
    // statements are bounded by their design (one row locked per statement, events paged).
    const { pool, owned } = await openPool(options.connection, { statementTimeoutMs: 0, lockTimeoutMs: 0 });
    const backend = new PostgresBackend(pool, options);
    backend.owned = owned;
    // An idle connection the server drops (a restart, a failover) is an 'error' on the pool, and on the
    // client while it is checked out: reported, not a crash of the process. The next query connects again.
    if (owned) {
      const emitter = pool as unknown as { on(event: string, listener: (value: never) => void): void };
      const report = (error: Error) => options.log('a database connection failed', error);
      emitter.on('error', report);
      emitter.on('connect', (client: { on(event: 'error', listener: (error: Error) => void): void }) => client.on('error', report));
    }
    try {
      await backend.db.query('SELECT 1');
      const [jobs] = await backend.db.query<{ ready: boolean }>(backend.sql.jobsReady, [`"${options.jobSchema}".add_job`]);
      if (!jobs.ready) {
        throw new ServerOptionsError(
          `The job queue (graphile-worker) is not set up in schema "${options.jobSchema}". Run \`indusagi db migrate\` once (with graphile-worker installed), then start again.`,
        );
      }
      const { events, cancels, inputs } = backend.sql.channels;
      backend.listener = new PgListener(
        pool,
        [events, cancels, inputs],
        (channel, payload) => backend.heard(channel, payload),
        () => backend.reconnected(),
        options.log,
      );
      await backend.listener.start();
    } catch (error) {
      await backend.close();
      throw error;
    }
    return backend;
  }

  async createThread(principal: Principal, id: string, metadata: Record<string, unknown>): Promise<ThreadRecord> {
    const rows = await this.db.query<ThreadRow>(this.sql.insertThread, [principal.tenant, id, principal.user, storableMetadata(metadata)]);
    if (rows.length === 0) throw new ThreadExistsError(id);
    return threadOf(rows[0]);
  }

  async getThread(tenant: string, id: string): Promise<ThreadRecord | undefined> {
    const [row] = await this.db.query<ThreadRow>(this.sql.thread, [tenant, id]);
    return row === undefined ? undefined : threadOf(row);
  }

  async listThreads(tenant: string, opts: { limit: number; before?: string }): Promise<ThreadRecord[]> {
    const rows = await this.db.query<ThreadRow>(this.sql.listThreads, [tenant, opts.before ?? null, opts.limit]);
    return rows.map(threadOf);
  }

  async updateThread(tenant: string, id: string, metadata: Record<string, unknown>): Promise<ThreadRecord> {
    return this.db.transaction(async (client) => {
      const [row] = (await client.query(this.sql.lockThread, [tenant, id])).rows as ThreadRow[];
      if (row === undefined) throw new NotFoundError('thread', id);
      const merged = mergeMetadata(JSON.parse(row.metadata) as Record<string, unknown>, metadata);
      const [updated] = (await client.query(this.sql.updateThreadMetadata, [tenant, id, storableMetadata(merged)])).rows as ThreadRow[];
      return threadOf(updated);
    });
  }

  async deleteThread(tenant: string, id: string): Promise<void> {
    await this.db.transaction(async (client) => {
      const [row] = (await client.query(this.sql.lockThread, [tenant, id])).rows as ThreadRow[];
      if (row === undefined) throw new NotFoundError('thread', id);
      if (row.active_run !== null) throw new ThreadBusyError(id, row.active_run);
      for (const statement of this.sql.deleteThread) await client.query(statement, [tenant, id]);
    });
  }

  async createRun(principal: Principal, threadId: string, input: RunInput, opts: CreateRunOptions): Promise<RunRecord> {
    const { tenant, user } = principal;
    const made = opts.createThread && (await this.db.query(this.sql.insertThread, [tenant, threadId, user, '{}'])).length > 0;
    try {
      return await this.queueRun(principal, threadId, input, opts);
    } catch (error) {
      // A run refused (the tenant's queue full, say) must not leave behind the empty thread made for
      // it; one that another request has used since (a run, metadata) is theirs and stays.
      if (made) await this.db.query(this.sql.dropUnusedThread, [tenant, threadId]);
      throw error;
    }
  }

  private async queueRun(principal: Principal, threadId: string, input: RunInput, opts: CreateRunOptions): Promise<RunRecord> {
    const { tenant, user } = principal;
    const decided = input.kind === 'decisions' ? input.decisions.map((d) => d.approvalId) : [];
    // A refusal read from a thread that changed since (its run just ended) is not a reason: try once more.
    for (let attempt = 0; ; attempt++) {
      const id = randomUUID();
      const [row] = await this.db.query<{ free: number; created_at: Date | null; mark_length: number; mark_last: string | null }>(
        this.sql.createRun,
        [tenant, threadId, id, user, JSON.stringify(input), input.kind, decided, opts.maxQueued, RUN_TASK],
      );
      if (row.created_at !== null) {
        return {
          id,
          threadId,
          tenant,
          user,
          input,
          status: 'queued',
          attempt: 0,
          cancelRequested: false,
          error: null,
          result: null,
          base: { length: row.mark_length, last: row.mark_last },
          lastEventId: 0,
          createdAt: row.created_at.toISOString(),
          startedAt: null,
          finishedAt: null,
          eventsExpired: false,
        };
      }
      if (row.free > 0) throw new QueueFullError(opts.maxQueued, opts.retryAfterSeconds);
      const refusal = await this.refusal(tenant, threadId, input);
      if (refusal !== undefined || attempt > 0) throw refusal ?? new ThreadBusyError(threadId, 'a run that just ended');
    }
  }

  /** Why a thread refuses `input`: missing, busy, waiting for decisions, or a decision for a call that is not waiting. */
  private async refusal(tenant: string, threadId: string, input: RunInput): Promise<Error | undefined> {
    const thread = await this.getThread(tenant, threadId);
    return thread === undefined ? new NotFoundError('thread', threadId) : runRefusal(thread, input);
  }

  async getRun(tenant: string, runId: string): Promise<RunRecord | undefined> {
    const [row] = await this.db.query<RunRow>(this.sql.tenantRun, [tenant, runId]);
    return row === undefined ? undefined : runOf(row);
  }

  async listRuns(tenant: string, threadId: string, limit: number): Promise<RunRecord[]> {
    return (await this.db.query<RunRow>(this.sql.listRuns, [tenant, threadId, limit])).map(runOf);
  }

  async cancelRun(tenant: string, runId: string): Promise<RunRecord> {
    await this.db.transaction(async (client) => {
      const { terminal, error } = canceledBeforeStart(runId);
      const [queued] = (await client.query(this.sql.cancelQueued, [tenant, runId, JSON.stringify(error)])).rows as Array<{
        thread: string;
      }>;
      if (queued === undefined) {
        await client.query(this.sql.cancelRunning, [tenant, runId]);
        return;
      }
      await client.query(this.sql.insertEvent, [runId, JSON.stringify(terminal)]);
      await client.query(this.sql.freeThread, [tenant, queued.thread, runId]);
      await client.query(this.sql.removeJob, [`run:${runId}`]);
    });
    const run = await this.getRun(tenant, runId);
    if (run === undefined) throw new NotFoundError('run', runId);
    return run;
  }

  async pendingInputs(runId: string): Promise<InputRequest[]> {
    const rows = await this.db.query<{ event: string }>(this.sql.inputEvents, [runId, INPUT_EVENT_KINDS]);
    return pendingInputsOf(rows.map((row) => JSON.parse(row.event) as ServerRunEvent));
  }

  async answerInput(tenant: string, runId: string, delivery: InputDelivery): Promise<boolean> {
    const rows = await this.db.query(this.sql.answerInput, [tenant, runId, delivery.requestId, JSON.stringify(delivery.answer)]);
    return rows.length > 0;
  }

  async storedAnswers(tenant: string, runId: string, requestIds: string[]): Promise<InputDelivery[]> {
    if (requestIds.length === 0) return [];
    const rows = await this.db.query<{ request_id: string; answer: string }>(this.sql.storedAnswers, [tenant, runId, requestIds]);
    return rows.map((row) => ({ runId, requestId: row.request_id, answer: JSON.parse(row.answer) as InputDelivery['answer'] }));
  }

  async claimRun(runId: string, worker: WorkerIdentity): Promise<Claim | undefined> {
    const [row] = await this.db.query<RunRow>(this.sql.claim, [runId, worker.workerId, worker.holder]);
    if (row === undefined) return undefined;
    // A first attempt finds no events. A takeover reads where the log ends after its claim committed: the
    // dead attempt's last write, if one was in flight, is in by now (the claim waited for its lock).
    const last = row.attempt === 1 ? 0 : Number((await this.db.query<{ seq: string }>(this.sql.lastSeq, [runId]))[0].seq);
    return { run: runOf(row), attempt: row.attempt, nextEventId: last + 1 };
  }

  async rebaseRun(claim: Claim, mark: ContextMark): Promise<void> {
    await this.db.query(this.sql.rebase, [claim.run.id, claim.attempt, mark.length, mark.last]);
  }

  async appendEvents(claim: Claim, events: ServerRunEvent[]): Promise<void> {
    if (events.length === 0) return;
    const ids = events.map((_, i) => claim.nextEventId + i);
    const [row] = await this.db.query<{ held: number }>(this.sql.append, [
      claim.run.id,
      claim.attempt,
      ids,
      events.map((e) => JSON.stringify(e)),
    ]);
    if (row.held === 0) throw new RunFencedError(claim.run.id, claim.attempt);
    claim.nextEventId += events.length;
  }

  async finishRun(claim: Claim, outcome: RunOutcome): Promise<void> {
    const thread = outcome.thread;
    const [row] = await this.db.query<{ finished: number }>(this.sql.finish, [
      claim.run.id,
      claim.attempt,
      outcome.status,
      outcome.result === null ? null : JSON.stringify(outcome.result),
      outcome.error === null ? null : JSON.stringify(outcome.error),
      claim.nextEventId,
      JSON.stringify(outcome.terminal),
      thread === undefined ? null : JSON.stringify(thread.pendingApprovals),
      thread === undefined ? null : thread.mark.length,
      thread === undefined ? null : thread.mark.last,
    ]);
    if (row.finished === 0) throw new RunFencedError(claim.run.id, claim.attempt);
    claim.nextEventId++;
  }

  onCancel(handler: (runId: string) => void): () => void {
    this.cancelHandlers.add(handler);
    return () => this.cancelHandlers.delete(handler);
  }

  onInput(handler: (runId: string | undefined) => void): () => void {
    this.inputHandlers.add(handler);
    return () => this.inputHandlers.delete(handler);
  }

  /** Runs one statement on a connection of the backend's pool (the worker's heartbeat and sweeps). */
  query<T = any>(sql: string | PreparedQuery, values?: unknown[]): Promise<T[]> {
    return this.db.query<T>(sql, values);
  }

  /**
   * One round trip within `timeoutMs`: a database that refuses connections fails at once, one that
   * does not answer (a network partition) would hang a health probe past the prober's own timeout.
   */
  async reachable(timeoutMs = 2_000): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    const answered = this.pool.query('SELECT 1').then(
      () => true,
      () => false,
    );
    try {
      return await Promise.race([answered, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.listener?.close();
    await this.db.close();
    if (this.owned) await this.pool.end();
  }

  private async eventsAfter(runId: string, afterId: number): Promise<StoredEvent[]> {
    const rows = await this.db.query<{ seq: string; event: string }>(this.sql.eventsAfter, [runId, afterId, EVENTS_PAGE]);
    return rows.map((row) => ({ id: Number(row.seq), event: JSON.parse(row.event) as ServerRunEvent }));
  }

  private heard(channel: string, payload: string): void {
    if (channel === this.sql.channels.events) {
      const space = payload.lastIndexOf(' ');
      this.tails.notify(payload.slice(0, space), Number(payload.slice(space + 1)));
    } else if (channel === this.sql.channels.cancels) {
      for (const handler of this.cancelHandlers) handler(payload);
    } else if (channel === this.sql.channels.inputs) {
      for (const handler of this.inputHandlers) handler(payload);
    }
  }

  /**
   * Notifications may have been missed while the connection was down: read every tail again, re-ask
   * every cancel, and have the runs executing here read the answers stored for them meanwhile.
   */
  private reconnected(): void {
    this.tails.refreshAll();
    for (const handler of this.inputHandlers) handler(undefined);
    if (this.cancelHandlers.size === 0) return;
    this.db
      .query<{ id: string }>(`SELECT id FROM ${this.db.s}.server_runs WHERE status = 'running' AND cancel_requested`)
      .then((rows) => {
        for (const { id } of rows) for (const handler of this.cancelHandlers) handler(id);
      })
      .catch((error: unknown) => this.options.log('re-reading cancels after a reconnect failed', error));
  }
}
