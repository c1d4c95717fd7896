import { defineConductor } from '../../runtime/agent/index.js';
import type { Agent, AgentDefinition } from '../../runtime/agent/types.js';
import type { RunSnapshot } from '../../runtime/contract/events.js';
import { RunFault } from '../../runtime/loop/index.js';
import { SessionLeaseLostError, type SessionStoreLike } from '../../runtime/store/index.js';
import type { MemoryStore } from '../../memory/types.js';
import { IndusagiError } from '../../errors/index.js';
import type { ModelUsage } from '../../runtime/contract/model.js';
import { sumUsage, zeroUsage } from '../../runtime/usage/sum.js';
import type { Run } from '../../runtime/agent/run.js';
import type { Claim, RunOutcome, ServerBackend } from '../backend/types.js';
import { RunFencedError } from '../errors.js';
import { EventWriter } from '../events/writer.js';
import type { AgentFactory, RunRecord, RunResult, ServerAgent } from '../types.js';
import { contextMark, sameMark } from './context-mark.js';
import { earlierAttemptsUsage } from './earlier-usage.js';
import { openThread } from './open-thread.js';
import { planRun, type Step } from './plan.js';

/** What executing a run needs besides the run: where things are kept, how its agent is built. */
export type ExecutionDeps = {
  backend: ServerBackend;
  agent: AgentFactory;
  sessions: (tenant: string) => SessionStoreLike;
  memory: (tenant: string) => MemoryStore | undefined;
  /** How long text deltas wait to travel as one chunk. */
  coalesceMs: number;
  /** Failures nobody else hears of (a session that would not close). */
  log: (message: string, error: unknown) => void;
};

/**
 * Executes one attempt of a claimed run: builds its agent, opens the thread (waiting out a dead
 * worker's lease), carries out what is left of the run (see `planRun`), streams the events into the
 * run's log, lets the session go, and ends the run with its terminal event and the thread's new
 * state. `signal` is the run's cancel. A run taken over meanwhile by another worker (this one stalled
 * past its lease) stops writing at the first refused write and is left to the new holder.
 */
export async function executeClaimed(
  deps: ExecutionDeps,
  claim: Claim,
  signal: AbortSignal,
  /** Told the run's agent once it is built (where answers to its tools' questions go). */
  opened?: (agent: Agent) => void,
): Promise<void> {
  const { run, attempt } = claim;
  const writer = new EventWriter((events) => deps.backend.appendEvents(claim, events), deps.coalesceMs);
  if (attempt > 1) writer.push({ kind: 'run_taken_over', attempt, runId: run.id });
  let agent: Agent | undefined;
  let outcome: RunOutcome;
  try {
    signal.throwIfAborted();
    const served = await deps.agent({
      tenant: run.tenant,
      user: run.user,
      threadId: run.threadId,
      runId: run.id,
      memory: deps.memory(run.tenant),
    });
    const conductor = definitionOf(served, deps.sessions(run.tenant)).open({
      sessionId: run.threadId,
      // A call that would not run again after a takeover: its start is in the run's log before it runs,
      // so a stream read after this worker dies never shows it finishing without having started.
      beforeToolRuns: (started) => writer.startStored(started.callId),
    });
    agent = conductor;
    opened?.(conductor);
    // approve and reject take no signal: a cancel stops whatever the agent runs.
    signal.addEventListener('abort', () => conductor.abort(), { once: true });
    const standing = await openThread(conductor, run.threadId, signal);
    if (attempt === 1 && run.input.kind === 'prompt') {
      const mark = contextMark(standing.messages);
      if (!sameMark(mark, run.base)) await deps.backend.rebaseRun(claim, mark);
    }
    // A takeover's bill starts with what the dead attempts' settled steps were billed.
    const carried = attempt > 1 && run.input.kind !== 'fork' ? await billedBefore(deps, run) : zeroUsage();
    outcome = await drive(conductor, run, planRun(run, attempt, standing), standing, writer, signal, carried);
  } catch (error) {
    outcome = failed(run, error, signal, deps.log);
  }
  // The last events and the session's close go out side by side (other tables, neither waits on the
  // other); the run ends below only once both are done, so the thread is free only after its lease is.
  const drained = writer.drain().catch((error: unknown) => {
    if (!RunFencedError.isInstance(error)) deps.log(`run ${run.id}: storing its events failed`, error);
  });
  await Promise.all([drained, agent === undefined ? undefined : letSessionGo(agent, run, deps.log)]);
  if (writer.stopped !== undefined) {
    if (RunFencedError.isInstance(writer.stopped)) return;
    // Events were lost to a failing database: fail the job so the engine tries it again (a takeover that picks it up).
    throw writer.stopped;
  }
  try {
    await deps.backend.finishRun(claim, outcome);
  } catch (error) {
    if (!RunFencedError.isInstance(error)) throw error;
  }
}

