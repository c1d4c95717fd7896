import { IndusagiError } from '../../errors/index.js';

/** A card handed to `registerModelCard` that cannot describe a model: a bad id, window, cap or price. */
export class ModelCardError extends IndusagiError {
  static override readonly errorName: string = 'ModelCardError';
  constructor(detail: string) {
    super('invalid_request', `Invalid model card: ${detail}.`);
  }
}
