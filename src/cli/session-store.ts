import { PostgresSessionStore } from '../postgres/index.js';
import { SessionStore, type SessionGraph, type SessionStoreLike, type SessionSummary } from '../runtime/store/index.js';
import { isDatabaseUrl } from './args.js';

/** What the CLI needs of where sessions live: session files (the default) or PostgreSQL (`--store postgres://…`). */
export interface CliSessionStore extends SessionStoreLike {
  /** The folder, or the database URL without its password, for messages. */
  readonly where: string;
  /** A file path to delete the session by, when sessions are files. */
  pathOf?(id: string): string;
  loadSession(id: string, options?: { whole?: boolean }): Promise<SessionGraph>;
  listSessions(): Promise<SessionSummary[]>;
  /** Lets go of the database pool; nothing to do for files. */
  close(): Promise<void>;
}

/**
 * `--store` is a folder (default `.indusagi/sessions`) or a PostgreSQL URL, whose schema `indusagi db
 * migrate --database URL` must have set up first; the store never migrates by itself.
 */
export function openSessionStore(location: string): CliSessionStore {
  if (isDatabaseUrl(location)) return new PostgresSessions(location);
  return new FileSessions(location);
}

class FileSessions extends SessionStore implements CliSessionStore {
  get where(): string {
    return this.root;
  }

  async close(): Promise<void> {}
}

class PostgresSessions extends PostgresSessionStore implements CliSessionStore {
  readonly where: string;

  constructor(url: string) {
    super({ connectionString: url });
    this.where = withoutPassword(url);
  }
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the PostgreSQL database';
  }
}
