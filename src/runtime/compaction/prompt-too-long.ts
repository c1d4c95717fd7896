import { PromptTooLongError } from '../loop/errors.js';

/**
 * Invokers say "the prompt does not fit" with `PromptTooLongError`, whatever their vendor's wording.
 * An Anthropic SDK error passed through untyped (a hand-written invoker) is still recognised: the API
 * answers an over-long request with a 400 `invalid_request_error` and no stable error code,
 * only a message: "prompt is too long: 215000 tokens > 200000 maximum", or, when the prompt plus
 * `max_tokens` is what overflows, "input length and `max_tokens` exceed context limit: 188240 +
 * 21333 > 200000". Matching the wording is the only signal there is, so it lives here, in one place.
 */
const PATTERNS: { test: RegExp; tokens: RegExp }[] = [
  { test: /prompt is too long/i, tokens: /prompt is too long:\s*(\d+)\s*tokens/i },
  { test: /exceed context limit/i, tokens: /exceed context limit:\s*(\d+)\s*\+/i },
];

/** How far down a `cause` chain to look: invokers wrap the SDK's error once or twice, not more. */
const MAX_CAUSE_DEPTH = 8;

/** Whether `error`, or an error in its `cause` chain, says the prompt is over the model's window. */
export function isPromptTooLongError(error: unknown): boolean {
  return typedError(error) !== undefined || tooLongMessage(error) !== undefined;
}

/** The prompt size the API reported in that error (for `Compactor.observeUsage`), when it gave one. */
export function reportedPromptTokens(error: unknown): number | undefined {
  const typed = typedError(error);
  if (typed !== undefined) return typed.promptTokens;
  const message = tooLongMessage(error);
  if (message === undefined) return undefined;
  for (const { tokens } of PATTERNS) {
    const match = tokens.exec(message);
    if (match) return Number(match[1]);
  }
  return undefined;
}

function typedError(error: unknown): PromptTooLongError | undefined {
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    if (PromptTooLongError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function tooLongMessage(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const { status, message, apiMessage, cause } = current as {
      status?: unknown;
      message?: unknown;
      apiMessage?: unknown;
      cause?: unknown;
    };
    if (status === 400) {
      for (const text of [apiMessage, message]) {
        if (typeof text === 'string' && PATTERNS.some((p) => p.test.test(text))) return text;
      }
    }
    current = cause;
  }
  return undefined;
}
