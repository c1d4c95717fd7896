import type Anthropic from '@anthropic-ai/sdk';
import type { CacheMode, CacheTtl, ModelInvoker, ModelReply, ModelRequest } from '../../runtime/contract/model.js';
import { ModelCallError, RunAbortedError } from '../../runtime/loop/errors.js';
import { errorMessage } from '../../errors/base.js';
import { cacheSettingsProblem, placeMessageBreakpoints, systemParam } from './cache.js';
import type { AnthropicClientLike } from './client.js';
import { CacheSettingsError } from './errors.js';
import { ReplyTracker } from './reply-tracker.js';
import { fromMessage, toMessageParams, toModelUsage } from './wire.js';

/** Defaults for requests that do not set `cache`/`cacheTtl` themselves. */
export type AnthropicInvokerOptions = { cache?: CacheMode; cacheTtl?: CacheTtl };

/**
 * A `ModelInvoker` over an Anthropic client: streams each call with `client.messages.stream`, hands
 * every text delta to `onText`, and resolves with the final message as an assistant turn and its usage.
 * Prompt caching is `auto` unless the request or `options` say `off` (see `requestBody`). Failures
 * reject typed: `CacheSettingsError` for cache settings that cannot work, before any request;
 * `RunAbortedError` when the request's signal fired; `ModelCallError` (with the HTTP `status` when
 * there is one, and the SDK's error as `cause`) for network errors, HTTP errors after the client's own
 * retries, and `error` events mid-stream.
 */
export function createAnthropicInvoker(client: AnthropicClientLike, options: AnthropicInvokerOptions = {}): ModelInvoker {
  const problem = cacheSettingsProblem(options.cache, options.cacheTtl);
  if (problem !== null) throw new CacheSettingsError(problem);
  return async (request) => {
    const body = requestBody({ ...request, cache: request.cache ?? options.cache, cacheTtl: request.cacheTtl ?? options.cacheTtl });
    const tracker = new ReplyTracker();
    try {
      const stream = client.messages.stream(body, request.signal ? { signal: request.signal } : undefined);
      for await (const event of stream) {
        tracker.observe(event);
        if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') request.onText?.(event.delta.text);
      }
      const message = await stream.finalMessage();
      return { turn: fromMessage(message), stopReason: message.stop_reason ?? 'end_turn', usage: toModelUsage(message.usage) };
    } catch (error) {
      if (request.signal?.aborted) throw new RunAbortedError({ cause: error });
      const salvaged = tracker.salvage(error);
      if (salvaged !== undefined) return { turn: salvaged.turn, stopReason: 'tool_use', usage: toModelUsage(salvaged.usage) } satisfies ModelReply;
      throw toModelCallError(error);
    }
  };
}

/**
 * The request body for `ModelRequest`; exported for callers that build their own streaming calls.
 * With `cache` `auto` (the default) it carries `cache_control` breakpoints as docs/usage-and-caching.md
 * lays out; with `off`, none. Throws `CacheSettingsError` for a `cache`/`cacheTtl` it does not know.
 */
export function requestBody(request: ModelRequest): Anthropic.MessageStreamParams {
  const problem = cacheSettingsProblem(request.cache, request.cacheTtl);
  if (problem !== null) throw new CacheSettingsError(problem);
  const marker: Anthropic.CacheControlEphemeral | undefined =
    request.cache === 'off' ? undefined : request.cacheTtl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: request.cacheTtl };
  const body: Anthropic.MessageStreamParams = {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    messages: toMessageParams(request.messages),
  };
  const system = systemParam(request.system, request.volatileSystem, marker);
  if (system !== undefined) body.system = system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
    }));
  }
  if (marker !== undefined) placeMessageBreakpoints(body, marker);
  return body;
}

type ApiErrorShape = { status?: unknown; error?: { error?: { type?: unknown; message?: unknown } } };

function toModelCallError(error: unknown): ModelCallError {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ApiErrorShape;
  const status = typeof shape.status === 'number' ? shape.status : undefined;
  const detail = shape.error?.error;
  const described =
    typeof detail?.type === 'string'
      ? `${detail.type}: ${typeof detail.message === 'string' ? detail.message : 'no message'}`
      : errorMessage(error);
  const where = status !== undefined ? `HTTP ${status}` : 'no HTTP status';
  return new ModelCallError(`The Anthropic API call failed (${where}): ${described}`, { status, cause: error });
}
