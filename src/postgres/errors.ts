import { IndusagiError } from '../errors/index.js';

/** `pg` (node-postgres, an optional peer dependency) is not installed. */
export class PostgresUnavailableError extends IndusagiError {
  static override readonly errorName: string = 'PostgresUnavailableError';
  constructor(options?: { cause?: unknown }) {
    super(
      'postgres_unavailable',
      'The PostgreSQL stores need the optional peer dependency pg (node-postgres, 8.x), which could not be loaded. Install it with `npm install pg`, or pass your own { pool }.',
      options,
    );
  }
}

/** The store's options are unusable: no connection, a schema name or tenant that cannot be used. */
export class PostgresOptionsError extends IndusagiError {
  static override readonly errorName: string = 'PostgresOptionsError';
  constructor(message: string) {
    super('postgres_options', message);
  }
}

/**
 * The database schema is older than this store needs (or was never migrated). Migrations never run
 * by themselves: run `indusagi db migrate` or call `migrate()` once per deploy.
 */
export class PostgresSchemaBehindError extends IndusagiError {
  static override readonly errorName: string = 'PostgresSchemaBehindError';
  constructor(
    readonly schema: string,
    /** The newest migration applied, 0 for none. */
    readonly found: number,
    readonly needed: number,
  ) {
    super(
      'postgres_schema_behind',
      found === 0
        ? `PostgreSQL schema "${schema}" has no indusagi tables; this store needs schema version ${needed}. Run \`indusagi db migrate\` (or call migrate()) once, then retry.`
        : `PostgreSQL schema "${schema}" is at version ${found}; this store needs version ${needed}. Run \`indusagi db migrate\` (or call migrate()) once, then retry.`,
    );
  }
}

/** The database refused or failed a statement for a reason no other error names; `code` is its SQLSTATE. */
export class PostgresStoreError extends IndusagiError {
  static override readonly errorName: string = 'PostgresStoreError';
  constructor(
    message: string,
    /** SQLSTATE (e.g. `57P01`) or the socket's errno code (e.g. `ECONNREFUSED`), when there is one. */
    readonly code: string | undefined,
    options?: { cause?: unknown },
  ) {
    super('postgres_store', message, options);
  }
}
