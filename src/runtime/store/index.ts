// The public face of the session store: content-addressed graphs of turns, kept in append-only files
// (`SessionStore`) or in memory (`MemorySessionStore`), behind one structural `SessionStoreLike`.
export { hashNode } from './hash.js';
export type { NodeIdentity } from './hash.js';
export { SessionGraph } from './graph.js';
export type { AppendExtra, CondensationMarker, LivePathOptions, RestoredGraph, SessionGraphSource, WholeSession } from './graph.js';
export type { LeafFallback, OrphanNode, RejectedNode } from './restore.js';
export { SessionStore } from './store.js';
export type { SessionStoreOptions, SessionSummary } from './store.js';
export type { FileLoadReport, LoadOptions, LoadedSessionFile } from './load-session.js';
export { MemorySessionStore } from './memory-store.js';
export type { SessionStoreLike, LoadedSession, PersistReport } from './types.js';
export type { LoadReport, SkippedLine } from '../contract/session.js';
export { loadReportProblems } from './load-report.js';
export { assertValidSessionId } from './session-id.js';
export { drainWrites, queueWrite } from './write-queue.js';
export { titleOf } from './list-session.js';
export {
  BrokenCondensationError,
  GraphNotLoadedError,
  InvalidSessionIdError,
  InvalidTurnError,
  MissingHistoryError,
  SessionIntegrityError,
  SessionIoError,
  SessionLockLostError,
  SessionLockedError,
  SessionNotOpenError,
  SessionPathUnsafeError,
  UnknownNodeError,
} from './errors.js';
