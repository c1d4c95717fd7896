import type { RunSnapshot } from '../contract/events.js';
import type { ModelReply } from '../contract/model.js';
import type { Turn } from '../contract/turn.js';
import { runLoop, settleOpenBatch } from '../loop/run-loop.js';
import { lastAssistantText, lastUserText, openBatch } from '../loop/batch.js';
import type { LoopEvent, LoopInput } from '../loop/types.js';
import type { ContextReport } from '../contract/context.js';
import { zeroUsage } from '../usage/sum.js';
import type { AgentCore, RunPlan } from './agent-core.js';
import { applyCompaction } from './compact-run.js';
import { beginContextRun, type ContextRun } from './context-run.js';
import { durabilityOf, finishRun, openForRun } from './run-durability.js';
import { failureOf, type Failure } from './run-faults.js';
import type { RunScope } from './run-scope.js';
import type { Billing } from './session.js';
import { composeStepHook } from './step-hook.js';
import { RunGuard } from './guardrails.js';
import { PartialOutput, settleOutput } from './structured-output.js';
import { contextEvent, snapshotOf } from './standing.js';
import { runDelegation } from './delegation.js';
import { noteCall } from './waiting-calls.js';

/**
 * One run, start to end: answers the calls an earlier run left open, adds the prompt, drives the
 * loop with the per-step hook composed of the context manager, compaction and `config.prepareStep`,
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
    beforeToolRuns: core.beforeToolRuns,
    previous: core.carried.previous,
    ask: (callId, name, question) => scope.inputs.ask(callId, name, question),
    append: (turn, reply) =>
      // The model that spoke: an agent the conversation was handed to speaks with its own.
      session.append(
        turn,
        reply === undefined ? undefined : billReply(scope, reply, core.handoffs?.model ?? plan.model?.modelId ?? core.card.id),
      ),
    condense(compaction) {
      applyCompaction(core, scope, session, compaction);
      // The context turn was prepared again on the compacted messages: what it holds now is announced after `compacted`.
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
        compaction: core.automatic ? core.compaction : undefined,
        user: core.config.prepareStep,
      });
      input.prepareStep =
        hook === undefined
          ? undefined
          : async (step) => {
              const overrides = await hook(step);
              if (overrides?.compaction === undefined) announcePrepared();
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
    failure = (await guard?.failureOf()) ?? failureOf(error);
  } finally {
    durability?.dispose();
  }
  return finishRun(core, scope, session, failure, answer);
}

/** A reply's tokens: counted in the run, published, and stored on the node of the turn it produced with the model that answered. */
function billReply(scope: RunScope, reply: ModelReply, runModel: string): Billing | undefined {
  const model = reply.model ?? runModel;
  scope.spend(reply.usage ?? zeroUsage(), model);
  return reply.usage === undefined ? undefined : { usage: reply.usage, model };
}

/**
 * Whether a run without a new prompt has anything to do: calls of the last reply without a result, or
 * a context that ends with a user turn (a prompt or tool results) the model has not answered.
 */
function hasWorkToContinue(context: readonly Turn[]): boolean {
  const last = context[context.length - 1];
  return last !== undefined && (last.role === 'user' || openBatch(context).length > 0);
}
