import type { RunEvent, RunSnapshot } from '../runtime/contract/events.js';
import type { MemoryRecord } from '../memory/types.js';
import { approvalResult, isHeldApproval } from '../tools/approvals.js';
import type { AgentPart } from './types.js';
import { PartQueue } from './queue.js';

/** The part of an `Agent` the adapter uses. */
export type AgentLike = { subscribe(handler: (event: RunEvent) => void): () => void };

// An agent's events carry no run id, so two runs streamed at once could not be told apart: runs
// started through agentRunParts on one agent wait for each other, each stream getting only its own.
const lastRunOf = new WeakMap<AgentLike, Promise<void>>();

/**
 * The events of one agent run, from the moment `start` begins it until it settles. `start` begins
 * the run (`() => agent.submit(prompt, { signal })`, `() => agent.approve(id)`); its rejection (a
 * `RunFault`) is thrown after the events before it, and the generator returns the run's snapshot.
 * Runs streamed through this (and `agentRunParts`) on one agent wait for each other: an agent's
 * events carry no run id. Don't start runs on the same agent by other means while a stream is open.
 */
export async function* agentRunEvents(
  agent: AgentLike,
  start: () => Promise<RunSnapshot>,
): AsyncGenerator<RunEvent, RunSnapshot, undefined> {
  const previous = lastRunOf.get(agent) ?? Promise.resolve();
  let release!: () => void;
  const finished = new Promise<void>((resolve) => {
    release = resolve;
  });
  lastRunOf.set(agent, finished);
  let started = false;
  try {
    await previous;
    const events = new PartQueue<RunEvent>();
    const unsubscribe = agent.subscribe((event) => events.push(event));
    let snapshot: RunSnapshot | undefined;
    const run = Promise.resolve()
      .then(start)
      .then(
        (result) => {
          snapshot = result;
          events.close();
        },
        (error: unknown) => events.fail(error),
      )
      .finally(() => {
        unsubscribe();
        // The next stream may begin only when this run is over, even if its consumer left early.
        release();
      });
    started = true;
    yield* events;
    await run;
    return snapshot!;
  } finally {
    if (!started) release();
  }
}

/**
 * The parts of one agent run: text deltas, a tool part per finished call, a tool part with
 * `approvalId` per call waiting for approval (its later result has the same `callId`), and context
 * parts. This is the one translation from `RunEvent`s to `AgentPart`s: `runAgent` and the part-stream
 * transport both use it. `start` and the waiting are as for `agentRunEvents`.
 */
export async function* agentRunParts(
  agent: AgentLike,
  start: () => Promise<RunSnapshot>,
): AsyncGenerator<AgentPart, RunSnapshot, undefined> {
  const events = agentRunEvents(agent, start);
  let step = await events.next();
  try {
    while (!step.done) {
      const part = partOfEvent(step.value);
      if (part !== null) yield part;
      step = await events.next();
    }
    return step.value;
  } finally {
    // A consumer that leaves early closes the events too, which stops listening to the agent.
    if (!step.done) await events.return(undefined as never);
  }
}

/**
 * The part `event` becomes, or null. A call the agent holds (`approval_requested`) and one a toolset
 * holds (`toToolset` with `needsApproval`) make the same part: its result from `approvalResult`, and
 * `approvalId`. A result is an approval request only when somebody really holds that call: a tool
 * returning the same shape of JSON (a fetched page, say) cannot make a part that approves somebody
 * else's call.
 */
export function partOfEvent(event: RunEvent): AgentPart | null {
  switch (event.kind) {
    case 'text_delta':
      return { type: 'text', text: event.delta };
    case 'approval_requested':
      return {
        type: 'tool',
        name: event.name,
        callId: event.callId,
        input: event.input,
        result: approvalResult(event),
        approvalId: event.approvalId,
      };
    case 'tool_finished': {
      const part: AgentPart = { type: 'tool', name: event.name, callId: event.callId, input: event.input, result: event.result };
      if (event.isError) part.isError = true;
      if (isHeldApproval(event.result)) part.approvalId = event.result.actionId;
      return part;
    }
    case 'context': {
      const part: AgentPart = { type: 'context', source: event.source, op: event.op };
      if (event.records !== undefined) part.records = event.records as MemoryRecord[];
      if (event.tools !== undefined) part.tools = event.tools;
      if (event.tokens !== undefined) part.tokens = event.tokens;
      return part;
    }
    default:
      return null;
  }
}
