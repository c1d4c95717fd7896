import type { RunEvent, RunSnapshot } from '../contract/events.js';
import type { RunLedger } from './ledger.js';

/** Keeps the latest `RunSnapshot` seen on a ledger; only `snapshot`, `settled` and `faulted` advance it. */
export class SnapshotAccumulator {
  private latest: RunSnapshot | undefined;

  /** Starts listening; the returned function stops. */
  attach(ledger: RunLedger): () => void {
    return ledger.subscribe((event) => this.observe(event));
  }

  observe(event: RunEvent): void {
    if (event.kind === 'snapshot' || event.kind === 'settled' || event.kind === 'faulted') {
      this.latest = event.snapshot;
    }
  }

  /** The most recent snapshot, or undefined before any arrived. */
  getSnapshot(): RunSnapshot | undefined {
    return this.latest;
  }
}
