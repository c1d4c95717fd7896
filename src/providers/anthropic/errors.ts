import { IndusagiError, isErrorNamed } from '../../errors/index.js';

/** A message handed to `runAgent` holds something indusagi's turns cannot carry (an image, a system role…). */
export class UnsupportedMessageError extends IndusagiError {
  constructor(readonly messageIndex: number, detail: string) {
    super('invalid_request', `messages[${messageIndex}]: ${detail}`);
  }
  static override isInstance(error: unknown): error is UnsupportedMessageError {
    return isErrorNamed(error, 'UnsupportedMessageError');
  }
}

/** `runAgent` options that cannot work, refused before any request is made. */
export class RunAgentOptionsError extends IndusagiError {
  constructor(message: string) {
    super('invalid_request', message);
  }
  static override isInstance(error: unknown): error is RunAgentOptionsError {
    return isErrorNamed(error, 'RunAgentOptionsError');
  }
}

/** A `cache` or `cacheTtl` setting the Anthropic invoker does not know, refused before any request. */
export class CacheSettingsError extends IndusagiError {
  constructor(detail: string) {
    super('invalid_request', `Invalid prompt-caching settings: ${detail}.`);
  }
  static override isInstance(error: unknown): error is CacheSettingsError {
    return isErrorNamed(error, 'CacheSettingsError');
  }
}
