import { IndusagiError } from '../errors/index.js';
import { describeValue } from '../parts/errors.js';

/** A thread given to the store holds something that is not an `AssistantItem`. */
export class InvalidItemError extends IndusagiError {
  static override readonly errorName: string = 'InvalidItemError';
  constructor(message: string) {
    super('invalid_item', message);
  }
}

/**
 * `send(override)` or `setInput` got something other than a string, most often a DOM event from
 * `onClick={send}` or `onChange={setInput}`.
 */
export class InvalidInputError extends IndusagiError {
  static override readonly errorName: string = 'InvalidInputError';
  constructor(call: string, received: unknown, hint: string) {
    super('invalid_input', `${call} takes a string; it got ${describeValue(received)}. ${hint}`);
  }
}

/** `follow()` was called while a turn is running; parts of two turns would interleave. */
export class AssistantBusyError extends IndusagiError {
  static override readonly errorName: string = 'AssistantBusyError';
  constructor() {
    super('assistant_busy', 'A turn is already running; wait for it to end (or stop() it) before following another stream.');
  }
}
