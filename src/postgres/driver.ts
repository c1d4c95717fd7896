import { PostgresOptionsError, PostgresUnavailableError } from './errors.js';

/**
 * A statement prepared once per connection under `name` (node-postgres's query config): the server
 * plans it once, not on every call.
 */
export type PreparedQuery = { name: string; text: string; values?: unknown[] };

/** What the stores use of a node-postgres client: `query` with positional parameters, or a prepared statement. */
export interface ClientLike {
  query(text: string | PreparedQuery, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  release(error?: Error | boolean): void;
}

/** What the stores use of a node-postgres `Pool` (a `pg.Pool` fits; so does any pool with these). */
export interface PoolLike {
  query(text: string | PreparedQuery, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  connect(): Promise<ClientLike>;
  end(): Promise<void>;
}

/** Where a store connects: a URL (the store makes and owns a pool) or your pool (you end it). */
export type PostgresConnection = { connectionString: string } | { pool: PoolLike };

/**
 * Loads node-postgres on demand. It is imported here and only here, so `indusagi` and the other
 * entries work where it is absent; a store given its own `{ pool }` never loads it.
 */
export async function openPool(
  connection: PostgresConnection,
  limits: { statementTimeoutMs: number; lockTimeoutMs: number },
): Promise<{ pool: PoolLike; owned: boolean }> {
  if ('pool' in connection) return { pool: connection.pool, owned: false };
  let pg: {
    Pool: new (config: { connectionString: string; max?: number; statement_timeout?: number; lock_timeout?: number }) => PoolLike;
  };
  try {
    pg = ((await import('pg')) as unknown as { default: typeof pg }).default;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') throw new PostgresUnavailableError({ cause: error });
    throw error;
  }
  // Sent with each connection's startup, so every statement on the pool has them at no cost per query.
  // (node-postgres leaves a 0 unset, which is the server's own "no limit".)
  const pool = new pg.Pool({
    connectionString: connection.connectionString,
    statement_timeout: limits.statementTimeoutMs,
    lock_timeout: limits.lockTimeoutMs,
  });
  return { pool, owned: true };
}

/** Checks the constructor's first argument before anything connects. */
export function checkConnection(connection: unknown): PostgresConnection {
  const c = connection as Partial<{ connectionString: unknown; pool: unknown }> | null;
  if (typeof c === 'object' && c !== null) {
    if (typeof c.connectionString === 'string' && c.connectionString.trim() !== '' && c.pool === undefined)
      return { connectionString: c.connectionString };
    const pool = c.pool as Partial<PoolLike> | undefined;
    if (pool !== undefined && c.connectionString === undefined && typeof pool.query === 'function' && typeof pool.connect === 'function')
      return { pool: pool as PoolLike };
  }
  throw new PostgresOptionsError(
    'A PostgreSQL store needs { connectionString: "postgres://…" } or { pool } (a pg.Pool), exactly one of them.' + unsetUrl(c),
  );
}

/** The environment variable the docs, the CLI and the web example read the connection string from. */
const DATABASE_URL_VARIABLE = 'INDUSAGI_DATABASE_URL';

/**
 * Why a connection string is missing, when the likely reason is that INDUSAGI_DATABASE_URL is unset
 * (`{ connectionString: process.env.INDUSAGI_DATABASE_URL }` reads as `undefined` then).
 */
function unsetUrl(given: Partial<{ connectionString: unknown; pool: unknown }> | null): string {
  if (typeof given !== 'object' || given === null || !('connectionString' in given) || given.pool !== undefined) return '';
  const value = given.connectionString;
  if (!(value === undefined || (typeof value === 'string' && value.trim() === ''))) return '';
  if ((process.env[DATABASE_URL_VARIABLE] ?? '').trim() !== '') return '';
  return ` The connection string is ${value === undefined ? 'undefined' : 'empty'}, and ${DATABASE_URL_VARIABLE} is unset: set it to postgres://user@host/database.`;
}
