import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import type { Agent, AgentConfig, AgentDeps } from '../contract/agent.js';
import type { FaultKind, PendingApproval, RunEvent, RunSnapshot, RunStatus } from '../contract/events.js';
import type { ModelUsage } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import { RunLedger } from '../ledger/ledger.js';
import { replaceContents, runLoop } from '../loop/run-loop.js';
import { lastAssistantText, lastUserText, pendingApprovalsOf } from '../loop/batch.js';
import { beginContextTurn, type ContextTurnHandle } from '../loop/context-turn.js';
import type { AgentContextPart } from '../../parts/types.js';
import { RunFault, faultKindOf } from '../loop/errors.js';
import { isPromptTooLongError } from '../compaction/prompt-too-long.js';
import type { ApprovalDecision, LoopEvent } from '../loop/types.js';
import { UnknownApprovalError } from '../../tools/toolset.js';
import { createAnthropicInvoker } from '../../providers/anthropic/invoker.js';
import { AgentClosedError, ApprovalsPendingError, InvalidPromptError } from './errors.js';
import { errorMessage } from '../../errors/base.js';
import { RunQueue } from './run-queue.js';
import { memorySession, openStoredSession, type AgentSession, type Billing } from './session.js';
import { resolveSettings } from './settings.js';
import { addUsage, sumUsage, zeroUsage } from '../usage/sum.js';
import { condensationHooks } from './condensation-hooks.js';
import { composeHooks } from './compose-hooks.js';

/** Reads the session's context before a run starts; returns the decisions the run applies, or throws to refuse it. */
type Admission = (sessionId: string, context: readonly Turn[]) => ReadonlyMap<string, ApprovalDecision> | undefined;

/**
 * The conductor: one agent, one session at a time, one run at a time. See docs/agent.md.
 *
 * Runs (`submit`, `approve`, `reject`) and `resume`/`close` queue behind each other. Each run publishes
 * its events on the ledger, appends each settled turn to the session, persists the session once at the
 * end (settled, waiting or faulted), and resolves with the final snapshot or rejects with `RunFault`.
 */
