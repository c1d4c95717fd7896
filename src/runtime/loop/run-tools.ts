import type { ToolCallBlock, ToolResultBlock } from '../contract/turn.js';
import type { ToolContext, ToolProgress } from '../contract/tool.js';
import type { PendingApproval } from '../contract/events.js';
import type { AbortRace } from './abort.js';
import { callStanding, nestedApprovals, toPendingApproval } from './batch.js';
import {
  ABORTED_RESULT,
  INTERRUPTED_RESULT,
  admitCalls,
  errorOutcome,
  executeCall,
  type Admission,
  type CallOutcome,
  type RunStop,
} from './tool-call.js';
import type { LoopInput } from './types.js';

/**
 * Answers what it can of a batch of tool calls and appends the answers as ONE user turn, in call order.
 * Right after the model asked (`fresh`), calls run unless their tool needs approval. Later (approving,
 * or a session picked up after a crash), a call runs only with an approval, or again when it may have
 * run already and its tool is idempotent; one that may have run otherwise is answered as interrupted,
 * and one that needs approval and never started keeps waiting (see `callStanding`). Approved calls are
 * marked started, durably, before they run. Returns the calls still waiting: those that need a
 * decision, and the approvals a resumable call (a sub-agent) waits on, which leave that call without a
 * result. On abort, every call still unanswered gets an `aborted` error result before it rethrows, so
 * the context never ends with a call that has no result and no one waiting on it. The run's budget is
 * asked before any call starts; when it (or a sub-agent's call meeting it) stops the run, the calls
 * that could not run get an error result saying so, except resumable ones, which stay open to pick up.
 */
export async function settleBatch(calls: ToolCallBlock[], input: LoopInput, fresh: boolean, abort: AbortRace): Promise<PendingApproval[]> {
  const { tools, signal, emit, runId } = input;
  const outcomes: Array<CallOutcome | undefined> = new Array(calls.length);
  const runnable: number[] = [];
  // Approved calls and calls run again: each start is durable before the call runs.
  const starting: string[] = [];
  const pending: PendingApproval[] = [];
  const startsOf = input.durability?.startsOf ?? neverStarted;
  // Synchronous unless a schema validates asynchronously: no await (and no turn of the queue) for nothing.
  const admissions = admitCalls(calls, input.tools);
  const admitted = admissions instanceof Promise ? await admit(admissions, calls, input, abort) : admissions;
  // The input each admitted call runs with: its schema's output, which may differ from what the model sent.
  const inputs: unknown[] = new Array(calls.length);

  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    const admission = admitted[i];
    if ('input' in admission) inputs[i] = admission.input;
    if ('refusal' in admission) {
      outcomes[i] = finish(call, errorOutcome(call, admission.refusal), input);
    } else if (fresh && !tools.needsApproval(call.name)) {
      runnable.push(i);
    } else {
      const decision = input.decisions?.get(call.id);
      const standing = fresh ? 'pending' : callStanding(call, tools, startsOf);
      if (decision !== undefined && decision.approved) {
        runnable.push(i);
        starting.push(call.id);
      } else if (decision !== undefined) {
        outcomes[i] = finish(call, errorOutcome(call, rejectionMessage(decision.reason)), input);
      } else if (standing === 'pending') {
        pending.push(toPendingApproval(call));
      } else if (standing === 'rerun') {
        runnable.push(i);
        starting.push(call.id);
      } else {
        outcomes[i] = finish(call, errorOutcome(call, INTERRUPTED_RESULT), input);
      }
    }
  }
  if (input.checkCalls !== undefined) {
    // Right after the reply every call not refused runs or waits for approval; later, only those that run.
    const checked = calls.flatMap((call, i) =>
      (fresh ? outcomes[i] === undefined : runnable.includes(i)) ? [{ callId: call.id, name: call.name, input: inputs[i] }] : [],
    );
    try {
      await abort.race(input.checkCalls(checked));
    } catch (error) {
      for (let i = 0; i < calls.length; i++) outcomes[i] ??= finish(calls[i], errorOutcome(calls[i], ABORTED_RESULT), input);
      appendResults(outcomes, input);
      throw error;
    }
  }
  if (fresh) {
    for (const p of pending)
      emit({ kind: 'approval_requested', approvalId: p.approvalId, name: p.name, callId: p.callId, input: p.input, runId });
  }
  if (runnable.length > 0 && input.budget !== undefined) {
    // A resumable call run again goes on with work it already counted; every other start is one more call.
    const starts = runnable.filter((i) => fresh || tools.resumable(calls[i].name) === undefined).length;
    try {
      input.budget.toolCalls(starts);
    } catch (error) {
      for (const i of runnable)
        if (tools.resumable(calls[i].name) === undefined || fresh)
          outcomes[i] = finish(calls[i], errorOutcome(calls[i], notRun(error)), input);
      appendResults(outcomes, input);
      throw error;
    }
  }
  if (starting.length > 0 && input.durability !== undefined) {
    // Durable before the first of them starts: after a crash they may have run, and must not be approved or re-run again.
    input.durability.markStarted(starting);
    await input.durability.checkpoint();
  }

  if (runnable.length > 0) {
    // Once the run is aborted, late finishers must not touch the answers already written down.
    let closed = false;
    const stops: RunStop[] = [];
    const runOne = async (i: number) => {
      if (closed) return;
      const call = calls[i];
      const started = { kind: 'tool_started', name: call.name, callId: call.id, input: call.input, runId } as const;
      emit(started);
      // A call that will not run again after a crash: its start is stored (where the host keeps events) before it runs.
      if (input.beforeToolRuns !== undefined && !tools.idempotent(call.name) && tools.resumable(call.name) === undefined) {
        await input.beforeToolRuns(started);
        if (closed) return;
      }
      // Progress after the call's answer is written down (a late notification) would follow its `tool_finished`.
      const progress = (update: ToolProgress): void => {
        if (!closed && outcomes[i] === undefined)
          emit({ kind: 'tool_progress', name: call.name, callId: call.id, ...progressOf(update), runId });
      };
      const ctx: ToolContext = { signal, callId: call.id, progress };
      if (input.caller !== undefined) ctx.caller = input.caller;
      if (input.ask !== undefined) {
        const ask = input.ask;
        ctx.ask = (question) => ask(call.id, call.name, question);
      }
      const end = await executeCall(call, inputs[i], tools, ctx);
      if (closed) return;
      if ('stop' in end) {
        stops.push(end.stop);
        if (tools.resumable(call.name) === undefined) outcomes[i] = finish(call, errorOutcome(call, notRun(end.stop)), input);
      } else if ('waiting' in end) {
        const nested = nestedApprovals(call, end.waiting);
        pending.push(...nested);
        emit({ kind: 'call_waiting', callId: call.id, pending: nested });
      } else {
        outcomes[i] = finish(call, end, input);
      }
    };
    // One call (most steps) needs neither an array of promises nor Promise.all around it.
    const all: Promise<unknown> =
      runnable.length === 1 ? runOne(runnable[0]) : input.sequential ? runInOrder(runnable, runOne) : Promise.all(runnable.map(runOne));
    try {
      await abort.race(all);
    } catch (error) {
      closed = true;
      for (let i = 0; i < calls.length; i++) outcomes[i] ??= finish(calls[i], errorOutcome(calls[i], ABORTED_RESULT), input);
      appendResults(outcomes, input);
      throw error;
    }
    if (stops.length > 0) {
      // Every other call of the batch has settled: their results are kept, then the run stops.
      appendResults(outcomes, input);
      throw stops[0];
    }
  }
  appendResults(outcomes, input);
  return pending;
}

