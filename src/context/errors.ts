import { IndusagiError, isErrorNamed } from '../errors/index.js';

/** Bad options or a malformed turn handed to the context manager or a source factory. */
export class ContextInputError extends IndusagiError {
  constructor(message: string) {
    super('context_input', message);
  }
  static override isInstance(error: unknown): error is ContextInputError {
    return isErrorNamed(error, 'ContextInputError');
  }
}

/** A source, the history compactor or the token counter returned something the manager cannot use. */
export class ContextSourceError extends IndusagiError {
  constructor(message: string) {
    super('context_source', message);
  }
  static override isInstance(error: unknown): error is ContextSourceError {
    return isErrorNamed(error, 'ContextSourceError');
  }
}
