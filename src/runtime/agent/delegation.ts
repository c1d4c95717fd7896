import { randomUUID } from 'node:crypto';
import { RunBudget } from '../budget/run-budget.js';
import type { LoopTools, ApprovalDecision } from '../loop/types.js';
import type { RunLimits } from '../contract/limits.js';
import type { CallerRun } from '../contract/tool.js';
import { AgentCaller, callerOf, type CallerDeps } from './caller.js';
import type { Handoffs } from './handoffs.js';
import type { RunScope } from './run-scope.js';
import type { AgentSession } from './session.js';
import { probeWaitingCalls } from './waiting-calls.js';

/**
 * A session just opened: what a restart lost is read back from the session and its sub-agents'. First
 * which agent has the conversation (its tools say which calls are sub-agents'), then what each
 * sub-agent call left open waits on.
 */
export async function settleOpened(
  session: AgentSession,
  tools: LoopTools,
  handoffs: Handoffs | undefined,
  origin: CallerDeps,
  scope: RunScope | undefined,
): Promise<void> {
  await handoffs?.restore(session);
  const caller = new AgentCaller(session.id, scope?.runId ?? randomUUID(), origin, undefined, undefined, scope);
  await probeWaitingCalls(session, tools, caller);
}

/**
 * What one run carries for the agents it calls: its budget (its own limits, linked to the budget of the
 * run that called it, when it is a sub-agent's), and the caller its tool calls are handed.
 */
export function runDelegation(
  origin: CallerDeps,
  scope: RunScope,
  session: AgentSession,
  plan: { limits?: RunLimits; parent?: CallerRun },
  decisions: ReadonlyMap<string, ApprovalDecision> | undefined,
): { budget: RunBudget | undefined; caller: AgentCaller } {
  const parent = callerOf(plan.parent);
  // A sub-agent's questions are answered where its caller's are: nobody listening there, nobody can answer.
  if (parent !== undefined) scope.inputs.within(() => parent.listened);
  // Its events reach an audience only through its caller's run (agentTool forwards them): a snapshot
  // nobody up the tree sees is not built.
  if (parent !== undefined) scope.forwardedTo(() => parent.watched);
  const above = parent?.budget;
  const budget = plan.limits === undefined && above === undefined ? undefined : new RunBudget(plan.limits ?? {}, above);
  const depth = parent === undefined ? 0 : parent.depth + 1;
  return { budget, caller: new AgentCaller(session.id, scope.runId, origin, budget, decisions, scope, depth) };
}
