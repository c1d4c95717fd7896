import { IndusagiError } from '../../errors/index.js';

/** A `providerOptions.openai` key or value the OpenAI invoker does not know, refused before any request. */
export class OpenAIOptionsError extends IndusagiError {
  static override readonly errorName: string = 'OpenAIOptionsError';
  constructor(detail: string) {
    super('invalid_request', `Invalid OpenAI provider options: ${detail}.`);
  }
}
