import { IndusagiError } from '../errors/index.js';
import type { SchemaIssue } from '../schema/index.js';

/**
 * An error the agent server answers with an HTTP status: every refusal a client can cause has one,
 * with a stable `kind` in the body (`{ "error": { "kind", "message" } }`), so clients switch on the
 * kind, never on the wording.
 */
export class ServerError extends IndusagiError {
  static override readonly errorName: string = 'ServerError';
  constructor(
    kind: string,
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(kind, message, options);
  }

  /** Extra fields of the error body (besides `kind` and `message`). */
  details(): Record<string, unknown> {
    return {};
  }

  /** Extra response headers (`retry-after`, `www-authenticate`). */
  headers(): Record<string, string> {
    return {};
  }
}

/** The request is malformed: a body that is not the JSON the route takes, a bad id, a bad query. 400. */
export class ServerRequestError extends ServerError {
  static override readonly errorName: string = 'ServerRequestError';
  constructor(
    message: string,
    /** Each problem with its JSON pointer, when the body failed its schema. */
    readonly issues: SchemaIssue[] = [],
  ) {
    super('bad_request', 400, message);
  }

  override details(): Record<string, unknown> {
    return this.issues.length === 0 ? {} : { issues: this.issues };
  }
}

/** No credentials, or credentials the server does not accept. 401. */
export class UnauthorizedError extends ServerError {
  static override readonly errorName: string = 'UnauthorizedError';
  constructor(message = 'This server needs a bearer token: Authorization: Bearer <token>.') {
    super('unauthorized', 401, message);
  }

  override headers(): Record<string, string> {
    return { 'www-authenticate': 'Bearer realm="indusagi"' };
  }
}

/** Known credentials that may not do this (a read-only token asking to write). 403. */
export class ForbiddenError extends ServerError {
  static override readonly errorName: string = 'ForbiddenError';
  constructor(message: string) {
    super('forbidden', 403, message);
  }
}

/**
 * No such thing for this tenant. Another tenant's thread, run or memory is answered exactly as one that
 * does not exist, so ids cannot be probed across tenants. 404.
 */
export class NotFoundError extends ServerError {
  static override readonly errorName: string = 'NotFoundError';
  constructor(
    readonly what: 'thread' | 'run' | 'memory' | 'message' | 'route',
    readonly id: string,
  ) {
    super('not_found', 404, what === 'route' ? `No route ${id}.` : `No ${what} ${JSON.stringify(id)}.`);
  }
}

/** The thread already runs something: one run at a time per thread (cancel it, or wait for it). 409. */
export class ThreadBusyError extends ServerError {
  static override readonly errorName: string = 'ThreadBusyError';
  constructor(
    readonly threadId: string,
    readonly activeRunId: string,
  ) {
    super('thread_busy', 409, `Thread ${JSON.stringify(threadId)} is running ${activeRunId}; wait for it or cancel it first.`);
  }

  override details(): Record<string, unknown> {
    return { activeRunId: this.activeRunId };
  }
}

/** `POST /threads` with an id the tenant already has. 409. */
export class ThreadExistsError extends ServerError {
  static override readonly errorName: string = 'ThreadExistsError';
  constructor(readonly threadId: string) {
    super('thread_exists', 409, `Thread ${JSON.stringify(threadId)} already exists.`);
  }
}

/** A decision for a call that is not waiting for one on the thread (decided already, or never asked). 409. */
export class ApprovalNotPendingError extends ServerError {
  static override readonly errorName: string = 'ApprovalNotPendingError';
  constructor(
    readonly threadId: string,
    readonly approvalId: string,
  ) {
    super(
      'approval_not_pending',
      409,
      `Thread ${JSON.stringify(threadId)} has no call ${JSON.stringify(approvalId)} waiting for a decision.`,
    );
  }
}

/** An answer for a question the run is not waiting on (answered already, asked by a worker that died, or never asked). 409. */
export class InputNotPendingError extends ServerError {
  static override readonly errorName: string = 'InputNotPendingError';
  constructor(
    readonly runId: string,
    readonly requestId: string,
  ) {
    super('input_not_pending', 409, `Run ${JSON.stringify(runId)} is not waiting on input request ${JSON.stringify(requestId)}.`);
  }
}

/**
 * An answer the question cannot take: an `accept` without an object `content`, or content that does not
 * match the question's schema (each problem in `issues`). The tool goes on waiting. 400.
 */
