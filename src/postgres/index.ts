// The public face of `indusagi/postgres`: stores shared by every machine that reaches one PostgreSQL
// database. node-postgres (`pg`) is an optional peer dependency, loaded only when a store connects.
export { PostgresMemoryStore } from './memory-store.js';
export { PostgresSessionStore } from './session-store.js';
export type { PostgresSessionStoreOptions } from './session-store.js';
export type { PostgresStoreOptions } from './memory-store.js';
export type { PostgresConnection, PoolLike, ClientLike } from './driver.js';
export type { MigrateResult, StatementLimitOptions, StatementLimits } from './database.js';
export { DEFAULT_LOCK_TIMEOUT_MS, DEFAULT_STATEMENT_TIMEOUT_MS } from './database.js';
export { migratePostgres } from './migrate.js';
export { MIGRATIONS, LATEST_VERSION } from './migrations.js';
export {
  PostgresUnavailableError,
  PostgresOptionsError,
  PostgresSchemaBehindError,
  PostgresStoreError,
  PostgresTimeoutError,
  PostgresVectorUnavailableError,
  PostgresEmbedderMismatchError,
  SessionFencedError,
  SessionLeaseHeldError,
} from './errors.js';
