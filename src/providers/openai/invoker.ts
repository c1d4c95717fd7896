import type OpenAI from 'openai';
import type { ModelCard, ModelInvoker, ModelReply, ModelRequest } from '../../runtime/contract/model.js';
import { boundModel } from '../../runtime/models/resolve.js';
import { RunAbortedError } from '../../runtime/loop/errors.js';
import type { OpenAIClientLike } from './client.js';
import { toModelCallError } from './failures.js';
import { checkOpenAIOptions, OPENAI, openaiOptions, type OpenAIProviderOptions } from './options.js';
import { ReplyAssembler } from './reply.js';
import { requestBody } from './wire.js';

/**
 * The model the invoker is built for (`model`, and optionally its `card`), and defaults for requests
 * whose `providerOptions.openai` does not set them (`reasoningEffort`, `promptCacheKey`).
 */
export type OpenAIInvokerOptions = OpenAIProviderOptions & {
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
 */
export function createOpenAIInvoker(client: OpenAIClientLike, options: OpenAIInvokerOptions = {}): ModelInvoker {
  const { model: id, card, ...rest } = options ?? {};
  const defaults = checkOpenAIOptions(rest, '`createOpenAIInvoker` options');
  const model = boundModel({ model: id, card }, 'createOpenAIInvoker');
  const invoke = async (request: ModelRequest): Promise<ModelReply> => {
    const body = requestBody(model.modelId === undefined ? request : { ...request, model: model.modelId }, defaults);
    const assembler = new ReplyAssembler(request.onText);
    try {
      const stream = await client.responses.create(body, request.signal ? { signal: request.signal } : undefined);
      let first = true;
      for await (const event of stream) {
        if (first) {
          first = false;
          request.onFirstChunk?.();
        }
        assembler.observe(event as OpenAI.Responses.ResponseStreamEvent);
      }
      return assembler.reply();
    } catch (error) {
      if (request.signal?.aborted) throw new RunAbortedError({ cause: error });
      throw toModelCallError(error);
    }
  };
  return Object.assign(invoke, {
    provider: OPENAI,
    ...model,
    checkOptions: (given: ModelRequest['providerOptions']) => void openaiOptions(given),
  });
}
