import type { PendingApproval, RunEvent, RunSnapshot } from '../runtime/contract/events.js';
import type { ModelInvoker } from '../runtime/contract/model.js';
import { WaitingCall, type CallerRun, type ToolContext, type ToolDefinition } from '../runtime/contract/tool.js';
import { defineConductor, openReusable, type ReusableConversation } from '../runtime/agent/definition.js';
import { callerOf, type AgentCaller, type CallerDeps } from '../runtime/agent/caller.js';
import { judge, outputRequest, type OutputRequest } from '../runtime/agent/structured-output.js';
import type { Agent, AgentConfig, AgentDefinition, SubmitOptions } from '../runtime/agent/types.js';
import { forwardRun, type Run } from '../runtime/agent/run.js';
import type { ApprovalDecision } from '../runtime/loop/types.js';
import { AgentDepthError, BudgetExceededError, RunFault } from '../runtime/loop/errors.js';
import { MemorySessionStore } from '../runtime/store/memory-store.js';
import type { SessionStoreLike } from '../runtime/store/types.js';
import { IndusagiError } from '../errors/index.js';
import { formatIssues, type SchemaLike } from '../schema/index.js';
import { ToolError } from '../runtime/tools/tool-error.js';
import { Slots } from './concurrency.js';
import { AgentToolError } from './errors.js';
import { childSessionId } from './session-id.js';
import { firstPrompt } from './turns.js';

/** How many calls of one agent tool run their sub-agents at once within one run, unless `concurrency` says otherwise. */
export const DEFAULT_AGENT_CONCURRENCY = 4;

/**
 * How deep a call of an agent tool may start its sub-agent, unless `maxDepth` says otherwise: the top
 * agent is depth 0, the agents it calls 1. An agent whose tools reach itself (a config listing its own
 * `agentTool`) would otherwise nest without end; eight levels is well past any tree made on purpose.
 */
export const DEFAULT_AGENT_DEPTH = 8;

export type AgentToolOptions = {
  /** The tool's name: what the model calls, and the sub-agent's step in the `path` of nested events and approvals. */
  name: string;
  /** What the model is told the sub-agent does. */
  description: string;
  /**
   * The tool's input (a Standard Schema or a JSON Schema). Default `{ prompt: string }`, the task in
   * words. With a schema of your own, the sub-agent's prompt is `prompt(input)`, or the input as JSON.
   */
  input?: SchemaLike;
  /** The sub-agent's prompt from the call's input (after the schema checked it). */
  prompt?: (input: any) => string;
  /** The sub-agent's answer must be one JSON value matching this schema; the tool result's `answer` is that value. */
  output?: SchemaLike;
  /** With a config: the sub-agent's model, when it is not the calling agent's invoker (which is asked for the config's `model`). */
  invokeModel?: ModelInvoker;
  /** At most this many calls of this tool run their sub-agent at once in one run; the rest wait their turn, in call order. Default 4. */
  concurrency?: number;
  /** When true, every call waits for approval before its sub-agent starts. */
  needsApproval?: boolean;
  /**
   * The deepest this tool starts its sub-agent (the top agent is depth 0, the agents it calls 1);
   * default 8. A call past it starts nothing and stops every run up the tree with an `AgentDepthError`
   * (fault `depth_exceeded`).
   */
  maxDepth?: number;
};

/** The tool result of a sub-agent call: the session it ran in, and its final answer (the `output` value, with `output`). */
export type AgentToolResult = { sessionId: string; answer: unknown };

const PROMPT_INPUT = {
  type: 'object',
  properties: {
    prompt: { type: 'string', description: 'The task, stated in full: the agent sees nothing else of this conversation.' },
  },
  required: ['prompt'],
  additionalProperties: false,
};

/**
 * An agent as a tool: each call runs the sub-agent in a session of its own (`<caller's session>.<call
 * id>`, named in the result), and its final answer is the tool result. Built from a config, the
 * sub-agent uses the calling agent's store, model invoker and telemetry (its own `model` id, system
 * prompt, tools and `limits`); built from an `Agent`, its own, one call at a time.
 *
 * The sub-agent's events reach the calling run as `nested` events; its approvals are the calling
 * agent's to decide (`pendingApprovals()` lists them with their path); its runs spend from the calling
 * run's `limits`. The call is resumable: run again after a crash, or to apply a decision, it resumes
 * the sub-agent's session where it stopped, so no settled step is redone and no tool call of the
 * sub-agent runs twice. See docs/subagents.md.
 */
