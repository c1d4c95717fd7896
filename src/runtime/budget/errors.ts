import { IndusagiError } from '../../errors/index.js';

/** A `limits` value that cannot work (not a positive finite number, an unknown key), refused before the run queues. */
export class LimitsError extends IndusagiError {
  static override readonly errorName: string = 'LimitsError';
  constructor(detail: string) {
    super('invalid_request', `Invalid \`limits\`: ${detail}.`);
  }
}

/**
 * A run (or a run above it) has `maxCostUsd`, but the model of the next call has no prices on its card:
 * the cost cannot be held, so the call is not made. Register a card with prices (`registerModelCard`)
 * or leave `maxCostUsd` out.
 */
export class UnpricedModelError extends IndusagiError {
  static override readonly errorName: string = 'UnpricedModelError';
  constructor(readonly model: string) {
    super(
      'invalid_request',
      `The run has a maxCostUsd limit, but model ${JSON.stringify(model)} has no prices on its card, so what a call costs cannot be counted; ` +
        'register its prices with registerModelCard, or leave maxCostUsd out.',
    );
  }
}
