import type { ModelCard } from '../contract/model.js';
import { checkModelCard } from './check.js';

/** Window and output cap used for a model id no card describes. Conservative on purpose. */
export const DEFAULT_MODEL_CARD: Omit<ModelCard, 'id'> = { contextWindow: 200_000, maxOutputTokens: 8_192 };

const CLAUDE_PRICES_AS_OF = '2026-11-01';

/**
 * Current Claude models. Prices are USD per million tokens, list prices as of `CLAUDE_PRICES_AS_OF`; any
 * cost derived from them is an estimate. A cache write costs 1.25 times input (twice for the 1-hour TTL),
 * a read a tenth.
 */
const CLAUDE: ModelCard[] = [
  claude('claude-opus-5-5', 1_000_000, 128_000, 5, 25),
  claude('claude-sonnet-5-5', 1_000_000, 64_000, 3, 15),
  claude('claude-haiku-5-5', 200_000, 64_000, 1, 5),
  claude('claude-opus-4-8', 1_000_000, 128_000, 5, 25),
  claude('claude-opus-4-7', 1_000_000, 128_000, 5, 25),
  claude('claude-opus-4-6', 200_000, 128_000, 5, 25),
  claude('claude-sonnet-4-6', 200_000, 64_000, 3, 15),
  claude('claude-opus-4-5', 200_000, 64_000, 5, 25),
  claude('claude-sonnet-4-5', 200_000, 64_000, 3, 15),
  claude('claude-haiku-4-5', 200_000, 64_000, 1, 5),
  claude('claude-sonnet-4', 200_000, 64_000, 3, 15),
];

/**
 * Common OpenAI models: USD per million tokens at the standard tier, each dated by the list it was taken
 * from. OpenAI bills no surcharge for writing its automatic prompt cache, so a cache write costs plain
 * input; a read costs the "cached input" rate. Long-context surcharges (GPT-5.4 and 5.5 above 272K
 * input tokens) are not modelled: estimates for such prompts come out low.
 */
const OPENAI: ModelCard[] = [
  openai('gpt-5.5', 1_000_000, 128_000, [5, 0.5, 30], '2026-06-04'),
  openai('gpt-5.4', 1_048_576, 128_000, [2.5, 0.25, 15], '2026-06-04'),
  openai('gpt-5.4-mini', 400_000, 128_000, [0.75, 0.075, 4.5], '2026-06-04'),
  openai('gpt-5.4-nano', 400_000, 128_000, [0.2, 0.02, 1.25], '2026-06-04'),
  openai('gpt-5.2', 400_000, 128_000, [1.75, 0.175, 14], '2025-12-11'),
  openai('gpt-5.1', 400_000, 128_000, [1.25, 0.125, 10], '2025-11-13'),
  openai('gpt-5', 400_000, 128_000, [1.25, 0.125, 10], '2025-08-07'),
  openai('gpt-5-mini', 400_000, 128_000, [0.25, 0.025, 2], '2025-08-07'),
  openai('gpt-5-nano', 400_000, 128_000, [0.05, 0.005, 0.4], '2025-08-07'),
  openai('gpt-4.1', 1_047_576, 32_768, [2, 0.5, 8], '2025-08-07'),
  openai('gpt-4.1-mini', 1_047_576, 32_768, [0.4, 0.1, 1.6], '2025-08-07'),
  openai('gpt-4o', 128_000, 16_384, [2.5, 1.25, 10], '2025-08-07'),
  openai('gpt-4o-mini', 128_000, 16_384, [0.15, 0.075, 0.6], '2025-08-07'),
  openai('o3', 200_000, 100_000, [2, 0.5, 8], '2025-08-07'),
  openai('o4-mini', 200_000, 100_000, [1.1, 0.275, 4.4], '2025-08-07'),
];

function claude(id: string, contextWindow: number, maxOutputTokens: number, input: number, output: number): ModelCard {
  return {
    id,
    contextWindow,
    maxOutputTokens,
    pricing: {
      inputPerMTok: input,
      outputPerMTok: output,
      cacheWritePerMTok: input * 1.25,
      cacheWrite1hPerMTok: input * 2,
      cacheReadPerMTok: input * 0.1,
      pricesAsOf: CLAUDE_PRICES_AS_OF,
    },
  };
}

function openai(
  id: string,
  contextWindow: number,
  maxOutputTokens: number,
  [input, cachedInput, output]: [number, number, number],
  pricesAsOf: string,
): ModelCard {
  return {
    id,
    contextWindow,
    maxOutputTokens,
    pricing: { inputPerMTok: input, outputPerMTok: output, cacheWritePerMTok: input, cacheReadPerMTok: cachedInput, pricesAsOf },
  };
}

const BUILT_IN = new Map([...CLAUDE, ...OPENAI].map((c) => [c.id, c]));
const registered = new Map<string, ModelCard>();

/**
 * Snapshot suffixes: Claude's `-20251001`, OpenAI's `-2025-08-07`. A dated id resolves to its family's
 * card when no card names it exactly.
 */
const DATE_SUFFIX = /-(\d{8}|\d{4}-\d{2}-\d{2})$/;

/**
 * The card for `modelId`: a registered card (`registerModelCard`) first, then the built-in table;
 * dated ids (`claude-haiku-4-5-20251001`, `gpt-5-2025-08-07`) resolve to their family's card; unknown
 * ids get `DEFAULT_MODEL_CARD` without prices. `overrides` wins over the card.
 */
export function modelCard(modelId: string, overrides: Partial<Omit<ModelCard, 'id'>> = {}): ModelCard {
  const family = modelFamily(modelId);
  const known = registered.get(modelId) ?? BUILT_IN.get(modelId) ?? registered.get(family) ?? BUILT_IN.get(family);
  const base: ModelCard = known ?? { id: modelId, ...DEFAULT_MODEL_CARD };
  return { ...base, id: modelId, ...definedOnly(overrides) };
}

/** The id without its snapshot date (`gpt-5-2025-08-07` -> `gpt-5`); an undated id is its own family. */
export function modelFamily(modelId: string): string {
  return modelId.replace(DATE_SUFFIX, '');
}

/**
 * Describes a model the table does not know, or corrects one it does (a price change, a larger
 * window): from now on, in this process, `modelCard(card.id)` returns it, so the conductor's window and
 * output cap, condensation and cost estimates (`estimateCost`, `sessionCost`, `sessions show`) all use
 * it. Throws `ModelCardError` for a card that cannot be right. Returns a function that removes it again.
 */
export function registerModelCard(card: ModelCard): () => void {
  checkModelCard(card);
  const copy: ModelCard = {
    ...card,
    ...(card.pricing && { pricing: { ...card.pricing } }),
    ...(card.input && { input: { ...card.input } }),
  };
  registered.set(card.id, copy);
  return () => {
    if (registered.get(card.id) === copy) registered.delete(card.id);
  };
}

/** Every card known: the registered ones, then the built-in ones they do not replace. */
export function knownModelCards(): readonly ModelCard[] {
  return [...registered.values(), ...[...BUILT_IN.values()].filter((c) => !registered.has(c.id))];
}

export function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
