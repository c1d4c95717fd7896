import type OpenAI from 'openai';
import { errorMessage } from '../../errors/base.js';
import type { ModelCard, ModelInvoker, ModelReply, ModelRequest } from '../../runtime/contract/model.js';
import { modelCard } from '../../runtime/models/cards.js';
import { boundModel } from '../../runtime/models/resolve.js';
import { RunAbortedError } from '../../runtime/loop/errors.js';
import {
  CallReading,
  capResponse,
  causeOf,
  idleRetry,
  IdleWatch,
  StreamEventTooLargeError,
  StreamLimitsError,
  streamLimits,
  type StreamLimits,
} from '../shared/index.js';
import type { OpenAIClientLike } from './client.js';
import { toModelCallError } from './failures.js';
import { checkOpenAIOptions, OPENAI, openaiOptions, type OpenAIProviderOptions } from './options.js';
import { ReplyAssembler } from './reply.js';
import { openAIRequestBody } from './wire.js';

/**
 * The model the invoker is built for (`model`, and optionally its `card`), defaults for requests whose
 * `providerOptions.openai` does not set them (`reasoningEffort`, `promptCacheKey`), and how the stream is
 * read (`StreamLimits`).
 */
export type OpenAIInvokerOptions = OpenAIProviderOptions &
  StreamLimits & {
    /** The model every call goes to, whatever the request names; it is the invoker's `modelId`. */
    model?: string;
    /** What is known of that model; default: the card registry's (`modelCard(model)`). */
    card?: ModelCard;
  };

/**
 * A `ModelInvoker` over the official `openai` client and OpenAI's Responses API: each call streams
 * `client.responses.create({ ..., stream: true })`, hands every text delta to `onText`, and resolves
 * with the response as an assistant turn (text, reasoning summaries as thinking, function calls as tool
 * calls), its stop reason and usage (cached tokens as cache reads). Retries are the client's own
 * (`maxRetries`, default 2, on 408/409/429/5xx). Failures reject typed: `OpenAIOptionsError` for options
 * it does not know, before any request; `RunAbortedError` once the request's signal fired;
 * `PromptTooLongError` when the prompt is over the model's window; `ModelCallError` (with the HTTP
 * `status` when there is one, the SDK's error as `cause`) for every other failed call, an `error` event
 * or failed response mid-stream, and a stream that ends before the response completed. Built with
 * `options.model`, it carries that model (`modelId`, and `card` when given) and calls it whatever a
 * request names, so an agent can take it as its `model`.
 *
 * The stream is read within `StreamLimits`: once the response arrived (before that the client's own
 * `timeout` and retries apply), no content event (a `keepalive` is none) for `idleTimeoutMs` (default
 * 60 s) closes the request with `StreamIdleError`, retried at once up to the client's `maxRetries`
 * while no text reached `onText`; an event over `maxEventBytes` (default 8 MiB) cuts the stream with
 * `StreamEventTooLargeError`. The cap reads the stream through a copy of the client with a wrapped
 * `fetch` (`client.withOptions`); a client that cannot take one (not from `openai`, or on X.509
 * workload identity) is refused with `StreamLimitsError` unless `maxEventBytes` is `Infinity`.
 */
export function createOpenAIInvoker(client: OpenAIClientLike, options: OpenAIInvokerOptions = {}): ModelInvoker {
  const { idleTimeoutMs, maxEventBytes, model: id, card, ...own } = options ?? {};
  const defaults = checkOpenAIOptions(own, '`createOpenAIInvoker` options');
  const model = boundModel({ model: id, card }, 'createOpenAIInvoker');
  // The card of the model it is built for: what that model takes, whatever a request names.
  const bound = model.card ?? (model.modelId === undefined ? undefined : modelCard(model.modelId));
  const limits = streamLimits({ idleTimeoutMs, maxEventBytes });
  const reader = eventCap(client, limits.maxEventBytes);
  const clientRetries = (client as { maxRetries?: unknown }).maxRetries;
  const maxRetries = typeof clientRetries === 'number' ? clientRetries : 2;
  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    const body =
      model.modelId === undefined
        ? openAIRequestBody(request, defaults)
        : openAIRequestBody({ ...request, model: model.modelId }, defaults, bound);
    const reading = new CallReading(request);
    for (let retry = 1; ; retry++) {
      const assembler = new ReplyAssembler(reading.onText);
      const watch = new IdleWatch(limits.idleTimeoutMs, request.signal);
      try {
        const stream = await reader.responses.create(body, { signal: watch.signal });
        for await (const event of watch.begin().read(stream)) {
          const type = (event as { type?: unknown }).type;
          if (type !== 'keepalive') watch.touch();
          reading.onFirstChunk();
          assembler.observe(event as OpenAI.Responses.ResponseStreamEvent);
        }
        return assembler.reply();
      } catch (error) {
        if (request.signal?.aborted) throw new RunAbortedError({ cause: error });
        const oversized = causeOf(error, StreamEventTooLargeError.isInstance);
        if (oversized !== undefined) throw oversized;
        const stalled = idleRetry(watch, reading, retry - 1, maxRetries);
        if (stalled !== undefined) {
          request.onRetry?.(stalled);
          continue;
        }
        throw toModelCallError(error);
      } finally {
        watch.dispose();
      }
    }
  };
  return Object.assign(invoke, {
    provider: OPENAI,
    ...model,
    checkOptions: (given: ModelRequest['providerOptions']) => void openaiOptions(given),
  });
}

type ClientWithFetch = OpenAIClientLike & {
  withOptions?(options: { fetch: typeof globalThis.fetch }): OpenAIClientLike;
  fetch?: typeof globalThis.fetch;
};

/**
 * The client to stream through: with the event cap on, a copy of `client` whose `fetch` reads each
 * event stream through it. Throws `StreamLimitsError` for a client that cannot take a `fetch`: an
 * uncapped stream must be asked for (`maxEventBytes: Infinity`), not fallen into.
 */
function eventCap(client: OpenAIClientLike, maxEventBytes: number): OpenAIClientLike {
  if (maxEventBytes === Infinity) return client;
  const sdk = client as ClientWithFetch;
  const refuse = (why: string) =>
    new StreamLimitsError(
      `${why}, so the size of its stream events cannot be capped; pass \`maxEventBytes: Infinity\` to read it uncapped`,
    );
  if (typeof sdk.withOptions !== 'function') throw refuse('this OpenAI client has no `withOptions` (it is not from the `openai` package)');
  // The client's own fetch (a custom one, or the platform's), called as the SDK calls it: unbound.
  const base = sdk.fetch ?? globalThis.fetch;
  try {
    return sdk.withOptions({ fetch: async (input, init) => capResponse(await base.call(undefined, input, init), maxEventBytes) });
  } catch (error) {
    throw refuse(`this OpenAI client takes no custom fetch (${errorMessage(error)})`);
  }
}
