import { randomUUID } from 'node:crypto';
import type { RunSnapshot } from '../contract/events.js';
import type { PromptBlock, Turn } from '../contract/turn.js';
import { RunLedger } from '../ledger/ledger.js';
import type { ApprovalDecision } from '../loop/types.js';
import { isSummaryTurn } from '../compaction/summary-turn.js';
import { HISTORY_NOTE, HISTORY_READ, HISTORY_SEARCH, historyTools } from '../history/index.js';
import { UnknownApprovalError } from '../tools/index.js';
import { condensationStep } from './condensation-step.js';
import { ApprovalsPendingError, UnknownInputRequestError } from './errors.js';
import type { AgentCore, RunOptions, RunPlan } from './agent-core.js';
import { condenseRun } from './condense-run.js';
import { executeRun } from './execute-run.js';
import { buildHandoffs } from './handoffs.js';
import { settleOpened } from './delegation.js';
import { runLimits } from '../budget/limits.js';
import type { LoopTools } from '../loop/types.js';
import { gateTools } from './gated-tools.js';
import { readPrompt } from './prompt.js';
import { Run } from './run.js';
import { RunQueue } from './run-queue.js';
import { RunScope } from './run-scope.js';
import { SessionSlot } from './session-slot.js';
import { bindModel, checkMessages, resolveSettings } from './settings.js';
import { resolveControls } from './controls.js';
import { outputRequest } from './structured-output.js';
import { resolveModel } from '../models/resolve.js';
import { checkContent } from '../models/content.js';
import type { ModelCard } from '../contract/model.js';
import { standingOf, standingSnapshot } from './standing.js';
import { checkGuardrails } from './guardrails.js';
import type { Agent, AgentConfig, ConductorDeps, SubmitOptions } from './types.js';

/**
 * The conductor: one agent, one session at a time, one run at a time, over any `ModelInvoker`. See
 * docs/agent.md. `createAgent` is this conductor with Claude as the default model; `runAgent` is a
 * stream of parts from it.
 *
 * It composes: the settings (checked here, before any run), the session slot (`SessionSlot`), the
 * condensation (`condensationStep`) and one `RunScope` per run, executed by `executeRun` one after
 * another (`RunQueue`). Every operation (`submit`, `approve`, `reject`, `continue`, `condense`,
 * `resume`, `branchFrom`, `close`) queues behind the ones before it; the four that run the model
 * return a `Run`.
 */
export function createConductor(config: AgentConfig, deps: ConductorDeps = {}): Agent {
  // `model` as an id, `invokeModel` as its invoker, whichever way they were given: telemetry and sub-agents see the model too.
  const bound = bindModel(config, deps);
  return conduct(bound.config, bound.deps, bound.deps);
}