export function agentTool(agent: AgentConfig | Agent, options: AgentToolOptions): ToolDefinition {
  const { name, description } = checkOptions(agent, options);
  const output = options.output === undefined ? undefined : outputRequest(options.output);
  const concurrency = options.concurrency ?? DEFAULT_AGENT_CONCURRENCY;
  const maxDepth = options.maxDepth ?? DEFAULT_AGENT_DEPTH;
  const promptOf = (input: any): string =>
    options.prompt !== undefined ? options.prompt(input) : options.input === undefined ? input.prompt : JSON.stringify(input, null, 2);
  // One run's sub-agents share its slots; the map forgets a run once its slots are idle.
  const slots = new Map<string, Slots>();
  // Without a store of the caller's, sub-agent sessions live here, for as long as the process.
  let memory: MemorySessionStore | undefined;
  // The sub-agent defined once per calling agent's definition (whose model, store and telemetry it
  // uses), with the conversations of it that finished a call and wait for the next: a call takes one
  // (or opens one when none is idle), resumes its own session in it, runs, and lets the session go.
  const definitions = new WeakMap<CallerDeps, { definition: AgentDefinition; idle: ReusableConversation[] }>();
  const definitionFor = (config: AgentConfig, deps: CallerDeps): { definition: AgentDefinition; idle: ReusableConversation[] } => {
    let defined = definitions.get(deps);
    if (defined === undefined) {
      const store: SessionStoreLike = deps.store ?? (memory ??= new MemorySessionStore());
      // Named for the tool unless it has a name of its own: telemetry calls its spans `invoke_agent <name>`.
      const definition = defineConductor(
        { name, ...config },
        // A config whose `model` is an invoker brings its own; an id is asked of the caller's invoker.
        {
          invokeModel: options.invokeModel ?? (typeof config.model === 'function' ? undefined : deps.invokeModel),
          store,
          telemetry: deps.telemetry,
        },
      );
      definitions.set(deps, (defined = { definition, idle: [] }));
    }
    return defined;
  };
  // At once for a config (nothing to wait for); an `Agent` waits its turn.
  const open = (caller: AgentCaller, sessionId: string): Opened | Promise<Opened> => {
    if (isAgent(agent)) return openShared(agent);
    const { definition, idle } = definitionFor(agent, caller.deps);
    const conversation = idle.pop() ?? openReusable(definition, sessionId);
    return {
      agent: conversation.agent,
      release: () =>
        conversation.letGo().then(() => {
          // Kept only once its session is let go of; as many as may run at once in one run.
          if (idle.length < concurrency) idle.push(conversation);
        }),
    };
  };

  async function execute(input: unknown, ctx: ToolContext): Promise<AgentToolResult | WaitingCall> {
    const caller = callerOf(ctx.caller);
    if (caller === undefined) throw new ToolError(`The ${name} agent runs only as a tool of an agent (its call has no caller).`);
    // Checked before anything is opened or spent, so a runaway recursion ends where it is found.
    if (caller.depth + 1 > maxDepth) throw new AgentDepthError(name, caller.depth + 1, maxDepth);
    const sessionId = childSessionId(caller.sessionId, ctx.callId);
    const prompt = promptOf(input);
    let runSlots = slots.get(caller.runId);
    if (runSlots === undefined) slots.set(caller.runId, (runSlots = new Slots(concurrency)));
    // A free slot is taken at once: only a call that waits for one awaits.
    const waited = runSlots.take(ctx.signal);
    if (waited !== undefined) await waited;
    try {
      const { agent: child, release } = await open(caller, sessionId);
      try {
        const standing = await child.resume(sessionId);
        const opts: SubmitOptions = { signal: ctx.signal, parent: caller, ...(options.output !== undefined && { output: options.output }) };
        const forward = (run: Run) => forwardEvents(child, run, caller, name, ctx.callId, sessionId);
        let snapshot: RunSnapshot;
        if (standing.messages.length === 0) {
          snapshot = await forward(child.submit(prompt, opts));
        } else {
          // The same call id in the same session is the same task; anything else is a collision, never resumed.
          if (firstPrompt(standing) !== prompt) {
            throw new ToolError(`Session ${sessionId} already holds another task of the ${name} agent; it was not touched.`);
          }
          // A decision on one of its calls goes first: its run also settles whatever else its batch left.
          const decision = decisionFor(ctx.callId, caller.decisions, standing.pendingApprovals);
          if (decision !== undefined) {
            const [approvalId, decided] = decision;
            snapshot = await forward(decided.approved ? child.approve(approvalId, opts) : child.reject(approvalId, decided.reason, opts));
          } else if (standing.status === 'interrupted') {
            snapshot = await forward(child.continue(opts));
          } else if (standing.status === 'waiting') {
            return new WaitingCall(standing.pendingApprovals);
          } else {
            snapshot = standing;
          }
        }
        if (snapshot.status === 'waiting') return new WaitingCall(snapshot.pendingApprovals);
        const answer = answerOf(snapshot, output, name);
        return { sessionId, answer: answer instanceof Promise ? await answer : answer };
      } catch (error) {
        throw stopped(error, caller, name, sessionId, ctx.signal);
      } finally {
        await release();
      }
    } finally {
      runSlots.give();
      if (runSlots.idle) slots.delete(caller.runId);
    }
  }

  async function waiting(callId: string, callerRun: CallerRun): Promise<PendingApproval[]> {
    const caller = callerOf(callerRun);
    if (caller === undefined) return [];
    const sessionId = childSessionId(caller.sessionId, callId);
    const { agent: child, release } = await open(caller, sessionId);
    try {
      // Its approvals, also beside a call a crash cut off (status interrupted): the run that decides one settles both.
      return (await child.resume(sessionId)).pendingApprovals;
    } finally {
      await release();
    }
  }

  const tool: ToolDefinition = {
    name,
    description,
    inputSchema: options.input ?? PROMPT_INPUT,
    execute,
    resumable: { waiting },
  };
  if (options.needsApproval === true) tool.needsApproval = true;
  return tool;
}

