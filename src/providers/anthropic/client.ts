import type Anthropic from '@anthropic-ai/sdk';

/**
 * The part of an Anthropic client indusagi uses. Structural, so `new Anthropic()` from
 * `@anthropic-ai/sdk` and `new AnthropicBedrock()` both fit without a cast.
 */
export interface AnthropicClientLike {
  messages: {
    stream(
      body: Anthropic.MessageStreamParams,
      options?: { signal?: AbortSignal; maxRetries?: number },
    ): AsyncIterable<Anthropic.MessageStreamEvent> & {
      finalMessage(): Promise<Anthropic.Message>;
    };
  };
}
