import { LocalBackend } from './backend/local/backend.js';
import { LocalQueue } from './backend/local/queue.js';
import { PostgresBackend } from './backend/postgres/backend.js';
import { PostgresWorker } from './backend/postgres/worker.js';
import type { ServerBackend } from './backend/types.js';
import { ServerOptionsError } from './errors.js';
import { buildFetch } from './http/app.js';
import { listen, type Listening } from './listen.js';
import { connectionOf, defaultLog, DEFAULTS, positive, schemasOf, type ServerOptions } from './options.js';
import { RunExecutor } from './runs/executor.js';
import { fileStores, givenStores, postgresStores, type TenantStores } from './stores.js';

/** A running agent server. */
export type AgentServer = {
  /** `local`: one machine, files and an in-process queue; `postgres`: shared by every instance on the database. */
  readonly mode: 'local' | 'postgres';
  /** The Web fetch handler: mount it in Node's http (`listen`), Hono, a Next.js route handler, Bun or Deno. */
  fetch(request: Request): Promise<Response>;
  /** Serves `fetch` with Node's http on `hostname:port` (default 127.0.0.1, any free port). */
  listen(options?: { port?: number; hostname?: string }): Promise<Listening>;
  /** Stops taking runs, waits up to `drainMs` (default 30 s) for those under way, and lets everything go. */
  close(drainMs?: number): Promise<void>;
};

/**
 * The agent server (`indusagi/server`; see docs/server.md). With `database`, any number of these
 * serve the same threads, runs and streams from PostgreSQL, and `indusagi worker` processes (or
 * `worker: true`) execute the runs; without, one process keeps everything under `dataDir` and executes
 * runs itself.
 */
export async function createServer(options: ServerOptions): Promise<AgentServer> {
  if (typeof options?.authenticate !== 'function')
    throw new ServerOptionsError(
      'authenticate is required: a function from a Request to { tenant, user } or null (bearerTokens(...) makes one).',
    );
  const log = options.log ?? defaultLog;
  const leaseMs = positive(options.leaseMs, 'leaseMs', DEFAULTS.leaseMs);
  const retentionMs = positive(options.retentionMs, 'retentionMs', DEFAULTS.retentionMs);
  const coalesceMs = positive(options.coalesceMs, 'coalesceMs', DEFAULTS.coalesceMs);
  const keepAliveMs = positive(options.keepAliveMs, 'keepAliveMs', DEFAULTS.keepAliveMs);
  const limits = {
    maxBodyBytes: positive(options.limits?.maxBodyBytes, 'limits.maxBodyBytes', DEFAULTS.maxBodyBytes),
    maxQueuedRunsPerTenant: positive(
      options.limits?.maxQueuedRunsPerTenant,
      'limits.maxQueuedRunsPerTenant',
      DEFAULTS.maxQueuedRunsPerTenant,
    ),
    maxPromptChars: positive(options.limits?.maxPromptChars, 'limits.maxPromptChars', DEFAULTS.maxPromptChars),
  };
  const wantsWorker = options.worker ?? options.database === undefined;
  const concurrency = positive(
    typeof options.worker === 'object' ? options.worker.concurrency : undefined,
    'worker.concurrency',
    DEFAULTS.concurrency,
  );
  if (wantsWorker !== false && options.agent === undefined)
    throw new ServerOptionsError(
      'agent is required where runs execute (one machine, or worker: true): a function that builds the agent of a run.',
    );
  if (options.database === undefined && wantsWorker === false)
    throw new ServerOptionsError('On one machine (no database) the server executes its runs itself: worker cannot be false.');

  let backend: ServerBackend;
  let stores: TenantStores;
  let stopWorker: (drainMs: number) => Promise<void> = async () => {};
  let executing: () => number = () => 0;

  if (options.database !== undefined) {
    const { schema, jobSchema } = schemasOf(options);
    const pg = await PostgresBackend.open({ connection: connectionOf(options.database), schema, jobSchema, log });
    backend = pg;
    stores =
      options.sessions === undefined
        ? postgresStores(pg.pool, schema, leaseMs, options.memory)
        : givenStores(options.sessions, options.memory);
    if (wantsWorker !== false) {
      const worker = await PostgresWorker.start({
        backend: pg,
        executor: (workerId) =>
          new RunExecutor(
            { backend: pg, agent: options.agent!, sessions: stores.sessions, memory: stores.memory, coalesceMs, log },
            workerId,
          ),
        jobSchema,
        concurrency,
        leaseMs,
        retentionMs,
        pollIntervalMs: DEFAULTS.pollIntervalMs,
        log,
      }).catch(async (error: unknown) => {
        // As createWorker does: the stores hold PostgreSQL leases and a memory pool of their own.
        await stores.close();
        await pg.close();
        throw error;
      });
      stopWorker = (drainMs) => worker.stop(drainMs);
      executing = () => worker.executor.running;
    }
  } else {
    if (typeof options.dataDir !== 'string' || options.dataDir === '')
      throw new ServerOptionsError('One machine (no database) needs dataDir: the folder for threads, runs and sessions.');
    const local = await LocalBackend.open(options.dataDir, log);
    backend = local;
    stores = options.sessions === undefined ? fileStores(options.dataDir, options.memory) : givenStores(options.sessions, options.memory);
    const executor = new RunExecutor(
      { backend: local, agent: options.agent!, sessions: stores.sessions, memory: stores.memory, coalesceMs, log },
      () => local.workerId,
    );
    const queue = new LocalQueue((runId) => executor.execute(runId, local.workerId), concurrency, log);
    local.setDispatcher((runId) => queue.push(runId));
    const expiry = setInterval(
      () => void local.expireEvents(retentionMs).catch((error: unknown) => log('expiring run events failed', error)),
      Math.min(retentionMs, 3_600_000),
    );
    expiry.unref();
    stopWorker = async (drainMs) => {
      clearInterval(expiry);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([queue.stop(), new Promise((resolve) => (timer = setTimeout(resolve, drainMs)))]);
      clearTimeout(timer);
      executor.close();
    };
    executing = () => executor.running;
  }

  const mode = options.database === undefined ? 'local' : 'postgres';
  const fetch = buildFetch({
    backend,
    sessions: stores.sessions,
    memory: stores.memory,
    removeSession: stores.removeSession,
    limits,
    keepAliveMs,
    authenticate: options.authenticate,
    log,
    health: async () => ({
      mode,
      ...(mode === 'postgres' ? { database: (await backend.reachable()) ? 'reachable' : 'unreachable' } : {}),
      worker: wantsWorker !== false,
      runsExecuting: executing(),
      runsFollowed: backend.tails.followed,
    }),
  });
  const listeners: Listening[] = [];
  let closed: Promise<void> | undefined;
  return {
    mode,
    fetch,
    async listen(listenOptions) {
      const listening = await listen(fetch, listenOptions);
      listeners.push(listening);
      return listening;
    },
    close(drainMs = 30_000) {
      closed ??= (async () => {
        await stopWorker(drainMs);
        await Promise.all(listeners.map((listening) => listening.close()));
        await stores.close();
        await backend.close();
      })();
      return closed;
    },
  };
}
