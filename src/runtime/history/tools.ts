import type { ToolDefinition } from '../contract/tool.js';
import { ToolError } from '../tools/tool-error.js';
import type { HistoryIndex } from './history-index.js';

/** `history.search` and `history.read`, the tools over a session's compacted-away turns. */
export const HISTORY_SEARCH = 'history.search';
export const HISTORY_READ = 'history.read';

/** How much the history tools hand the model at a time, so a search never floods the context. */
export type HistoryOptions = {
  /** Turns a search returns at most. Default 5, at most 20. */
  k?: number;
  /** Characters of each excerpt. Default 400. */
  excerptChars?: number;
  /** Characters of a turn `history.read` returns at a time (ask again with `offset` for more). Default 8,000. */
  readChars?: number;
};

/**
 * The note every summary turn ends with while history recall is on: the model learns the turns are
 * still there, and how to reach them (the names it sees are sanitized).
 */
export const HISTORY_NOTE =
  'The turns summarized above are still kept verbatim: history_search finds them by words (paths, commands, ids, numbers), history_read shows one in full by its id.';

// One schema object per shape, so every agent's history tools share one compiled schema (compiled once
// per object): an agent built per call (a sub-agent) does not compile them again.
const searchInputs = new Map<number, object>();
function searchInput(k: number): object {
  let schema = searchInputs.get(k);
  if (schema === undefined) {
    schema = {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words to look for, e.g. a path, an error message, an invoice number.' },
        k: { type: 'integer', minimum: 1, maximum: k, description: `How many turns to return (default ${Math.min(5, k)}).` },
      },
      required: ['query'],
    };
    searchInputs.set(k, schema);
  }
  return schema;
}
const READ_INPUT = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'A turn id from history_search.' },
    offset: { type: 'integer', minimum: 0, description: 'Where to continue a long turn (the offset the last read ended at).' },
  },
  required: ['id'],
};

/** The two tools, reading whichever index `current` gives (the agent's session may change between runs). */
export function historyTools(current: () => HistoryIndex | undefined, options: HistoryOptions = {}): ToolDefinition[] {
  const k = Math.min(options.k ?? 5, 20);
  const excerptChars = options.excerptChars ?? 400;
  const readChars = options.readChars ?? 8_000;
  const index = (): HistoryIndex => {
    const found = current();
    if (found === undefined) throw new ToolError('This session has no compacted history to search.');
    return found;
  };
  return [
    {
      name: HISTORY_SEARCH,
      description:
        'Searches the earlier turns of this conversation that were compacted into a summary, and returns the best matches verbatim with their ids. Use it for exact details the summary left out: file paths, commands, ids, numbers, quotes.',
      inputSchema: searchInput(k),
      idempotent: true,
      async execute(input: { query?: unknown; k?: unknown }) {
        if (typeof input.query !== 'string' || input.query.trim() === '')
          throw new ToolError('history.search needs a non-empty "query" string.');
        const want = input.k === undefined ? Math.min(5, k) : input.k;
        if (!Number.isInteger(want) || (want as number) < 1) throw new ToolError('"k" must be a whole number of at least 1.');
        const found = await index().search(input.query, Math.min(want as number, k), excerptChars);
        return {
          found: found.map(({ id, role, at, excerpt }) => ({ id, role, at: new Date(at).toISOString(), excerpt })),
          note: found.length === 0 ? 'No earlier turn matched.' : 'history_read shows a turn in full.',
        };
      },
    },
    {
      name: HISTORY_READ,
      description: 'Shows one earlier turn of this conversation in full, by the id history_search gave.',
      inputSchema: READ_INPUT,
      idempotent: true,
      async execute(input: { id?: unknown; offset?: unknown }) {
        if (typeof input.id !== 'string' || input.id === '')
          throw new ToolError('history.read needs the "id" of a turn from history_search.');
        const offset = input.offset ?? 0;
        if (!Number.isInteger(offset) || (offset as number) < 0) throw new ToolError('"offset" must be a whole number of at least 0.');
        const page = await index().read(input.id, offset as number, readChars);
        if (page === undefined) throw new ToolError(`No compacted turn has the id "${input.id}"; use an id history_search returned.`);
        return {
          id: page.id,
          role: page.role,
          at: new Date(page.at).toISOString(),
          text: page.text,
          ...(page.more && { next: page.offset + page.text.length }),
        };
      },
    },
  ];
}
