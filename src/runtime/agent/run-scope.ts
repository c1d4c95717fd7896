import type { RunEvent } from '../contract/events.js';
import type { ModelUsage } from '../contract/model.js';
import type { RunLedger } from '../ledger/ledger.js';
import { addUsage, zeroUsage } from '../usage/sum.js';
import { RunLog } from './run.js';
import { InputRequests } from './input-requests.js';

/**
 * What one run holds while it runs: its id, its events (published on the agent's ledger and kept in
 * its own log for its `Run`), its abort signal and the tokens it spent. Nothing of a run lives in
 * the agent's closure.
 */
export class RunScope {
  readonly log: RunLog;
  readonly usage: ModelUsage = zeroUsage();
  readonly #controller = new AbortController();
  readonly signal: AbortSignal;
  // The caller's signal this run follows until `release`; undefined without one (or once released).
  #follows: AbortSignal | undefined;
  // A sub-agent's run: whether the run that called it is watched (see `forwardedTo`).
  #upstream: (() => boolean) | undefined;

  /** What this run's tools ask the person, waiting for `agent.answer`. */
  readonly inputs: InputRequests;

  constructor(
    readonly runId: string,
    private readonly ledger: RunLedger,
    callerSignal?: AbortSignal,
  ) {
    this.log = new RunLog(runId);
    this.signal = this.#controller.signal;
    // One listener on the caller's signal, taken off when the run is over: `AbortSignal.any` would cost
    // a dependent signal, weak references and a finalizer per run (a sub-agent call is one run each).
    if (callerSignal !== undefined) {
      if (callerSignal.aborted) this.#controller.abort(callerSignal.reason);
      else {
        this.#follows = callerSignal;
        callerSignal.addEventListener('abort', this.#follow, { once: true });
      }
    }
    this.inputs = new InputRequests(
      runId,
      this.signal,
      (event) => this.publish(event),
      () => this.watched,
    );
  }

  abort(): void {
    this.#controller.abort();
  }

  /** The run is over: the caller's signal no longer reaches it (nor holds on to it). */
  release(): void {
    this.#follows?.removeEventListener('abort', this.#follow);
    this.#follows = undefined;
  }

  readonly #follow = (): void => {
    this.#controller.abort(this.#follows?.reason);
  };

  publish(event: RunEvent): void {
    this.log.push(event);
    this.ledger.publish(event);
  }

  /**
   * A sub-agent's run, whose reader (agentTool) only forwards its events into the run that called it:
   * that reader is no audience of its own, so an event is worth building when someone subscribes to
   * the sub-agent, or when someone watches the calling run (`upstream`).
   */
  forwardedTo(upstream: () => boolean): void {
    this.#upstream = upstream;
  }

  /** True when an event would reach anyone now: worth building a costly one (a snapshot copies the context). */
  get watched(): boolean {
    if (this.ledger.subscriberCount > 0) return true;
    return this.#upstream === undefined ? this.log.reading : this.#upstream();
  }

  /** Adds a model call's tokens to the run's and publishes them, with the model billed for them. */
  spend(used: ModelUsage, model: string): void {
    addUsage(this.usage, used);
    this.publish({ kind: 'usage', usage: used, total: { ...this.usage }, model, runId: this.runId });
  }
}
