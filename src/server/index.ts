// The public face of `indusagi/server`: the agent server (a Web fetch handler over threads, runs,
// resumable streams, approvals, answers to tools' questions, cancel and memory), its workers on
// PostgreSQL, and bearer-token auth.
// See docs/server.md. Nothing here loads a model SDK; graphile-worker and pg load only when used.
export { createServer } from './create-server.js';
export type { AgentServer } from './create-server.js';
export { createWorker } from './create-worker.js';
export type { AgentWorker } from './create-worker.js';
export { migrateServer, migrateJobQueue } from './migrate.js';
export { bearerTokens } from './auth.js';
export type { BearerToken } from './auth.js';
export type { ServerOptions, WorkerOptions, CommonOptions, DatabaseOption } from './options.js';
export type { Listening } from './listen.js';
export type { ServedSessionStore } from './stores.js';
export type {
  AgentContext,
  AgentFactory,
  Authenticate,
  ContextMark,
  Decision,
  ErrorInfo,
  Principal,
  RunInput,
  RunRecord,
  RunResult,
  ServerAgent,
  ServerLimits,
  ServerRunEvent,
  ServerRunStatus,
  StoredEvent,
  ThreadRecord,
  ThreadStatus,
} from './types.js';
export {
  ServerError,
  ServerRequestError,
  UnauthorizedError,
  ForbiddenError,
  NotFoundError,
  ThreadBusyError,
  ThreadExistsError,
  ApprovalNotPendingError,
  ThreadWaitingError,
  InputNotPendingError,
  InvalidAnswerError,
  BodyTooLargeError,
  UnsupportedMediaTypeError,
  EventsExpiredError,
  QueueFullError,
  MemoryUnavailableError,
  RunRefusedError,
  ServerOptionsError,
  RunFencedError,
  JobQueueUnavailableError,
} from './errors.js';
