import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ClientSdk } from './sdk.js';

const MAX_PAGES = 1000;

/**
 * Every item of a paged list (`tools/list`, `resources/list`, `prompts/list`…): cursors are followed
 * until the last page, and a cursor that comes back, or more than a thousand pages, is an error rather
 * than a list that never ends. The result is read loosely: the caller checks item by item, so one
 * malformed item cannot sink the list.
 */
export async function listAll(
  sdk: ClientSdk,
  client: Client,
  options: RequestOptions,
  method: string,
  key: string,
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = cursor === undefined ? {} : { cursor };
    const result = (await client.request({ method, params } as never, sdk.types.PaginatedResultSchema, options)) as Record<string, unknown>;
    const list = result[key];
    if (!Array.isArray(list)) throw new Error(`the ${method} result has no "${key}" array`);
    for (const item of list) if (typeof item === 'object' && item !== null) items.push(item as Record<string, unknown>);
    const next = result.nextCursor;
    if (typeof next !== 'string') return items;
    if (seen.has(next)) throw new Error(`the ${method} cursor ${JSON.stringify(next)} came back twice; the list would never end`);
    seen.add(next);
    cursor = next;
  }
  throw new Error(`${method} went on for more than ${MAX_PAGES} pages`);
}