/** The result of a call the run's budget kept from running (or stopped while it ran a sub-agent). */
function notRun(error: unknown): string {
  return `Not run: ${error instanceof Error ? error.message : String(error)}`;
}

/** Every call's admission once a schema validated asynchronously (see `admitCalls`); an abort meanwhile closes the batch as aborted. */
async function admit(admitted: Promise<Admission[]>, calls: ToolCallBlock[], input: LoopInput, abort: AbortRace): Promise<Admission[]> {
  try {
    return await abort.race(admitted);
  } catch (error) {
    abortBatch(calls, input);
    throw error;
  }
}

/** Closes a batch without running anything: every unanswered call gets an `aborted` error result. */
export function abortBatch(calls: ToolCallBlock[], input: LoopInput): void {
  appendResults(
    calls.map((call) => finish(call, errorOutcome(call, ABORTED_RESULT), input)),
    input,
  );
}

export function rejectionMessage(reason: string | undefined): string {
  return reason ? `The user rejected this tool call. Reason: ${reason}` : 'The user rejected this tool call.';
}

function finish(call: ToolCallBlock, outcome: CallOutcome, input: LoopInput): CallOutcome {
  input.emit({
    kind: 'tool_finished',
    name: call.name,
    callId: call.id,
    input: call.input,
    result: outcome.result,
    isError: outcome.isError,
    runId: input.runId,
  });
  return outcome;
}

function appendResults(outcomes: Array<CallOutcome | undefined>, input: LoopInput): void {
  const blocks: ToolResultBlock[] = [];
  for (const outcome of outcomes) if (outcome !== undefined) blocks.push(outcome.block);
  if (blocks.length === 0) return;
  input.append({ role: 'user', blocks });
}

/** A tool's progress report as an event's fields: numbers checked, nothing else of the object taken. */
function progressOf(update: ToolProgress): { progress: number; total?: number; message?: string } {
  const progress = typeof update?.progress === 'number' && Number.isFinite(update.progress) ? update.progress : 0;
  const fields: { progress: number; total?: number; message?: string } = { progress };
  if (typeof update?.total === 'number' && Number.isFinite(update.total)) fields.total = update.total;
  if (typeof update?.message === 'string') fields.message = update.message;
  return fields;
}

async function runInOrder(indexes: number[], run: (i: number) => Promise<void>): Promise<void> {
  for (const i of indexes) await run(i);
}

function neverStarted(): number {
  return 0;
}
