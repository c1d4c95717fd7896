import { IndusagiError } from '../errors/index.js';
import { SessionLeaseLostError, SessionLockedError } from '../runtime/store/index.js';

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

/**
 * A statement ran past the store's `statementTimeoutMs`, or waited past its `lockTimeoutMs` for a row
 * another connection holds (SQLSTATE `57014` or `55P03`): the server cancelled it and rolled its
 * transaction back, so nothing of it was written. `limit` says which of the two fired.
 */
export class PostgresTimeoutError extends PostgresStoreError {
  static override readonly errorName: string = 'PostgresTimeoutError';
  constructor(
    message: string,
    code: string,
    readonly limit: 'statement' | 'lock',
    readonly ms: number,
    options?: { cause?: unknown },
  ) {
    super(message, code, options);
  }
}

/**
 * Another writer holds the session's lease and it has not expired: `holder` names it (host, pid and
 * store), `expiresAt` is when the database will let someone take it over unless the holder renews it.
 * A `SessionLockedError`, so code written for the file store's lock catches it too.
 */
export class SessionLeaseHeldError extends SessionLockedError {
  static override readonly errorName: string = 'SessionLeaseHeldError';
  constructor(
    sessionId: string,
    readonly holder: string,
    readonly epoch: number,
    readonly expiresAt: Date,
  ) {
    super(sessionId, pidOf(holder), 'postgres lease', `it is held by ${holder}`);
    this.message = `Session ${JSON.stringify(sessionId)} is open for writing by ${holder} (lease epoch ${epoch}, expires ${expiresAt.toISOString()} unless renewed).`;
  }
}

/**
 * This writer lost the session's lease (it stalled past the lease, and another writer took the session
 * over with a newer epoch): the write was refused and nothing of it was stored. The writer keeps what it
 * could not write; acquire the session again to go on from what the new writer stored. A
 * `SessionLeaseLostError`, as the file store's `SessionLockLostError` is.
 */
export class SessionFencedError extends SessionLeaseLostError {
  static override readonly errorName: string = 'SessionFencedError';
  constructor(
    sessionId: string,
    /** The epoch this writer took. */
    readonly epoch: number,
    /** The session's epoch now, null when the session row is gone. */
    readonly currentEpoch: number | null,
    /** Who holds the lease now, null when nobody does. */
    readonly holder: string | null,
    options?: { cause?: unknown },
  ) {
    super(sessionId, `this writer's lease (epoch ${epoch}) was taken over`, { ...options, kind: 'session_fenced' });
    this.message = `Session ${JSON.stringify(sessionId)}: this writer's lease (epoch ${epoch}) was taken over${currentEpoch === null ? '' : ` (epoch now ${currentEpoch}${holder === null ? '' : `, held by ${holder}`})`}; the write was refused and nothing of it was stored.`;
  }
}

function pidOf(holder: string): number | null {
  const match = / pid (\d+)/.exec(holder);
  return match === null ? null : Number(match[1]);
}

/**
 * A store given an embedder keeps its vectors with pgvector (the `vector` extension, 0.8.0 or later
 * for filtered index scans), and this database cannot give it: the server has no pgvector, the role
 * may not create the extension, or the installed one is too old. Nothing was written.
 */
export class PostgresVectorUnavailableError extends IndusagiError {
  static override readonly errorName: string = 'PostgresVectorUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('postgres_vector_unavailable', message, options);
  }
}

/**
 * The schema keeps the vectors of another embedder than the store was given (another id, or other
 * dimensions). Vectors of two models are not comparable, so the store refuses rather than mixing them.
 */
export class PostgresEmbedderMismatchError extends IndusagiError {
  static override readonly errorName: string = 'PostgresEmbedderMismatchError';
  constructor(
    readonly schema: string,
    /** The embedder the schema's vectors come from. */
    readonly recorded: { id: string; dimensions: number },
    /** The embedder this store was given. */
    readonly given: { id: string; dimensions: number },
  ) {
    super(
      'postgres_embedder_mismatch',
      `PostgreSQL schema "${schema}" keeps the vectors of embedder ${JSON.stringify(recorded.id)} (${recorded.dimensions} dimensions); ` +
        `this store was given ${JSON.stringify(given.id)} (${given.dimensions} dimensions). Vectors of two embedders cannot be compared: ` +
        `give the store ${JSON.stringify(recorded.id)}, use another schema, or drop the schema's memory_vectors table and its memory_embedder row to embed every record again with the new one.`,
    );
  }
}
