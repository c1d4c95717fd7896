import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { RunExecutor } from '../../runs/executor.js';
import { JobQueueUnavailableError } from '../../errors.js';
import type { PostgresBackend } from './backend.js';
import { RUN_TASK } from './sql.js';

export type PostgresWorkerOptions = {
  backend: PostgresBackend;
  /** Builds the executor once the worker knows its id. */
  executor: (workerId: () => string) => RunExecutor;
  jobSchema: string;
  /** Runs this process executes at once. */
  concurrency: number;
  /** A worker silent this long is counted dead and its runs taken over; the session stores' lease should be the same. */
  leaseMs: number;
  /** How long a finished run's events stay replayable. */
  retentionMs: number;
  /** How often the job engine looks for jobs when no NOTIFY woke it (retries, missed wake-ups). */
  pollIntervalMs: number;
  log: (message: string, error: unknown) => void;
};

/** What this module uses of graphile-worker (an optional peer dependency, loaded when a worker starts). */
type GraphileRunner = { stop(): Promise<void>; promise: Promise<void> };
type GraphileModule = {
  run(options: Record<string, unknown>): Promise<GraphileRunner>;
  runMigrations(options: Record<string, unknown>): Promise<void>;
  Logger: new (factory: (scope: unknown) => (level: string, message: string, meta?: unknown) => void) => unknown;
};

const EXPIRE_EVERY_MS = 60_000;
const FIRST_RESTART_MS = 500;
const MAX_RESTART_MS = 30_000;

/**
 * One worker process on the shared database: a heartbeat row (a process silent past the lease is dead),
 * a sweep that gives the runs of dead workers to the living (see `sweep` in sql.ts), and graphile-worker
 * pulling run jobs (woken by its NOTIFY the moment a run is queued) into the executor.
 */
export class PostgresWorker {
  private id: string;
  private readonly timers: Array<ReturnType<typeof setInterval>> = [];
  private runner: GraphileRunner | undefined;
  readonly executor: RunExecutor;
  private lastExpiry = 0;

  private constructor(private readonly options: PostgresWorkerOptions) {
    this.id = newWorkerId();
    this.executor = options.executor(() => this.id);
  }

  static async start(options: PostgresWorkerOptions): Promise<PostgresWorker> {
    const worker = new PostgresWorker(options);
    await worker.register();
    const { leaseMs } = options;
    worker.every(Math.max(1, Math.floor(leaseMs / 3)), () => worker.heartbeat());
    worker.every(Math.max(1, Math.floor(leaseMs / 2)), () => worker.sweep());
    worker.graphile = await loadGraphile();
    await worker.startRunner();
    return worker;
  }

  private graphile!: GraphileModule;
  private stopping = false;
  private restartMs = FIRST_RESTART_MS;

  /** Starts graphile-worker's runner, pulling run jobs into the executor, and watches it end. */
  private async startRunner(): Promise<void> {
    const { backend, jobSchema, concurrency, pollIntervalMs, log } = this.options;
    const exitCode = process.exitCode;
    const runner = await this.graphile.run({
      pgPool: backend.pool,
      schema: jobSchema,
      concurrency,
      pollInterval: pollIntervalMs,
      noHandleSignals: true,
      logger: quietLogger(this.graphile, log),
      parsedCronItems: [],
      // Unbatched, a job's completion or failure that meets a database outage is a promise nobody
      // awaits inside graphile-worker: its rejection (ECONNREFUSED) killed the process. Batched (even
      // with no delay) they are retried with backoff for minutes, and past that the queue stops, which
      // `ended` below answers by starting it again; a failed run's job is then retried, and its run
      // taken up again under this worker (see `claim` in sql.ts).
      preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
      taskList: {
        [RUN_TASK]: async (payload: { runId?: unknown }, helpers: { job: { locked_by: string | null } }) => {
          if (typeof payload?.runId !== 'string') return;
          await this.executor.execute(payload.runId, helpers.job.locked_by ?? '');
        },
      },
    });
    this.runner = runner;
    this.restartMs = FIRST_RESTART_MS;
    const ended = (error?: unknown) => {
      if (this.stopping || this.runner !== runner) return;
      // graphile-worker stops itself when completing or failing a job fails for minutes (the database
      // is down), or when any schema of this database announces a breaking migration of its tables (the
      // announcement names no schema), and sets the process's exit code: this worker keeps going. Its
      // own schema moved past this release: starting again fails, and says why.
      process.exitCode = exitCode;
      log(
        'the job queue stopped by itself (its database connection failed, or a migration was announced in this database); starting it again',
        error,
      );
      this.restart();
    };
    void runner.promise.then(() => ended(), ended);
  }