export function createAgent(config: AgentConfig, deps: AgentDeps = {}): Agent {
  const { card, maxSteps, tools } = resolveSettings(config);
  const ledger = deps.ledger ?? new RunLedger();
  // `new Anthropic()` reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL; it fails only when a call is made.
  const invoke = deps.invokeModel ?? createAnthropicInvoker(deps.client ?? new Anthropic());
  // The running run's token totals, so summarizer calls made inside hooks count toward them.
  let runUsage: ModelUsage | undefined;
  // What the summarizer (and a reply cut off by a full window) cost, until the summary node is recorded (`context_replaced`).
  let summarizerUsage: ModelUsage | undefined;
  // The context turn of the run in progress: condensation counts everything its calls send.
  let openTurn: ContextTurnHandle | undefined;
  const condensation =
    config.compaction === undefined
      ? undefined
      : condensationHooks({
          card,
          policy: config.compaction,
          invokeModel: invoke,
          system: config.system,
          tools: tools.specs,
          maxOutputTokens: card.maxOutputTokens,
          ledger,
          sending: () => openTurn?.sending(),
          addUsage: (used) => {
            if (runUsage === undefined) return;
            addUsage(runUsage, used);
            summarizerUsage = sumUsage([summarizerUsage, used]);
            ledger.publish({ kind: 'usage', usage: used, total: { ...runUsage } });
          },
        });
  const hooks = composeHooks(condensation, deps.hooks);
  const queue = new RunQueue();
  const memorySessions = new Map<string, AgentSession>();
  let sessionId = config.sessionId ?? randomUUID();
  let session: AgentSession | undefined;
  let active: AbortController | undefined;
  let closed = false;

  async function ensureSession(): Promise<AgentSession> {
    if (session !== undefined) return session;
    if (deps.store !== undefined) {
      session = await openStoredSession(deps.store, sessionId);
    } else {
      session = memorySessions.get(sessionId) ?? memorySession(sessionId);
      memorySessions.set(sessionId, session);
    }
    return session;
  }

  async function conduct(prompt: string | null, admit: Admission, callerSignal?: AbortSignal): Promise<RunSnapshot> {
    if (closed) throw new AgentClosedError();
    let current: AgentSession;
    try {
      current = await ensureSession();
    } catch (error) {
      ledger.publish({ kind: 'run_started', sessionId, prompt });
      throw fault('store_error', error, snapshotOf(sessionId, [], 'faulted', [], zeroUsage()));
    }
    const decisions = admit(current.id, current.context);
    ledger.publish({ kind: 'run_started', sessionId: current.id, prompt });

    const controller = new AbortController();
    active = controller;
    const signal = callerSignal ? AbortSignal.any([controller.signal, callerSignal]) : controller.signal;
    const usage = zeroUsage();
    runUsage = usage;
    const work = current.context.slice();
    let contextTurn: ContextTurnHandle | undefined;
    // The reply's usage, stored on the node of the assistant turn that follows it.
    let replyUsage: ModelUsage | undefined;
    const report = (parts: AgentContextPart[]) => {
      for (const part of parts) ledger.publish(contextEvent(part));
    };
    const emit = (event: LoopEvent): void => {
      switch (event.kind) {
        case 'turn':
          current.append(event.turn, event.turn.role === 'assistant' ? billed(replyUsage) : undefined);
          replyUsage = undefined;
          return;
        case 'reply': {
          replyUsage = event.reply.usage;
          const used = event.reply.usage ?? zeroUsage();
          addUsage(usage, used);
          ledger.publish({ kind: 'usage', usage: used, total: { ...usage } });
          return;
        }
        case 'context_replaced':
          current.condense(event.previous, event.next, billed(summarizerUsage));
          summarizerUsage = undefined;
          return;
        case 'step':
          // A snapshot copies the whole context; nobody listening means nobody pays for it.
          if (ledger.subscriberCount > 0) ledger.publish({ kind: 'snapshot', snapshot: snapshotOf(current.id, work, 'running', [], usage) });
          return;
        default:
          ledger.publish(event);
          if (event.kind === 'tool_finished' && contextTurn !== undefined) report(contextTurn.takeParts(event.callId));
      }
    };

    let failure: { kind: FaultKind; error: unknown } | undefined;
    try {
      if (prompt !== null) {
        const turn: Turn = { role: 'user', blocks: [{ kind: 'text', text: prompt }] };
        work.push(turn);
        current.append(turn);
      }
      if (config.context !== undefined) {
        contextTurn = await beginContextTurn({
          manager: config.context,
          prompt: prompt ?? lastUserText(work),
          messages: work,
          system: config.system,
          tools,
          // The conductor's condensation is the manager's history compaction: one budget for all three.
          fit: condensation && ((messages, sending) => condensation.fit(messages, sending, signal)),
        });
        openTurn = contextTurn;
        if (contextTurn.messages !== work) {
          // Condensed by the manager's history or by `fit`; only the latter has a summarizer bill.
          current.condense(work, contextTurn.messages, billed(summarizerUsage));
          summarizerUsage = undefined;
          replaceContents(work, contextTurn.messages);
        }
        report(contextTurn.prepared);
      }
      const outcome = await runLoop({
        model: card.id,
        system: contextTurn?.system ?? config.system,
        volatileSystem: contextTurn?.volatileSystem,
        cache: config.cache,
        cacheTtl: config.cacheTtl,
        maxOutputTokens: card.maxOutputTokens,
        maxSteps,
        context: work,
        invoke,
        tools: contextTurn?.tools ?? tools,
        sequential: config.sequential,
        decisions,
        signal,
        hooks,
        emit,
      });
      // Write-backs belong to a finished turn; a waiting one finishes in the run that decides it.
      if (contextTurn !== undefined && outcome.status === 'settled') report(await contextTurn.finish(work, lastAssistantText(work)));
    } catch (error) {
      // "Prompt is too long" arrives as a plain 400; it is still an overflow, whatever condensation could do.
      failure = { kind: isPromptTooLongError(error) ? 'context_overflow' : faultKindOf(error), error };
    } finally {
      if (active === controller) active = undefined;
      openTurn = undefined;
      runUsage = undefined;
      summarizerUsage = undefined;
    }
    current.context = work;
    try {
      await current.persist();
    } catch (error) {
      // Nothing of this run is durable, which outweighs whatever else went wrong; both are kept as the cause.
      failure = { kind: 'store_error', error: failure === undefined ? error : new AggregateError([error, failure.error], errorMessage(error)) };
    }

    const pending = pendingApprovalsOf(work);
    const status: RunStatus = failure !== undefined ? 'faulted' : pending.length > 0 ? 'waiting' : 'settled';
    const snapshot = snapshotOf(current.id, work, status, pending, usage);
    if (failure !== undefined) throw fault(failure.kind, failure.error, snapshot);
    ledger.publish({ kind: 'settled', snapshot });
    return snapshot;
  }

  function billed(used: ModelUsage | undefined): Billing | undefined {
    return used === undefined ? undefined : { usage: used, model: card.id };
  }

  function fault(kind: FaultKind, error: unknown, snapshot: RunSnapshot): RunFault {
    const message = errorMessage(error);
    ledger.publish({ kind: 'faulted', error: { kind, message }, snapshot });
    return new RunFault(kind, message, snapshot, { cause: error });
  }

  async function resume(id: string): Promise<RunSnapshot> {
    if (closed) throw new AgentClosedError();
    if (session?.id !== id) {
      if (session !== undefined) await session.close();
      session = undefined;
      sessionId = id;
    }
    const current = await ensureSession();
    const pending = pendingApprovalsOf(current.context);
    const snapshot = snapshotOf(current.id, current.context, pending.length > 0 ? 'waiting' : 'settled', pending, zeroUsage());
    ledger.publish({ kind: 'snapshot', snapshot });
    return snapshot;
  }

  const refuseWhilePending: Admission = (id, context) => {
    const pending = pendingApprovalsOf(context);
    if (pending.length > 0) throw new ApprovalsPendingError(id, pending);
    return undefined;
  };

  const decide =
    (approvalId: string, decision: ApprovalDecision): Admission =>
    (_id, context) => {
      if (!pendingApprovalsOf(context).some((p) => p.approvalId === approvalId)) throw new UnknownApprovalError(approvalId);
      return new Map([[approvalId, decision]]);
    };

  return {
    get sessionId() {
      return sessionId;
    },
    submit(prompt, opts) {
      if (typeof prompt !== 'string' || prompt.trim() === '') {
        return Promise.reject(new InvalidPromptError(typeof prompt === 'string' ? 'it has no visible text' : `expected a string, got ${typeof prompt}`));
      }
      return queue.run(() => conduct(prompt, refuseWhilePending, opts?.signal));
    },
    subscribe: (handler) => ledger.subscribe(handler),
    resume: (id) => queue.run(() => resume(id)),
    abort() {
      active?.abort();
    },
    approve: (approvalId) => queue.run(() => conduct(null, decide(approvalId, { approved: true }))),
    reject: (approvalId, reason) => queue.run(() => conduct(null, decide(approvalId, { approved: false, reason }))),
    pendingApprovals: () => (session === undefined ? [] : pendingApprovalsOf(session.context)),
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

function snapshotOf(sessionId: string, context: readonly Turn[], status: RunStatus, pending: PendingApproval[], usage: ModelUsage): RunSnapshot {
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
