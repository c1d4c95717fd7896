import { IndusagiError, isErrorNamed } from '../errors/index.js';

/** Bad input to a memory store or helper (text, options, seed records, meta). Nothing was changed. */
export class MemoryInputError extends IndusagiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('memory_input', message, options);
  }
  static override isInstance(error: unknown): error is MemoryInputError {
    return isErrorNamed(error, 'MemoryInputError');
  }
}