// The definitions made of served agents, by the config the factory returned and the tenant's store:
// a factory that hands back the same config (the built-in agent does, per tenant and user) has its
// agent defined once, its tools compiled once, and each run only opens a conversation of it.
const definitions = new WeakMap<
  object,
  WeakMap<SessionStoreLike, { invokeModel: ServerAgent['invokeModel']; definition: AgentDefinition }>
>();

/** The definition of `served` over `store`, made on its first run (a run opens its thread as the session, whatever the config says). */
function definitionOf(served: ServerAgent, store: SessionStoreLike): AgentDefinition {
  const config = served.config;
  if (typeof config !== 'object' || config === null) return defineConductor(config, { invokeModel: served.invokeModel, store });
  let byStore = definitions.get(config);
  if (byStore === undefined) definitions.set(config, (byStore = new WeakMap()));
  const made = byStore.get(store);
  if (made !== undefined && made.invokeModel === served.invokeModel) return made.definition;
  const definition = defineConductor(config, { invokeModel: served.invokeModel, store });
  byStore.set(store, { invokeModel: served.invokeModel, definition });
  return definition;
}

const FIRST_CLOSE_RETRY_MS = 200;
const MAX_CLOSE_RETRY_MS = 30_000;

/**
 * Closes the run's agent, trying again (with backoff) for as long as that fails: a session whose close
 * failed (its database down) keeps its lease, renewed by this process once the database is back, so
 * the run's next attempt (here or on another worker) would wait on that lease forever. Closing again
 * stores what the session still holds and hands the lease back. A lease lost meanwhile is gone anyway.
 */
