import { IndusagiError } from '../../errors/index.js';

/** What was handed to `fromAiSdk` is not an AI SDK language model it can drive. */
export class AiSdkModelError extends IndusagiError {
  static override readonly errorName: string = 'AiSdkModelError';
  constructor(detail: string) {
    super('invalid_request', `fromAiSdk: ${detail}.`);
  }
}

/** `fromAiSdk` options that cannot work, or provider options that are not objects keyed by provider. */
export class AiSdkOptionsError extends IndusagiError {
  static override readonly errorName: string = 'AiSdkOptionsError';
  constructor(detail: string) {
    super('invalid_request', `fromAiSdk: ${detail}.`);
  }
}