export class InvalidAnswerError extends ServerError {
  static override readonly errorName: string = 'InvalidAnswerError';
  constructor(
    message: string,
    readonly requestId: string,
    /** Each problem with its JSON pointer, when the content failed the question's schema. */
    readonly issues: SchemaIssue[] = [],
  ) {
    super('invalid_answer', 400, message);
  }

  override details(): Record<string, unknown> {
    return this.issues.length === 0 ? { requestId: this.requestId } : { requestId: this.requestId, issues: this.issues };
  }
}

/** A prompt for a thread whose calls wait for a decision: decide them first (the model needs their results). 409. */
export class ThreadWaitingError extends ServerError {
  static override readonly errorName: string = 'ThreadWaitingError';
  constructor(
    readonly threadId: string,
    readonly pending: readonly string[],
  ) {
    super(
      'approvals_pending',
      409,
      `Thread ${JSON.stringify(threadId)} has calls waiting for a decision (${pending.join(', ')}); approve or reject them first.`,
    );
  }

  override details(): Record<string, unknown> {
    return { pending: this.pending };
  }
}

/** The body is over the server's limit; nothing of it was read past the limit. 413. */
export class BodyTooLargeError extends ServerError {
  static override readonly errorName: string = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super('body_too_large', 413, `The request body is over this server's limit of ${limit} bytes.`);
  }
}

/** A body that is not `application/json`. 415. */
export class UnsupportedMediaTypeError extends ServerError {
  static override readonly errorName: string = 'UnsupportedMediaTypeError';
  constructor(given: string | null) {
    super('unsupported_media_type', 415, `The body must be application/json, not ${given === null ? 'untyped' : JSON.stringify(given)}.`);
  }
}

/** A finished run whose events are past the retention period: its stream cannot be replayed. 410. */
export class EventsExpiredError extends ServerError {
  static override readonly errorName: string = 'EventsExpiredError';
  constructor(readonly runId: string) {
    super(
      'events_expired',
      410,
      `The events of run ${JSON.stringify(runId)} are past the retention period; its result is still on GET /runs/{id}.`,
    );
  }
}

/**
 * The tenant already has as many runs queued or running as the server allows: try again later
 * (`retry-after` says when it is worth it). 429.
 */
export class QueueFullError extends ServerError {
  static override readonly errorName: string = 'QueueFullError';
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number,
  ) {
    super('queue_full', 429, `This tenant already has ${limit} runs queued or running, the most this server takes; retry later.`);
  }

  override headers(): Record<string, string> {
    return { 'retry-after': String(this.retryAfterSeconds) };
  }
}

/** `createServer` or `createWorker` options that cannot work; thrown before anything starts. */
export class ServerOptionsError extends IndusagiError {
  static override readonly errorName: string = 'ServerOptionsError';
  constructor(message: string) {
    super('server_options', message);
  }
}

/**
 * This worker lost the run it was executing: another worker took it over (this one stalled past its
 * lease and was counted dead), so nothing more of it is written here.
 */
export class RunFencedError extends IndusagiError {
  static override readonly errorName: string = 'RunFencedError';
  constructor(
    readonly runId: string,
    readonly attempt: number,
  ) {
    super('run_fenced', `Run ${runId}: attempt ${attempt} was taken over by another worker; its writes are refused.`);
  }
}

/** The server keeps no memory store for this tenant (none was configured). 501. */
export class MemoryUnavailableError extends ServerError {
  static override readonly errorName: string = 'MemoryUnavailableError';
  constructor() {
    super('memory_unavailable', 501, 'This server keeps no memory: start it with a memory store.');
  }
}

/** A run that the route waited for failed in a way the request caused (a fork to a node that is not there). 400. */
export class RunRefusedError extends ServerError {
  static override readonly errorName: string = 'RunRefusedError';
  constructor(
    kind: string,
    message: string,
    readonly runId: string,
  ) {
    super(kind, 400, message);
  }

  override details(): Record<string, unknown> {
    return { runId: this.runId };
  }
}

/** graphile-worker (an optional peer dependency) is not installed: a worker on PostgreSQL, and its job queue's migration, need it. */
export class JobQueueUnavailableError extends IndusagiError {
  static override readonly errorName: string = 'JobQueueUnavailableError';
  constructor(options?: { cause?: unknown }) {
    super(
      'job_queue_unavailable',
      'Runs on PostgreSQL need the optional peer dependency graphile-worker 0.17, which could not be loaded: npm install graphile-worker@0.17',
      options,
    );
  }
}
