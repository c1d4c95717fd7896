import type { ModelControls, ModelInvoker, ModelReply, ModelRequest, ProviderOptions } from '../contract/model.js';
import { ModelCallError, PromptTooLongError } from '../loop/errors.js';
import { errorMessage } from '../../errors/index.js';
import { ModelChoiceError } from '../models/errors.js';
import { modelCard } from '../models/cards.js';
import { modelIdOf } from '../models/resolve.js';

export type FallbackOptions = {
  /**
   * Whether the failure of one model hands the call to the next one. Default `isOutage`: overloaded,
   * rate limited, a server error or a dropped connection, after the failed invoker's own retries.
   */
  when?: (error: unknown) => boolean;
};

/** HTTP statuses that say "not now" rather than "not this request": timeout, conflict, rate limit. */
const TRANSIENT = new Set([408, 409, 429]);

/**
 * Whether `error` is a model's outage rather than a problem with the request: a `ModelCallError` with
 * HTTP status 408, 409, 429 or 5xx (529 is Anthropic's "overloaded"), or none at all (a dropped
 * connection, a stream cut short). A prompt over the window (`PromptTooLongError`) is not: it is too
 * long for the next model too, and condensation handles it. An invoker reports these typed after its
 * own retries, so a fallback moves on only once retrying the same model gave up.
 */
export function isOutage(error: unknown): boolean {
  if (!ModelCallError.isInstance(error) || PromptTooLongError.isInstance(error)) return false;
  const status = error.status;
  return status === undefined || TRANSIENT.has(status) || status >= 500;
}

/**
 * One invoker over a chain of models: each call goes to the first; when it fails with an outage (see
 * `isOutage`, or `options.when`), the same request goes to the next, and so on; the last one's failure
 * is the call's. Vendor-free: any invokers, any providers (`fallbackModels([claude, gpt])`).
 *
 * - Each model is asked for by its own id (`request.model` is rewritten to its `modelId`; one that is not
 *   built for a model gets the request's), with `maxOutputTokens` cut to its card's output cap.
 * - The reply says which model answered (`reply.model`, set to that id when the invoker gave none), so
 *   the conductor records it on the assistant turn's node with the call's usage, and costs come from
 *   that model's card (`cardLookup(fallback)` knows every model's card).
 * - Before moving on it reports `request.onRetry` with `model` set to the next model (the conductor
 *   publishes it as `model_retry`), so a UI can say "overloaded, answering with …".
 * - A call whose reply had already streamed text is not handed on (the text is out; a second answer
 *   would follow half of the first): its failure is the call's, as with an invoker's own retries.
 *   Nor is an aborted one.
 *
 * The invoker describes the first model (`modelId`, `card`, `provider`) and lists all of them in
 * `models`; `checkOptions` and `checkControls` ask every model, so a config none of them can take fails
 * when the agent is created. Throws `ModelChoiceError` for a chain that cannot work.
 */
export function fallbackModels(models: readonly ModelInvoker[], options: FallbackOptions = {}): ModelInvoker {
  if (!Array.isArray(models) || models.length === 0) throw new ModelChoiceError('fallbackModels needs a non-empty array of model invokers');
  models.forEach((model, index) => {
    if (typeof model !== 'function') throw new ModelChoiceError(`fallbackModels: models[${index}] is not a model invoker`);
  });
  const when = options?.when ?? isOutage;
  if (typeof when !== 'function') throw new ModelChoiceError('fallbackModels: `when` must be a function of the error');
  const chain = [...models];
  // A model's output cap: its own card, else the registry's for the id it is called by.
  const capOf = (model: ModelInvoker, id: string) => model.card?.maxOutputTokens ?? modelCard(id).maxOutputTokens;

  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    let firstChunk = false;
    const onFirstChunk =
      request.onFirstChunk &&
      (() => {
        if (firstChunk) return;
        firstChunk = true;
        request.onFirstChunk!();
      });
    for (let index = 0; ; index++) {
      const model = chain[index];
      const id = modelIdOf(model) ?? request.model;
      let streamed = false;
      const attempt: ModelRequest = { ...request, model: id, maxOutputTokens: Math.min(request.maxOutputTokens, capOf(model, id)) };
      if (request.onText !== undefined) {
        const onText = request.onText;
        attempt.onText = (delta) => {
          streamed = true;
          onText(delta);
        };
      }
      if (onFirstChunk !== undefined) attempt.onFirstChunk = onFirstChunk;
      try {
        const reply = await model(attempt);
        return reply && reply.model === undefined ? { ...reply, model: id } : reply;
      } catch (error) {
        const next = chain[index + 1];
        if (next === undefined || streamed || request.signal?.aborted || !when(error)) throw error;
        const nextId = modelIdOf(next) ?? request.model;
        const status = ModelCallError.isInstance(error) ? error.status : undefined;
        request.onRetry?.({
          attempt: index + 2,
          delayMs: 0,
          ...(status !== undefined && { status }),
          reason: `${id} failed (${errorMessage(error)}); ${nextId} answers instead`,
          model: nextId,
        });
      }
    }
  };

  const first = chain[0];
  return Object.assign(invoke, {
    ...(first.provider !== undefined && { provider: first.provider }),
    ...(first.modelId !== undefined && { modelId: first.modelId }),
    ...(first.card !== undefined && { card: first.card }),
    models: chain,
    checkOptions(given: ProviderOptions | undefined) {
      for (const model of chain) model.checkOptions?.(given);
    },
    checkControls(controls: ModelControls, limits: { maxOutputTokens: number }) {
      for (const model of chain) {
        const id = modelIdOf(model);
        const cap = id === undefined ? limits.maxOutputTokens : Math.min(limits.maxOutputTokens, capOf(model, id));
        model.checkControls?.(controls, { maxOutputTokens: cap });
      }
    },
  });
}
