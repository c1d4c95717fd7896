import { IndusagiError } from 'indusagi';
import type { SessionStoreLike } from 'indusagi';

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
 * `store` for an agent that only shows a thread: its lease is no lease (the file store's lock file,
 * PostgreSQL's lease are never taken), so showing a conversation never keeps a reply out of it, on this
 * server or another, and is never refused because one is being written. The agent still reads the
 * thread as it stands (calls waiting for approval, calls cut off); any append is refused.
 */
export function readingStore(store: SessionStoreLike): SessionStoreLike {
  const reading: SessionStoreLike = {
    acquire: async (sessionId) => ({ sessionId, epoch: 0 }),
    read: (sessionId) => store.read(sessionId),
    append: (lease) => Promise.reject(new ReadOnlySessionError(lease.sessionId)),
    release: async () => {},
  };
  if (store.readLivePath !== undefined) reading.readLivePath = (sessionId) => store.readLivePath!(sessionId);
  return reading;
}
