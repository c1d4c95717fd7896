import { IndusagiError } from '../errors/index.js';

/** Bad input to a memory store or helper (text, options, seed records, meta). Nothing was changed. */
export class MemoryInputError extends IndusagiError {
  static override readonly errorName: string = 'MemoryInputError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('memory_input', message, options);
  }
}
