import type { FaultKind, RunSnapshot } from '../contract/events.js';
import { faultKindOf, RunFault } from '../loop/errors.js';
import { isPromptTooLongError } from '../compaction/prompt-too-long.js';
import { errorMessage } from '../../errors/index.js';
import type { RunScope } from './run-scope.js';

/** What ended a run badly: the fault's kind and the error behind it (kept as the `RunFault`'s cause). */
export type Failure = { kind: FaultKind; error: unknown };

/** The fault an error thrown by a run's work is. */
export function failureOf(error: unknown): Failure {
  // "Prompt is too long" arrives as a plain 400; it is still an overflow, whatever compaction could do.
  return { kind: isPromptTooLongError(error) ? 'context_overflow' : faultKindOf(error), error };
}

/** Publishes `faulted` with the run's last snapshot and returns the `RunFault` the run rejects with. */
export function fault(scope: RunScope, kind: FaultKind, error: unknown, snapshot: RunSnapshot): RunFault {
  const message = errorMessage(error);
  scope.publish({ kind: 'faulted', error: { kind, message }, snapshot, runId: scope.runId });
  return new RunFault(kind, message, snapshot, { cause: error });
}
