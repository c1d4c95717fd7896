import type { RunTails } from '../events/tails.js';
import type { StoredEvent } from '../types.js';

/**
 * Resolves once the run's terminal event is stored, read through the same shared tail as its streams
 * (a wait costs this process nothing per event). Every `keepAliveMs` of silence the tail reads again,
 * in case a notification was lost. Rejects with `signal`'s reason when the client leaves first.
 */
export async function waitForEnd(tails: RunTails, runId: string, signal: AbortSignal, keepAliveMs: number): Promise<void> {
  const { tail, release } = tails.hold(runId);
  try {
    while (!tail.complete) {
      signal.throwIfAborted();
      const before = tail.lastId;
      await tail.changed(before, AbortSignal.any([signal, AbortSignal.timeout(keepAliveMs)]));
      if (tail.lastId === before && !tail.complete) tails.notify(runId, Number.POSITIVE_INFINITY);
    }
  } finally {
    release();
  }
}

/** Every stored event of a run that has ended (a `waitForEnd` first, so the tail holds them all). */
export async function endedEvents(tails: RunTails, runId: string, signal: AbortSignal, keepAliveMs: number): Promise<StoredEvent[]> {
  const { tail, release } = tails.hold(runId);
  try {
    await waitForEnd(tails, runId, signal, keepAliveMs);
    return tail.after(0);
  } finally {
    release();
  }
}
