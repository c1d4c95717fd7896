import { randomUUID } from 'node:crypto';
import type { FaultKind, PendingApproval, RunEvent, RunSnapshot, RunStatus } from '../contract/events.js';
import type { ModelUsage } from '../contract/model.js';
import type { PromptBlock, Turn } from '../contract/turn.js';
import type { SessionNode } from '../contract/session.js';
import { RunLedger } from '../ledger/ledger.js';
import { replaceContents, runLoop, settleOpenBatch } from '../loop/run-loop.js';
import { lastAssistantText, lastUserText, openBatch, openBatchStanding } from '../loop/batch.js';
import { RunFault, faultKindOf } from '../loop/errors.js';
import type { ApprovalDecision, LoopDurability, LoopEvent, LoopInput } from '../loop/types.js';
import { isPromptTooLongError } from '../compaction/prompt-too-long.js';
import { addUsage, sumUsage, zeroUsage } from '../usage/sum.js';
import type { AgentContextPart } from '../../parts/types.js';
import { UnknownApprovalError } from '../../tools/toolset.js';
import { errorMessage } from '../../errors/index.js';
import { beginContextTurn, type ContextTurnHandle } from './context-turn.js';
import { condensationHooks } from './condensation-hooks.js';
import { composeHooks } from './compose-hooks.js';
import { AgentClosedError, ApprovalsPendingError, CheckpointError } from './errors.js';
import { RunQueue } from './run-queue.js';
import { memorySession, openStoredSession, type AgentSession, type Billing } from './session.js';
import { bindModel, checkMessages, resolveSettings } from './settings.js';
import { resolveControls } from './controls.js';
import { outputRequest, settleOutput, type OutputRequest } from './structured-output.js';
import { readPrompt } from './prompt.js';
import type { RunControls } from '../loop/controls.js';
import { gateTools } from './gated-tools.js';
import { HistoryIndex, HISTORY_NOTE, HISTORY_READ, HISTORY_SEARCH, historyTools } from '../history/index.js';
import { isSummaryTurn } from '../compaction/summary-turn.js';
import type { Agent, AgentConfig, ConductorDeps, CondenseOutcome, SubmitOptions } from './types.js';

const EMPTY_TURN: Turn = { role: 'user', blocks: [] };

/** What one run is given besides its prompt: the controls its requests carry, and the schema its answer must match. */
type RunOptions = { controls: RunControls; output?: OutputRequest; content?: PromptBlock[] };

/** Reads the session before a run starts; returns the decisions the run applies, or throws to refuse it. */
type Admission = (session: AgentSession) => ReadonlyMap<string, ApprovalDecision> | undefined;

/**
 * The conductor: one agent, one session at a time, one run at a time, over any `ModelInvoker`. See
 * docs/agent.md. `createAgent` is this conductor with Claude as the default model; `runAgent` is a
 * stream of parts from it.
 *
 * Runs (`submit`, `approve`, `reject`, `continue`, `condense`) and `resume`/`branchFrom`/`close` queue
 * behind each other. Each run publishes its events on the ledger, appends each settled turn to the
 * session and, with a store, makes every step durable as it settles (see `LoopDurability`): a crash
 * loses at most the step in flight, and the next run answers or re-runs the calls it cut off. It
 * resolves with the final snapshot or rejects with `RunFault`.
 */
