import { IndusagiError, isErrorNamed } from '../../errors/index.js';

/** A value handed in as `ModelUsage` that is not one: a count missing, negative, fractional or not a number. */
export class InvalidUsageError extends IndusagiError {
  constructor(detail: string) {
    super('invalid_request', `Invalid token usage: ${detail}.`);
  }
  static override isInstance(error: unknown): error is InvalidUsageError {
    return isErrorNamed(error, 'InvalidUsageError');
  }
}
