import type { RunEvent } from '../runtime/contract/events.js';
import type { ModelUsage } from '../runtime/contract/model.js';
import { addUsage, sessionCost, UNKNOWN_MODEL, zeroUsage } from '../runtime/usage/index.js';
import type { TrajectoryStep } from './types.js';

/**
 * Follows one case's run events: the tool calls in the order they started (results filled in as they
 * finish, a sub-agent's calls under the agent tool that ran it), the tokens of every model call of the
 * tree, by the model billed for them (what prices the case), and the sub-agents' sessions.
 */
export class TrajectoryRecorder {
  readonly steps: TrajectoryStep[] = [];
  readonly usage: ModelUsage = zeroUsage();
  readonly sessions = new Set<string>();
  readonly #byModel = new Map<string, ModelUsage>();
  readonly #byPath = new Map<string, TrajectoryStep>();

  see(event: RunEvent): void {
    this.#see(event, []);
  }

  #see(event: RunEvent, calls: readonly string[], sessionId?: string): void {
    switch (event.kind) {
      case 'nested':
        this.sessions.add(event.sessionId);
        this.#see(event.event, [...calls, ...event.calls], event.sessionId);
        return;
      case 'usage': {
        addUsage(this.usage, event.usage);
        const model = event.model ?? UNKNOWN_MODEL;
        let sum = this.#byModel.get(model);
        if (sum === undefined) this.#byModel.set(model, (sum = zeroUsage()));
        addUsage(sum, event.usage);
        return;
      }
      case 'tool_started': {
        const key = [...calls, event.callId].join('/');
        if (this.#byPath.has(key)) return;
        const step: TrajectoryStep = { name: event.name, callId: event.callId, input: event.input };
        this.#byPath.set(key, step);
        this.#siblingsAt(calls, sessionId).push(step);
        return;
      }
      case 'tool_finished': {
        const key = [...calls, event.callId].join('/');
        let step = this.#byPath.get(key);
        // A call refused before it ran (unknown tool, invalid input) finishes without starting.
        if (step === undefined) {
          step = { name: event.name, callId: event.callId, input: event.input };
          this.#byPath.set(key, step);
          this.#siblingsAt(calls, sessionId).push(step);
        }
        step.result = event.result;
        step.isError = event.isError;
        return;
      }
    }
  }

  /**
   * What the calls seen cost at the model cards' list prices, priced as the sessions' stored replies
   * are (`sessionCost`); undefined when some model has no prices (or a call named no model).
   */
  costUsd(): number | undefined {
    const cost = sessionCost([...this.#byModel].map(([model, usage]) => ({ model, usage })));
    return cost.unpriced.length > 0 ? undefined : (cost.cost?.usd ?? 0);
  }

  /** The list a call under the agent-tool calls `calls` belongs in. */
  #siblingsAt(calls: readonly string[], sessionId: string | undefined): TrajectoryStep[] {
    if (calls.length === 0) return this.steps;
    const parent = this.#byPath.get(calls.join('/'));
    if (parent === undefined) return this.steps;
    if (sessionId !== undefined) parent.sessionId = sessionId;
    return (parent.children ??= []);
  }
}