export function createConductor(config: AgentConfig, deps: ConductorDeps = {}): Agent {
  // `model` as an id, `invokeModel` as its invoker, whichever way they were given: telemetry sees the model too.
  ({ config, deps } = bindModel(config, deps));
  if (deps.telemetry !== undefined) {
    const { telemetry, ...plain } = deps;
    return telemetry.instrument(config, plain, createConductor);
  }
  // History recall needs node ids to read back: it is on with a store unless the config says no.
  const recall = config.history !== false && deps?.store !== undefined;
  let historyIndex: HistoryIndex | undefined;
  const builtIn = recall ? historyTools(() => historyIndex, typeof config.history === 'object' ? config.history : {}) : [];
  const settings = resolveSettings(config, deps.invokeModel, builtIn);
  const { card, maxSteps, controls, invoke } = settings;
  // The context of the run in progress (or the session's): the history tools show only once it starts with a summary.
  let liveContext: readonly Turn[] = [];
  const tools = recall
    ? gateTools(settings.tools, new Set([HISTORY_SEARCH, HISTORY_READ]), () => isSummaryTurn(liveContext[0] ?? EMPTY_TURN))
    : settings.tools;
  checkMessages(deps);
  const ledger = deps.ledger ?? new RunLedger();
  // The running run's token totals, so summarizer calls made inside hooks count toward them.
  let runUsage: ModelUsage | undefined;
  // What the summarizer (and a reply cut off by a full window) cost, until the summary node is recorded (`context_replaced`).
  let summarizerUsage: ModelUsage | undefined;
  // The context turn of the run in progress: condensation counts everything its calls send.
  let openTurn: ContextTurnHandle | undefined;
  // One Condenser per agent: automatic when `compaction` is set, and behind `condense()` either way.
  const condensation = condensationHooks({
    card,
    policy: config.compaction ?? {},
    invokeModel: invoke,
    system: config.system,
    // Every tool the model may see, history tools included: counted before they show is counted safe.
    tools: settings.tools.specs,
    maxOutputTokens: card.maxOutputTokens,
    ledger,
    sending: () => openTurn?.sending(),
    summaryNote: recall ? HISTORY_NOTE : undefined,
    nodeIdsOf: (turns) => session?.nodeIdsOf(turns),
    addUsage: (used) => {
      if (runUsage === undefined) return;
      addUsage(runUsage, used);
      summarizerUsage = sumUsage([summarizerUsage, used]);
      ledger.publish({ kind: 'usage', usage: used, total: { ...runUsage } });
    },
  });
  const automatic = config.compaction === undefined ? undefined : condensation;
  const hooks = composeHooks(automatic, deps.hooks);
  const queue = new RunQueue();
  const memorySessions = new Map<string, AgentSession>();
  let sessionId = config.sessionId ?? randomUUID();
  if (deps.messages !== undefined) memorySessions.set(sessionId, memorySession(sessionId, deps.messages));
  let session: AgentSession | undefined;
  let active: AbortController | undefined;
  let closed = false;
  // The `output` request of a run that stopped waiting for approvals.
  let carriedOutput: OutputRequest | undefined;

  /** Turns a condensation just took out of the context: searchable from now on. */
  function remember(dropped: SessionNode[]): void {
    historyIndex?.add(dropped);
  }

  async function ensureSession(): Promise<AgentSession> {
    if (session !== undefined) return session;
    if (deps.store !== undefined) {
      const opened = await openStoredSession(deps.store, sessionId);
      session = opened;
      if (recall) historyIndex = new HistoryIndex(() => opened.condensedAway());
      if (session.report !== undefined) ledger.publish({ kind: 'session_opened', sessionId, report: session.report });
    } else {
      session = memorySessions.get(sessionId) ?? memorySession(sessionId);
      memorySessions.set(sessionId, session);
    }
    liveContext = session.context;
    return session;
  }

  /** Opens the session for a run; a failure is the run's `store_error` fault. */
  async function sessionForRun(prompt: string | null): Promise<AgentSession> {
    if (closed) throw new AgentClosedError();
    try {
      return await ensureSession();
    } catch (error) {
      ledger.publish({ kind: 'run_started', sessionId, prompt });
      throw fault('store_error', error, snapshotOf(sessionId, [], 'faulted', zeroUsage()));
    }
  }

  /** What the calls of the session's open batch are now: waiting for a decision, or cut off by a stopped run. */
  function standingOf(current: AgentSession) {
    return openBatchStanding(current.context, tools, (callId) => current.startsOf(callId));
  }

  function durabilityOf(current: AgentSession): LoopDurability | undefined {
    if (!current.durable) return undefined;
    return {
      async checkpoint() {
        try {
          await current.persist();
        } catch (error) {
          throw new CheckpointError(current.id, { cause: error });
        }
      },
      markStarted: (callIds) => current.markStarted(callIds),
      startsOf: (callId) => current.startsOf(callId),
    };
  }

  async function conduct(
    prompt: string | null,
    admit: Admission,
    callerSignal?: AbortSignal,
    options: RunOptions = { controls },
  ): Promise<RunSnapshot> {
    const current = await sessionForRun(prompt);
    const decisions = admit(current);
    // A run that waited for approvals owes the answer its submit asked for; the run deciding them gives it.
    const output = options.output ?? carriedOutput;
    carriedOutput = undefined;
    let answer: { value: unknown } | undefined;
    ledger.publish({ kind: 'run_started', sessionId: current.id, prompt });

    const controller = new AbortController();
    active = controller;
    const signal = callerSignal ? AbortSignal.any([controller.signal, callerSignal]) : controller.signal;
    const usage = zeroUsage();
    runUsage = usage;
    const work = current.context.slice();
    liveContext = work;
    let contextTurn: ContextTurnHandle | undefined;
    // The reply's usage, stored on the node of the assistant turn that follows it with the model that answered.
    let replyUsage: ModelUsage | undefined;
    let replyModel: string | undefined;
    const report = (parts: AgentContextPart[]) => {
      for (const part of parts) ledger.publish(contextEvent(part));
    };
    const emit = (event: LoopEvent): void => {
      switch (event.kind) {
        case 'turn':
          current.append(event.turn, event.turn.role === 'assistant' ? billed(replyUsage, replyModel) : undefined);
          replyUsage = undefined;
          return;
        case 'reply': {
          replyUsage = event.reply.usage;
          replyModel = event.reply.model;
          const used = event.reply.usage ?? zeroUsage();
          addUsage(usage, used);
          ledger.publish({ kind: 'usage', usage: used, total: { ...usage } });
          return;
        }
        case 'context_replaced':
          remember(current.condense(event.previous, event.next, billed(summarizerUsage)));
          summarizerUsage = undefined;
          return;
        case 'step':
          // A snapshot copies the whole context; nobody listening means nobody pays for it.
          if (ledger.subscriberCount > 0) ledger.publish({ kind: 'snapshot', snapshot: snapshotOf(current.id, work, 'running', usage) });
          return;
        default:
          ledger.publish(event);
          if (event.kind === 'tool_finished' && contextTurn !== undefined) report(contextTurn.takeParts(event.callId));
      }
    };

    const durability = durabilityOf(current);
    const base: LoopInput = {
      model: card.id,
      system: config.system,
      providerOptions: config.providerOptions,
      controls: options.controls,
      responseFormat: output?.responseFormat,
      maxOutputTokens: card.maxOutputTokens,
      maxSteps,
      context: work,
      invoke,
      tools,
      sequential: config.sequential,
      decisions,
      signal,
      hooks,
      durability,
      emit,
    };

    let failure: { kind: FaultKind; error: unknown } | undefined;
    try {
      if (prompt !== null) {
        // Calls an earlier run left cut off are answered (or re-run) first: their results must come before the prompt.
        await settleOpenBatch(base);
        const turn: Turn = { role: 'user', blocks: options.content ?? [{ kind: 'text', text: prompt }] };
        work.push(turn);
        current.append(turn);
        await durability?.checkpoint();
      }
      if (prompt !== null || hasWorkToContinue(work)) {
        if (config.context !== undefined) {
          contextTurn = await beginContextTurn({
            manager: config.context,
            prompt: prompt ?? lastUserText(work),
            messages: work,
            system: config.system,
            tools,
            // The conductor's condensation is the manager's history compaction: one budget for all three.
            fit: automatic && ((messages, sending) => automatic.fit(messages, sending, signal)),
          });
          openTurn = contextTurn;
          if (contextTurn.messages !== work) {
            // Condensed by the manager's history or by `fit`; only the latter has a summarizer bill.
            remember(current.condense(work, contextTurn.messages, billed(summarizerUsage)));
            summarizerUsage = undefined;
            replaceContents(work, contextTurn.messages);
            await durability?.checkpoint();
          }
          report(contextTurn.prepared);
        }
        const loopInput: LoopInput = {
          ...base,
          system: contextTurn?.system ?? config.system,
          volatileSystem: contextTurn?.volatileSystem,
          tools: contextTurn?.tools ?? tools,
        };
        let outcome = await runLoop(loopInput);
        if (output !== undefined && outcome.status === 'settled') {
          answer = await settleOutput(output, work, async (repair) => {
            work.push(repair);
            current.append(repair);
            await durability?.checkpoint();
            outcome = await runLoop({ ...loopInput, decisions: undefined });
            return outcome.status;
          });
        }
        if (output !== undefined && outcome.status === 'waiting') carriedOutput = output;
        // Write-backs belong to a finished turn; a waiting one finishes in the run that decides it.
        if (contextTurn !== undefined && outcome.status === 'settled') report(await contextTurn.finish(work, lastAssistantText(work)));
      }
    } catch (error) {
      // "Prompt is too long" arrives as a plain 400; it is still an overflow, whatever condensation could do.
      failure = { kind: isPromptTooLongError(error) ? 'context_overflow' : faultKindOf(error), error };
    } finally {
      if (active === controller) active = undefined;
      liveContext = current.context;
      openTurn = undefined;
      runUsage = undefined;
      summarizerUsage = undefined;
    }
    current.context = work;
    return finishRun(current, failure, usage, answer);
  }

  /** `condense()`: a run that makes one forced condensation and nothing else. */
  async function condenseRun(callerSignal?: AbortSignal): Promise<CondenseOutcome> {
    const current = await sessionForRun(null);
    ledger.publish({ kind: 'run_started', sessionId: current.id, prompt: null });
    const controller = new AbortController();
    active = controller;
    const signal = callerSignal ? AbortSignal.any([controller.signal, callerSignal]) : controller.signal;
    const usage = zeroUsage();
    runUsage = usage;
    let compacted: CondenseOutcome['compacted'] = null;
    let failure: { kind: FaultKind; error: unknown } | undefined;
    try {
      const outcome = await condensation.condenseNow(current.context, signal);
      if (outcome !== null) {
        remember(current.condense(current.context, outcome.messages, billed(summarizerUsage)));
        current.context = outcome.messages.slice();
        liveContext = current.context;
        compacted = outcome.compacted;
      }
    } catch (error) {
      failure = { kind: faultKindOf(error), error };
    } finally {
      if (active === controller) active = undefined;
      runUsage = undefined;
      summarizerUsage = undefined;
    }
    return { compacted, snapshot: await finishRun(current, failure, usage) };
  }

  /** Persists what the run recorded, then settles it (`settled` or `waiting`) or faults it. */
  async function finishRun(
    current: AgentSession,
    failure: { kind: FaultKind; error: unknown } | undefined,
    usage: ModelUsage,
    answer?: { value: unknown },
  ): Promise<RunSnapshot> {
    try {
      await current.persist();
    } catch (error) {
      // Nothing of this run is durable, which outweighs whatever else went wrong; both are kept as the cause.
      failure = {
        kind: 'store_error',
        error: failure === undefined ? error : new AggregateError([error, failure.error], errorMessage(error)),
      };
    }
    const pending = standingOf(current).pending;
    const status: RunStatus = failure !== undefined ? 'faulted' : pending.length > 0 ? 'waiting' : 'settled';
    const snapshot = snapshotOf(current.id, current.context, status, usage, pending);
    if (failure !== undefined) throw fault(failure.kind, failure.error, snapshot);
    if (answer !== undefined) snapshot.output = answer.value;
    ledger.publish({ kind: 'settled', snapshot });
    return snapshot;
  }

  /** What a call cost and which model answered it: the reply's own word (a fallback's, a dated snapshot), else the agent's model. */
  function billed(used: ModelUsage | undefined, model: string = card.id): Billing | undefined {
    return used === undefined ? undefined : { usage: used, model };
  }

  function fault(kind: FaultKind, error: unknown, snapshot: RunSnapshot): RunFault {
    const message = errorMessage(error);
    ledger.publish({ kind: 'faulted', error: { kind, message }, snapshot });
    return new RunFault(kind, message, snapshot, { cause: error });
  }

  /** The session as it stands now, published as one `snapshot` (after `resume` and `branchFrom`). */
  function standing(current: AgentSession): RunSnapshot {
    liveContext = current.context;
    const { pending, interrupted } = standingOf(current);
    const cutOff = interrupted.length > 0 || current.context.at(-1)?.role === 'user';
    const status: RunStatus = cutOff ? 'interrupted' : pending.length > 0 ? 'waiting' : 'settled';
    const snapshot = snapshotOf(current.id, current.context, status, zeroUsage(), pending);
    if (cutOff) snapshot.interrupted = interrupted;
    if (current.report !== undefined) snapshot.loadReport = current.report;
    ledger.publish({ kind: 'snapshot', snapshot });
    return snapshot;
  }

  async function resume(id: string): Promise<RunSnapshot> {
    if (closed) throw new AgentClosedError();
    if (session?.id !== id) {
      if (session !== undefined) await session.close();
      session = undefined;
      sessionId = id;
    }
    return standing(await ensureSession());
  }

  async function branchFrom(nodeId: string): Promise<RunSnapshot> {
    if (closed) throw new AgentClosedError();
    const current = await ensureSession();
    await current.branchFrom(nodeId);
    await current.persist();
    return standing(current);
  }

  /**
   * Queues a run with the controls and `output` schema `opts` give it; either one that cannot work
   * rejects at once, before the run queues.
   */
  function queueWithOptions(opts: SubmitOptions | undefined, run: (options: RunOptions) => Promise<RunSnapshot>): Promise<RunSnapshot> {
    let options: RunOptions;
    try {
      options = { controls: opts === undefined ? controls : resolveControls(config, opts, tools, invoke, card.maxOutputTokens) };
      if (opts?.output !== undefined) options.output = outputRequest(opts.output);
    } catch (error) {
      return Promise.reject(error);
    }
    return queue.run(() => run(options));
  }

  const refuseWhilePending: Admission = (current) => {
    const pending = standingOf(current).pending;
    if (pending.length > 0) throw new ApprovalsPendingError(current.id, pending);
    return undefined;
  };

  const decide =
    (approvalId: string, decision: ApprovalDecision): Admission =>
    (current) => {
      if (!standingOf(current).pending.some((p) => p.approvalId === approvalId)) throw new UnknownApprovalError(approvalId);
      return new Map([[approvalId, decision]]);
    };

  const admitAll: Admission = () => undefined;

  function submit(prompt: string | PromptBlock[], opts?: SubmitOptions): Promise<RunSnapshot> {
    let read: ReturnType<typeof readPrompt>;
    try {
      read = readPrompt(prompt);
    } catch (error) {
      return Promise.reject(error);
    }
    return queueWithOptions(opts, (options) => conduct(read.text, refuseWhilePending, opts?.signal, { ...options, content: read.content }));
  }

  return {
    get sessionId() {
      return sessionId;
    },
    // One implementation behind both overloads: with `output`, a settled snapshot carries it (see finishRun).
    submit: submit as Agent['submit'],
    subscribe: (handler) => ledger.subscribe(handler),
    resume: (id) => queue.run(() => resume(id)),
    abort() {
      active?.abort();
    },
    approve: (approvalId) => queue.run(() => conduct(null, decide(approvalId, { approved: true }))),
    reject: (approvalId, reason) => queue.run(() => conduct(null, decide(approvalId, { approved: false, reason }))),
    continue: (opts) => queueWithOptions(opts, (options) => conduct(null, admitAll, opts?.signal, options)),
    condense: (opts) => queue.run(() => condenseRun(opts?.signal)),
    branchFrom: (nodeId) => queue.run(() => branchFrom(nodeId)),
    pendingApprovals: () => (session === undefined ? [] : standingOf(session).pending),
    sessionUsage: () =>
      queue.run(async () => {
        if (closed) throw new AgentClosedError();
        return (await ensureSession()).usageTotal();
      }),
    close: () =>
      queue.run(async () => {
        if (closed) return;
        // Marked closed only once the session let go, so a failed close can be retried and loses nothing.
        await session?.close();
        session = undefined;
        closed = true;
      }),
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

function snapshotOf(
  sessionId: string,
  context: readonly Turn[],
  status: RunStatus,
  usage: ModelUsage,
  pending: PendingApproval[] = [],
): RunSnapshot {
  return {
    sessionId,
    messages: context.slice(),
    text: lastAssistantText(context),
    status,
    pendingApprovals: pending,
    usage: { ...usage },
  };
}

function contextEvent(part: AgentContextPart): RunEvent {
  const event: Extract<RunEvent, { kind: 'context' }> = { kind: 'context', source: part.source, op: part.op };
  if (part.records !== undefined) event.records = part.records;
  if (part.tools !== undefined) event.tools = part.tools;
  if (part.tokens !== undefined) event.tokens = part.tokens;
  return event;
}
