import { partProblem } from '../parts/validate.js';
import type { AssistantItem } from './types.js';
import { InvalidItemError } from './errors.js';

/** Throws `InvalidItemError` unless `items` is an array of `AssistantItem`s. */
export function assertAssistantItems(items: unknown): asserts items is AssistantItem[] {
  if (!Array.isArray(items)) throw new InvalidItemError('A thread must be an array of AssistantItems.');
  items.forEach((item: unknown, index) => {
    const problem = itemProblem(item);
    if (problem !== null) throw new InvalidItemError(`Item ${index} is not an AssistantItem: ${problem}.`);
  });
}

function itemProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'it must be an object';
  const item = value as Record<string, unknown>;
  if (item.role === 'user') {
    if (typeof item.text !== 'string') return 'a user item needs a string "text"';
    return item.spoken === undefined || typeof item.spoken === 'boolean' ? null : '"spoken" must be a boolean';
  }
  if (item.role === 'assistant') {
    if (!Array.isArray(item.parts)) return 'an assistant item needs a "parts" array';
    for (const part of item.parts) {
      const problem = partProblem(part);
      if (problem !== null) return problem;
    }
    return null;
  }
  return `unknown role ${JSON.stringify(item.role)}`;
}
