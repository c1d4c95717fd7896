import { errorMessage, IndusagiError } from '../errors/index.js';
import { MemoryStoreClosedError } from '../memory/errors.js';
import { openPool, type ClientLike, type PoolLike, type PostgresConnection, type PreparedQuery } from './driver.js';
import { PostgresOptionsError, PostgresSchemaBehindError, PostgresStoreError, PostgresTimeoutError } from './errors.js';
import { LATEST_VERSION, MIGRATIONS } from './migrations.js';

export type MigrateResult = { schema: string; from: number; to: number; applied: Array<{ version: number; name: string }> };

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
export const DEFAULT_SCHEMA = 'indusagi';

// SQLSTATEs after which the whole transaction is simply run again: deadlock, serialization failure,
// and a unique index that only a concurrent writer could have filled (see `retryOnUnique`).
const DEADLOCK = '40P01';
const SERIALIZATION = '40001';
const UNIQUE = '23505';
const ATTEMPTS = 6;

/**
 * Server-side limits on the statements of a store, in ms (0: the store sets none). A statement past
 * `statementTimeoutMs`, or waiting past `lockTimeoutMs` for a row another connection holds (a session
 * row held `FOR UPDATE`), is cancelled by the server and fails with `PostgresTimeoutError`, so no
 * write or read of a store can hang a run, however the database is loaded.
 */
export type StatementLimits = { statementTimeoutMs: number; lockTimeoutMs: number };
/** The store options that set the limits (both stores take them). */
export type StatementLimitOptions = {
  /**
   * Longest a statement of the store may run, in ms, before the server cancels it; default 30 s. 0: the
   * store sets none (on a pool it makes, the server's own setting then applies). Set on the connections
   * of a pool the store makes, and on every transaction of any pool.
   */
  statementTimeoutMs?: number;
  /**
   * Longest a statement may wait for a row another connection holds (a session row held `FOR UPDATE`),
   * in ms; default 5 s, 0 as for `statementTimeoutMs`. Set where `statementTimeoutMs` is.
   */
  lockTimeoutMs?: number;
};

/** Long enough for any statement of a store on a healthy server (the largest, a whole 100,000-node session, takes about a second). */
export const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
/** A store's writes hold a session's row for one statement, milliseconds: a longer wait is a stuck holder. */
export const DEFAULT_LOCK_TIMEOUT_MS = 5_000;

// SQLSTATEs of the two limits firing: query_canceled (statement_timeout) and lock_not_available (lock_timeout).
const STATEMENT_TIMEOUT = '57014';
const LOCK_TIMEOUT = '55P03';

/** The limits of a store's options (`statementTimeoutMs`, `lockTimeoutMs`), defaults filled in. */
export function checkLimits(options: { statementTimeoutMs?: unknown; lockTimeoutMs?: unknown }): StatementLimits {
  const limit = (value: unknown, name: string, fallback: number): number => {
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > 2_147_483_647)
      throw new PostgresOptionsError(`${name} must be a whole number of milliseconds (0 for no limit), got ${JSON.stringify(value)}.`);
    return value;
  };
  return {
    statementTimeoutMs: limit(options.statementTimeoutMs, 'statementTimeoutMs', DEFAULT_STATEMENT_TIMEOUT_MS),
    lockTimeoutMs: limit(options.lockTimeoutMs, 'lockTimeoutMs', DEFAULT_LOCK_TIMEOUT_MS),
  };
}

export function checkSchemaName(schema: unknown): string {
  if (schema === undefined) return DEFAULT_SCHEMA;
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new PostgresOptionsError(`schema must be a plain identifier (letters, digits, _; at most 63), got ${JSON.stringify(schema)}.`);
  }
  return schema;
}

/**
 * One store's way into the database: the pool (made from a URL and owned, or borrowed), the schema,
 * the schema-version check done once before first use, and transactions that are retried when a
 * concurrent writer made them fail harmlessly.
 */
export class PostgresDatabase {
  readonly schema: string;
  /** The schema name quoted for SQL. */
  readonly s: string;
  private pool: Promise<{ pool: PoolLike; owned: boolean }> | undefined;
  private checked: Promise<void> | undefined;
  // Versions past `neededVersion` that a part of the store (working memory) needs, each checked once.
  private readonly extra = new Map<number, Promise<void>>();
  private closed = false;

