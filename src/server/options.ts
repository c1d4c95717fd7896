import type { MemoryStore } from '../memory/types.js';
import type { PoolLike } from '../postgres/index.js';
import { checkSchemaName } from '../postgres/database.js';
import { ServerOptionsError } from './errors.js';
import type { ServedSessionStore } from './stores.js';
import type { AgentFactory, Authenticate, ServerLimits } from './types.js';

/** Where a server or worker keeps things on PostgreSQL: a URL (it makes and owns a pool) or your pool. */
export type DatabaseOption = string | { pool: PoolLike };

/** What a server and a worker share. */
export type CommonOptions = {
  /** Builds the agent for each run; needed wherever runs execute (a worker, or a server on one machine). */
  agent?: AgentFactory;
  /** Sessions per tenant. Default: files under `dataDir` (one machine), `PostgresSessionStore` on the database. */
  sessions?: (tenant: string) => ServedSessionStore;
  /**
   * Memory per tenant (the memory routes, and `context.memory` for the agent). Default:
   * `PostgresMemoryStore` on the database, none on one machine.
   */
  memory?: (tenant: string) => MemoryStore | undefined;
  /** The schema of the server's tables and the stores' (default `indusagi`). */
  schema?: string;
  /** The schema of the job queue's tables (default `<schema>_jobs`). */
  jobSchema?: string;
  /** A worker silent this long is dead and its runs are taken over; also the session stores' lease. Default 30 s. */
  leaseMs?: number;
  /** How long text deltas wait to be stored as one chunk. Default 20 ms. */
  coalesceMs?: number;
  /** How long a finished run's stream can be replayed. Default 7 days. */
  retentionMs?: number;
  /** Where failures nobody else hears of are reported. Default `console.error`. */
  log?: (message: string, error: unknown) => void;
};

export type ServerOptions = CommonOptions & {
  /** Who sends each request: a principal (tenant and user), or null for a 401. `bearerTokens(...)` is one. */
  authenticate: Authenticate;
  /** Many machines: the PostgreSQL database (migrated with `indusagi db migrate`). */
  database?: DatabaseOption;
  /** One machine (no `database`): the folder for threads, runs, events and (by default) sessions. */
  dataDir?: string;
  /**
   * Execute runs in this process: default on one machine (required there), off on PostgreSQL, where
   * `indusagi worker` processes execute them. `{ concurrency }`: runs at once (default 4).
   */
  worker?: boolean | { concurrency?: number };
  limits?: ServerLimits;
  /** A comment line on silent streams this often, so proxies keep them open. Default 15 s. */
  keepAliveMs?: number;
};

export type WorkerOptions = CommonOptions & {
  database: DatabaseOption;
  agent: AgentFactory;
  /** Runs this process executes at once. Default 4. */
  concurrency?: number;
  /** How often the job queue is polled when no notification woke it. Default 2 s. */
  pollIntervalMs?: number;
};

export const DEFAULTS = {
  leaseMs: 30_000,
  coalesceMs: 20,
  retentionMs: 7 * 24 * 3_600_000,
  keepAliveMs: 15_000,
  concurrency: 4,
  pollIntervalMs: 2_000,
  maxBodyBytes: 1024 * 1024,
  maxQueuedRunsPerTenant: 100,
  maxPromptChars: 200_000,
};

export function positive(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new ServerOptionsError(`${name} must be a positive number, got ${JSON.stringify(value)}.`);
  return value;
}

/** The schemas of the tables and of the job queue, both plain identifiers of at most 63 characters. */
export function schemasOf(options: CommonOptions): { schema: string; jobSchema: string } {
  const schema = checkSchemaName(options.schema);
  const jobSchema = checkSchemaName(options.jobSchema ?? `${schema}_jobs`.slice(0, 63));
  if (jobSchema === schema) throw new ServerOptionsError('jobSchema must differ from schema: the job queue keeps tables of its own.');
  return { schema, jobSchema };
}

export function defaultLog(message: string, error: unknown): void {
  if (error === undefined) console.error(`[indusagi server] ${message}`);
  else console.error(`[indusagi server] ${message}:`, error);
}

export function connectionOf(database: DatabaseOption): { connectionString: string } | { pool: PoolLike } {
  if (typeof database === 'string') {
    if (database.trim() === '') throw new ServerOptionsError('database must be a postgres:// URL or { pool }.');
    return { connectionString: database };
  }
  if (typeof database?.pool?.query !== 'function') throw new ServerOptionsError('database must be a postgres:// URL or { pool }.');
  return { pool: database.pool };
}
