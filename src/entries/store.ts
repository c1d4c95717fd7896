// The `indusagi/store` entry: sessions as content-addressed graphs of turns, and the record-log seam a
// store implements (`SessionStoreLike`: acquire, read, append, release; see docs/sessions.md for a whole
// store in 35 lines), with the in-memory store and the file store's writer. PostgreSQL is `indusagi/postgres`.
// `SessionStore`, `SessionGraph`, `hashNode`, `SessionNode` and `Migrator` live in indusagi/runtime (CONTRACT.md's
// row), the store's errors in indusagi/errors: one home per name.
export { MemorySessionStore, SessionWriter } from '../runtime/store/index.js';
export { loadSession, loadSessionWithReport, loadReportProblems, assertRecords, assertValidSessionId } from '../runtime/store/index.js';
export type {
  AppendExtra,
  AppendReport,
  CompactionMarker,
  FileLoadReport,
  LeafFallback,
  LivePathOptions,
  LivePathSession,
  LoadOptions,
  LoadReport,
  LoadedSession,
  LoadedSessionFile,
  NodeIdentity,
  OrphanNode,
  RejectedNode,
  SessionLease,
  SessionReader,
  SessionStoreLike,
  SessionStoreOptions,
  SessionSummary,
  SkippedLine,
  StoredSession,
} from '../runtime/store/index.js';
export type { SessionRecord } from '../runtime/contract/index.js';
