// The public face of `indusagi/memory/sqlite`: a durable MemoryStore on better-sqlite3 (an optional peer
// dependency, loaded only when a store is opened).
export { openSqliteMemoryStore } from './store.js';
export type { SqliteMemoryStore, SqliteMemoryStoreOptions } from './store.js';
export {
  SqliteUnavailableError,
  SqliteVecUnavailableError,
  SqliteEmbedderMismatchError,
  SqliteMemoryFileError,
  SqliteMemoryIoError,
} from './errors.js';
export type { EmbedderIdentity } from './errors.js';
