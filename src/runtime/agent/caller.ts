import type { RunEventBody } from '../contract/events.js';
import type { CallerRun, InputAnswer } from '../contract/tool.js';
import type { InputRequest } from './input-requests.js';
import type { RunBudget } from '../budget/run-budget.js';
import type { ApprovalDecision } from '../loop/types.js';
import type { RunScope } from './run-scope.js';
import type { ConductorDeps } from './types.js';

/** What a sub-agent is built from when its caller's are used: the model, the store and the telemetry. */
export type CallerDeps = Pick<ConductorDeps, 'invokeModel' | 'store' | 'telemetry'>;

/** An event of a sub-agent's run, before the caller's run stamps it with its own id. */
export type NestedEventBody = Extract<RunEventBody, { kind: 'nested' }>;

/**
 * What an agent hands every tool call as `ToolContext.caller`, and a resumable tool when the agent asks
 * what a call waits on: beyond the session and run ids every tool sees, what a tool that runs an agent
 * of its own needs from the run that called it (`callerOf`; `agentTool` reads it).
 */
export class AgentCaller implements CallerRun {
  constructor(
    readonly sessionId: string,
    readonly runId: string,
    /** What the calling agent was built from, before telemetry decorated it: a sub-agent is built from the same. */
    readonly deps: CallerDeps,
    /** The run's budget, which a sub-agent's run spends from too (`SubmitOptions.parent`); undefined without limits. */
    readonly budget: RunBudget | undefined,
    /** The decisions the run applies, by approval id: a decision on a sub-agent's call travels down to it. */
    readonly decisions: ReadonlyMap<string, ApprovalDecision> | undefined,
    private readonly scope: RunScope | undefined,
    /** How deep the run is in its tree of agents: 0 for a top run, its sub-agents' 1, theirs 2. */
    readonly depth: number = 0,
  ) {}

  /**
   * Puts an event of a sub-agent's run into the calling run: its `Run` stream and the agent's
   * subscribers. The body is made for this call (agentTool builds one per event), so it is stamped
   * with the calling run's id as it is, not copied.
   */
  publish(event: NestedEventBody): void {
    const stamped = event as NestedEventBody & { runId: string };
    stamped.runId = this.runId;
    this.scope?.publish(stamped);
  }

  /** True when someone would see an event of the calling run now (its `Run` read, its agent subscribed to, or its own caller watched). */
  get watched(): boolean {
    return this.scope?.watched ?? false;
  }

  /** True when the calling run's questions have someone to answer them (up the tree): then a sub-agent's have too. */
  get listened(): boolean {
    return this.scope?.inputs.heard ?? false;
  }

  /**
   * A sub-agent's question, asked in its run: the calling agent lists it (`pendingInputs()`, with its
   * `path`) and `answer` on the calling agent passes the answer down to `answer`.
   */
  relayInput(request: InputRequest, answer: (answer: InputAnswer) => void): void {
    this.scope?.inputs.relay(request, answer);
  }

  /** The sub-agent's question was answered, or its run ended. */
  inputSettled(requestId: string): void {
    this.scope?.inputs.settled(requestId);
  }
}

/** The `AgentCaller` behind a tool call's (or a run's `parent`) `caller`, when an agent made it. */
export function callerOf(caller: CallerRun | undefined): AgentCaller | undefined {
  return caller instanceof AgentCaller ? caller : undefined;
}