  // What each transaction begins with: the limits again, for a pool the store does not own.
  private readonly begin: string;
  private readonly beginReadOnly: string;

  constructor(
    private readonly connection: PostgresConnection,
    schema: string,
    private readonly neededVersion: number,
    private readonly limits: StatementLimits = checkLimits({}),
  ) {
    this.schema = schema;
    this.s = `"${schema}"`;
    // One simple-protocol message with the BEGIN: the limits cost no round trip of their own.
    const local = `SET LOCAL statement_timeout = ${limits.statementTimeoutMs}; SET LOCAL lock_timeout = ${limits.lockTimeoutMs}`;
    this.begin = `BEGIN; ${local}`;
    this.beginReadOnly = `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; ${local}`;
  }

  private async connect(): Promise<PoolLike> {
    if (this.closed) throw new MemoryStoreClosedError();
    this.pool ??= openPool(this.connection, this.limits);
    return (await this.pool).pool;
  }

  /** The pool, once the schema is known to be at the needed version; a behind schema fails every call. */
  private async ready(): Promise<PoolLike> {
    const pool = await this.connect();
    this.checked ??= this.checkVersion(pool).catch((error: unknown) => {
      this.checked = undefined; // a later call checks again: someone may migrate in between
      throw error;
    });
    await this.checked;
    return pool;
  }

  private async checkVersion(pool: PoolLike, needed = this.neededVersion): Promise<void> {
    const found = await currentVersion(pool, this.s, this.schema);
    if (found < needed) throw new PostgresSchemaBehindError(this.schema, found, needed);
  }

  /**
   * Fails with `PostgresSchemaBehindError` unless the schema is at `version` or later: for a part of a
   * store that needs a newer migration than the rest, which keeps working on a schema not yet there.
   */
  async requireVersion(version: number): Promise<void> {
    const pool = await this.ready();
    let check = this.extra.get(version);
    if (check === undefined) {
      check = this.checkVersion(pool, version).catch((error: unknown) => {
        this.extra.delete(version); // checked again next time: someone may migrate in between
        throw error;
      });
      this.extra.set(version, check);
    }
    await check;
  }

  /** One statement; a `{ name, text }` statement is prepared once per connection and reused. */
  async query<T = any>(sql: string | PreparedQuery, values?: unknown[]): Promise<T[]> {
    const pool = await this.ready();
    try {
      return (await (typeof sql === 'string' ? pool.query(sql, values) : pool.query({ name: sql.name, text: sql.text, values })))
        .rows as T[];
    } catch (error) {
      throw storeError(error, undefined, this.limits);
    }
  }

  /**
   * Runs the statements of `work` (reads that need no single snapshot) under the store's limits in as
   * few round trips as that allows: straight on the pool when the store made it, since its connections
   * carry the limits; in one read-only transaction on a borrowed pool, the only place the store can set
   * them there without changing the connections of someone else's pool.
   */
  async limitedReads<T>(
    /** `snapshot`: the statements see one snapshot of the database (they run in one read-only transaction). */
    work: (query: <R>(sql: PreparedQuery, values: unknown[]) => Promise<R[]>, snapshot: boolean) => Promise<T>,
  ): Promise<T> {
    await this.ready();
    if ((await this.pool!).owned) return work((sql, values) => this.query(sql, values), false);
    return this.transaction(
      (client) => work(async (sql, values) => (await client.query({ name: sql.name, text: sql.text, values })).rows, true),
      { readOnly: true },
    );
  }

