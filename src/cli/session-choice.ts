import { randomBytes } from 'node:crypto';
import { assertValidSessionId } from '../runtime/store/index.js';
import type { CliSessionStore } from './session-store.js';
import type { SessionChoice } from './args.js';
import { CliUsageError } from './errors.js';

/** The session a chat or `-p` run will work on, and whether the store holds it already. */
export type ChosenSession = { id: string; exists: boolean };

/**
 * Decides the session before the model or the SDK is loaded: a named id is checked as the store
 * checks it (a path-like id is an `InvalidSessionIdError`), `--continue` takes the most recently
 * changed session and is refused when there is none.
 */
export async function chooseSession(choice: SessionChoice, store: CliSessionStore): Promise<ChosenSession> {
  switch (choice.kind) {
    case 'new':
      return { id: newSessionId(), exists: false };
    case 'named': {
      assertValidSessionId(choice.id);
      const graph = await store.loadSession(choice.id);
      // A graph holding only its live path was read from a checkpoint: the session has turns.
      return { id: choice.id, exists: !(graph.whole && graph.size === 0) };
    }
    case 'latest': {
      const [latest] = await store.listSessions();
      if (latest === undefined) throw new CliUsageError(`--continue: no session in ${store.where} to continue`);
      return { id: latest.id, exists: true };
    }
  }
}

/** Sortable and short enough to type: `20261129-183401-7f3a`. */
function newSessionId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}
