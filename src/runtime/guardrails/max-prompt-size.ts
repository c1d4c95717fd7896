import type { InputGuardrail } from '../contract/guardrail.js';
import { estimateTurnTokens } from '../compaction/estimate.js';
import { GuardrailDefinitionError } from './errors.js';

export type MaxPromptSizeOptions = {
  /** At most this many characters of text (the prompt's text blocks, joined). */
  maxChars?: number;
  /** At most this many tokens, estimated as condensation estimates them (images and documents count too). */
  maxTokens?: number;
  /** The guardrail's name, as trips report it. Default `max_prompt_size`. */
  name?: string;
};

/**
 * An input guardrail that trips on a prompt larger than `maxChars` characters or `maxTokens` estimated
 * tokens (give one or both). It runs before the model call (`runInParallel: false`): an oversized
 * prompt is never sent, so it costs nothing. Throws `GuardrailDefinitionError` for options that
 * cannot work.
 */
export function maxPromptSize(options: MaxPromptSizeOptions): InputGuardrail {
  const { maxChars, maxTokens, name = 'max_prompt_size' } = (options ?? {}) as MaxPromptSizeOptions;
  for (const [key, value] of [
    ['maxChars', maxChars],
    ['maxTokens', maxTokens],
  ] as const) {
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 1))
      throw new GuardrailDefinitionError(`maxPromptSize: \`${key}\` must be a positive integer, got ${String(value)}.`);
  }
  if (maxChars === undefined && maxTokens === undefined)
    throw new GuardrailDefinitionError('maxPromptSize needs `maxChars`, `maxTokens` or both.');
  if (typeof name !== 'string' || name === '') throw new GuardrailDefinitionError('maxPromptSize: `name` must be a non-empty string.');
  return {
    name,
    runInParallel: false,
    execute({ prompt, content }) {
      if (maxChars !== undefined && prompt.length > maxChars) {
        return {
          tripwireTriggered: true,
          message: `The prompt has ${prompt.length} characters; at most ${maxChars} are allowed.`,
          outputInfo: { chars: prompt.length, maxChars },
        };
      }
      if (maxTokens !== undefined) {
        const tokens = estimateTurnTokens({ role: 'user', blocks: content });
        if (tokens > maxTokens) {
          return {
            tripwireTriggered: true,
            message: `The prompt comes to about ${tokens} tokens; at most ${maxTokens} are allowed.`,
            outputInfo: { tokens, maxTokens },
          };
        }
      }
      return { tripwireTriggered: false };
    },
  };
}
