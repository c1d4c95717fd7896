import type { ToolDefinition } from '../../runtime/contract/tool.js';
import type { MemoryStore } from '../../memory/index.js';
import { recallMemory, rememberFacts } from '../../memory/index.js';
import { field } from './files.js';

const RECALL_K = 5;

/** `memory.remember`: saves one fact to long-term memory. */
export function rememberTool(memory: MemoryStore): ToolDefinition {
  return {
    name: 'memory.remember',
    description: 'Save one fact to long-term memory so it can be recalled in later sessions.',
    inputSchema: { type: 'object', properties: { fact: { type: 'string' } }, required: ['fact'] },
    async execute(input) {
      const [record] = await rememberFacts(memory, [field(input, 'fact')]);
      return `Saved to memory: ${record.text}`;
    },
  };
}

/** `memory.recall`: the remembered facts that best match a query. */
export function recallTool(memory: MemoryStore): ToolDefinition {
  return {
    name: 'memory.recall',
    description: `Search long-term memory; returns up to ${RECALL_K} matching facts.`,
    inputSchema: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
    async execute(input) {
      const query = field(input, 'query');
      const { records } = await recallMemory(memory, query, { k: RECALL_K });
      if (records.length === 0) return `Nothing in memory matches "${query}".`;
      return records.map((r) => `- ${r.text}`).join('\n');
    },
  };
}
