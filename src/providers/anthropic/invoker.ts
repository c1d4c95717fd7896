import type Anthropic from '@anthropic-ai/sdk';
import type { Middleware } from '@anthropic-ai/sdk';
import type { ModelCard, ModelInvoker, ModelReply, ModelRequest, ModelRetry } from '../../runtime/contract/model.js';
import { modelCard } from '../../runtime/models/cards.js';
import { boundModel } from '../../runtime/models/resolve.js';
import { ModelCallError, PromptTooLongError, RunAbortedError } from '../../runtime/loop/errors.js';
import { isPromptTooLongError, reportedPromptTokens } from '../../runtime/compaction/prompt-too-long.js';
import { errorMessage } from '../../errors/base.js';
import {
  ANTHROPIC,
  anthropicOptions,
  checkAnthropicOptions,
  placeMessageBreakpoints,
  systemParam,
  type AnthropicProviderOptions,
} from './cache.js';
import type { AnthropicClientLike } from './client.js';
import { DEFAULT_MAX_RETRY_DELAY_MS, retryDelayMs, retryReason, sleep } from './retry.js';
import { ReplyTracker } from './reply-tracker.js';
import { applyAnthropicControls } from './controls.js';
import { checkAnthropicControls } from './check-controls.js';
import { fromMessage, toMessageParams, toModelUsage } from './wire.js';
import {
  CallReading,
  capResponse,
  causeOf,
  checkContent,
  idleRetry,
  IdleWatch,
  nativeOutput,
  StreamEventTooLargeError,
  StreamLimitsError,
  streamLimits,
  withOutputInstruction,
  type StreamLimits,
} from '../shared/index.js';

/**
 * The model the invoker is built for (`model`, and optionally its `card`), defaults for requests whose
 * `providerOptions.anthropic` does not set them (`cache`, `cacheTtl`, `maxRetries`, `maxRetryDelayMs`),
 * and how the stream is read (`StreamLimits`).
 */
export type AnthropicInvokerOptions = AnthropicProviderOptions &
  StreamLimits & {
    /** The model every call goes to, whatever the request names; it is the invoker's `modelId`. */
    model?: string;
    /** What is known of that model; default: the card registry's (`modelCard(model)`). */
    card?: ModelCard;
  };

/**
 * A `ModelInvoker` over an Anthropic client: streams each call with `client.messages.stream`, hands
 * every text delta to `onText` (and says when the first event arrived through `onFirstChunk`), and
 * resolves with the final message as an assistant turn, its usage, its id and the model that answered.
 * Prompt caching is `auto` unless the request's `providerOptions.anthropic` or `options` say `off`, or
 * the request is not `cacheable` (see `requestBody`). The invoker is tagged `provider: 'anthropic'` and
 * checks `providerOptions.anthropic` eagerly through `checkOptions`.
 * Built with `options.model`, it carries that model (`modelId`, and `card` when given) and calls it
 * whatever a request names, so an agent can take it as its `model`.
 *
 * It retries a call that failed before anything streamed (429, 529, 5xx, a dropped connection) itself,
 * rather than leaving it to the SDK, so that no wait is silent or unbounded: up to `maxRetries` times
 * (default: the client's own `maxRetries`, 2 for `new Anthropic()`), telling `request.onRetry` each time
 * with the wait, which is what the API asked for (`retry-after`) or backoff. A wait longer than
 * `maxRetryDelayMs` (default 60 s) is not taken: the call fails at once.
 *
 * The stream is read within `StreamLimits`: no content event (a `ping` is none) for `idleTimeoutMs`
 * (default 60 s) closes the request with `StreamIdleError`, retried at once, as a call that failed
 * before streaming, while no text reached `onText`; an event over `maxEventBytes` (default 8 MiB) cuts
 * the stream with `StreamEventTooLargeError`, through per-request middleware (a client without it, not
 * `@anthropic-ai/sdk` 1.x, is refused with `StreamLimitsError` unless `maxEventBytes` is `Infinity`).
 * The request's model card decides the rest: content it says the model cannot take is refused with
 * `UnsupportedContentError`, and with `structuredOutput: 'instruction'` a `responseFormat` goes as an
 * instruction in the system text instead of `output_config`.
 *
 * Failures reject typed: `CacheSettingsError`/`AnthropicOptionsError` for options that cannot work,
 * before any request; `RunAbortedError` when the request's signal fired (also during a retry wait);
 * `PromptTooLongError` for the 400 "prompt is too long"; `ModelCallError` (with the HTTP `status`
 * when there is one, and the SDK's error as `cause`) for network errors, HTTP errors once retries are
 * spent, and `error` events mid-stream.
 */
