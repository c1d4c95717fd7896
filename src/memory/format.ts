import type { MemoryRecord } from './types.js';

export const MEMORY_BLOCK_HEADER = 'Relevant memory (use if helpful):';

/**
 * '' for no records, otherwise the header line and one `- text` line per record. Line breaks inside a
 * record are folded to spaces so each record stays exactly one line of the block.
 */
export function formatMemoryBlock(records: MemoryRecord[]): string {
  if (records.length === 0) return '';
  const lines = records.map((record) => `- ${record.text.replace(/\s*[\r\n]+\s*/g, ' ').trim()}`);
  return [MEMORY_BLOCK_HEADER, ...lines].join('\n');
}
