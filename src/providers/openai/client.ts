import type { ResponsesStreamBody } from './wire.js';

/**
 * The part of an OpenAI client indusagi uses: the Responses API, streamed. Structural and loose on
 * purpose: `new OpenAI()` and `new AzureOpenAI()` from `openai` 6 and 7 all fit without a cast, though
 * their own event types differ from major to major. The events are read as the wire format defines
 * them (see `ReplyAssembler`), whichever client delivered them.
 */
export interface OpenAIClientLike {
  responses: {
    create(body: ResponsesStreamBody, options?: { signal?: AbortSignal }): PromiseLike<AsyncIterable<unknown>>;
  };
}