export function createAnthropicInvoker(client: AnthropicClientLike, options: AnthropicInvokerOptions = {}): ModelInvoker {
  checkAnthropicOptions(options);
  const model = boundModel(options, 'createAnthropicInvoker');
  const limits = streamLimits(options);
  const middleware = eventCap(client, limits.maxEventBytes);
  const clientRetries = (client as { maxRetries?: unknown }).maxRetries;
  // The card of the model it is built for: what that model takes, whatever a request names.
  const bound = model.card ?? (model.modelId === undefined ? undefined : modelCard(model.modelId));
  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    const own = anthropicOptions(request.providerOptions);
    const body =
      model.modelId === undefined ? requestBody(request, options) : requestBody({ ...request, model: model.modelId }, options, bound);
    const maxRetries = own.maxRetries ?? options.maxRetries ?? (typeof clientRetries === 'number' ? clientRetries : 2);
    const maxDelay = own.maxRetryDelayMs ?? options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
    const reading = new CallReading(request);
    for (let retry = 1; ; retry++) {
      const tracker = new ReplyTracker();
      const watch = new IdleWatch(limits.idleTimeoutMs, request.signal).begin();
      try {
        const stream = client.messages.stream(body, { signal: watch.signal, maxRetries: 0, ...(middleware && { middleware }) });
        for await (const event of watch.read(stream)) {
          // The SDK drops `ping` events itself: every event that arrives here is content.
          watch.touch();
          reading.onFirstChunk();
          tracker.observe(event);
          if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') reading.onText(event.delta.text);
        }
        const message = await watch.race(stream.finalMessage());
        return {
          turn: fromMessage(tracker.strictInputs(message)),
          stopReason: message.stop_reason ?? 'end_turn',
          usage: toModelUsage(message.usage),
          id: message.id,
          model: message.model,
        };
      } catch (error) {
        if (request.signal?.aborted) throw new RunAbortedError({ cause: error });
        const oversized = causeOf(error, StreamEventTooLargeError.isInstance);
        if (oversized !== undefined) throw oversized;
        const stalled = idleRetry(watch, reading, retry - 1, maxRetries);
        if (stalled !== undefined) {
          request.onRetry?.(stalled);
          continue;
        }
        const salvaged = tracker.salvage(error);
        if (salvaged !== undefined)
          return { turn: salvaged.turn, stopReason: 'tool_use', usage: toModelUsage(salvaged.usage) } satisfies ModelReply;
        // Only a call that failed before anything streamed is tried again: a reply cut off halfway is not.
        const worth = tracker.started ? null : retryReason(error);
        if (worth === null || retry > maxRetries) throw toModelCallError(error);
        const delayMs = Math.round(retryDelayMs(error, retry));
        if (delayMs > maxDelay) {
          throw toModelCallError(
            error,
            `it asked to wait ${Math.ceil(delayMs / 1000)} s before a retry, over the ${Math.round(maxDelay / 1000)} s limit (maxRetryDelayMs)`,
          );
        }
        const retryInfo: ModelRetry = { attempt: retry + 1, delayMs, reason: worth.reason };
        if (worth.status !== undefined) retryInfo.status = worth.status;
        request.onRetry?.(retryInfo);
        await sleep(delayMs, request.signal);
      } finally {
        watch.dispose();
      }
    }
  };
  return Object.assign(invoke, {
    provider: ANTHROPIC,
    ...model,
    checkOptions: (given: ModelRequest['providerOptions']) => void anthropicOptions(given),
    checkControls: checkAnthropicControls,
  });
}

