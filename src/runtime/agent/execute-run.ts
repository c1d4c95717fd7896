import type { FaultKind, RunSnapshot, RunStatus } from '../contract/events.js';
import type { ModelCard, ModelInvoker, ModelReply, ModelUsage } from '../contract/model.js';
import type { ResolvedModel } from '../models/resolve.js';
import type { Condensation, StepInput } from '../contract/step.js';
import type { PromptBlock, Turn } from '../contract/turn.js';
import type { RunLedger } from '../ledger/ledger.js';
import { runLoop, settleOpenBatch } from '../loop/run-loop.js';
import { lastAssistantText, lastUserText, openBatch } from '../loop/batch.js';
import { RunAbortedError, RunFault, faultKindOf } from '../loop/errors.js';
import type { ApprovalDecision, LoopDurability, LoopEvent, LoopInput, LoopTools } from '../loop/types.js';
import type { RunControls } from '../loop/controls.js';
import { isPromptTooLongError } from '../compaction/prompt-too-long.js';
import { summaryBody } from '../compaction/summary-turn.js';
import type { ContextReport } from '../contract/context.js';
import { errorMessage } from '../../errors/index.js';
import { zeroUsage } from '../usage/sum.js';
import { beginContextRun, type ContextRun } from './context-run.js';
import type { CondensationStep } from './condensation-step.js';
import { CheckpointError } from './errors.js';
import type { RunScope } from './run-scope.js';
import type { AgentSession, Billing } from './session.js';
import type { SessionSlot } from './session-slot.js';
import { composeStepHook } from './step-hook.js';
import { RunGuard } from './guardrails.js';
import { PartialOutput, settleOutput, type OutputRequest } from './structured-output.js';
import { contextEvent, snapshotOf, standingOf } from './standing.js';
import type { AgentConfig, CondenseOutcome } from './types.js';
import type { RunLimits } from '../contract/limits.js';
import type { CallerRun } from '../contract/tool.js';
import type { CallerDeps } from './caller.js';
import { runDelegation } from './delegation.js';
import type { Handoffs } from './handoffs.js';
import { noteCall } from './waiting-calls.js';

/** What the runs of one agent share: its settings, its session and what carries over from run to run. */
export type AgentCore = {
  readonly config: AgentConfig;
  readonly card: ModelCard;
  readonly maxSteps: number;
  /** The agent's tools as the loop runs them (history recall's gated). */
  readonly tools: LoopTools;
  readonly invoke: ModelInvoker;
  readonly ledger: RunLedger;
  readonly sessions: SessionSlot;
  /** Behind `condense()`; asked before every call too when `automatic`. */
  readonly condensation: CondensationStep;
  readonly automatic: boolean;
  /** What the agent was built from, before telemetry decorated it: its sub-agents are built from it too. */
  readonly origin: CallerDeps;
  /** The agents the conversation may be handed to, and which has it (`config.handoffs`). */
  readonly handoffs: Handoffs | undefined;
  /** What a run leaves for the next run of the same session. */
  readonly carried: {
    /** The `output` request of a run that stopped waiting for approvals: the run deciding them answers it. */
    output?: OutputRequest;
    /** The last reply and what it was sent: the next run's first step calibrates from it. */
    previous?: StepInput['previous'];
  };
};

/** What one run is asked to do besides its prompt. */
export type RunPlan = {
  /** The prompt's text; null for a run without a new prompt (`approve`, `reject`, `continue`). */
  prompt: string | null;
  /** A prompt's content blocks, when it has more than text. */
  content?: PromptBlock[];
  /** Reads the session before the run starts; returns the decisions it applies, or throws to refuse it. */
  admit: (session: AgentSession) => ReadonlyMap<string, ApprovalDecision> | undefined;
  controls: RunControls;
  output?: OutputRequest;
  /** The model for this run, when it is not the agent's (`submit(prompt, { model })`). */
  model?: ResolvedModel;
  /** The run's limits (the config's, overridden by the run's own). */
  limits?: RunLimits;
  /** The sub-agent call this run is made for: it spends from that run's budget too. */
  parent?: CallerRun;
};

/** What a run is asked with beyond what it does (`SubmitOptions`, resolved). */
export type RunOptions = 'controls' | 'output' | 'model' | 'limits' | 'parent';

type Failure = { kind: FaultKind; error: unknown };

/**
 * One run, start to end: answers the calls an earlier run left open, adds the prompt, drives the
 * loop with the per-step hook composed of the context manager, condensation and `config.prepareStep`,
 * gets a structured answer when asked, and makes every settled step durable as it goes (see
 * `LoopDurability`): a crash loses at most the step in flight. Resolves with the final snapshot, or
 * rejects with `RunFault` after publishing `faulted`.
 */
