import { randomUUID } from 'node:crypto';
import type { RunSnapshot } from '../contract/events.js';
import type { PromptBlock, Turn } from '../contract/turn.js';
import { RunLedger } from '../ledger/ledger.js';
import type { ApprovalDecision } from '../loop/types.js';
import { isSummaryTurn } from '../compaction/summary-turn.js';
import { HISTORY_NOTE, historyTools, type HistoryOptions } from '../history/index.js';
import { UnknownApprovalError } from '../tools/index.js';
import { compactionStep, type CompactionStep } from './compaction-step.js';
import { ApprovalsPendingError, UnknownInputRequestError } from './errors.js';
import type { AgentCore, RunOptions, RunPlan } from './agent-core.js';
import { compactRun } from './compact-run.js';
import { executeRun } from './execute-run.js';
import { buildHandoffs, MAIN_AGENT, type HandoffPlan, type Handoffs } from './handoffs.js';
import { settleOpened } from './delegation.js';
import { runLimits } from '../budget/limits.js';
import type { LoopTools } from '../loop/types.js';
import { conversationTools } from './conversation-tools.js';
import { readPrompt } from './prompt.js';
import { Run } from './run.js';
import { RunQueue } from './run-queue.js';
import { RunScope } from './run-scope.js';
import { SessionSlot } from './session-slot.js';
import { bindModel, checkMessages, resolveSettings, type AgentSettings } from './settings.js';
import { overridesControls, resolveControls } from './controls.js';
import { outputRequest } from './structured-output.js';
import { resolveModel } from '../models/resolve.js';
import { checkContent } from '../models/content.js';
import type { ModelCard } from '../contract/model.js';
import { standingOf, standingSnapshot } from './standing.js';
import { checkGuardrails } from './guardrails.js';
import { AgentConfigError } from './errors.js';
import type { CallerDeps } from './caller.js';
import type {
  Agent,
  AgentConfig,
  AgentDefinition,
  ConductorDeps,
  InstrumentedAgent,
  OpenOptions,
  RunOnceOptions,
  SubmitOptions,
} from './types.js';

/**
 * An agent defined once (see `AgentDefinition`): everything that does not depend on a conversation is
 * resolved and checked here, once: the model and its card, the tools compiled with their validators,
 * guardrails, handoffs, controls, limits, and telemetry's decorations. `open` makes the conductor of one
 * conversation from it: one session at a time, one run at a time, over any `ModelInvoker`. See
 * docs/agent.md. `defineAgent` is this definition with Claude as the default model.
 *
 * A conversation composes: the session slot (`SessionSlot`), the compaction (`compactionStep`) and
 * one `RunScope` per run, executed by `executeRun` one after another (`RunQueue`). Every operation
 * (`submit`, `approve`, `reject`, `continue`, `condense`, `resume`, `branchFrom`, `close`) queues behind
 * the ones before it; the four that run the model return a `Run`.
 */
export function defineConductor(config: AgentConfig, deps: ConductorDeps = {}): AgentDefinition {
  // `model` as an id, `invokeModel` as its invoker, whichever way they were given: telemetry and sub-agents see the model too.
  ({ config, deps } = bindModel(config, deps));
  // What the agent's sub-agents are built from: its model, store and telemetry as given, before telemetry decorated them.
  const origin: CallerDeps = { invokeModel: deps.invokeModel, store: deps.store, telemetry: deps.telemetry };
  let instrumented: InstrumentedAgent | undefined;
  if (deps.telemetry !== undefined) {
    const { telemetry, ...plain } = deps;
    instrumented = telemetry.instrument(config, plain);
    ({ config, deps } = bindModel(instrumented.config, instrumented.deps));
  }
  const defined = config;
  const given = deps;
  // History recall needs node ids to read back: it is on with a store unless the config says no.
  const recall = config.history !== false && deps.store !== undefined;
  const historyOptions = typeof config.history === 'object' ? config.history : {};
  // Compiled here with the rest; each conversation's calls of them go to its own history (`conversationTools`).
  const builtIn = recall ? historyTools(() => undefined, historyOptions) : [];
  const settings = resolveSettings(config, deps.invokeModel, builtIn);
  checkGuardrails(config);
  checkMessages(deps);
  const plan = buildHandoffs(config, settings.tools, settings.invoke, builtIn);

  function open(options: OpenOptions = {}): Agent {
    checkOpenOptions(options, given);
    return openConversation(defined, given, {
      origin,
      recall,
      historyOptions,
      settings,
      plan,
      instrumented,
      options,
    }).agent;
  }

  async function run(prompt: string | PromptBlock[], options: RunOnceOptions = {}): Promise<RunSnapshot> {
    const { sessionId, ...submit } = options ?? {};
    const agent = open(sessionId === undefined ? {} : { sessionId });
    let snapshot: RunSnapshot;
    try {
      snapshot = await agent.submit(prompt, submit);
    } catch (fault) {
      try {
        await agent.close();
      } catch (closing) {
        throw new AggregateError([fault, closing], 'The run faulted, and its session could not be closed after it.');
      }
      throw fault;
    }
    await agent.close();
    return snapshot;
  }

  const definition: AgentDefinition = Object.freeze({
    name: config.name ?? MAIN_AGENT,
    model: config.model as string,
    open,
    run: run as AgentDefinition['run'],
  });
  reusables.set(definition, (sessionId) =>
    openConversation(defined, given, { origin, recall, historyOptions, settings, plan, instrumented, options: { sessionId } }),
  );
  return definition;
}

