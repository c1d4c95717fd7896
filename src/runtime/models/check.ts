import type { ModelCard } from '../contract/model.js';
import { ModelCardError } from './errors.js';

const PRICES = ['inputPerMTok', 'outputPerMTok', 'cacheWritePerMTok', 'cacheReadPerMTok'] as const;

/**
 * Throws `ModelCardError` unless `card` can describe a model: a non-empty id, whole positive token
 * counts with the output cap inside the window, `input` and `structuredOutput` as `ModelCard` types them,
 * and, when priced, finite non-negative prices dated `YYYY-MM-DD` (an undated price cannot be told apart
 * from a stale one).
 */
export function checkModelCard(card: ModelCard): void {
  if (typeof card !== 'object' || card === null) throw new ModelCardError('it is not an object');
  if (typeof card.id !== 'string' || card.id.trim() === '') throw new ModelCardError('`id` must be a non-empty model id');
  for (const key of ['contextWindow', 'maxOutputTokens'] as const) {
    const value = card[key];
    if (!(Number.isSafeInteger(value) && value >= 1))
      throw new ModelCardError(`\`${key}\` of "${card.id}" must be a positive whole number, got ${JSON.stringify(value)}`);
  }
  if (card.maxOutputTokens >= card.contextWindow) {
    throw new ModelCardError(
      `\`maxOutputTokens\` of "${card.id}" (${card.maxOutputTokens}) must be below its \`contextWindow\` (${card.contextWindow})`,
    );
  }
  checkCapabilities(card);
  const pricing = card.pricing;
  if (pricing === undefined) return;
  if (typeof pricing !== 'object' || pricing === null) throw new ModelCardError(`\`pricing\` of "${card.id}" must be an object`);
  const keys = pricing.cacheWrite1hPerMTok === undefined ? PRICES : [...PRICES, 'cacheWrite1hPerMTok' as const];
  for (const key of keys) {
    const value = pricing[key];
    if (!(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
      throw new ModelCardError(
        `\`pricing.${key}\` of "${card.id}" must be a number >= 0 (USD per million tokens), got ${JSON.stringify(value)}`,
      );
    }
  }
  if (
    typeof pricing.pricesAsOf !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}$/.test(pricing.pricesAsOf) ||
    Number.isNaN(Date.parse(pricing.pricesAsOf))
  ) {
    throw new ModelCardError(
      `\`pricing.pricesAsOf\` of "${card.id}" must be the date the prices were read, as YYYY-MM-DD, got ${JSON.stringify(pricing.pricesAsOf)}`,
    );
  }
}

/** `input` holds only booleans for `images` and `documents`; `structuredOutput` is one of its two modes. */
function checkCapabilities(card: ModelCard): void {
  const input = card.input;
  if (input !== undefined) {
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new ModelCardError(`\`input\` of "${card.id}" must be an object`);
    for (const [key, value] of Object.entries(input)) {
      if (key !== 'images' && key !== 'documents')
        throw new ModelCardError(`\`input.${key}\` of "${card.id}" is not a kind of input (known: images, documents)`);
      if (typeof value !== 'boolean')
        throw new ModelCardError(`\`input.${key}\` of "${card.id}" must be true or false, got ${JSON.stringify(value)}`);
    }
  }
  const mode = card.structuredOutput;
  if (mode !== undefined && mode !== 'native' && mode !== 'instruction') {
    throw new ModelCardError(`\`structuredOutput\` of "${card.id}" must be "native" or "instruction", got ${JSON.stringify(mode)}`);
  }
}
