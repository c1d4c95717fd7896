// The `indusagi/store` entry: sessions as content-addressed graphs of turns, and the record-log seam a
// store implements (`SessionStoreLike`: acquire, read, append, release; see docs/sessions.md for a whole
// store in 35 lines), with the append-only file store and the in-memory one. PostgreSQL is `indusagi/postgres`.
export { SessionGraph, hashNode, SessionStore, MemorySessionStore, SessionWriter } from '../runtime/store/index.js';
export { loadSession, loadSessionWithReport, loadReportProblems, assertRecords, assertValidSessionId } from '../runtime/store/index.js';
export type {
  AppendExtra,
  AppendReport,
  CondensationMarker,
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
export type { SessionNode, SessionRecord, Migrator } from '../runtime/contract/index.js';
export * from '../runtime/store/errors.js';