  /**
   * Runs `work` in one transaction on one connection. A deadlock or serialization failure, or a
   * unique violation when `retryOnUnique` says the index is one a concurrent writer fills, rolls back
   * and runs `work` again from the start (a few times), so callers never see those races.
   */
  async transaction<T>(
    work: (client: ClientLike) => Promise<T>,
    opts: { readOnly?: boolean; retryOnUnique?: (constraint: string) => boolean } = {},
  ): Promise<T> {
    const pool = await this.ready();
    for (let attempt = 1; ; attempt++) {
      let client: ClientLike;
      try {
        client = await pool.connect();
      } catch (error) {
        throw storeError(error);
      }
      let broken: Error | undefined;
      try {
        await client.query(opts.readOnly ? this.beginReadOnly : this.begin);
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch((rollback: unknown) => {
          broken = rollback as Error; // the connection is unusable: the pool must not hand it out again
        });
        const code = (error as { code?: unknown }).code;
        const constraint = String((error as { constraint?: unknown }).constraint ?? '');
        const retry = code === DEADLOCK || code === SERIALIZATION || (code === UNIQUE && opts.retryOnUnique?.(constraint) === true);
        if (!retry || attempt >= ATTEMPTS) throw storeError(error, undefined, this.limits);
      } finally {
        client.release(broken ?? false);
      }
    }
  }

  /** Applies every missing migration, in order, in one transaction; safe to run from many processes at once. */
  async migrate(): Promise<MigrateResult> {
    const pool = await this.connect();
    const result = await migrateSchema(pool, this.s, this.schema).catch((error: unknown) => {
      throw storeError(error);
    });
    this.checked = undefined;
    this.extra.clear();
    return result;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opened = await this.pool?.catch(() => undefined);
    if (opened?.owned) await opened.pool.end();
  }
}

/** The newest applied migration of `schema`; 0 when it has none (or does not exist). */
async function currentVersion(pool: PoolLike, s: string, schema: string): Promise<number> {
  try {
    const { rows } = await pool.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [`${s}.schema_migrations`]);
    if (!rows[0].present) return 0;
    const applied = await pool.query(`SELECT coalesce(max(version), 0)::int AS version FROM ${s}.schema_migrations`);
    return applied.rows[0].version as number;
  } catch (error) {
    throw storeError(error, `reading the schema version of "${schema}"`);
  }
}

async function migrateSchema(pool: PoolLike, s: string, schema: string): Promise<MigrateResult> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    // A migration may rebuild a large table, and waits on purpose for another migrator: no limits here.
    await client.query('BEGIN; SET LOCAL statement_timeout = 0; SET LOCAL lock_timeout = 0');
    // One migrator at a time per schema; a transaction-scoped lock also holds behind a pooler.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`indusagi.migrate.${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.schema_migrations (
      version integer PRIMARY KEY,
      name text NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
    const { rows } = await client.query(`SELECT coalesce(max(version), 0)::int AS version FROM ${s}.schema_migrations`);
    const from = rows[0].version as number;
    const applied: MigrateResult['applied'] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      for (const statement of migration.statements(s)) await client.query(statement);
      await client.query(`INSERT INTO ${s}.schema_migrations (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      applied.push({ version: migration.version, name: migration.name });
    }
    await client.query('COMMIT');
    return { schema, from, to: Math.max(from, LATEST_VERSION), applied };
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken = rollback as Error;
    });
    throw error;
  } finally {
    client.release(broken ?? false);
  }
}

/**
 * Our typed errors pass through; a limit that fired becomes a `PostgresTimeoutError` (given the
 * limits), anything else the driver or server raised a `PostgresStoreError`.
 */
export function storeError(error: unknown, doing?: string, limits?: StatementLimits): unknown {
  if (IndusagiError.isInstance(error)) return error;
  const code = (error as { code?: unknown }).code;
  const message = doing === undefined ? `PostgreSQL: ${errorMessage(error)}` : `PostgreSQL, ${doing}: ${errorMessage(error)}`;
  // 57014 is also a cancel asked for by a client (pg_cancel_backend); only the server's own timeout says so.
  if (limits !== undefined && code === STATEMENT_TIMEOUT && /statement timeout/.test(errorMessage(error)))
    return new PostgresTimeoutError(
      `${message} (statementTimeoutMs ${limits.statementTimeoutMs})`,
      code,
      'statement',
      limits.statementTimeoutMs,
      { cause: error },
    );
  if (limits !== undefined && code === LOCK_TIMEOUT && /lock timeout/.test(errorMessage(error)))
    return new PostgresTimeoutError(`${message} (lockTimeoutMs ${limits.lockTimeoutMs})`, code, 'lock', limits.lockTimeoutMs, {
      cause: error,
    });
  return new PostgresStoreError(message, typeof code === 'string' ? code : undefined, { cause: error });
}
