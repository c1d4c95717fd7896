import type { ModelUsage } from '../contract/model.js';
import type { Compaction } from '../contract/step.js';
import { faultKindOf } from '../loop/errors.js';
import { summaryBody } from '../compaction/summary-turn.js';
import type { AgentCore } from './agent-core.js';
import { finishRun, openForRun } from './run-durability.js';
import type { Failure } from './run-faults.js';
import type { RunScope } from './run-scope.js';
import type { AgentSession, Billing } from './session.js';
import type { CompactionOutcome } from './types.js';

/** `condense()`: a run that makes one forced compaction and nothing else. */
export async function compactRun(core: AgentCore, scope: RunScope): Promise<CompactionOutcome> {
  const session = await openForRun(core, scope, null);
  scope.publish({ kind: 'run_started', sessionId: session.id, prompt: null, runId: scope.runId });
  let compacted: CompactionOutcome['compacted'] = null;
  let failure: Failure | undefined;
  try {
    const compaction = await core.compaction.compactNow(session.context, scope.signal);
    if (compaction !== null) compacted = applyCompaction(core, scope, session, compaction);
  } catch (error) {
    failure = { kind: faultKindOf(error), error };
  }
  return { compacted, snapshot: await finishRun(core, scope, session, failure) };
}

/**
 * Records a compaction in the session (refused there when it cannot be recorded, before anything
 * is announced), bills the summarizer to the run, makes the dropped turns searchable and publishes
 * `compacted`. Forced (`compactRun`) or asked before a call of any run.
 */
export function applyCompaction(core: AgentCore, scope: RunScope, session: AgentSession, compaction: Compaction) {
  const dropped = session.compact(compaction, billed(core, compaction.usage));
  // What the next run would calibrate from was sent before this change; it no longer describes the context.
  core.carried.previous = undefined;
  if (compaction.usage !== undefined) scope.spend(compaction.usage, core.card.id);
  core.sessions.compacted(dropped);
  const event = {
    kind: 'compacted' as const,
    removed: compaction.keptFrom,
    summary: summaryBody(compaction.summary),
    tokensBefore: compaction.tokensBefore ?? 0,
    tokensAfter: compaction.tokensAfter ?? 0,
    runId: scope.runId,
    ...(session.durable && { dropped: dropped.map((node) => node.id) }),
  };
  scope.publish(event);
  return event;
}

/** What a call cost and which model answered it: the reply's own word (a fallback's, a dated snapshot), else the agent's model. */
function billed(core: AgentCore, used: ModelUsage | undefined, model: string = core.card.id): Billing | undefined {
  return used === undefined ? undefined : { usage: used, model };
}
