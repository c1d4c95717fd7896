import type { RunEvent } from '../contract/events.js';

export type RunEventHandler = (event: RunEvent) => void;

/** Called once for every error a subscriber throws; the event is still delivered to the others. */
export type SubscriberErrorHook = (error: unknown, event: RunEvent) => void;

export type RunLedgerOptions = {
  /** Where subscriber errors go. Default: `console.error` with the event kind. */
  onSubscriberError?: SubscriberErrorHook;
};

type Subscription = { handler: RunEventHandler; active: boolean };

const reportToConsole: SubscriberErrorHook = (error, event) => {
  console.error(`[indusagi] a RunLedger subscriber threw while handling "${event.kind}":`, error);
};

/**
 * Synchronous, in-order fan-out of `RunEvent`s. Subscribers are isolated from each other: one that
 * throws is reported through `onSubscriberError` and the rest still receive the event.
 */
export class RunLedger {
  // Copy-on-write: publish iterates a stable array, so (un)subscribing during delivery is safe.
  private subscriptions: Subscription[] = [];
  private readonly onSubscriberError: SubscriberErrorHook;

  constructor(options: RunLedgerOptions = {}) {
    this.onSubscriberError = options.onSubscriberError ?? reportToConsole;
  }

  /** Adds a handler; the returned disposer removes it (idempotent). A disposed handler gets no further event, even mid-delivery. */
  subscribe(handler: RunEventHandler): () => void {
    const subscription: Subscription = { handler, active: true };
    this.subscriptions = [...this.subscriptions, subscription];
    return () => {
      if (!subscription.active) return;
      subscription.active = false;
      this.subscriptions = this.subscriptions.filter((s) => s !== subscription);
    };
  }

  get subscriberCount(): number {
    return this.subscriptions.length;
  }

  publish(event: RunEvent): void {
    const subscriptions = this.subscriptions;
    for (let i = 0; i < subscriptions.length; i++) {
      const subscription = subscriptions[i];
      if (!subscription.active) continue;
      try {
        subscription.handler(event);
      } catch (error) {
        this.reportSubscriberError(error, event);
      }
    }
  }

  private reportSubscriberError(error: unknown, event: RunEvent): void {
    try {
      this.onSubscriberError(error, event);
    } catch (hookError) {
      // A broken hook must not break delivery either; fall back to the console so nothing is lost.
      reportToConsole(hookError, event);
    }
  }
}
