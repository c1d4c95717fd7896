import { IndusagiError } from 'indusagi';
import type { LoadedSession, SessionGraph, SessionStoreLike } from 'indusagi';

/** What reading a thread needs of the store: a read without the writer lock, with what the load found when the store can say. */
export type ReadableStore = {
  loadSession(id: string): Promise<SessionGraph>;
  loadSessionWithReport?(id: string): Promise<LoadedSession>;
};

/** Something tried to write through a store opened only to read a thread. */
export class ReadOnlySessionError extends IndusagiError {
  static override readonly errorName: string = 'ReadOnlySessionError';
  constructor(readonly sessionId: string) {
    super(
      'read_only_session',
      `Session ${JSON.stringify(sessionId)} was opened only to show its thread; nothing may be written through it.`,
    );
  }
}

/**
 * `store` for an agent that only shows a thread: opening a session reads it without the writer lock
 * (the file store's lock file, PostgreSQL's lease), so showing a conversation never keeps a reply out
 * of it, on this server or another, and is never refused because one is being written. The agent
 * still works out the thread as it stands (calls waiting for approval, calls cut off); writing is refused.
 */
export function readingStore(store: ReadableStore): SessionStoreLike {
  return {
    loadSession: (id) => store.loadSession(id),
    openSession: (id) => store.loadSession(id),
    ...(store.loadSessionWithReport && { openSessionWithReport: (id: string) => store.loadSessionWithReport!(id) }),
    persist: (graph) => Promise.reject(new ReadOnlySessionError(graph.sessionId)),
    closeSession: async () => {},
  };
}