async function letSessionGo(agent: Agent, run: RunRecord, log: ExecutionDeps['log']): Promise<void> {
  for (let wait = FIRST_CLOSE_RETRY_MS; ; wait = Math.min(wait * 2, MAX_CLOSE_RETRY_MS)) {
    try {
      await agent.close();
      return;
    } catch (error) {
      if (SessionLeaseLostError.isInstance(error)) {
        log(`run ${run.id}: its thread's session was taken over before it was let go`, error);
        return;
      }
      log(`run ${run.id}: letting its thread's session go failed; trying again in ${wait} ms`, error);
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/**
 * What the earlier attempts of a run taken over were billed (see `earlierAttemptsUsage`). A session
 * that does not show where the run started is logged, and the run bills only what it calls from now.
 */
async function billedBefore(deps: ExecutionDeps, run: RunRecord): Promise<ModelUsage> {
  const billed = await earlierAttemptsUsage(deps.sessions(run.tenant), run.threadId, run.base);
  if (billed !== undefined) return billed;
  deps.log(
    `run ${run.id}: its thread's session does not show where the run started; its usage leaves out the earlier attempts' model calls`,
    undefined,
  );
  return zeroUsage();
}

/**
 * Runs the steps one after another; the first fault ends the run. `carried` (what earlier attempts
 * were billed) is added to the run's usage: its result's and the running total of its usage events.
 */
async function drive(
  agent: Agent,
  run: RunRecord,
  steps: Step[],
  standing: RunSnapshot,
  writer: EventWriter,
  signal: AbortSignal,
  carried: ModelUsage,
): Promise<RunOutcome> {
  let last = standing;
  // The text of the newest reply this run streamed: a canceled run's own words, which the snapshot
  // (the context's last answer, as far as it was stored) cannot tell from an earlier run's.
  const streamed = { text: '', replyEnded: false };
  for (const step of steps) {
    if (signal.aborted) return faulted(run, 'aborted', 'The run was canceled.', last, signal, carried, streamed.text);
    if (step.kind === 'fork') {
      last = await agent.branchFrom(step.nodeId);
      continue;
    }
    const running = start(agent, step, signal);
    try {
      for await (const event of running) {
        // A step's own end is not the run's: the run's one terminal event is written when it ends.
        if (event.kind === 'settled' || event.kind === 'faulted' || event.kind === 'snapshot') continue;
        if (event.kind === 'text_delta') {
          if (streamed.replyEnded) streamed.text = '';
          streamed.replyEnded = false;
          streamed.text += event.delta;
        } else if (event.kind === 'tool_started') streamed.replyEnded = true;
        if (event.kind === 'usage') writer.push({ ...event, total: plus(carried, event.total), runId: run.id });
        else writer.push({ ...event, runId: run.id });
      }
      last = await running;
    } catch (error) {
      if (!RunFault.isInstance(error)) throw error;
      return faulted(run, error.kind, error.message, error.snapshot, signal, carried, streamed.text);
    }
  }
  const result = resultOf(last, carried);
  return {
    status: last.status === 'waiting' ? 'waiting' : 'settled',
    terminal: { kind: 'settled', snapshot: result, runId: run.id },
    result,
    error: null,
    thread: { pendingApprovals: last.pendingApprovals, mark: contextMark(last.messages) },
  };
}

function start(agent: Agent, step: Exclude<Step, { kind: 'fork' }>, signal: AbortSignal): Run {
  switch (step.kind) {
    case 'submit':
      return agent.submit(step.prompt, { signal });
    case 'approve':
      return agent.approve(step.approvalId);
    case 'reject':
      return agent.reject(step.approvalId, step.reason);
    case 'continue':
      return agent.continue({ signal });
  }
}

function faulted(
  run: RunRecord,
  kind: string,
  message: string,
  snapshot: RunSnapshot,
  signal: AbortSignal,
  carried: ModelUsage,
  streamed: string,
): RunOutcome {
  const error = { kind, message };
  const canceled = kind === 'aborted' && signal.aborted;
  const result = resultOf(snapshot, carried);
  // A canceled run answers with what it said before it was stopped, even nothing: never an earlier run's answer.
  if (canceled) result.text = streamed;
  return {
    status: canceled ? 'canceled' : 'faulted',
    terminal: { kind: 'faulted', error, snapshot: result, runId: run.id },
    result,
    error,
    thread: { pendingApprovals: snapshot.pendingApprovals, mark: contextMark(snapshot.messages) },
  };
}

/** A run that failed before (or outside) a conductor run: no snapshot, the thread stays as it was. */
function failed(run: RunRecord, cause: unknown, signal: AbortSignal, log: ExecutionDeps['log']): RunOutcome {
  const canceled = signal.aborted;
  if (!canceled && !IndusagiError.isInstance(cause)) log(`run ${run.id} failed`, cause);
  const error = canceled
    ? { kind: 'aborted', message: 'The run was canceled.' }
    : IndusagiError.isInstance(cause)
      ? { kind: cause.kind, message: cause.message }
      : { kind: 'internal', message: 'Internal error' };
  const result: RunResult = { status: 'faulted', text: '', pendingApprovals: [], usage: zeroUsage() };
  return {
    status: canceled ? 'canceled' : 'faulted',
    terminal: { kind: 'faulted', error, snapshot: result, runId: run.id },
    result,
    error,
    thread: undefined,
  };
}

/**
 * A snapshot as the run's result and terminal event carry it: everything but the messages (the thread
 * has those), its usage with what earlier attempts were billed (`carried`).
 */
function resultOf(snapshot: RunSnapshot, carried: ModelUsage): RunResult {
  const result: RunResult = {
    status: snapshot.status,
    text: snapshot.text,
    pendingApprovals: snapshot.pendingApprovals,
    usage: plus(carried, snapshot.usage),
  };
  if (snapshot.output !== undefined) result.output = snapshot.output;
  return result;
}

function plus(a: ModelUsage, b: ModelUsage): ModelUsage {
  return sumUsage([a, b]);
}
