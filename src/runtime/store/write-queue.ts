/**
 * Runs `write` after every write already queued on `session` and returns its own outcome. A store
 * serialises one session's persists this way: each caller sees its write's failure, and the queue
 * goes on to the next write regardless.
 */
export function queueWrite<T>(session: { queue: Promise<void> }, write: () => Promise<T>): Promise<T> {
  const run = session.queue.then(write);
  session.queue = run.then(
    () => undefined,
    () => undefined,
  );
  return run;
}

/**
 * Waits until `session` has no write queued and nothing unsaved, persisting what is (writes queued
 * meanwhile run first). It returns right after seeing that, with no await in between, so a store that
 * drops the session next refuses any later persist instead of half-running it.
 */
export async function drainWrites(
  session: { queue: Promise<void>; graph: { hasUnsaved: boolean } },
  persist: () => Promise<unknown>,
): Promise<void> {
  for (;;) {
    const queue = session.queue;
    await queue;
    if (session.graph.hasUnsaved) await persist();
    else if (session.queue === queue) return;
  }
}
