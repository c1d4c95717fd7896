import { IndusagiError, isErrorNamed } from '../errors/index.js';

/** A stream yielded (or a caller applied) something that is not an `AgentPart`. */
export class InvalidPartError extends IndusagiError {
  constructor(message: string) {
    super('invalid_part', message);
  }
  static override isInstance(error: unknown): error is InvalidPartError {
    return isErrorNamed(error, 'InvalidPartError');
  }
}

/** A thread given to the store holds something that is not an `AssistantItem`. */
export class InvalidItemError extends IndusagiError {
  constructor(message: string) {
    super('invalid_item', message);
  }
  static override isInstance(error: unknown): error is InvalidItemError {
    return isErrorNamed(error, 'InvalidItemError');
  }
}

/** `stream` is not a function, or returned something that is not an async iterable of parts. */
export class InvalidStreamError extends IndusagiError {
  constructor(message: string) {
    super('invalid_stream', message);
  }
  static override isInstance(error: unknown): error is InvalidStreamError {
    return isErrorNamed(error, 'InvalidStreamError');
  }
}

/**
 * `send(override)` or `setInput` got something other than a string, most often a DOM event from
 * `onClick={send}` or `onChange={setInput}`.
 */
export class InvalidInputError extends IndusagiError {
  constructor(call: string, received: unknown, hint: string) {
    super('invalid_input', `${call} takes a string; it got ${describeValue(received)}. ${hint}`);
  }
  static override isInstance(error: unknown): error is InvalidInputError {
    return isErrorNamed(error, 'InvalidInputError');
  }
}

/** `follow()` was called while a turn is running; parts of two turns would interleave. */
export class AssistantBusyError extends IndusagiError {
  constructor() {
    super('assistant_busy', 'A turn is already running; wait for it to end (or stop() it) before following another stream.');
  }
  static override isInstance(error: unknown): error is AssistantBusyError {
    return isErrorNamed(error, 'AssistantBusyError');
  }
}

/** A short description of a wrong value for an error message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'no prototype'})`;
  return typeof value;
}
