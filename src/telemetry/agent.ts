import { context as contexts } from '@opentelemetry/api';
import type { PromptBlock, RunSnapshot } from '../runtime/contract/index.js';
import { Run, type Agent, type SubmitOptions } from '../runtime/agent/index.js';
import type { AgentTrace, RunOperation } from './run-scope.js';

/**
 * The agent with each run (`submit`, `approve`, `reject`, `continue`, `condense`) traced as one
 * `invoke_agent` span, current while the conductor works on it: the run's model calls, tools,
 * condensations and store operations find it there and nest under it. The rest passes straight through.
 */
export function traceAgent(inner: Agent, agent: AgentTrace): Agent {
  function traced<T>(
    operation: RunOperation,
    prompt: string | undefined,
    start: () => Promise<T>,
    snapshotOf: (result: T) => RunSnapshot,
  ): { started: Promise<T>; outcome: Promise<T> } {
    const scope = agent.begin(operation, inner.sessionId, prompt);
    let started: Promise<T>;
    try {
      started = contexts.with(scope.context, start);
    } catch (error) {
      agent.end(scope, { error });
      throw error;
    }
    const outcome = started.then(
      (result) => {
        agent.end(scope, { snapshot: snapshotOf(result) });
        return result;
      },
      (error: unknown) => {
        agent.end(scope, { error });
        throw error;
      },
    );
    return { started, outcome };
  }
  /** A run of the inner agent, traced: the same id and events, settled once its span has ended. */
  function run(operation: RunOperation, prompt: string | undefined, start: () => Run): Run {
    const { started, outcome } = traced(operation, prompt, start, same);
    return Run.following(started as Run, outcome);
  }
  const same = (snapshot: RunSnapshot) => snapshot;
  return {
    get sessionId() {
      return inner.sessionId;
    },
    // One body serves both overloads: the snapshot passes through untouched, `output` included.
    submit: ((prompt: string | PromptBlock[], opts?: SubmitOptions) =>
      run('submit', typeof prompt === 'string' ? prompt : undefined, () => inner.submit(prompt, opts))) as Agent['submit'],
    approve: (approvalId, opts) => run('approve', undefined, () => inner.approve(approvalId, opts)),
    reject: (approvalId, reason, opts) => run('reject', undefined, () => inner.reject(approvalId, reason, opts)),
    continue: (opts) => run('continue', undefined, () => inner.continue(opts)),
    condense: (opts) =>
      traced(
        'condense',
        undefined,
        () => inner.condense(opts),
        (outcome) => outcome.snapshot,
      ).outcome,
    subscribe: (handler) => inner.subscribe(handler),
    resume: (sessionId) => inner.resume(sessionId),
    abort: () => inner.abort(),
    branchFrom: (nodeId) => inner.branchFrom(nodeId),
    pendingApprovals: () => inner.pendingApprovals(),
    answer: (requestId, answer) => inner.answer(requestId, answer),
    pendingInputs: () => inner.pendingInputs(),
    sessionUsage: () => inner.sessionUsage(),
    close: () => inner.close(),
  };
}
