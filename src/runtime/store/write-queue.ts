/**
 * Runs `write` after every write already queued on `session` and returns its own outcome. A store
 * serialises the appends under one lease this way: each caller sees its write's failure, and the queue
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