  private restart(): void {
    const timer = setTimeout(() => {
      this.startRunner().catch((error: unknown) => {
        this.options.log(`starting the job queue again failed; trying again in ${this.restartMs} ms`, error);
        this.restartMs = Math.min(this.restartMs * 2, MAX_RESTART_MS);
        if (!this.stopping) this.restart();
      });
    }, this.restartMs);
    // Held, not unref'd: while the queue is down (the database with it) nothing else may keep an
    // `indusagi worker` process alive, and it would exit (code 13, its top-level await unsettled).
    this.timers.push(timer);
  }

  /** This process's id among the workers (it changes if the process was counted dead and came back). */
  get workerId(): string {
    return this.id;
  }

  /**
   * Stops taking runs and waits up to `drainMs` for those under way; whatever is still running then is
   * left to the lease (another worker takes it over once this process is gone).
   */
  async stop(drainMs: number): Promise<void> {
    this.stopping = true;
    for (const timer of this.timers) clearInterval(timer);
    const stopped = this.runner?.stop() ?? Promise.resolve();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), drainMs)));
    const outcome = await Promise.race([Promise.all([stopped, this.executor.drain()]), gaveUp]);
    clearTimeout(timer);
    this.executor.close();
    // Drained: say so at once, so nobody waits out the lease. Not drained: the row must outlive us.
    if (outcome !== 'timeout')
      await this.options.backend.query(this.options.backend.sql.unregisterWorker, [this.id]).catch(() => undefined);
  }

  private async register(): Promise<void> {
    await this.options.backend.query(this.options.backend.sql.registerWorker, [this.id, hostname(), process.pid]);
  }

  private async heartbeat(): Promise<void> {
    const rows = await this.options.backend.query(this.options.backend.sql.heartbeat, [this.id]);
    if (rows.length > 0) return;
    // Counted dead (this process stalled past the lease): its runs are someone else's now, and the
    // writes of those still going here are refused. It comes back as a new worker.
    this.options.log(`worker ${this.id} was silent past its lease and its runs were taken over; it goes on as a new worker`, undefined);
    this.id = newWorkerId();
    await this.register();
  }

  private async sweep(): Promise<void> {
    const { backend, leaseMs, retentionMs } = this.options;
    await backend.query(backend.sql.sweep, [leaseMs, RUN_TASK, this.id, this.executor.executing()]);
    if (Date.now() - this.lastExpiry >= Math.min(EXPIRE_EVERY_MS, retentionMs)) {
      this.lastExpiry = Date.now();
      await backend.query(backend.sql.expireEvents, [retentionMs]);
    }
  }

  private every(ms: number, work: () => Promise<void>): void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      work()
        .catch((error: unknown) => this.options.log('worker upkeep failed', error))
        .finally(() => {
          busy = false;
        });
    }, ms);
    timer.unref();
    this.timers.push(timer);
  }
}

function newWorkerId(): string {
  return `${hostname()} pid ${process.pid} worker ${randomUUID().slice(0, 8)}`;
}

/** graphile-worker's logger, passing on only its warnings and errors (it says something of every job at info). */
export function quietLogger(graphile: GraphileModule, log: (message: string, error: unknown) => void): unknown {
  return new graphile.Logger(() => (level, message, meta) => {
    if (level === 'error' || level === 'warning') log(`job queue: ${message}`, meta);
  });
}

/** graphile-worker, an optional peer dependency: loaded only where a worker starts or the job queue is migrated. */
export async function loadGraphile(): Promise<GraphileModule> {
  try {
    const loaded = (await import('graphile-worker')) as unknown as GraphileModule & { default?: GraphileModule };
    return typeof loaded.run === 'function' ? loaded : loaded.default!;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new JobQueueUnavailableError({ cause: error });
    throw error;
  }
}
