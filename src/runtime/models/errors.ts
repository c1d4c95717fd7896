import { IndusagiError } from '../../errors/index.js';

/** A card handed to `registerModelCard` that cannot describe a model: a bad id, window, cap or price. */
export class ModelCardError extends IndusagiError {
  static override readonly errorName: string = 'ModelCardError';
  constructor(detail: string) {
    super('invalid_request', `Invalid model card: ${detail}.`);
  }
}

/**
 * A model that cannot be used as given: not a model id nor an invoker, an invoker that does not say
 * which model it calls, a model id its invoker is not built for, or a fallback chain that cannot work.
 */
export class ModelChoiceError extends IndusagiError {
  static override readonly errorName: string = 'ModelChoiceError';
  constructor(detail: string) {
    super('invalid_request', `${detail}.`);
  }
}

/**
 * A conversation holds content the model cannot take: an image or a document for a model whose card
 * says it takes none (`input: { images: false }`), or in a place its API has no room for it. Refused
 * before the request, rather than sent for the API to refuse or, worse, for the model to answer
 * without it. `content` says which kind.
 */
export class UnsupportedContentError extends IndusagiError {
  static override readonly errorName: string = 'UnsupportedContentError';
  constructor(
    readonly content: 'images' | 'documents',
    message: string,
  ) {
    super('invalid_request', message);
  }
}
