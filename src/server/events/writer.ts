import { RunFencedError } from '../errors.js';
import type { ServerRunEvent } from '../types.js';

/** How a writer stores a batch (in order, after the batch before it). */
export type StoreEvents = (events: ServerRunEvent[]) => Promise<void>;

const RETRIES = 5;
const FIRST_RETRY_MS = 50;

/**
 * A run's events on their way to the log, as a database's group commit: one write in flight at a time,
 * everything that arrives meanwhile leaves together in the next. Text deltas wait up to `coalesceMs`
 * and travel as one (a chunk of text per write, not a row per token); any other event leaves at once,
 * taking the text before it along. A write that fails is tried again (the log skips events it already
 * has), and a run taken over by another worker (`RunFencedError`) stops the writer: nothing more is
 * stored, and `drain` says why.
 */
export class EventWriter {
  private pending: ServerRunEvent[] = [];
  private writing: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private soon = false;
  private failure: unknown;
  private idle: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  // Calls whose `tool_started` is stored, and who waits to hear of one (see `startStored`).
  private readonly startsStored = new Set<string>();
  private startWaiters = new Map<string, Array<{ resolve: () => void; reject: (error: unknown) => void }>>();

  constructor(
    private readonly store: StoreEvents,
    private readonly coalesceMs: number,
  ) {}

  /** The error that stopped the writer, if one did. */
  get stopped(): unknown {
    return this.failure;
  }

  push(event: ServerRunEvent): void {
    if (this.failure !== undefined) return;
    const last = this.pending[this.pending.length - 1];
    if (event.kind === 'text_delta' && last?.kind === 'text_delta') {
      this.pending[this.pending.length - 1] = { ...last, delta: last.delta + event.delta };
    } else {
      this.pending.push(event);
    }
    this.schedule(event.kind !== 'text_delta');
  }

  /**
   * Resolves once the `tool_started` of call `callId` is stored (pushed before or after this is asked);
   * rejects with what stopped the writer. How a call that must not run twice waits for its start to be
   * durable: the rest of the events keep travelling behind the run.
   */
  startStored(callId: string): Promise<void> {
    if (this.startsStored.has(callId)) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const waiting = this.startWaiters.get(callId);
      if (waiting === undefined) this.startWaiters.set(callId, [{ resolve, reject }]);
      else waiting.push({ resolve, reject });
    });
  }

  /** Resolves once everything pushed is stored; rejects with what stopped the writer. */
  drain(): Promise<void> {
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.pending.length === 0 && this.writing === undefined) return Promise.resolve();
    this.schedule(true);
    return new Promise((resolve, reject) => this.idle.push({ resolve, reject }));
  }

  private schedule(now: boolean): void {
    if (this.writing !== undefined) return; // the write in flight schedules the next one when it ends
    if (now) {
      if (this.timer !== undefined) clearTimeout(this.timer);
      this.timer = undefined;
      if (this.soon) return;
      // Events published in one burst (a tool's start and end, a step's last delta and its usage) leave together.
      this.soon = true;
      setImmediate(() => {
        this.soon = false;
        this.write();
      });
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.write();
    }, this.coalesceMs);
  }

  private write(): void {
    if (this.writing !== undefined || this.pending.length === 0) return this.settleIdle();
    const batch = this.pending;
    this.pending = [];
    this.writing = this.storeWithRetries(batch).then(
      () => {
        this.writing = undefined;
        this.noteStarts(batch);
        if (this.pending.length === 0) return this.settleIdle();
        this.schedule(this.pending.some((event) => event.kind !== 'text_delta') || this.idle.length > 0);
      },
      (error: unknown) => {
        this.writing = undefined;
        this.failure = error;
        this.pending = [];
        this.settleIdle();
        const waiting = this.startWaiters;
        this.startWaiters = new Map();
        for (const waiters of waiting.values()) for (const waiter of waiters) waiter.reject(error);
      },
    );
  }

  private noteStarts(batch: ServerRunEvent[]): void {
    for (const event of batch) {
      if (event.kind !== 'tool_started') continue;
      this.startsStored.add(event.callId);
      const waiting = this.startWaiters.get(event.callId);
      if (waiting === undefined) continue;
      this.startWaiters.delete(event.callId);
      for (const waiter of waiting) waiter.resolve();
    }
  }

  private async storeWithRetries(batch: ServerRunEvent[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.store(batch);
      } catch (error) {
        if (RunFencedError.isInstance(error) || attempt >= RETRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, FIRST_RETRY_MS * 2 ** attempt));
      }
    }
  }

  private settleIdle(): void {
    if (this.failure === undefined && (this.pending.length > 0 || this.writing !== undefined)) return;
    const waiting = this.idle;
    this.idle = [];
    for (const waiter of waiting) {
      if (this.failure === undefined) waiter.resolve();
      else waiter.reject(this.failure);
    }
  }
}