/**
 * A conversation of the definition that can be let go of between sessions instead of closed: `letGo`
 * hands its session back (the store's lease) and leaves it ready to `resume` another. A sub-agent call
 * (agentTool) opens one only when none is idle, so a call costs its session, not a conversation.
 */
export type ReusableConversation = { agent: Agent; letGo: () => Promise<void> };

// Each definition's opener of reusable conversations: set once per definition, for `openReusable`.
const reusables = new WeakMap<AgentDefinition, (sessionId: string) => ReusableConversation>();

/** A reusable conversation of `definition` (one `defineConductor` made), on session `sessionId`. */
export function openReusable(definition: AgentDefinition, sessionId: string): ReusableConversation {
  const open = reusables.get(definition);
  if (open === undefined) throw new AgentConfigError('openReusable takes a definition made by defineConductor or defineAgent.');
  return open(sessionId);
}

/** The conductor over one conversation: `defineConductor(config, deps).open()`. */
export function createConductor(config: AgentConfig, deps: ConductorDeps = {}): Agent {
  return defineConductor(config, deps).open();
}

/** What a definition resolved once, which every conversation opened from it shares. */
type Resolved = {
  origin: CallerDeps;
  recall: boolean;
  historyOptions: HistoryOptions;
  settings: AgentSettings;
  plan: HandoffPlan | undefined;
  instrumented: InstrumentedAgent | undefined;
  options: OpenOptions;
};

