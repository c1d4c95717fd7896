import type { ModelCard } from '../contract/model.js';

/** Window and output cap used for a model id the table does not know. Conservative on purpose. */
export const DEFAULT_MODEL_CARD: Omit<ModelCard, 'id'> = { contextWindow: 200_000, maxOutputTokens: 8_192 };

const PRICES_AS_OF = '2026-11-01';

/**
 * Current Claude models. Prices are USD per million tokens, list prices as of `PRICES_AS_OF`; any
 * cost derived from them is an estimate.
 */
const CARDS: ModelCard[] = [
  card('claude-opus-5-5', 1_000_000, 128_000, 5, 25),
  card('claude-sonnet-5-5', 1_000_000, 64_000, 3, 15),
  card('claude-haiku-5-5', 200_000, 64_000, 1, 5),
  card('claude-opus-4-8', 1_000_000, 128_000, 5, 25),
  card('claude-opus-4-7', 1_000_000, 128_000, 5, 25),
  card('claude-opus-4-6', 200_000, 128_000, 5, 25),
  card('claude-sonnet-4-6', 200_000, 64_000, 3, 15),
  card('claude-opus-4-5', 200_000, 64_000, 5, 25),
  card('claude-sonnet-4-5', 200_000, 64_000, 3, 15),
  card('claude-haiku-4-5', 200_000, 64_000, 1, 5),
  card('claude-sonnet-4', 200_000, 64_000, 3, 15),
];

function card(id: string, contextWindow: number, maxOutputTokens: number, input: number, output: number): ModelCard {
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
      pricesAsOf: PRICES_AS_OF,
    },
  };
}

const BY_ID = new Map(CARDS.map((c) => [c.id, c]));

/**
 * The card for `modelId`. Dated ids (`claude-haiku-4-5-20251001`) resolve to their family's card;
 * unknown ids get `DEFAULT_MODEL_CARD` without prices. `overrides` wins over the table.
 */
export function modelCard(modelId: string, overrides: Partial<Omit<ModelCard, 'id'>> = {}): ModelCard {
  const known = BY_ID.get(modelId) ?? BY_ID.get(modelId.replace(/-\d{8}$/, ''));
  const base: ModelCard = known ?? { id: modelId, ...DEFAULT_MODEL_CARD };
  return { ...base, id: modelId, ...definedOnly(overrides) };
}

/** Every card the table holds. */
export function knownModelCards(): readonly ModelCard[] {
  return CARDS;
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
