import { errorMessage } from '../../errors/base.js';
import { ModelCallError, PromptTooLongError } from '../../runtime/loop/errors.js';
import { causeOf } from '../shared/index.js';

/**
 * How providers word "the prompt is over the window", as far as the AI SDK passes it on: OpenAI and
 * compatible servers (`context_length_exceeded`, "maximum context length", "exceeds the context window"),
 * Anthropic ("prompt is too long", "exceed context limit"), Google ("input token count … exceeds the
 * maximum"). There is no common error code, so the wording is matched here, in the one adapter that
 * faces every vendor.
 */
const TOO_LONG = [
  /context_length_exceeded/i,
  /maximum context length/i,
  /exceeds the context window/i,
  /prompt is too long/i,
  /exceed context limit/i,
  /input token count.*exceeds the maximum/i,
];

/** Where those messages say what the prompt came to. */
const REPORTED_TOKENS = [
  /prompt is too long:\s*(\d+)\s*tokens/i,
  /resulted in (\d+) tokens/i,
  /you requested (\d+) tokens/i,
  /input token count \((\d+)\)/i,
  /exceed context limit:\s*(\d+)\s*\+/i,
];

/** The fields of the AI SDK's `APICallError` the adapter reads (duck-typed: the error class differs between SDK majors). */
type ApiCallErrorShape = {
  statusCode?: unknown;
  isRetryable?: unknown;
  responseHeaders?: unknown;
  responseBody?: unknown;
  message?: unknown;
};

export function apiCallError(error: unknown): ApiCallErrorShape | undefined {
  return typeof error === 'object' && error !== null && typeof (error as ApiCallErrorShape).statusCode === 'number'
    ? (error as ApiCallErrorShape)
    : undefined;
}

/** Whether the AI SDK marked `error` as worth retrying (408, 409, 429, 5xx, as its providers judge). */
export function isRetryable(error: unknown): boolean {
  return apiCallError(error)?.isRetryable === true;
}

/**
 * A failed `doStream` call as a typed error: `PromptTooLongError` for a prompt over the window,
 * `ModelCallError` with the HTTP status otherwise. The AI SDK's error is the cause.
 */
export function toModelCallError(error: unknown): ModelCallError {
  const own = causeOf(error, (candidate): candidate is ModelCallError => ModelCallError.isInstance(candidate));
  if (own !== undefined) return own;
  const api = apiCallError(error);
  const status = api?.statusCode as number | undefined;
  const text = describe(error);
  const message = `The AI SDK model call failed (${status !== undefined ? `HTTP ${status}` : 'no HTTP status'}): ${text}`;
  return tooLong(text)
    ? new PromptTooLongError(message, { status, cause: error, promptTokens: reportedTokens(text) })
    : new ModelCallError(message, { status, cause: error });
}

/** An `error` stream part: whatever the provider put in it (an error object, or the raw error event). */
export function streamFailure(error: unknown): ModelCallError {
  // What indusagi's own stream reading threw (the event cap) comes back as it was.
  if (ModelCallError.isInstance(error) || apiCallError(error) !== undefined) return toModelCallError(error);
  const text = describe(error);
  const message = `The AI SDK model's stream failed: ${text}`;
  return tooLong(text)
    ? new PromptTooLongError(message, { status: 400, cause: error, promptTokens: reportedTokens(text) })
    : new ModelCallError(message, { cause: error });
}

/** The error's message, and the response body or error event it came from, which is where the vendor's code is. */
function describe(error: unknown): string {
  const api = apiCallError(error);
  if (api !== undefined)
    return [errorMessage(error), typeof api.responseBody === 'string' ? api.responseBody : ''].filter(Boolean).join(' · ');
  if (error instanceof Error) return error.message;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

function tooLong(text: string): boolean {
  return TOO_LONG.some((pattern) => pattern.test(text));
}

function reportedTokens(text: string): number | undefined {
  for (const pattern of REPORTED_TOKENS) {
    const match = pattern.exec(text);
    if (match) return Number(match[1]);
  }
  return undefined;
}