type Opened = { agent: Agent; release: () => Promise<void> };

// An `Agent` works on one session at a time: its calls take turns, each resuming its own session.
const turns = new WeakMap<Agent, Promise<void>>();

async function openShared(agent: Agent): Promise<Opened> {
  const before = turns.get(agent) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => (release = resolve));
  turns.set(
    agent,
    before.then(() => mine),
  );
  await before;
  return { agent, release: async () => release() };
}

/**
 * Forwards `run`'s events into the calling run as `nested` events, then returns its snapshot (or throws
 * its fault). Handed over as the run publishes them (`forwardRun`), a burst of events a turn of the
 * microtask queue, rather than read one by one as an async iterable: the calling run's log keeps every
 * one in order all the same.
 */
function forwardEvents(agent: Agent, run: Run, caller: AgentCaller, name: string, callId: string, sessionId: string): Promise<RunSnapshot> {
  const deliver = (event: RunEvent): void => {
    const up = nested(event, name, callId, sessionId);
    // A question asked at any depth is answered on the calling agent, which hands the answer down (each agent to the one below).
    if (up.event.kind === 'input_requested') {
      const { kind, runId, ...request } = up.event;
      caller.relayInput({ ...request, path: up.path }, (answer) => agent.answer(request.requestId, answer));
    } else if (up.event.kind === 'input_answered') {
      caller.inputSettled(up.event.requestId);
    }
    caller.publish(up);
  };
  const flush = forwardRun(run, deliver);
  if (flush === undefined) return readEvents(run, deliver);
  // Its last events (`settled` among them) are in the calling run before the call's result is.
  return run.then(
    (snapshot) => {
      flush();
      return snapshot;
    },
    (error: unknown) => {
      flush();
      throw error;
    },
  );
}

/** A run `forwardRun` cannot hand over (not one of this package's), read as the async iterable it is. */
async function readEvents(run: Run, deliver: (event: RunEvent) => void): Promise<RunSnapshot> {
  for await (const event of run) deliver(event);
  return await run;
}

function nested(event: RunEvent, name: string, callId: string, sessionId: string) {
  if (event.kind === 'nested') {
    return {
      kind: 'nested' as const,
      path: [name, ...event.path],
      calls: [callId, ...event.calls],
      sessionId: event.sessionId,
      event: event.event,
    };
  }
  return { kind: 'nested' as const, path: [name], calls: [callId], sessionId, event };
}

