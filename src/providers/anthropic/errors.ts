import { IndusagiError } from '../../errors/index.js';

/** A message handed to `runAgent` holds something indusagi's turns cannot carry (an image, a system role…). */
export class UnsupportedMessageError extends IndusagiError {
  static override readonly errorName: string = 'UnsupportedMessageError';
  constructor(readonly messageIndex: number, detail: string) {
    super('invalid_request', `messages[${messageIndex}]: ${detail}`);
  }
}

/** `runAgent` options that cannot work, refused before any request is made. */
export class RunAgentOptionsError extends IndusagiError {
  static override readonly errorName: string = 'RunAgentOptionsError';
  constructor(message: string) {
    super('invalid_request', message);
  }
}

/** A `cache` or `cacheTtl` setting the Anthropic invoker does not know, refused before any request. */
export class CacheSettingsError extends IndusagiError {
  static override readonly errorName: string = 'CacheSettingsError';
  constructor(detail: string) {
    super('invalid_request', `Invalid prompt-caching settings: ${detail}.`);
  }
}
