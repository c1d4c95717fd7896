import { IndusagiError } from '../errors/index.js';

/** Bad options or a malformed turn handed to the context manager or a source factory. */
export class ContextInputError extends IndusagiError {
  static override readonly errorName: string = 'ContextInputError';
  constructor(message: string) {
    super('context_input', message);
  }
}

/** A source, the history compactor or the token counter returned something the manager cannot use. */
export class ContextSourceError extends IndusagiError {
  static override readonly errorName: string = 'ContextSourceError';
  constructor(message: string) {
    super('context_source', message);
  }
}
