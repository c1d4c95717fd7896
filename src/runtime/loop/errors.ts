import { IndusagiError, isErrorNamed } from '../../errors/index.js';
import type { FaultKind, RunSnapshot } from '../contract/events.js';

const FAULT_KINDS: ReadonlySet<string> = new Set<FaultKind>([
  'aborted',
  'max_steps',
  'model_error',
  'context_overflow',
  'summarizer_failed',
  'store_error',
  'invalid_request',
  'internal',
]);

/**
 * What `Agent.submit` (and `approve`/`reject`) reject with when a run fails: `kind` says why, `snapshot`
 * is the state the run left behind (also published with `faulted`), `cause` the underlying error.
 */
export class RunFault extends IndusagiError {
  declare readonly kind: FaultKind;
  constructor(kind: FaultKind, message: string, readonly snapshot: RunSnapshot, options?: { cause?: unknown }) {
    super(kind, message, options);
  }
  static override isInstance(error: unknown): error is RunFault {
    return isErrorNamed(error, 'RunFault');
  }
}

/** The run was aborted (`agent.abort()`, a caller's signal, or a consumer leaving `runAgent` early). */
export class RunAbortedError extends IndusagiError {
  constructor(options?: { cause?: unknown }) {
    super('aborted', 'The run was aborted.', options);
  }
  static override isInstance(error: unknown): error is RunAbortedError {
    return isErrorNamed(error, 'RunAbortedError');
  }
}

/** The model still wanted tools after `maxSteps` model calls. */
export class MaxStepsError extends IndusagiError {
  constructor(readonly maxSteps: number) {
    super('max_steps', `The model was still calling tools after ${maxSteps} model calls (maxSteps); the run stopped.`);
  }
  static override isInstance(error: unknown): error is MaxStepsError {
    return isErrorNamed(error, 'MaxStepsError');
  }
}

/** A model call failed: network, an HTTP error after the client's own retries, or an error event mid-stream. */
export class ModelCallError extends IndusagiError {
  /** The HTTP status, when the failure was an HTTP error response. */
  readonly status: number | undefined;
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super('model_error', message, { cause: options.cause });
    this.status = options.status;
  }
  static override isInstance(error: unknown): error is ModelCallError {
    return isErrorNamed(error, 'ModelCallError');
  }
}

/**
 * The fault kind an error maps to: an `IndusagiError` whose `kind` is a `FaultKind` keeps it (so a
 * summarizer or store error raised inside a hook reports as such), anything else is `internal`.
 */
export function faultKindOf(error: unknown): FaultKind {
  return IndusagiError.isInstance(error) && FAULT_KINDS.has(error.kind) ? (error.kind as FaultKind) : 'internal';
}
