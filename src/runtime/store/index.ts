// The public face of the session store: content-addressed graphs of turns, and the record-log seam every
// store implements (`SessionStoreLike`: acquire, read, append, release), in append-only files
// (`SessionStore`) or in memory (`MemorySessionStore`).
export { hashNode } from './hash.js';
export type { NodeIdentity } from './hash.js';
export { SessionGraph } from './graph.js';
export type { RestoredGraph } from './graph.js';
export type { AppendExtra, CompactionMarker } from './new-node.js';
export type { LivePathOptions } from './live-rest.js';
export type { LeafFallback, OrphanNode, RejectedNode } from './restore.js';
export { SessionStore } from './store.js';
export type { SessionStoreOptions, SessionSummary } from './store.js';
export type { FileLoadReport, LoadedSessionFile } from './file-loader.js';
export { MemorySessionStore } from './memory-store.js';
export type { AppendReport, LivePathSession, SessionLease, SessionStoreLike, StoredSession } from './types.js';
export { graphOf, loadSession, loadSessionWithReport } from './load-session.js';
export type { LoadOptions, LoadedSession, SessionReader } from './load-session.js';
export { SessionWriter } from './writer.js';
export type { LoadReport, SkippedLine } from '../contract/session.js';
export { loadReportProblems } from './load-report.js';
export { assertValidSessionId } from './session-id.js';
export { assertRecords } from './records.js';
export { queueWrite } from './write-queue.js';
export { titleOf } from './list-session.js';
export {
  BrokenCompactionError,
  GraphNotLoadedError,
  InvalidRecordError,
  InvalidSessionIdError,
  InvalidTurnError,
  MissingHistoryError,
  SessionIntegrityError,
  SessionIoError,
  SessionLeaseLostError,
  SessionLockLostError,
  SessionLockedError,
  SessionPathUnsafeError,
  UnknownNodeError,
} from './errors.js';
