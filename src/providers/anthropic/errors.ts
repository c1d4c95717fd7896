import { IndusagiError } from '../../errors/index.js';
import { AgentConfigError } from '../../runtime/agent/errors.js';

/** A message handed to `runAgent` holds something indusagi's turns cannot carry (an image, a system role…). */
export class UnsupportedMessageError extends IndusagiError {
  static override readonly errorName: string = 'UnsupportedMessageError';
  constructor(
    readonly messageIndex: number,
    detail: string,
  ) {
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

/**
 * An option for the Anthropic invoker (`providerOptions.anthropic`, `createAnthropicInvoker`) it cannot use,
 * refused before any request.
 */
export class AnthropicOptionsError extends IndusagiError {
  static override readonly errorName: string = 'AnthropicOptionsError';
  constructor(detail: string) {
    super('invalid_request', `Invalid Anthropic options: ${detail}.`);
  }
}

/** A `cache` or `cacheTtl` setting the Anthropic invoker does not know, refused before any request. */
export class CacheSettingsError extends IndusagiError {
  static override readonly errorName: string = 'CacheSettingsError';
  constructor(detail: string) {
    super('invalid_request', `Invalid prompt-caching settings: ${detail}.`);
  }
}

/** The API's event stream broke its own rules (a delta for a block that never started): the reply cannot be trusted. */
export class MalformedStreamError extends IndusagiError {
  static override readonly errorName: string = 'MalformedStreamError';
  constructor(detail: string) {
    super('model_error', `The reply stream is malformed: ${detail}.`);
  }
}

/**
 * Claude would be called through `new Anthropic()`, which reads its credentials from the environment,
 * and the environment holds none: refused when the agent (or invoker) is created, not on the first call.
 */
export class MissingApiKeyError extends AgentConfigError {
  static override readonly errorName: string = 'MissingApiKeyError';
  constructor(
    readonly variable: string,
    remedy: string,
  ) {
    super(
      `No Anthropic credentials: Claude through \`new Anthropic()\` needs ${variable} (or ANTHROPIC_AUTH_TOKEN, or an ANTHROPIC_PROFILE) ` +
        `in the environment, and none is set. ${remedy}`,
    );
  }
}
