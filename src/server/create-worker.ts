import { PostgresBackend } from './backend/postgres/backend.js';
import { PostgresWorker } from './backend/postgres/worker.js';
import { ServerOptionsError } from './errors.js';
import { connectionOf, defaultLog, DEFAULTS, positive, schemasOf, type WorkerOptions } from './options.js';
import { RunExecutor } from './runs/executor.js';
import { givenStores, postgresStores } from './stores.js';

/** A running worker process's handle. */
export type AgentWorker = {
  /** Its id among the workers (the heartbeat row's). */
  readonly workerId: string;
  /** Runs it is executing now. */
  readonly running: number;
  /**
   * Takes no more runs, waits up to `drainMs` (default 30 s) for those under way, and lets go; what
   * still runs then is taken over by another worker once the lease expires.
   */
  stop(drainMs?: number): Promise<void>;
};

/**
 * A worker on the shared database (`indusagi worker`): it executes queued runs, at most `concurrency`
 * at once, takes over the runs of workers that died, and stops a run the moment any server instance
 * cancels it. See docs/server.md.
 */
export async function createWorker(options: WorkerOptions): Promise<AgentWorker> {
  if (typeof options?.agent !== 'function') throw new ServerOptionsError('agent is required: a function that builds the agent of a run.');
  if (options.database === undefined)
    throw new ServerOptionsError('A worker needs the database its servers use (database: a postgres:// URL or { pool }).');
  const log = options.log ?? defaultLog;
  const leaseMs = positive(options.leaseMs, 'leaseMs', DEFAULTS.leaseMs);
  const { schema, jobSchema } = schemasOf(options);
  const backend = await PostgresBackend.open({ connection: connectionOf(options.database), schema, jobSchema, log });
  const stores =
    options.sessions === undefined
      ? postgresStores(backend.pool, schema, leaseMs, options.memory)
      : givenStores(options.sessions, options.memory);
  const coalesceMs = positive(options.coalesceMs, 'coalesceMs', DEFAULTS.coalesceMs);
  let worker: PostgresWorker;
  try {
    worker = await PostgresWorker.start({
      backend,
      executor: (workerId) =>
        new RunExecutor({ backend, agent: options.agent, sessions: stores.sessions, memory: stores.memory, coalesceMs, log }, workerId),
      jobSchema,
      concurrency: positive(options.concurrency, 'concurrency', DEFAULTS.concurrency),
      leaseMs,
      retentionMs: positive(options.retentionMs, 'retentionMs', DEFAULTS.retentionMs),
      pollIntervalMs: positive(options.pollIntervalMs, 'pollIntervalMs', DEFAULTS.pollIntervalMs),
      log,
    });
  } catch (error) {
    await stores.close();
    await backend.close();
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return {
    get workerId() {
      return worker.workerId;
    },
    get running() {
      return worker.executor.running;
    },
    stop(drainMs = 30_000) {
      stopped ??= (async () => {
        await worker.stop(drainMs);
        await stores.close();
        await backend.close();
      })();
      return stopped;
    },
  };
}
