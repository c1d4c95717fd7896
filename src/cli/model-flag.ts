import { CliUsageError } from './errors.js';

/** The providers `--model` can name. */
export type ModelProvider = 'anthropic' | 'openai';

/**
 * What `--model` names: a provider, a model id, and the flag as given (for messages); or the offline
 * demo model (`--model demo`), which needs no key and is chosen even when a key is set.
 */
export type ModelFlag = { provider: ModelProvider; model: string; given: string } | { provider: 'demo'; given: string };

/** The words that name the offline demo model, in `--model`, `/model` and `INDUSAGI_MODEL`. */
export const DEMO_WORDS: readonly string[] = ['demo', 'offline'];

const PROVIDERS: readonly ModelProvider[] = ['anthropic', 'openai'];

/**
 * `--model provider:model-id` (`openai:gpt-5.4`, `anthropic:claude-opus-5-5`); a bare id is Anthropic's,
 * as before providers could be named; `demo` (or `offline`) is the offline demo model. An unknown provider or an empty id is a `CliUsageError`.
 */
export function parseModelFlag(given: string): ModelFlag {
  if (DEMO_WORDS.includes(given.trim())) return { provider: 'demo', given };
  const colon = given.indexOf(':');
  if (colon < 0) return { provider: 'anthropic', model: given, given };
  const provider = given.slice(0, colon);
  const model = given.slice(colon + 1);
  if (!PROVIDERS.includes(provider as ModelProvider)) {
    throw new CliUsageError(`--model: unknown provider "${provider}"; use ${PROVIDERS.map((p) => `${p}:MODEL`).join(' or ')}`);
  }
  if (model.trim() === '') throw new CliUsageError(`--model ${given}: the model id after "${provider}:" is empty`);
  return { provider: provider as ModelProvider, model, given };
}
