import type Anthropic from '@anthropic-ai/sdk';
import type { Middleware } from '@anthropic-ai/sdk';

/**
 * The part of an Anthropic client indusagi uses. Structural, so `new Anthropic()` from
 * `@anthropic-ai/sdk` and `new AnthropicBedrock()` both fit without a cast. The per-request
 * `middleware` (SDK 1.x) is how the invoker caps the size of a stream's events.
 */
export interface AnthropicClientLike {
  messages: {
    stream(
      body: Anthropic.MessageStreamParams,
      options?: { signal?: AbortSignal; maxRetries?: number; middleware?: ReadonlyArray<Middleware> },
    ): AsyncIterable<Anthropic.MessageStreamEvent> & {
      finalMessage(): Promise<Anthropic.Message>;
    };
  };
}
