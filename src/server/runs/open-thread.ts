import type { Agent } from '../../runtime/agent/types.js';
import type { RunSnapshot } from '../../runtime/contract/events.js';
import { SessionLockedError } from '../../runtime/store/index.js';

const FIRST_WAIT_MS = 25;
const MAX_WAIT_MS = 500;

/**
 * Opens the thread's session for writing (its lease), waiting while another writer holds it: the
 * worker of the run before, closing it; or a worker that died mid-run, whose lease the database lets
 * go once it expires. Tries again with a growing pause (at most half a second: a live holder may let
 * go at any moment); `signal` (a cancel) ends the wait with its reason.
 */
export async function openThread(agent: Agent, threadId: string, signal: AbortSignal): Promise<RunSnapshot> {
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, MAX_WAIT_MS)) {
    signal.throwIfAborted();
    try {
      return await agent.resume(threadId);
    } catch (error) {
      if (!SessionLockedError.isInstance(error)) throw error;
    }
    await pause(wait, signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