/** `createConductor`; `origin` is what the agent was built from before telemetry decorated it, which sub-agents are built from too. */
function conduct(config: AgentConfig, deps: ConductorDeps, origin: ConductorDeps): Agent {
  ({ config, deps } = bindModel(config, deps));
  if (deps.telemetry !== undefined) {
    const { telemetry, ...plain } = deps;
    return telemetry.instrument(config, plain, (traced, tracedDeps) => conduct(traced, tracedDeps, origin));
  }
  // History recall needs node ids to read back: it is on with a store unless the config says no.
  const recall = config.history !== false && deps.store !== undefined;
  const builtIn = recall ? historyTools(() => sessions.history, typeof config.history === 'object' ? config.history : {}) : [];
  const settings = resolveSettings(config, deps.invokeModel, builtIn);
  const { card, controls, invoke } = settings;
  checkGuardrails(config);
  checkMessages(deps);
  const ledger = deps.ledger ?? new RunLedger();
  const queue = new RunQueue();
  // The scope of the queued operation in progress: where `abort()` and a session's load report go.
  let current: RunScope | undefined;
  const sessions: SessionSlot = new SessionSlot(deps.store, recall, config.sessionId, deps.messages, (session) => {
    if (session.report !== undefined) {
      ledger.publish({ kind: 'session_opened', sessionId: session.id, report: session.report, runId: current?.runId ?? randomUUID() });
    }
    return settleOpened(session, tools, handoffs, origin, current);
  });
  // The history tools show only once the context starts with a summary: before that there is nothing to search.
  const historyNames = new Set([HISTORY_SEARCH, HISTORY_READ]);
  const gate = (all: LoopTools): LoopTools =>
    recall ? gateTools(all, historyNames, () => isFirstSummary(sessions.current?.context)) : all;
  const handoffs = buildHandoffs(config, gate(settings.tools), invoke, builtIn, gate);
  const tools: LoopTools = handoffs?.tools ?? gate(settings.tools);
  const core: AgentCore = {
    config,
    card,
    maxSteps: settings.maxSteps,
    tools,
    invoke,
    ledger,
    beforeToolRuns: deps.beforeToolRuns,
    sessions,
    condensation: condensationStep({
      card,
      policy: config.compaction ?? {},
      invokeModel: invoke,
      system: config.system,
      // Every tool the model may see, history tools included: counted before they show is counted safe.
      tools: settings.tools.specs,
      maxOutputTokens: card.maxOutputTokens,
      summaryNote: recall ? HISTORY_NOTE : undefined,
      // A summary not used (it would not have shrunk the context) was still billed: to the run that asked for it.
      onDiscarded: (usage) => current?.spend(usage),
    }),
    automatic: config.compaction !== undefined,
    carried: {},
    origin,
    handoffs,
  };

  /** Queues `work` with a scope of its own (its run id, events, abort signal): the one `abort()` reaches while it runs. */
  function queued<T>(work: (scope: RunScope) => Promise<T>, signal?: AbortSignal): { scope: RunScope; outcome: Promise<T> } {
    const scope = new RunScope(randomUUID(), ledger, signal);
    const outcome = queue.run(async () => {
      current = scope;
      try {
        return await work(scope);
      } finally {
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
        controls: opts === undefined ? controls : resolveControls(config, opts, tools, checks.invoker, checks.card.maxOutputTokens),
        limits: runLimits(config.limits, opts?.limits),
        parent: opts?.parent,
      };
      if (model !== undefined) options.model = model;
      if (opts?.output !== undefined) options.output = outputRequest(opts.output);
      rest = plan(checks.card);
    } catch (error) {
      return Run.of(new RunScope(randomUUID(), ledger).log, Promise.reject(error));
    }
    return start((scope) => executeRun(core, scope, { ...rest, ...options }), opts?.signal);
  }

  const refuseWhilePending: RunPlan['admit'] = (session) => {
    const pending = standingOf(session, tools).pending;
    if (pending.length > 0) throw new ApprovalsPendingError(session.id, pending);
    return undefined;
  };

  const decide =
    (approvalId: string, decision: ApprovalDecision): RunPlan['admit'] =>
    (session) => {
      if (!standingOf(session, tools).pending.some((p) => p.approvalId === approvalId)) throw new UnknownApprovalError(approvalId);
      return new Map([[approvalId, decision]]);
    };

  /** The session as it stands, published as one `snapshot`. */
  function stand(scope: RunScope, session: Parameters<typeof standingSnapshot>[0]): RunSnapshot {
    const snapshot = standingSnapshot(session, tools);
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

  return {
    get sessionId() {
      return sessions.id;
    },
    // One implementation behind both overloads: with `output`, a settled snapshot carries it.
    submit: submit as Agent['submit'],
    subscribe: (handler) => ledger.subscribe(handler),
    resume: (id) =>
      queued(async (scope) => {
        core.carried.previous = undefined;
        return stand(scope, await sessions.resume(id));
      }).outcome,
    abort() {
      current?.abort();
    },
    approve: (approvalId, opts) => startPlan(opts, () => ({ prompt: null, admit: decide(approvalId, { approved: true }) })),
    reject: (approvalId, reason, opts) => startPlan(opts, () => ({ prompt: null, admit: decide(approvalId, { approved: false, reason }) })),
    continue: (opts) => startPlan(opts, () => ({ prompt: null, admit: () => undefined })),
    condense: (opts) => queued((scope) => condenseRun(core, scope), opts?.signal).outcome,
    branchFrom: (nodeId) =>
      queued(async (scope) => {
        const session = await sessions.branchFrom(nodeId);
        await handoffs?.restore(session);
        core.carried.previous = undefined;
        await session.persist();
        return stand(scope, session);
      }).outcome,
    pendingApprovals: () => (sessions.current === undefined ? [] : standingOf(sessions.current, tools).pending),
    answer(requestId, answer) {
      if (current === undefined) throw new UnknownInputRequestError(requestId);
      current.inputs.answer(requestId, answer);
    },
    pendingInputs: () => current?.inputs.pending() ?? [],
    sessionUsage: () => queue.run(async () => (await sessions.open()).usageTotal()),
    close: () => queue.run(() => sessions.close()),
  };
}

function isFirstSummary(context: readonly Turn[] | undefined): boolean {
  const first = context?.[0];
  return first !== undefined && isSummaryTurn(first);
}
