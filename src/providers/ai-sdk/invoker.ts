import type { ModelCard, ModelInvoker, ModelReply, ModelRequest, ModelRetry, ProviderOptions } from '../../runtime/contract/model.js';
import { modelCard } from '../../runtime/models/cards.js';
import { boundModel } from '../../runtime/models/resolve.js';
import { ModelCallError, RunAbortedError } from '../../runtime/loop/errors.js';
import { CallReading, idleRetry, IdleWatch, streamLimits } from '../shared/index.js';
import { AiSdkOptionsError } from './errors.js';
import { apiCallError, isRetryable, toModelCallError } from './failures.js';
import { checkModel, providerId, type AiSdkLanguageModel } from './model.js';
import type { AnyVersionModel } from './spec.js';
import { callOptions } from './prompt.js';
import { ReplyAssembler } from './reply.js';
import { DEFAULT_MAX_RETRY_DELAY_MS, retryDelayMs, sleep } from './retry.js';

export type FromAiSdkOptions = {
  /**
   * Retries of a call the provider marked retryable (408, 409, 429, 5xx) before any of its reply
   * streamed, waiting what the server asked for (`retry-after-ms`, `retry-after`), else 2 s, 4 s…
   * Default 2, as the AI SDK's own `maxRetries`. Each retry is reported through `request.onRetry` (the
   * conductor publishes it as a `model_retry` event).
   */
  maxRetries?: number;
  /** The longest wait before a retry it accepts; a server asking for more faults the call at once. Default 60 s. */
  maxRetryDelayMs?: number;
  /**
   * The longest the model's stream may go without a content part, from the call on (see
   * `StreamLimits`); past it the call is closed with `StreamIdleError` and retried at once, up to
   * `maxRetries`, while no text reached `onText`. Default 60 s; `Infinity` turns it off. The cap on one
   * event's size is set on the provider instead: `createOpenAI({ fetch: cappedFetch() })`.
   */
  idleTimeoutMs?: number;
  /** What is known of the model (window, output cap, prices); default: the card registry's for its `modelId`. */
  card?: ModelCard;
};

/**
 * A `ModelInvoker` over any AI SDK language model (specification v3 or v4: `openai('gpt-5.4')`,
 * `anthropic(...)`, `google(...)`, an OpenAI-compatible local server…). Each call is one `doStream`: text
 * deltas go to `onText`; the reply is the streamed text, reasoning (as thinking) and tool calls in the
 * order they started, the finish reason mapped to a stop reason, and usage with cache reads and writes
 * where the provider reports them. `request.providerOptions` are passed to the model as they are, keyed
 * by the AI SDK's provider ids (`{ openai: { reasoningEffort: 'low' } }`); the invoker's `provider` is
 * the model's (`openai` for `openai.responses`). Rejects typed: `AiSdkModelError` at once for something
 * that is not such a model; `RunAbortedError` once the request's signal fired; `PromptTooLongError` for
 * a provider's "prompt over the window"; `ModelCallError` (with the HTTP status, the AI SDK's error as
 * cause) for other failures, an error part mid-stream, and a stream that ends without finishing;
 * `StreamIdleError` for a stream that stalled (see `idleTimeoutMs`). The invoker carries the model's id
 * (`modelId`) and `options.card` when given, so an agent can take it as its `model`:
 * `createAgent({ model: fromAiSdk(openai('gpt-5.4-mini')) })`.
 */
export function fromAiSdk(model: AiSdkLanguageModel, options: FromAiSdkOptions = {}): ModelInvoker {
  checkModel(model);
  const { idleTimeoutMs } = streamLimits({ idleTimeoutMs: options.idleTimeoutMs });
  const maxRetries = options.maxRetries ?? 2;
  const maxDelay = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  if (!(Number.isInteger(maxRetries) && maxRetries >= 0))
    throw new AiSdkOptionsError(`\`maxRetries\` must be a whole number >= 0, got ${String(maxRetries)}`);
  if (!(Number.isFinite(maxDelay) && maxDelay >= 0))
    throw new AiSdkOptionsError(`\`maxRetryDelayMs\` must be a number >= 0, got ${String(maxDelay)}`);
  // The model object knows its id: the invoker carries it, so an agent can take the invoker as its `model`.
  const modelId = typeof model.modelId === 'string' && model.modelId.trim() !== '' ? model.modelId : undefined;
  const identity = boundModel({ model: modelId, card: options.card }, 'fromAiSdk');
  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    const card = identity.card ?? modelCard(identity.modelId ?? request.model);
    const call = callOptions(request, { version: model.specificationVersion, card, provider: providerId(model) });
    const reading = new CallReading(request);
    for (let attempt = 0; ; attempt++) {
      if (request.signal?.aborted) throw new RunAbortedError({ cause: request.signal.reason });
      const watch = new IdleWatch(idleTimeoutMs, request.signal).begin();
      let retry: ModelRetry;
      try {
        // The options were written for this model's own version, whichever of the two it is.
        const result = await watch.race((model as AnyVersionModel).doStream({ ...call, abortSignal: watch.signal }));
        return await readReply(result.stream, reading, model.modelId, watch);
      } catch (error) {
        if (request.signal?.aborted) throw new RunAbortedError({ cause: error });
        const stalled = idleRetry(watch, reading, attempt, maxRetries);
        if (stalled !== undefined) retry = stalled;
        else {
          // Only a failed `doStream` is marked retryable: what broke mid-stream is already a ModelCallError.
          if (attempt >= maxRetries || !isRetryable(error)) throw toModelCallError(error);
          const delayMs = Math.round(retryDelayMs(error, attempt));
          const status = apiCallError(error)?.statusCode as number | undefined;
          if (delayMs > maxDelay) {
            throw new ModelCallError(
              `${toModelCallError(error).message}; it asked to wait ${Math.ceil(delayMs / 1000)} s before a retry, over the ${Math.round(maxDelay / 1000)} s limit (maxRetryDelayMs)`,
              { status, cause: error },
            );
          }
          retry = { attempt: attempt + 2, delayMs, reason: status === undefined ? 'retryable error' : `HTTP ${status}` };
          if (status !== undefined) retry.status = status;
        }
      } finally {
        watch.dispose();
      }
      request.onRetry?.(retry);
      if (retry.delayMs > 0) await sleep(retry.delayMs, request.signal);
    }
  };
  return Object.assign(invoke, { provider: providerId(model), ...identity, checkOptions });
}

/** Stream parts that are not the model's content: the provider's own start, raw chunks, Anthropic's pings. */
const NOT_CONTENT = new Set(['stream-start', 'raw', 'ping']);

async function readReply(
  stream: ReadableStream<{ type: string }>,
  hooks: Pick<ModelRequest, 'onText' | 'onFirstChunk'>,
  modelId: string,
  watch: IdleWatch,
): Promise<ModelReply> {
  const assembler = new ReplyAssembler(hooks, modelId);
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await watch.race(reader.read());
      if (done) return assembler.reply();
      if (!NOT_CONTENT.has(value.type)) watch.touch();
      assembler.observe(value);
    }
  } catch (error) {
    throw toModelCallError(error);
  } finally {
    // Stops the provider's stream (and its HTTP response) when the reply failed before its end.
    reader.cancel().catch(() => undefined);
  }
}

/**
 * The AI SDK's providers each validate their own options, at call time; what can be checked up front
 * is the shape they all share: an object per provider id.
 */
function checkOptions(options: ProviderOptions | undefined): void {
  for (const [key, value] of Object.entries(options ?? {})) {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw new AiSdkOptionsError(`\`providerOptions.${key}\` must be an object of that provider's options`);
  }
}
