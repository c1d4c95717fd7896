import type OpenAI from 'openai';
import { errorMessage } from '../../errors/base.js';
import { ModelCallError, PromptTooLongError } from '../../runtime/loop/errors.js';

/** The API's code for a prompt over the model's window, in an HTTP 400 body, an `error` event or a failed response. */
const CONTEXT_LENGTH_EXCEEDED = 'context_length_exceeded';

/** Where the API reports what the prompt came to: "…your messages resulted in 130532 tokens…". */
const REPORTED_TOKENS = /resulted in (\d+) tokens/i;

/** HTTP statuses implied by a failed response's error code, so callers can tell a rate limit from a server fault. */
const STATUS_OF_CODE: Record<string, number> = { rate_limit_exceeded: 429, server_error: 500, context_length_exceeded: 400 };

type ApiErrorShape = { status?: unknown; code?: unknown; type?: unknown; message?: unknown; error?: { message?: unknown } };

/**
 * A failed call as a typed error: `PromptTooLongError` for a prompt over the window (so condensation can
 * shrink it), else `ModelCallError` with the HTTP status when there was one. The SDK's error is the cause.
 */
export function toModelCallError(error: unknown): ModelCallError {
  if (ModelCallError.isInstance(error)) return error;
  const shape = (typeof error === 'object' && error !== null ? error : {}) as ApiErrorShape;
  const code = typeof shape.code === 'string' ? shape.code : undefined;
  // An `error` event mid-stream has no HTTP status of its own; its code still says which one it stands for.
  const status = typeof shape.status === 'number' ? shape.status : code !== undefined ? STATUS_OF_CODE[code] : undefined;
  const apiMessage = typeof shape.error?.message === 'string' ? shape.error.message : errorMessage(error);
  const where = status !== undefined ? `HTTP ${status}` : 'no HTTP status';
  const message = `The OpenAI API call failed (${where}): ${code !== undefined ? `${code}: ` : ''}${apiMessage}`;
  if (code === CONTEXT_LENGTH_EXCEEDED)
    return new PromptTooLongError(message, { status, cause: error, promptTokens: reportedTokens(apiMessage) });
  return new ModelCallError(message, { status, cause: error });
}

/** A `response.failed` event: the response carries the error the API would have answered with. */
export function failedResponseError(response: OpenAI.Responses.Response): ModelCallError {
  const code: string = response.error?.code ?? 'unknown_error';
  const apiMessage = response.error?.message ?? 'the response failed without an error message';
  const status = STATUS_OF_CODE[code];
  const message = `The OpenAI response failed (${code}): ${apiMessage}`;
  if (code === CONTEXT_LENGTH_EXCEEDED) return new PromptTooLongError(message, { status, promptTokens: reportedTokens(apiMessage) });
  return new ModelCallError(message, { status });
}

function reportedTokens(message: string): number | undefined {
  const match = REPORTED_TOKENS.exec(message);
  return match ? Number(match[1]) : undefined;
}
