import { IndusagiError } from '../errors/index.js';

/** A stream yielded (or a caller applied) something that is not an `AgentPart`. */
export class InvalidPartError extends IndusagiError {
  static override readonly errorName = 'InvalidPartError';
  constructor(message: string) {
    super('invalid_part', message);
  }
}

/** A thread given to the store holds something that is not an `AssistantItem`. */
export class InvalidItemError extends IndusagiError {
  static override readonly errorName = 'InvalidItemError';
  constructor(message: string) {
    super('invalid_item', message);
  }
}

/** `stream` is not a function, or returned something that is not an async iterable of parts. */
export class InvalidStreamError extends IndusagiError {
  static override readonly errorName = 'InvalidStreamError';
  constructor(message: string) {
    super('invalid_stream', message);
  }
}

/**
 * `send(override)` or `setInput` got something other than a string, most often a DOM event from
 * `onClick={send}` or `onChange={setInput}`.
 */
export class InvalidInputError extends IndusagiError {
  static override readonly errorName = 'InvalidInputError';
  constructor(call: string, received: unknown, hint: string) {
    super('invalid_input', `${call} takes a string; it got ${describeValue(received)}. ${hint}`);
  }
}

/** `follow()` was called while a turn is running; parts of two turns would interleave. */
export class AssistantBusyError extends IndusagiError {
  static override readonly errorName = 'AssistantBusyError';
  constructor() {
    super('assistant_busy', 'A turn is already running; wait for it to end (or stop() it) before following another stream.');
  }
}

/** A short description of a wrong value for an error message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'no prototype'})`;
  return typeof value;
}
