import { IndusagiError } from '../errors/index.js';

/** A stream yielded (or a caller applied) something that is not an `AgentPart`. */
export class InvalidPartError extends IndusagiError {
  static override readonly errorName: string = 'InvalidPartError';
  constructor(message: string) {
    super('invalid_part', message);
  }
}

/** `stream` is not a function, or returned something that is not an async iterable of parts. */
export class InvalidStreamError extends IndusagiError {
  static override readonly errorName: string = 'InvalidStreamError';
  constructor(message: string) {
    super('invalid_stream', message);
  }
}

/** A short description of a wrong value for an error message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return `an object (${(value as object).constructor?.name ?? 'no prototype'})`;
  return typeof value;
}
