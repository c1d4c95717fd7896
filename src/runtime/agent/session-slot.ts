import { randomUUID } from 'node:crypto';
import type { Turn } from '../contract/turn.js';
import type { SessionNode } from '../contract/session.js';
import type { SessionStoreLike } from '../store/types.js';
import { HistoryIndex } from '../history/index.js';
import { AgentClosedError } from './errors.js';
import { memorySession, openStoredSession, type AgentSession } from './session.js';

/**
 * The session an agent works on, one at a time: opened from the store on first use (or kept in memory
 * without one), switched by `resume`, let go by `close`. With history recall on, it also keeps the
 * index of what condensation took out of the live path, rebuilt whenever the live path changes
 * (`resume`, `branchFrom`), so a search never reaches a branch the user left.
 */
export class SessionSlot {
  #session: AgentSession | undefined;
  #id: string;
  #closed = false;
  #history: HistoryIndex | undefined;
  readonly #memory = new Map<string, AgentSession>();

  constructor(
    private readonly store: SessionStoreLike | undefined,
    private readonly recall: boolean,
    sessionId: string | undefined,
    messages: readonly Turn[] | undefined,
    /**
     * Told when a session opened, before anyone reads it: the agent publishes what a load from the
     * store found, and reads back what a restart lost (sub-agent calls, handoffs).
     */
    private readonly opened: (session: AgentSession) => void | Promise<void>,
  ) {
    this.#id = sessionId ?? randomUUID();
    if (messages !== undefined) this.#memory.set(this.#id, memorySession(this.#id, messages));
  }

  get id(): string {
    return this.#id;
  }

  /** The session when one is open, without opening one. */
  get current(): AgentSession | undefined {
    return this.#session;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** The history recall index of the open session's live path (undefined without recall or a session). */
  get history(): HistoryIndex | undefined {
    return this.#history;
  }

  /** The open session, opening it first (from the store: its writer lock is taken). */
  async open(): Promise<AgentSession> {
    if (this.#closed) throw new AgentClosedError();
    if (this.#session !== undefined) return this.#session;
    if (this.store !== undefined) {
      const session = await openStoredSession(this.store, this.#id);
      this.#session = session;
      this.#reindex();
      await this.opened(session);
      return session;
    }
    let session = this.#memory.get(this.#id);
    if (session === undefined) {
      session = memorySession(this.#id);
      this.#memory.set(this.#id, session);
    }
    this.#session = session;
    await this.opened(session);
    return session;
  }

  /** Turns a condensation just took out of the context: searchable from now on. */
  condensed(dropped: readonly SessionNode[]): void {
    this.#history?.add(dropped);
  }

  /** Switches to session `id` (letting the current one go first when it is another). */
  async resume(id: string): Promise<AgentSession> {
    if (this.#closed) throw new AgentClosedError();
    if (this.#session?.id !== id) {
      await this.#session?.close();
      this.#session = undefined;
      this.#id = id;
    }
    return this.open();
  }

  /** Moves the live leaf; the recall index follows the new live path. */
  async branchFrom(nodeId: string): Promise<AgentSession> {
    const session = await this.open();
    await session.branchFrom(nodeId);
    this.#reindex();
    return session;
  }

  /** Lets the session go. Marked closed only once it did, so a failed close can be retried and loses nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#session?.close();
    this.#session = undefined;
    this.#closed = true;
  }

  #reindex(): void {
    const session = this.#session;
    // Built from the live path on the first search, then kept up to date by `condensed`.
    this.#history = this.recall && session !== undefined ? new HistoryIndex(() => session.condensedAway()) : undefined;
  }
}
