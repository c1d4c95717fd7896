import { context as contexts } from '@opentelemetry/api';
import type { PromptBlock, RunSnapshot } from '../runtime/contract/index.js';
import type { Agent, SubmitOptions } from '../runtime/agent/index.js';
import type { AgentTrace, RunOperation } from './run-scope.js';

/**
 * The agent with each run (`submit`, `approve`, `reject`, `continue`, `condense`) traced as one
 * `invoke_agent` span, current while the conductor works on it: the run's model calls, tools,
 * condensations and store operations find it there and nest under it. The rest passes straight through.
 */
export function traceAgent(inner: Agent, agent: AgentTrace): Agent {
  function run<T>(
    operation: RunOperation,
    prompt: string | undefined,
    start: () => Promise<T>,
    snapshotOf: (result: T) => RunSnapshot,
  ): Promise<T> {
    const scope = agent.begin(operation, inner.sessionId, prompt);
    let pending: Promise<T>;
    try {
      pending = contexts.with(scope.context, start);
    } catch (error) {
      agent.end(scope, { error });
      throw error;
    }
    return pending.then(
      (result) => {
        agent.end(scope, { snapshot: snapshotOf(result) });
        return result;
      },
      (error: unknown) => {
        agent.end(scope, { error });
        throw error;
      },
    );
  }
  const same = (snapshot: RunSnapshot) => snapshot;
  return {
    get sessionId() {
      return inner.sessionId;
    },
    // One body serves both overloads: the snapshot passes through untouched, `output` included.
    submit: ((prompt: string | PromptBlock[], opts?: SubmitOptions) =>
      run('submit', typeof prompt === 'string' ? prompt : undefined, () => inner.submit(prompt, opts), same)) as Agent['submit'],
    approve: (approvalId) => run('approve', undefined, () => inner.approve(approvalId), same),
    reject: (approvalId, reason) => run('reject', undefined, () => inner.reject(approvalId, reason), same),
    continue: (opts) => run('continue', undefined, () => inner.continue(opts), same),
    condense: (opts) =>
      run(
        'condense',
        undefined,
        () => inner.condense(opts),
        (outcome) => outcome.snapshot,
      ),
    subscribe: (handler) => inner.subscribe(handler),
    resume: (sessionId) => inner.resume(sessionId),
    abort: () => inner.abort(),
    branchFrom: (nodeId) => inner.branchFrom(nodeId),
    pendingApprovals: () => inner.pendingApprovals(),
    sessionUsage: () => inner.sessionUsage(),
    close: () => inner.close(),
  };
}
