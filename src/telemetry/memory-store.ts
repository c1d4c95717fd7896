import type { Attributes } from '@opentelemetry/api';
import type { MemoryRecord, MemoryStore } from '../memory/types.js';
import {
  ATTR_MEMORY_FORGOTTEN,
  ATTR_MEMORY_QUERY_TEXT,
  ATTR_MEMORY_RECORD_COUNT,
  ATTR_MEMORY_RECORD_ID,
  ATTR_MEMORY_RECORDS,
  ATTR_MEMORY_STORE_ID,
  ATTR_OPERATION_NAME,
  OP_CREATE_MEMORY,
  OP_DELETE_MEMORY,
  OP_SEARCH_MEMORY,
  OP_UPDATE_MEMORY,
} from './conventions.js';
import type { Instrumentation } from './instrumentation.js';
import { inInternalSpan } from './spans.js';
import { TelemetryOptionsError } from './errors.js';

/** Options of `telemetry.memoryStore`. */
export type MemoryStoreTelemetryOptions = {
  /** `gen_ai.memory.store.id`: which store this is, when an application has several. */
  id?: string;
};

/**
 * The memory store with a span per operation, named as the conventions name memory operations:
 * `create_memory` (`save`), `search_memory` (`search`, and `all`, a search without a query) and
 * `delete_memory` (`forget`), with the record count and id; the query and the records themselves only
 * with `captureContent`.
 */
export function traceMemoryStore(store: MemoryStore, inst: Instrumentation, options: MemoryStoreTelemetryOptions = {}): MemoryStore {
  if (typeof store?.save !== 'function' || typeof store.search !== 'function' || typeof store.forget !== 'function') {
    throw new TelemetryOptionsError('memoryStore needs a MemoryStore (with save, search and forget)');
  }
  const storeId = options?.id;
  if (storeId !== undefined && (typeof storeId !== 'string' || storeId === ''))
    throw new TelemetryOptionsError('the memory store `id` must be a non-empty string');
  const operation = <T>(name: string, start: Attributes, work: () => Promise<T>, done: (result: T) => Attributes): Promise<T> => {
    const attributes: Attributes = { [ATTR_OPERATION_NAME]: name, ...start };
    if (storeId !== undefined) attributes[ATTR_MEMORY_STORE_ID] = storeId;
    return inInternalSpan(inst.tracer, inst.captureContent, name, attributes, work, done);
  };
  const content = (attributes: Attributes): Attributes => (inst.captureContent ? attributes : {});
  const search = (query: string | undefined, records: MemoryRecord[]): Attributes => ({
    [ATTR_MEMORY_RECORD_COUNT]: records.length,
    ...content({ [ATTR_MEMORY_RECORDS]: recordsJson(records), ...(query === undefined ? {} : { [ATTR_MEMORY_QUERY_TEXT]: query }) }),
  });

  const traced: MemoryStore = {
    save: (text, opts) =>
      operation(
        OP_CREATE_MEMORY,
        { [ATTR_MEMORY_RECORD_COUNT]: 1 },
        () => store.save(text, opts),
        (record) => ({
          [ATTR_MEMORY_RECORD_ID]: record.id,
          ...content({ [ATTR_MEMORY_RECORDS]: recordsJson([record]) }),
        }),
      ),
    search: (query, opts) =>
      operation(
        OP_SEARCH_MEMORY,
        {},
        () => store.search(query, opts),
        (records) => search(query, records),
      ),
    // The owner options pass through untouched: a traced store enforces the same scopes as the store.
    forget: (id, opts) =>
      operation(
        OP_DELETE_MEMORY,
        { [ATTR_MEMORY_RECORD_ID]: id, [ATTR_MEMORY_RECORD_COUNT]: 1 },
        () => store.forget(id, opts),
        (forgotten) => ({
          [ATTR_MEMORY_FORGOTTEN]: forgotten,
        }),
      ),
  };
  const found = (record: MemoryRecord | undefined) => search(undefined, record === undefined ? [] : [record]);
  const { all, get, list, update } = store;
  if (all !== undefined)
    traced.all = () =>
      operation(
        OP_SEARCH_MEMORY,
        {},
        () => all.call(store),
        (records) => search(undefined, records),
      );
  if (get !== undefined)
    traced.get = (id, opts) => operation(OP_SEARCH_MEMORY, { [ATTR_MEMORY_RECORD_ID]: id }, () => get.call(store, id, opts), found);
  if (list !== undefined)
    traced.list = (opts) =>
      operation(
        OP_SEARCH_MEMORY,
        {},
        () => list.call(store, opts),
        (records) => search(undefined, records),
      );
  if (update !== undefined) {
    traced.update = (id, edit, opts) =>
      operation(
        OP_UPDATE_MEMORY,
        { [ATTR_MEMORY_RECORD_ID]: id },
        () => update.call(store, id, edit, opts),
        (record) => ({
          [ATTR_MEMORY_RECORD_COUNT]: record === undefined ? 0 : 1,
          ...content(record === undefined ? {} : { [ATTR_MEMORY_RECORDS]: recordsJson([record]) }),
        }),
      );
  }
  return traced;
}

/** Records as `gen_ai.memory.records`: content, id, score and metadata. */
function recordsJson(records: MemoryRecord[]): string {
  return JSON.stringify(records.map((record) => ({ id: record.id, content: record.text, score: record.score, metadata: record.meta })));
}
