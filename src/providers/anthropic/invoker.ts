import type Anthropic from '@anthropic-ai/sdk';
import type { ModelInvoker, ModelReply, ModelRequest } from '../../runtime/contract/model.js';
import { ModelCallError, RunAbortedError } from '../../runtime/loop/errors.js';
import type { AnthropicClientLike } from './client.js';
import { ReplyTracker } from './reply-tracker.js';
import { fromMessage, toMessageParams, toModelUsage } from './wire.js';

/**
 * A `ModelInvoker` over an Anthropic client: streams each call with `client.messages.stream`, hands
 * every text delta to `onText`, and resolves with the final message as an assistant turn. Failures
 * reject typed: `RunAbortedError` when the request's signal fired, `ModelCallError` (with the HTTP
 * `status` when there is one, and the SDK's error as `cause`) for network errors, HTTP errors after
 * the client's own retries, and `error` events mid-stream.
 */
export function createAnthropicInvoker(client: AnthropicClientLike): ModelInvoker {
  return async (request) => {
    const tracker = new ReplyTracker();
    try {
      const stream = client.messages.stream(requestBody(request), request.signal ? { signal: request.signal } : undefined);
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

/** The request body for `ModelRequest`; exported for callers that build their own streaming calls. */
export function requestBody(request: ModelRequest): Anthropic.MessageStreamParams {
  const body: Anthropic.MessageStreamParams = {
    model: request.model,
    max_tokens: request.maxOutputTokens,
    messages: toMessageParams(request.messages),
  };
  if (request.system !== undefined && request.system !== '') body.system = request.system;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
    }));
  }
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
      : error instanceof Error
        ? error.message
        : String(error);
  const where = status !== undefined ? `HTTP ${status}` : 'no HTTP status';
  return new ModelCallError(`The Anthropic API call failed (${where}): ${described}`, { status, cause: error });
}