/** One conversation of a definition: its ledger, session slot, run queue and handoffs; the rest is the definition's. */
function openConversation(config: AgentConfig, deps: ConductorDeps, resolved: Resolved): ReusableConversation {
  const { origin, recall, settings, plan, instrumented, options } = resolved;
  const { card, controls, invoke } = settings;
  const traced = instrumented?.conversation(options.ledger ?? deps.ledger ?? new RunLedger());
  const ledger = traced?.ledger ?? options.ledger ?? deps.ledger ?? new RunLedger();
  const queue = new RunQueue();
  // The scope of the queued operation in progress: where `abort()` and a session's load report go.
  let current: RunScope | undefined;
  const sessionId = options.sessionId ?? config.sessionId;
  const sessions: SessionSlot = new SessionSlot(deps.store, recall, sessionId, options.messages ?? deps.messages, (session) => {
    if (session.report !== undefined) {
      ledger.publish({ kind: 'session_opened', sessionId: session.id, report: session.report, runId: current?.runId ?? randomUUID() });
    }
    return settleOpened(session, conversation().tools, conversation().handoffs, origin, current);
  });
  // What runs need beyond the slot (this conversation's tools, handoffs and compaction) is made on
  // first use: opening a conversation costs its session slot and run queue.
  let made: { tools: LoopTools; handoffs: Handoffs | undefined; core: AgentCore } | undefined;
  const conversation = () => (made ??= make());
  function make(): { tools: LoopTools; handoffs: Handoffs | undefined; core: AgentCore } {
    // The history tools show only once the context starts with a summary: before that there is nothing to search.
    const history = () => historyTools(() => sessions.history, resolved.historyOptions);
    const shown = () => isFirstSummary(sessions.current?.context);
    const bind = (all: LoopTools): LoopTools => (recall ? conversationTools(all, history, shown) : all);
    const handoffs = plan?.open(bind);
    const tools: LoopTools = handoffs?.tools ?? bind(settings.tools);
    // Made on first use: a conversation without `compaction` that is never asked to `condense()` (a
    // sub-agent call's, most often) never needs its compactor.
    let compaction: CompactionStep | undefined;
    const core: AgentCore = {
      config,
      card,
      maxSteps: settings.maxSteps,
      tools,
      invoke,
      ledger,
      beforeToolRuns: options.beforeToolRuns ?? deps.beforeToolRuns,
      sessions,
      get compaction() {
        return (compaction ??= compactionStep({
          card,
          policy: config.compaction ?? {},
          invokeModel: invoke,
          system: config.system,
          // Every tool the model may see, history tools included: counted before they show is counted safe.
          tools: settings.tools.specs,
          maxOutputTokens: card.maxOutputTokens,
          summaryNote: recall ? HISTORY_NOTE : undefined,
          // A summary not used (it would not have shrunk the context) was still billed: to the run that asked for it.
          onDiscarded: (usage) => current?.spend(usage, card.id),
        }));
      },
      automatic: config.compaction !== undefined,
      carried: {},
      origin,
      handoffs,
    };
    return { tools, handoffs, core };
  }

  /** Queues `work` with a scope of its own (its run id, events, abort signal): the one `abort()` reaches while it runs. */
  function queued<T>(work: (scope: RunScope) => Promise<T>, signal?: AbortSignal): { scope: RunScope; outcome: Promise<T> } {
    const scope = new RunScope(randomUUID(), ledger, signal);
    const outcome = queue.run(async () => {
      current = scope;
      try {
        return await work(scope);
      } finally {
        scope.release();
        if (current === scope) current = undefined;
      }
    });
    return { scope, outcome };
  }

  /** Queues `work` as one run; what it resolves with settles the `Run`. */
  function start<T extends RunSnapshot>(work: (scope: RunScope) => Promise<T>, signal?: AbortSignal): Run<T> {
    const { scope, outcome } = queued(work, signal);
    return Run.of(scope.log, outcome);
  }

  /** A run of `plan`, or one that rejects at once (nothing queued) when the options cannot work. */
  function startPlan(opts: SubmitOptions | undefined, plan: (card: ModelCard) => Omit<RunPlan, RunOptions>): Run {
    let options: Pick<RunPlan, RunOptions>;
    let rest: Omit<RunPlan, RunOptions>;
    try {
      // A run's own model is checked as the agent's is: its invoker's control rules, its card's output cap.
      const model = opts?.model === undefined ? undefined : resolveModel(opts.model, invoke);
      const checks = model ?? { invoker: invoke, card };
      options = {
        // The agent's controls, checked once, unless the run brings controls or a model of its own.
        controls:
          model === undefined && (opts === undefined || !overridesControls(opts))
            ? controls
            : resolveControls(config, opts, conversation().tools, checks.invoker, checks.card.maxOutputTokens),
        limits: runLimits(config.limits, opts?.limits),
        parent: opts?.parent,
      };
      if (model !== undefined) options.model = model;
      if (opts?.output !== undefined) options.output = outputRequest(opts.output);
      rest = plan(checks.card);
    } catch (error) {
      return Run.of(new RunScope(randomUUID(), ledger).log, Promise.reject(error));
    }
    return start((scope) => executeRun(conversation().core, scope, { ...rest, ...options }), opts?.signal);
  }

  const refuseWhilePending: RunPlan['admit'] = (session) => {
    const pending = standingOf(session, conversation().tools).pending;
    if (pending.length > 0) throw new ApprovalsPendingError(session.id, pending);
    return undefined;
  };

  const decide =
    (approvalId: string, decision: ApprovalDecision): RunPlan['admit'] =>
    (session) => {
      if (!standingOf(session, conversation().tools).pending.some((p) => p.approvalId === approvalId))
        throw new UnknownApprovalError(approvalId);
      return new Map([[approvalId, decision]]);
    };

  /** The session as it stands, published as one `snapshot`. */
  function stand(scope: RunScope, session: Parameters<typeof standingSnapshot>[0]): RunSnapshot {
    const snapshot = standingSnapshot(session, conversation().tools);
    const handoffs = conversation().handoffs;
    if (handoffs !== undefined) snapshot.agent = handoffs.active;
    scope.publish({ kind: 'snapshot', snapshot, runId: scope.runId });
    return snapshot;
  }

  function submit(prompt: string | PromptBlock[], opts?: SubmitOptions): Run {
    return startPlan(opts, (card) => {
      const read = readPrompt(prompt);
      // Content the model cannot take is refused before the prompt joins the conversation: once in, every later call would carry it.
      if (read.content !== undefined) checkContent([{ role: 'user', blocks: read.content }], card);
      return { prompt: read.text, content: read.content, admit: refuseWhilePending };
    });
  }

  // Methods, not arrow properties: under a loader that keeps function names (tsx), each arrow costs a
  // `defineProperty` call, and a sub-agent call opens a conversation each time. None reads `this`, so
  // `const { submit } = agent` still works.
  const agent: Agent = {
    get sessionId() {
      return sessions.id;
    },
    // One implementation behind both overloads: with `output`, a settled snapshot carries it.
    submit: submit as Agent['submit'],
    subscribe(handler) {
      return ledger.subscribe(handler);
    },
    resume(id) {
      return queued(async (scope) => {
        const { carried } = conversation().core;
        // What a run carried is for the next run of its own session: the output request of one that
        // stopped waiting (the run deciding it answers in JSON) never reaches another session's runs.
        if (id !== sessions.id) carried.output = undefined;
        carried.previous = undefined;
        return stand(scope, await sessions.resume(id));
      }).outcome;
    },
    abort() {
      current?.abort();
    },
    approve(approvalId, opts) {
      return startPlan(opts, () => ({ prompt: null, admit: decide(approvalId, { approved: true }) }));
    },
    reject(approvalId, reason, opts) {
      return startPlan(opts, () => ({ prompt: null, admit: decide(approvalId, { approved: false, reason }) }));
    },
    continue(opts) {
      return startPlan(opts, () => ({ prompt: null, admit: admitAll }));
    },
    condense(opts) {
      return queued((scope) => compactRun(conversation().core, scope), opts?.signal).outcome;
    },
    branchFrom(nodeId) {
      return queued(async (scope) => {
        const session = await sessions.branchFrom(nodeId);
        await conversation().handoffs?.restore(session);
        conversation().core.carried.previous = undefined;
        await session.persist();
        return stand(scope, session);
      }).outcome;
    },
    pendingApprovals() {
      return sessions.current === undefined ? [] : standingOf(sessions.current, conversation().tools).pending;
    },
    answer(requestId, answer) {
      if (current === undefined) throw new UnknownInputRequestError(requestId);
      current.inputs.answer(requestId, answer);
    },
    pendingInputs() {
      return current?.inputs.pending() ?? [];
    },
    sessionUsage() {
      return queue.run(async () => (await sessions.open()).usageTotal());
    },
    close() {
      return queue.run(() => sessions.close());
    },
  };
  // Between sessions nothing of the last one stays: not its session, not what its last run carried.
  const letGo = (): Promise<void> =>
    queue.run(async () => {
      await sessions.letGo();
      if (made !== undefined) {
        made.core.carried.output = undefined;
        made.core.carried.previous = undefined;
      }
    });
  return { agent: traced === undefined ? agent : traced.agent(agent), letGo };
}

/** Refuses what `open` cannot work with, before anything is opened. */
function checkOpenOptions(options: OpenOptions, deps: ConductorDeps): void {
  if (typeof options !== 'object' || options === null) throw new AgentConfigError('`open` takes an options object or nothing.');
  const { sessionId, messages } = options;
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId === ''))
    throw new AgentConfigError(`\`sessionId\` must be a non-empty string, got ${JSON.stringify(sessionId)}.`);
  if (options.beforeToolRuns !== undefined && typeof options.beforeToolRuns !== 'function')
    throw new AgentConfigError('`beforeToolRuns` must be a function.');
  if (messages !== undefined) checkMessages({ store: deps.store, messages });
}

function admitAll(): undefined {
  return undefined;
}

function isFirstSummary(context: readonly Turn[] | undefined): boolean {
  const first = context?.[0];
  return first !== undefined && isSummaryTurn(first);
}