/**
 * The request body for `ModelRequest`; exported for callers that build their own streaming calls.
 * With `cache` `auto` (the default: `providerOptions.anthropic.cache`, else `defaults.cache`) it
 * carries `cache_control` breakpoints as docs/usage-and-caching.md lays out; with `off`, or for a
 * request that is not `cacheable`, none. The request's controls map to `temperature`, `top_p`,
 * `stop_sequences`, `tool_choice` and `thinking` (see `applyAnthropicControls`). Throws `CacheSettingsError` for options it does not know.
 * The model's card (`card`, by default the one for `request.model`) decides what it takes: content it
 * says the model cannot take throws `UnsupportedContentError`; with `structuredOutput: 'instruction'`
 * a `responseFormat` goes as an instruction after the volatile system text instead of `output_config`.
 */
export function requestBody(
  request: ModelRequest,
  defaults: AnthropicProviderOptions = {},
  card: ModelCard = modelCard(request.model),
): Anthropic.MessageStreamParams {
  checkContent(request.messages, card);
  if (!nativeOutput(card)) request = withOutputInstruction(request);
  const own = anthropicOptions(request.providerOptions);
  const cache = request.cacheable === false ? 'off' : (own.cache ?? defaults.cache);
  const cacheTtl = own.cacheTtl ?? defaults.cacheTtl;
  const marker: Anthropic.CacheControlEphemeral | undefined =
    cache === 'off' ? undefined : cacheTtl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: cacheTtl };
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
  applyAnthropicControls(body, request);
  if (marker !== undefined) placeMessageBreakpoints(body, marker);
  return body;
}

/**
 * The per-request middleware that reads each event stream through the event cap, or undefined when the
 * cap is off. Throws `StreamLimitsError` for a client that takes no middleware: it would ignore it,
 * and an uncapped stream must be asked for (`maxEventBytes: Infinity`), not fallen into.
 */
function eventCap(client: AnthropicClientLike, maxEventBytes: number): Middleware[] | undefined {
  if (maxEventBytes === Infinity) return undefined;
  if (!Array.isArray((client as { middleware?: unknown }).middleware)) {
    throw new StreamLimitsError(
      'this Anthropic client takes no per-request middleware (it is not from @anthropic-ai/sdk 1.x), so the size of its stream ' +
        'events cannot be capped; pass `maxEventBytes: Infinity` to read its streams uncapped',
    );
  }
  return [async (request, next) => capResponse(await next(request), maxEventBytes)];
}

type ApiErrorShape = { status?: unknown; error?: { error?: { type?: unknown; message?: unknown } } };

function toModelCallError(error: unknown, why?: string): ModelCallError {
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ApiErrorShape;
  const status = typeof shape.status === 'number' ? shape.status : undefined;
  const detail = shape.error?.error;
  const described =
    typeof detail?.type === 'string'
      ? `${detail.type}: ${typeof detail.message === 'string' ? detail.message : 'no message'}`
      : errorMessage(error);
  const where = status !== undefined ? `HTTP ${status}` : 'no HTTP status';
  const message = `The Anthropic API call failed (${where}): ${described}${why === undefined ? '' : `; ${why}`}`;
  // The API words "too long" in its message only; typed here, so the runtime need not know the wording.
  if (isPromptTooLongError(error))
    return new PromptTooLongError(message, { status, cause: error, promptTokens: reportedPromptTokens(error) });
  return new ModelCallError(message, { status, cause: error });
}
