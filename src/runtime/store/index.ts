// The public face of the session store: content-addressed graphs of turns, kept in append-only files.
export { hashNode } from './hash.js';
export type { NodeIdentity } from './hash.js';
export { SessionGraph } from './graph.js';
export type { AppendExtra, CondensationMarker, OrphanNode, RestoredGraph } from './graph.js';
export { SessionStore } from './store.js';
export type { LoadReport, LoadedSession, SessionStoreOptions, SessionSummary } from './store.js';
export type { SkippedLine } from './read-session.js';
export { assertValidSessionId } from './session-id.js';
export {
  BrokenCondensationError,
  InvalidSessionIdError,
  InvalidTurnError,
  SessionIntegrityError,
  SessionIoError,
  SessionLockLostError,
  SessionLockedError,
  SessionNotOpenError,
  UnknownNodeError,
} from './errors.js';
