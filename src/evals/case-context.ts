import { AsyncLocalStorage } from 'node:async_hooks';

/** The case whose work is running: what `evaluate` sets around each case, for invokers that key by case (record and replay). */
export type CaseContext = { caseId: string; sessionId: string };

const current = new AsyncLocalStorage<CaseContext>();

/** Runs `work` as case `context`'s: model calls made from it (the agent's, its sub-agents', the judges') see it. */
export function inCase<T>(context: CaseContext, work: () => Promise<T>): Promise<T> {
  return current.run(context, work);
}

/** The case running now, if any. */
export function currentCase(): CaseContext | undefined {
  return current.getStore();
}
