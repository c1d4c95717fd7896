import type { MemoryRecord, MemoryStore, RecallOptions } from './types.js';
import { MemoryInputError } from './errors.js';
import { describe } from './options.js';
import { formatMemoryBlock } from './format.js';

/**
 * Searches `memory` and returns the hits with a block ready for a system prompt. A blank query never
 * reaches the store: there is nothing to match, and a remote store would be paid for nothing.
 */
export async function recallMemory(
  memory: MemoryStore,
  query: string,
  opts?: RecallOptions,
): Promise<{ records: MemoryRecord[]; block: string }> {
  if (typeof query !== 'string') throw new MemoryInputError(`Recall query must be a string, got ${describe(query)}.`);
  if (query.trim() === '') return { records: [], block: '' };
  const records = await memory.search(query, opts);
  return { records, block: formatMemoryBlock(records) };
}
