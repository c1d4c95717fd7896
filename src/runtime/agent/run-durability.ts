import type { RunSnapshot, RunStatus } from '../contract/events.js';
import { AbortRace } from '../loop/abort.js';
import { RunAbortedError } from '../loop/errors.js';
import type { LoopDurability } from '../loop/types.js';
import { errorMessage } from '../../errors/index.js';
import type { AgentCore } from './agent-core.js';
import { CheckpointError } from './errors.js';
import { fault, type Failure } from './run-faults.js';
import type { RunScope } from './run-scope.js';
import type { AgentSession } from './session.js';
import { snapshotOf, standingOf } from './standing.js';

/**
 * Opens the session for a run; a failure is the run's `store_error` fault. An abort ends the wait (a
 * store that hangs must not hold the run): the opening goes on, and the next run picks it up.
 */
export async function openForRun(core: AgentCore, scope: RunScope, prompt: string | null): Promise<AgentSession> {
  try {
    return await untilAborted(core.sessions.open(), scope.signal);
  } catch (error) {
    if (core.sessions.closed) throw error;
    scope.publish({ kind: 'run_started', sessionId: core.sessions.id, prompt, runId: scope.runId });
    const kind = RunAbortedError.isInstance(error) ? 'aborted' : 'store_error';
    throw fault(scope, kind, error, snapshotOf(core.sessions.id, [], 'faulted', scope.usage));
  }
}

/** How the loop makes each settled step durable (see `LoopDurability`); undefined for a session that records nothing. */
export function durabilityOf(session: AgentSession, signal: AbortSignal): RunDurability | undefined {
  if (!session.durable) return undefined;
  // One abort listener for the run's checkpoints, not one added and removed per step.
  const race = new AbortRace(signal);
  return {
    async checkpoint() {
      try {
        await race.race(session.persist());
      } catch (error) {
        if (RunAbortedError.isInstance(error)) throw error;
        throw new CheckpointError(session.id, { cause: error });
      }
    },
    markStarted: (callIds) => session.markStarted(callIds),
    startsOf: (callId) => session.startsOf(callId),
    dispose: () => race.dispose(),
  };
}

/** The loop's durability for one run, and `dispose` for when the run ends (it lets go of the signal). */
export type RunDurability = LoopDurability & { dispose(): void };

/** Persists what the run recorded, then settles it (`settled` or `waiting`) or faults it. */
export async function finishRun(
  core: AgentCore,
  scope: RunScope,
  session: AgentSession,
  failure: Failure | undefined,
  answer?: { value: unknown },
): Promise<RunSnapshot> {
  try {
    await untilAborted(session.persist(), scope.signal);
  } catch (error) {
    // Aborted while the store still writes: the records stay with the session until they are durable.
    if (RunAbortedError.isInstance(error)) failure ??= { kind: 'aborted', error };
    // Nothing of this run is durable, which outweighs whatever else went wrong; both are kept as the cause.
    else
      failure = {
        kind: 'store_error',
        error: failure === undefined ? error : new AggregateError([error, failure.error], errorMessage(error)),
      };
  }
  const pending = standingOf(session, core.tools).pending;
  const status: RunStatus = failure !== undefined ? 'faulted' : pending.length > 0 ? 'waiting' : 'settled';
  const snapshot = snapshotOf(session.id, session.context, status, scope.usage, pending);
  if (core.handoffs !== undefined) snapshot.agent = core.handoffs.active;
  if (failure !== undefined && session.tripped?.runId === scope.runId) snapshot.tripped = session.tripped;
  if (failure !== undefined) throw fault(scope, failure.kind, failure.error, snapshot);
  if (answer !== undefined) snapshot.output = answer.value;
  scope.publish({ kind: 'settled', snapshot, runId: scope.runId });
  return snapshot;
}

/**
 * `work`, or `RunAbortedError` as soon as `signal` fires, whichever comes first. What a store is still
 * doing goes on (its records stay with the session's writer until they are durable); the run does not
 * wait for it.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(new RunAbortedError({ cause: signal.reason }));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => {
      // The abandoned work's own outcome reaches whoever waits on it next (the session's writer queue).
      work.catch(() => undefined);
      reject(new RunAbortedError({ cause: signal.reason }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
