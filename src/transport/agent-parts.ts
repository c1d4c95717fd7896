import type { Agent } from '../runtime/contract/agent.js';
import type { RunEvent, RunSnapshot } from '../runtime/contract/events.js';
import type { AgentPart } from '../parts/types.js';
import type { MemoryRecord } from '../memory/types.js';
import { PartQueue } from '../providers/anthropic/part-queue.js';

/** The part of an `Agent` the adapter uses. */
export type AgentLike = Pick<Agent, 'subscribe' | 'pendingApprovals'>;

// An agent's events carry no run id, so two runs streamed at once could not be told apart: runs
// started through agentRunParts on one agent wait for each other, each stream getting only its own.
const lastRunOf = new WeakMap<AgentLike, Promise<void>>();

/**
 * The parts of one `createAgent` run, as `runAgent` would yield them: text deltas, a tool part per
 * finished call, a tool part with `approvalId` per call waiting for approval (its later result has the
 * same `callId`), and context parts. `start` begins the run (`() => agent.submit(prompt, { signal })`,
 * `() => agent.approve(id)`); its rejection (a `RunFault`) is thrown after the parts before it.
 * Don't start runs on the same agent outside this adapter while a stream is open.
 */
export async function* agentRunParts(agent: AgentLike, start: () => Promise<RunSnapshot>): AsyncGenerator<AgentPart, RunSnapshot, undefined> {
  const previous = lastRunOf.get(agent) ?? Promise.resolve();
  let release!: () => void;
  const finished = new Promise<void>((resolve) => {
    release = resolve;
  });
  lastRunOf.set(agent, finished);
  let started = false;
  try {
    await previous;
    const parts = new PartQueue<AgentPart>();
    // Calls decided now (approve/reject) were requested by an earlier run; their inputs come from there.
    const inputs = new Map<string, unknown>(agent.pendingApprovals().map((p) => [p.callId, p.input]));
    const unsubscribe = agent.subscribe((event) => {
      const part = partOf(event, inputs);
      if (part !== null) parts.push(part);
    });
    let snapshot: RunSnapshot | undefined;
    const run = Promise.resolve()
      .then(start)
      .then(
        (result) => {
          snapshot = result;
          parts.close();
        },
        (error: unknown) => parts.fail(error),
      )
      .finally(() => {
        unsubscribe();
        // The next stream may begin only when this run is over, even if its consumer left early.
        release();
      });
    started = true;
    yield* parts;
    await run;
    return snapshot!;
  } finally {
    if (!started) release();
  }
}

function partOf(event: RunEvent, inputs: Map<string, unknown>): AgentPart | null {
  switch (event.kind) {
    case 'text_delta':
      return { type: 'text', text: event.delta };
    case 'tool_started':
      inputs.set(event.callId, event.input);
      return null;
    case 'approval_requested':
      inputs.set(event.callId, event.input);
      return {
        type: 'tool',
        name: event.name,
        callId: event.callId,
        input: event.input,
        result: { status: 'pending_approval', actionId: event.approvalId },
        approvalId: event.approvalId,
      };
    case 'tool_finished': {
      const part: AgentPart = { type: 'tool', name: event.name, callId: event.callId, input: inputs.get(event.callId), result: event.result };
      if (event.isError) part.isError = true;
      return part;
    }
    case 'context': {
      const part: AgentPart = { type: 'context', source: event.source, op: event.op };
      if (event.records !== undefined) part.records = event.records as MemoryRecord[];
      if (event.tools !== undefined) part.tools = event.tools;
      return part;
    }
    default:
      return null;
  }
}