export async function executeRun(core: AgentCore, scope: RunScope, plan: RunPlan): Promise<RunSnapshot> {
  const session = await openForRun(core, scope, plan.prompt);
  const decisions = plan.admit(session);
  const guard = RunGuard.of(core, scope, session);
  const output = plan.output ?? core.carried.output;
  core.carried.output = undefined;
  let answer: { value: unknown } | undefined;
  scope.publish({ kind: 'run_started', sessionId: session.id, prompt: plan.prompt, runId: scope.runId });

  let contextRun: ContextRun | undefined;
  const report = (parts: ContextReport[]): void => {
    for (const part of parts) scope.publish(contextEvent(part, scope.runId));
  };
  // What the run's context turn holds (recalled memory, loaded tools), announced once, before its first model call.
  let announced = false;
  const announcePrepared = (): void => {
    if (announced || contextRun === undefined) return;
    announced = true;
    report(contextRun.prepared);
  };
  const durability = durabilityOf(session, scope.signal);
  const { budget, caller } = runDelegation(core.origin, scope, session, plan, decisions);
  // With `output`, the answer's JSON as it streams, published as `partial_output`.
  const partial =
    output === undefined ? undefined : new PartialOutput((value) => scope.publish({ kind: 'partial_output', value, runId: scope.runId }));
  const base: LoopInput = {
    runId: scope.runId,
    model: plan.model?.modelId ?? core.card.id,
    system: core.config.system,
    providerOptions: core.config.providerOptions,
    controls: plan.controls,
    responseFormat: output?.responseFormat,
    maxOutputTokens: (plan.model?.card ?? core.card).maxOutputTokens,
    maxSteps: core.maxSteps,
    context: session.context,
    invoke: plan.model?.invoker ?? core.invoke,
    tools: core.tools,
    sequential: core.config.sequential,
    decisions,
    signal: scope.signal,
    durability,
    budget,
    caller,
    checkCalls: guard?.checkCalls,
    previous: core.carried.previous,
    ask: (callId, name, question) => scope.inputs.ask(callId, name, question),
    append: (turn, reply) =>
      // The model that spoke: an agent the conversation was handed to speaks with its own.
      session.append(
        turn,
        reply === undefined ? undefined : billReply(scope, reply, core.handoffs?.model ?? plan.model?.modelId ?? core.card.id),
      ),
    condense(condensation) {
      applyCondensation(core, scope, session, condensation);
      // The context turn was prepared again on the condensed messages: what it holds now is announced after `compacted`.
      announcePrepared();
    },
    emit(event: LoopEvent) {
      if (noteCall(session, event)) return;
      if (partial !== undefined) partial.see(event);
      if (event.kind === 'step') {
        // A snapshot copies the whole context; nobody listening means nobody pays for it.
        if (scope.watched)
          scope.publish({
            kind: 'snapshot',
            snapshot: snapshotOf(session.id, session.context, 'running', scope.usage),
            runId: scope.runId,
          });
        return;
      }
      scope.publish(event);
      if (event.kind === 'tool_finished' && contextRun !== undefined) report(contextRun.takeParts(event.callId));
    },
  };

  let failure: Failure | undefined;
  try {
    if (plan.prompt !== null) {
      // Calls an earlier run left cut off are answered (or re-run) first: their results must come before the prompt.
      await settleOpenBatch(base);
      session.append({ role: 'user', blocks: plan.content ?? [{ kind: 'text', text: plan.prompt }] });
      await durability?.checkpoint();
    }
    await guard?.checkPrompt();
    if (plan.prompt !== null || hasWorkToContinue(session.context)) {
      let input = base;
      const manager = core.config.context;
      if (manager !== undefined) {
        contextRun = await beginContextRun({
          manager,
          prompt: plan.prompt ?? lastUserText(session.context),
          messages: session.context,
          system: core.config.system,
          tools: core.tools,
        });
        if (contextRun.compacted !== session.context) {
          // The manager's own history compaction: a session that records nothing takes it as it is.
          session.replace(contextRun.compacted);
          await durability?.checkpoint();
        }
        input = { ...base, system: contextRun.system, volatileSystem: contextRun.volatileSystem, tools: contextRun.tools };
      }
      // Tool names sanitized turn by turn, kept from the last run: a long conversation is not converted again.
      input.view = session.modelView(input.tools.names);
      const hook = composeStepHook({
        handoff: core.handoffs?.step((event) => scope.publish({ ...event, runId: scope.runId })),
        context: contextRun,
        condensation: core.automatic ? core.condensation : undefined,
        user: core.config.prepareStep,
      });
      input.prepareStep =
        hook === undefined
          ? undefined
          : async (step) => {
              const overrides = await hook(step);
              if (overrides?.condensation === undefined) announcePrepared();
              return overrides;
            };
      let outcome = await runLoop(input);
      announcePrepared();
      core.carried.previous = outcome.previous;
      if (output !== undefined && outcome.status === 'settled') {
        answer = await settleOutput(output, session.context, async (repair) => {
          session.append(repair);
          await durability?.checkpoint();
          outcome = await runLoop({ ...input, decisions: undefined, previous: core.carried.previous });
          core.carried.previous = outcome.previous;
          return outcome.status;
        });
      }
      if (output !== undefined && outcome.status === 'waiting') core.carried.output = output;
      if (outcome.status === 'settled') await guard?.checkAnswer(session.context, answer);
      // Write-backs belong to a finished turn; a waiting one finishes in the run that decides it.
      if (contextRun !== undefined && outcome.status === 'settled') {
        report(await contextRun.finish(session.context, lastAssistantText(session.context)));
      }
    }
  } catch (error) {
    // "Prompt is too long" arrives as a plain 400; it is still an overflow, whatever condensation could do.
    failure = (await guard?.failureOf()) ?? { kind: isPromptTooLongError(error) ? 'context_overflow' : faultKindOf(error), error };
  }
  return finishRun(core, scope, session, failure, answer);
}