/** The decision this run applies to one of the sub-agent's waiting calls (ids as the sub-agent lists them). */
function decisionFor(
  callId: string,
  decisions: ReadonlyMap<string, ApprovalDecision> | undefined,
  pending: readonly PendingApproval[],
): [string, ApprovalDecision] | undefined {
  if (decisions === undefined) return undefined;
  for (const approval of pending) {
    const decision = decisions.get(`${callId}/${approval.approvalId}`);
    if (decision !== undefined) return [approval.approvalId, decision];
  }
  return undefined;
}

/** The call's answer: at once from the snapshot, or judged again (a promise) for a sub-agent that settled before a crash. */
function answerOf(snapshot: RunSnapshot, output: OutputRequest | undefined, name: string): unknown {
  if (output === undefined) return snapshot.text;
  if (snapshot.output !== undefined) return snapshot.output;
  return judgedAnswer(snapshot, output, name);
}

async function judgedAnswer(snapshot: RunSnapshot, output: OutputRequest, name: string): Promise<unknown> {
  // A sub-agent that settled before a crash: its answer is judged again from its text.
  const judged = await judge(output, snapshot.text);
  if (!judged.ok) throw new ToolError(`The ${name} agent's answer does not match its output schema:\n${formatIssues(judged.issues)}`);
  return judged.value;
}

/**
 * What a sub-agent's failure is to the calling run. A limit of a run above the sub-agent stops the
 * calling run too (the `BudgetExceededError` passes through), and so does a tree nested too deep (the
 * `AgentDepthError`: the calling agent would only call again); an abort of the calling run passes
 * through; any other fault (the sub-agent's own limits among them) is the call's error result, naming
 * the session so it can be looked into.
 */
function stopped(error: unknown, caller: AgentCaller, name: string, sessionId: string, signal: AbortSignal): unknown {
  const cause = RunFault.isInstance(error) ? error.cause : error;
  if (BudgetExceededError.isInstance(cause) && caller.budget?.covers(cause.budget)) return cause;
  if (AgentDepthError.isInstance(cause)) return cause;
  if (signal.aborted || ToolError.isInstance(error)) return error;
  if (RunFault.isInstance(error))
    return new ToolError(`The ${name} agent stopped (${error.kind}): ${error.message} Its session: ${sessionId}.`, { cause: error });
  if (IndusagiError.isInstance(error)) return new ToolError(`The ${name} agent could not run: ${error.message}`, { cause: error });
  return error;
}

function isAgent(agent: AgentConfig | Agent): agent is Agent {
  return typeof (agent as Agent).submit === 'function' && typeof (agent as Agent).resume === 'function';
}

function checkOptions(agent: AgentConfig | Agent, options: AgentToolOptions): { name: string; description: string } {
  if (typeof agent !== 'object' || agent === null) throw new AgentToolError('agentTool needs an agent config or an Agent.');
  const model = isAgent(agent) ? undefined : agent.model;
  if (!isAgent(agent) && typeof model !== 'function' && (typeof model !== 'string' || model.trim() === '')) {
    throw new AgentToolError('agentTool: the agent config needs a `model` (an id or an invoker).');
  }
  const { name, description, concurrency, maxDepth } = options ?? ({} as AgentToolOptions);
  if (typeof name !== 'string' || name === '') throw new AgentToolError('agentTool: `name` must be a non-empty string.');
  if (typeof description !== 'string' || description.trim() === '')
    throw new AgentToolError(`agentTool ${name}: \`description\` must be a non-empty string.`);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw new AgentToolError(`agentTool ${name}: \`concurrency\` must be a positive integer, got ${String(concurrency)}.`);
  }
  if (maxDepth !== undefined && !(Number.isInteger(maxDepth) && maxDepth >= 1)) {
    throw new AgentToolError(`agentTool ${name}: \`maxDepth\` must be a positive integer, got ${String(maxDepth)}.`);
  }
  if (options.prompt !== undefined && typeof options.prompt !== 'function')
    throw new AgentToolError(`agentTool ${name}: \`prompt\` must be a function.`);
  return { name, description };
}
