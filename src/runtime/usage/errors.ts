import { IndusagiError } from '../../errors/index.js';

/** A value handed in as `ModelUsage` that is not one: a count missing, negative, fractional or not a number. */
export class InvalidUsageError extends IndusagiError {
  static override readonly errorName: string = 'InvalidUsageError';
  constructor(detail: string) {
    super('invalid_request', `Invalid token usage: ${detail}.`);
  }
}
