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
 * index of what compaction took out of the live path, rebuilt whenever the live path changes
 * (`resume`, `branchFrom`), so a search never reaches a branch the user left.
 */
export class SessionSlot {
  #session: AgentSession | undefined;
  #id: string;
  #closed = false;
  #history: HistoryIndex | undefined;
  #opening: Promise<AgentSession> | undefined;
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

  /**
   * The open session, opening it first (from the store: its writer lease is taken). A caller that
   * stops waiting (an aborted run) leaves the opening going: the next `open` (or `close`) waits for that
   * same one, so a lease taken late is used, or handed back, never leaked.
   */
  async open(): Promise<AgentSession> {
    if (this.#closed) throw new AgentClosedError();
    if (this.#session !== undefined) return this.#session;
    if (this.store !== undefined) {
      this.#opening ??= this.#openStored(this.store, this.#id);
      return this.#opening;
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

  async #openStored(store: SessionStoreLike, id: string): Promise<AgentSession> {
    try {
      const session = await openStoredSession(store, id);
      this.#session = session;
      this.#reindex();
      await this.opened(session);
      return session;
    } finally {
      this.#opening = undefined;
    }
  }

  /** Turns a compaction just took out of the context: searchable from now on. */
  compacted(dropped: readonly SessionNode[]): void {
    this.#history?.add(dropped);
  }

  /** Switches to session `id` (letting the current one go first when it is another). */
  async resume(id: string): Promise<AgentSession> {
    if (this.#closed) throw new AgentClosedError();
    await this.#settleOpening();
    if (this.#session?.id !== id) {
      await this.#session?.close();
      this.#session = undefined;
      this.#id = id;
    }
    return this.open();
  }

  /** The open session's live path changed (a run taken back): the recall index follows it. */
  moved(): void {
    const session = this.#session;
    if (session !== undefined) this.#history?.switchPath(() => session.compactedAway());
  }

  /** Moves the live leaf; the recall index follows the new live path (the branch left behind drops out of it). */
  async branchFrom(nodeId: string | null): Promise<AgentSession> {
    const session = await this.open();
    await session.branchFrom(nodeId);
    this.#history?.switchPath(() => session.compactedAway());
    return session;
  }

  /**
   * Lets the open session go (its store lease) and stays open: the next `open` or `resume` opens one
   * again. How a conversation kept for reuse (a sub-agent's, see `openReusable`) idles between calls.
   */
  async letGo(): Promise<void> {
    if (this.#closed) return;
    if (this.#opening !== undefined) await this.#settleOpening();
    await this.#session?.close();
    this.#session = undefined;
    this.#history = undefined;
  }

  /** Lets the session go. Marked closed only once it did, so a failed close can be retried and loses nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    await this.#settleOpening();
    await this.#session?.close();
    this.#session = undefined;
    this.#closed = true;
  }

  /** Waits out an opening an aborted run left behind; its failure was that run's, and is not this caller's. */
  async #settleOpening(): Promise<void> {
    await this.#opening?.catch(() => undefined);
  }

  #reindex(): void {
    const session = this.#session;
    // Filled from the live path's compacted-away turns on the first search (or compaction), then kept up to date by `compacted`.
    this.#history = this.recall && session !== undefined ? new HistoryIndex(() => session.compactedAway()) : undefined;
  }
}