/** `condense()`: a run that makes one forced condensation and nothing else. */
export async function condenseRun(core: AgentCore, scope: RunScope): Promise<CondenseOutcome> {
  const session = await openForRun(core, scope, null);
  scope.publish({ kind: 'run_started', sessionId: session.id, prompt: null, runId: scope.runId });
  let compacted: CondenseOutcome['compacted'] = null;
  let failure: Failure | undefined;
  try {
    const condensation = await core.condensation.condenseNow(session.context, scope.signal);
    if (condensation !== null) compacted = applyCondensation(core, scope, session, condensation);
  } catch (error) {
    failure = { kind: faultKindOf(error), error };
  }
  return { compacted, snapshot: await finishRun(core, scope, session, failure) };
}

/**
 * Opens the session for a run; a failure is the run's `store_error` fault. An abort ends the wait (a
 * store that hangs must not hold the run): the opening goes on, and the next run picks it up.
 */
async function openForRun(core: AgentCore, scope: RunScope, prompt: string | null): Promise<AgentSession> {
  try {
    return await untilAborted(core.sessions.open(), scope.signal);
  } catch (error) {
    if (core.sessions.closed) throw error;
    scope.publish({ kind: 'run_started', sessionId: core.sessions.id, prompt, runId: scope.runId });
    const kind = RunAbortedError.isInstance(error) ? 'aborted' : 'store_error';
    throw fault(scope, kind, error, snapshotOf(core.sessions.id, [], 'faulted', scope.usage));
  }
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

/**
 * Records a condensation in the session (refused there when it cannot be recorded, before anything
 * is announced), bills the summarizer to the run, makes the dropped turns searchable and publishes
 * `compacted`.
 */
function applyCondensation(core: AgentCore, scope: RunScope, session: AgentSession, condensation: Condensation) {
  const dropped = session.condense(condensation, billed(core, condensation.usage));
  // What the next run would calibrate from was sent before this change; it no longer describes the context.
  core.carried.previous = undefined;
  if (condensation.usage !== undefined) scope.spend(condensation.usage);
  core.sessions.condensed(dropped);
  const event = {
    kind: 'compacted' as const,
    removed: condensation.keptFrom,
    summary: summaryBody(condensation.summary),
    tokensBefore: condensation.tokensBefore ?? 0,
    tokensAfter: condensation.tokensAfter ?? 0,
    runId: scope.runId,
    ...(session.durable && { dropped: dropped.map((node) => node.id) }),
  };
  scope.publish(event);
  return event;
}

/** A reply's tokens: counted in the run, published, and stored on the node of the turn it produced with the model that answered. */
function billReply(scope: RunScope, reply: ModelReply, runModel: string): Billing | undefined {
  scope.spend(reply.usage ?? zeroUsage());
  return reply.usage === undefined ? undefined : { usage: reply.usage, model: reply.model ?? runModel };
}

/** What a call cost and which model answered it: the reply's own word (a fallback's, a dated snapshot), else the agent's model. */
function billed(core: AgentCore, used: ModelUsage | undefined, model: string = core.card.id): Billing | undefined {
  return used === undefined ? undefined : { usage: used, model };
}

/** Persists what the run recorded, then settles it (`settled` or `waiting`) or faults it. */
async function finishRun(
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

function fault(scope: RunScope, kind: FaultKind, error: unknown, snapshot: RunSnapshot): RunFault {
  const message = errorMessage(error);
  scope.publish({ kind: 'faulted', error: { kind, message }, snapshot, runId: scope.runId });
  return new RunFault(kind, message, snapshot, { cause: error });
}

function durabilityOf(session: AgentSession, signal: AbortSignal): LoopDurability | undefined {
  if (!session.durable) return undefined;
  return {
    async checkpoint() {
      try {
        await untilAborted(session.persist(), signal);
      } catch (error) {
        if (RunAbortedError.isInstance(error)) throw error;
        throw new CheckpointError(session.id, { cause: error });
      }
    },
    markStarted: (callIds) => session.markStarted(callIds),
    startsOf: (callId) => session.startsOf(callId),
  };
}

/**
 * Whether a run without a new prompt has anything to do: calls of the last reply without a result, or
 * a context that ends with a user turn (a prompt or tool results) the model has not answered.
 */
function hasWorkToContinue(context: readonly Turn[]): boolean {
  const last = context[context.length - 1];
  return last !== undefined && (last.role === 'user' || openBatch(context).length > 0);
}
